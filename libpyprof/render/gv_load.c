/*
 * gv_load.c - Graphviz, loaded when the first call graph is written.
 *
 * Only pyprof-dot's renderer uses Graphviz, but linked into libpyprof its
 * libraries (cgraph, gvc and the five they need) were loaded by every run
 * of every tool: 0.4-0.7 ms of a 2.3 ms pyprof-stats run on a small
 * profile.
 * So the DOT renderer asks for it here (lib_load.c says how).  gvc finds
 * its layout and output plugins itself, as when linked: they name the
 * Graphviz libraries they need, which are the ones loaded here.
 */
#include "config.h"

#include "gv_load.h"
#include "lib_load.h"

pyprof__gv_fns pyprof__gv;

#define FN(sym) PYPROF__LIB_FN(pyprof__gv, sym, sym)
static const pyprof__lib_fn cgraph_fns[] = {
    FN(agattr),   FN(agclose),   FN(agedge),    FN(agnode),   FN(agopen),
    FN(agseterr), FN(agseterrf), FN(agwrite),   FN(agxset),   FN(Agdirected),
    FN(AgIdDisc), FN(AgIoDisc),  FN(AgMemDisc), {NULL, NULL},
};
static const pyprof__lib_fn gvc_fns[] = {
    FN(gvContext), FN(gvFreeLayout), FN(gvFreeRenderData),
    FN(gvLayout),  FN(gvRenderData), {NULL, NULL},
};
#undef FN

static pyprof__lib cgraph_lib = {.soname = PYPROF_CGRAPH_SONAME, .fns = cgraph_fns};
static pyprof__lib gvc_lib = {.soname = PYPROF_GVC_SONAME, .fns = gvc_fns};

void
pyprof__gv_use(const char *cgraph_soname)
{
    cgraph_lib.soname = cgraph_soname;
}

int
pyprof__gv_load(pyprof_error *err)
{
    static pyprof__lib *const libs[] = {&cgraph_lib, &gvc_lib};
    return pyprof__libs_load(libs, 2, NULL, NULL, "call graphs are made with Graphviz", err);
}
