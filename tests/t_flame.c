/*
 * t_flame.c - the flame graph layout, checked by numbers: frame positions,
 * widths, depths and image size as flamegraph.pl computes them (formats.md
 * §9.2-9.3, values confirmed against its output), its sorting quirk,
 * minwidth pruning, --reverse, --inverted, differential colours, default
 * colours, tooltips in the SVG, estimated stacks from a call graph, the
 * differential profile of two inputs, and PNG output.
 */
#include "config.h"

#include <limits.h>
#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif
#include <stdio.h>

#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

#include "flame_int.h"
#include "pyprof_int.h"
#include "scene.h"
#include "tap.h"

static pyprof_profile *
folded(const char *s)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "collapsed";
    pyprof_input_open_memory(&in, s, strlen(s), "test", NULL);
    pyprof_profile_read(&p, in, &ro, NULL);
    pyprof_input_close(in);
    return p;
}

static pyprof_flame *
layout(const char *s, const pyprof_flame_options *o)
{
    pyprof_profile *p = folded(s);
    pyprof_flame *f = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (!p || pyprof_flame_layout(&f, p, o, &err) < 0)
        tap_diag("layout failed: %s", err.message);
    pyprof_profile_free(p);
    return f;
}

/* The n-th frame (0-based, in x order) named `name` at `depth`. */
static const pyprof_flame_frame *
frame(const pyprof_flame *f, const char *name, unsigned depth, int n)
{
    for (size_t i = 0; f && i < pyprof_flame_frame_count(f); i++) {
        const pyprof_flame_frame *fr = pyprof_flame_frame_at(f, i);
        if (fr->depth == depth && strcmp(fr->name, name) == 0 && n-- == 0)
            return fr;
    }
    return NULL;
}

#define IS_BOX(fr, X, Y, W, name)                                                                  \
    TAP_OK((fr) && (fr)->x == (X) && (fr)->y == (Y) && (fr)->w == (W), "%s: x %g y %g w %g", name, \
           (fr) ? (fr)->x : -1, (fr) ? (fr)->y : -1, (fr) ? (fr)->w : -1)

static char *
svg_of(pyprof_flame *f)
{
    pyprof_output *o;
    pyprof_output_open_memory(&o, NULL);
    pyprof_flame_write_svg(f, o, NULL);
    size_t n;
    const unsigned char *d = pyprof_output_data(o, &n);
    char *s = malloc(n + 1);
    memcpy(s, d, n);
    s[n] = '\0';
    pyprof_output_abort(o);
    return s;
}

static void
test_simple(void)
{
    /* flamegraph.pl on these lines: 134 px high, c at x 431.4 (421.5 wide),
     * d at 852.9 (337.1), rows 16 px apart from y 85 (root) up */
    pyprof_flame *f = layout("a;b;c 1\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5\n", NULL);
    double w, h;
    pyprof_flame_size(f, &w, &h);
    TAP_IS_DBL(h, 134, 0, "height: 4 rows x 16 + 36 + 34");
    TAP_IS_INT(pyprof_flame_frame_count(f), 5, "5 frames");
    TAP_IS_DBL(pyprof_flame_total(f), 14, 0, "total 14");
    IS_BOX(frame(f, "all", 0, 0), 10, 85, 1180, "root");
    IS_BOX(frame(f, "b", 2, 0), 10, 53, 1180, "b");
    IS_BOX(frame(f, "c", 3, 0), 431.4, 37, 421.5, "c after b's own 5 samples");
    IS_BOX(frame(f, "d", 3, 0), 852.9, 37, 337.1, "d");
    const pyprof_flame_frame *c = frame(f, "c", 3, 0);
    TAP_OK(c && c->start == 5 && c->end == 10 && c->h == 15, "c spans samples 5..10, 15 px high");
    /* default colours are flamegraph.pl's deterministic ones */
    const pyprof_flame_frame *a = frame(f, "a", 1, 0), *r = frame(f, "all", 0, 0);
    TAP_OK(a && a->r == 236 && a->g == 146 && a->b == 35, "colour of a: rgb(236,146,35)");
    TAP_OK(r && r->r == 213 && r->g == 39 && r->b == 9, "colour of the root: rgb(213,39,9)");
    char *svg = svg_of(f);
    TAP_OK(strstr(svg, "<title>c (5 samples, 35.71%)</title>") != NULL, "tooltip of c");
    TAP_OK(strstr(svg, "<title>all (14 samples, 100%)</title>") != NULL, "tooltip of the root");
    TAP_OK(strstr(svg, "id=\"frames\"") && strstr(svg, "id=\"details\"") &&
               strstr(svg, "id=\"search\"") && strstr(svg, "id=\"unzoom\"") &&
               strstr(svg, "function zoom(") && strstr(svg, "onload=\"init(evt)\""),
           "SVG has the interactive elements and its script");
    free(svg);
    pyprof_flame_free(f);

    pyprof_profile *p = folded("main 1\nfoo 1\n");
    pyprof_flame_layout(&f, p, NULL, NULL);
    const pyprof_flame_frame *m = frame(f, "main", 1, 0), *o = frame(f, "foo", 1, 0);
    TAP_OK(m && m->r == 243 && m->g == 179 && m->b == 42, "colour of main: rgb(243,179,42)");
    TAP_OK(o && o->r == 220 && o->g == 71 && o->b == 17, "colour of foo: rgb(220,71,17)");
    pyprof_flame_free(f);
    pyprof_profile_free(p);
}

static void
test_sorting(void)
{
    /* flamegraph.pl sorts whole lines: "." sorts between " " and ";", so
     * foo is drawn twice, around foo.bar */
    pyprof_flame *f = layout("a;foo 1\na;foo.bar 2\na;foo;x 3\n", NULL);
    const pyprof_flame_frame *f0 = frame(f, "foo", 2, 0), *f1 = frame(f, "foo", 2, 1),
                             *fb = frame(f, "foo.bar", 2, 0);
    TAP_OK(f0 && f0->start == 0 && f0->end == 1, "first foo: samples 0..1");
    TAP_OK(fb && fb->start == 1 && fb->end == 3, "foo.bar between them: 1..3");
    TAP_OK(f1 && f1->start == 3 && f1->end == 6, "second foo: 3..6");
    pyprof_flame_free(f);

    /* siblings in the order their lines sort, however many (the layout
     * sorts a few by insertion and more by merging runs of 8) */
    for (int n = 1; n <= 100; n += n < 20 ? 1 : 27) {
        unsigned seed = (unsigned)n;
        int order[100];
        for (int i = 0; i < n; i++)
            order[i] = i;
        for (int i = n - 1; i > 0; i--) { /* a shuffle of the input lines */
            seed = seed * 1103515245u + 12345u;
            int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        char *text = malloc((size_t)n * 40 + 1), *q = text;
        for (int i = 0; i < n; i++) /* each child: a line of its own, one below it */
            q += sprintf(q, "a;c%03d 1\na;c%03d;x 1\n", order[i], order[i]);
        f = layout(text, NULL);
        int wrong = f ? 0 : 1;
        for (int i = 0; i < n && f; i++) {
            char name[8];
            snprintf(name, sizeof name, "c%03d", i);
            const pyprof_flame_frame *c = frame(f, name, 2, 0);
            wrong += !c || c->start != 2.0 * i || c->end != 2.0 * i + 2 || frame(f, name, 2, 1);
        }
        if (!TAP_OK(wrong == 0, "%d siblings given in shuffled order: drawn in sorted order", n))
            tap_diag("%d frames out of place", wrong);
        pyprof_flame_free(f);
        free(text);
    }

    /* a zero-count line erases a same-named frame that closes as it opens */
    f = layout("a;m;E;x 1 5\na;f;E;y 3 0\na;f;G 2 2\n", NULL);
    TAP_OK(frame(f, "E", 3, 0) && frame(f, "E", 3, 0)->start == 2 && !frame(f, "E", 3, 1),
           "flamegraph.pl's name;depth;end collision reproduced");
    pyprof_flame_free(f);
}

/* The default palette's colour of a name: hot, from erand48 seeded with
 * the sum of the name's code points (see flame_color.c). */
static void
hot_of(const unsigned *cps, size_t n, int rgb[3])
{
    unsigned seed = 0;
    for (size_t i = 0; i < n; i++)
        seed += cps[i];
    unsigned short x[3] = {0x330E, (unsigned short)(seed & 0xFFFF), (unsigned short)(seed >> 16)};
    double v = erand48(x);
    rgb[0] = 205 + (int)(50 * v), rgb[1] = (int)(230 * v), rgb[2] = (int)(55 * v);
}

/* Names of ASCII, of other characters, and of both, coloured by code
 * points (not by bytes: the colour of "é" is that of U+00E9). */
static void
test_name_colours(void)
{
    static const struct {
        const char *name;
        unsigned cps[8];
        size_t n;
    } cases[] = {
        {"run", {'r', 'u', 'n'}, 3},
        {"caf\xc3\xa9", {'c', 'a', 'f', 0xE9}, 4},
        {"\xe5\x8f\x96x", {0x53D6, 'x'}, 2},
        {"a\xf0\x9f\x94\xa5\x62", {'a', 0x1F525, 'b'}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[64];
        snprintf(text, sizeof text, "%s 1\n", cases[i].name);
        pyprof_flame *f = layout(text, NULL);
        const pyprof_flame_frame *fr = frame(f, cases[i].name, 1, 0);
        int want[3];
        hot_of(cases[i].cps, cases[i].n, want);
        TAP_OK(fr && fr->r == want[0] && fr->g == want[1] && fr->b == want[2],
               "colour of name %zu: rgb(%d,%d,%d) (drawn %d,%d,%d)", i, want[0], want[1], want[2],
               fr ? fr->r : -1, fr ? fr->g : -1, fr ? fr->b : -1);
        pyprof_flame_free(f);
    }
}

static void
test_options(void)
{
    pyprof_flame_options o = PYPROF_FLAME_OPTIONS_INIT;
    pyprof_flame *f = layout("a 100000\nb 1\n", NULL);
    TAP_OK(frame(f, "a", 1, 0) && !frame(f, "b", 1, 0), "minwidth 0.1 px drops b (0.012 px)");
    pyprof_flame_free(f);
    o.minwidth = 0;
    f = layout("a 100000\nb 1\n", &o);
    TAP_OK(frame(f, "b", 1, 0) != NULL, "minwidth 0 keeps b");
    pyprof_flame_free(f);
    o = (pyprof_flame_options)PYPROF_FLAME_OPTIONS_INIT;
    o.minwidth = 10;
    o.minwidth_percent = 1;
    f = layout("a 95\nb 5\n", &o);
    TAP_OK(frame(f, "a", 1, 0) && !frame(f, "b", 1, 0), "minwidth 10%% drops a 5%% frame");
    pyprof_flame_free(f);

    o = (pyprof_flame_options)PYPROF_FLAME_OPTIONS_INIT;
    o.reverse = 1;
    f = layout("a;b 3\nc;b 2\n", &o);
    const pyprof_flame_frame *b = frame(f, "b", 1, 0);
    TAP_OK(b && b->end - b->start == 5, "reverse: the leaf b becomes the root frame (5)");
    TAP_OK(frame(f, "a", 2, 0) && frame(f, "c", 2, 0), "reverse: callers above it");
    pyprof_flame_free(f);

    o = (pyprof_flame_options)PYPROF_FLAME_OPTIONS_INIT;
    o.inverted = 1;
    f = layout("a;b 1\n", &o);
    IS_BOX(frame(f, "all", 0, 0), 10, 36, 1180, "inverted: root at the top (y 36)");
    IS_BOX(frame(f, "b", 2, 0), 10, 68, 1180, "inverted: b below (y 68)");
    pyprof_flame_free(f);

    o = (pyprof_flame_options)PYPROF_FLAME_OPTIONS_INIT;
    o.width = 600;
    o.height = 20;
    o.subtitle = "sub";
    o.factor = 10;
    o.countname = "us";
    f = layout("a;b 2\n", &o);
    double w, h;
    pyprof_flame_size(f, &w, &h);
    TAP_OK(w == 600 && h == 3 * 20 + 36 + 34 + 24, "width 600, frame height 20, subtitle: %gx%g", w,
           h);
    char *svg = svg_of(f);
    TAP_OK(strstr(svg, "<title>b (20 us, 100.00%)</title>") != NULL,
           "factor and countname in tooltips");
    TAP_OK(strstr(svg, ">sub</text>") != NULL, "subtitle drawn");
    free(svg);
    pyprof_flame_free(f);

    o = (pyprof_flame_options)PYPROF_FLAME_OPTIONS_INIT;
    o.hash = 1;
    o.colors = "blue";
    f = layout("a 1\n", &o);
    const pyprof_flame_frame *a = frame(f, "a", 1, 0);
    /* namehash("a") = 1 - (97 % 10) / 9 / 2 = 0.6111..: blue = 80+36, 80+36, 205+30 */
    TAP_OK(a && a->r == 116 && a->g == 116 && a->b == 235,
           "--hash --colors blue: rgb(116,116,235)");
    pyprof_flame_free(f);
}

static void
test_differential(void)
{
    pyprof_flame *f = layout("a;b 1 3\na;c 4 2\na;d 0 1\n", NULL);
    const pyprof_flame_frame *b = frame(f, "b", 2, 0), *c = frame(f, "c", 2, 0),
                             *a = frame(f, "a", 1, 0), *d = frame(f, "d", 2, 0);
    TAP_OK(b && b->end - b->start == 3, "differential widths use the second count");
    TAP_OK(b && b->r == 255 && b->g == 0 && b->b == 0, "grew by the most: rgb(255,0,0)");
    TAP_OK(c && c->r == 0 && c->g == 0 && c->b == 255, "shrank by the most: rgb(0,0,255)");
    TAP_OK(d && d->r == 255 && d->g == 105 && d->b == 105, "new frame (+1 of 2): rgb(255,105,105)");
    TAP_OK(a && a->r == 255 && a->g == 255 && a->b == 255, "non-leaf frame: white");
    char *svg = svg_of(f);
    TAP_OK(strstr(svg, "<title>b (3 samples, 50.00%; +33.33%)</title>") != NULL,
           "differential tooltip");
    free(svg);
    pyprof_flame_free(f);

    pyprof_flame_options o = PYPROF_FLAME_OPTIONS_INIT;
    o.negate = 1;
    f = layout("a;b 1 3\na;c 4 2\n", &o);
    b = frame(f, "b", 2, 0);
    TAP_OK(b && b->r == 0 && b->b == 255, "--negate: growth is blue");
    pyprof_flame_free(f);

    /* --diff: the difference of two profiles, as difffolded.pl */
    pyprof_profile *x = folded("a;b 1\na;c 4\na;gone 3\n"), *y = folded("a;b 3\na;c 2\na;new 2\n"),
                   *d2;
    TAP_OK(pyprof_profile_diff_stacks(&d2, x, y, 0, NULL) == 0, "diff_stacks");
    pyprof_flame_layout(&f, d2, NULL, NULL);
    const pyprof_flame_frame *nw = frame(f, "new", 2, 0);
    TAP_OK(nw && nw->r == 255 && nw->g == 70 && nw->b == 70,
           "a frame new in AFTER is red (+2 of at most 3)");
    TAP_OK(frame(f, "b", 2, 0) && frame(f, "b", 2, 0)->g == 70, "b grew 1 -> 3: red");
    TAP_OK(!frame(f, "gone", 2, 0), "a vanished frame has no width in AFTER");
    pyprof_flame_free(f);
    o = (pyprof_flame_options)PYPROF_FLAME_OPTIONS_INIT;
    o.diff_vanished = 1;
    pyprof_flame_layout(&f, d2, &o, NULL);
    const pyprof_flame_frame *gone = frame(f, "gone", 2, 0);
    TAP_OK(gone && gone->end - gone->start == 3 && gone->r == 0 && gone->b == 255,
           "diff_vanished: the vanished frame is drawn, blue, 3 wide");
    TAP_OK(frame(f, "c", 2, 0) && frame(f, "c", 2, 0)->end - frame(f, "c", 2, 0)->start == 4,
           "diff_vanished: c keeps its larger BEFORE width");
    pyprof_flame_free(f);
    pyprof_profile_free(d2);
    TAP_OK(pyprof_profile_diff_stacks(&d2, x, y, 1, NULL) == 0, "diff_stacks normalized");
    pyprof_id a2 = PYPROF_NONE;
    for (size_t i = 0; i < pyprof_profile_stack_count(d2); i++)
        if (pyprof_profile_stack_node(d2, (pyprof_id)i)->parent != PYPROF_NONE &&
            pyprof_profile_stack_node(d2, (pyprof_id)i)->self[0] > 0)
            a2 = (pyprof_id)i; /* last: a;c */
    TAP_IS_DBL(a2 == PYPROF_NONE ? -1 : pyprof_profile_stack_node(d2, a2)->self[0], 2, 0,
               "-n: before scaled by 7/8 and truncated: int(3 * 0.875) = 2");
    pyprof_profile_free(d2);
    pyprof_profile_free(x);
    pyprof_profile_free(y);
}

static void
test_estimate(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id fl, nm, ln, main_f, f1, g1, e;
    pyprof_profile_intern(p, &fl, "app.py", 6);
    pyprof_profile_intern(p, &nm, "main", 4);
    pyprof_profile_intern(p, &ln, "f", 1);
    pyprof_profile_func_intern(p, &main_f, fl, 1, nm, 0, NULL);
    pyprof_profile_func_intern(p, &f1, fl, 5, ln, 0, NULL);
    pyprof_profile_intern(p, &ln, "g", 1);
    pyprof_profile_func_intern(p, &g1, fl, 9, ln, 0, NULL);
    pyprof_profile_func_mut(p, main_f)->counts = (pyprof_counts){1, 1, 2, 10};
    pyprof_profile_func_mut(p, f1)->counts = (pyprof_counts){2, 2, 6, 8};
    pyprof_profile_func_mut(p, g1)->counts = (pyprof_counts){1, 1, 2, 2};
    pyprof_profile_edge_intern(p, &e, main_f, f1, NULL);
    pyprof_profile_edge_mut(p, e)->counts = (pyprof_counts){2, 2, 6, 8};
    pyprof_profile_edge_intern(p, &e, f1, g1, NULL);
    pyprof_profile_edge_mut(p, e)->counts = (pyprof_counts){1, 1, 2, 2};
    TAP_OK(pyprof_profile_estimate_stacks(p, 0, NULL) == 0, "estimate stacks from a call graph");
    TAP_IS_STR(pyprof_profile_meta_get(p, "stacks_estimated"), "1", "marked as estimated");
    pyprof_flame *f;
    TAP_OK(pyprof_flame_layout(&f, p, NULL, NULL) == 0, "layout of the estimate");
    TAP_IS_DBL(pyprof_flame_total(f), 10e6, 1e-3, "total: main's 10 s in microseconds");
    const pyprof_flame_frame *ff = frame(f, "f (app.py:5)", 2, 0);
    TAP_OK(ff && ff->end - ff->start > 8e6 - 1 && ff->end - ff->start < 8e6 + 1,
           "f under main: 8 s");
    TAP_OK(frame(f, "g (app.py:9)", 3, 0) != NULL, "g under f");
    char *svg = svg_of(f);
    TAP_OK(strstr(svg, "Flame Graph (estimated)") && strstr(svg, "NOTES: stacks estimated"),
           "title and notes say the stacks are estimated");
    free(svg);
    pyprof_flame_free(f);
    pyprof_profile_free(p);
}

static void
test_png(void)
{
    pyprof_flame *f = layout("a;b;c 1\na;b;d 4\n", NULL);
    pyprof_output *o;
    pyprof_output_open_memory(&o, NULL);
    int rc = pyprof_flame_write_png(f, o, NULL);
    size_t n;
    const unsigned char *d = pyprof_output_data(o, &n);
    TAP_OK(rc == 0 && n > 100 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0, "PNG written");
    pyprof_output_abort(o);
    pyprof_flame_free(f);

    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_OK(pyprof_flame_layout(&f, p, NULL, &err) == PYPROF_ECAPS, "no stacks: ECAPS");
    pyprof_profile_free(p);
}

/* A stack 100,000 frames deep closes all its frames at one instant, and
 * each open level is one item of the walk: both once cost the depth
 * squared (a million frames took hours).  Here: every frame, its width. */
static void
test_deep(void)
{
    enum { DEPTH = 100000 };
    tap_buf b = {0};
    char name[32];
    for (int i = 0; i < DEPTH; i++) {
        snprintf(name, sizeof name, "%sf%d", i ? ";" : "", i);
        tap_buf_puts(&b, name);
    }
    tap_buf_puts(&b, " 3\nf0;f1 2\n");
    pyprof_flame *f = layout(b.s, NULL);
    free(b.s);
    size_t n = f ? pyprof_flame_frame_count(f) : 0;
    TAP_IS_INT(n, DEPTH + 1, "a stack 100,000 frames deep: its frames and the root");
    /* frames come sorted by depth: frame i is f(i - 1), as wide as the
     * stacks through it (5 for f0 and f1, then 3) */
    size_t bad = n == DEPTH + 1 ? 0 : 1;
    for (size_t i = 1; !bad && i < n; i++) {
        const pyprof_flame_frame *fr = pyprof_flame_frame_at(f, i);
        snprintf(name, sizeof name, "f%zu", i - 1);
        if (fr->depth != i || strcmp(fr->name, name) != 0 ||
            fr->end - fr->start != (i <= 2 ? 5 : 3))
            bad = i;
    }
    TAP_OK(!bad, "each frame at its depth with its width (first wrong: %zu)", bad);
    pyprof_flame_free(f);

    /* every frame with self time, as in a deep speedscope trace: a line per
     * frame, each one frame deeper than the one before (comparing each line
     * with the open frames from the top made this cost the depth squared) */
    pyprof_profile *p = NULL;
    pyprof_id fn[50], node = PYPROF_NONE;
    bool built = pyprof_profile_new(&p) == 0;
    for (int i = 0; built && i < 50; i++) {
        pyprof_id s;
        snprintf(name, sizeof name, "g%d", i);
        built = pyprof_profile_intern(p, &s, name, strlen(name)) == 0 &&
                pyprof_profile_func_intern(p, &fn[i], 0, 0, s, PYPROF_FUNC_FRAME_NAME, NULL) == 0;
    }
    for (int d = 0; built && d < DEPTH; d++) {
        built = pyprof_profile_stack_child(p, &node, node, fn[d % 50]) == 0;
        if (built)
            pyprof_profile_stack_node_mut(p, node)->self[0] = 1;
    }
    pyprof_flame_options o = PYPROF_FLAME_OPTIONS_INIT;
    o.minwidth = 0; /* draw them all */
    f = NULL;
    TAP_OK(built && pyprof_flame_layout(&f, p, &o, NULL) == 0,
           "a stack 100,000 frames deep, each with self time: laid out");
    n = f ? pyprof_flame_frame_count(f) : 0;
    bad = n == DEPTH + 1 ? 0 : 1;
    for (size_t i = 1; !bad && i < n; i++) { /* frame i spans samples i - 1 .. DEPTH */
        const pyprof_flame_frame *fr = pyprof_flame_frame_at(f, i);
        snprintf(name, sizeof name, "g%zu", (i - 1) % 50);
        if (fr->depth != i || strcmp(fr->name, name) != 0 || fr->start != (double)(i - 1) ||
            fr->end != DEPTH)
            bad = i;
    }
    TAP_OK(!bad, "each of its %zu frames from its own sample to the end (first wrong: %zu)", n,
           bad);
    pyprof_flame_free(f);
    pyprof_profile_free(p);
}

/* The scene the backends draw, item by item: one group per frame holding
 * the tooltip, the rectangle and the fitted label at flamegraph.pl's
 * positions (label at x1 + 3, y = 3 + (y1 + y2) / 2). */
static void
test_scene(void)
{
    pyprof_flame *f = layout("a;b;c 1\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5\n", NULL);
    pyprof__scene *s;
    TAP_OK(pyprof__flame_scene(f, true, &s) == 0, "scene built");
    size_t rects = 0, groups = 0;
    const pyprof__item *rc = NULL, *lc = NULL, *title = NULL, *details = NULL;
    for (size_t i = 0; i < pyprof__scene_item_count(s); i++) {
        const pyprof__item *it = pyprof__scene_item(s, i);
        if (it->kind == PYPROF__ITEM_GROUP_BEGIN && it->text) {
            groups++;
            if (strcmp(it->text, "c (5 samples, 35.71%)") == 0) {
                rc = pyprof__scene_item(s, i + 1);
                lc = pyprof__scene_item(s, i + 2);
            }
        }
        if (it->kind == PYPROF__ITEM_RECT)
            rects++;
        if (it->kind == PYPROF__ITEM_TEXT && it->id && strcmp(it->id, "title") == 0)
            title = it;
        if (it->kind == PYPROF__ITEM_TEXT && it->id && strcmp(it->id, "details") == 0)
            details = it;
    }
    TAP_IS_INT(rects, 5, "scene: one rectangle per frame");
    TAP_IS_INT(groups, 5, "scene: one group with a tooltip per frame");
    TAP_OK(rc && rc->kind == PYPROF__ITEM_RECT && rc->x == 431.4 && rc->y == 37 && rc->w == 421.5 &&
               rc->h == 15 && rc->rx == 2 && rc->fill.r == 224 && rc->fill.g == 87 &&
               rc->fill.b == 20,
           "scene: c's rectangle, rgb(224,87,20), as flamegraph.pl draws it");
    TAP_OK(lc && lc->kind == PYPROF__ITEM_TEXT && fabs(lc->x - 434.4) < 1e-9 && lc->y == 47.5 &&
               strcmp(lc->text, "c") == 0 && lc->font_size == 12,
           "scene: c's label at (434.4, 47.5)");
    TAP_OK(title && title->x == 600 && title->y == 24 && title->font_size == 17 &&
               title->anchor == PYPROF__ANCHOR_MIDDLE && strcmp(title->text, "Flame Graph") == 0,
           "scene: title centred at (600, 24), size 17");
    TAP_OK(details && details->x == 10 && details->y == 134 - 17, "scene: details line at y 117");
    pyprof__scene_free(s);
    TAP_OK(pyprof__flame_scene(f, false, &s) == 0, "static scene built");
    bool any_search = false;
    for (size_t i = 0; i < pyprof__scene_item_count(s); i++) {
        const pyprof__item *it = pyprof__scene_item(s, i);
        if (it->kind == PYPROF__ITEM_TEXT && it->id && strcmp(it->id, "search") == 0)
            any_search = true;
    }
    TAP_OK(!any_search && !pyprof__scene_script(s), "PNG scene: no script, no search button");
    pyprof__scene_free(s);
    /* a label that does not fit: 12 px per 0.59 * 12 = 7.08 px character */
    pyprof_flame_options o = PYPROF_FLAME_OPTIONS_INIT;
    o.width = 120;
    f = (pyprof_flame_free(f), layout("abcdefghijklmnopqrstuvwxyz 1\n", &o));
    pyprof__flame_scene(f, false, &s);
    const pyprof__item *lab = NULL;
    for (size_t i = 0; i < pyprof__scene_item_count(s); i++) {
        const pyprof__item *it = pyprof__scene_item(s, i);
        if (it->kind == PYPROF__ITEM_TEXT && !it->id && it->text[0] == 'a' && it->text[1] == 'b')
            lab = it;
    }
    /* 100 px / 7.08 = 14 characters: 12 and ".." */
    TAP_IS_STR(lab ? lab->text : NULL, "abcdefghijkl..", "scene: label truncated with '..'");
    pyprof__scene_free(s);
    pyprof_flame_free(f);
}

/* n stacks "root;<prefix>NNN" with weights that keep every frame wide */
static char *
wide_text(const char *prefix, int n)
{
    size_t cap = (size_t)n * 40 + 1, len = 0;
    char *s = malloc(cap);
    for (int i = 0; s && i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "root;%s%03d;leaf%d %d\n", prefix,
                                (i * 7919) % n, i % 5, 100 + i);
    return s;
}

#if defined(HAVE_PTHREAD)
/* Layouts of distinct profiles on two threads at once (profile.h allows
 * it): each must come out as it does alone.  The layout once sorted a
 * level's children through a file-scope pointer to its key text, which
 * the other thread's layout moved under it. */
struct lay_job {
    const char *text;
    const pyprof_flame *want;
    int bad;
};

static int
same_frames(const pyprof_flame *a, const pyprof_flame *b)
{
    if (!a || !b || pyprof_flame_frame_count(a) != pyprof_flame_frame_count(b))
        return 0;
    for (size_t i = 0; i < pyprof_flame_frame_count(a); i++) {
        const pyprof_flame_frame *x = pyprof_flame_frame_at(a, i), *y = pyprof_flame_frame_at(b, i);
        if (strcmp(x->name, y->name) || x->x != y->x || x->w != y->w || x->depth != y->depth)
            return 0;
    }
    return 1;
}

static void *
lay_many(void *arg)
{
    struct lay_job *j = arg;
    pyprof_profile *p = folded(j->text);
    for (int k = 0; k < 300; k++) {
        pyprof_flame *f = NULL;
        if (pyprof_flame_layout(&f, p, NULL, NULL) < 0 || !same_frames(f, j->want))
            j->bad++;
        pyprof_flame_free(f);
    }
    pyprof_profile_free(p);
    return NULL;
}

static void
test_threads(void)
{
    char *ta = wide_text("alpha_", 300), *tb = wide_text("b", 250);
    struct lay_job a = {ta, layout(ta, NULL), 0}, b = {tb, layout(tb, NULL), 0};
    pthread_t t1, t2;
    int started = pthread_create(&t1, NULL, lay_many, &a) == 0;
    started &= pthread_create(&t2, NULL, lay_many, &b) == 0;
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    TAP_OK(started && a.want && b.want && a.bad == 0 && b.bad == 0,
           "two threads, 600 layouts of two profiles: each as laid out alone (%d, %d differ)",
           a.bad, b.bad);
    pyprof_flame_free((pyprof_flame *)a.want);
    pyprof_flame_free((pyprof_flame *)b.want);
    free(ta);
    free(tb);
}
#endif

/* A graph of 2,048 frames or more is written on two threads (chunks of its
 * frames made apart, then put in place in order): the same bytes as the
 * scene of the whole graph written in one go. */
static void
test_svg_halves(void)
{
    char *t = wide_text("f", 1500);
    pyprof_flame *f = layout(t, NULL);
    char *two = f ? svg_of(f) : NULL;
    pyprof__scene *s = NULL;
    pyprof_output *o;
    pyprof_output_open_memory(&o, NULL);
    int rc = f ? pyprof__flame_scene(f, true, &s) : -1;
    if (rc == 0)
        rc = pyprof__scene_write_svg(s, o, NULL);
    size_t n = 0, groups = 0;
    const unsigned char *one = pyprof_output_data(o, &n);
    for (const char *q = two; q && (q = strstr(q, "<g><title>")) != NULL; q++)
        groups++;
    TAP_OK(f && pyprof_flame_frame_count(f) >= 2500 && groups == pyprof_flame_frame_count(f),
           "a graph of %zu frames: a group with a tooltip each (%zu)",
           f ? pyprof_flame_frame_count(f) : 0, groups);
    TAP_OK(rc == 0 && two && strlen(two) == n && memcmp(two, one, n) == 0,
           "...written in two halves: the bytes of its whole scene (%zu bytes)", n);
    pyprof_output_abort(o);
    pyprof__scene_free(s);
    pyprof_flame_free(f);
    free(two);
    free(t);
}

/* Out of memory at any allocation while a big graph is written on two
 * threads (a chunk's piece, its growth, the output's): an error, or else
 * the bytes of the whole scene; never a short or garbled document. */
static void
test_svg_chunks_oom(void)
{
    char *t = wide_text("f", 1500);
    pyprof_flame *f = layout(t, NULL);
    char *want = f ? svg_of(f) : NULL;
    pyprof__alloc_fail_after(LONG_MAX); /* counts, fails none */
    free(f ? svg_of(f) : NULL);
    long allocs = pyprof__alloc_fail_after(-1);
    int failed = 0, right = 0, wrong = 0;
    for (long k = 0; want && k < allocs + 2; k++) {
        pyprof_output *o;
        if (pyprof_output_open_memory(&o, NULL) < 0)
            break;
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof__alloc_fail_after(k);
        int rc = pyprof_flame_write_svg(f, o, &err);
        pyprof__alloc_fail_after(-1);
        size_t n;
        const unsigned char *d = pyprof_output_data(o, &n);
        if (rc < 0)
            failed += err.message[0] != '\0';
        else if (n == strlen(want) && memcmp(d, want, n) == 0)
            right++;
        else
            wrong++;
        pyprof_output_abort(o);
    }
    TAP_OK(want && allocs > 5 && wrong == 0 && failed > 0 && right > 0 &&
               failed + right == allocs + 2,
           "a failed allocation at each of %ld: %d errors with a message, %d whole documents, %d "
           "wrong",
           allocs, failed, right, wrong);
    pyprof_flame_free(f);
    free(want);
    free(t);
}

int
main(void)
{
    test_simple();
    test_sorting();
    test_options();
    test_name_colours();
    test_differential();
    test_estimate();
    test_png();
    test_scene();
    test_svg_halves();
    test_svg_chunks_oom();
#if defined(HAVE_PTHREAD)
    test_threads();
#endif
    test_deep();
    return tap_done();
}
