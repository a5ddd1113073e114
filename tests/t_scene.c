/*
 * t_scene.c - the scene and its two backends: the SVG is well-formed XML
 * (parsed back with libxml2) that escapes labels and carries groups, ids and
 * the script; the PNG has the right signature and size and the background
 * and a filled rectangle are where the scene put them, and our PNG encoder
 * gives exactly the pixels cairo's own PNG writer gives; text in the plots'
 * family, drawn from its font files, is that family as fontconfig finds it.
 */
#include "config.h"

#include <cairo.h>
#include <libxml/parser.h>

#include "render/png_font.h"
#include "render/scene.h"
#include "tap.h"

static bool
has(const unsigned char *hay, size_t len, const char *needle)
{
    return memmem(hay, len, needle, strlen(needle)) != NULL;
}

static pyprof__scene *
sample(void)
{
    pyprof__scene *s;
    pyprof__scene_new(&s, 200, 100);
    pyprof__scene_set_background(s, PYPROF__RGB(238, 238, 238), PYPROF__RGB(238, 238, 176));
    pyprof__scene_set_script(s, "function init(evt) { if (1 < 2 && 3 > 2) return; }");
    pyprof__scene_root_attr(s, "onload", "init(evt)");
    pyprof__scene_group_begin(s, "a<b> & \"c\" (50 samples, 50%)");
    pyprof__scene_class(s, "frame");
    pyprof__scene_rect(s, 10, 20, 100, 15, PYPROF__RGB(255, 0, 0), PYPROF__NO_COLOR, 0, 2);
    pyprof__scene_text(s, 13, 31, "a<b> & caf\xc3\xa9", 12, PYPROF__ANCHOR_START,
                       PYPROF__RGB(0, 0, 0));
    pyprof__scene_group_end(s);
    double pts[] = {0, 90, 50, 60, 100, 80};
    pyprof__scene_polyline(s, pts, 3, PYPROF__RGB(0, 0, 255), 1.5, false);
    pyprof__scene_text(s, 5, 50, "MiB", 10, PYPROF__ANCHOR_MIDDLE, PYPROF__RGB(0, 0, 0));
    pyprof__scene_text_style(s, false, -90);
    pyprof__scene_id(s, "ylabel");
    return s;
}

typedef struct png_buf {
    const unsigned char *p;
    size_t len, pos;
} png_buf;

static cairo_status_t
png_read(void *closure, unsigned char *data, unsigned int n)
{
    png_buf *b = closure;
    if (b->len - b->pos < n)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, b->p + b->pos, n);
    b->pos += n;
    return CAIRO_STATUS_SUCCESS;
}

static cairo_status_t
png_collect(void *closure, const unsigned char *data, unsigned int n)
{
    pyprof_output_write(closure, data, n);
    return CAIRO_STATUS_SUCCESS;
}

/* Decode a PNG with cairo (libpng) and compare its pixels with `want`'s. */
static bool
same_pixels(const unsigned char *png, size_t len, cairo_surface_t *want)
{
    png_buf b = {png, len, 0};
    cairo_surface_t *got = cairo_image_surface_create_from_png_stream(png_read, &b);
    bool same = cairo_surface_status(got) == CAIRO_STATUS_SUCCESS &&
                cairo_image_surface_get_width(got) == cairo_image_surface_get_width(want) &&
                cairo_image_surface_get_height(got) == cairo_image_surface_get_height(want);
    /* an RGB PNG reads back as RGB24, whose unused byte cairo fills with 0xff,
     * as in the opaque ARGB32 original */
    for (int y = 0; same && y < cairo_image_surface_get_height(want); y++)
        same = memcmp(cairo_image_surface_get_data(got) + y * cairo_image_surface_get_stride(got),
                      cairo_image_surface_get_data(want) + y * cairo_image_surface_get_stride(want),
                      (size_t)cairo_image_surface_get_width(want) * 4) == 0;
    cairo_surface_destroy(got);
    return same;
}

/* pyprof__png_encode_argb32 against cairo_surface_write_to_png_stream: both
 * written, both read back, the same pixels; opaque images become RGB and
 * translucent ones RGBA, as cairo does. */
static void
test_png_encoder(void)
{
    for (int translucent = 0; translucent < 2; translucent++) {
        cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 97, 61);
        cairo_t *cr = cairo_create(surf);
        cairo_pattern_t *bg = cairo_pattern_create_linear(0, 0, 97, 61);
        cairo_pattern_add_color_stop_rgba(bg, 0, 0.9, 0.2, 0.1, translucent ? 0.3 : 1);
        cairo_pattern_add_color_stop_rgba(bg, 1, 0.1, 0.5, 0.9, 1);
        cairo_set_source(cr, bg);
        cairo_paint(cr);
        cairo_pattern_destroy(bg);
        cairo_set_source_rgba(cr, 0, 0, 0, translucent ? 0.5 : 1);
        cairo_arc(cr, 40, 30, 20, 0, 6.3);
        cairo_set_line_width(cr, 2.5);
        cairo_stroke(cr);
        if (translucent) { /* fully transparent pixels too */
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
            cairo_rectangle(cr, 0, 0, 10, 10);
            cairo_fill(cr);
        }
        cairo_destroy(cr);
        cairo_surface_flush(surf);

        pyprof_output *ours, *theirs;
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof_output_open_memory(&ours, &err);
        pyprof_output_open_memory(&theirs, &err);
        TAP_IS_INT(pyprof__png_encode_argb32(cairo_image_surface_get_data(surf), 97, 61,
                                             cairo_image_surface_get_stride(surf), ours, &err),
                   0, translucent ? "translucent image encoded" : "opaque image encoded");
        cairo_surface_write_to_png_stream(surf, png_collect, theirs);
        size_t la, lb;
        const unsigned char *a = pyprof_output_data(ours, &la),
                            *b = pyprof_output_data(theirs, &lb);
        TAP_OK(la > 33 && lb > 33 && memcmp(a, b, 33) == 0,
               "same signature and IHDR as cairo's (colour type %d)", la > 25 ? a[25] : -1);
        TAP_OK(la > 25 && a[25] == (translucent ? 6 : 2), "%s", translucent ? "RGBA" : "RGB");
        TAP_OK(same_pixels(a, la, surf), "our PNG decodes to the drawn pixels");
        TAP_OK(same_pixels(b, lb, surf), "...as cairo's own PNG does");
        pyprof_output_abort(ours);
        pyprof_output_abort(theirs);
        cairo_surface_destroy(surf);
    }
}

/* The advance of `text` at 12 px in `face`, or in `family` found by name
 * through fontconfig when face is NULL. */
static double
advance(cairo_font_face_t *face, const char *family, bool bold, const char *text)
{
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(surf);
    if (face)
        cairo_set_font_face(cr, face);
    else
        cairo_select_font_face(cr, family, CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, text, &ext);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return ext.x_advance;
}

/* Fonts opened by file (png_font.c) are the ones fontconfig would give:
 * the same advances, normal and bold, as cairo's text by family name. */
static void
test_png_fonts(void)
{
    TAP_OK(!pyprof__png_fonts_known("Verdana") && !pyprof__png_fonts_known(NULL) &&
               pyprof__png_fonts_open("Verdana") == NULL,
           "other families go to fontconfig by name");
    if (!pyprof__png_fonts_known("DejaVu Sans")) {
        printf("ok %d # SKIP no DejaVu Sans files were found at configure time\n", ++tap_count);
        return;
    }
    TAP_OK(pyprof__png_fonts_known("dejavu sans"), "family names compare without case");
    pyprof__png_fonts *f = pyprof__png_fonts_open("DejaVu Sans");
    TAP_OK(f != NULL, "DejaVu Sans opened by file");
    if (!f)
        return;
    const char *text = "memory used (in MiB) 0123456789";
    for (int bold = 0; bold < 2; bold++) {
        double mine = advance(pyprof__png_fonts_face(f, bold), NULL, bold, text);
        double theirs = advance(NULL, "DejaVu Sans", bold, text);
        TAP_IS_DBL(mine, theirs, 0.5, bold ? "bold text as wide as fontconfig's DejaVu Sans Bold"
                                           : "text as wide as fontconfig's DejaVu Sans");
    }
    TAP_OK(advance(pyprof__png_fonts_face(f, true), NULL, true, text) >
               advance(pyprof__png_fonts_face(f, false), NULL, false, text) + 1,
           "the bold face is the bold one");
    pyprof__png_fonts_close(f);
}

int
main(void)
{
    pyprof__scene *s = sample();
    TAP_IS_INT(pyprof__scene_item_count(s), 6, "items recorded");
    const pyprof__item *r = pyprof__scene_item(s, 1);
    TAP_OK(r->kind == PYPROF__ITEM_RECT && r->x == 10 && r->w == 100, "layout readable back");
    TAP_IS_DBL(pyprof__scene_text_width(10, "ab\xc3\xa9"), 17.7, 1e-9,
               "text width counts code points");

    pyprof_output *o;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_output_open_memory(&o, &err);
    TAP_IS_INT(pyprof__scene_write_svg(s, o, &err), 0, "SVG written");
    size_t len;
    const unsigned char *svg = pyprof_output_data(o, &len);
    xmlDocPtr doc = xmlReadMemory((const char *)svg, (int)len, "t.svg", NULL, XML_PARSE_NONET);
    TAP_OK(doc != NULL, "SVG is well-formed XML");
    if (doc) {
        xmlNodePtr root = xmlDocGetRootElement(doc);
        TAP_IS_STR((const char *)root->name, "svg", "root is <svg>");
        xmlChar *onload = xmlGetProp(root, BAD_CAST "onload");
        TAP_IS_STR((const char *)onload, "init(evt)", "root attribute kept");
        xmlFree(onload);
        xmlFreeDoc(doc);
    }
    TAP_OK(has(svg, len, "a&lt;b&gt; &amp; caf\xc3\xa9"), "label escaped, UTF-8 kept");
    TAP_OK(has(svg, len, "<![CDATA[function init"), "script as CDATA");
    TAP_OK(has(svg, len, "<title>a&lt;b&gt;"), "group tooltip as <title>");
    TAP_OK(has(svg, len, "transform=\"rotate(-90 5 50)\""), "rotated text");
    TAP_OK(has(svg, len, "points=\"0,90 50,60 100,80\""), "polyline points");
    pyprof_output_abort(o);

    pyprof_output_open_memory(&o, &err);
    TAP_IS_INT(pyprof__scene_write_png(s, o, &err), 0, "PNG written");
    const unsigned char *png = pyprof_output_data(o, &len);
    TAP_OK(len > 100 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "PNG signature");
    unsigned w = (unsigned)png[16] << 24 | png[17] << 16 | png[18] << 8 | png[19];
    unsigned h = (unsigned)png[20] << 24 | png[21] << 16 | png[22] << 8 | png[23];
    TAP_OK(w == 200 && h == 100, "PNG is 200x100 (got %ux%u)", w, h);
    pyprof_output_abort(o);
    pyprof__scene_free(s);

    pyprof__scene_new(&s, 40000, 10);
    pyprof_output_open_memory(&o, &err);
    TAP_IS_INT(pyprof__scene_write_png(s, o, &err), PYPROF_ELIMIT, "oversized PNG refused");
    pyprof_output_abort(o);
    pyprof__scene_free(s);
    test_png_encoder();
    test_png_fonts();
    xmlCleanupParser();
    return tap_done();
}
