/*
 * derive.c - the call graph implied by a stack tree.
 *
 * For each function: self = weight of samples whose leaf it is; total =
 * weight of samples in which it appears at least once (a recursive function
 * is counted once per sample, not once per frame, or totals would exceed
 * 100%); ncalls = primcalls = that total rounded.  For each caller -> callee
 * pair: the weight of samples in which that pair appears, again once per
 * sample.  The walk is an iterative DFS (stacks can be thousands deep) that
 * keeps, for every function and every edge, how often it is on the current
 * path; a subtree counts only where that count goes from 0 to 1.
 */
#include "config.h"

#include <math.h>

#include "profile_int.h"

int
pyprof_profile_derive_callgraph(pyprof_profile *p, pyprof_error *err)
{
    int rc = 0;
    size_t n = p->nnodes;
    double *total = NULL;
    uint32_t *on_path_f = NULL, *on_path_e = NULL;
    pyprof_id *edge_of = NULL, *stack = NULL;
    size_t *next = NULL;

    if ((rc = pyprof__profile_whole_stacks(p, err, "a call graph")) < 0)
        return rc;

    if (n == 0)
        return 0;
    total = pyprof__calloc(n, sizeof(*total));
    edge_of = pyprof__calloc(n, sizeof(*edge_of));
    stack = pyprof__calloc(n, sizeof(*stack));
    next = pyprof__calloc(n, sizeof(*next));
    if (!total || !edge_of || !stack || !next) {
        rc = PYPROF_ENOMEM;
        goto out;
    }

    /* subtree totals: children have larger ids than their parents */
    for (size_t i = n; i-- > 0;) {
        total[i] += p->nodes[i].self[0];
        if (p->nodes[i].parent != PYPROF_NONE)
            total[p->nodes[i].parent] += total[i];
    }
    /* one edge per (parent func, func) pair; created in node order */
    for (size_t i = 0; i < n; i++) {
        pyprof_id parent = p->nodes[i].parent;
        edge_of[i] = PYPROF_NONE;
        if (parent == PYPROF_NONE)
            continue;
        PYPROF_TRY(pyprof_profile_edge_intern(p, &edge_of[i], p->nodes[parent].func,
                                              p->nodes[i].func, NULL));
    }
    on_path_f = pyprof__calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*on_path_f));
    on_path_e = pyprof__calloc(p->nedges ? p->nedges : 1, sizeof(*on_path_e));
    if (!on_path_f || !on_path_e) {
        rc = PYPROF_ENOMEM;
        goto out;
    }

    const pyprof_id *roots;
    size_t nroots;
    PYPROF_TRY(pyprof_profile_stack_children(p, PYPROF_NONE, &roots, &nroots));
    for (size_t r = 0; r < nroots; r++) {
        size_t depth = 0;
        stack[depth] = roots[r];
        next[depth] = 0;
        /* entering a node */
        for (;;) {
            pyprof_id id = stack[depth];
            if (next[depth] == 0) {
                pyprof_stack_node *nd = &p->nodes[id];
                pyprof_func *f = &p->funcs[nd->func];
                f->counts.tottime += nd->self[0];
                if (on_path_f[nd->func]++ == 0)
                    f->counts.cumtime += total[id];
                if (edge_of[id] != PYPROF_NONE) {
                    pyprof_edge *e = &p->edges[edge_of[id]];
                    e->counts.tottime += nd->self[0];
                    if (on_path_e[edge_of[id]]++ == 0)
                        e->counts.cumtime += total[id];
                }
            }
            const pyprof_id *kids;
            size_t nkids;
            PYPROF_TRY(pyprof_profile_stack_children(p, id, &kids, &nkids));
            if (next[depth] < nkids) {
                pyprof_id child = kids[next[depth]++];
                stack[++depth] = child;
                next[depth] = 0;
                continue;
            }
            /* leaving */
            on_path_f[p->nodes[id].func]--;
            if (edge_of[id] != PYPROF_NONE)
                on_path_e[edge_of[id]]--;
            if (depth == 0)
                break;
            depth--;
        }
    }
    for (size_t i = 0; i < p->nfuncs; i++) {
        pyprof_func *f = &p->funcs[i];
        f->counts.ncalls = f->counts.primcalls = pyprof__round_i64(f->counts.cumtime);
    }
    for (size_t i = 0; i < p->nedges; i++) {
        pyprof_edge *e = &p->edges[i];
        e->counts.ncalls = e->counts.primcalls = pyprof__round_i64(e->counts.cumtime);
    }
    if (!pyprof_profile_meta_get(p, "time_unit"))
        PYPROF_TRY(pyprof_profile_meta_set(p, "time_unit", "samples"));
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "cannot derive the call graph: %s",
                         pyprof_status_string(rc));
    pyprof__free(total);
    pyprof__free(edge_of);
    pyprof__free(stack);
    pyprof__free(next);
    pyprof__free(on_path_f);
    pyprof__free(on_path_e);
    return rc;
}
