/*
 * scene_png.c - the PNG backend: cairo draws the scene onto an ARGB image
 * surface, and png_encode.c (not cairo's slower writer) streams it as PNG
 * into a pyprof_output.
 *
 * cairo's errors are sticky and, worse, cairo_surface_write_to_png still
 * "succeeds" on a poisoned context, so the context status is checked before
 * writing.  Image surfaces are limited to 32767 px a side: larger scenes are
 * refused with a message rather than silently cropped.
 */
#include "config.h"

#include <cairo.h>
#include <math.h>

#include "scene.h"

#define CAIRO_MAX_SIDE 32767

static void
set_color(cairo_t *cr, pyprof__rgba c)
{
    cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

static void
stroke_style(cairo_t *cr, const pyprof__item *it)
{
    cairo_set_line_width(cr, it->stroke_width > 0 ? it->stroke_width : 1.0);
    if (it->dashed) {
        static const double dflt[] = {4.0, 3.0};
        cairo_set_dash(cr, it->dash[0] > 0 ? it->dash : dflt, 2, 0);
    } else {
        cairo_set_dash(cr, NULL, 0, 0);
    }
    set_color(cr, it->stroke);
}

static void
path_points(cairo_t *cr, const pyprof__item *it)
{
    for (size_t i = 0; i < it->npoints; i++) {
        double x = it->points[2 * i], y = it->points[2 * i + 1];
        if (i == 0)
            cairo_move_to(cr, x, y);
        else
            cairo_line_to(cr, x, y);
    }
}

/* A memory plot's decimated curve is a band of hundreds of tall, thin
 * spikes: with cairo's default antialiasing (15 sub-scanlines, exact
 * horizontal coverage) its fill and outline took 14 ms of a 1260x540 plot;
 * CAIRO_ANTIALIAS_FAST (a 4x4 grid) takes 4 ms, and only the grey levels of
 * edge pixels change (the band looks the same at any zoom a reader uses). */
static void
set_antialias(cairo_t *cr, const pyprof__item *it)
{
    if (it->coarse)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST);
}

static void
draw_text(cairo_t *cr, const pyprof__scene *s, const pyprof__item *it)
{
    cairo_select_font_face(cr, pyprof__scene_font(s), CAIRO_FONT_SLANT_NORMAL,
                           it->bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, it->font_size);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, it->text, &ext);
    double dx = 0;
    if (it->anchor == PYPROF__ANCHOR_MIDDLE)
        dx = -ext.x_advance / 2;
    else if (it->anchor == PYPROF__ANCHOR_END)
        dx = -ext.x_advance;
    cairo_save(cr);
    cairo_translate(cr, it->x, it->y);
    if (it->rotate != 0)
        cairo_rotate(cr, it->rotate * M_PI / 180.0);
    cairo_move_to(cr, dx, 0);
    set_color(cr, it->fill);
    cairo_show_text(cr, it->text);
    cairo_restore(cr);
}

int
pyprof__scene_write_png(const pyprof__scene *s, pyprof_output *o, pyprof_error *err)
{
    double wd = ceil(pyprof__scene_width(s)), ht = ceil(pyprof__scene_height(s));
    if (!(wd >= 1 && ht >= 1 && wd <= CAIRO_MAX_SIDE && ht <= CAIRO_MAX_SIDE))
        return pyprof_error_set(err, PYPROF_ELIMIT, pyprof_output_name(o), "png", -1, 0,
                                "a %.0fx%.0f image is beyond what PNG output supports "
                                "(1 to %d pixels a side); use SVG or a smaller size",
                                wd, ht, CAIRO_MAX_SIDE);
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)wd, (int)ht);
    cairo_t *cr = cairo_create(surf);

    pyprof__rgba top, bottom;
    pyprof__scene_background(s, &top, &bottom);
    cairo_pattern_t *bg = cairo_pattern_create_linear(0, 0, 0, ht);
    cairo_pattern_add_color_stop_rgb(bg, 0.05, top.r / 255.0, top.g / 255.0, top.b / 255.0);
    cairo_pattern_add_color_stop_rgb(bg, 0.95, bottom.r / 255.0, bottom.g / 255.0,
                                     bottom.b / 255.0);
    cairo_set_source(cr, bg);
    cairo_paint(cr);
    cairo_pattern_destroy(bg);

    for (size_t i = 0; i < pyprof__scene_item_count(s); i++) {
        const pyprof__item *it = pyprof__scene_item(s, i);
        switch (it->kind) {
        case PYPROF__ITEM_RECT:
            cairo_new_path(cr);
            cairo_rectangle(cr, it->x, it->y, it->w, it->h);
            if (it->fill.a) {
                set_color(cr, it->fill);
                cairo_fill_preserve(cr);
            }
            if (it->stroke.a) {
                stroke_style(cr, it);
                cairo_stroke_preserve(cr);
            }
            cairo_new_path(cr);
            break;
        case PYPROF__ITEM_LINE:
            cairo_new_path(cr);
            cairo_move_to(cr, it->x, it->y);
            cairo_line_to(cr, it->w, it->h);
            stroke_style(cr, it);
            cairo_stroke(cr);
            break;
        case PYPROF__ITEM_POLYLINE:
            cairo_new_path(cr);
            path_points(cr, it);
            stroke_style(cr, it);
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
            set_antialias(cr, it);
            cairo_stroke(cr);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            break;
        case PYPROF__ITEM_POLYGON:
            cairo_new_path(cr);
            path_points(cr, it);
            cairo_close_path(cr);
            set_color(cr, it->fill);
            set_antialias(cr, it);
            cairo_fill(cr);
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
            break;
        case PYPROF__ITEM_TEXT:
            draw_text(cr, s, it);
            break;
        case PYPROF__ITEM_GROUP_BEGIN:
        case PYPROF__ITEM_GROUP_END:
            break; /* tooltips and structure are SVG-only */
        }
    }
    int rc = 0;
    cairo_status_t st = cairo_status(cr);
    if (st != CAIRO_STATUS_SUCCESS) {
        rc = pyprof_error_set(err, PYPROF_EIO, pyprof_output_name(o), "png", -1, 0,
                              "drawing failed: %s", cairo_status_to_string(st));
    } else {
        cairo_surface_flush(surf);
        rc = pyprof__png_encode_argb32(cairo_image_surface_get_data(surf), (int)wd, (int)ht,
                                       cairo_image_surface_get_stride(surf), o, err);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return rc;
}
