/*
 * dot_graph.c - gprof2dot's call graph from the profile model: numbering,
 * events, ratios (formats.md 12.1) and pruning (12.2), plus our filters
 * (--focus, --ignore, --max-nodes).
 *
 * For pstats gprof2dot uses the profiler's cumulative times and performs no
 * integration.  For sampled profiles (stacks, or time_unit "samples") the
 * totals come from call-ratio integration (12.5, dot_integrate.c) or, with
 * --total callstacks, from the samples in which a function appears.
 */
#include "config.h"

#include <fnmatch.h>
#include <math.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

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

/* Number the functions as gprof2dot does: walking the entries in dict (file)
 * order, each entry first, then each key of its callers dict.  Functions
 * known only as callers (which readers append after the entries) thus get
 * the number of their first mention. */
static int
number_functions(dot_graph *g, uint32_t *dot_of)
{
    pyprof_profile *p = g->p;
    size_t nf = pyprof_profile_func_count(p);
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
            g->fns[g->nfns++].func = (pyprof_id)i;
        }
        const pyprof_id *in;
        size_t nin;
        if ((rc = pyprof_profile_callers(p, (pyprof_id)i, &in, &nin)) < 0)
            return rc;
        for (size_t k = 0; k < nin; k++) {
            pyprof_id c = pyprof_profile_edge(p, in[k])->caller;
            if (dot_of[c] == PYPROF_NONE) {
                dot_of[c] = (uint32_t)g->nfns;
                g->fns[g->nfns++].func = c;
            }
        }
    }
    /* anything left (a caller-only function nobody calls from an entry) */
    for (size_t i = 0; i < nf; i++) {
        if (dot_of[i] == PYPROF_NONE) {
            dot_of[i] = (uint32_t)g->nfns;
            g->fns[g->nfns++].func = (pyprof_id)i;
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

/* PstatsParser.parse: times straight from the profile. */
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
    for (size_t k = 0; k < g->ncalls; k++) {
        dot_call *c = &g->calls[k];
        if (c->has_total) {
            c->has_total_ratio = true;
            c->total_ratio = ratio(c->total, total);
        }
    }
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

int
pyprof__dot_graph_build(dot_graph *g, pyprof_profile *p, const pyprof_dot_options *o,
                        pyprof_error *err)
{
    int rc = 0;
    uint32_t *dot_of = NULL;
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
    if (!(caps & PYPROF_CAP_FUNCS))
        return pyprof_error_set(err, PYPROF_ECAPS, NULL, NULL, -1, 0,
                                "the profile has no functions to draw a call graph of");
    const char *unit = pyprof_profile_meta_get(p, "time_unit");
    g->sampled = (caps & PYPROF_CAP_STACKS) || (unit && strcmp(unit, "samples") == 0);

    size_t nf = pyprof_profile_func_count(p), ne = pyprof_profile_edge_count(p);
    g->fns = pyprof__calloc(nf ? nf : 1, sizeof *g->fns);
    g->calls = pyprof__calloc(ne ? ne : 1, sizeof *g->calls);
    dot_of = pyprof__calloc(nf ? nf : 1, sizeof *dot_of);
    if (!g->fns || !g->calls || !dot_of) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    PYPROF_TRY(number_functions(g, dot_of));
    bool merged = false;
    if (g->sampled)
        PYPROF_TRY(merge_frame_lines(g, dot_of, &merged));
    if (g->sampled && pyprof_profile_stack_count(p))
        PYPROF_TRY(pair_samples(p, &pair));

    /* Group the calls by caller with a counting sort (one pass to count,
     * one to place), then order each group by callee: gprof2dot writes a
     * node's calls sorted by callee id.  Large profiles have hundreds of
     * thousands of calls, and this is linear where one qsort is not. */
    for (size_t k = 0; k < ne; k++)
        g->fns[dot_of[pyprof_profile_edge(p, (pyprof_id)k)->caller]].ncalls++;
    for (size_t d = 0, at = 0; d < g->nfns; d++) {
        g->fns[d].first_call = at;
        at += g->fns[d].ncalls;
        g->fns[d].ncalls = 0;
    }
    g->ncalls = ne;
    for (size_t k = 0; k < ne; k++) {
        const pyprof_edge *e = pyprof_profile_edge(p, (pyprof_id)k);
        dot_fn *from = &g->fns[dot_of[e->caller]];
        dot_call *c = &g->calls[from->first_call + from->ncalls++];
        c->caller = dot_of[e->caller];
        c->callee = dot_of[e->callee];
        c->alive = true;
        c->ratio = -1.0;
        if (g->sampled) {
            c->samples = pair ? pair[k] : e->counts.cumtime;
            continue;
        }
        c->has_calls = c->has_total = true;
        if (e->flags & PYPROF_EDGE_COUNT_ONLY) {
            /* profile-module int callers: calls = n, time = n/nc of the callee's ct */
            const pyprof_func *callee = pyprof_profile_func(p, e->callee);
            c->calls = (double)e->counts.ncalls;
            c->total = ratio((double)e->counts.ncalls, (double)callee->counts.ncalls) *
                       callee->counts.cumtime;
        } else {
            /* gprof2dot takes element 1 of (nc, cc, tt, ct): primitive calls */
            c->calls = (double)e->counts.primcalls;
            c->total = e->counts.cumtime;
        }
    }
    for (size_t d = 0; d < g->nfns; d++)
        sort_by_callee(g->calls + g->fns[d].first_call, g->fns[d].ncalls);
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
    }
    for (size_t d = 0; d < g->nfns; d++) {
        g->fns[d].alive = true;
        g->fns[d].cycle = -1;
    }

    if (g->sampled)
        PYPROF_TRY(pyprof__dot_integrate(g, o->total));
    else
        events_pstats(g);
out:
    pyprof__free(dot_of);
    pyprof__free(pair);
    if (rc < 0) {
        pyprof__dot_graph_free(g);
        if (rc == PYPROF_ENOMEM)
            pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory building the call graph");
    }
    return rc;
}

/* ---- pruning -------------------------------------------------------------------- */

#define FOR_CALLS(g, fn, c)                                                                        \
    for (dot_call *c = (g)->calls + (fn)->first_call;                                              \
         c < (g)->calls + (fn)->first_call + (fn)->ncalls; c++)

/* Profile.prune: weights, node threshold, paths, edge threshold, selftime. */
static void
prune_thresholds(dot_graph *g, const pyprof_dot_options *o)
{
    double node_thres = o->node_thres / 100.0, edge_thres = o->edge_thres / 100.0;
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        if (fn->has_total_ratio) {
            fn->has_weight = true;
            fn->weight = fn->total_ratio;
        }
        FOR_CALLS(g, fn, c)
        {
            const dot_fn *callee = &g->fns[c->callee];
            if (c->has_total_ratio) {
                c->has_weight = true;
                c->weight = c->total_ratio;
            } else if (fn->has_total_ratio && callee->has_total_ratio) {
                /* a safe estimate */
                c->has_weight = true;
                c->weight =
                    fn->total_ratio < callee->total_ratio ? fn->total_ratio : callee->total_ratio;
            }
        }
    }
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        if (fn->has_weight && fn->weight < node_thres)
            fn->alive = false;
    }
    if (o->npaths) {
        for (size_t d = 0; d < g->nfns; d++) {
            dot_fn *fn = &g->fns[d];
            if (!fn->alive)
                continue;
            const char *file =
                pyprof_profile_string(g->p, pyprof_profile_func(g->p, fn->func)->file);
            if (!*file) /* gprof2dot tests `function.filename` for truth */
                continue;
            bool keep = false;
            for (size_t i = 0; i < o->npaths && !keep; i++)
                keep = strncmp(file, o->paths[i], strlen(o->paths[i])) == 0;
            fn->alive = keep;
        }
    }
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        if (!fn->alive)
            continue;
        FOR_CALLS(g, fn, c)
        {
            if (!g->fns[c->callee].alive || (c->has_weight && c->weight < edge_thres))
                c->alive = false;
        }
    }
    if (o->color_nodes_by_selftime) {
        double max = 0.0;
        bool any = false;
        for (size_t d = 0; d < g->nfns; d++) {
            const dot_fn *fn = &g->fns[d];
            if (fn->alive && fn->has_time_ratio) {
                max = any && max >= fn->time_ratio ? max : fn->time_ratio;
                any = true;
            }
        }
        if (!any)
            max = 1.0;
        for (size_t d = 0; d < g->nfns; d++) {
            dot_fn *fn = &g->fns[d];
            if (fn->alive && fn->has_time_ratio && max != 0.0) {
                fn->has_weight = true;
                fn->weight = fn->time_ratio / max;
            }
        }
    }
}

/* Breadth-first walk from the marked nodes along live calls, downwards
 * (callees) or upwards (callers), at most `depth` calls (-1 = no limit);
 * reached nodes get mark bit `bit`. */
static int
walk(dot_graph *g, uint8_t *mark, uint8_t bit, bool up, int depth)
{
    uint32_t *queue = pyprof__malloc((g->nfns ? g->nfns : 1) * sizeof *queue);
    int32_t *dist = pyprof__malloc((g->nfns ? g->nfns : 1) * sizeof *dist);
    size_t *up_first = NULL;
    uint32_t *up_list = NULL;
    int rc = 0;
    if (!queue || !dist) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    if (up) {
        /* callers of each node, as a CSR index over live calls */
        up_first = pyprof__calloc(g->nfns + 1, sizeof *up_first);
        up_list = pyprof__malloc((g->ncalls ? g->ncalls : 1) * sizeof *up_list);
        if (!up_first || !up_list) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        for (size_t k = 0; k < g->ncalls; k++)
            if (g->calls[k].alive && g->fns[g->calls[k].caller].alive)
                up_first[g->calls[k].callee + 1]++;
        for (size_t d = 0; d < g->nfns; d++)
            up_first[d + 1] += up_first[d];
        size_t *fill = pyprof__malloc((g->nfns ? g->nfns : 1) * sizeof *fill);
        if (!fill) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        memcpy(fill, up_first, g->nfns * sizeof *fill);
        for (size_t k = 0; k < g->ncalls; k++)
            if (g->calls[k].alive && g->fns[g->calls[k].caller].alive)
                up_list[fill[g->calls[k].callee]++] = g->calls[k].caller;
        pyprof__free(fill);
    }
    size_t head = 0, tail = 0;
    for (size_t d = 0; d < g->nfns; d++) {
        dist[d] = -1;
        if (mark[d] & bit) {
            dist[d] = 0;
            queue[tail++] = (uint32_t)d;
        }
    }
    while (head < tail) {
        uint32_t d = queue[head++];
        if (depth >= 0 && dist[d] >= depth)
            continue;
        if (up) {
            for (size_t k = up_first[d]; k < up_first[d + 1]; k++) {
                uint32_t n = up_list[k];
                if (dist[n] < 0 && g->fns[n].alive) {
                    dist[n] = dist[d] + 1;
                    mark[n] |= bit;
                    queue[tail++] = n;
                }
            }
        } else {
            const dot_fn *fn = &g->fns[d];
            FOR_CALLS(g, fn, c)
            {
                if (c->alive && g->fns[c->callee].alive && dist[c->callee] < 0) {
                    dist[c->callee] = dist[d] + 1;
                    mark[c->callee] |= bit;
                    queue[tail++] = c->callee;
                }
            }
        }
    }
out:
    pyprof__free(queue);
    pyprof__free(dist);
    pyprof__free(up_first);
    pyprof__free(up_list);
    return rc;
}

/* Keep only nodes with `bit` set, and calls between kept nodes. */
static void
keep_marked(dot_graph *g, const uint8_t *mark, uint8_t bit)
{
    for (size_t d = 0; d < g->nfns; d++)
        if (!(mark[d] & bit))
            g->fns[d].alive = false;
    for (size_t k = 0; k < g->ncalls; k++) {
        dot_call *c = &g->calls[k];
        if (!g->fns[c->caller].alive || !g->fns[c->callee].alive)
            c->alive = false;
    }
}

/* Mark live nodes whose gprof2dot name matches the fnmatch pattern. */
static int
match_names(dot_graph *g, const char *pattern, uint8_t *mark, uint8_t bit, size_t *nmatch)
{
    dot_buf b = {0};
    *nmatch = 0;
    for (size_t d = 0; d < g->nfns; d++) {
        if (!g->fns[d].alive)
            continue;
        pyprof__dot_buf_reset(&b);
        pyprof__dot_function_name(&b, g->p, g->fns[d].func, 0, 0);
        if (b.rc)
            break;
        if (fnmatch(pattern, b.s, 0) == 0) {
            mark[d] |= bit;
            (*nmatch)++;
        }
    }
    pyprof__free(b.s);
    return b.rc;
}

/* Mark live nodes matching a PCRE2 pattern against "file:line:name" or the
 * displayed name. */
static int
match_regex(dot_graph *g, const char *what, const char *pattern, uint8_t *mark, uint8_t bit,
            pyprof_error *err)
{
    int ecode;
    PCRE2_SIZE eoff;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ecode, &eoff, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ecode, msg, sizeof msg);
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "%s: invalid regular expression at offset %zu: %s", what,
                                (size_t)eoff, (const char *)msg);
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    dot_buf b = {0};
    int rc = md ? 0 : PYPROF_ENOMEM;
    for (size_t d = 0; d < g->nfns && rc == 0; d++) {
        if (!g->fns[d].alive)
            continue;
        const pyprof_func *f = pyprof_profile_func(g->p, g->fns[d].func);
        for (int form = 0; form < 2; form++) {
            pyprof__dot_buf_reset(&b);
            if (form == 0)
                pyprof__dot_function_name(&b, g->p, g->fns[d].func, 0, 0);
            else
                pyprof__dot_buf_printf(&b, "%s:%lld:%s", pyprof_profile_string(g->p, f->file),
                                       (long long)f->line, pyprof_profile_string(g->p, f->name));
            if (b.rc) {
                rc = b.rc;
                break;
            }
            if (pcre2_match(re, (PCRE2_SPTR)b.s, b.len, 0, 0, md, NULL) >= 0) {
                mark[d] |= bit;
                break;
            }
        }
    }
    pyprof__free(b.s);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc;
}

/* The heaviest `max` live nodes by total share (ties: lower id first). */
static const dot_graph *sort_graph;
static int
cmp_heavier(const void *a, const void *b)
{
    const dot_fn *x = &sort_graph->fns[*(const uint32_t *)a];
    const dot_fn *y = &sort_graph->fns[*(const uint32_t *)b];
    double wx = x->has_total_ratio ? x->total_ratio : 0.0;
    double wy = y->has_total_ratio ? y->total_ratio : 0.0;
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* Edges ordered by weight, heaviest first (ties: lower index first). */
static int
cmp_heavier_call(const void *a, const void *b)
{
    const dot_call *x = &sort_graph->calls[*(const uint32_t *)a];
    const dot_call *y = &sort_graph->calls[*(const uint32_t *)b];
    double wx = x->has_weight ? x->weight : 0.0, wy = y->has_weight ? y->weight : 0.0;
    if (wx != wy)
        return wx > wy ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* --max-nodes N: the N heaviest nodes, and at most 2N calls among them: the
 * heaviest, plus each node's heaviest incoming call so that nothing kept
 * floats free.  Graphviz's dot layout slows down with the number of edges
 * far more than with nodes (300 nodes with 1,000 calls take minutes), and
 * the lightest calls are the ones nobody reads. */
static int
cap_nodes(dot_graph *g, size_t max)
{
    size_t m = g->nfns > g->ncalls ? g->nfns : g->ncalls;
    uint32_t *ids = pyprof__malloc((m ? m : 1) * sizeof *ids);
    uint8_t *has_in = pyprof__calloc(g->nfns ? g->nfns : 1, 1);
    if (!ids || !has_in) {
        pyprof__free(ids);
        pyprof__free(has_in);
        return PYPROF_ENOMEM;
    }
    size_t n = 0;
    for (size_t d = 0; d < g->nfns; d++)
        if (g->fns[d].alive)
            ids[n++] = (uint32_t)d;
    /* qsort with a file-scope context: Graphviz already makes this code
     * single-threaded, and qsort_r is not C11 */
    sort_graph = g;
    if (n > max) {
        qsort(ids, n, sizeof *ids, cmp_heavier);
        for (size_t i = max; i < n; i++)
            g->fns[ids[i]].alive = false;
    }
    n = 0;
    for (size_t k = 0; k < g->ncalls; k++) {
        dot_call *c = &g->calls[k];
        if (!g->fns[c->caller].alive || !g->fns[c->callee].alive)
            c->alive = false;
        if (c->alive)
            ids[n++] = (uint32_t)k;
    }
    if (n > 2 * max) {
        qsort(ids, n, sizeof *ids, cmp_heavier_call);
        for (size_t i = 0; i < n; i++) {
            dot_call *c = &g->calls[ids[i]];
            bool first_in = !has_in[c->callee] && c->caller != c->callee;
            if (first_in)
                has_in[c->callee] = 1;
            if (i >= 2 * max && !first_in)
                c->alive = false;
        }
    }
    sort_graph = NULL;
    pyprof__free(ids);
    pyprof__free(has_in);
    return 0;
}

enum { MARK_SEED = 1, MARK_DOWN = 2, MARK_UP = 4 };

int
pyprof__dot_graph_prune(dot_graph *g, const pyprof_dot_options *o, pyprof_error *err)
{
    int rc = 0;
    uint8_t *mark = pyprof__calloc(g->nfns ? g->nfns : 1, 1);
    if (!mark)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");

    prune_thresholds(g, o);

    /* -z ROOT: descendants of the matching functions */
    const char *pats[2] = {o->root, o->leaf};
    for (int which = 0; which < 2; which++) {
        if (!pats[which] || !*pats[which])
            continue;
        size_t n;
        memset(mark, 0, g->nfns);
        PYPROF_TRY(match_names(g, pats[which], mark, MARK_SEED, &n));
        if (n == 0) {
            rc = pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                  "%s function '%s' not found", which ? "leaf" : "root",
                                  pats[which]);
            goto out;
        }
        for (size_t d = 0; d < g->nfns; d++)
            if (mark[d])
                mark[d] |= MARK_DOWN;
        PYPROF_TRY(walk(g, mark, MARK_DOWN, which == 1, o->depth));
        keep_marked(g, mark, MARK_DOWN);
    }

    /* --focus: the functions matching, everything they call and everything
     * that calls them, i.e. every path through a matching function */
    if (o->focus && *o->focus) {
        memset(mark, 0, g->nfns);
        PYPROF_TRY(match_regex(g, "--focus", o->focus, mark, MARK_SEED, err));
        for (size_t d = 0; d < g->nfns; d++)
            if (mark[d])
                mark[d] |= MARK_DOWN | MARK_UP;
        PYPROF_TRY(walk(g, mark, MARK_DOWN, false, -1));
        PYPROF_TRY(walk(g, mark, MARK_UP, true, -1));
        for (size_t d = 0; d < g->nfns; d++)
            if (mark[d] & (MARK_DOWN | MARK_UP))
                mark[d] |= MARK_SEED;
        keep_marked(g, mark, MARK_SEED);
    }
    /* --ignore: drop the matching functions and the calls to and from them */
    if (o->ignore && *o->ignore) {
        memset(mark, 0, g->nfns);
        PYPROF_TRY(match_regex(g, "--ignore", o->ignore, mark, MARK_SEED, err));
        for (size_t d = 0; d < g->nfns; d++)
            mark[d] = mark[d] ? 0 : MARK_SEED;
        keep_marked(g, mark, MARK_SEED);
    }
    if (o->max_nodes)
        PYPROF_TRY(cap_nodes(g, o->max_nodes));
out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory pruning the call graph");
    pyprof__free(mark);
    return rc;
}
