/*
 * png_font.c - the PNG backend's fonts, opened by file where that is known.
 *
 * cairo's "toy" text API names a family and lets fontconfig find it.  The
 * first such call in a process loads fontconfig's configuration (35 XML
 * files here, through expat) and matches the name against every
 * installed font: 3-4 ms of CPU, a tenth of plotting 10^6 memory samples,
 * in every run of a command-line tool.  matplotlib, whose look the memory
 * plot follows, does not ask fontconfig either: it ships DejaVu Sans and
 * opens the file.
 *
 * So configure records the files fontconfig gives for the plots' default
 * family, DejaVu Sans, normal and bold (PYPROF_SANS_FILE and
 * PYPROF_SANS_BOLD_FILE), and a PNG that asks for that family opens them
 * with FreeType and hands cairo the faces.  Every other family, and that
 * one when its files are gone (a library built on another machine), goes
 * by name through fontconfig as before.
 *
 * Lifetimes: cairo keeps font faces in caches of its own after the last
 * context lets go, so each face owns a reference to the FreeType library
 * (FT_Reference_Library) and both are dropped by the face's destroy
 * callback, whenever cairo runs it.  cairo serializes its use of an
 * FT_Face, so one set of faces serves both bands' threads (scene_png.c).
 */
#include "config.h"

#include <strings.h>
#include <unistd.h>

#include "cairo_load.h"
#include "png_font.h"
#include "scene.h"

/* The family the files are for (mem_draw.c's default; configure asks
 * fontconfig for this name). */
#define SANS_FAMILY "DejaVu Sans"

struct pyprof__png_fonts {
    cairo_font_face_t *face[2]; /* normal, bold */
};

#if defined(PYPROF_SANS_FILE) && defined(PYPROF_SANS_BOLD_FILE)
static const char *const files[2] = {PYPROF_SANS_FILE, PYPROF_SANS_BOLD_FILE};
#else
static const char *const files[2] = {NULL, NULL};
#endif

bool
pyprof__png_fonts_known(const char *family)
{
    return family && strcasecmp(family, SANS_FAMILY) == 0 && files[0] && files[1] &&
           access(files[0], R_OK) == 0 && access(files[1], R_OK) == 0;
}

static const cairo_user_data_key_t face_key;

/* what a cairo face of ours owns */
typedef struct ft_owned {
    FT_Library lib; /* a reference of its own */
    FT_Face face;
} ft_owned;

/* cairo is done with the face: drop what it owned */
static void
face_done(void *arg)
{
    ft_owned *o = arg;
    pyprof__ft.done_face(o->face);
    pyprof__ft.done_library(o->lib);
    pyprof__free(o);
}

static cairo_font_face_t *
open_face(FT_Library lib, const char *path)
{
    ft_owned *o = pyprof__malloc(sizeof *o);
    if (!o)
        return NULL;
    if (pyprof__ft.new_face(lib, path, 0, &o->face) != 0) {
        pyprof__free(o);
        return NULL;
    }
    o->lib = lib;
    pyprof__ft.reference_library(lib);
    cairo_font_face_t *cf = pyprof__cairo.ft_font_face_create_for_ft_face(o->face, 0);
    if (pyprof__cairo.font_face_status(cf) != CAIRO_STATUS_SUCCESS ||
        pyprof__cairo.font_face_set_user_data(cf, &face_key, o, face_done) !=
            CAIRO_STATUS_SUCCESS) {
        pyprof__cairo.font_face_destroy(cf); /* without our callback: nothing of ours in it */
        face_done(o);
        return NULL;
    }
    return cf;
}

pyprof__png_fonts *
pyprof__png_fonts_open(const char *family)
{
    if (!pyprof__png_fonts_known(family))
        return NULL;
    FT_Library lib;
    if (pyprof__ft.init_freetype(&lib) != 0)
        return NULL;
    pyprof__png_fonts *f = pyprof__calloc(1, sizeof *f);
    if (f) {
        for (int i = 0; i < 2; i++)
            f->face[i] = open_face(lib, files[i]);
        if (!f->face[0] || !f->face[1]) {
            pyprof__png_fonts_close(f);
            f = NULL;
        }
    }
    pyprof__ft.done_library(lib); /* the faces hold their own references */
    return f;
}

cairo_font_face_t *
pyprof__png_fonts_face(const pyprof__png_fonts *f, bool bold)
{
    return f->face[bold ? 1 : 0];
}

void
pyprof__png_fonts_close(pyprof__png_fonts *f)
{
    if (!f)
        return;
    for (int i = 0; i < 2; i++)
        pyprof__cairo.font_face_destroy(f->face[i]); /* NULL is a no-op */
    pyprof__free(f);
}
