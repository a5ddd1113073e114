/*
 * collapsed.c - reader for collapsed (folded) stacks: flamegraph.pl, py-spy, austin, pyflame.
 * (placeholder: the probe bids nothing and the reader refuses, until the
 * module is written)
 */
#include "config.h"

#include "pyprof_int.h"

static int
collapsed_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)head;
    (void)len;
    (void)at_eof;
    return 0;
}

static int
collapsed_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    (void)p;
    (void)opts;
    return pyprof_input_error(in, err, PYPROF_EUNSUPPORTED, "collapsed", 0,
                              "reading collapsed files is not implemented yet");
}

const pyprof__format pyprof__format_collapsed = {
    .name = "collapsed",
    .aliases = "collapse folded",
    .description = "collapsed (folded) stacks: flamegraph.pl, py-spy, austin, pyflame",
    .probe = collapsed_probe,
    .read = collapsed_read,
};
