/*
 * pstats.c - reader for Python pstats (cProfile, profile, yappi, austin-python): a marshalled dict.
 * (placeholder: the probe bids nothing and the reader refuses, until the
 * module is written)
 */
#include "config.h"

#include "pyprof_int.h"

static int
pstats_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)head;
    (void)len;
    (void)at_eof;
    return 0;
}

static int
pstats_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    (void)p;
    (void)opts;
    return pyprof_input_error(in, err, PYPROF_EUNSUPPORTED, "pstats", 0,
                              "reading pstats files is not implemented yet");
}

const pyprof__format pyprof__format_pstats = {
    .name = "pstats",
    .aliases = NULL,
    .description = "Python pstats (cProfile, profile, yappi, austin-python): a marshalled dict",
    .probe = pstats_probe,
    .read = pstats_read,
};
