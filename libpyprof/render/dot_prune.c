/*
 * dot_prune.c - which nodes and calls of the graph are drawn: gprof2dot's
 * thresholds, -p paths and selftime colouring (formats.md 12.2), its -z/-l
 * subtrees with --depth, and our filters (--focus, --ignore, --max-nodes).
 *
 * Nothing is renumbered: pruning marks nodes and calls dead, because
 * gprof2dot keeps its ids and writes the survivors in id order.
 */
#include "config.h"

#include <fnmatch.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "dot_int.h"

#define FOR_CALLS(g, fn, c)                                                                        \
    for (dot_call *c = (g)->calls + (fn)->first_call;                                              \
         c < (g)->calls + (fn)->first_call + (fn)->ncalls; c++)

/* The node half of gprof2dot's Profile.prune: node weights, the node
 * threshold, -p paths and selftime colouring.  None of it looks at calls,
 * which is what lets pyprof__dot_graph_build run it before the calls exist.
 * Running it again changes nothing. */
void
pyprof__dot_prune_nodes(dot_graph *g, const pyprof_dot_options *o)
{
    double node_thres = o->node_thres / 100.0;
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        if (fn->has_total_ratio) {
            fn->has_weight = true;
            fn->weight = fn->total_ratio;
        }
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
    /* gprof2dot colours by self time after the edge threshold; that
     * threshold only kills calls, so the order makes no difference */
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

/* A call's weight: its total share, or else a safe estimate from its ends
 * (their total shares, never their selftime colouring weights). */
void
pyprof__dot_call_weigh(const dot_graph *g, dot_call *c)
{
    const dot_fn *caller = &g->fns[c->caller], *callee = &g->fns[c->callee];
    if (c->has_total_ratio) {
        c->has_weight = true;
        c->weight = c->total_ratio;
    } else if (caller->has_total_ratio && callee->has_total_ratio) {
        c->has_weight = true;
        c->weight =
            caller->total_ratio < callee->total_ratio ? caller->total_ratio : callee->total_ratio;
    }
}

/* Profile.prune: the nodes (above), then call weights and the edge
 * threshold.  A call with a dead end is never looked at again (the walks,
 * --max-nodes and the drawing all skip it), so only live callers' calls are
 * marked. */
static void
prune_thresholds(dot_graph *g, const pyprof_dot_options *o)
{
    double edge_thres = o->edge_thres / 100.0;
    pyprof__dot_prune_nodes(g, o);
    for (size_t d = 0; d < g->nfns; d++) {
        dot_fn *fn = &g->fns[d];
        FOR_CALLS(g, fn, c)
        {
            pyprof__dot_call_weigh(g, c);
            if (fn->alive &&
                (!g->fns[c->callee].alive || (c->has_weight && c->weight < edge_thres)))
                c->alive = false;
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
