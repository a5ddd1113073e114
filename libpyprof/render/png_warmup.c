/*
 * png_warmup.c - the PNG backend's font start-up, on a helper thread.
 *
 * The first text cairo draws pays for fontconfig (parsing its XML
 * configuration, mapping its caches), matching the family and opening the
 * face with FreeType: 3-6 ms, as much as drawing a whole memory plot.  None
 * of it depends on the scene, only on the font family, and all of it ends
 * in process-wide caches (fontconfig's default configuration, cairo's font
 * maps, the scaled font's glyphs).  So a renderer that knows it will write
 * PNG starts the helper before it lays out and draws the rest, and the
 * backend waits for it before its first text item: the same font, found
 * the same way, only found on the other core meanwhile.  cairo and
 * fontconfig lock those caches themselves; the helper uses its own scratch
 * surface and context and touches nothing of the caller's.
 *
 * The thread always ends inside the call that started the work (the
 * backend, or whoever finishes the handle on an error path).  Without
 * threads, or if the thread cannot start, there is no helper and the first
 * text pays as before.
 */
#include "config.h"

#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif

#include "cairo_load.h"
#include "png_font.h"
#include "scene.h"

struct pyprof__png_warmup {
#ifdef HAVE_PTHREAD
    pthread_t thread;
    pthread_mutex_t lock; /* the first waiter joins, others wait for it */
    bool joined;
#endif
    char family[128];
    double size;
};

#ifdef HAVE_PTHREAD
static void *
warm(void *arg)
{
    const pyprof__png_warmup *w = arg;
    if (!pyprof__cairo_ready())
        return NULL; /* (the backend reports it) */
    cairo_surface_t *surf = pyprof__cairo.image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = pyprof__cairo.create(surf);
    /* as scene_png.c asks for text: family, normal slant and weight */
    pyprof__cairo.select_font_face(cr, w->family, CAIRO_FONT_SLANT_NORMAL,
                                   CAIRO_FONT_WEIGHT_NORMAL);
    pyprof__cairo.set_font_size(cr, w->size);
    /* the scaled font (kept in cairo's cache of recent ones) with the
     * glyphs every plot has: tick labels */
    pyprof__cairo.move_to(cr, 0, 0);
    pyprof__cairo.show_text(cr, "0123456789.-");
    pyprof__cairo.destroy(cr);
    pyprof__cairo.surface_destroy(surf);
    return NULL;
}
#endif

pyprof__png_warmup *
pyprof__png_warmup_start(const char *family, double size)
{
#ifdef HAVE_PTHREAD
    size_t len = family ? strlen(family) : 0;
    if (len == 0 || len >= sizeof(((pyprof__png_warmup *)0)->family))
        return NULL; /* an unusual name: the first text finds it itself */
    if (pyprof__png_fonts_known(family))
        return NULL; /* opened by file, fontconfig is not asked (png_font.c) */
    pyprof__png_warmup *w = pyprof__malloc(sizeof *w);
    if (!w)
        return NULL;
    memcpy(w->family, family, len + 1);
    w->size = size;
    w->joined = false;
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        pyprof__free(w);
        return NULL;
    }
    if (pthread_create(&w->thread, NULL, warm, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pyprof__free(w);
        return NULL;
    }
    return w;
#else
    (void)family;
    (void)size;
    return NULL;
#endif
}

void
pyprof__png_warmup_wait(pyprof__png_warmup *w)
{
    if (!w)
        return;
#ifdef HAVE_PTHREAD
    pthread_mutex_lock(&w->lock);
    if (!w->joined) {
        pthread_join(w->thread, NULL);
        w->joined = true;
    }
    pthread_mutex_unlock(&w->lock);
#endif
}

void
pyprof__png_warmup_finish(pyprof__png_warmup *w)
{
    if (!w)
        return;
    pyprof__png_warmup_wait(w);
#ifdef HAVE_PTHREAD
    pthread_mutex_destroy(&w->lock);
#endif
    pyprof__free(w);
}
