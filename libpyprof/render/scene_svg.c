/*
 * scene_svg.c - the SVG backend: libxml2's xmlTextWriter streams the scene
 * into a pyprof_output.  The document's frame is written call by call; the
 * items are assembled as markup here, escaped byte for byte as the writer
 * would (svg_markup.c), and handed to the writer in large raw pieces.
 * Model strings are valid UTF-8, which libxml2 does not check for us.
 * Numbers are written in the C locale with at most two decimals and no
 * trailing zeros, which keeps files small and byte-stable.
 */
#include "config.h"

#include "scene.h"
#include "svg_markup.h"
#include "xml_load.h"

/* libxml2 is never told of a failed write: it would print a line of its
 * own ("I/O error : write error") on stderr, beside the one error the
 * caller reports.  The output keeps the first error, drops what comes
 * after it, and pyprof__svg_stream_close returns it. */
static int
out_write(void *ctx, const char *buf, int len)
{
    pyprof_output_write(ctx, buf, (size_t)len);
    return len;
}

static int
out_close(void *ctx)
{
    (void)ctx;
    return 0;
}

/* "%.2f" without trailing zeros: 10 / 10.5 / 10.25, in a buffer of `size`
 * bytes (truncated as snprintf would). */
static size_t
num_len(char *buf, size_t size, double v)
{
    if (v > -0.005 && v < 0.005)
        v = 0; /* no "-0" */
    size_t n = pyprof__fmt_fixed2(buf, size, v);
    if (memchr(buf, '.', n)) {
        while (buf[n - 1] == '0')
            n--;
        if (buf[n - 1] == '.')
            n--;
        buf[n] = '\0';
    }
    return n;
}

static const char *
num(char *buf, size_t size, double v)
{
    num_len(buf, size, v);
    return buf;
}

static const char *
color(char *buf, size_t size, pyprof__rgba c)
{
    if (c.a == 0)
        return "none";
    pyprof__snprintf_c(buf, size, "rgb(%u,%u,%u)", c.r, c.g, c.b);
    return buf;
}

/* The document's frame (root, defs, style, script) goes through the
 * xmlTextWriter call by call.  The items, thousands of small elements, are
 * assembled in `b` with the same bytes the writer would produce for them
 * and go to the output in large raw pieces (raw_out): the writer's
 * per-call bookkeeping (element stack, attribute state, small buffer
 * appends) was most of the time of a big flame graph. */
struct w {
    const pyprof__xml *api; /* libxml2 (xml_load.c) */
    xmlTextWriterPtr x;
    pyprof_output *o; /* what x writes to */
    int bad;
    pyprof__svgbuf b;
    size_t groups; /* <g> elements opened in b and not yet closed */
    bool open;     /* the last start tag in b is still taking attributes */
};

/* b goes to the output once this big (a few output buffers' worth) */
#define FLUSH_AT (64 * 1024)

/* n bytes of markup to the output itself, after everything the writer
 * holds.  Through the writer (a raw write) they were copied into libxml2's
 * buffer and from there into the output's: 1 ms of the 2.5 that a 3.4 MB
 * flame graph took to write.  The empty raw write ends a start tag the
 * writer itself may have left open, as a raw write of the bytes would. */
static void
raw_out(struct w *w, const char *p, size_t n)
{
    if (!n)
        return;
    if (w->api->write_raw_len(w->x, BAD_CAST "", 0) < 0 || w->api->flush(w->x) < 0)
        w->bad = 1;
    else
        pyprof_output_write(w->o, p, n);
}

static void
flush(struct w *w)
{
    if (!w->x)
        return; /* a piece (below) keeps its bytes until it is put in a stream */
    if (w->b.bad)
        w->bad = 1;
    else
        raw_out(w, w->b.p, w->b.len);
    w->b.len = 0;
}

static void
attr(struct w *w, const char *name, const char *value)
{
    if (w->api->write_attribute(w->x, BAD_CAST name, BAD_CAST value) < 0)
        w->bad = 1;
}

static void
attr_num(struct w *w, const char *name, double v)
{
    char b[64];
    attr(w, name, num(b, sizeof b, v));
}

static void
start(struct w *w, const char *name)
{
    if (w->api->start_element(w->x, BAD_CAST name) < 0)
        w->bad = 1;
}

static void
end(struct w *w)
{
    if (w->api->end_element(w->x) < 0)
        w->bad = 1;
}

/* ---- items, as raw markup in w->b ------------------------------------------------------- */

static void
put(struct w *w, const char *s)
{
    pyprof__svgbuf_put(&w->b, s, strlen(s));
}

/* What the writer does before any content: end a start tag with ">". */
static void
content(struct w *w)
{
    if (w->open)
        PYPROF__SVGBUF_LIT(&w->b, ">");
    w->open = false;
}

static void
rstart(struct w *w, const char *open, size_t len)
{
    content(w);
    pyprof__svgbuf_put(&w->b, open, len);
    w->open = true;
}

/* The end of an element without children ("/>") or with ("</name>"). */
static void
rend(struct w *w, const char *close, size_t len)
{
    if (w->open)
        PYPROF__SVGBUF_LIT(&w->b, "/>");
    else
        pyprof__svgbuf_put(&w->b, close, len);
    w->open = false;
}

/* element names are literals: their lengths are known when compiled */
#define START(w, name) rstart((w), "<" name, sizeof("<" name) - 1)
#define END(w, name)   rend((w), "</" name ">", sizeof("</" name ">") - 1)

static void
rattr(struct w *w, const char *name, const char *value)
{
    PYPROF__SVGBUF_LIT(&w->b, " ");
    put(w, name);
    PYPROF__SVGBUF_LIT(&w->b, "=\"");
    pyprof__svgbuf_attr(&w->b, value);
    PYPROF__SVGBUF_LIT(&w->b, "\"");
}

/* a number; `size` is the buffer it went through with the writer, which
 * truncates only printf's numbers of 24 digits or more */
static void
rnum(struct w *w, double v, size_t size)
{
    if (w->b.cap - w->b.len < 64 && pyprof__svgbuf_reserve(&w->b, 64) < 0)
        return;
    char *o = w->b.p + w->b.len;
    size_t n = pyprof__fmt_coord(o, v);
    if (!n) {
        char b[64];
        n = num_len(b, size, v);
        memcpy(o, b, n);
    }
    w->b.len += n;
}

/* ' name="number"'; numbers need no escaping (digits, '-', '.', inf, nan).
 * Nine of these a flame graph frame: one check for room, and the prefix
 * (a literal at every call) copied in a size known when compiled. */
static inline void
rattr_num(struct w *w, const char *prefix, size_t len, double v)
{
    if (w->b.cap - w->b.len < len + 64 && pyprof__svgbuf_reserve(&w->b, len + 64) < 0)
        return;
    memcpy(w->b.p + w->b.len, prefix, len);
    w->b.len += len;
    rnum(w, v, 64);
    w->b.p[w->b.len++] = '"';
}

#define ATTR_NUM(w, name, v) rattr_num((w), " " name "=\"", sizeof(" " name "=\"") - 1, (v))

static void
rtext(struct w *w, const char *text)
{
    if (!text) {
        w->bad = 1; /* as xmlTextWriterWriteString(NULL) */
        return;
    }
    content(w);
    pyprof__svgbuf_text(&w->b, text);
}

/* "rgb(r,g,b)" or "none" */
static void
rattr_color(struct w *w, const char *name, size_t len, pyprof__rgba c)
{
    PYPROF__SVGBUF_LIT(&w->b, " ");
    pyprof__svgbuf_put(&w->b, name, len);
    if (c.a == 0) {
        PYPROF__SVGBUF_LIT(&w->b, "=\"none\"");
        return;
    }
    char b[32], *o = b;
    uint8_t ch[3] = {c.r, c.g, c.b};
    memcpy(o, "=\"rgb(", 6);
    o += 6;
    for (int i = 0; i < 3; i++) {
        if (ch[i] >= 100)
            *o++ = (char)('0' + ch[i] / 100);
        if (ch[i] >= 10)
            *o++ = (char)('0' + ch[i] / 10 % 10);
        *o++ = (char)('0' + ch[i] % 10);
        *o++ = i < 2 ? ',' : ')';
    }
    *o++ = '"';
    pyprof__svgbuf_put(&w->b, b, (size_t)(o - b));
}

#define ATTR_COLOR(w, name, c) rattr_color((w), name, sizeof(name) - 1, (c))

static void
common_attrs(struct w *w, const pyprof__item *it)
{
    if (it->id)
        rattr(w, "id", it->id);
    if (it->cls)
        rattr(w, "class", it->cls);
    for (size_t i = 0; i < it->nattrs; i++)
        rattr(w, it->attrs[2 * i], it->attrs[2 * i + 1]);
}

static void
stroke_attrs(struct w *w, const pyprof__item *it)
{
    ATTR_COLOR(w, "stroke", it->stroke);
    if (it->stroke.a && it->stroke.a != 255)
        ATTR_NUM(w, "stroke-opacity", it->stroke.a / 255.0);
    if (it->stroke_width > 0)
        ATTR_NUM(w, "stroke-width", it->stroke_width);
    if (it->dashed && it->dash[0] > 0) {
        PYPROF__SVGBUF_LIT(&w->b, " stroke-dasharray=\"");
        rnum(w, it->dash[0], 32);
        PYPROF__SVGBUF_LIT(&w->b, ",");
        rnum(w, it->dash[1], 32);
        PYPROF__SVGBUF_LIT(&w->b, "\"");
    } else if (it->dashed) {
        PYPROF__SVGBUF_LIT(&w->b, " stroke-dasharray=\"4,3\"");
    }
}

static void
fill_attrs(struct w *w, pyprof__rgba c)
{
    ATTR_COLOR(w, "fill", c);
    if (c.a && c.a != 255)
        ATTR_NUM(w, "fill-opacity", c.a / 255.0);
}

static void
points_attr(struct w *w, const pyprof__item *it)
{
    PYPROF__SVGBUF_LIT(&w->b, " points=\"");
    for (size_t i = 0; i < it->npoints; i++) {
        if (i)
            PYPROF__SVGBUF_LIT(&w->b, " ");
        rnum(w, it->points[2 * i], 32);
        PYPROF__SVGBUF_LIT(&w->b, ",");
        rnum(w, it->points[2 * i + 1], 32);
    }
    PYPROF__SVGBUF_LIT(&w->b, "\"");
}

static void
item(struct w *w, const pyprof__item *it)
{
    switch (it->kind) {
    case PYPROF__ITEM_GROUP_BEGIN:
        START(w, "g");
        common_attrs(w, it);
        w->groups++;
        if (it->text) {
            START(w, "title");
            rtext(w, it->text);
            END(w, "title");
        }
        break;
    case PYPROF__ITEM_GROUP_END:
        if (w->groups) {
            w->groups--;
            END(w, "g");
        } else if (!w->x) { /* a piece closes only what it opened */
            w->bad = 1;
        } else { /* not opened here: the writer knows what it closes */
            flush(w);
            end(w);
        }
        break;
    case PYPROF__ITEM_RECT:
        START(w, "rect");
        ATTR_NUM(w, "x", it->x);
        ATTR_NUM(w, "y", it->y);
        ATTR_NUM(w, "width", it->w);
        ATTR_NUM(w, "height", it->h);
        fill_attrs(w, it->fill);
        if (it->stroke.a)
            stroke_attrs(w, it);
        if (it->rx > 0) {
            ATTR_NUM(w, "rx", it->rx);
            ATTR_NUM(w, "ry", it->rx);
        }
        common_attrs(w, it);
        END(w, "rect");
        break;
    case PYPROF__ITEM_LINE:
        START(w, "line");
        ATTR_NUM(w, "x1", it->x);
        ATTR_NUM(w, "y1", it->y);
        ATTR_NUM(w, "x2", it->w);
        ATTR_NUM(w, "y2", it->h);
        stroke_attrs(w, it);
        common_attrs(w, it);
        END(w, "line");
        break;
    case PYPROF__ITEM_POLYLINE:
        START(w, "polyline");
        points_attr(w, it);
        PYPROF__SVGBUF_LIT(&w->b, " fill=\"none\"");
        stroke_attrs(w, it);
        common_attrs(w, it);
        END(w, "polyline");
        break;
    case PYPROF__ITEM_POLYGON:
        START(w, "polygon");
        points_attr(w, it);
        fill_attrs(w, it->fill);
        common_attrs(w, it);
        END(w, "polygon");
        break;
    case PYPROF__ITEM_TEXT:
        START(w, "text");
        ATTR_NUM(w, "x", it->x);
        ATTR_NUM(w, "y", it->y);
        if (it->anchor != PYPROF__ANCHOR_START)
            rattr(w, "text-anchor", it->anchor == PYPROF__ANCHOR_MIDDLE ? "middle" : "end");
        ATTR_NUM(w, "font-size", it->font_size);
        if (it->bold)
            PYPROF__SVGBUF_LIT(&w->b, " font-weight=\"bold\"");
        if (it->rotate != 0) {
            /* rare (axis labels): printf, into the buffer sizes it always had */
            char b[96], r[32], x[32], y[32];
            pyprof__snprintf_c(b, sizeof b, "rotate(%s %s %s)", num(r, sizeof r, it->rotate),
                               num(x, sizeof x, it->x), num(y, sizeof y, it->y));
            rattr(w, "transform", b);
        }
        if (!(it->fill.r == 0 && it->fill.g == 0 && it->fill.b == 0 && it->fill.a == 255))
            fill_attrs(w, it->fill);
        common_attrs(w, it);
        rtext(w, it->text);
        END(w, "text");
        break;
    }
    if (it->kind != PYPROF__ITEM_GROUP_BEGIN) {
        content(w);
        PYPROF__SVGBUF_LIT(&w->b, "\n");
    }
    if (w->b.len >= FLUSH_AT)
        flush(w);
}

struct pyprof__svg_stream {
    struct w w;
};

int
pyprof__svg_stream_open(pyprof__svg_stream **out, const pyprof__scene *s, pyprof_output *o,
                        pyprof_error *err)
{
    *out = NULL;
    const pyprof__xml *api;
    int rc = pyprof__xml_load(&api, pyprof_output_name(o), err);
    if (rc < 0)
        return rc;
    pyprof__svg_stream *st = pyprof__calloc(1, sizeof(*st));
    xmlOutputBufferPtr ob = st ? api->output_create_io(out_write, out_close, o, NULL) : NULL;
    if (!ob) {
        pyprof__free(st);
        return pyprof_error_set(err, PYPROF_ENOMEM, pyprof_output_name(o), "svg", -1, 0,
                                "out of memory");
    }
    struct w *w = &st->w;
    w->o = o;
    w->api = api;
    w->x = api->writer_new(ob);
    if (!w->x) {
        api->output_close(ob);
        pyprof__free(st);
        return pyprof_error_set(err, PYPROF_ENOMEM, pyprof_output_name(o), "svg", -1, 0,
                                "out of memory");
    }
    api->set_indent(w->x, 0);
    if (api->start_document(w->x, "1.0", "UTF-8", "no") < 0)
        w->bad = 1;
    start(w, "svg");
    attr(w, "version", "1.1");
    attr_num(w, "width", pyprof__scene_width(s));
    attr_num(w, "height", pyprof__scene_height(s));
    char vb[128], a[32], b[32];
    pyprof__snprintf_c(vb, sizeof vb, "0 0 %s %s", num(a, sizeof a, pyprof__scene_width(s)),
                       num(b, sizeof b, pyprof__scene_height(s)));
    attr(w, "viewBox", vb);
    attr(w, "xmlns", "http://www.w3.org/2000/svg");
    attr(w, "xmlns:xlink", "http://www.w3.org/1999/xlink");
    const char *const *ra;
    size_t nra = pyprof__scene_root_attrs(s, &ra);
    for (size_t i = 0; i < nra; i++)
        attr(w, ra[2 * i], ra[2 * i + 1]);
    api->write_string(w->x, BAD_CAST "\n");
    const char *const *cm;
    size_t ncm = pyprof__scene_comments(s, &cm);
    for (size_t i = 0; i < ncm; i++) {
        char *c = pyprof__strdup(cm[i]);
        if (!c) {
            w->bad = 1;
            break;
        }
        for (char *q = c; (q = strstr(q, "--")) != NULL;)
            *q = ' '; /* "--" is not allowed inside an XML comment */
        size_t n = strlen(c);
        if (n && c[n - 1] == '-')
            c[n - 1] = ' ';
        if (api->write_comment(w->x, BAD_CAST c) < 0)
            w->bad = 1;
        pyprof__free(c);
        api->write_string(w->x, BAD_CAST "\n");
    }

    pyprof__rgba top, bottom;
    pyprof__scene_background(s, &top, &bottom);
    char c1[32], c2[32];
    start(w, "defs");
    start(w, "linearGradient");
    attr(w, "id", "background");
    attr(w, "y1", "0");
    attr(w, "y2", "1");
    attr(w, "x1", "0");
    attr(w, "x2", "0");
    start(w, "stop");
    attr(w, "stop-color", color(c1, sizeof c1, top));
    attr(w, "offset", "5%");
    end(w);
    start(w, "stop");
    attr(w, "stop-color", color(c2, sizeof c2, bottom));
    attr(w, "offset", "95%");
    end(w);
    end(w);
    end(w);
    api->write_string(w->x, BAD_CAST "\n");
    const char *style = pyprof__scene_style(s);
    char font_css[256];
    pyprof__snprintf_c(font_css, sizeof font_css, "text { font-family: %s; }\n",
                       pyprof__scene_font(s));
    start(w, "style");
    attr(w, "type", "text/css");
    api->write_string(w->x, BAD_CAST font_css);
    if (style)
        api->write_string(w->x, BAD_CAST style);
    end(w);
    api->write_string(w->x, BAD_CAST "\n");
    const char *script = pyprof__scene_script(s);
    if (script) {
        start(w, "script");
        attr(w, "type", "text/ecmascript");
        if (api->write_cdata(w->x, BAD_CAST script) < 0)
            w->bad = 1;
        end(w);
        api->write_string(w->x, BAD_CAST "\n");
    }
    start(w, "rect");
    attr(w, "x", "0");
    attr(w, "y", "0");
    attr(w, "width", "100%");
    attr(w, "height", "100%");
    attr(w, "fill", "url(#background)");
    end(w);
    api->write_string(w->x, BAD_CAST "\n");

    for (size_t i = 0; i < pyprof__scene_item_count(s); i++)
        item(w, pyprof__scene_item(s, i));
    *out = st;
    return 0;
}

void
pyprof__svg_stream_write(pyprof__svg_stream *st, const pyprof__item *it)
{
    item(&st->w, it);
}

struct pyprof__svg_piece {
    struct w w; /* no writer: item() only adds to w.b */
};

pyprof__svg_piece *
pyprof__svg_piece_new(void)
{
    return pyprof__calloc(1, sizeof(pyprof__svg_piece));
}

void
pyprof__svg_piece_write(pyprof__svg_piece *pc, const pyprof__item *it)
{
    item(&pc->w, it);
}

void
pyprof__svg_stream_put_piece(pyprof__svg_stream *st, pyprof__svg_piece *pc)
{
    struct w *w = &st->w;
    /* the piece between elements: its bytes are what the stream's own
     * item() calls would have added, which start by ending the stream's
     * open start tag, if any */
    if (pc->w.bad || pc->w.b.bad || pc->w.groups || pc->w.open) {
        w->bad = 1;
    } else if (pc->w.b.len) {
        content(w);
        flush(w);
        raw_out(w, pc->w.b.p, pc->w.b.len); /* (not copied into b first) */
    }
    pyprof__svg_piece_free(pc);
}

void
pyprof__svg_piece_free(pyprof__svg_piece *pc)
{
    if (pc)
        pyprof__svgbuf_free(&pc->w.b);
    pyprof__free(pc);
}

int
pyprof__svg_stream_close(pyprof__svg_stream *st, pyprof_error *err)
{
    struct w *w = &st->w;
    pyprof_output *o = w->o;
    for (; w->groups; w->groups--) /* as the writer closes what is left open */
        END(w, "g");
    flush(w);
    pyprof__svgbuf_free(&w->b);
    if (w->api->end_document(w->x) < 0)
        w->bad = 1;
    w->api->writer_free(w->x); /* flushes and closes ob */
    int bad = w->bad;
    pyprof__free(st);
    int rc = pyprof_output_status(o, err);
    if (rc < 0)
        return rc;
    if (bad)
        return pyprof_error_set(err, PYPROF_EIO, pyprof_output_name(o), "svg", -1, 0,
                                "writing the SVG failed");
    return 0;
}

int
pyprof__scene_write_svg(const pyprof__scene *s, pyprof_output *o, pyprof_error *err)
{
    pyprof__svg_stream *st;
    int rc = pyprof__svg_stream_open(&st, s, o, err);
    return rc < 0 ? rc : pyprof__svg_stream_close(st, err);
}
