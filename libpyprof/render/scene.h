/*
 * scene.h - a backend-neutral drawing: the flame and plot renderers lay out
 * rectangles, lines and labels once, tests check that layout numerically,
 * and two small backends draw it: SVG (libxml2 xmlTextWriter, scene_svg.c)
 * and PNG (cairo, scene_png.c).  One layout, two backends.
 *
 * Coordinates are SVG user units (pixels), origin top-left, y down.
 * Strings passed in are copied; they must be valid UTF-8 (model strings are).
 * Things only SVG can carry (groups with tooltips, ids, classes, extra
 * attributes, a style sheet and a script for interactivity) are ignored by
 * the PNG backend, so an interactive SVG and a static PNG share one scene.
 * Semi-private: not part of the public API.
 */
#ifndef PYPROF_SCENE_H
#define PYPROF_SCENE_H

#include "pyprof_int.h"

typedef struct pyprof__rgba {
    uint8_t r, g, b, a; /* a = 0: nothing drawn; 255: opaque */
} pyprof__rgba;

#define PYPROF__RGB(r_, g_, b_) ((pyprof__rgba){(r_), (g_), (b_), 255})
#define PYPROF__NO_COLOR        ((pyprof__rgba){0, 0, 0, 0})

typedef enum pyprof__anchor {
    PYPROF__ANCHOR_START,
    PYPROF__ANCHOR_MIDDLE,
    PYPROF__ANCHOR_END
} pyprof__anchor;

typedef enum pyprof__item_kind {
    PYPROF__ITEM_RECT,
    PYPROF__ITEM_LINE,
    PYPROF__ITEM_POLYLINE,
    PYPROF__ITEM_POLYGON,
    PYPROF__ITEM_TEXT,
    PYPROF__ITEM_GROUP_BEGIN,
    PYPROF__ITEM_GROUP_END
} pyprof__item_kind;

/* One drawn thing.  Fields not used by a kind are zero. */
typedef struct pyprof__item {
    pyprof__item_kind kind;
    double x, y, w, h; /* rect: box; line: x,y -> w,h are x1,y1; text: anchor point */
    double *points;    /* polyline/polygon: x0,y0,x1,y1,... (npoints pairs) */
    size_t npoints;
    pyprof__rgba fill;     /* rect, polygon fill; text colour */
    pyprof__rgba stroke;   /* rect outline, line, polyline */
    double stroke_width;   /* 0 = 1 px */
    bool dashed;           /* line, polyline */
    bool coarse;           /* polyline, polygon: raster backends may antialias coarsely */
    double dash[2];        /* dashed: on and off lengths in px; 0,0 = the default 4,3 */
    double rx;             /* rect corner radius */
    const char *text;      /* text: the label; group: tooltip (<title>), may be NULL */
    double font_size;      /* text */
    pyprof__anchor anchor; /* text */
    bool bold;             /* text */
    double rotate;         /* text: degrees, around the anchor point (axis labels: -90) */
    const char *id;        /* SVG id attribute, or NULL */
    const char *cls;       /* SVG class attribute, or NULL */
    const char **attrs;    /* SVG extra attributes: name, value, name, value, ... */
    size_t nattrs;         /* number of name/value pairs */
} pyprof__item;

typedef struct pyprof__scene pyprof__scene;

int pyprof__scene_new(pyprof__scene **out, double width, double height);
void pyprof__scene_free(pyprof__scene *s);

double pyprof__scene_width(const pyprof__scene *s);
double pyprof__scene_height(const pyprof__scene *s);

/* Font family for all text (default "Verdana"; SVG writes it as given,
 * PNG asks fontconfig for it and falls back to sans-serif). */
int pyprof__scene_set_font(pyprof__scene *s, const char *family);

/* Background: a vertical gradient from `top` to `bottom` (equal colours for a
 * flat fill); flamegraph.pl's is #eeeeee -> #eeeeb0. */
void pyprof__scene_set_background(pyprof__scene *s, pyprof__rgba top, pyprof__rgba bottom);

/* SVG-only extras: a CSS style sheet, a script (written as CDATA), and
 * attributes of the root <svg> element (e.g. "onload", "init(evt)"). */
int pyprof__scene_set_style(pyprof__scene *s, const char *css);
int pyprof__scene_set_script(pyprof__scene *s, const char *js);
int pyprof__scene_root_attr(pyprof__scene *s, const char *name, const char *value);
/* SVG-only: a comment written right after the <svg> start tag (in order of
 * adding; "--", which XML forbids in comments, is written as "- -"). */
int pyprof__scene_add_comment(pyprof__scene *s, const char *text);
size_t pyprof__scene_comments(const pyprof__scene *s, const char *const **comments);

/* Drawing.  Each returns 0 or PYPROF_ENOMEM; the item just added can be given
 * SVG extras with pyprof__scene_id/_class/_attr. */
int pyprof__scene_rect(pyprof__scene *s, double x, double y, double w, double h, pyprof__rgba fill,
                       pyprof__rgba stroke, double stroke_width, double rx);
int pyprof__scene_line(pyprof__scene *s, double x0, double y0, double x1, double y1,
                       pyprof__rgba stroke, double width, bool dashed);
int pyprof__scene_polyline(pyprof__scene *s, const double *xy, size_t npoints, pyprof__rgba stroke,
                           double width, bool dashed);
int pyprof__scene_polygon(pyprof__scene *s, const double *xy, size_t npoints, pyprof__rgba fill);
int pyprof__scene_text(pyprof__scene *s, double x, double y, const char *utf8, double font_size,
                       pyprof__anchor anchor, pyprof__rgba color);
/* Groups nest; `tooltip` becomes the group's <title> in SVG (may be NULL). */
int pyprof__scene_group_begin(pyprof__scene *s, const char *tooltip);
int pyprof__scene_group_end(pyprof__scene *s);

/* Decorate the most recently added item (or group begin). */
int pyprof__scene_id(pyprof__scene *s, const char *id);
int pyprof__scene_class(pyprof__scene *s, const char *cls);
int pyprof__scene_attr(pyprof__scene *s, const char *name, const char *value);
/* Dash lengths (px) of the most recent line or polyline, which becomes
 * dashed: plots that imitate a library's look need its dash pattern. */
void pyprof__scene_dash(pyprof__scene *s, double on, double off);
/* Mark the most recent polyline or polygon as one whose edges need no
 * fine antialiasing (a dense band of sub-pixel spikes): PNG then uses
 * cairo's fast 4x4-sample rasteriser for it; SVG is unaffected. */
void pyprof__scene_coarse(pyprof__scene *s);
/* Text style of the most recent text item. */
void pyprof__scene_text_style(pyprof__scene *s, bool bold, double rotate_degrees);

/* Read back the layout (for tests and for callers that post-process). */
size_t pyprof__scene_item_count(const pyprof__scene *s);
const pyprof__item *pyprof__scene_item(const pyprof__scene *s, size_t i);

/* Estimated advance width of `utf8` at `font_size`, as flamegraph.pl's
 * fontwidth model: 0.59 * size per character (code point). */
double pyprof__scene_text_width(double font_size, const char *utf8);

/* What the backends read besides the items. */
const char *pyprof__scene_font(const pyprof__scene *s);
void pyprof__scene_background(const pyprof__scene *s, pyprof__rgba *top, pyprof__rgba *bottom);
const char *pyprof__scene_style(const pyprof__scene *s);
const char *pyprof__scene_script(const pyprof__scene *s);
size_t pyprof__scene_root_attrs(const pyprof__scene *s, const char *const **attrs);

/* Backends.  Errors are reported against the output's name. */
int pyprof__scene_write_svg(const pyprof__scene *s, pyprof_output *o, pyprof_error *err);
int pyprof__scene_write_png(const pyprof__scene *s, pyprof_output *o, pyprof_error *err);
/* The SVG in steps, for a renderer with more items than it wants to store
 * (a big flame graph's frames): open writes the document's start and the
 * scene's items, leaving its open groups open; write adds one more item
 * (borrowed for the call, errors kept for close); close ends the open
 * groups and the document and frees the stream.  Same bytes as putting
 * the items into the scene. */
typedef struct pyprof__svg_stream pyprof__svg_stream;
int pyprof__svg_stream_open(pyprof__svg_stream **out, const pyprof__scene *s, pyprof_output *o,
                            pyprof_error *err);
void pyprof__svg_stream_write(pyprof__svg_stream *st, const pyprof__item *it);
int pyprof__svg_stream_close(pyprof__svg_stream *st, pyprof_error *err);
/* Items made into SVG apart from a stream, on any thread (a second half of
 * a flame graph's frames): _write adds one, with the bytes the stream's
 * _write would give it between elements; _put_piece adds them all to the
 * stream at its current place and frees the piece (a piece whose groups do
 * not balance, or that ran out of memory, makes the stream fail); _free
 * drops one unused.  A piece holds its bytes in memory until it is put. */
typedef struct pyprof__svg_piece pyprof__svg_piece;
pyprof__svg_piece *pyprof__svg_piece_new(void);
void pyprof__svg_piece_write(pyprof__svg_piece *pc, const pyprof__item *it);
void pyprof__svg_stream_put_piece(pyprof__svg_stream *st, pyprof__svg_piece *pc);
void pyprof__svg_piece_free(pyprof__svg_piece *pc);
/* Font start-up for PNG text on a helper thread (png_warmup.c): start it
 * before laying out a scene that will be written as PNG, with the family
 * the scene will use (and its most common text size, in pixels), and
 * hand it to pyprof__scene_write_png_warm(), which
 * waits for it before its first text and always finishes it.  NULL (no
 * helper) is a valid handle everywhere. */
typedef struct pyprof__png_warmup pyprof__png_warmup;
pyprof__png_warmup *pyprof__png_warmup_start(const char *family, double size);
void pyprof__png_warmup_wait(pyprof__png_warmup *w);   /* any thread, any number of times */
void pyprof__png_warmup_finish(pyprof__png_warmup *w); /* waits, frees */
int pyprof__scene_write_png_warm(const pyprof__scene *s, pyprof__png_warmup *w, pyprof_output *o,
                                 pyprof_error *err);
/* Encode a w x h cairo ARGB32 image (native-endian premultiplied pixels,
 * rows `stride` bytes apart) as PNG into `o`: the pixels cairo's own writer
 * would produce, compressed faster (png_encode.c). */
int pyprof__png_encode_argb32(const unsigned char *data, int w, int h, int stride, pyprof_output *o,
                              pyprof_error *err);
/* The same in parts: rows compressed band by band, on any threads, then
 * written as one PNG (bands in image order, all with the same `alpha`,
 * the last one deflated with `last`). */
typedef struct pyprof__png_band {
    unsigned char *z; /* raw deflate data, zlen bytes */
    size_t zlen;
    size_t rawlen;  /* filtered bytes it stands for */
    uint32_t adler; /* their Adler-32 */
    bool alpha;     /* RGBA rows (else RGB) */
} pyprof__png_band;
bool pyprof__png_opaque(const unsigned char *data, int w, int h, int stride);
int pyprof__png_band_deflate(pyprof__png_band *b, const unsigned char *data, int w, int rows,
                             int stride, bool alpha, bool last);
void pyprof__png_band_free(pyprof__png_band *b);
int pyprof__png_write_bands(pyprof_output *o, int w, int h, const pyprof__png_band *bands,
                            size_t nbands, pyprof_error *err);

#endif
