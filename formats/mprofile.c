/*
 * mprofile.c - reader for memory_profiler time series (mprof run): mprofile_*.dat.
 * (placeholder: the probe bids nothing and the reader refuses, until the
 * module is written)
 */
#include "config.h"

#include "pyprof_int.h"

static int
mprofile_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)head;
    (void)len;
    (void)at_eof;
    return 0;
}

static int
mprofile_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    (void)p;
    (void)opts;
    return pyprof_input_error(in, err, PYPROF_EUNSUPPORTED, "mprofile", 0,
                              "reading mprofile files is not implemented yet");
}

const pyprof__format pyprof__format_mprofile = {
    .name = "mprofile",
    .aliases = "mprof dat",
    .description = "memory_profiler time series (mprof run): mprofile_*.dat",
    .probe = mprofile_probe,
    .read = mprofile_read,
};
