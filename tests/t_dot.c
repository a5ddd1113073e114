/*
 * t_dot.c - the call-graph renderer through its API: gprof2dot's colours,
 * labels and pruning on hand-built profiles whose numbers are worked out in
 * the comments; sampled profiles (integration along call ratios, cycles,
 * --total callstacks); our filters; DOT escaping checked by reading the
 * output back with Graphviz; errors; and ENOMEM at every allocation.
 */
#include "config.h"

#include <limits.h>

#include <graphviz/cgraph.h>

#include "../libpyprof/render/dot_int.h"
#include "tap.h"

static pyprof_id
S(pyprof_profile *p, const char *s)
{
    pyprof_id id = PYPROF_NONE;
    pyprof_profile_intern(p, &id, s, strlen(s));
    return id;
}

static pyprof_id
func(pyprof_profile *p, const char *file, int line, const char *name, int64_t nc, double tt,
     double ct)
{
    pyprof_id id = PYPROF_NONE;
    pyprof_profile_func_intern(p, &id, S(p, file), line, S(p, name), 0, NULL);
    pyprof_func *f = pyprof_profile_func_mut(p, id);
    f->counts.ncalls = f->counts.primcalls = nc;
    f->counts.tottime = tt;
    f->counts.cumtime = ct;
    return id;
}

static void
edge(pyprof_profile *p, pyprof_id a, pyprof_id b, int64_t cc, double ct)
{
    pyprof_id id;
    pyprof_profile_edge_intern(p, &id, a, b, NULL);
    pyprof_edge *e = pyprof_profile_edge_mut(p, id);
    e->counts.ncalls = e->counts.primcalls = cc;
    e->counts.cumtime = ct;
}

/* Render into a malloc'ed NUL-terminated string; NULL on failure (rc set). */
static char *
render(pyprof_profile *p, const pyprof_dot_options *o, int *rc_out)
{
    pyprof_output *out;
    pyprof_error err = PYPROF_ERROR_INIT;
    int rc = pyprof_output_open_memory(&out, &err);
    char *s = NULL;
    if (rc == 0)
        rc = pyprof_dot_render(p, o, out, &err);
    if (rc == 0) {
        size_t len;
        const unsigned char *d = pyprof_output_data(out, &len);
        s = malloc(len + 1);
        memcpy(s, d, len);
        s[len] = '\0';
    } else if (rc != PYPROF_ENOMEM) {
        tap_diag("render: %s", err.message);
    }
    pyprof_output_abort(out);
    if (rc_out)
        *rc_out = rc;
    return s;
}

static int
count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *s = hay; s && (s = strstr(s, needle)); s++)
        n++;
    return n;
}

/* main -> work (x2) -> leaf; main -> small.  Times: total 10 s. */
static pyprof_profile *
pstats_like(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id m = func(p, "/src/app.py", 1, "main", 1, 1.0, 10.0);
    pyprof_id w = func(p, "/src/app.py", 5, "work", 2, 4.0, 8.0);
    pyprof_id l = func(p, "/src/lib/util.py", 9, "leaf", 4, 4.0, 4.0);
    pyprof_id s = func(p, "~", 0, "<built-in method builtins.len>", 7, 0.01, 0.01);
    edge(p, m, w, 2, 8.0);
    edge(p, w, l, 4, 4.0);
    edge(p, m, s, 7, 0.01);
    return p;
}

static void
test_colours(void)
{
    dot_theme t;
    char c[8];
    pyprof__dot_theme(&t, PYPROF_DOT_COLOR, 1.0);
    pyprof__dot_color(&t, 1.0, c);
    TAP_IS_STR(c, "#ff0000", "weight 1 is saturated red");
    /* weight 0: HSL(2/3, 0.8, 0.25) -> m2 = 0.45, m1 = 0.05 -> (13, 13, 115) */
    pyprof__dot_color(&t, 0.0, c);
    TAP_IS_STR(c, "#0d0d73", "weight 0 is dark blue");
    pyprof__dot_color(&t, 7.0, c);
    TAP_IS_STR(c, "#ff0000", "weights clamp to 1");
    pyprof__dot_bgcolor(&t, c);
    TAP_IS_STR(c, "#ffffff", "background white");
    pyprof__dot_theme(&t, PYPROF_DOT_GRAY, 1.0);
    /* l = 0.85 * 0.5 = 0.425, gamma 2.2: 0.425^2.2 = 0.1521 -> 39 */
    pyprof__dot_color(&t, 0.5, c);
    TAP_IS_STR(c, "#272727", "gray theme with gamma 2.2");
    pyprof__dot_theme(&t, PYPROF_DOT_BW, 1.0);
    TAP_IS_DBL(pyprof__dot_fontsize(&t, 0.5), 8.0, 1e-12, "bw: font max(0.25*24, 8)");
    TAP_IS_DBL(pyprof__dot_fontsize(&t, 1.0), 24.0, 1e-12, "bw: font 24 at weight 1");
    TAP_IS_DBL(pyprof__dot_penwidth(&t, 0.5), 4.0, 1e-12, "bw: pen 0.5*8");
    pyprof__dot_theme(&t, PYPROF_DOT_COLOR, 0.1);
    pyprof__dot_color(&t, 0.5, c);
    /* skew 0.1: w' = (0.1^0.5 - 1)/(0.1 - 1) = 0.7597 -> hotter than linear */
    char lin[8];
    dot_theme t1;
    pyprof__dot_theme(&t1, PYPROF_DOT_COLOR, 1.0);
    pyprof__dot_color(&t1, 0.7597469266479578, lin);
    TAP_IS_STR(c, lin, "skew bends the curve: (s^w-1)/(s-1)");
}

static void
test_pstats_graph(void)
{
    pyprof_profile *p = pstats_like();
    pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
    char *s = render(p, &o, NULL);
    TAP_OK(s != NULL, "render a hand-built pstats profile");
    /* main: 100% total (ct 10 of max(Σtt = 9.01, 10)), self 1/9.01 = 11.10% */
    TAP_OK(strstr(s, "label=\"app:1:main\\n100.00%\\n(11.10%)\\n1×\"") != NULL,
           "node label: module:line:name, total%%, (self%%), calls");
    TAP_OK(strstr(s, "label=\"80.00%\\n2×\"") != NULL, "edge label: total%% and cc");
    TAP_OK(strstr(s, "tooltip=\"/src/lib/util.py\"") != NULL, "tooltip is the file name");
    /* len: 0.1% of the total, under the 0.5% node threshold */
    TAP_OK(strstr(s, "builtins.len") == NULL, "nodes under 0.5%% are pruned");
    TAP_IS_INT(count(s, " -> "), 2, "two edges survive");
    free(s);

    o.node_thres = 0;
    o.edge_thres = 0;
    s = render(p, &o, NULL);
    TAP_OK(strstr(s, "~:0:<built-in method builtins.len>") != NULL, "-n 0 keeps the built-in");
    TAP_IS_INT(count(s, " -> "), 3, "-e 0 keeps every edge");
    free(s);

    /* selftime colours: leaf has the largest self share: weight 1, red */
    pyprof_dot_options so = PYPROF_DOT_OPTIONS_INIT;
    so.color_nodes_by_selftime = 1;
    s = render(p, &so, NULL);
    const char *leaf = strstr(s, "util:9:leaf");
    const char *red = strstr(s, "[color=\"#ff0000\"");
    TAP_OK(red && leaf && red < leaf && !strstr(leaf, "[color"), "selftime: the leaf is red");
    free(s);

    pyprof_dot_options lo = PYPROF_DOT_OPTIONS_INIT;
    lo.node_labels[0] = PYPROF_DOT_SELF_TIME;
    lo.node_labels[1] = PYPROF_DOT_TOTAL_TIME;
    s = render(p, &lo, NULL);
    TAP_OK(strstr(s, "label=\"app:5:work\\n(4)\\n8\\n2×\"") != NULL,
           "--node-label self-time, total-time in the order given");
    free(s);

    pyprof_dot_options po = PYPROF_DOT_OPTIONS_INIT;
    const char *paths[] = {"/src/lib"};
    po.paths = paths;
    po.npaths = 1;
    s = render(p, &po, NULL);
    TAP_OK(strstr(s, "util:9:leaf") && !strstr(s, "app:1:main"), "-p keeps only files under it");
    free(s);

    pyprof_dot_options ro = PYPROF_DOT_OPTIONS_INIT;
    ro.root = "*:work";
    s = render(p, &ro, NULL);
    TAP_OK(strstr(s, "app:5:work") && strstr(s, "util:9:leaf") && !strstr(s, "app:1:main"),
           "-z keeps the root and its descendants");
    free(s);
    ro.root = NULL;
    ro.leaf = "*:work";
    s = render(p, &ro, NULL);
    TAP_OK(strstr(s, "app:5:work") && strstr(s, "app:1:main") && !strstr(s, "util:9:leaf"),
           "-l keeps the leaf and its ancestors");
    free(s);
    ro.leaf = NULL;
    ro.root = "app:1:main";
    ro.depth = 1;
    s = render(p, &ro, NULL);
    TAP_OK(strstr(s, "app:5:work") && !strstr(s, "util:9:leaf"), "--depth 1 stops after a call");
    free(s);

    pyprof_dot_options mo = PYPROF_DOT_OPTIONS_INIT;
    mo.node_thres = 0;
    mo.max_nodes = 2;
    s = render(p, &mo, NULL);
    TAP_OK(strstr(s, "app:1:main") && strstr(s, "app:5:work") && !strstr(s, "util:9:leaf") &&
               count(s, " -> ") == 1,
           "--max-nodes 2 keeps the two heaviest and the edge between them");
    free(s);

    /* a dense graph: 5 functions, each calling every other */
    pyprof_profile *dense;
    pyprof_profile_new(&dense);
    pyprof_id fs[5];
    char nm[16];
    for (int i = 0; i < 5; i++) {
        snprintf(nm, sizeof nm, "f%d", i);
        fs[i] = func(dense, "d.py", i, nm, 1, 1.0, 10.0 - i);
    }
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            if (i != j)
                edge(dense, fs[i], fs[j], 1, 0.1 * (i * 5 + j + 1));
    pyprof_dot_options mo2 = PYPROF_DOT_OPTIONS_INIT;
    mo2.node_thres = mo2.edge_thres = 0;
    s = render(dense, &mo2, NULL);
    TAP_IS_INT(count(s, " -> "), 20, "the dense graph has 20 calls");
    free(s);
    mo2.max_nodes = 5;
    s = render(dense, &mo2, NULL);
    int kept = count(s, " -> ");
    TAP_OK(kept >= 10 && kept <= 15, "--max-nodes 5 keeps 2N calls plus first callers (%d)", kept);
    int fed = 1;
    for (int j = 0; j < 5; j++) {
        snprintf(nm, sizeof nm, " -> %d\t", j);
        fed &= count(s, nm) >= 1;
    }
    TAP_OK(fed, "every node kept its heaviest caller");
    free(s);
    pyprof_profile_free(dense);

    pyprof_dot_options fo = PYPROF_DOT_OPTIONS_INIT;
    fo.node_thres = 0;
    fo.focus = "builtins\\.len";
    s = render(p, &fo, NULL);
    TAP_OK(strstr(s, "app:1:main") && strstr(s, "builtins.len") && !strstr(s, "app:5:work"),
           "--focus keeps the paths through the match only");
    free(s);
    fo.focus = NULL;
    fo.ignore = "^app:5:";
    s = render(p, &fo, NULL);
    TAP_OK(!strstr(s, "app:5:work") && strstr(s, "util:9:leaf") && count(s, " -> ") == 1,
           "--ignore drops the function and its calls");
    free(s);
    fo.ignore = "/src/lib/";
    s = render(p, &fo, NULL);
    TAP_OK(!strstr(s, "util:9:leaf"), "--ignore also matches the full file name");
    free(s);

    int rc;
    pyprof_dot_options bad = PYPROF_DOT_OPTIONS_INIT;
    bad.focus = "([";
    TAP_OK(!render(p, &bad, &rc) && rc == PYPROF_EINVAL, "invalid --focus is EINVAL");
    bad = (pyprof_dot_options)PYPROF_DOT_OPTIONS_INIT;
    bad.root = "nothing";
    TAP_OK(!render(p, &bad, &rc) && rc == PYPROF_EINVAL, "a root that matches nothing is EINVAL");
    bad = (pyprof_dot_options)PYPROF_DOT_OPTIONS_INIT;
    bad.version = 99;
    TAP_OK(!render(p, &bad, &rc) && rc == PYPROF_EINVAL, "unknown options version is EINVAL");
    bad = (pyprof_dot_options)PYPROF_DOT_OPTIONS_INIT;
    bad.type = "gif";
    TAP_OK(!render(p, &bad, &rc) && rc == PYPROF_EINVAL, "unknown type is EINVAL");
    bad = (pyprof_dot_options)PYPROF_DOT_OPTIONS_INIT;
    bad.skew = 0;
    TAP_OK(!render(p, &bad, &rc) && rc == PYPROF_EINVAL, "skew 0 is EINVAL");
    pyprof_profile_free(p);

    pyprof_profile_new(&p);
    char *empty = render(p, NULL, &rc);
    TAP_OK(empty && strstr(empty, "digraph") && !strstr(empty, "->") &&
               !strstr(empty, "label=\"\\N\"\n\t]"),
           "an empty profile is an empty graph, as gprof2dot draws it");
    free(empty);
    pyprof_id series;
    pyprof_profile_mem_series_add(p, &series, S(p, "run"), -1, 0);
    pyprof_profile_mem_sample_add(p, series, 1.0, 10.0);
    TAP_OK(!render(p, NULL, &rc) && rc == PYPROF_ECAPS, "a memory timeline alone is ECAPS");
    pyprof_profile_free(p);

    TAP_IS_INT(pyprof_dot_colormap_parse("print"), PYPROF_DOT_PRINT, "colormap names");
    TAP_IS_INT(pyprof_dot_colormap_parse("rainbow"), -1, "unknown colormap");
    TAP_IS_INT(pyprof_dot_measure_parse("self-time"), PYPROF_DOT_SELF_TIME, "measure names");
}

/* NaN and infinite times (a crafted file can hold them): a graph, no crash,
 * no undefined conversions (run under UBSan in CI). */
static void
test_nonfinite(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id a = func(p, "a.py", 1, "a", 1, NAN, INFINITY);
    pyprof_id b = func(p, "a.py", 2, "b", 1, 1.0, NAN);
    edge(p, a, b, 1, NAN);
    int rc;
    char *s = render(p, NULL, &rc);
    TAP_OK(s && strstr(s, "a:1:a") && strstr(s, "a:2:b"), "NaN and infinite times still draw");
    free(s);
    pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
    o.color_nodes_by_selftime = 1;
    o.max_nodes = 1;
    s = render(p, &o, &rc);
    TAP_OK(s != NULL, "... also coloured by self time and capped");
    free(s);
    pyprof_profile_free(p);
}

/* Quotes, backslashes and tabs in names: gprof2dot's escaping, then what
 * Graphviz reads back must be the label we meant. */
static void
test_escaping(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    func(p, "dir/a\"b\\c.py", 3, "we\\ird\tname", 1, 1.0, 1.0);
    char *s = render(p, NULL, NULL);
    TAP_OK(s && strstr(s, "label=\"a\\\"b\\\\c:3:we\\\\ird\\tname\\n100.00%"),
           "label escaped as gprof2dot does");
    Agraph_t *g = s ? agmemread(s) : NULL;
    TAP_OK(g != NULL, "Graphviz parses our DOT");
    if (g) {
        Agnode_t *n = agfstnode(g);
        TAP_IS_STR(n ? agget(n, "label") : NULL,
                   "a\"b\\\\c:3:we\\\\ird\\tname\\n100.00%\\n(100.00%)\\n1×",
                   "the label Graphviz reads back");
        TAP_IS_STR(n ? agget(n, "tooltip") : NULL, "dir/a\"b\\\\c.py", "the tooltip read back");
        agclose(g);
    }
    free(s);
    pyprof_profile_free(p);
}

/* Sampled stacks:  main;a;c 1  main;b;c 1  main 2  (4 samples)
 * self: main 2/4, c 2/4; edges main->a, main->b, a->c, b->c one each;
 * call ratios: main->a 1, a->c 1/2; integration: c 50%, a = b = 25%,
 * main = 50% + 25% + 25% = 100%. */
static void
test_sampled(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id m = func(p, "app.py", 1, "main", 0, 0, 0);
    pyprof_id a = func(p, "app.py", 2, "a", 0, 0, 0);
    pyprof_id b = func(p, "app.py", 3, "b", 0, 0, 0);
    pyprof_id c = func(p, "app.py", 4, "c", 0, 0, 0);
    pyprof_id nm, na, nb, nc1, nc2;
    pyprof_profile_stack_child(p, &nm, PYPROF_NONE, m);
    pyprof_profile_stack_child(p, &na, nm, a);
    pyprof_profile_stack_child(p, &nc1, na, c);
    pyprof_profile_stack_child(p, &nb, nm, b);
    pyprof_profile_stack_child(p, &nc2, nb, c);
    pyprof_profile_stack_node_mut(p, nm)->self[0] = 2;
    pyprof_profile_stack_node_mut(p, nc1)->self[0] = 1;
    pyprof_profile_stack_node_mut(p, nc2)->self[0] = 1;
    /* the stack tree alone: functions exist (interned) but carry no counts;
     * what makes it sampled is the stacks part */
    pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
    char *s = render(p, &o, NULL);
    TAP_OK(s != NULL, "render a stacks-only profile");
    TAP_OK(s && strstr(s, "label=\"app:1:main\\n100.00%\\n(50.00%)\""),
           "integrated: main 100%%, self 50%%, no call count");
    TAP_OK(s && strstr(s, "label=\"app:2:a\\n25.00%\\n(0.00%)\""), "integrated: a 25%%");
    TAP_OK(s && strstr(s, "label=\"app:4:c\\n50.00%\\n(50.00%)\""), "integrated: c 50%%");
    TAP_OK(s && strstr(s, "label=\"25.00%\""), "edge a->c carries a's share: 25%%");
    free(s);
    o.show_samples = 1;
    s = render(p, &o, NULL);
    TAP_OK(s && strstr(s, "label=\"app:1:main\\n100.00%\\n(50.00%)\\n2×\""),
           "--show-samples adds the self samples");
    free(s);
    pyprof_profile_free(p);

    /* A cycle:  main;f;g 2  main;f;g;f 1.  Self f 1/3, g 2/3; edges
     * main->f 3, f->g 3, g->f 1 (once per sample).  {f, g} is a cycle
     * entered at f with ratio 1: partial(g) = 2/3, partial(f) = 1/3 + 2/3. */
    pyprof_profile_new(&p);
    m = func(p, "app.py", 1, "main", 0, 0, 0);
    pyprof_id f = func(p, "app.py", 2, "f", 0, 0, 0);
    pyprof_id g = func(p, "app.py", 3, "g", 0, 0, 0);
    pyprof_id n1, n2, n3, n4;
    pyprof_profile_stack_child(p, &n1, PYPROF_NONE, m);
    pyprof_profile_stack_child(p, &n2, n1, f);
    pyprof_profile_stack_child(p, &n3, n2, g);
    pyprof_profile_stack_child(p, &n4, n3, f);
    pyprof_profile_stack_node_mut(p, n3)->self[0] = 2;
    pyprof_profile_stack_node_mut(p, n4)->self[0] = 1;
    pyprof_dot_options co = PYPROF_DOT_OPTIONS_INIT;
    s = render(p, &co, NULL);
    TAP_OK(s && strstr(s, "label=\"app:1:main\\n100.00%\\n(0.00%)\""), "cycle: main 100%%");
    TAP_OK(s && strstr(s, "label=\"app:2:f\\n100.00%\\n(33.33%)\""), "cycle: entry f 100%%");
    TAP_OK(s && strstr(s, "label=\"app:3:g\\n66.67%\\n(66.67%)\""), "cycle: g 66.67%%");
    TAP_OK(s && strstr(s, "label=\"66.67%\""), "cycle: forward edge f->g 66.67%%");
    free(s);
    co.total = PYPROF_DOT_TOTAL_CALLSTACKS;
    s = render(p, &co, NULL);
    TAP_OK(s && strstr(s, "label=\"app:3:g\\n100.00%\\n(66.67%)\""),
           "--total callstacks: g is on every stack");
    free(s);
    pyprof_profile_free(p);
}

/* What pruning leaves of a graph, as text: the live nodes and the live calls
 * between them, with what the drawing reads of each. */
static char *
live_summary(const dot_graph *g)
{
    dot_buf b = {0};
    for (size_t d = 0; d < g->nfns; d++) {
        const dot_fn *fn = &g->fns[d];
        if (!fn->alive)
            continue;
        pyprof__dot_buf_printf(&b, "n%zu w%d:%.17g\n", d, fn->has_weight, fn->weight);
        for (size_t k = fn->first_call; k < fn->first_call + fn->ncalls; k++) {
            const dot_call *c = &g->calls[k];
            if (c->alive && g->fns[c->callee].alive)
                pyprof__dot_buf_printf(&b, " %u->%u calls %.17g share %.17g w%d:%.17g\n", c->caller,
                                       c->callee, c->calls, c->total_ratio, c->has_weight,
                                       c->weight);
        }
    }
    return b.s ? b.s : strdup("");
}

/* A fixed-seed LCG: the same profiles every run. */
static uint64_t
rnd(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed >> 33;
}

/* pyprof__dot_graph_build with `prune` (nodes pruned first, only calls that
 * can survive built) leaves, after pyprof__dot_graph_prune, exactly what
 * the full build does, on random pstats-like profiles with caller-only
 * functions, count-only callers and recursion, under every pruning option. */
static void
test_early_prune(void)
{
    static const char *const files[] = {"/src/a.py", "/src/lib/b.py", "/usr/lib/c.py", "~"};
    uint64_t seed = 12345;
#define RND() rnd(&seed)
    int same = 0, cases = 0, calls_fewer = 0;
    for (int round = 0; round < 8; round++) {
        pyprof_profile *p;
        pyprof_profile_new(&p);
        int n = 40 + (int)(RND() % 200);
        pyprof_id *f = calloc((size_t)n, sizeof *f);
        for (int i = 0; i < n; i++) {
            char name[32];
            snprintf(name, sizeof name, "f%d", i);
            double ct = (double)(RND() % 100000) / 1000.0 / (1 + i % 7);
            f[i] = func(p, files[RND() % 4], i, name, 1 + (int64_t)(RND() % 50),
                        ct * (double)(RND() % 100) / 100.0, ct);
            if (RND() % 10 == 0) /* known only as a caller */
                pyprof_profile_func_mut(p, f[i])->flags |= PYPROF_FUNC_CALLER_ONLY;
        }
        int ne = n * (1 + (int)(RND() % 6));
        for (int k = 0; k < ne; k++) {
            pyprof_id a = f[RND() % (uint64_t)n], b = f[RND() % (uint64_t)n];
            if (pyprof_profile_edge_find(p, a, b) != PYPROF_NONE)
                continue;
            edge(p, a, b, 1 + (int64_t)(RND() % 9), (double)(RND() % 20000) / 1000.0);
            if (RND() % 8 == 0)
                pyprof_profile_edge_mut(p, pyprof_profile_edge_find(p, a, b))->flags |=
                    PYPROF_EDGE_COUNT_ONLY;
        }
        const char *paths[] = {"/src", NULL};
        for (int v = 0; v < 10; v++) {
            pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
            o.node_thres = v == 0 ? 0.0 : (double)(RND() % 300) / 100.0;
            o.edge_thres = v == 0 ? 0.0 : (double)(RND() % 300) / 100.0;
            o.color_nodes_by_selftime = v % 3 == 1;
            if (v % 4 == 2) {
                o.paths = paths;
                o.npaths = 1;
            }
            if (v == 5)
                o.max_nodes = 7;
            if (v == 6)
                o.root = "f1*";
            if (v == 7) {
                o.leaf = "f2*";
                o.depth = 2;
            }
            if (v == 8)
                o.focus = "f3";
            if (v == 9)
                o.ignore = "f4";
            dot_graph full, early;
            pyprof_error err = PYPROF_ERROR_INIT;
            cases++;
            if (pyprof__dot_graph_build(&full, p, &o, false, &err) < 0 ||
                pyprof__dot_graph_build(&early, p, &o, true, &err) < 0) {
                tap_diag("build: %s", err.message);
                continue;
            }
            int r1 = pyprof__dot_graph_prune(&full, &o, &err);
            int r2 = pyprof__dot_graph_prune(&early, &o, &err);
            char *a = live_summary(&full), *b = live_summary(&early);
            if (r1 == r2 && strcmp(a, b) == 0)
                same++;
            else
                tap_diag("round %d variant %d differs:\n%s---\n%s", round, v, a, b);
            if (early.ncalls < full.ncalls)
                calls_fewer++;
            free(a);
            free(b);
            pyprof__dot_graph_free(&full);
            pyprof__dot_graph_free(&early);
        }
        free(f);
        pyprof_profile_free(p);
    }
#undef RND
    TAP_OK(same == cases, "early pruning leaves the same graph (%d of %d cases)", same, cases);
    TAP_OK(calls_fewer > cases / 2, "early pruning built fewer calls in %d of %d cases",
           calls_fewer, cases);
}

/* Functions are numbered from each entry's callers in order.  Edges grouped
 * by callee (as the pstats reader appends them) are walked directly, others
 * through the callers index: the same profile with its edges appended in
 * another order (each callee's callers still in the same order) must draw
 * the same graph. */
static void
test_numbering_orders(void)
{
    pyprof_profile *p[2];
    for (int v = 0; v < 2; v++) {
        pyprof_profile_new(&p[v]);
        pyprof_id f[6];
        for (int i = 0; i < 6; i++) {
            char name[8];
            snprintf(name, sizeof name, "g%d", i);
            f[i] = func(p[v], "/src/n.py", i, name, 1 + i, 1.0, 6.0 - i);
        }
        /* callee: callers, in dict order */
        static const int calls[][2] = {{1, 5}, {1, 3}, {2, 4}, {2, 1},
                                       {3, 0}, {4, 2}, {5, 3}, {0, 1}};
        static const int order[2][8] = {{7, 0, 1, 2, 3, 4, 5, 6}, {4, 2, 7, 0, 5, 3, 6, 1}};
        for (int k = 0; k < 8; k++) {
            const int *c = calls[order[v][k]];
            edge(p[v], f[c[1]], f[c[0]], 1, 0.5);
        }
    }
    pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
    o.node_thres = o.edge_thres = 0.0;
    /* count allocations: a failure point never reached */
    pyprof__alloc_fail_after(LONG_MAX);
    char *a = render(p[0], &o, NULL);
    long na = pyprof__alloc_fail_after(LONG_MAX);
    char *b = render(p[1], &o, NULL);
    long nb = pyprof__alloc_fail_after(-1);
    TAP_OK(a && b && strcmp(a, b) == 0, "edges grouped by callee or not: the same numbering");
    /* the grouped order needs no callers index (two arrays) */
    TAP_OK(na < nb, "grouped edges are walked without the index (%ld < %ld allocations)", na, nb);
    free(a);
    free(b);
    pyprof_profile_free(p[0]);
    pyprof_profile_free(p[1]);
}

/* Every allocation of the library fails in turn: ENOMEM each time, never a
 * crash, until the render succeeds. */
static void
test_oom(void)
{
    pyprof_profile *p = pstats_like();
    long n;
    int bad = 0;
    for (n = 0; n < 100000; n++) {
        pyprof_output *out;
        pyprof_output_open_memory(&out, NULL);
        pyprof__alloc_fail_after(n);
        int rc = pyprof_dot_render(p, NULL, out, NULL);
        if (rc == 0)
            rc = pyprof_output_status(out, NULL);
        pyprof__alloc_fail_after(-1);
        pyprof_output_abort(out);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM)
            bad++;
    }
    TAP_OK(n > 5 && n < 100000, "OOM sweep reached success after %ld failing runs", n);
    TAP_IS_INT(bad, 0, "every failed allocation came back as ENOMEM");
    pyprof_profile_free(p);
}

/* The image of `path` as `type` in *len bytes (malloc'd), NULL on failure. */
static unsigned char *
image_of(const char *path, const char *type, size_t *len)
{
    pyprof_profile *p = NULL;
    pyprof_output *out = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    unsigned char *copy = NULL;
    pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
    o.type = type;
    if (pyprof_profile_load(&p, path, NULL, &err) == 0 &&
        pyprof_output_open_memory(&out, &err) == 0 && pyprof_dot_render(p, &o, out, &err) == 0) {
        const unsigned char *d = pyprof_output_data(out, len);
        if ((copy = malloc(*len ? *len : 1)) != NULL)
            memcpy(copy, d, *len);
    } else {
        tap_diag("%s image of %s: %s", type, path, err.message);
    }
    pyprof_output_abort(out);
    pyprof_profile_free(p);
    return copy;
}

/* A host program may draw many images.  Graphviz's text measuring kept a
 * pointer into the font table of the context freed after the previous
 * image, and read it at the next (ASan: heap-use-after-free, in CI). */
static void
test_images_again(void)
{
    const char *path = tap_fixture("dot/small.pstats");
    size_t n1 = 0, n2 = 0, n3 = 0;
    unsigned char *a = image_of(path, "png", &n1), *b = image_of(path, "svg", &n3);
    unsigned char *c = image_of(path, "png", &n2);
    TAP_OK(a && b && c, "three images in one process: PNG, SVG, PNG");
    TAP_OK(a && c && n1 == n2 && n1 > 1000 && memcmp(a, c, n1) == 0,
           "the second PNG is the first, byte for byte (%zu bytes)", n1);
    free(a);
    free(b);
    free(c);
}

int
main(void)
{
    test_colours();
    test_pstats_graph();
    test_escaping();
    test_nonfinite();
    test_sampled();
    test_early_prune();
    test_numbering_orders();
    test_oom();
    test_images_again();
    return tap_done();
}
