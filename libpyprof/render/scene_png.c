/*
 * scene_png.c - the PNG backend: cairo draws the scene onto an ARGB image
 * surface, and png_encode.c (not cairo's slower writer) streams it as PNG
 * into a pyprof_output.
 *
 * The image is drawn and compressed in two horizontal bands on two threads
 * (one helper, joined before the call returns).  Each band is an image
 * surface over its own rows of one pixel buffer, drawn with the whole
 * scene shifted up by the band's first row: a whole-pixel translation, so
 * cairo's fixed-point rasterisation, gradient, dashes and glyph positions
 * come out the same and every pixel is the one a single surface would get
 * (checked pixel for pixel on the memory plots, at many split rows).
 *
 * cairo's errors are sticky and, worse, cairo_surface_write_to_png still
 * "succeeds" on a poisoned context, so the context status is checked before
 * writing.  Image surfaces are limited to 32767 px a side: larger scenes are
 * refused with a message rather than silently cropped.
 */
#include "config.h"

#include <math.h>

#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif

#include "cairo_load.h"
#include "png_font.h"
#include "scene.h"

#define CAIRO_MAX_SIDE 32767

static void
set_color(cairo_t *cr, pyprof__rgba c)
{
    pyprof__cairo.set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

static void
stroke_style(cairo_t *cr, const pyprof__item *it)
{
    pyprof__cairo.set_line_width(cr, it->stroke_width > 0 ? it->stroke_width : 1.0);
    if (it->dashed) {
        static const double dflt[] = {4.0, 3.0};
        pyprof__cairo.set_dash(cr, it->dash[0] > 0 ? it->dash : dflt, 2, 0);
    } else {
        pyprof__cairo.set_dash(cr, NULL, 0, 0);
    }
    set_color(cr, it->stroke);
}

static void
path_points(cairo_t *cr, const pyprof__item *it)
{
    for (size_t i = 0; i < it->npoints; i++) {
        double x = it->points[2 * i], y = it->points[2 * i + 1];
        if (i == 0)
            pyprof__cairo.move_to(cr, x, y);
        else
            pyprof__cairo.line_to(cr, x, y);
    }
}

/* A memory plot's decimated curve is a band of hundreds of tall, thin
 * spikes: with cairo's default antialiasing (15 sub-scanlines, exact
 * horizontal coverage) its fill and outline took 14 ms of a 1260x540 plot;
 * CAIRO_ANTIALIAS_FAST (a 4x4 grid) takes 4 ms, and only the grey levels of
 * edge pixels change (the band looks the same at any zoom a reader uses).
 * The undecimated curve of a real 60 s run (830 points, mostly spikes) is
 * alike: 4 ms of stroking, 1.2 ms with FAST. */
static void
set_antialias(cairo_t *cr, const pyprof__item *it)
{
    if (it->coarse)
        pyprof__cairo.set_antialias(cr, CAIRO_ANTIALIAS_FAST);
}

/* `fonts`: the scene's family opened by file (png_font.c), else NULL and
 * the family goes to fontconfig by name */
static void
draw_text(cairo_t *cr, const pyprof__scene *s, const pyprof__png_fonts *fonts,
          const pyprof__item *it)
{
    if (fonts)
        pyprof__cairo.set_font_face(cr, pyprof__png_fonts_face(fonts, it->bold));
    else
        pyprof__cairo.select_font_face(cr, pyprof__scene_font(s), CAIRO_FONT_SLANT_NORMAL,
                                       it->bold ? CAIRO_FONT_WEIGHT_BOLD
                                                : CAIRO_FONT_WEIGHT_NORMAL);
    pyprof__cairo.set_font_size(cr, it->font_size);
    cairo_text_extents_t ext;
    pyprof__cairo.text_extents(cr, it->text, &ext);
    double dx = 0;
    if (it->anchor == PYPROF__ANCHOR_MIDDLE)
        dx = -ext.x_advance / 2;
    else if (it->anchor == PYPROF__ANCHOR_END)
        dx = -ext.x_advance;
    pyprof__cairo.save(cr);
    pyprof__cairo.translate(cr, it->x, it->y);
    if (it->rotate != 0)
        pyprof__cairo.rotate(cr, it->rotate * M_PI / 180.0);
    pyprof__cairo.move_to(cr, dx, 0);
    set_color(cr, it->fill);
    pyprof__cairo.show_text(cr, it->text);
    pyprof__cairo.restore(cr);
}

/* The scene's rows [y0, y0 + rows) onto `surf`, an image surface of
 * exactly those rows: the scene shifted up by y0 whole pixels, so every
 * pixel gets what drawing the whole image would give it (see above). */
static cairo_status_t
draw_band(cairo_surface_t *surf, const pyprof__scene *s, double ht, int y0,
          pyprof__png_warmup *warm, const pyprof__png_fonts *fonts)
{
    cairo_t *cr = pyprof__cairo.create(surf);
    pyprof__cairo.translate(cr, 0, -y0);

    pyprof__rgba top, bottom;
    pyprof__scene_background(s, &top, &bottom);
    cairo_pattern_t *bg = pyprof__cairo.pattern_create_linear(0, 0, 0, ht);
    pyprof__cairo.pattern_add_color_stop_rgb(bg, 0.05, top.r / 255.0, top.g / 255.0, top.b / 255.0);
    pyprof__cairo.pattern_add_color_stop_rgb(bg, 0.95, bottom.r / 255.0, bottom.g / 255.0,
                                             bottom.b / 255.0);
    pyprof__cairo.set_source(cr, bg);
    pyprof__cairo.paint(cr);
    pyprof__cairo.pattern_destroy(bg);

    for (size_t i = 0; i < pyprof__scene_item_count(s); i++) {
        const pyprof__item *it = pyprof__scene_item(s, i);
        switch (it->kind) {
        case PYPROF__ITEM_RECT:
            pyprof__cairo.new_path(cr);
            pyprof__cairo.rectangle(cr, it->x, it->y, it->w, it->h);
            if (it->fill.a) {
                set_color(cr, it->fill);
                pyprof__cairo.fill_preserve(cr);
            }
            if (it->stroke.a) {
                stroke_style(cr, it);
                pyprof__cairo.stroke_preserve(cr);
            }
            pyprof__cairo.new_path(cr);
            break;
        case PYPROF__ITEM_LINE:
            pyprof__cairo.new_path(cr);
            pyprof__cairo.move_to(cr, it->x, it->y);
            pyprof__cairo.line_to(cr, it->w, it->h);
            stroke_style(cr, it);
            pyprof__cairo.stroke(cr);
            break;
        case PYPROF__ITEM_POLYLINE:
            pyprof__cairo.new_path(cr);
            path_points(cr, it);
            stroke_style(cr, it);
            pyprof__cairo.set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
            set_antialias(cr, it);
            pyprof__cairo.stroke(cr);
            pyprof__cairo.set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            break;
        case PYPROF__ITEM_POLYGON:
            pyprof__cairo.new_path(cr);
            path_points(cr, it);
            pyprof__cairo.close_path(cr);
            set_color(cr, it->fill);
            set_antialias(cr, it);
            pyprof__cairo.fill(cr);
            pyprof__cairo.set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            break;
        case PYPROF__ITEM_TEXT:
            /* the font is (being) loaded on the helper: wait for it */
            pyprof__png_warmup_wait(warm);
            draw_text(cr, s, fonts, it);
            break;
        case PYPROF__ITEM_GROUP_BEGIN:
        case PYPROF__ITEM_GROUP_END:
            break; /* tooltips and structure are SVG-only */
        }
}
cairo_status_t st = pyprof__cairo.status(cr);
pyprof__cairo.destroy(cr);
return st;
}

/* One horizontal band of the image: drawn (draw_band), checked for
 * opacity and compressed by one thread. */
typedef struct band {
    const pyprof__scene *s;
    pyprof__png_warmup *warm;
    const pyprof__png_fonts *fonts;
    unsigned char *pixels; /* the band's first row */
    double ht;             /* the whole image's height */
    int y0, rows, w, stride;
    bool last;
    cairo_status_t st;
    bool opaque;
    pyprof__png_band z;
    int zrc;
} band;

static void *
band_run(void *arg)
{
    band *b = arg;
    cairo_surface_t *surf = pyprof__cairo.image_surface_create_for_data(
        b->pixels, CAIRO_FORMAT_ARGB32, b->w, b->rows, b->stride);
    b->st = draw_band(surf, b->s, b->ht, b->y0, b->warm, b->fonts);
    pyprof__cairo.surface_finish(surf);
    pyprof__cairo.surface_destroy(surf);
    if (b->st != CAIRO_STATUS_SUCCESS)
        return NULL;
    /* compressed as if the whole image were opaque, the usual case; redone
     * by the caller when another band is not */
    b->opaque = pyprof__png_opaque(b->pixels, b->w, b->rows, b->stride);
    b->zrc = pyprof__png_band_deflate(&b->z, b->pixels, b->w, b->rows, b->stride, !b->opaque,
                                      b->last);
    return NULL;
}

/* Two bands on two threads when the image is big enough to pay for one:
 * drawing and compressing are most of a plot's time, and cairo (separate
 * surfaces and contexts) and zlib (separate streams) are thread-safe. */
#define BANDS_MIN_ROWS 64

int
pyprof__scene_write_png(const pyprof__scene *s, pyprof_output *o, pyprof_error *err)
{
    return pyprof__scene_write_png_warm(s, NULL, o, err);
}

int
pyprof__scene_write_png_warm(const pyprof__scene *s, pyprof__png_warmup *warm, pyprof_output *o,
                             pyprof_error *err)
{
    int rc = pyprof__cairo_load(pyprof_output_name(o), err);
    if (rc < 0) {
        pyprof__png_warmup_finish(warm);
        return rc;
    }
    double wd = ceil(pyprof__scene_width(s)), ht = ceil(pyprof__scene_height(s));
    if (!(wd >= 1 && ht >= 1 && wd <= CAIRO_MAX_SIDE && ht <= CAIRO_MAX_SIDE)) {
        pyprof__png_warmup_finish(warm);
        return pyprof_error_set(err, PYPROF_ELIMIT, pyprof_output_name(o), "png", -1, 0,
                                "a %.0fx%.0f image is beyond what PNG output supports "
                                "(1 to %d pixels a side); use SVG or a smaller size",
                                wd, ht, CAIRO_MAX_SIDE);
    }
    int w = (int)wd, h = (int)ht,
        stride = pyprof__cairo.format_stride_for_width(CAIRO_FORMAT_ARGB32, w);
    /* zeroed, as cairo's own image surfaces start */
    unsigned char *pixels = pyprof__calloc((size_t)h, (size_t)stride);
    if (!pixels) {
        pyprof__png_warmup_finish(warm);
        return pyprof_error_set(err, PYPROF_ENOMEM, pyprof_output_name(o), "png", -1, 0,
                                "out of memory");
    }
    pyprof__png_fonts *fonts = pyprof__png_fonts_open(pyprof__scene_font(s));
    size_t nb = h >= 2 * BANDS_MIN_ROWS ? 2 : 1;
    band b[2];
    for (size_t i = 0; i < nb; i++) {
        int y0 = (int)((size_t)h * i / nb), y1 = (int)((size_t)h * (i + 1) / nb);
        b[i] = (band){s,     warm, fonts, pixels + (size_t)y0 * (size_t)stride,
                      ht,    y0,   y1 - y0, w, stride, i + 1 == nb, CAIRO_STATUS_SUCCESS,
                      false, {0},  0};
    }
#ifdef HAVE_PTHREAD
    pthread_t helper;
    bool threaded = nb == 2 && pthread_create(&helper, NULL, band_run, &b[1]) == 0;
#else
    bool threaded = false;
#endif
    band_run(&b[0]);
#ifdef HAVE_PTHREAD
    if (threaded)
        pthread_join(helper, NULL);
#endif
    if (nb == 2 && !threaded)
        band_run(&b[1]);
    pyprof__png_warmup_finish(warm);
    pyprof__png_fonts_close(fonts);

    bool alpha = false;
    for (size_t i = 0; i < nb; i++) {
        if (b[i].st != CAIRO_STATUS_SUCCESS && rc == 0)
            rc = pyprof_error_set(err, PYPROF_EIO, pyprof_output_name(o), "png", -1, 0,
                                  "drawing failed: %s", pyprof__cairo.status_to_string(b[i].st));
        alpha |= !b[i].opaque;
    }
    for (size_t i = 0; i < nb && rc == 0; i++) {
        if (b[i].zrc == 0 && b[i].z.alpha != alpha) { /* one colour type for all */
            pyprof__png_band_free(&b[i].z);
            b[i].zrc = pyprof__png_band_deflate(&b[i].z, b[i].pixels, w, b[i].rows, stride, alpha,
                                                b[i].last);
        }
        if (b[i].zrc < 0)
            rc = pyprof_error_set(err, b[i].zrc, pyprof_output_name(o), "png", -1, 0, "%s",
                                  b[i].zrc == PYPROF_ENOMEM ? "out of memory"
                                                            : "compressing the PNG failed");
    }
    if (rc == 0) {
        pyprof__png_band zb[2] = {b[0].z, nb == 2 ? b[1].z : b[0].z};
        rc = pyprof__png_write_bands(o, w, h, zb, nb, err);
    }
    for (size_t i = 0; i < nb; i++)
        pyprof__png_band_free(&b[i].z);
    pyprof__free(pixels);
    return rc;
}
