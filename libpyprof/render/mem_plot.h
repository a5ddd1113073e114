/*
 * mem_plot.h - the layout of a memory plot (semi-private; render/mem_*.c
 * and the tests).
 *
 * pyprof__mem_layout_build() turns a profile's memory timeline into plot
 * geometry in two steps that tests can check separately: first data-space
 * facts (view limits, ticks, curves after decimation, brackets, the peak),
 * then a pyprof__scene in pixels that the SVG and PNG backends draw.
 *
 * Data space: x is seconds from the first point of the curve's file
 * (mprof's global_start), y is MiB.  Pixel space: SVG user units, origin
 * top-left, as scene.h.
 */
#ifndef PYPROF_MEM_PLOT_H
#define PYPROF_MEM_PLOT_H

#include "scene.h"

/* mprof's figure: 14 x 6 inches at 90 dpi. */
#define PYPROF__MEM_DPI      90.0
#define PYPROF__MEM_WIDTH    1260.0
#define PYPROF__MEM_HEIGHT   540.0
#define PYPROF__MEM_MAXTICKS 24

typedef enum pyprof__mem_curve_kind {
    PYPROF__MEM_CURVE_MAIN,  /* a file's main process */
    PYPROF__MEM_CURVE_CHILD, /* a CHLD series */
    PYPROF__MEM_CURVE_SUM    /* --include-children: main + children */
} pyprof__mem_curve_kind;

/* A curve's bounds, when a pass that had to read every point anyway found
 * them (x relative to the curve's start, as its points). */
typedef struct pyprof__mem_bounds {
    bool known;
    double x0, x1, y0, y1;
    size_t peak; /* index of the first highest point */
    /* For a view, optionally: the first lowest and first highest point of
     * each chunk of PYPROF__MEM_CHUNK points, so that decimation can take
     * a chunk that lies within one pixel column whole (NULL: none).
     * Chunks are aligned from 0 below chunk_split and from it on, as in
     * pyprof__mem_summary (pyprof_int.h). */
    const uint32_t *chunk_lo, *chunk_hi;
    size_t chunk_split;
} pyprof__mem_bounds;

typedef struct pyprof__mem_curve {
    pyprof__mem_curve_kind kind;
    pyprof_id series; /* model series (the main one for SUM) */
    size_t nraw;      /* points in the view before decimation */
    size_t n;         /* points drawn */
    double *x, *y;    /* data space, n each; NULL while `run` stands for them */
    /* Or the points as a view of the model: x = run[i].t - start, y =
     * run[i].mib.  A 10^6-sample series that is one sorted stretch of the
     * sample array is not copied (16 MB to fault in) only to be thinned to a
     * few thousand points; build() decimates or copies every view before it
     * returns, so x and y are always set in a finished layout. */
    const pyprof_mem_sample *run;
    pyprof__mem_bounds bounds; /* of the points as they are now */
    bool markers;              /* '+' at each point (only when they stay apart) */
    bool cut[2];               /* first / last point is where a window cut the line, not data */
    pyprof__rgba color;
    const char *label;
    bool trend;              /* --slope */
    double slope, intercept; /* MiB/s and MiB at x = 0 */
    double start;            /* epoch s that x = 0 stands for */
} pyprof__mem_curve;

/* A FUNC execution drawn as mprof draws it: '[' at entry, ']' at exit. */
typedef struct pyprof__mem_bracket {
    size_t index;   /* model bracket */
    double x[2][4]; /* [0] = '[' polyline, [1] = ']' polyline, data space */
    double y[2][4];
    bool drawn[2];      /* each end only when inside the window */
    pyprof__rgba color; /* per function */
    const char *label;  /* shortest unambiguous suffix + " %.3fs" */
} pyprof__mem_bracket;

/* --flame: one box per execution, y in stack levels [level, level + 1]. */
typedef struct pyprof__mem_box {
    size_t index;
    double x0, x1; /* data space */
    int level;
    pyprof__rgba color; /* alpha 0.5 */
} pyprof__mem_box;

typedef struct pyprof__mem_layout {
    pyprof__arena arena; /* everything below lives here */
    double width, height;
    double ax_x, ax_y, ax_w, ax_h; /* the axes box in pixels */
    double xmin, xmax, ymin, ymax; /* view limits in data space */
    double xticks[PYPROF__MEM_MAXTICKS], yticks[PYPROF__MEM_MAXTICKS];
    size_t nxticks, nyticks;
    char xlabels[PYPROF__MEM_MAXTICKS][32], ylabels[PYPROF__MEM_MAXTICKS][32];
    pyprof__mem_curve *curves;
    size_t ncurves;
    pyprof__mem_bracket *brackets;
    size_t nbrackets;
    pyprof__mem_box *boxes;
    size_t nboxes;
    int levels; /* flame: stack depth + 1 */
    bool peak;  /* one file: the peak of its merged curve is marked */
    double peak_x, peak_y;
    bool child_peak; /* children: the largest child sample is marked */
    double child_peak_x, child_peak_y;
    double peak_vline[2];  /* y range of the peak's vertical line */
    double peak_hline[2];  /* x range of the peak's horizontal line */
    double cpeak_vline[2]; /* same for the child peak */
    double cpeak_hline[2];
    const char *title;
    pyprof__scene *scene;
} pyprof__mem_layout;

int pyprof__mem_layout_build(pyprof__mem_layout **out, const pyprof_profile *p,
                             const pyprof_mem_plot_options *opts, pyprof_error *err);
void pyprof__mem_layout_free(pyprof__mem_layout *l);

/* Data -> pixels. */
double pyprof__mem_px(const pyprof__mem_layout *l, double x);
double pyprof__mem_py(const pyprof__mem_layout *l, double y);

/* Ticks as matplotlib's default locator (MaxNLocator, steps 1, 2, 2.5, 5,
 * 10 times a power of ten, at most `nbins` intervals) places them for the
 * view [vmin, vmax]; only ticks inside the view are returned. */
size_t pyprof__mem_ticks(double vmin, double vmax, int nbins, double *ticks, size_t max);
/* Labels as matplotlib's ScalarFormatter: the fewest decimals that keep
 * all ticks distinct and exact at the step's precision. */
void pyprof__mem_tick_labels(const double *ticks, size_t n, char (*labels)[32]);

/* ---- curves (mem_curve.c) ---- */

/* Point i of a curve, whichever way it is held (see `run`). */
static inline double
pyprof__mem_cx(const pyprof__mem_curve *c, size_t i)
{
    return c->run ? c->run[i].t - c->start : c->x[i];
}
static inline double
pyprof__mem_cy(const pyprof__mem_curve *c, size_t i)
{
    return c->run ? c->run[i].mib : c->y[i];
}

/* Points of `series` (plus its FUNC entry/exit points when `with_funcs`,
 * as mprof merges them) sorted by time: x in epoch s, y in MiB, arrays in
 * the layout's arena.  When `run` is not NULL and the points are already
 * one time-ordered stretch of the model's sample array, that stretch is
 * returned in *run instead (x and y NULL, nothing copied), and *bounds
 * may be filled in on the way. */
int pyprof__mem_series_points(pyprof__mem_layout *l, const pyprof_profile *p, pyprof_id series,
                              bool with_funcs, double **x, double **y,
                              const pyprof_mem_sample **run, pyprof__mem_bounds *bounds, size_t *n);
/* Bounds of the curve's points (n > 0), returning the index of the first
 * highest one. */
size_t pyprof__mem_extent(const pyprof__mem_curve *c, double *x0, double *x1, double *y0,
                          double *y1);
/* Least squares line through the points, as np.polyfit(x, y, 1). */
void pyprof__mem_fit_line(const double *x, const double *y, size_t n, double *slope, double *icept);
/* Make `c` of the points (x made relative to `start`), with a trend if asked.
 * With `run` set, x and y are ignored and the curve is a view of it. */
int pyprof__mem_set_points(pyprof__mem_layout *l, pyprof__mem_curve *c, double *x, double *y,
                           const pyprof_mem_sample *run, size_t n, double start, bool trend);
/* Check that run[0, n) is in time order and find its bounds (x relative to
 * run[0].t) and chunk summaries (in `a`), in one pass; false if out of
 * order.  Without chunk summaries (no memory, or a NaN among the values)
 * the bounds are still set. */
bool pyprof__mem_scan_run(pyprof__arena *a, const pyprof_mem_sample *run, size_t n,
                          pyprof__mem_bounds *out);
/* Copy a view's points into arrays of the layout's arena (no-op otherwise). */
int pyprof__mem_materialize(pyprof__arena *a, pyprof__mem_curve *c);
/* main + children at the main curve's times (--include-children). */
int pyprof__mem_sum_curve(pyprof__mem_layout *l, pyprof__mem_curve *sum,
                          const pyprof__mem_curve *main, const pyprof__mem_curve *const *kids,
                          size_t nkids);
/* mprof's function_labels(): the shortest dotted suffix of names[which]
 * that no other of the `n` names shares. */
const char *pyprof__mem_short_label(const pyprof_profile *p, const pyprof_id *names, size_t n,
                                    size_t which);
/* Cut `c` to x in [x0, x1] (new arrays in `a`), setting c->cut. */
int pyprof__mem_clip(pyprof__arena *a, pyprof__mem_curve *c, double x0, double x1);
/* First, lowest, highest and last point per pixel column: in place, or
 * from a view into new arrays of `a`; a view too small to thin is copied. */
int pyprof__mem_decimate(pyprof__arena *a, pyprof__mem_curve *c, double xmin, double xmax,
                         double columns);
/* The brackets of main series `ms` in mprof's order (functions by first
 * appearance, then executions in file order): `order` holds bracket
 * indices, `names` the distinct function names; both malloc'd. */
int pyprof__mem_function_order(const pyprof_profile *p, pyprof_id ms, pyprof_id **names,
                               size_t *nnames, size_t **order, size_t *norder);

/* The scene half: draw a finished layout (mem_draw.c). */
int pyprof__mem_draw(pyprof__mem_layout *l, const pyprof_profile *p,
                     const pyprof_mem_plot_options *opts);

#endif
