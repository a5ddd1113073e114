/*
 * dot_graph.c - gprof2dot's call graph from the profile model: numbering,
 * events and ratios (formats.md 12.1).  Pruning is in dot_prune.c.
 *
 * For pstats gprof2dot uses the profiler's cumulative times and performs no
 * integration.  For sampled profiles (stacks, or time_unit "samples") the
 * totals come from call-ratio integration (12.5, dot_integrate.c) or, with
 * --total callstacks, from the samples in which a function appears.
 */
#include "config.h"

#include <math.h>

#include "dot_int.h"

/* gprof2dot's ratio(): a/b clamped to [0, 1], and 0/0 taken as 1. */
static double
ratio(double a, double b)
{
    if (b == 0.0)
        return 1.0;
    double r = a / b;
    return r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
}

void
pyprof__dot_graph_free(dot_graph *g)
{
    pyprof__free(g->fns);
    pyprof__free(g->calls);
    memset(g, 0, sizeof *g);
}

static int
cmp_callee(const void *a, const void *b)
{
    const dot_call *x = a, *y = b;
    return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Most functions call a handful of others: insertion sort those, qsort the
 * few hubs. */
static void
sort_by_callee(dot_call *c, size_t n)
{
    if (n > 16) {
        qsort(c, n, sizeof *c, cmp_callee);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        dot_call x = c[i];
        size_t j = i;
        for (; j > 0 && c[j - 1].callee > x.callee; j--)
            c[j] = c[j - 1];
        c[j] = x;
    }
}

/* Whether the edges from `*run` on whose callee is below `i` may be passed
 * over by number_functions' walk of runs: only if their callees are
 * functions the walk skips anyway (callers only).  Otherwise the edges are
 * not grouped by callee in function order. */
static bool
skip_to(const pyprof_profile *p, const pyprof_edge *edges, size_t ne, size_t *run, size_t i)
{
    for (; *run < ne && edges[*run].callee < i; ++*run)
        if (!(pyprof_profile_func(p, edges[*run].callee)->flags & PYPROF_FUNC_CALLER_ONLY))
            return false;
    return true;
}

/* Number the functions as gprof2dot does: walking the entries in dict (file)
 * order, each entry first, then each key of its callers dict.  Functions
 * known only as callers (which readers append after the entries) thus get
 * the number of their first mention.
 *
 * The pstats reader appends edges grouped by callee, in function order: then
 * each function's callers are the next run of edges, and the callers index
 * (an array per function, built from all edges) is not needed.  The walk of
 * runs (`by_callee`) notices any other order and the numbering starts over
 * with the index.  order[d] gets the model id of dot id d. */
static int
number_functions(dot_graph *g, uint32_t *dot_of, pyprof_id *order, bool by_callee)
{
    pyprof_profile *p = g->p;
    size_t nf = pyprof_profile_func_count(p), ne;
    const pyprof_edge *edges = pyprof__profile_edges(p, &ne);
    size_t run = 0; /* by_callee: the first edge whose callee is not below i */
    int rc = 0;
    for (size_t i = 0; i < nf; i++)
        dot_of[i] = PYPROF_NONE;
    g->nfns = 0;
    for (size_t i = 0; i < nf; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (f->flags & PYPROF_FUNC_CALLER_ONLY)
            continue;
        if (dot_of[i] == PYPROF_NONE) {
            dot_of[i] = (uint32_t)g->nfns;
            order[g->nfns++] = (pyprof_id)i;
        }
        const pyprof_id *in = NULL;
        size_t nin;
        if (by_callee) {
            if (!skip_to(p, edges, ne, &run, i))
                return number_functions(g, dot_of, order, false);
            for (nin = 0; run + nin < ne && edges[run + nin].callee == i; nin++)
                ;
        } else if ((rc = pyprof_profile_callers(p, (pyprof_id)i, &in, &nin)) < 0) {
            return rc;
        }
        for (size_t k = 0; k < nin; k++) {
            pyprof_id c = edges[in ? in[k] : run + k].caller;
            if (dot_of[c] == PYPROF_NONE) {
                dot_of[c] = (uint32_t)g->nfns;
                order[g->nfns++] = c;
            }
        }
        if (by_callee)
            run += nin;
    }
    if (by_callee && !skip_to(p, edges, ne, &run, nf))
        return number_functions(g, dot_of, order, false);
    /* anything left (a caller-only function nobody calls from an entry) */
    for (size_t i = 0; i < nf; i++) {
        if (dot_of[i] == PYPROF_NONE) {
            dot_of[i] = (uint32_t)g->nfns;
            order[g->nfns++] = (pyprof_id)i;
        }
    }
    return 0;
}

/* gprof2dot's collapse parser reads py-spy frames "NAME (FILE:LINE)" as
 * the function NAME of module FILE: lines of one function are one node.
 * Give all such functions with the same (file, name) the dot id of the
 * first, then renumber densely.  Returns whether anything merged. */
static int
merge_frame_lines(dot_graph *g, uint32_t *dot_of, bool *merged)
{
    pyprof_profile *p = g->p;
    size_t nf = pyprof_profile_func_count(p), cap = 16;
    *merged = false;
    while (cap < 2 * g->nfns)
        cap *= 2;
    uint64_t *keys = pyprof__malloc(cap * sizeof *keys);
    uint32_t *vals = pyprof__malloc(cap * sizeof *vals);
    uint32_t *remap = pyprof__malloc((g->nfns ? g->nfns : 1) * sizeof *remap);
    if (!keys || !vals || !remap) {
        pyprof__free(keys);
        pyprof__free(vals);
        pyprof__free(remap);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        vals[i] = UINT32_MAX;
    for (size_t d = 0; d < g->nfns; d++) {
        const pyprof_func *f = pyprof_profile_func(p, g->fns[d].func);
        remap[d] = (uint32_t)d;
        if ((f->flags & PYPROF_FUNC_FRAME_MASK) != PYPROF_FUNC_FRAME_NAME_FILE_LINE)
            continue;
        uint64_t key = (uint64_t)f->file << 32 | f->name;
        size_t h = (size_t)pyprof__hash_mix(0, key) & (cap - 1);
        while (vals[h] != UINT32_MAX && keys[h] != key)
            h = (h + 1) & (cap - 1);
        if (vals[h] == UINT32_MAX) {
            keys[h] = key;
            vals[h] = (uint32_t)d;
        } else {
            remap[d] = vals[h];
            *merged = true;
        }
    }
    if (*merged) {
        /* dense ids in the order of first appearance */
        size_t n = 0;
        for (size_t d = 0; d < g->nfns; d++) {
            if (remap[d] == d) {
                g->fns[n].func = g->fns[d].func;
                remap[d] = (uint32_t)n++;
            } else {
                remap[d] = remap[remap[d]];
            }
        }
        g->nfns = n;
        for (size_t i = 0; i < nf; i++)
            dot_of[i] = remap[dot_of[i]];
    }
    pyprof__free(keys);
    pyprof__free(vals);
    pyprof__free(remap);
    return 0;
}

/* PstatsParser.parse: times straight from the profile.  The functions'
 * events; g->total is the denominator of every total share. */
static void
events_pstats(dot_graph *g)
{
    pyprof_profile *p = g->p;
    double time_sum = 0.0, total = 0.0;
    /* Σ tt in dict order, as pstats' total_tt, then max with every ct */
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (!(f->flags & PYPROF_FUNC_CALLER_ONLY))
            time_sum += f->counts.tottime;
    }
    total = time_sum;
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        const pyprof_func *f = pyprof_profile_func(p, fn->func);
        if (f->flags & PYPROF_FUNC_CALLER_ONLY)
            continue; /* no entry: gprof2dot knows only its name */
        fn->has_called = true;
        fn->called = (double)f->counts.ncalls;
        fn->has_time = fn->has_time_ratio = fn->has_total = true;
        fn->time = f->counts.tottime;
        fn->total = f->counts.cumtime;
        if (fn->total > total)
            total = fn->total;
    }
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        if (fn->has_time) {
            fn->time_ratio = ratio(fn->time, time_sum);
            fn->has_total_ratio = true;
            fn->total_ratio = ratio(fn->total, total);
        }
    }
    g->total = total;
}

/* A pstats call's events, from model edge `e`. */
static void
call_pstats(dot_call *c, const dot_graph *g, const pyprof_edge *e)
{
    c->has_calls = c->has_total = true;
    if (e->flags & PYPROF_EDGE_COUNT_ONLY) {
        /* profile-module int callers: calls = n, time = n/nc of the callee's ct */
        const pyprof_func *callee = pyprof_profile_func(g->p, e->callee);
        c->calls = (double)e->counts.ncalls;
        c->total =
            ratio((double)e->counts.ncalls, (double)callee->counts.ncalls) * callee->counts.cumtime;
    } else {
        /* gprof2dot takes element 1 of (nc, cc, tt, ct): primitive calls */
        c->calls = (double)e->counts.primcalls;
        c->total = e->counts.cumtime;
    }
    c->has_total_ratio = true;
    c->total_ratio = ratio(c->total, g->total);
}

/* gprof2dot's sample parsers add a line's count to every adjacent
 * caller/callee pair of its stack, once per occurrence: a recursive pair
 * that appears twice in one stack counts twice (the model's derived edges
 * count it once per sample, which is right for totals, not for gprof2dot's
 * call ratios).  In the stack tree that is, for each edge, the sum of the
 * subtree weights of the tree nodes that make it. */
static int
pair_samples(pyprof_profile *p, double **out)
{
    size_t n = pyprof_profile_stack_count(p), ne = pyprof_profile_edge_count(p);
    double *total = pyprof__calloc(n ? n : 1, sizeof *total);
    double *pair = pyprof__calloc(ne ? ne : 1, sizeof *pair);
    if (!total || !pair) {
        pyprof__free(total);
        pyprof__free(pair);
        return PYPROF_ENOMEM;
    }
    /* children have larger ids than their parents: one reverse pass */
    for (size_t i = n; i-- > 0;) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)i);
        total[i] += nd->self[0];
        if (nd->parent != PYPROF_NONE)
            total[nd->parent] += total[i];
    }
    for (size_t i = 0; i < n; i++) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)i);
        if (nd->parent == PYPROF_NONE)
            continue;
        pyprof_id e =
            pyprof_profile_edge_find(p, pyprof_profile_stack_node(p, nd->parent)->func, nd->func);
        if (e != PYPROF_NONE)
            pair[e] += total[i];
    }
    pyprof__free(total);
    *out = pair;
    return 0;
}

static bool
has_counts(const pyprof_profile *p)
{
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_counts *k = &pyprof_profile_func(p, (pyprof_id)i)->counts;
        if (k->ncalls || k->primcalls || k->tottime != 0.0 || k->cumtime != 0.0)
            return true;
    }
    return false;
}

/* Whether model edge `e`, whose ends are alive after the node pruning, can
 * survive the edge threshold `edge_thres` (a share).  Only for pstats graphs,
 * whose call events depend on nothing but the edge. */
static bool
call_survives(const dot_graph *g, const uint32_t *dot_of, const pyprof_edge *e, double edge_thres)
{
    dot_call c = {.caller = dot_of[e->caller], .callee = dot_of[e->callee]};
    call_pstats(&c, g, e);
    pyprof__dot_call_weigh(g, &c);
    return !(c.has_weight && c.weight < edge_thres);
}

/* The edges that can survive pruning with `o`, once the nodes are pruned:
 * both ends alive, and at or above the edge threshold.  *keep gets their
 * ids, ascending. */
static int
surviving_edges(const dot_graph *g, const uint32_t *dot_of, const pyprof_dot_options *o,
                uint32_t **keep, size_t *nkeep)
{
    size_t nf = pyprof_profile_func_count(g->p), ne;
    const pyprof_edge *edges = pyprof__profile_edges(g->p, &ne);
    /* liveness by model id, a byte each: the edge loop reads it twice per
     * edge at random, and it stays in cache where the dot_fn array does not */
    uint8_t *live = pyprof__malloc(nf ? nf : 1);
    *keep = pyprof__malloc((ne ? ne : 1) * sizeof **keep);
    *nkeep = 0;
    if (!live || !*keep) {
        pyprof__free(live);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < nf; i++)
        live[i] = g->fns[dot_of[i]].alive;
    double edge_thres = o->edge_thres / 100.0;
    for (size_t k = 0; k < ne; k++) {
        const pyprof_edge *e = &edges[k];
        if (live[e->caller] && live[e->callee] && call_survives(g, dot_of, e, edge_thres))
            (*keep)[(*nkeep)++] = (uint32_t)k;
    }
    pyprof__free(live);
    return 0;
}

/* The calls of the graph: the model's edges, or those listed in
 * keep[0..nkeep) (edge ids, ascending) when keep is not NULL. */
static int
build_calls(dot_graph *g, const uint32_t *dot_of, const double *pair, const uint32_t *keep,
            size_t nkeep)
{
    pyprof_profile *p = g->p;
    size_t n = keep ? nkeep : pyprof_profile_edge_count(p);
    g->calls = pyprof__calloc(n ? n : 1, sizeof *g->calls);
    if (!g->calls)
        return PYPROF_ENOMEM;
    /* Group the calls by caller with a counting sort (one pass to count,
     * one to place), then order each group by callee: gprof2dot writes a
     * node's calls sorted by callee id.  Large profiles have hundreds of
     * thousands of calls, and this is linear where one qsort is not. */
    for (size_t i = 0; i < n; i++) {
        pyprof_id k = keep ? keep[i] : (pyprof_id)i;
        g->fns[dot_of[pyprof_profile_edge(p, k)->caller]].ncalls++;
    }
    for (size_t d = 0, at = 0; d < g->nfns; d++) {
        g->fns[d].first_call = at;
        at += g->fns[d].ncalls;
        g->fns[d].ncalls = 0;
    }
    g->ncalls = n;
    for (size_t i = 0; i < n; i++) {
        pyprof_id k = keep ? keep[i] : (pyprof_id)i;
        const pyprof_edge *e = pyprof_profile_edge(p, k);
        dot_fn *from = &g->fns[dot_of[e->caller]];
        dot_call *c = &g->calls[from->first_call + from->ncalls++];
        c->caller = dot_of[e->caller];
        c->callee = dot_of[e->callee];
        c->alive = true;
        c->ratio = -1.0;
        if (g->sampled)
            c->samples = pair ? pair[k] : e->counts.cumtime;
        else
            call_pstats(c, g, e);
    }
    for (size_t d = 0; d < g->nfns; d++)
        sort_by_callee(g->calls + g->fns[d].first_call, g->fns[d].ncalls);
    return 0;
}

int
pyprof__dot_graph_build(dot_graph *g, pyprof_profile *p, const pyprof_dot_options *o, bool prune,
                        pyprof_error *err)
{
    int rc = 0;
    uint32_t *dot_of = NULL, *keep = NULL;
    pyprof_id *order = NULL;
    size_t nkeep = 0;
    double *pair = NULL;
    unsigned caps = pyprof_profile_caps(p);

    memset(g, 0, sizeof *g);
    g->p = p;
    if ((caps & PYPROF_CAP_STACKS) && !(caps & PYPROF_CAP_EDGES) && !has_counts(p)) {
        /* folded stacks and the like: the call graph is implied by the
         * stacks.  Readers of stacks intern the functions but leave their
         * counters at zero; non-zero counters mean it was derived already. */
        if ((rc = pyprof_profile_derive_callgraph(p, err)) < 0)
            return rc;
        caps = pyprof_profile_caps(p);
    }
    if (caps == 0)
        return 0; /* an empty profile: gprof2dot draws an empty graph */
    if ((caps & PYPROF_CAP_LINES) && !(caps & (PYPROF_CAP_EDGES | PYPROF_CAP_STACKS)))
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has line timings but no calls: no call graph to draw");
    if (!(caps & PYPROF_CAP_FUNCS))
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has no functions to draw a call graph of");
    const char *unit = pyprof_profile_meta_get(p, "time_unit");
    g->sampled = (caps & PYPROF_CAP_STACKS) || (unit && strcmp(unit, "samples") == 0);

    size_t nf = pyprof_profile_func_count(p);
    g->fns = pyprof__calloc(nf ? nf : 1, sizeof *g->fns);
    dot_of = pyprof__calloc(nf ? nf : 1, sizeof *dot_of);
    order = pyprof__malloc((nf ? nf : 1) * sizeof *order);
    if (!g->fns || !dot_of || !order) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    /* The functions (~10 MB on a big profile, fresh memory) are first
     * written after the numbering, which walks all the edges: a helper
     * takes their page faults meanwhile. */
    pyprof__prefault *pf = pyprof__prefault_start(g->fns, nf * sizeof *g->fns);
    rc = number_functions(g, dot_of, order, true);
    pyprof__prefault_finish(pf);
    if (rc < 0)
        goto out;
    for (size_t d = 0; d < g->nfns; d++) {
        g->fns[d].func = order[d];
        g->fns[d].alive = true;
        g->fns[d].cycle = -1;
    }
    bool merged = false;
    if (g->sampled)
        PYPROF_TRY(merge_frame_lines(g, dot_of, &merged));
    if (g->sampled && pyprof_profile_stack_count(p))
        PYPROF_TRY(pair_samples(p, &pair));

    if (!g->sampled) {
        events_pstats(g);
        if (prune) {
            /* Prune the nodes now and leave out the calls that pruning
             * would kill: on big profiles nearly all of them, and the
             * graph's largest array. */
            pyprof__dot_prune_nodes(g, o);
            PYPROF_TRY(surviving_edges(g, dot_of, o, &keep, &nkeep));
        }
    }
    PYPROF_TRY(build_calls(g, dot_of, pair, keep, nkeep));
    if (merged) {
        /* merged functions: calls between the same pair become one */
        size_t w = 0;
        for (size_t d = 0; d < g->nfns; d++) {
            dot_fn *fn = &g->fns[d];
            size_t first = w;
            for (size_t k = fn->first_call; k < fn->first_call + fn->ncalls; k++) {
                if (w > first && g->calls[w - 1].callee == g->calls[k].callee)
                    g->calls[w - 1].samples += g->calls[k].samples;
                else
                    g->calls[w++] = g->calls[k];
            }
            fn->first_call = first;
            fn->ncalls = w - first;
        }
        g->ncalls = w;
    }
    if (g->sampled) {
        /* samples of merged functions add up */
        for (size_t i = 0; i < nf; i++) {
            const pyprof_counts *k = &pyprof_profile_func(p, (pyprof_id)i)->counts;
            g->fns[dot_of[i]].samples += k->tottime;
            g->fns[dot_of[i]].stack_samples += k->cumtime;
        }
        PYPROF_TRY(pyprof__dot_integrate(g, o->total));
    }
out:
    pyprof__free(dot_of);
    pyprof__free(order);
    pyprof__free(keep);
    pyprof__free(pair);
    if (rc < 0) {
        pyprof__dot_graph_free(g);
        if (rc == PYPROF_ENOMEM)
            pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory building the call graph");
    }
    return rc;
}
