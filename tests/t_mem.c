/*
 * t_mem.c - the memory plot's layout, checked numerically, and the peak
 * computation.
 *
 * The expected view limits and ticks are matplotlib's own: they were read
 * from the axes of `mprof plot` (memory_profiler 0.61, matplotlib 3.6.3,
 * Agg) on the same files, by running mprof's plot_file / flame_plotter and
 * printing ax.get_xlim(), get_ylim() and the ticks inside them.
 */
#include "config.h"

#include <time.h>

#include "pyprof_int.h"
#include "render/mem_plot.h"
#include "tap.h"

static pyprof_profile *
load(const char *path)
{
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_profile_load(&p, path, NULL, &err) < 0)
        tap_diag("load %s: %s", path, err.message);
    return p;
}

static pyprof__mem_layout *
layout(const pyprof_profile *p, int flame, int slope, double w0, double w1)
{
    pyprof_mem_plot_options o = PYPROF_MEM_PLOT_OPTIONS_INIT;
    o.flame = flame;
    o.slope = slope;
    if (w1 > w0) {
        o.window = 1;
        o.window_start = w0;
        o.window_end = w1;
    }
    pyprof__mem_layout *l = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof__mem_layout_build(&l, p, &o, &err) < 0)
        tap_diag("layout: %s", err.message);
    return l;
}

static int
same_ticks(const double *got, size_t n, const double *want, size_t m)
{
    if (n != m)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(got[i] - want[i]) > 1e-9 * (1 + fabs(want[i])))
            return 0;
    return 1;
}

/* One reference case: the view and ticks matplotlib chose. */
typedef struct ref {
    const char *what;
    int flame, slope;
    double w0, w1;
    double lim[4];
    double xt[12];
    size_t nxt;
    double yt[12];
    size_t nyt;
} ref;

static void
check_ref(const pyprof_profile *p, const ref *r)
{
    pyprof__mem_layout *l = layout(p, r->flame, r->slope, r->w0, r->w1);
    if (!TAP_OK(l != NULL, "%s: layout builds", r->what))
        return;
    double eps = 1e-9 * (r->lim[1] - r->lim[0]), epsy = 1e-9 * (r->lim[3] - r->lim[2]);
    TAP_IS_DBL(l->xmin, r->lim[0], eps, "x view starts where matplotlib's does");
    TAP_IS_DBL(l->xmax, r->lim[1], eps, "x view ends where matplotlib's does");
    if (!isnan(r->lim[2])) {
        TAP_IS_DBL(l->ymin, r->lim[2], epsy, "y view starts where matplotlib's does");
        TAP_IS_DBL(l->ymax, r->lim[3], epsy, "y view ends where matplotlib's does");
    }
    if (!TAP_OK(same_ticks(l->xticks, l->nxticks, r->xt, r->nxt), "%s: x ticks", r->what))
        for (size_t i = 0; i < l->nxticks; i++)
            tap_diag("  x tick %g", l->xticks[i]);
    if (!isnan(r->lim[2]) &&
        !TAP_OK(same_ticks(l->yticks, l->nyticks, r->yt, r->nyt), "%s: y ticks", r->what))
        for (size_t i = 0; i < l->nyticks; i++)
            tap_diag("  y tick %g", l->yticks[i]);
    pyprof__mem_layout_free(l);
}

static const char *
golden(const char *name)
{
    static char path[4096];
    const char *top = getenv("top_srcdir");
    snprintf(path, sizeof path, "%s/tests/golden/mem/%s", top ? top : ".", name);
    return path;
}

/* Parse "v v v" into `out`; returns the count. */
static size_t
parse_list(char *s, double *out, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(s, " \n"); tok && n < max; tok = strtok(NULL, " \n"))
        out[n++] = strtod(tok, NULL);
    return n;
}

/* Every plot of tests/golden/mem/axes.txt (matplotlib's axes for the
 * fixtures, written by gen.sh through mpl_axes.py). */
static void
test_golden_axes(void)
{
    FILE *f = fopen(golden("axes.txt"), "r");
    if (!TAP_OK(f != NULL, "golden axes.txt present"))
        return;
    char line[4096];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        char file[256], mode[32];
        ref r = {0};
        int used = 0;
        if (sscanf(line, "%255s %31s %lf %lf %lf %lf |%n", file, mode, &r.lim[0], &r.lim[1],
                   &r.lim[2], &r.lim[3], &used) != 6)
            continue;
        char *xs = line + used, *bar = strchr(xs, '|');
        if (!bar)
            continue;
        *bar = '\0';
        r.nxt = parse_list(xs, r.xt, 12);
        r.nyt = parse_list(bar + 1, r.yt, 12);
        r.flame = strcmp(mode, "flame") == 0;
        r.slope = strcmp(mode, "slope") == 0;
        if (strcmp(mode, "window") == 0) {
            r.w0 = 0.5;
            r.w1 = 1.5;
        }
        char rel[300], what[300];
        snprintf(rel, sizeof rel, "mprofile/%s", file);
        snprintf(what, sizeof what, "%s %s", file, mode);
        r.what = what;
        pyprof_profile *p = load(tap_fixture(rel));
        if (!TAP_OK(p != NULL, "%s loads", file))
            continue;
        if (r.flame && pyprof_profile_mem_series_count(p) > 1) {
            /* mprof --flame draws children on the stack-level axes, off
             * scale; we draw them on the memory axes, so only x compares */
            r.lim[2] = NAN;
        }
        check_ref(p, &r);
        pyprof_profile_free(p);
        cases++;
    }
    fclose(f);
    TAP_OK(cases >= 12, "%d plots compared with matplotlib", cases);
}

static void
test_fixture_layouts(void)
{
    pyprof_profile *p = load(tap_fixture("mprofile/run_python.dat"));
    if (!TAP_OK(p != NULL, "run_python.dat loads"))
        return;
    /* the curve: MEM samples merged with FUNC entry/exit points, by time */
    pyprof__mem_layout *l = layout(p, 0, 0, 0, 0);
    size_t ns = pyprof_profile_mem_sample_count(p), nb = pyprof_profile_mem_bracket_count(p);
    TAP_IS_INT(l->ncurves, 1, "one file, no children: one curve");
    TAP_IS_INT(l->curves[0].n, ns + 2 * nb, "curve = MEM samples + 2 points per FUNC");
    int sorted = 1;
    for (size_t i = 1; i < l->curves[0].n; i++)
        sorted &= l->curves[0].x[i - 1] <= l->curves[0].x[i];
    TAP_OK(sorted && l->curves[0].x[0] == 0, "curve sorted by time, starting at 0");
    TAP_OK(l->curves[0].markers, "few points: '+' markers drawn");
    TAP_IS_INT(l->nbrackets, nb, "one bracket pair per FUNC line");
    /* brackets: '[' opens at the entry point and reaches right, ']' left */
    const pyprof_mem_bracket *b0 = pyprof_profile_mem_bracket(p, l->brackets[0].index);
    double start = l->curves[0].start;
    TAP_IS_DBL(l->brackets[0].x[0][1], b0->t0 - start, 1e-9, "'[' spine at the entry time");
    TAP_IS_DBL(l->brackets[0].x[1][1], b0->t1 - start, 1e-9, "']' spine at the exit time");
    TAP_OK(l->brackets[0].x[0][0] > l->brackets[0].x[0][1] &&
               l->brackets[0].x[1][0] < l->brackets[0].x[1][1],
           "'[' opens right, ']' opens left");
    TAP_IS_DBL(l->brackets[0].y[0][0] - l->brackets[0].y[0][2],
               2 * (l->brackets[0].y[0][0] - b0->m0), 1e-9, "bracket centred on its memory");
    /* mprof's order: functions by first appearance, executions in file order */
    TAP_IS_STR(pyprof_profile_string(p, b0->name), "__main__.inner", "first bracket: inner");
    TAP_OK(strncmp(l->brackets[0].label, "inner ", 6) == 0, "label: shortest suffix + duration");
    TAP_OK(l->peak, "single file: the peak is marked");
    double maxy = -1e300;
    for (size_t i = 0; i < l->curves[0].n; i++)
        maxy = fmax(maxy, l->curves[0].y[i]);
    TAP_IS_DBL(l->peak_y, maxy, 0, "peak = maximum of the merged curve");
    pyprof__mem_layout_free(l);

    l = layout(p, 1, 0, 0, 0);
    TAP_IS_INT(l->nboxes, nb, "flame: one box per execution");
    TAP_IS_INT(l->levels, 2, "flame: inner calls are level 1, so 2 levels");
    TAP_IS_INT(l->nbrackets, 0, "flame: no brackets");
    pyprof__mem_layout_free(l);

    l = layout(p, 0, 0, 0.5, 1.5);
    int inside = 1;
    for (size_t i = 0; i < l->curves[0].n; i++)
        inside &= l->curves[0].x[i] >= 0.5 && l->curves[0].x[i] <= 1.5;
    TAP_OK(inside && l->curves[0].n > 0, "window: the curve is clipped to it");
    const pyprof__mem_curve *wc = &l->curves[0];
    double last = wc->x[wc->n - 1];
    TAP_OK(wc->cut[0] && wc->x[0] == 0.5 && (wc->cut[1] ? last == 1.5 : last < 1.5),
           "window: cut exactly at its edges, the cut points marked as not data");
    pyprof__mem_layout_free(l);
    pyprof_profile_free(p);
}

static void
test_children(void)
{
    char name[100] = "missing", rel[128];
    FILE *f = fopen(golden("names.txt"), "r");
    if (f) {
        if (fscanf(f, "%99s", name) != 1)
            strcpy(name, "missing");
        fclose(f);
    }
    snprintf(rel, sizeof rel, "mprofile/%s", name);
    pyprof_profile *p = load(tap_fixture(rel));
    if (!TAP_OK(p != NULL, "CHLD fixture loads"))
        return;
    pyprof__mem_layout *l = layout(p, 0, 0, 0, 0);
    TAP_IS_INT(l->ncurves, 2, "main and one child curve");
    TAP_IS_INT(l->curves[1].kind, PYPROF__MEM_CURVE_CHILD, "second curve is the child");
    char lab[64];
    snprintf(lab, sizeof lab, "child %lld",
             (long long)pyprof_profile_mem_series(p, l->curves[1].series)->child);
    TAP_IS_STR(l->curves[1].label, lab, "child label as mprof's");
    TAP_OK(l->child_peak, "child peak marked");
    pyprof__mem_layout_free(l);

    pyprof_mem_plot_options o = PYPROF_MEM_PLOT_OPTIONS_INIT;
    o.include_children = 1;
    pyprof__mem_layout_build(&l, p, &o, NULL);
    TAP_IS_INT(l->ncurves, 3, "--include-children adds the summed curve");
    TAP_IS_INT(l->curves[2].kind, PYPROF__MEM_CURVE_SUM, "third curve is the sum");
    int ge = 1;
    for (size_t i = 0; i < l->curves[2].n; i++)
        ge &= l->curves[2].y[i] >= l->curves[0].y[i];
    TAP_OK(ge, "sum >= main everywhere");
    TAP_OK(l->peak_vline[1] >= l->peak_y, "the peak line reaches the summed peak");
    pyprof__mem_layout_free(l);
    pyprof_profile_free(p);
}

static void
test_corpus(void)
{
    const char *corpus = getenv("PYPROF_CORPUS");
    char path[4096];
    snprintf(path, sizeof path, "%s/mprofile/mprof_python_func/mprofile_20261122091701.dat",
             corpus ? corpus : "/nonexistent");
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("ok %d # SKIP corpus absent\n", ++tap_count);
        return;
    }
    fclose(f);
    pyprof_profile *p = load(path);
    static const ref refs[] = {
        {"corpus python_func",
         0,
         0,
         0,
         0,
         {-0.3048385108947754, 3.218538614654541, -15.18892011, 166.06782611},
         {0, 0.5, 1, 1.5, 2, 2.5, 3},
         7,
         {0, 25, 50, 75, 100, 125, 150},
         7},
        {"corpus python_func flame",
         1,
         0,
         0,
         0,
         {-0.3048385108947754, 3.218538614654541, -6.9509771, 157.8298831},
         {0, 0.5, 1, 1.5, 2, 2.5, 3},
         7,
         {0, 20, 40, 60, 80, 100, 120, 140},
         8},
    };
    for (size_t i = 0; i < 2; i++)
        check_ref(p, &refs[i]);
    pyprof_profile_free(p);

    snprintf(path, sizeof path, "%s/mprofile/mprof_multiprocess/mprofile_20261122091713.dat",
             corpus);
    p = load(path);
    static const ref mp[] = {
        {"corpus multiprocess",
         0,
         0,
         0,
         0,
         {-0.33840486401557923, 2.3971049487018585, -10.044349495, 116.563880495},
         {0, 0.5, 1, 1.5, 2},
         5,
         {0, 20, 40, 60, 80, 100},
         6},
        {"corpus multiprocess slope",
         0,
         1,
         0,
         0,
         {-0.33840486401557923, 2.3971049487018585, -11.370263877233533, 130.51755089850528},
         {0, 0.5, 1, 1.5, 2},
         5,
         {0, 20, 40, 60, 80, 100, 120},
         7},
    };
    for (size_t i = 0; i < 2; i++)
        check_ref(p, &mp[i]);
    pyprof__mem_layout *l = layout(p, 0, 1, 0, 0);
    /* mprof's legend: "... slope 4.65557", "child 31216 slope 22.30492" */
    TAP_OK(strstr(l->curves[0].label, " slope 4.65557") != NULL, "main slope as mprof's");
    TAP_IS_STR(l->curves[1].label, "child 31216 slope 22.30492", "child slope as mprof's");
    pyprof__mem_layout_free(l);
    pyprof_profile_free(p);
}

static void
test_ticks(void)
{
    /* values from matplotlib.ticker.MaxNLocator(nbins=9, steps=[1, 2, 2.5, 5, 10]) */
    double t[32];
    size_t n = pyprof__mem_ticks(-15.18892011, 166.06782611, 9, t, 32);
    static const double a[] = {0, 25, 50, 75, 100, 125, 150};
    TAP_OK(same_ticks(t, n, a, 7), "steps of 2.5 x 10");
    n = pyprof__mem_ticks(1e9, 1e9 + 7, 9, t, 32);
    static const double b[] = {1e9, 1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4, 1e9 + 5, 1e9 + 6, 1e9 + 7};
    TAP_OK(same_ticks(t, n, b, 8), "an offset keeps steps on the significant digits");
    n = pyprof__mem_ticks(0.5, 1.5, 9, t, 32);
    char lab[32][32];
    pyprof__mem_tick_labels(t, n, lab);
    TAP_IS_STR(lab[0], "0.6", "labels get the decimals the step needs");
    n = pyprof__mem_ticks(-2, 2, 9, t, 32);
    pyprof__mem_tick_labels(t, n, lab);
    TAP_IS_STR(lab[0],
               "\xe2\x88\x92"
               "2.0",
               "negative labels use U+2212 as matplotlib");
    TAP_IS_INT(pyprof__mem_ticks(1, 1, 9, t, 32), 0, "an empty range has no ticks");
}

/* A synthetic million-sample profile: decimation keeps every extreme. */
static void
test_decimation(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id s;
    pyprof_profile_mem_series_add(p, &s, 0, -1, 0);
    pyprof_profile_add_source(p, "synthetic", "mprofile", -1);
    size_t n = 1000000;
    double rawmax = 0, rawmin = 1e300;
    for (size_t i = 0; i < n; i++) {
        /* a slow wave with one-sample spikes and dips far narrower than a pixel */
        double m = 100 + 10 * sin(i / 5000.0) + (i % 7919 == 0 ? 50 : 0) - (i % 6007 == 0 ? 60 : 0);
        rawmax = fmax(rawmax, m);
        rawmin = fmin(rawmin, m);
        pyprof_profile_mem_sample_add(p, s, 1.7e9 + i * 0.01, m);
    }
    clock_t c0 = clock();
    pyprof__mem_layout *l = layout(p, 0, 0, 0, 0);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    TAP_OK(l && l->curves[0].nraw == n, "all 10^6 samples are in the view");
    TAP_OK(l && l->curves[0].n <= 4 * (size_t)l->ax_w + 4, "decimated to <= 4 points per column");
    double maxy = 0, miny = 1e300;
    for (size_t i = 0; l && i < l->curves[0].n; i++) {
        maxy = fmax(maxy, l->curves[0].y[i]);
        miny = fmin(miny, l->curves[0].y[i]);
    }
    TAP_IS_DBL(maxy, rawmax, 0, "the highest one-sample spike survives decimation");
    TAP_IS_DBL(miny, rawmin, 0, "the lowest one-sample dip survives decimation");
    /* every spike, not only the highest: each column keeps its maximum */
    size_t spikes = 0;
    for (size_t i = 0; l && i < l->curves[0].n; i++)
        spikes += l->curves[0].y[i] > 125;
    TAP_OK(spikes >= n / 7919 - 2, "the other spikes survive too (%zu)", spikes);
    TAP_OK(l && !l->curves[0].markers, "dense curve: no markers");
    tap_diag("layout of 10^6 samples: %.3f s CPU", secs);
    pyprof__mem_layout_free(l);
    pyprof_profile_free(p);
}

/* A curve that is a view of the model's samples decimates to exactly the
 * doubles a copy of them does (the copy is what a curve merged with FUNC
 * points, or interleaved with CHLD samples, goes through), with and
 * without the chunk summaries that let it skip whole chunks; values with
 * many ties check that the first extremes are kept either way. */
static void
test_decimate_view(void)
{
    size_t n = 200000;
    pyprof_mem_sample *sm = calloc(n, sizeof(*sm));
    for (int ties = 0; ties < 2; ties++) {
        for (size_t i = 0; i < n; i++) {
            sm[i].t = 1795330000.0029 + i * 0.1001 + (i % 13 == 0 ? 0.05 : 0);
            sm[i].mib = 42.131925 + 5 * sin(i / 777.0) + (i % 4999 == 0 ? 30 : 0);
            if (ties)
                sm[i].mib = floor(sm[i].mib / 3) + (i % 3 == 0); /* plateaus */
        }
        const double cols[] = {756, 99.5, 1, 3000, 40000};
        for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
            pyprof__arena a = {0};
            pyprof__mem_curve view = {0}, chunked, copy;
            view.run = sm;
            view.n = view.nraw = n;
            view.start = sm[0].t;
            chunked = copy = view;
            int rc = pyprof__mem_materialize(&a, &copy);
            bool scanned = pyprof__mem_scan_run(&a, sm, n, &chunked.bounds) &&
                           chunked.bounds.chunk_lo && chunked.bounds.chunk_hi;
            double x0 = -3, x1 = sm[n - 1].t - sm[0].t + 7;
            rc |= pyprof__mem_decimate(&a, &view, x0, x1, cols[k]);
            rc |= pyprof__mem_decimate(&a, &chunked, x0, x1, cols[k]);
            rc |= pyprof__mem_decimate(&a, &copy, x0, x1, cols[k]);
            bool same = rc == 0 && view.n == copy.n && !view.run && view.x && view.y &&
                        memcmp(view.x, copy.x, view.n * sizeof(double)) == 0 &&
                        memcmp(view.y, copy.y, view.n * sizeof(double)) == 0;
            TAP_OK(same, "%g columns%s: a view decimates to the same %zu points as a copy", cols[k],
                   ties ? " (ties)" : "", view.n);
            same = scanned && chunked.n == copy.n && !chunked.run &&
                   memcmp(chunked.x, copy.x, copy.n * sizeof(double)) == 0 &&
                   memcmp(chunked.y, copy.y, copy.n * sizeof(double)) == 0;
            TAP_OK(same, "...and so does a view with chunk summaries");
            /* chunk summaries of two halves, as two reading threads leave
             * them (pyprof__mem_summary_append): a second grid from `half` */
            pyprof__mem_curve halves = view;
            halves.run = sm;
            halves.n = halves.nraw = n;
            size_t half = n / 2 + 13;
            pyprof__mem_summary s1, s2;
            pyprof__mem_summary_init(&s1, NULL, NULL, 0);
            pyprof__mem_summary_init(&s2, NULL, NULL, 0);
            rc = pyprof__mem_summary_reserve(&s1, n) | pyprof__mem_summary_reserve(&s2, n - half);
            pyprof__mem_summary_feed(&s1, sm, half / 3);
            pyprof__mem_summary_feed(&s1, sm, half);
            pyprof__mem_summary_feed(&s2, sm + half, n - half);
            pyprof__mem_summary_finish(&s1);
            pyprof__mem_summary_finish(&s2);
            pyprof__mem_summary_append(&s1, &s2, sm);
            halves.bounds =
                (pyprof__mem_bounds){true,    0,           sm[n - 1].t - sm[0].t, s1.lo,   s1.hi,
                                     s1.peak, s1.chunk_lo, s1.chunk_hi,           s1.split};
            rc |= pyprof__mem_decimate(&a, &halves, x0, x1, cols[k]);
            same = rc == 0 && s1.chunks && s1.ordered && s1.peak == chunked.bounds.peak &&
                   halves.n == copy.n && !halves.run &&
                   memcmp(halves.x, copy.x, copy.n * sizeof(double)) == 0 &&
                   memcmp(halves.y, copy.y, copy.n * sizeof(double)) == 0;
            TAP_OK(same, "...and so does one with the chunks of two halves");
            pyprof__mem_summary_free(&s1);
            pyprof__mem_summary_free(&s2);
            pyprof__arena_free(&a);
        }
    }
    /* the scan finds the bounds and the first peak, and refuses disorder */
    pyprof__arena a = {0};
    pyprof__mem_bounds b;
    TAP_OK(pyprof__mem_scan_run(&a, sm, n, &b) && b.known && b.x0 == 0 &&
               b.x1 == sm[n - 1].t - sm[0].t && b.peak < n,
           "scan: bounds of a sorted run");
    size_t first_peak = 0;
    for (size_t i = 1; i < n; i++)
        if (sm[i].mib > sm[first_peak].mib)
            first_peak = i;
    TAP_IS_INT(b.peak, first_peak, "scan: the first highest point");
    double keep = sm[n / 2].t;
    sm[n / 2].t = sm[n / 2 - 1].t - 1;
    TAP_OK(!pyprof__mem_scan_run(&a, sm, n, &b), "scan: a run out of time order is refused");
    sm[n / 2].t = keep;
    /* too few points to thin: the view is copied as it is */
    pyprof__mem_curve small = {0};
    small.run = sm;
    small.n = small.nraw = 100;
    small.start = 1;
    TAP_OK(pyprof__mem_decimate(&a, &small, 0, 1e9, 756) == 0 && !small.run && small.n == 100 &&
               small.x[99] == sm[99].t - 1 && small.y[99] == sm[99].mib,
           "a short view is copied whole");
    pyprof__arena_free(&a);
    free(sm);
}

static void
test_peak(void)
{
    pyprof_profile *p = load(tap_fixture("mprofile/run_python.dat"));
    if (!p)
        return;
    pyprof_mem_peak pk;
    pyprof_mem_peak_of(&pk, p, 0, NULL);
    double want = 0;
    FILE *f = fopen(golden("peak_run_python.txt"), "r");
    if (!f || fscanf(f, "run_python.dat %lf MiB", &want) != 1)
        want = -1;
    if (f)
        fclose(f);
    TAP_IS_DBL(pk.mib, want, 0.0005, "peak over MEM samples only, as mprof peak");
    TAP_IS_INT(pk.basis, PYPROF_MEM_PEAK_SAMPLES, "basis: samples");
    pyprof_mem_peak_of(&pk, p, 0, "__main__.blink");
    TAP_IS_INT(pk.basis, PYPROF_MEM_PEAK_BRACKETS, "too short for a sample: FUNC points instead");
    TAP_OK(!isnan(pk.mib), "...and a number, where mprof crashes");
    pyprof_mem_peak_of(&pk, p, 0, "nope");
    TAP_OK(isnan(pk.mib) && pk.basis == PYPROF_MEM_PEAK_NONE, "unknown function: NaN");
    pyprof_profile_free(p);
}

static void
test_outputs(void)
{
    pyprof_profile *p = load(tap_fixture("mprofile/run_python.dat"));
    if (!p)
        return;
    const char *types[] = {"svg", "png"};
    for (int i = 0; i < 2; i++) {
        pyprof_output *o;
        pyprof_output_open_memory(&o, NULL);
        pyprof_error err = PYPROF_ERROR_INIT;
        int rc = pyprof_mem_plot(o, p, types[i], NULL, &err);
        size_t len;
        const unsigned char *d = pyprof_output_data(o, &len);
        if (i == 0)
            TAP_OK(rc == 0 && len > 100 && memcmp(d, "<?xml", 5) == 0 &&
                       memmem(d, len, "time (in seconds)", 17),
                   "SVG written, with its axis label");
        if (i == 0)
            TAP_OK(memmem(d, len, "stroke-dasharray=\"6.94,3\"", 25) != NULL,
                   "peak lines dashed as matplotlib's \"--\" at 1.5 pt");
        else
            TAP_OK(rc == 0 && len > 100 && memcmp(d, "\x89PNG", 4) == 0, "PNG written");
        pyprof_output_abort(o);
    }
    pyprof_output *o;
    pyprof_output_open_memory(&o, NULL);
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_mem_plot(o, p, "pdf", NULL, &err), PYPROF_EINVAL, "pdf refused");
    pyprof_output_abort(o);
    pyprof_profile_free(p);
}

/* Every allocation of the layout and its scene fails in turn: each
 * attempt returns ENOMEM (and frees what it took: ASan/valgrind runs see
 * the leaks), until the build succeeds. */
static void
test_oom(void)
{
    pyprof_profile *p = load(tap_fixture("mprofile/run_python.dat"));
    if (!p)
        return;
    pyprof_mem_plot_options o = PYPROF_MEM_PLOT_OPTIONS_INIT;
    o.slope = 1;
    int ok = 1;
    long n;
    for (n = 0; n < 100000; n++) {
        pyprof__mem_layout *l = NULL;
        pyprof__alloc_fail_after(n);
        int rc = pyprof__mem_layout_build(&l, p, &o, NULL);
        pyprof__alloc_fail_after(-1);
        pyprof__mem_layout_free(l);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM || l) {
            ok = 0;
            tap_diag("allocation %ld: rc %d", n, rc);
        }
    }
    TAP_OK(ok && n > 0 && n < 100000, "layout OOM sweep: %ld failures, each ENOMEM", n);
    pyprof_profile_free(p);
}

int
main(void)
{
    setenv("TZ", "UTC", 1);
    test_ticks();
    test_golden_axes();
    test_fixture_layouts();
    test_children();
    test_corpus();
    test_peak();
    test_outputs();
    test_decimation();
    test_decimate_view();
    test_oom();
    return tap_done();
}
