/*
 * pyprof/flame.h - flame graphs: layout, interactive SVG and PNG.
 */
#ifndef PYPROF_FLAME_H
#define PYPROF_FLAME_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
