/*
 * mem_draw.c - the pixel half of the memory plot: turns a finished
 * pyprof__mem_layout into a pyprof__scene with matplotlib's default look
 * (what mprof's figures show), and the public pyprof_mem_plot() that writes
 * it as SVG or PNG.
 *
 * Sizes are matplotlib's defaults converted at mprof's 90 dpi (1 pt = 1.25
 * px): 10 pt tick and axis labels, 12 pt title, 1.5 pt lines, 0.8 pt axes
 * and grid, 3.5 pt ticks, '+' markers of 6 pt, brackets of 2 pt.
 * Drawing order follows matplotlib's: grid below the curves, the flame boxes
 * (a twin axes in mprof) above them, the legend last.
 */
#include "config.h"

#include <math.h>

#include "pyprof_int.h"

#include "mem_plot.h"

#define PT (PYPROF__MEM_DPI / 72.0)

static const pyprof__rgba BLACK = {0, 0, 0, 255};
static const pyprof__rgba WHITE = {255, 255, 255, 255};
static const pyprof__rgba GRID = {176, 176, 176, 255}; /* #b0b0b0 */
static const pyprof__rgba RED = {255, 0, 0, 255};
static const pyprof__rgba TREND_MAIN = {0, 227, 216, 255}; /* mprof's #00e3d8 */

#define FONT_SIZE   (10 * PT)
/* matplotlib's default family (scene fonts fall back through fontconfig) */
#define DEFAULT_FONT "DejaVu Sans"
#define TITLE_SIZE  (12 * PT)
#define LINE_WIDTH  (1.5 * PT)
#define AXES_WIDTH  (0.8 * PT)
#define TICK_LEN    (3.5 * PT)
#define TICK_PAD    (3.5 * PT)
#define MARKER_SIZE (6 * PT)
/* matplotlib's "--": 3.7 on, 1.6 off, in units of the line width */
#define DASH_ON  3.7
#define DASH_OFF 1.6

static int
markers(pyprof__scene *s, const pyprof__mem_layout *l, const pyprof__mem_curve *c)
{
    int rc = 0;
    double h = MARKER_SIZE / 2;
    for (size_t i = c->cut[0]; i + c->cut[1] < c->n && rc == 0; i++) {
        double x = pyprof__mem_px(l, c->x[i]), y = pyprof__mem_py(l, c->y[i]);
        rc = pyprof__scene_line(s, x - h, y, x + h, y, c->color, 1 * PT, false);
        if (rc == 0)
            rc = pyprof__scene_line(s, x, y - h, x, y + h, c->color, 1 * PT, false);
    }
    return rc;
}

/* A polyline of data-space points. */
static int
data_line(pyprof__scene *s, const pyprof__mem_layout *l, const double *x, const double *y, size_t n,
          pyprof__rgba color, double width, bool dashed)
{
    if (n == 0)
        return 0;
    size_t bytes;
    if (pyprof__mul_overflows(n, 2 * sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    double *xy = pyprof__malloc(bytes);
    if (!xy)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        xy[2 * i] = pyprof__mem_px(l, x[i]);
        xy[2 * i + 1] = pyprof__mem_py(l, y[i]);
    }
    int rc = n == 1 ? 0 : pyprof__scene_polyline(s, xy, n, color, width, dashed);
    pyprof__free(xy);
    return rc;
}

/* A line with matplotlib's "--" dashes for its width. */
static int
dashed_line(pyprof__scene *s, double x0, double y0, double x1, double y1, pyprof__rgba color,
            double width)
{
    int rc = pyprof__scene_line(s, x0, y0, x1, y1, color, width, true);
    if (rc == 0)
        pyprof__scene_dash(s, DASH_ON * width, DASH_OFF * width);
    return rc;
}

/* A decimated curve drawn as its envelope: per pixel column the decimated
 * points span [lowest, highest], which a zigzag line through them would
 * paint solid; a polygon through the column tops and back along the
 * bottoms, outlined, paints the same pixels.  A rasteriser (cairo) strokes
 * a zigzag of thousands of crossing segments slowly; this shape has no
 * crossings and half the points. */
static int
envelope(pyprof__scene *s, const pyprof__mem_layout *l, const pyprof__mem_curve *c)
{
    size_t bytes;
    if (pyprof__mul_overflows(c->n, 4 * sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    double *top = pyprof__malloc(bytes), *poly = pyprof__malloc(bytes);
    if (!top || !poly) {
        pyprof__free(top);
        pyprof__free(poly);
        return PYPROF_ENOMEM;
    }
    double *bot = top + 2 * c->n; /* same column count as top */
    size_t ncol = 0;
    for (size_t i = 0; i < c->n;) {
        double px = pyprof__mem_px(l, c->x[i]);
        long col = (long)floor(px);
        double hi = pyprof__mem_py(l, c->y[i]), lo = hi, x0 = px, x1 = px;
        size_t j = i + 1;
        while (j < c->n && (long)floor(pyprof__mem_px(l, c->x[j])) == col) {
            double py = pyprof__mem_py(l, c->y[j]);
            hi = fmin(hi, py); /* pixels: y grows downwards */
            lo = fmax(lo, py);
            x1 = pyprof__mem_px(l, c->x[j]);
            j++;
        }
        top[2 * ncol] = (x0 + x1) / 2;
        top[2 * ncol + 1] = hi;
        bot[2 * ncol] = (x0 + x1) / 2;
        bot[2 * ncol + 1] = lo;
        ncol++;
        i = j;
    }
    size_t k = 0;
    for (size_t i = 0; i < ncol; i++, k++) {
        poly[2 * k] = top[2 * i];
        poly[2 * k + 1] = top[2 * i + 1];
    }
    for (size_t i = ncol; i-- > 0; k++) {
        poly[2 * k] = bot[2 * i];
        poly[2 * k + 1] = bot[2 * i + 1];
    }
    int rc = pyprof__scene_polygon(s, poly, k, c->color);
    pyprof__scene_coarse(s); /* see scene_png.c: faster, and looks the same */
    if (rc == 0)             /* the outline gives the filled band the line's width */
        rc = pyprof__scene_polyline(s, top, ncol, c->color, LINE_WIDTH, false);
    pyprof__scene_coarse(s);
    if (rc == 0)
        rc = pyprof__scene_polyline(s, bot, ncol, c->color, LINE_WIDTH, false);
    pyprof__scene_coarse(s);
    pyprof__free(top);
    pyprof__free(poly);
    return rc;
}

static int
curve(pyprof__scene *s, const pyprof__mem_layout *l, const pyprof__mem_curve *c)
{
    int rc = pyprof__scene_group_begin(s, c->label);
    if (rc == 0)
        rc = pyprof__scene_class(s, c->kind == PYPROF__MEM_CURVE_MAIN    ? "mem-main"
                                    : c->kind == PYPROF__MEM_CURVE_CHILD ? "mem-child"
                                                                         : "mem-sum");
    if (rc == 0 && c->n < c->nraw) {
        rc = envelope(s, l, c);
    } else if (rc == 0) {
        rc = data_line(s, l, c->x, c->y, c->n, c->color, LINE_WIDTH, false);
        /* a real run's curve is hundreds of tall spikes too (see envelope) */
        pyprof__scene_coarse(s);
    }
    if (rc == 0 && c->markers)
        rc = markers(s, l, c);
    if (rc == 0)
        rc = pyprof__scene_group_end(s);
    if (rc == 0 && c->trend && c->nraw > 0) {
        /* over the whole view, as np.polyval over the curve's own span */
        double x[2] = {c->x[0], c->x[c->n - 1]};
        double y[2] = {c->slope * x[0] + c->intercept, c->slope * x[1] + c->intercept};
        rc = dashed_line(s, pyprof__mem_px(l, x[0]), pyprof__mem_py(l, y[0]),
                         pyprof__mem_px(l, x[1]), pyprof__mem_py(l, y[1]),
                         c->kind == PYPROF__MEM_CURVE_CHILD ? BLACK : TREND_MAIN, 0.5 * PT);
    }
    return rc;
}

static int
hline(pyprof__scene *s, const pyprof__mem_layout *l, double y, double x0, double x1)
{
    x0 = fmax(x0, l->xmin);
    x1 = fmin(x1, l->xmax);
    if (!(x1 > x0) || y < l->ymin || y > l->ymax)
        return 0;
    return dashed_line(s, pyprof__mem_px(l, x0), pyprof__mem_py(l, y), pyprof__mem_px(l, x1),
                       pyprof__mem_py(l, y), RED, LINE_WIDTH);
}

static int
vline(pyprof__scene *s, const pyprof__mem_layout *l, double x, double y0, double y1)
{
    y0 = fmax(y0, l->ymin);
    y1 = fmin(y1, l->ymax);
    if (!(y1 > y0) || x < l->xmin || x > l->xmax)
        return 0;
    return dashed_line(s, pyprof__mem_px(l, x), pyprof__mem_py(l, y0), pyprof__mem_px(l, x),
                       pyprof__mem_py(l, y1), RED, LINE_WIDTH);
}

static int
axes(pyprof__scene *s, const pyprof__mem_layout *l)
{
    int rc = 0;
    double bottom = l->ax_y + l->ax_h, left = l->ax_x;
    for (size_t i = 0; i < l->nxticks && rc == 0; i++) {
        double x = pyprof__mem_px(l, l->xticks[i]);
        rc = pyprof__scene_line(s, x, bottom, x, bottom + TICK_LEN, BLACK, AXES_WIDTH, false);
        if (rc == 0)
            rc = pyprof__scene_text(s, x, bottom + TICK_LEN + TICK_PAD + FONT_SIZE * 0.8,
                                    l->xlabels[i], FONT_SIZE, PYPROF__ANCHOR_MIDDLE, BLACK);
    }
    for (size_t i = 0; i < l->nyticks && rc == 0; i++) {
        double y = pyprof__mem_py(l, l->yticks[i]);
        rc = pyprof__scene_line(s, left - TICK_LEN, y, left, y, BLACK, AXES_WIDTH, false);
        if (rc == 0)
            rc = pyprof__scene_text(s, left - TICK_LEN - TICK_PAD, y + FONT_SIZE * 0.36,
                                    l->ylabels[i], FONT_SIZE, PYPROF__ANCHOR_END, BLACK);
    }
    if (rc == 0)
        rc = pyprof__scene_rect(s, l->ax_x, l->ax_y, l->ax_w, l->ax_h, PYPROF__NO_COLOR, BLACK,
                                AXES_WIDTH, 0);
    if (rc == 0)
        rc = pyprof__scene_text(s, l->ax_x + l->ax_w / 2,
                                bottom + TICK_LEN + TICK_PAD + FONT_SIZE + 4 * PT + FONT_SIZE * 0.8,
                                "time (in seconds)", FONT_SIZE, PYPROF__ANCHOR_MIDDLE, BLACK);
    if (rc == 0) {
        /* widest y label decides how far out the axis label sits */
        double w = 0;
        for (size_t i = 0; i < l->nyticks; i++)
            w = fmax(w, pyprof__scene_text_width(FONT_SIZE, l->ylabels[i]));
        rc = pyprof__scene_text(s, left - TICK_LEN - TICK_PAD - w - 4 * PT - FONT_SIZE * 0.2,
                                l->ax_y + l->ax_h / 2, "memory used (in MiB)", FONT_SIZE,
                                PYPROF__ANCHOR_MIDDLE, BLACK);
        pyprof__scene_text_style(s, false, -90);
    }
    if (rc == 0 && l->title && l->title[0])
        rc = pyprof__scene_text(s, l->ax_x + l->ax_w / 2, l->ax_y - 6 * PT - TITLE_SIZE * 0.25,
                                l->title, TITLE_SIZE, PYPROF__ANCHOR_MIDDLE, BLACK);
    return rc;
}

/* One legend row: what its line looks like, and its text. */
typedef struct entry {
    const char *text;
    pyprof__rgba color;
    double width;
    bool marker;
} entry;

static int
legend(pyprof__scene *s, const pyprof__mem_layout *l)
{
    size_t n = l->ncurves + l->nbrackets;
    entry *e = pyprof__calloc(n ? n : 1, sizeof(entry));
    if (!e)
        return PYPROF_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < l->ncurves; i++)
        e[k++] = (entry){l->curves[i].label, l->curves[i].color, LINE_WIDTH, l->curves[i].markers};
    for (size_t i = 0; i < l->nbrackets; i++)
        if (l->brackets[i].drawn[0]) /* mprof labels the '[' */
            e[k++] = (entry){l->brackets[i].label, l->brackets[i].color, 2 * PT, false};
    /* matplotlib: borderpad 0.4, labelspacing 0.5, handlelength 2,
     * handletextpad 0.8, borderaxespad 0.5 (in font sizes) */
    double fs = FONT_SIZE, pad = 0.4 * fs, row = fs * 1.5, hl = 2 * fs, htp = 0.8 * fs;
    /* centred on the axes (matplotlib's "center left" at (1, 0.5)): it
     * fits in twice the room between that centre and the nearer edge */
    double centre = l->ax_y + l->ax_h / 2;
    double room = 2 * fmin(centre, l->height - centre) - 2 * pad;
    size_t fit = room > row ? (size_t)floor((room + 0.5 * fs) / row) : 1;
    size_t shown = k, hidden = 0;
    char more[64] = "";
    if (k > fit && fit > 1) {
        shown = fit - 1;
        hidden = k - shown;
        pyprof__snprintf_c(more, sizeof more, "(%zu more)", hidden);
    }
    double textw = 0;
    for (size_t i = 0; i < shown; i++)
        textw = fmax(textw, pyprof__scene_text_width(fs, e[i].text));
    if (hidden)
        textw = fmax(textw, pyprof__scene_text_width(fs, more));
    size_t rows = shown + (hidden ? 1 : 0);
    double w = pad * 2 + hl + htp + textw, h = pad * 2 + rows * row - 0.5 * fs;
    double x = l->ax_x + l->ax_w + 0.5 * fs, y = l->ax_y + l->ax_h / 2 - h / 2;
    int rc = pyprof__scene_rect(s, x, y, w, h, (pyprof__rgba){255, 255, 255, 128},
                                (pyprof__rgba){204, 204, 204, 128}, AXES_WIDTH, 0.2 * fs);
    for (size_t i = 0; i < rows && rc == 0; i++) {
        double cy = y + pad + i * row + fs / 2;
        if (i < shown) {
            rc =
                pyprof__scene_line(s, x + pad, cy, x + pad + hl, cy, e[i].color, e[i].width, false);
            if (rc == 0 && e[i].marker) {
                double mx = x + pad + hl / 2, h2 = MARKER_SIZE / 2;
                rc = pyprof__scene_line(s, mx - h2, cy, mx + h2, cy, e[i].color, PT, false);
                if (rc == 0)
                    rc = pyprof__scene_line(s, mx, cy - h2, mx, cy + h2, e[i].color, PT, false);
            }
        }
        if (rc == 0)
            rc = pyprof__scene_text(s, x + pad + hl + htp, cy + fs * 0.36,
                                    i < shown ? e[i].text : more, fs, PYPROF__ANCHOR_START, BLACK);
    }
    pyprof__free(e);
    return rc;
}

static int
boxes(pyprof__scene *s, const pyprof__mem_layout *l, const pyprof_profile *p)
{
    int rc = 0;
    double lh = l->ax_h / (l->levels + 1); /* mprof: twin axes from 0 to levels + 1 */
    for (size_t i = 0; i < l->nboxes && rc == 0; i++) {
        const pyprof__mem_box *b = &l->boxes[i];
        const pyprof_mem_bracket *mb = pyprof_profile_mem_bracket(p, b->index);
        double x0 = fmax(b->x0, l->xmin), x1 = fmin(b->x1, l->xmax);
        if (x1 < x0)
            continue;
        char tip[512];
        pyprof__snprintf_c(tip, sizeof tip, "%s %.3fs", pyprof_profile_string(p, mb->name),
                           mb->t1 - mb->t0);
        rc = pyprof__scene_group_begin(s, tip);
        if (rc == 0)
            rc = pyprof__scene_class(s, "mem-func");
        if (rc == 0) {
            double px0 = pyprof__mem_px(l, x0), px1 = pyprof__mem_px(l, x1);
            double ytop = l->ax_y + l->ax_h - (b->level + 1) * lh;
            rc = pyprof__scene_rect(s, px0, ytop, px1 - px0, lh, b->color, b->color, PT, 0);
        }
        if (rc == 0)
            rc = pyprof__scene_group_end(s);
    }
    return rc;
}

int
pyprof__mem_draw(pyprof__mem_layout *l, const pyprof_profile *p,
                 const pyprof_mem_plot_options *opts)
{
    pyprof__scene *s;
    int rc = pyprof__scene_new(&s, l->width, l->height);
    if (rc < 0)
        return rc;
    l->scene = s;
    pyprof__scene_set_background(s, WHITE, WHITE);
    PYPROF_TRY(pyprof__scene_set_font(s, opts->font ? opts->font : DEFAULT_FONT));
    for (size_t i = 0; i < l->nxticks; i++) {
        double x = pyprof__mem_px(l, l->xticks[i]);
        PYPROF_TRY(
            pyprof__scene_line(s, x, l->ax_y, x, l->ax_y + l->ax_h, GRID, AXES_WIDTH, false));
    }
    for (size_t i = 0; i < l->nyticks; i++) {
        double y = pyprof__mem_py(l, l->yticks[i]);
        PYPROF_TRY(
            pyprof__scene_line(s, l->ax_x, y, l->ax_x + l->ax_w, y, GRID, AXES_WIDTH, false));
    }
    for (size_t i = 0; i < l->ncurves; i++)
        PYPROF_TRY(curve(s, l, &l->curves[i]));
    if (l->child_peak) {
        PYPROF_TRY(vline(s, l, l->child_peak_x, l->cpeak_vline[0], l->cpeak_vline[1]));
        PYPROF_TRY(hline(s, l, l->child_peak_y, l->cpeak_hline[0], l->cpeak_hline[1]));
    }
    for (size_t i = 0; i < l->nbrackets; i++) {
        const pyprof__mem_bracket *b = &l->brackets[i];
        PYPROF_TRY(pyprof__scene_group_begin(s, b->label));
        PYPROF_TRY(pyprof__scene_class(s, "mem-func"));
        for (int e = 0; e < 2; e++)
            if (b->drawn[e])
                PYPROF_TRY(data_line(s, l, b->x[e], b->y[e], 4, b->color, 2 * PT, false));
        PYPROF_TRY(pyprof__scene_group_end(s));
    }
    if (l->peak) {
        PYPROF_TRY(hline(s, l, l->peak_y, l->peak_hline[0], l->peak_hline[1]));
        PYPROF_TRY(vline(s, l, l->peak_x, l->peak_vline[0], l->peak_vline[1]));
    }
    PYPROF_TRY(boxes(s, l, p));
    PYPROF_TRY(axes(s, l));
    if (!opts->flame)
        PYPROF_TRY(legend(s, l));
out:
    return rc;
}

int
pyprof_mem_plot(pyprof_output *o, const pyprof_profile *p, const char *type,
                const pyprof_mem_plot_options *opts, pyprof_error *err)
{
    if (!type || (strcmp(type, "svg") != 0 && strcmp(type, "png") != 0))
        return pyprof_error_set(err, PYPROF_EINVAL, pyprof_output_name(o), NULL, -1, 0,
                                "a memory plot is written as svg or png, not %s",
                                type ? type : "(none)");
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_MEMORY))
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has no memory timeline (read an mprofile .dat)");
    /* PNG: fonts load on a helper while the layout is built and the lines
     * drawn (png_warmup.c); the family is the one draw() gives the scene */
    pyprof__png_warmup *warm = NULL;
    if (strcmp(type, "png") == 0)
        warm = pyprof__png_warmup_start(opts && opts->font ? opts->font : DEFAULT_FONT, FONT_SIZE);
    pyprof__mem_layout *l;
    int rc = pyprof__mem_layout_build(&l, p, opts, err);
    if (rc < 0) {
        pyprof__png_warmup_finish(warm);
        return rc;
    }
    if (strcmp(type, "svg") == 0)
        rc = pyprof__scene_write_svg(l->scene, o, err);
    else
        rc = pyprof__scene_write_png_warm(l->scene, warm, o, err);
    pyprof__mem_layout_free(l);
    return rc;
}
