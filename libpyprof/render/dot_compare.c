/*
 * dot_compare.c - gprof2dot's --compare: two profiles in one graph.
 */
#include "config.h"

#include "dot_int.h"

int
pyprof_dot_render_compare(pyprof_profile *base, pyprof_profile *other,
                          const pyprof_dot_options *opts, pyprof_output *out, pyprof_error *err)
{
    (void)base;
    (void)other;
    (void)opts;
    (void)out;
    return pyprof_error_set(err, PYPROF_EUNSUPPORTED, NULL, NULL, -1, 0,
                            "--compare is not implemented yet");
}
