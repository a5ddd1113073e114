/*
 * pyprof/lines.h - line_profiler-style line-by-line reports.
 */
#ifndef PYPROF_LINES_H
#define PYPROF_LINES_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
