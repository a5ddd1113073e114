/*
 * pyprof/stats.h - pstats-style tables: sorting, restrictions, print_stats/callers/callees.
 */
#ifndef PYPROF_STATS_H
#define PYPROF_STATS_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
