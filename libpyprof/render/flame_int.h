/*
 * flame_int.h - what the flame graph's files share (not installed):
 * the layout object, built by flame_layout.c (its options and geometry in
 * flame_graph.c), coloured by flame_color.c, drawn through a scene by
 * flame_draw.c.
 */
#ifndef PYPROF_FLAME_INT_H
#define PYPROF_FLAME_INT_H

#include <pyprof/flame.h>

#include "pyprof_int.h"

/* flamegraph.pl's fixed geometry (§9.3) */
#define FLAME_XPAD     10.0
#define FLAME_FRAMEPAD 1.0

struct pyprof_flame {
    pyprof_flame_options o; /* strings point into `strs` or static defaults */
    pyprof_profile *strs;   /* owns every string: labels, title, options */
    pyprof_flame_frame *frames;
    size_t nframes, frames_cap;
    double total; /* T: the width of the root in count units */
    double width, height;
    double ypad1, ypad2, ypad3;
    double maxdelta;
    bool differential, estimated;
    const char *title, *subtitle, *notes;
    uint8_t bg[2][3]; /* background gradient, top and bottom */
};

/* flame_graph.c: a string kept by f (f->strs) as *out, and its text. */
int pyprof__flame_intern(pyprof_flame *f, uint32_t *out, const char *s, size_t len);
const char *pyprof__flame_str(const pyprof_flame *f, uint32_t id);
/* f's options (opts, or the defaults if NULL; strings copied into f) and
 * the title, subtitle and notes they give for profile p (an estimate says
 * so); PYPROF_EINVAL for sizes that cannot be drawn. */
int pyprof__flame_setup(pyprof_flame *f, const pyprof_profile *p, const pyprof_flame_options *opts);
/* Pixel geometry of every frame, and the image's size, from the frames'
 * depths and extents in count units (after the layout). */
void pyprof__flame_geometry(pyprof_flame *f);

/* Colours (§9.5-9.6): fill every frame's r, g, b. */
int pyprof__flame_colour(pyprof_flame *f, pyprof_error *err);

/* Remove flamegraph.pl's frame annotation (_[k] _[i] _[j] _[w]): new length. */
size_t pyprof__flame_strip_annotation(const char *name, size_t len);

/* The scene both backends draw (flame_draw.c): `interactive` adds the SVG's
 * script, style and the details/search/zoom texts. */
struct pyprof__scene;
int pyprof__flame_scene(const pyprof_flame *f, bool interactive, struct pyprof__scene **out);

/* The SVG's script (flame_script.c). */
extern const char pyprof__flame_script[];

#endif
