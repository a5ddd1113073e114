/*
 * scene_svg.c - the SVG backend: libxml2's xmlTextWriter streams the scene
 * into a pyprof_output, so escaping and well-formedness are libxml2's job
 * (model strings are valid UTF-8, which libxml2 does not check for us).
 * Numbers are written in the C locale with at most two decimals and no
 * trailing zeros, which keeps files small and byte-stable.
 */
#include "config.h"

#include <libxml/xmlwriter.h>

#include "scene.h"

static int
out_write(void *ctx, const char *buf, int len)
{
    pyprof_output_write(ctx, buf, (size_t)len);
    return pyprof_output_status(ctx, NULL) ? -1 : len;
}

static int
out_close(void *ctx)
{
    (void)ctx;
    return 0;
}

/* "%.2f" without trailing zeros: 10 / 10.5 / 10.25 */
static const char *
num(char *buf, size_t size, double v)
{
    if (v > -0.005 && v < 0.005)
        v = 0; /* no "-0" */
    /* Most coordinates are whole or tenths (flamegraph.pl rounds to 0.1):
     * when v * 10 rounds to an integer n, v is n / 10 to far better than
     * 0.005, so "%.2f" would print n / 10 and a zero that is trimmed.
     * Written directly: printf is most of the time of a big SVG. */
    double t = v * 10;
    if (size >= 24 && t > -1e15 && t < 1e15 && t == (double)(int64_t)t) {
        int64_t n = (int64_t)t;
        uint64_t a = n < 0 ? (uint64_t)-n : (uint64_t)n;
        char tmp[24];
        size_t k = sizeof tmp;
        unsigned tenth = (unsigned)(a % 10);
        a /= 10;
        do {
            tmp[--k] = (char)('0' + a % 10);
            a /= 10;
        } while (a);
        if (n < 0)
            tmp[--k] = '-';
        size_t o = sizeof tmp - k;
        memcpy(buf, tmp + k, o);
        if (tenth) {
            buf[o++] = '.';
            buf[o++] = (char)('0' + tenth);
        }
        buf[o] = '\0';
        return buf;
    }
    pyprof__snprintf_c(buf, size, "%.2f", v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *dot = '\0';
    }
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

struct w {
    xmlTextWriterPtr x;
    int bad;
};

static void
attr(struct w *w, const char *name, const char *value)
{
    if (xmlTextWriterWriteAttribute(w->x, BAD_CAST name, BAD_CAST value) < 0)
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
    if (xmlTextWriterStartElement(w->x, BAD_CAST name) < 0)
        w->bad = 1;
}

static void
end(struct w *w)
{
    if (xmlTextWriterEndElement(w->x) < 0)
        w->bad = 1;
}

static void
common_attrs(struct w *w, const pyprof__item *it)
{
    if (it->id)
        attr(w, "id", it->id);
    if (it->cls)
        attr(w, "class", it->cls);
    for (size_t i = 0; i < it->nattrs; i++)
        attr(w, it->attrs[2 * i], it->attrs[2 * i + 1]);
}

static void
stroke_attrs(struct w *w, const pyprof__item *it)
{
    char b[64];
    attr(w, "stroke", color(b, sizeof b, it->stroke));
    if (it->stroke.a && it->stroke.a != 255)
        attr_num(w, "stroke-opacity", it->stroke.a / 255.0);
    if (it->stroke_width > 0)
        attr_num(w, "stroke-width", it->stroke_width);
    if (it->dashed && it->dash[0] > 0) {
        char on[32], off[32];
        pyprof__snprintf_c(b, sizeof b, "%s,%s", num(on, sizeof on, it->dash[0]),
                           num(off, sizeof off, it->dash[1]));
        attr(w, "stroke-dasharray", b);
    } else if (it->dashed) {
        attr(w, "stroke-dasharray", "4,3");
    }
}

static void
fill_attrs(struct w *w, pyprof__rgba c)
{
    char b[64];
    attr(w, "fill", color(b, sizeof b, c));
    if (c.a && c.a != 255)
        attr_num(w, "fill-opacity", c.a / 255.0);
}

static void
points_attr(struct w *w, const pyprof__item *it)
{
    /* built in one buffer: "x,y x,y ..." (at most ~40 bytes a point) */
    size_t cap = it->npoints * 48 + 1;
    char *buf = pyprof__malloc(cap);
    if (!buf) {
        w->bad = 1;
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < it->npoints; i++) {
        char a[32], b[32];
        o += (size_t)pyprof__snprintf_c(buf + o, cap - o, "%s%s,%s", i ? " " : "",
                                        num(a, sizeof a, it->points[2 * i]),
                                        num(b, sizeof b, it->points[2 * i + 1]));
    }
    buf[o] = '\0';
    attr(w, "points", buf);
    pyprof__free(buf);
}

static void
item(struct w *w, const pyprof__item *it)
{
    char b[96];
    switch (it->kind) {
    case PYPROF__ITEM_GROUP_BEGIN:
        start(w, "g");
        common_attrs(w, it);
        if (it->text) {
            start(w, "title");
            if (xmlTextWriterWriteString(w->x, BAD_CAST it->text) < 0)
                w->bad = 1;
            end(w);
        }
        break;
    case PYPROF__ITEM_GROUP_END:
        end(w);
        break;
    case PYPROF__ITEM_RECT:
        start(w, "rect");
        attr_num(w, "x", it->x);
        attr_num(w, "y", it->y);
        attr_num(w, "width", it->w);
        attr_num(w, "height", it->h);
        fill_attrs(w, it->fill);
        if (it->stroke.a)
            stroke_attrs(w, it);
        if (it->rx > 0) {
            attr_num(w, "rx", it->rx);
            attr_num(w, "ry", it->rx);
        }
        common_attrs(w, it);
        end(w);
        break;
    case PYPROF__ITEM_LINE:
        start(w, "line");
        attr_num(w, "x1", it->x);
        attr_num(w, "y1", it->y);
        attr_num(w, "x2", it->w);
        attr_num(w, "y2", it->h);
        stroke_attrs(w, it);
        common_attrs(w, it);
        end(w);
        break;
    case PYPROF__ITEM_POLYLINE:
        start(w, "polyline");
        points_attr(w, it);
        attr(w, "fill", "none");
        stroke_attrs(w, it);
        common_attrs(w, it);
        end(w);
        break;
    case PYPROF__ITEM_POLYGON:
        start(w, "polygon");
        points_attr(w, it);
        fill_attrs(w, it->fill);
        common_attrs(w, it);
        end(w);
        break;
    case PYPROF__ITEM_TEXT:
        start(w, "text");
        attr_num(w, "x", it->x);
        attr_num(w, "y", it->y);
        if (it->anchor != PYPROF__ANCHOR_START)
            attr(w, "text-anchor", it->anchor == PYPROF__ANCHOR_MIDDLE ? "middle" : "end");
        attr_num(w, "font-size", it->font_size);
        if (it->bold)
            attr(w, "font-weight", "bold");
        if (it->rotate != 0) {
            char x[32], y[32], r[32];
            pyprof__snprintf_c(b, sizeof b, "rotate(%s %s %s)", num(r, sizeof r, it->rotate),
                               num(x, sizeof x, it->x), num(y, sizeof y, it->y));
            attr(w, "transform", b);
        }
        if (!(it->fill.r == 0 && it->fill.g == 0 && it->fill.b == 0 && it->fill.a == 255))
            fill_attrs(w, it->fill);
        common_attrs(w, it);
        if (xmlTextWriterWriteString(w->x, BAD_CAST it->text) < 0)
            w->bad = 1;
        end(w);
        break;
    }
}

int
pyprof__scene_write_svg(const pyprof__scene *s, pyprof_output *o, pyprof_error *err)
{
    xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(out_write, out_close, o, NULL);
    if (!ob)
        return pyprof_error_set(err, PYPROF_ENOMEM, pyprof_output_name(o), "svg", -1, 0,
                                "out of memory");
    struct w w = {xmlNewTextWriter(ob), 0};
    if (!w.x) {
        xmlOutputBufferClose(ob);
        return pyprof_error_set(err, PYPROF_ENOMEM, pyprof_output_name(o), "svg", -1, 0,
                                "out of memory");
    }
    xmlTextWriterSetIndent(w.x, 0);
    if (xmlTextWriterStartDocument(w.x, "1.0", "UTF-8", "no") < 0)
        w.bad = 1;
    start(&w, "svg");
    attr(&w, "version", "1.1");
    attr_num(&w, "width", pyprof__scene_width(s));
    attr_num(&w, "height", pyprof__scene_height(s));
    char vb[128], a[32], b[32];
    pyprof__snprintf_c(vb, sizeof vb, "0 0 %s %s", num(a, sizeof a, pyprof__scene_width(s)),
                       num(b, sizeof b, pyprof__scene_height(s)));
    attr(&w, "viewBox", vb);
    attr(&w, "xmlns", "http://www.w3.org/2000/svg");
    attr(&w, "xmlns:xlink", "http://www.w3.org/1999/xlink");
    const char *const *ra;
    size_t nra = pyprof__scene_root_attrs(s, &ra);
    for (size_t i = 0; i < nra; i++)
        attr(&w, ra[2 * i], ra[2 * i + 1]);
    xmlTextWriterWriteString(w.x, BAD_CAST "\n");
    const char *const *cm;
    size_t ncm = pyprof__scene_comments(s, &cm);
    for (size_t i = 0; i < ncm; i++) {
        char *c = pyprof__strdup(cm[i]);
        if (!c) {
            w.bad = 1;
            break;
        }
        for (char *q = c; (q = strstr(q, "--")) != NULL;)
            *q = ' '; /* "--" is not allowed inside an XML comment */
        size_t n = strlen(c);
        if (n && c[n - 1] == '-')
            c[n - 1] = ' ';
        if (xmlTextWriterWriteComment(w.x, BAD_CAST c) < 0)
            w.bad = 1;
        pyprof__free(c);
        xmlTextWriterWriteString(w.x, BAD_CAST "\n");
    }

    pyprof__rgba top, bottom;
    pyprof__scene_background(s, &top, &bottom);
    char c1[32], c2[32];
    start(&w, "defs");
    start(&w, "linearGradient");
    attr(&w, "id", "background");
    attr(&w, "y1", "0");
    attr(&w, "y2", "1");
    attr(&w, "x1", "0");
    attr(&w, "x2", "0");
    start(&w, "stop");
    attr(&w, "stop-color", color(c1, sizeof c1, top));
    attr(&w, "offset", "5%");
    end(&w);
    start(&w, "stop");
    attr(&w, "stop-color", color(c2, sizeof c2, bottom));
    attr(&w, "offset", "95%");
    end(&w);
    end(&w);
    end(&w);
    xmlTextWriterWriteString(w.x, BAD_CAST "\n");
    const char *style = pyprof__scene_style(s);
    char font_css[256];
    pyprof__snprintf_c(font_css, sizeof font_css, "text { font-family: %s; }\n",
                       pyprof__scene_font(s));
    start(&w, "style");
    attr(&w, "type", "text/css");
    xmlTextWriterWriteString(w.x, BAD_CAST font_css);
    if (style)
        xmlTextWriterWriteString(w.x, BAD_CAST style);
    end(&w);
    xmlTextWriterWriteString(w.x, BAD_CAST "\n");
    const char *script = pyprof__scene_script(s);
    if (script) {
        start(&w, "script");
        attr(&w, "type", "text/ecmascript");
        if (xmlTextWriterWriteCDATA(w.x, BAD_CAST script) < 0)
            w.bad = 1;
        end(&w);
        xmlTextWriterWriteString(w.x, BAD_CAST "\n");
    }
    start(&w, "rect");
    attr(&w, "x", "0");
    attr(&w, "y", "0");
    attr(&w, "width", "100%");
    attr(&w, "height", "100%");
    attr(&w, "fill", "url(#background)");
    end(&w);
    xmlTextWriterWriteString(w.x, BAD_CAST "\n");

    for (size_t i = 0; i < pyprof__scene_item_count(s); i++) {
        const pyprof__item *it = pyprof__scene_item(s, i);
        item(&w, it);
        if (it->kind != PYPROF__ITEM_GROUP_BEGIN)
            xmlTextWriterWriteString(w.x, BAD_CAST "\n");
    }
    if (xmlTextWriterEndDocument(w.x) < 0)
        w.bad = 1;
    xmlFreeTextWriter(w.x); /* flushes and closes ob */
    int rc = pyprof_output_status(o, err);
    if (rc < 0)
        return rc;
    if (w.bad)
        return pyprof_error_set(err, PYPROF_EIO, pyprof_output_name(o), "svg", -1, 0,
                                "writing the SVG failed");
    return 0;
}
