/*
 * gv_load.h - Graphviz (cgraph and gvc), loaded when the first call graph
 * is written (private; see gv_load.c).
 */
#ifndef PYPROF_RENDER_GV_LOAD_H
#define PYPROF_RENDER_GV_LOAD_H

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "pyprof_int.h"

/* The Graphviz functions and objects the DOT renderer uses, with their own
 * types: a call reads pyprof__gv.agnode(g, name, 1) for agnode(g, name, 1),
 * and the objects are pointers (pyprof__gv.AgMemDisc for &AgMemDisc). */
typedef struct pyprof__gv_fns {
    __typeof__(agattr) *agattr;
    __typeof__(agclose) *agclose;
    __typeof__(agedge) *agedge;
    __typeof__(agnode) *agnode;
    __typeof__(agopen) *agopen;
    __typeof__(agseterr) *agseterr;
    __typeof__(agseterrf) *agseterrf;
    __typeof__(agwrite) *agwrite;
    __typeof__(agxset) *agxset;
    Agdesc_t *Agdirected;
    Agiddisc_t *AgIdDisc;
    Agiodisc_t *AgIoDisc;
    Agmemdisc_t *AgMemDisc;
    __typeof__(gvContext) *gvContext;
    __typeof__(gvFreeLayout) *gvFreeLayout;
    __typeof__(gvFreeRenderData) *gvFreeRenderData;
    __typeof__(gvLayout) *gvLayout;
    __typeof__(gvRenderData) *gvRenderData;
} pyprof__gv_fns;

/* Filled in by the first successful pyprof__gv_load of the process; use it
 * only after a call of it returned 0 (on this thread). */
extern pyprof__gv_fns pyprof__gv;

/* Load cgraph and gvc, once per process (any thread): 0, or PYPROF_EIO
 * with err saying which library or symbol is missing. */
int pyprof__gv_load(pyprof_error *err);

/* For tests: load this library instead of cgraph, if called before the
 * first load. */
void pyprof__gv_use(const char *cgraph_soname);

#endif
