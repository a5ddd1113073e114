/*
 * cairo_load.h - cairo and FreeType, loaded when the first PNG is drawn
 * (private; see cairo_load.c).
 */
#ifndef PYPROF_RENDER_CAIRO_LOAD_H
#define PYPROF_RENDER_CAIRO_LOAD_H

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_MODULE_H /* FT_Reference_Library, FT_Done_Library */

#include <cairo-ft.h>
#include <cairo.h>

#include "pyprof_int.h"

/* The cairo functions the PNG backend calls, with cairo's own types: a
 * call reads pyprof__cairo.move_to(cr, x, y) for cairo_move_to(cr, x, y). */
typedef struct pyprof__cairo_fns {
    __typeof__(cairo_close_path) *close_path;
    __typeof__(cairo_create) *create;
    __typeof__(cairo_destroy) *destroy;
    __typeof__(cairo_fill) *fill;
    __typeof__(cairo_fill_preserve) *fill_preserve;
    __typeof__(cairo_font_face_destroy) *font_face_destroy;
    __typeof__(cairo_font_face_set_user_data) *font_face_set_user_data;
    __typeof__(cairo_font_face_status) *font_face_status;
    __typeof__(cairo_format_stride_for_width) *format_stride_for_width;
    __typeof__(cairo_ft_font_face_create_for_ft_face) *ft_font_face_create_for_ft_face;
    __typeof__(cairo_image_surface_create) *image_surface_create;
    __typeof__(cairo_image_surface_create_for_data) *image_surface_create_for_data;
    __typeof__(cairo_line_to) *line_to;
    __typeof__(cairo_move_to) *move_to;
    __typeof__(cairo_new_path) *new_path;
    __typeof__(cairo_paint) *paint;
    __typeof__(cairo_pattern_add_color_stop_rgb) *pattern_add_color_stop_rgb;
    __typeof__(cairo_pattern_create_linear) *pattern_create_linear;
    __typeof__(cairo_pattern_destroy) *pattern_destroy;
    __typeof__(cairo_rectangle) *rectangle;
    __typeof__(cairo_restore) *restore;
    __typeof__(cairo_rotate) *rotate;
    __typeof__(cairo_save) *save;
    __typeof__(cairo_select_font_face) *select_font_face;
    __typeof__(cairo_set_antialias) *set_antialias;
    __typeof__(cairo_set_dash) *set_dash;
    __typeof__(cairo_set_font_face) *set_font_face;
    __typeof__(cairo_set_font_size) *set_font_size;
    __typeof__(cairo_set_line_join) *set_line_join;
    __typeof__(cairo_set_line_width) *set_line_width;
    __typeof__(cairo_set_source) *set_source;
    __typeof__(cairo_set_source_rgba) *set_source_rgba;
    __typeof__(cairo_show_text) *show_text;
    __typeof__(cairo_status) *status;
    __typeof__(cairo_status_to_string) *status_to_string;
    __typeof__(cairo_stroke) *stroke;
    __typeof__(cairo_stroke_preserve) *stroke_preserve;
    __typeof__(cairo_surface_destroy) *surface_destroy;
    __typeof__(cairo_surface_finish) *surface_finish;
    __typeof__(cairo_text_extents) *text_extents;
    __typeof__(cairo_translate) *translate;
} pyprof__cairo_fns;

/* The FreeType functions png_font.c calls: pyprof__ft.new_face(...) for
 * FT_New_Face(...). */
typedef struct pyprof__ft_fns {
    __typeof__(FT_Init_FreeType) *init_freetype;
    __typeof__(FT_New_Face) *new_face;
    __typeof__(FT_Done_Face) *done_face;
    __typeof__(FT_Done_Library) *done_library;
    __typeof__(FT_Reference_Library) *reference_library;
} pyprof__ft_fns;

/* Filled in by the first successful pyprof__cairo_load of the process;
 * use them only after a call of it returned 0 (on this thread). */
extern pyprof__cairo_fns pyprof__cairo;
extern pyprof__ft_fns pyprof__ft;

/* Load cairo and FreeType, once per process (any thread): 0, or
 * PYPROF_EIO with err saying which library or function is missing;
 * `name` is the output being drawn, for the message. */
int pyprof__cairo_load(const char *name, pyprof_error *err);

/* The same without an error: whether the tables can be used. */
bool pyprof__cairo_ready(void);

/* For tests: load this library instead of cairo, if called before the
 * first load. */
void pyprof__cairo_use(const char *soname);

#endif
