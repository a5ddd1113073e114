/*
 * dot_compare.c - gprof2dot's --compare: the graph of the first profile,
 * with each node and edge labelled by both profiles' values.
 *
 * What gprof2dot 2025.04 prints (reconstructed from its output on the
 * corpus case gprof2dot_compare_print1):
 *   - nodes, edges, ids, colours and pen widths are those of the first
 *     profile's pruned graph;
 *   - node label: name, "T1% ± |T2-T1|%", "N1 ×/ N2 ×", "(S1%) ± |S2-S1|%",
 *     "N1 ×/ N2 ×", where T is total%, S self% and N the call count, and the
 *     difference is in percentage points rounded to 3 decimals and printed
 *     as Python prints a float;
 *   - node shape "cds" (an arrow) with orientation 0 when the second profile
 *     is slower (its total share grew) and 90 when it is faster; fontsize
 *     printed with "%f";
 *   - edge label: "E1% / E2%" and "C1× / C2×".
 * Functions are matched by their displayed name ("module:line:name").  A
 * function or call missing from the second profile counts as zero there.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "dot_int.h"
#include "gv_load.h"

#define S(x) ((char *)(x)) /* cgraph's char * parameters are never written to */

typedef struct named {
    char *name;
    uint32_t id;
} named;

static int
cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* Sorted (name, id) of every function of `g`; the names are one allocation each. */
static int
name_index(const dot_graph *g, named **out)
{
    named *v = pyprof__calloc(g->nfns ? g->nfns : 1, sizeof *v);
    if (!v)
        return PYPROF_ENOMEM;
    for (size_t d = 0; d < g->nfns; d++) {
        dot_buf b = {0};
        pyprof__dot_function_name(&b, g->p, g->fns[d].func, 0, 0);
        if (!b.rc && !b.s)
            pyprof__dot_buf_put(&b, "", 0);
        if (b.rc) {
            for (size_t k = 0; k < d; k++)
                pyprof__free(v[k].name);
            pyprof__free(v);
            return b.rc;
        }
        v[d].name = b.s;
        v[d].id = (uint32_t)d;
    }
    qsort(v, g->nfns, sizeof *v, cmp_named);
    *out = v;
    return 0;
}

static uint32_t
lookup(const named *v, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v[mid].name, name);
        if (c == 0)
            return v[mid].id; /* the first of equal names: lowest id */
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return PYPROF_NONE;
}

static const dot_call *
find_call(const dot_graph *g, uint32_t caller, uint32_t callee)
{
    const dot_fn *fn = &g->fns[caller];
    size_t lo = fn->first_call, hi = fn->first_call + fn->ncalls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->calls[mid].callee == callee)
            return &g->calls[mid];
        if (g->calls[mid].callee < callee)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* " + 0.313%": sign and |b - a| in percentage points, rounded to 3 decimals
 * and printed as Python's str(round(x, 3)) (shortest, at least one decimal). */
static void
put_delta(dot_buf *b, double a, double other)
{
    char tmp[64];
    double d = (other - a) * 100.0;
    pyprof__snprintf_c(tmp, sizeof tmp, "%.3f", fabs(d));
    size_t n = strlen(tmp);
    while (n > 0 && tmp[n - 1] == '0' && tmp[n - 2] != '.')
        tmp[--n] = '\0';
    pyprof__dot_buf_printf(b, " %s %s%%", d < 0 ? "-" : "+", tmp);
}

static long long
count_of(double x)
{
    return isfinite(x) && fabs(x) < 9e18 ? (long long)x : 0;
}

static int
build(Agraph_t *G, const dot_graph *ga, const dot_graph *gb, const named *idx,
      const pyprof_dot_options *o, const dot_theme *t)
{
    dot_buf b = {0}, name = {0};
    char num[64], color[8], bg[8];
    int rc = PYPROF_ENOMEM;
    uint32_t *other = pyprof__malloc((ga->nfns ? ga->nfns : 1) * sizeof *other);
    Agnode_t **node = pyprof__calloc(ga->nfns ? ga->nfns : 1, sizeof *node);
    if (!other || !node)
        goto out;

    pyprof__gv.agattr(G, AGRAPH, S("tooltip"), S(" "));
    pyprof__gv.agattr(G, AGRAPH, S("fontname"), S("Arial"));
    pyprof__gv.agattr(G, AGRAPH, S("nodesep"), S("0.125"));
    pyprof__gv.agattr(G, AGRAPH, S("ranksep"), S("0.25"));
    pyprof__gv.agattr(G, AGNODE, S("fontname"), S("Arial"));
    pyprof__gv.agattr(G, AGNODE, S("height"), S("0"));
    pyprof__gv.agattr(G, AGNODE, S("style"), S(t->nodestyle));
    pyprof__gv.agattr(G, AGNODE, S("width"), S("0"));
    pyprof__gv.agattr(G, AGEDGE, S("fontname"), S("Arial"));
    Agsym_t *n_color = pyprof__gv.agattr(G, AGNODE, S("color"), S(""));
    Agsym_t *n_fontcolor = pyprof__gv.agattr(G, AGNODE, S("fontcolor"), S(t->fontcolor));
    Agsym_t *n_fontsize = pyprof__gv.agattr(G, AGNODE, S("fontsize"), S(""));
    Agsym_t *n_label = pyprof__gv.agattr(G, AGNODE, S("label"), S("\\N"));
    Agsym_t *n_orientation = pyprof__gv.agattr(G, AGNODE, S("orientation"), S(""));
    Agsym_t *n_shape = pyprof__gv.agattr(G, AGNODE, S("shape"), S(""));
    Agsym_t *n_tooltip = pyprof__gv.agattr(G, AGNODE, S("tooltip"), S(""));
    Agsym_t *e_arrowsize = pyprof__gv.agattr(G, AGEDGE, S("arrowsize"), S(""));
    Agsym_t *e_color = pyprof__gv.agattr(G, AGEDGE, S("color"), S(""));
    Agsym_t *e_fontcolor = pyprof__gv.agattr(G, AGEDGE, S("fontcolor"), S(""));
    Agsym_t *e_fontsize = pyprof__gv.agattr(G, AGEDGE, S("fontsize"), S(""));
    Agsym_t *e_label = pyprof__gv.agattr(G, AGEDGE, S("label"), S(""));
    Agsym_t *e_labeldistance = pyprof__gv.agattr(G, AGEDGE, S("labeldistance"), S(""));
    Agsym_t *e_penwidth = pyprof__gv.agattr(G, AGEDGE, S("penwidth"), S(""));
    pyprof__dot_bgcolor(t, bg);

    for (size_t d = 0; d < ga->nfns; d++) {
        const dot_fn *fa = &ga->fns[d];
        other[d] = PYPROF_NONE;
        if (!fa->alive)
            continue;
        pyprof__dot_buf_reset(&name);
        pyprof__dot_function_name(&name, ga->p, fa->func, 0, 0);
        if (name.rc)
            goto out;
        other[d] = lookup(idx, gb->nfns, name.s);
        const dot_fn *fb = other[d] != PYPROF_NONE ? &gb->fns[other[d]] : NULL;
        double t1 = fa->has_total_ratio ? fa->total_ratio : 0.0;
        double t2 = fb && fb->has_total_ratio ? fb->total_ratio : 0.0;
        double s1 = fa->has_time_ratio ? fa->time_ratio : 0.0;
        double s2 = fb && fb->has_time_ratio ? fb->time_ratio : 0.0;
        double n1 = fa->has_called ? fa->called : 0.0, n2 = fb && fb->has_called ? fb->called : 0.0;

        pyprof__dot_buf_reset(&b);
        pyprof__dot_buf_reset(&name);
        pyprof__dot_function_name(&name, ga->p, fa->func, o->strip, o->wrap);
        pyprof__dot_buf_escaped(&b, name.s ? name.s : "", name.len);
        pyprof__dot_buf_printf(&b, "\\n%.2f%%", t1 * 100.0);
        put_delta(&b, t1, t2);
        pyprof__dot_buf_printf(&b, "\\n%lld \xc3\x97/ %lld \xc3\x97", count_of(n1), count_of(n2));
        pyprof__dot_buf_printf(&b, "\\n(%.2f%%)", s1 * 100.0);
        put_delta(&b, s1, s2);
        pyprof__dot_buf_printf(&b, "\\n%lld \xc3\x97/ %lld \xc3\x97", count_of(n1), count_of(n2));
        if (b.rc || name.rc)
            goto out;

        snprintf(num, sizeof num, "%zu", d);
        if (!(node[d] = pyprof__gv.agnode(G, num, 1)))
            goto out;
        double w = fa->has_weight ? fa->weight : 0.0;
        pyprof__gv.agxset(node[d], n_label, b.s);
        pyprof__dot_color(t, w, color);
        pyprof__gv.agxset(node[d], n_color, color);
        pyprof__gv.agxset(node[d], n_fontcolor, strcmp(t->nodestyle, "filled") == 0 ? bg : color);
        pyprof__snprintf_c(num, sizeof num, "%f", pyprof__dot_fontsize(t, w));
        pyprof__gv.agxset(node[d], n_fontsize, num);
        pyprof__gv.agxset(node[d], n_orientation, S(t2 > t1 ? "0" : "90"));
        pyprof__gv.agxset(node[d], n_shape, S("cds"));
        pyprof__dot_buf_reset(&b);
        const char *file = pyprof_profile_string(ga->p, pyprof_profile_func(ga->p, fa->func)->file);
        pyprof__dot_buf_escaped(&b, file, strlen(file));
        if (b.rc)
            goto out;
        pyprof__gv.agxset(node[d], n_tooltip, b.s);
    }
    for (size_t d = 0; d < ga->nfns; d++) {
        const dot_fn *fa = &ga->fns[d];
        if (!fa->alive)
            continue;
        for (size_t k = fa->first_call; k < fa->first_call + fa->ncalls; k++) {
            const dot_call *c = &ga->calls[k];
            const dot_fn *callee = &ga->fns[c->callee];
            if (!c->alive || !callee->alive)
                continue;
            const dot_call *cb = NULL;
            if (other[d] != PYPROF_NONE && other[c->callee] != PYPROF_NONE)
                cb = find_call(gb, other[d], other[c->callee]);
            Agedge_t *e = pyprof__gv.agedge(G, node[d], node[c->callee], NULL, 1);
            if (!e)
                goto out;
            pyprof__dot_buf_reset(&b);
            pyprof__dot_buf_printf(&b, "%.2f%% / %.2f%%",
                                   c->has_total_ratio ? c->total_ratio * 100.0 : 0.0,
                                   cb && cb->has_total_ratio ? cb->total_ratio * 100.0 : 0.0);
            pyprof__dot_buf_printf(&b, "\\n%lld\xc3\x97 / %lld\xc3\x97",
                                   count_of(c->has_calls ? c->calls : 0.0),
                                   count_of(cb && cb->has_calls ? cb->calls : 0.0));
            if (b.rc)
                goto out;
            double w = c->has_weight ? c->weight : callee->has_weight ? callee->weight : 0.0;
            pyprof__gv.agxset(e, e_label, b.s);
            pyprof__dot_color(t, w, color);
            pyprof__gv.agxset(e, e_color, color);
            pyprof__gv.agxset(e, e_fontcolor, color);
            pyprof__snprintf_c(num, sizeof num, "%.2f", pyprof__dot_fontsize(t, w));
            pyprof__gv.agxset(e, e_fontsize, num);
            double pen = pyprof__dot_penwidth(t, w);
            pyprof__snprintf_c(num, sizeof num, "%.2f", pen);
            pyprof__gv.agxset(e, e_penwidth, num);
            pyprof__gv.agxset(e, e_labeldistance, num);
            pyprof__snprintf_c(num, sizeof num, "%.2f", 0.5 * sqrt(pen));
            pyprof__gv.agxset(e, e_arrowsize, num);
        }
    }
    rc = 0;
out:
    pyprof__free(other);
    pyprof__free(node);
    pyprof__free(b.s);
    pyprof__free(name.s);
    return rc;
}

int
pyprof_dot_render_compare(pyprof_profile *base, pyprof_profile *other_p,
                          const pyprof_dot_options *opts, pyprof_output *out, pyprof_error *err)
{
    pyprof_dot_options defaults = PYPROF_DOT_OPTIONS_INIT;
    const pyprof_dot_options *o = opts ? opts : &defaults;
    dot_graph ga, gb;
    dot_theme t;
    named *idx = NULL;
    int rc;
    if ((rc = pyprof__dot_check_options(o, err)) < 0)
        return rc;
    if ((rc = pyprof__dot_graph_build(&ga, base, o, true, err)) < 0)
        return rc;
    if ((rc = pyprof__dot_graph_build(&gb, other_p, o, false, err)) < 0) {
        pyprof__dot_graph_free(&ga);
        return rc;
    }
    if ((rc = pyprof__dot_graph_prune(&ga, o, err)) < 0)
        goto out;
    if ((rc = name_index(&gb, &idx)) < 0) {
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
        goto out;
    }
    pyprof__dot_theme(&t, o->colormap, o->skew);
    if ((rc = pyprof__dot_gv_enter(err)) < 0)
        goto out;
    Agraph_t *G = pyprof__dot_open();
    if (!G)
        rc = pyprof__dot_gv_fail(err, "cannot create a graph");
    else if ((rc = build(G, &ga, &gb, idx, o, &t)) < 0)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory building the Graphviz graph");
    else
        rc = pyprof__dot_emit(G, o, out, err);
    if (G)
        pyprof__gv.agclose(G);
    pyprof__dot_gv_leave();
out:
    if (idx)
        for (size_t i = 0; i < gb.nfns; i++)
            pyprof__free(idx[i].name);
    pyprof__free(idx);
    pyprof__dot_graph_free(&ga);
    pyprof__dot_graph_free(&gb);
    return rc;
}
