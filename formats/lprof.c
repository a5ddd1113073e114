/*
 * lprof.c - reader for line_profiler results (kernprof -l): a pickled LineStats.
 * (placeholder: the probe bids nothing and the reader refuses, until the
 * module is written)
 */
#include "config.h"

#include "pyprof_int.h"

static int
lprof_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)head;
    (void)len;
    (void)at_eof;
    return 0;
}

static int
lprof_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    (void)p;
    (void)opts;
    return pyprof_input_error(in, err, PYPROF_EUNSUPPORTED, "lprof", 0,
                              "reading lprof files is not implemented yet");
}

const pyprof__format pyprof__format_lprof = {
    .name = "lprof",
    .aliases = NULL,
    .description = "line_profiler results (kernprof -l): a pickled LineStats",
    .probe = lprof_probe,
    .read = lprof_read,
};
