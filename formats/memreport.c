/*
 * memreport.c - reader for memory_profiler @profile line-by-line text report.
 * (placeholder: the probe bids nothing and the reader refuses, until the
 * module is written)
 */
#include "config.h"

#include "pyprof_int.h"

static int
memreport_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)head;
    (void)len;
    (void)at_eof;
    return 0;
}

static int
memreport_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    (void)p;
    (void)opts;
    return pyprof_input_error(in, err, PYPROF_EUNSUPPORTED, "memreport", 0,
                              "reading memreport files is not implemented yet");
}

const pyprof__format pyprof__format_memreport = {
    .name = "memreport",
    .aliases = "memory_profiler",
    .description = "memory_profiler @profile line-by-line text report",
    .probe = memreport_probe,
    .read = memreport_read,
};
