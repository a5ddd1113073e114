/*
 * pyprof/pyprof.h - the umbrella header of libpyprof.
 *
 *     #include <pyprof/pyprof.h>
 *     cc prog.c $(pkg-config --cflags --libs libpyprof)
 *
 * Start with pyprof_profile_load() (format.h) and the model in profile.h.
 */
#ifndef PYPROF_PYPROF_H
#define PYPROF_PYPROF_H

#include <pyprof/common.h>
#include <pyprof/dot.h>
#include <pyprof/error.h>
#include <pyprof/flame.h>
#include <pyprof/format.h>
#include <pyprof/input.h>
#include <pyprof/lines.h>
#include <pyprof/mem.h>
#include <pyprof/output.h>
#include <pyprof/profile.h>
#include <pyprof/stats.h>

#endif
