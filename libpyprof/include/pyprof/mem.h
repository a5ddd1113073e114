/*
 * pyprof/mem.h - memory-over-time plots and mprof-style summaries.
 */
#ifndef PYPROF_MEM_H
#define PYPROF_MEM_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
