/*
 * png_font.h - the PNG backend's fonts, opened by file where that is known
 * (private; see png_font.c).
 */
#ifndef PYPROF_RENDER_PNG_FONT_H
#define PYPROF_RENDER_PNG_FONT_H

#include <cairo.h>
#include <stdbool.h>

typedef struct pyprof__png_fonts pyprof__png_fonts;

/* Whether text in `family` can be drawn from font files configure found,
 * without asking fontconfig (cheap: a name compare and two access()). */
bool pyprof__png_fonts_known(const char *family);
/* The normal and bold faces of `family` from those files, or NULL when
 * they are not known or do not open: draw text by family name then. */
pyprof__png_fonts *pyprof__png_fonts_open(const char *family);
/* The face for normal or bold text, borrowed from `f`; any thread. */
cairo_font_face_t *pyprof__png_fonts_face(const pyprof__png_fonts *f, bool bold);
/* Let go of the faces (cairo may keep them cached; they free themselves
 * when it is done).  NULL is fine. */
void pyprof__png_fonts_close(pyprof__png_fonts *f);

#endif
