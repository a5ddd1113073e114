/*
 * dot.c - pyprof_dot_render: the pruned call graph (dot_graph.c) as a
 * Graphviz cgraph graph, written as DOT with agwrite or laid out and
 * rendered with gvc.
 *
 * The graph is built with cgraph calls, never printed by hand, so quoting
 * and escaping are Graphviz's own.  What cgraph cannot know is gprof2dot's
 * label syntax: label text uses DOT's "\n" line breaks, so backslashes,
 * newlines and tabs inside names are escaped here (dot_buf_escaped), and
 * agwrite quotes the rest.  The cgraph API takes `char *` where it means
 * `const char *`; the casts for that stay in this file.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif

#include "dot_int.h"
#include "gv_load.h"

/* ---- taking Graphviz, and its errors -----------------------------------------
 * Graphviz is not thread-safe: cgraph numbers anonymous objects from a
 * process-wide counter, its error handler and level are process-wide, and
 * so is the context of gv_context().  So one thread at a time builds,
 * writes, lays out or draws a graph: pyprof__dot_gv_enter() takes a lock
 * that pyprof__dot_gv_leave() gives back, and two host threads drawing call
 * graphs at once wait for each other instead of mixing their graphs.
 * cgraph reports through agerr(), which prints to stderr unless a handler is
 * set with agseterrf(); the handler receives the message in fragments.  We
 * collect them into one line for pyprof_error, in a buffer the lock
 * guards. */
#if defined(HAVE_PTHREAD)
static pthread_mutex_t gv_lock = PTHREAD_MUTEX_INITIALIZER;
#endif
static char gv_msg[PYPROF_ERROR_MESSAGE_MAX];
static size_t gv_msglen;

static int
gv_collect(char *frag)
{
    for (const char *s = frag; *s && gv_msglen + 1 < sizeof gv_msg; s++) {
        char c = (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s;
        if (c == ' ' && (gv_msglen == 0 || gv_msg[gv_msglen - 1] == ' '))
            continue;
        gv_msg[gv_msglen++] = c;
    }
    gv_msg[gv_msglen] = '\0';
    return 0;
}

int
pyprof__dot_gv_enter(pyprof_error *err)
{
    int rc = pyprof__gv_load(err);
    if (rc < 0)
        return rc;
#if defined(HAVE_PTHREAD)
    pthread_mutex_lock(&gv_lock);
#endif
    gv_msglen = 0;
    gv_msg[0] = '\0';
    pyprof__gv.agseterr(AGERR); /* warnings stay quiet; errors come to gv_collect */
    pyprof__gv.agseterrf(gv_collect);
    return 0;
}

void
pyprof__dot_gv_leave(void)
{
    pyprof__gv.agseterrf(NULL);
    pyprof__gv.agseterr(AGWARN);
#if defined(HAVE_PTHREAD)
    pthread_mutex_unlock(&gv_lock);
#endif
}

int
pyprof__dot_gv_fail(pyprof_error *err, const char *what)
{
    while (gv_msglen && gv_msg[gv_msglen - 1] == ' ')
        gv_msg[--gv_msglen] = '\0';
    return pyprof_error_set(err, PYPROF_EIO, NULL, NULL, -1, 0, "graphviz: %s%s%s", what,
                            gv_msglen ? ": " : "", gv_msg);
}

/* ---- agwrite into a pyprof_output ------------------------------------------------ */

static int
io_putstr(void *chan, const char *s)
{
    pyprof_output_puts(chan, s);
    return 0;
}

static int
io_flush(void *chan)
{
    (void)chan;
    return 0;
}

/* ---- building the cgraph graph ------------------------------------------------------ */

typedef struct attrs {
    Agsym_t *n_color, *n_fontcolor, *n_fontsize, *n_label, *n_tooltip;
    Agsym_t *e_arrowsize, *e_color, *e_fontcolor, *e_fontsize, *e_label, *e_labeldistance,
        *e_penwidth;
} attrs;

#define S(x) ((char *)(x)) /* cgraph's char * parameters are never written to */

static void
declare(Agraph_t *G, const dot_theme *t, attrs *a)
{
    /* the graph-wide settings of gprof2dot's DotWriter.graph() */
    pyprof__gv.agattr(G, AGRAPH, S("tooltip"), S(" "));
    pyprof__gv.agattr(G, AGRAPH, S("fontname"), S("Arial"));
    pyprof__gv.agattr(G, AGRAPH, S("nodesep"), S("0.125"));
    pyprof__gv.agattr(G, AGRAPH, S("ranksep"), S("0.25"));
    pyprof__gv.agattr(G, AGNODE, S("fontcolor"), S(t->fontcolor));
    pyprof__gv.agattr(G, AGNODE, S("fontname"), S("Arial"));
    pyprof__gv.agattr(G, AGNODE, S("height"), S("0"));
    pyprof__gv.agattr(G, AGNODE, S("shape"), S("box"));
    pyprof__gv.agattr(G, AGNODE, S("style"), S(t->nodestyle));
    pyprof__gv.agattr(G, AGNODE, S("width"), S("0"));
    pyprof__gv.agattr(G, AGEDGE, S("fontname"), S("Arial"));
    /* per-object attributes; "\N" (the node name) is Graphviz's own label
     * default, and an empty default would blank unset labels */
    a->n_color = pyprof__gv.agattr(G, AGNODE, S("color"), S(""));
    a->n_fontcolor = pyprof__gv.agattr(G, AGNODE, S("fontcolor"), S(t->fontcolor));
    a->n_fontsize = pyprof__gv.agattr(G, AGNODE, S("fontsize"), S(""));
    a->n_label = pyprof__gv.agattr(G, AGNODE, S("label"), S("\\N"));
    a->n_tooltip = pyprof__gv.agattr(G, AGNODE, S("tooltip"), S(""));
    a->e_arrowsize = pyprof__gv.agattr(G, AGEDGE, S("arrowsize"), S(""));
    a->e_color = pyprof__gv.agattr(G, AGEDGE, S("color"), S(""));
    a->e_fontcolor = pyprof__gv.agattr(G, AGEDGE, S("fontcolor"), S(""));
    a->e_fontsize = pyprof__gv.agattr(G, AGEDGE, S("fontsize"), S(""));
    a->e_label = pyprof__gv.agattr(G, AGEDGE, S("label"), S(""));
    a->e_labeldistance = pyprof__gv.agattr(G, AGEDGE, S("labeldistance"), S(""));
    a->e_penwidth = pyprof__gv.agattr(G, AGEDGE, S("penwidth"), S(""));
}

/* "%u×" as gprof2dot's times(): Python's %u truncates a float */
static void
put_times(dot_buf *b, double x)
{
    /* out-of-range doubles would make the cast undefined */
    long long n = isfinite(x) && fabs(x) < 9e18 ? (long long)x : 0;
    pyprof__dot_buf_printf(b, "%lld\xc3\x97", n);
}

static void
node_label(dot_buf *b, const dot_graph *g, const dot_fn *fn, const pyprof_dot_options *o)
{
    dot_buf name = {0};
    const char *module = pyprof__dot_function_module(g->p, fn->func);
    if (module) {
        pyprof__dot_buf_escaped(b, module, strlen(module));
        pyprof__dot_buf_puts(b, "\\n");
    }
    pyprof__dot_function_name(&name, g->p, fn->func, o->strip, o->wrap);
    if (name.rc)
        b->rc = name.rc;
    pyprof__dot_buf_escaped(b, name.s ? name.s : "", name.len);
    pyprof__free(name.s);

    static const pyprof_dot_measure defaults[] = {PYPROF_DOT_TOTAL_TIME_PERCENTAGE,
                                                  PYPROF_DOT_SELF_TIME_PERCENTAGE, 0};
    const pyprof_dot_measure *m = o->node_labels[0] ? o->node_labels : defaults;
    for (size_t i = 0; i < PYPROF_DOT_MAX_MEASURES && m[i]; i++) {
        switch (m[i]) {
        case PYPROF_DOT_TOTAL_TIME_PERCENTAGE:
            if (fn->has_total_ratio)
                pyprof__dot_buf_printf(b, "\\n%.2f%%", fn->total_ratio * 100.0);
            break;
        case PYPROF_DOT_SELF_TIME_PERCENTAGE:
            if (fn->has_time_ratio)
                pyprof__dot_buf_printf(b, "\\n(%.2f%%)", fn->time_ratio * 100.0);
            break;
        case PYPROF_DOT_TOTAL_TIME:
            if (fn->has_total)
                pyprof__dot_buf_printf(b, "\\n%.7g", fn->total);
            break;
        case PYPROF_DOT_SELF_TIME:
            if (fn->has_time)
                pyprof__dot_buf_printf(b, "\\n(%.7g)", fn->time);
            break;
        }
    }
    if (o->show_samples && fn->has_samples) {
        pyprof__dot_buf_puts(b, "\\n");
        put_times(b, fn->samples);
    }
    if (fn->has_called) {
        pyprof__dot_buf_puts(b, "\\n");
        put_times(b, fn->called);
    }
}

static void
edge_label(dot_buf *b, const dot_call *c)
{
    if (c->has_total_ratio)
        pyprof__dot_buf_printf(b, "%.2f%%", c->total_ratio * 100.0);
    if (c->has_calls) {
        if (c->has_total_ratio)
            pyprof__dot_buf_puts(b, "\\n");
        put_times(b, c->calls);
    }
}

static int
set(void *obj, Agsym_t *sym, const char *value)
{
    return pyprof__gv.agxset(obj, sym, S(value));
}

static int
build_cgraph(Agraph_t *G, const dot_graph *g, const pyprof_dot_options *o, const dot_theme *t)
{
    attrs a;
    dot_buf b = {0};
    char num[64], color[8], bg[8];
    Agnode_t **node = pyprof__calloc(g->nfns ? g->nfns : 1, sizeof *node);
    if (!node)
        return PYPROF_ENOMEM;
    declare(G, t, &a);
    pyprof__dot_bgcolor(t, bg);

    /* nodes first, in id order, so that agwrite lists them in that order */
    for (size_t d = 0; d < g->nfns; d++) {
        const dot_fn *fn = &g->fns[d];
        if (!fn->alive)
            continue;
        snprintf(num, sizeof num, "%zu", d);
        node[d] = pyprof__gv.agnode(G, num, 1);
        if (!node[d])
            goto fail;
        double w = fn->has_weight ? fn->weight : 0.0;
        pyprof__dot_buf_reset(&b);
        node_label(&b, g, fn, o);
        if (b.rc)
            goto fail;
        set(node[d], a.n_label, b.s);
        pyprof__dot_color(t, w, color);
        set(node[d], a.n_color, color);
        /* filled boxes write in the background colour, outlines in their own */
        set(node[d], a.n_fontcolor, strcmp(t->nodestyle, "filled") == 0 ? bg : color);
        pyprof__snprintf_c(num, sizeof num, "%.2f", pyprof__dot_fontsize(t, w));
        set(node[d], a.n_fontsize, num);
        /* the tooltip is the file; frames from stacks have none of their own */
        const pyprof_func *f = pyprof_profile_func(g->p, fn->func);
        if (!(f->flags & PYPROF_FUNC_FRAME_MASK)) {
            pyprof__dot_buf_reset(&b);
            const char *file = pyprof_profile_string(g->p, f->file);
            pyprof__dot_buf_escaped(&b, file, strlen(file));
            if (b.rc)
                goto fail;
            set(node[d], a.n_tooltip, b.s);
        }
    }
    for (size_t d = 0; d < g->nfns; d++) {
        const dot_fn *fn = &g->fns[d];
        if (!fn->alive)
            continue;
        for (size_t k = fn->first_call; k < fn->first_call + fn->ncalls; k++) {
            const dot_call *c = &g->calls[k];
            const dot_fn *callee = &g->fns[c->callee];
            if (!c->alive || !callee->alive)
                continue;
            Agedge_t *e = pyprof__gv.agedge(G, node[d], node[c->callee], NULL, 1);
            if (!e)
                goto fail;
            double w = c->has_weight ? c->weight : callee->has_weight ? callee->weight : 0.0;
            pyprof__dot_buf_reset(&b);
            edge_label(&b, c);
            if (b.rc)
                goto fail;
            set(e, a.e_label, b.s ? b.s : "");
            pyprof__dot_color(t, w, color);
            set(e, a.e_color, color);
            set(e, a.e_fontcolor, color);
            pyprof__snprintf_c(num, sizeof num, "%.2f", pyprof__dot_fontsize(t, w));
            set(e, a.e_fontsize, num);
            double pen = pyprof__dot_penwidth(t, w);
            pyprof__snprintf_c(num, sizeof num, "%.2f", pen);
            set(e, a.e_penwidth, num);
            set(e, a.e_labeldistance, num);
            pyprof__snprintf_c(num, sizeof num, "%.2f", 0.5 * sqrt(pen));
            set(e, a.e_arrowsize, num);
        }
    }
    pyprof__free(node);
    pyprof__free(b.s);
    return 0;
fail:
    pyprof__free(node);
    pyprof__free(b.s);
    return PYPROF_ENOMEM;
}

/* ---- output ------------------------------------------------------------------------------- */

static bool
is_image_type(const char *type)
{
    return strcmp(type, "png") == 0 || strcmp(type, "svg") == 0 || strcmp(type, "pdf") == 0;
}

/* One Graphviz context for the process, made on first use and kept.
 * Graphviz's text measuring (its pango plugin, Debian's 2.42) keeps in a
 * static a pointer to the last font name it measured, a name owned by the
 * context's font table: after gvFreeContext() the next context's first
 * label compares against freed memory (ASan: heap-use-after-free under
 * textspan_size), so a host program's second image was undefined
 * behaviour.  A context that lives as long as that static does not have
 * the problem, and loads the plugins only once.  (Called with the
 * Graphviz lock held: see pyprof__dot_gv_enter.) */
static GVC_t *
gv_context(void)
{
    static GVC_t *gvc;
    if (!gvc)
        gvc = pyprof__gv.gvContext();
    return gvc;
}

int
pyprof__dot_emit(Agraph_t *G, const pyprof_dot_options *o, pyprof_output *out, pyprof_error *err)
{
    const char *type = o->type ? o->type : "dot";
    int rc = 0;
    if (strcmp(type, "dot") == 0) {
        if (pyprof__gv.agwrite(G, out) != 0)
            return pyprof__dot_gv_fail(err, "cannot write the graph");
        return pyprof_output_status(out, err);
    }
    GVC_t *gvc = gv_context();
    if (!gvc)
        return pyprof__dot_gv_fail(err, "cannot create a Graphviz context");
    const char *engine = o->engine ? o->engine : "dot";
    if (pyprof__gv.gvLayout(gvc, G, engine) != 0)
        return pyprof__dot_gv_fail(err, "layout failed (is the engine name right?)");
    char *data = NULL;
    unsigned int len = 0;
    if (pyprof__gv.gvRenderData(gvc, G, type, &data, &len) != 0 || !data) {
        rc = pyprof__dot_gv_fail(err, "rendering failed");
    } else {
        pyprof_output_write(out, data, len);
        rc = pyprof_output_status(out, err);
    }
    if (data)
        pyprof__gv.gvFreeRenderData(data);
    pyprof__gv.gvFreeLayout(gvc, G);
    return rc;
}

int
pyprof__dot_check_options(const pyprof_dot_options *o, pyprof_error *err)
{
    if (!o || o->version != PYPROF_DOT_OPTIONS_VERSION)
        return pyprof_error_set(
            err, PYPROF_EINVAL, NULL, NULL, -1, 0,
            "dot options: unknown version (start from PYPROF_DOT_OPTIONS_INIT)");
    if ((unsigned)o->colormap > PYPROF_DOT_PRINT)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "unknown colormap");
    if (!(o->skew > 0.0))
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "skew must be greater than 0");
    if (o->type && strcmp(o->type, "dot") != 0 && !is_image_type(o->type))
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "unknown output type '%s' (dot, png, svg or pdf)", o->type);
    for (size_t i = 0; i < PYPROF_DOT_MAX_MEASURES && o->node_labels[i]; i++)
        if ((unsigned)o->node_labels[i] > PYPROF_DOT_SELF_TIME)
            return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                    "unknown node label measure");
    return 0;
}

Agraph_t *
pyprof__dot_open(void)
{
    static Agiodisc_t io;
    static Agdisc_t disc;
    io.afread = pyprof__gv.AgIoDisc->afread;
    io.putstr = io_putstr;
    io.flush = io_flush;
    disc.mem = pyprof__gv.AgMemDisc;
    disc.id = pyprof__gv.AgIdDisc;
    disc.io = &io;
    return pyprof__gv.agopen(NULL, *pyprof__gv.Agdirected, &disc);
}

int
pyprof_dot_render(pyprof_profile *p, const pyprof_dot_options *opts, pyprof_output *out,
                  pyprof_error *err)
{
    pyprof_dot_options defaults = PYPROF_DOT_OPTIONS_INIT;
    const pyprof_dot_options *o = opts ? opts : &defaults;
    dot_graph g;
    dot_theme t;
    int rc;
    if ((rc = pyprof__dot_check_options(o, err)) < 0)
        return rc;
    if ((rc = pyprof__dot_graph_build(&g, p, o, true, err)) < 0)
        return rc;
    if ((rc = pyprof__dot_graph_prune(&g, o, err)) < 0)
        goto out;
    pyprof__dot_theme(&t, o->colormap, o->skew);

    if ((rc = pyprof__dot_gv_enter(err)) < 0)
        goto out;
    Agraph_t *G = pyprof__dot_open();
    if (!G) {
        rc = pyprof__dot_gv_fail(err, "cannot create a graph");
    } else if ((rc = build_cgraph(G, &g, o, &t)) < 0) {
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory building the Graphviz graph");
    } else {
        rc = pyprof__dot_emit(G, o, out, err);
    }
    if (G)
        pyprof__gv.agclose(G);
    pyprof__dot_gv_leave();
out:
    pyprof__dot_graph_free(&g);
    return rc;
}

int
pyprof_dot_colormap_parse(const char *name)
{
    static const char *const names[] = {"color", "pink", "gray", "bw", "print"};
    for (int i = 0; i < 5; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int
pyprof_dot_measure_parse(const char *name)
{
    static const char *const names[] = {"total-time-percentage", "self-time-percentage",
                                        "total-time", "self-time"};
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i + 1;
    return 0;
}
