/*
 * pyprof/dot.h - call graphs in gprof2dot's style, as DOT text or images through Graphviz.
 */
#ifndef PYPROF_DOT_H
#define PYPROF_DOT_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
