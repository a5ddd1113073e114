/*
 * cairo_load.c - cairo and FreeType, loaded when the first PNG is drawn.
 *
 * Only PNG output uses cairo, but linked into libpyprof it was loaded by
 * every run of every tool with the 16 libraries it needs (fontconfig,
 * FreeType, pixman, libpng, the X11 client libraries...): 1.1 ms of
 * mapping and relocating per run, a third of pyprof-stats' run on a small
 * profile.  So the PNG backend asks for it here (lib_load.c says how).
 * FreeType is looked up under its own soname: png_font.c opens font files
 * with it and hands the faces to cairo.
 */
#include "config.h"

#include "cairo_load.h"
#include "lib_load.h"

pyprof__cairo_fns pyprof__cairo;
pyprof__ft_fns pyprof__ft;

#define FN(field, sym) PYPROF__LIB_FN(pyprof__cairo, field, sym)
static const pyprof__lib_fn cairo_fns[] = {
    FN(close_path, cairo_close_path),
    FN(create, cairo_create),
    FN(destroy, cairo_destroy),
    FN(fill, cairo_fill),
    FN(fill_preserve, cairo_fill_preserve),
    FN(font_face_destroy, cairo_font_face_destroy),
    FN(font_face_set_user_data, cairo_font_face_set_user_data),
    FN(font_face_status, cairo_font_face_status),
    FN(format_stride_for_width, cairo_format_stride_for_width),
    FN(ft_font_face_create_for_ft_face, cairo_ft_font_face_create_for_ft_face),
    FN(image_surface_create, cairo_image_surface_create),
    FN(image_surface_create_for_data, cairo_image_surface_create_for_data),
    FN(line_to, cairo_line_to),
    FN(move_to, cairo_move_to),
    FN(new_path, cairo_new_path),
    FN(paint, cairo_paint),
    FN(pattern_add_color_stop_rgb, cairo_pattern_add_color_stop_rgb),
    FN(pattern_create_linear, cairo_pattern_create_linear),
    FN(pattern_destroy, cairo_pattern_destroy),
    FN(rectangle, cairo_rectangle),
    FN(restore, cairo_restore),
    FN(rotate, cairo_rotate),
    FN(save, cairo_save),
    FN(select_font_face, cairo_select_font_face),
    FN(set_antialias, cairo_set_antialias),
    FN(set_dash, cairo_set_dash),
    FN(set_font_face, cairo_set_font_face),
    FN(set_font_size, cairo_set_font_size),
    FN(set_line_join, cairo_set_line_join),
    FN(set_line_width, cairo_set_line_width),
    FN(set_source, cairo_set_source),
    FN(set_source_rgba, cairo_set_source_rgba),
    FN(show_text, cairo_show_text),
    FN(status, cairo_status),
    FN(status_to_string, cairo_status_to_string),
    FN(stroke, cairo_stroke),
    FN(stroke_preserve, cairo_stroke_preserve),
    FN(surface_destroy, cairo_surface_destroy),
    FN(surface_finish, cairo_surface_finish),
    FN(text_extents, cairo_text_extents),
    FN(translate, cairo_translate),
    {NULL, NULL},
};
#undef FN

#define FN(field, sym) PYPROF__LIB_FN(pyprof__ft, field, sym)
static const pyprof__lib_fn ft_fns[] = {
    FN(init_freetype, FT_Init_FreeType),
    FN(new_face, FT_New_Face),
    FN(done_face, FT_Done_Face),
    FN(done_library, FT_Done_Library),
    FN(reference_library, FT_Reference_Library),
    {NULL, NULL},
};
#undef FN

static pyprof__lib cairo_lib = {.soname = PYPROF_CAIRO_SONAME, .fns = cairo_fns};
static pyprof__lib ft_lib = {.soname = PYPROF_FREETYPE_SONAME, .fns = ft_fns};

void
pyprof__cairo_use(const char *soname)
{
    cairo_lib.soname = soname;
}

static pyprof__lib *const libs[] = {&cairo_lib, &ft_lib};

bool
pyprof__cairo_ready(void)
{
    return pyprof__libs_load(libs, 2, NULL, NULL, NULL, NULL) == 0;
}

int
pyprof__cairo_load(const char *name, pyprof_error *err)
{
    return pyprof__libs_load(libs, 2, name, "png", "PNG is drawn with cairo", err);
}
