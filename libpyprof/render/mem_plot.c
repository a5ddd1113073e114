/*
 * mem_plot.c - data-space layout of a memory plot, as `mprof plot` draws it
 * (../shared/docs/formats.md section 7.3; memory_profiler 0.61 mprof.py with
 * matplotlib 3.6).
 *
 * What mprof draws, per file: the MEM samples merged with every FUNC entry
 * and exit point, sorted by time, x = seconds from the first point; one line
 * per child; brackets '[' and ']' per FUNC execution (one file only); the
 * peak as a dashed cross.  The view limits are matplotlib's autoscaling
 * (data limits plus 5% margins), recomputed each time mprof asks for them
 * while adding artists: the peak lines span the limits of the moment, which
 * widens the final view, and each bracket's size is 1/20 of the y range and
 * 1/60 of the x range when it is added.  Replaying that sequence gives the
 * same axes as the reference images.
 *
 * Differences on purpose: several files still get their peak marked only
 * when there is one (as mprof); in --flame mode children are drawn on the
 * memory axes (mprof puts them on the stack-level axes, off scale) and the
 * horizontal peak line is drawn on the memory axes too; FUNC lines without
 * a level count as level 0 (mprof --flame fails on them).
 *
 * Large inputs: a curve with more points than two per pixel column is
 * decimated to the first, lowest, highest and last point of each column, in
 * time order; this draws exactly the same pixels as the full line, so peaks
 * never disappear, and keeps the scene small for 10^6 samples.
 */
#include "config.h"

#include <math.h>
#include <time.h>

#include "pyprof_int.h"

#include "mem_plot.h"

/* matplotlib's single-letter colours, in mprof's cycles. */
static const pyprof__rgba LINE_COLORS[] = {
    {0, 0, 0, 255},     /* k */
    {0, 0, 255, 255},   /* b */
    {255, 0, 0, 255},   /* r */
    {0, 128, 0, 255},   /* g */
    {0, 191, 191, 255}, /* c */
    {191, 191, 0, 255}, /* y */
    {191, 0, 191, 255}, /* m */
};
static const pyprof__rgba FUNC_COLORS[] = {
    {0, 191, 191, 255}, /* c */
    {191, 191, 0, 255}, /* y */
    {0, 128, 0, 255},   /* g */
    {255, 0, 0, 255},   /* r */
    {0, 0, 255, 255},   /* b */
};
#define NLINE_COLORS (sizeof(LINE_COLORS) / sizeof(LINE_COLORS[0]))
#define NFUNC_COLORS (sizeof(FUNC_COLORS) / sizeof(FUNC_COLORS[0]))

/* matplotlib: axes.xmargin = axes.ymargin = 0.05 */
#define MARGIN 0.05

/* Data limits and the view they give, as matplotlib's autoscale_view. */
typedef struct limits {
    double x0, x1, y0, y1;
    bool empty;
    bool xfixed; /* --window */
    double fx0, fx1;
} limits;

static void
lim_add(limits *d, double x, double y)
{
    if (d->empty) {
        d->x0 = d->x1 = x;
        d->y0 = d->y1 = y;
        d->empty = false;
        return;
    }
    /* plain comparisons: this runs once per point of 10^6-sample curves */
    d->x0 = x < d->x0 ? x : d->x0;
    d->x1 = x > d->x1 ? x : d->x1;
    d->y0 = y < d->y0 ? y : d->y0;
    d->y1 = y > d->y1 ? y : d->y1;
}

/* mtransforms.nonsingular(expander=0.05) followed by the margins. */
static void
view_of(double a, double b, double *v0, double *v1)
{
    if (!(b - a > 0)) {
        if (a == 0 && b == 0) {
            a = -0.05;
            b = 0.05;
        } else {
            a -= 0.05 * fabs(a);
            b += 0.05 * fabs(b);
        }
    }
    double d = (b - a) * MARGIN;
    *v0 = a - d;
    *v1 = b + d;
}

static void
xview(const limits *d, double *v0, double *v1)
{
    if (d->xfixed) {
        *v0 = d->fx0;
        *v1 = d->fx1;
    } else {
        view_of(d->x0, d->x1, v0, v1);
    }
}

static void
yview(const limits *d, double *v0, double *v1)
{
    view_of(d->y0, d->y1, v0, v1);
}

/* ---- curves ---------------------------------------------------------------------- */

static char *arena_printf(pyprof__arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static char *
arena_printf(pyprof__arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    int n = pyprof__vsnprintf_c(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    char *s = pyprof__arena_alloc(a, (size_t)n + 1);
    if (s) {
        memcpy(s, buf, (size_t)n);
        s[n] = '\0';
    }
    return s;
}

/* mprof's label: local date and time of the first point, milliseconds
 * rounded half to even as Python's round(). */
static char *
start_label(pyprof__arena *a, double start)
{
    time_t sec = (time_t)floor(start);
    struct tm tm;
    char buf[64];
    if (!localtime_r(&sec, &tm) ||
        strftime(buf, sizeof buf, "%d / %m / %Y - start at %H:%M:%S", &tm) == 0)
        buf[0] = '\0';
    double frac = start - floor(start);
    int ms = (int)nearbyint(frac * 1000);
    return arena_printf(a, "%s.%03d", buf, ms);
}

static pyprof__mem_curve *
new_curve(pyprof__mem_layout *l, size_t *cap)
{
    if (PYPROF_GROW(l->curves, *cap, l->ncurves + 1) < 0)
        return NULL;
    pyprof__mem_curve *c = &l->curves[l->ncurves++];
    memset(c, 0, sizeof(*c));
    return c;
}

/* Widen the data limits by a curve's points (adding its corners gives the
 * same limits as adding every point); returns the index of its first
 * highest point. */
static size_t
add_curve_limits(limits *d, const pyprof__mem_curve *c)
{
    size_t peak = 0;
    if (c->n > 0) {
        double x0, x1, y0, y1;
        peak = pyprof__mem_extent(c, &x0, &x1, &y0, &y1);
        lim_add(d, x0, y0);
        lim_add(d, x1, y1);
    }
    if (c->trend && c->n > 0) {
        lim_add(d, c->x[0], c->slope * c->x[0] + c->intercept);
        lim_add(d, c->x[c->n - 1], c->slope * c->x[c->n - 1] + c->intercept);
    }
    return peak;
}

/* ---- the layout ------------------------------------------------------------------- */

double
pyprof__mem_px(const pyprof__mem_layout *l, double x)
{
    return l->ax_x + (x - l->xmin) / (l->xmax - l->xmin) * l->ax_w;
}

double
pyprof__mem_py(const pyprof__mem_layout *l, double y)
{
    return l->ax_y + l->ax_h - (y - l->ymin) / (l->ymax - l->ymin) * l->ax_h;
}

void
pyprof__mem_layout_free(pyprof__mem_layout *l)
{
    if (!l)
        return;
    pyprof__scene_free(l->scene);
    pyprof__free(l->curves);
    pyprof__free(l->brackets);
    pyprof__free(l->boxes);
    pyprof__arena_free(&l->arena);
    pyprof__free(l);
}

/* HSV with value 1, as mprof's flame colours: hue 0 or 0.1, saturation s. */
static pyprof__rgba
flame_color(double hue, double sat)
{
    /* hue in [0, 1/6): r = 1, g rises with hue, b = 1 - s */
    double r = 1, b = 1 - sat, g = 1 - sat * (1 - hue * 6);
    return (pyprof__rgba){(uint8_t)lround(r * 255), (uint8_t)lround(g * 255),
                          (uint8_t)lround(b * 255), 128};
}

static int
build(pyprof__mem_layout *l, const pyprof_profile *p, const pyprof_mem_plot_options *o,
      pyprof_error *err)
{
    int rc = 0;
    size_t curves_cap = 0, brackets_cap = 0, boxes_cap = 0;
    size_t nseries = pyprof_profile_mem_series_count(p);
    pyprof_id *names = NULL;
    size_t *order = NULL, nnames = 0, norder = 0;
    const pyprof__mem_curve **kids = NULL;

    /* the main series with something to draw, one per file */
    size_t nfiles = 0;
    pyprof_id only_main = PYPROF_NONE;
    size_t nsamples = pyprof_profile_mem_sample_count(p), nbr = pyprof_profile_mem_bracket_count(p);
    for (pyprof_id s = 0; s < nseries; s++) {
        if (pyprof_profile_mem_series(p, s)->child != -1)
            continue;
        bool any = false;
        const pyprof_mem_sample *sm = nsamples ? pyprof_profile_mem_sample(p, 0) : NULL;
        for (size_t i = 0; i < nsamples && !any; i++)
            any = sm[i].series == s;
        for (size_t i = 0; i < nbr && !any; i++)
            any = pyprof_profile_mem_bracket(p, i)->series == s;
        if (any) {
            nfiles++;
            only_main = s;
        }
    }
    if (nfiles == 0) {
        rc = pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                              "no memory usage values in the profile (no MEM or FUNC line)");
        goto out;
    }
    bool single = nfiles == 1;
    bool funcs = single && !o->no_functions;

    limits d = {0};
    d.empty = true;
    if (o->window) {
        d.xfixed = true;
        d.fx0 = o->window_start;
        d.fx1 = o->window_end;
    }
    double bottom = 0, top = 0;
    size_t file_index = 0;
    kids = pyprof__calloc(nseries ? nseries : 1, sizeof(*kids));
    if (!kids) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (pyprof_id s = 0; s < nseries; s++) {
        const pyprof_mem_series *ms = pyprof_profile_mem_series(p, s);
        if (ms->child != -1)
            continue;
        double *vx, *vy;
        const pyprof_mem_sample *run;
        pyprof__mem_bounds bounds;
        size_t n;
        if ((rc = pyprof__mem_series_points(l, p, s, true, &vx, &vy, &run, &bounds, &n)) < 0)
            goto out;
        if (n == 0)
            continue;
        double start = run ? run[0].t : vx[0];
        pyprof__mem_curve *c = new_curve(l, &curves_cap);
        if (!c) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        if ((rc = pyprof__mem_set_points(l, c, vx, vy, run, n, start, o->slope)) < 0)
            goto out;
        c->bounds = bounds;
        c->kind = PYPROF__MEM_CURVE_MAIN;
        c->series = s;
        c->color = LINE_COLORS[file_index % NLINE_COLORS];
        c->markers = !o->flame;
        c->label = start_label(&l->arena, start);
        if (c->trend)
            c->label = arena_printf(&l->arena, "%s slope %.5f", c->label, c->slope);
        if (!c->label) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        size_t main_idx = l->ncurves - 1;
        size_t main_peak = add_curve_limits(&d, c);
        /* mprof reads ylim right after the main line of each file */
        yview(&d, &bottom, &top);
        bottom += 0.001;
        top -= 0.001;
        if (single) {
            /* peak of the merged curve: the first maximum */
            const pyprof__mem_curve *mc = &l->curves[main_idx];
            l->peak_x = pyprof__mem_cx(mc, main_peak);
            l->peak_y = pyprof__mem_cy(mc, main_peak);
        }

        /* children of this file */
        size_t nkids = 0;
        bool have_cpeak = false;
        double cpx = 0, cpy = 0;
        for (pyprof_id cs = 0; cs < nseries && !o->no_children; cs++) {
            const pyprof_mem_series *cms = pyprof_profile_mem_series(p, cs);
            if (cms->child == -1 || cms->source != ms->source)
                continue;
            double *cx, *cy;
            size_t cn;
            if ((rc = pyprof__mem_series_points(l, p, cs, false, &cx, &cy, NULL, NULL, &cn)) < 0)
                goto out;
            if (cn == 0)
                continue;
            pyprof__mem_curve *cc = new_curve(l, &curves_cap);
            if (!cc) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            if ((rc = pyprof__mem_set_points(l, cc, cx, cy, NULL, cn, start, o->slope)) < 0)
                goto out;
            cc->kind = PYPROF__MEM_CURVE_CHILD;
            cc->series = cs;
            cc->color = LINE_COLORS[(nkids + 1) % NLINE_COLORS];
            cc->markers = true;
            cc->label = cc->trend ? arena_printf(&l->arena, "child %lld slope %.5f",
                                                 (long long)cms->child, cc->slope)
                                  : arena_printf(&l->arena, "child %lld", (long long)cms->child);
            if (!cc->label) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            /* mprof: cmpoint starts at (0, 0) and takes a child's maximum
             * only when it is larger */
            size_t im = add_curve_limits(&d, cc);
            if (cc->y[im] > cpy) {
                cpx = cc->x[im];
                cpy = cc->y[im];
            }
            have_cpeak = true;
            nkids++;
        }
        if (nkids > 0 && o->include_children) {
            size_t k = l->ncurves - main_idx - 1;
            pyprof__mem_curve *sc = new_curve(l, &curves_cap);
            if (!sc) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            for (size_t i = 0; i < k; i++) /* after new_curve: the array may have moved */
                kids[i] = &l->curves[main_idx + 1 + i];
            if ((rc = pyprof__mem_materialize(&l->arena, &l->curves[main_idx])) < 0)
                goto out;
            if ((rc = pyprof__mem_sum_curve(l, sc, &l->curves[main_idx], kids, k)) < 0)
                goto out;
            sc->kind = PYPROF__MEM_CURVE_SUM;
            sc->series = s;
            sc->start = start;
            sc->color = LINE_COLORS[(nkids + 1) % NLINE_COLORS];
            sc->markers = !o->flame;
            sc->label = "main + children";
            if (o->slope) {
                sc->trend = true;
                pyprof__mem_fit_line(sc->x, sc->y, sc->n, &sc->slope, &sc->intercept);
                sc->label = arena_printf(&l->arena, "main + children slope %.5f", sc->slope);
                if (!sc->label) {
                    rc = PYPROF_ENOMEM;
                    goto out;
                }
            }
            add_curve_limits(&d, sc);
            /* the sum stands for the main line mprof run -C would have
             * recorded: the peak's vertical line spans its range */
            yview(&d, &bottom, &top);
            bottom += 0.001;
            top -= 0.001;
            if (single) {
                for (size_t i = 0; i < sc->n; i++)
                    if (sc->y[i] > l->peak_y) {
                        l->peak_x = sc->x[i];
                        l->peak_y = sc->y[i];
                    }
            }
        }
        if (have_cpeak) {
            double v0, v1;
            l->child_peak = true;
            l->child_peak_x = cpx;
            l->child_peak_y = cpy;
            yview(&d, &v0, &v1);
            l->cpeak_vline[0] = v0 + 0.001;
            l->cpeak_vline[1] = v1 - 0.001;
            lim_add(&d, cpx, v0 + 0.001);
            lim_add(&d, cpx, v1 - 0.001);
            xview(&d, &v0, &v1);
            l->cpeak_hline[0] = v0 + 0.001;
            l->cpeak_hline[1] = v1 - 0.001;
            if (!d.xfixed) {
                lim_add(&d, v0 + 0.001, cpy);
                lim_add(&d, v1 - 0.001, cpy);
            }
        }

        /* brackets (or flame boxes) */
        if (funcs) {
            if ((rc = pyprof__mem_function_order(p, s, &names, &nnames, &order, &norder)) < 0)
                goto out;
            int maxlevel = 0;
            for (size_t i = 0; i < norder; i++) {
                int lv = pyprof_profile_mem_bracket(p, order[i])->level;
                if (lv > maxlevel)
                    maxlevel = lv;
            }
            l->levels = norder ? maxlevel + 1 : 0;
            size_t *cycle = pyprof__calloc((size_t)l->levels + 1, sizeof(size_t));
            if (!cycle) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            for (size_t i = 0; i < norder; i++) {
                const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, order[i]);
                size_t f = 0;
                while (names[f] != b->name)
                    f++;
                double x0 = b->t0 - start, x1 = b->t1 - start;
                if (o->flame) {
                    if (PYPROF_GROW(l->boxes, boxes_cap, l->nboxes + 1) < 0) {
                        pyprof__free(cycle);
                        rc = PYPROF_ENOMEM;
                        goto out;
                    }
                    int lv = b->level < 0 ? 0 : b->level;
                    double sat = 1 - 0.75 * lv / l->levels;
                    l->boxes[l->nboxes++] = (pyprof__mem_box){
                        order[i], x0, x1, lv, flame_color(cycle[lv]++ % 2 ? 0.1 : 0.0, sat)};
                    continue;
                }
                double v0, v1, w0, w1;
                yview(&d, &v0, &v1);
                xview(&d, &w0, &w1);
                double vs = (v1 - v0) / 20, hs = (w1 - w0) / 60;
                if (PYPROF_GROW(l->brackets, brackets_cap, l->nbrackets + 1) < 0) {
                    pyprof__free(cycle);
                    rc = PYPROF_ENOMEM;
                    goto out;
                }
                pyprof__mem_bracket *br = &l->brackets[l->nbrackets++];
                memset(br, 0, sizeof(*br));
                br->index = order[i];
                br->color = FUNC_COLORS[f % NFUNC_COLORS];
                const char *lab = pyprof__mem_short_label(p, names, nnames, f);
                br->label = arena_printf(&l->arena, "%s%s %.3fs", lab[0] == '_' ? " " : "", lab,
                                         b->t1 - b->t0);
                if (!br->label) {
                    pyprof__free(cycle);
                    rc = PYPROF_ENOMEM;
                    goto out;
                }
                const double bx[4] = {hs, 0, 0, hs}, by[4] = {vs, vs, -vs, -vs};
                for (int e = 0; e < 2; e++) {
                    double x = e ? x1 : x0, m = e ? b->m1 : b->m0;
                    if (o->window && !(o->window_start <= x && x <= o->window_end))
                        continue;
                    br->drawn[e] = true;
                    for (int q = 0; q < 4; q++) {
                        br->x[e][q] = (e ? -bx[q] : bx[q]) + x;
                        br->y[e][q] = by[q] + m;
                        lim_add(&d, br->x[e][q], br->y[e][q]);
                    }
                }
            }
            pyprof__free(cycle);
        }
        if (single) {
            double v0, v1;
            xview(&d, &v0, &v1);
            l->peak_hline[0] = v0 + 0.001;
            l->peak_hline[1] = v1 - 0.001;
            if (!d.xfixed) {
                lim_add(&d, v0 + 0.001, l->peak_y);
                lim_add(&d, v1 - 0.001, l->peak_y);
            }
            l->peak_vline[0] = bottom;
            l->peak_vline[1] = top;
            /* flame: both peak lines sit on the memory axes and only the
             * horizontal one widens the view, as mprof's (drawn on its twin
             * axes) does */
            if (!o->flame) {
                lim_add(&d, l->peak_x, bottom);
                lim_add(&d, l->peak_x, top);
            }
            l->peak = true;
        }
        file_index++;
    }
    (void)only_main;

    xview(&d, &l->xmin, &l->xmax);
    yview(&d, &l->ymin, &l->ymax);
    if (!(l->xmax > l->xmin) || !(l->ymax > l->ymin)) {
        rc = pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "the window %g,%g is empty",
                              o->window_start, o->window_end);
        goto out;
    }

    /* clip to a window, then thin what is left to the pixels it covers */
    for (size_t i = 0; i < l->ncurves; i++) {
        pyprof__mem_curve *c = &l->curves[i];
        if (o->window && ((rc = pyprof__mem_materialize(&l->arena, c)) < 0 ||
                          (rc = pyprof__mem_clip(&l->arena, c, l->xmin, l->xmax)) < 0))
            goto out;
        if ((rc = pyprof__mem_decimate(&l->arena, c, l->xmin, l->xmax, l->ax_w)) < 0)
            goto out;
        /* '+' markers only while they stay apart (mprof draws them all,
         * which turns a long run into a black band) */
        if (c->markers && c->nraw > (size_t)(l->ax_w / 4))
            c->markers = false;
    }

    /* ticks: matplotlib fits at most one label per 3 font sizes on x and
     * per 2 on y (10 pt labels), and never more than 9 intervals */
    double pt_per_px = 72.0 / PYPROF__MEM_DPI;
    int xb = (int)floor(l->ax_w * pt_per_px / 30), yb = (int)floor(l->ax_h * pt_per_px / 20);
    xb = xb < 1 ? 1 : xb > 9 ? 9 : xb;
    yb = yb < 1 ? 1 : yb > 9 ? 9 : yb;
    l->nxticks = pyprof__mem_ticks(l->xmin, l->xmax, xb, l->xticks, PYPROF__MEM_MAXTICKS);
    l->nyticks = pyprof__mem_ticks(l->ymin, l->ymax, yb, l->yticks, PYPROF__MEM_MAXTICKS);
    pyprof__mem_tick_labels(l->xticks, l->nxticks, l->xlabels);
    pyprof__mem_tick_labels(l->yticks, l->nyticks, l->ylabels);

    if (o->title)
        l->title = o->title;
    else if (single && only_main != PYPROF_NONE)
        l->title = pyprof_profile_string(p, pyprof_profile_mem_series(p, only_main)->label);
out:
    pyprof__free(names);
    pyprof__free(order);
    pyprof__free(kids);
    if (rc == PYPROF_ENOMEM && err && !err->code)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
    return rc;
}

int
pyprof__mem_layout_build(pyprof__mem_layout **out, const pyprof_profile *p,
                         const pyprof_mem_plot_options *opts, pyprof_error *err)
{
    pyprof_mem_plot_options def = PYPROF_MEM_PLOT_OPTIONS_INIT;
    if (!opts)
        opts = &def;
    *out = NULL;
    pyprof__mem_layout *l = pyprof__calloc(1, sizeof(*l));
    if (!l)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
    l->width = opts->width > 0 ? opts->width : PYPROF__MEM_WIDTH;
    l->height = opts->height > 0 ? opts->height : PYPROF__MEM_HEIGHT;
    /* mprof's axes: [0.1, 0.1, 0.6, 0.75] of the figure (legend on the
     * right), or [0.1, 0.1, 0.8, 0.8] in flame mode (no legend) */
    l->ax_x = 0.1 * l->width;
    l->ax_w = (opts->flame ? 0.8 : 0.6) * l->width;
    l->ax_h = (opts->flame ? 0.8 : 0.75) * l->height;
    l->ax_y = l->height - 0.1 * l->height - l->ax_h;
    if (opts->window && !(opts->window_end > opts->window_start)) {
        pyprof__mem_layout_free(l);
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "the window must be START,END with START < END");
    }
    int rc = build(l, p, opts, err);
    if (rc == 0)
        rc = pyprof__mem_draw(l, p, opts);
    if (rc < 0) {
        if (rc == PYPROF_ENOMEM && err && !err->code)
            pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
        pyprof__mem_layout_free(l);
        return rc;
    }
    *out = l;
    return 0;
}
