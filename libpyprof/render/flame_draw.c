/*
 * flame_draw.c - a flame graph layout as a scene (formats.md §9.3-9.4), then
 * SVG or PNG.  The SVG follows flamegraph.pl's document: title, details
 * line, "Reset Zoom", "Search", "ic" and "Matched" texts with the same ids,
 * and one <g> per frame holding a <title> tooltip, the rectangle and its
 * label, inside <g id="frames">; our own script (flame_script.c) makes it
 * interactive.  The PNG is drawn from the same scene without the
 * interactive texts.
 */
#include "config.h"

#include <math.h>
#ifdef HAVE_PTHREAD
#include <pthread.h>
#include <stdatomic.h>
#endif
#include <stdio.h>

#include "flame_int.h"
#include "scene.h"
#include "svg_markup.h"
#include "xml_load.h"

static const char style_css[] =
    "#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
    "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
    "#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
    "#title { text-anchor:middle; }\n"
    "#unzoom { cursor:pointer; }\n"
    "#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
    ".hide { display:none; }\n"
    ".parent { opacity:0.5; }\n";

/* Room for any count or percentage as text: "%.0f" of DBL_MAX has 309
 * digits, and 102 commas among them.  Absurd counts are still counts; a
 * shorter buffer cut their digits off, a silently wrong number. */
#define NUM_TEXT 420

/* "%.0f" (b[0..n), as pyprof__fmt_fixed0 wrote it) with thousands
 * separators, as flamegraph.pl's tooltips */
static void
count_commas(char *out, size_t size, const char *b, size_t n)
{
    const char *digits = b[0] == '-' ? b + 1 : b;
    size_t nd = n - (size_t)(digits - b), o = 0;
    if (b[0] == '-' && o + 1 < size)
        out[o++] = '-';
    for (size_t i = 0; i < nd && o + 2 < size; i++) {
        if (i && (nd - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

/* The value "%.0f" printed (s[0..n) is fixed0's): strtod's, but
 * all-digit strings convert exactly as strtod rounds (both round to
 * nearest), and they are nearly all of them. */
static double
parse_count(const char *s, size_t n)
{
    const char *d = s[0] == '-' ? s + 1 : s;
    size_t nd = n - (size_t)(d - s);
    if (nd == 0 || nd > 19)
        return pyprof__strtod_c(s, NULL);
    uint64_t u = 0;
    for (size_t i = 0; i < nd; i++) {
        if (d[i] < '0' || d[i] > '9')
            return pyprof__strtod_c(s, NULL);
        u = u * 10 + (uint64_t)(d[i] - '0');
    }
    return s[0] == '-' ? -(double)u : (double)u;
}

/* Appending as snprintf into out[size] would: at most size - 1 bytes. */
typedef struct tipbuf {
    char *p;
    size_t size, len;
} tipbuf;

static void
tip_put(tipbuf *t, const char *s, size_t n)
{
    size_t room = t->size - 1 - t->len;
    if (n > room)
        n = room;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void
tip_str(tipbuf *t, const char *s)
{
    tip_put(t, s, strlen(s));
}

/* "NAME (COUNT UNIT, PCT%)" or "NAME (COUNT UNIT, PCT%; DELTA%)", built
 * without printf: it was a third of the time of drawing a big graph. */
static void
tooltip(const pyprof_flame *f, const pyprof_flame_frame *fr, char *out, size_t size)
{
    char n[NUM_TEXT], rounded[NUM_TEXT];
    double factor = f->o.factor;
    double count = (fr->end - fr->start) * factor;
    size_t rl = pyprof__fmt_fixed0(rounded, sizeof rounded, count);
    count_commas(n, sizeof n, rounded, rl);
    tipbuf t = {out, size, 0};
    out[0] = '\0';
    if (fr->depth == 0) {
        tip_str(&t, "all (");
        tip_str(&t, n);
        tip_str(&t, " ");
        tip_str(&t, f->o.countname);
        tip_str(&t, ", 100%)");
        return;
    }
    /* the percentage uses the rounded count, as flamegraph.pl does */
    char pct[NUM_TEXT];
    pyprof__fmt_fixed2(pct, sizeof pct, 100 * parse_count(rounded, rl) / (f->total * factor));
    size_t nl = pyprof__flame_strip_annotation(fr->name, strlen(fr->name));
    tip_put(&t, fr->name, nl);
    tip_str(&t, " (");
    tip_str(&t, n);
    tip_str(&t, " ");
    tip_str(&t, f->o.countname);
    tip_str(&t, ", ");
    tip_str(&t, pct);
    if (fr->has_delta) {
        double d = f->o.negate ? -fr->delta : fr->delta;
        char dp[NUM_TEXT]; /* "%s%.2f" of "+" (if d > 0) and the number, as before */
        dp[0] = '+';
        pyprof__fmt_fixed2(dp + (d > 0), sizeof dp - (d > 0), 100 * d / (f->total * factor));
        tip_str(&t, "%; ");
        tip_str(&t, dp);
    }
    tip_str(&t, "%)");
}

/* The label that fits in the frame: flamegraph.pl's character-count model. */
static void
label(const pyprof_flame *f, const pyprof_flame_frame *fr, double width_px, char *out, size_t size)
{
    out[0] = '\0';
    int chars = (int)(width_px / (f->o.fontsize * f->o.fontwidth));
    if (chars < 3)
        return;
    const char *name = fr->name;
    size_t len = pyprof__flame_strip_annotation(name, strlen(name));
    /* byte offset after `chars` code points */
    size_t i = 0;
    int cp = 0;
    while (i < len && cp < chars) {
        i++;
        while (i < len && ((unsigned char)name[i] & 0xC0) == 0x80)
            i++;
        cp++;
    }
    if (i >= len) {
        snprintf(out, size, "%.*s", (int)len, name);
        return;
    }
    /* longer than fits: the last two of the `chars` characters become ".." */
    size_t j = 0;
    for (int k = 0; k < chars - 2 && j < len; k++) {
        j++;
        while (j < len && ((unsigned char)name[j] & 0xC0) == 0x80)
            j++;
    }
    snprintf(out, size, "%.*s..", (int)j, name);
}

static int
text_id(pyprof__scene *s, double x, double y, const char *text, double size, pyprof__anchor a,
        const char *id, const char *cls)
{
    int rc = pyprof__scene_text(s, x, y, text, size, a, PYPROF__RGB(0, 0, 0));
    if (rc == 0 && id)
        rc = pyprof__scene_id(s, id);
    if (rc == 0 && cls)
        rc = pyprof__scene_class(s, cls);
    return rc;
}

/* A frame's tooltip, its label and the label's baseline. */
static void
frame_texts(const pyprof_flame *f, const pyprof_flame_frame *fr, double ppu, char *tip,
            size_t tipsize, char *lab, size_t labsize, double *label_y)
{
    const pyprof_flame_options *o = &f->o;
    double fs = o->fontsize;
    tooltip(f, fr, tip, tipsize);
    double x1 = FLAME_XPAD + fr->start * ppu, x2 = FLAME_XPAD + fr->end * ppu;
    if (fr->depth == 0) {
        snprintf(lab, labsize, "%s", (x2 - x1) / (fs * o->fontwidth) >= 3 ? "all" : "");
    } else {
        label(f, fr, x2 - x1, lab, labsize);
    }
    *label_y = 3 + fr->y + fr->h / 2 + (o->inverted ? 0 : 0);
}

/* The scene; with `frames` false, without the frames and with their
 * group, <g id="frames">, left open (pyprof_flame_write_svg streams them). */
static int
flame_scene(const pyprof_flame *f, bool interactive, bool frames, pyprof__scene **out)
{
    int rc;
    pyprof__scene *s;
    const pyprof_flame_options *o = &f->o;
    char buf[4096], lab[1024];
    if ((rc = pyprof__scene_new(&s, f->width, f->height)) < 0)
        return rc;
#define TRY(e)                                                                                     \
    do {                                                                                           \
        if ((rc = (e)) < 0)                                                                        \
            goto out;                                                                              \
    } while (0)
    TRY(pyprof__scene_set_font(s, o->fonttype));
    pyprof__scene_set_background(s, PYPROF__RGB(f->bg[0][0], f->bg[0][1], f->bg[0][2]),
                                 PYPROF__RGB(f->bg[1][0], f->bg[1][1], f->bg[1][2]));
    if (interactive) {
        TRY(pyprof__scene_add_comment(s, " Flame graph stack visualization, drawn by libpyprof "
                                         "(flamegraph.pl's layout and interaction). "));
        snprintf(buf, sizeof buf, " NOTES: %s ", f->notes ? f->notes : "");
        TRY(pyprof__scene_add_comment(s, buf));
        TRY(pyprof__scene_root_attr(s, "onload", "init(evt)"));
        /* a generic fallback, for viewers without the font (Verdana is rare
         * on Linux, and browsers otherwise fall back to a serif face) */
        char css[sizeof style_css + 300], fam[200];
        size_t nf = 0;
        for (const char *q = o->fonttype; *q && nf + 1 < sizeof fam; q++)
            if (!strchr(";{}<>\\", *q))
                fam[nf++] = *q;
        fam[nf] = '\0';
        snprintf(css, sizeof css, "text { font-family: %s, sans-serif; }\n%s", fam, style_css);
        TRY(pyprof__scene_set_style(s, css));
        size_t n = strlen(pyprof__flame_script) + 512 + strlen(o->nametype) * 2;
        char *js = pyprof__malloc(n);
        if (!js) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        /* the name type goes into a JS string: keep only safe characters */
        char nt[128];
        size_t k = 0;
        for (const char *q = o->nametype; *q && k + 1 < sizeof nt; q++)
            if (*q != '"' && *q != '\\' && *q != '<' && *q != '>' && *q != '&' &&
                (unsigned char)*q >= 0x20)
                nt[k++] = *q;
        nt[k] = '\0';
        pyprof__snprintf_c(js, n,
                           "var cfg = {xpad: %g, fontsize: %g, fontwidth: %g, inverted: %s, "
                           "nametype: \"%s\"};\n%s",
                           FLAME_XPAD, o->fontsize, o->fontwidth, o->inverted ? "true" : "false",
                           nt, pyprof__flame_script);
        rc = pyprof__scene_set_script(s, js);
        pyprof__free(js);
        TRY(rc);
    }
    double W = f->width, H = f->height, fs = o->fontsize;
    TRY(text_id(s, floor(W / 2), fs * 2, f->title, fs + 5, PYPROF__ANCHOR_MIDDLE, "title", NULL));
    if (f->subtitle) {
        TRY(text_id(s, floor(W / 2), fs * 4, f->subtitle, fs, PYPROF__ANCHOR_MIDDLE, "subtitle",
                    NULL));
    }
    if (interactive) {
        TRY(text_id(s, FLAME_XPAD, H - f->ypad2 / 2, " ", fs, PYPROF__ANCHOR_START, "details",
                    NULL));
        TRY(text_id(s, FLAME_XPAD, fs * 2, "Reset Zoom", fs, PYPROF__ANCHOR_START, "unzoom",
                    "hide"));
        TRY(text_id(s, W - 110, fs * 2, "Search", fs, PYPROF__ANCHOR_START, "search", NULL));
        TRY(text_id(s, W - 26, fs * 2, "ic", fs, PYPROF__ANCHOR_START, "ignorecase", NULL));
        TRY(text_id(s, W - 110, H - f->ypad2 / 2, " ", fs, PYPROF__ANCHOR_START, "matched", NULL));
    }
    TRY(pyprof__scene_group_begin(s, NULL));
    TRY(pyprof__scene_id(s, "frames"));
    if (frames) {
        double ppu = (W - 2 * FLAME_XPAD) / f->total;
        for (size_t i = 0; i < f->nframes; i++) {
            const pyprof_flame_frame *fr = &f->frames[i];
            double ly;
            frame_texts(f, fr, ppu, buf, sizeof buf, lab, sizeof lab, &ly);
            TRY(pyprof__scene_group_begin(s, buf));
            TRY(pyprof__scene_rect(s, fr->x, fr->y, fr->w, fr->h, PYPROF__RGB(fr->r, fr->g, fr->b),
                                   PYPROF__NO_COLOR, 0, 2));
            TRY(pyprof__scene_text(s, fr->x + 3, ly, lab, fs, PYPROF__ANCHOR_START,
                                   PYPROF__RGB(0, 0, 0)));
            TRY(pyprof__scene_group_end(s));
        }
        TRY(pyprof__scene_group_end(s));
    }
#undef TRY
out:
    if (rc < 0) {
        pyprof__scene_free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

int
pyprof__flame_scene(const pyprof_flame *f, bool interactive, pyprof__scene **out)
{
    return flame_scene(f, interactive, true, out);
}

/* Frames [from, to) as SVG items: to the stream st, or else to piece pc.
 * The items live on the stack: storing four items and two strings a frame
 * in the scene first cost as much as writing them. */
static void
write_frames(const pyprof_flame *f, size_t from, size_t to, pyprof__svg_stream *st,
             pyprof__svg_piece *pc)
{
    char tip[4096], lab[1024];
    pyprof__item group = {.kind = PYPROF__ITEM_GROUP_BEGIN, .text = tip};
    pyprof__item rect = {.kind = PYPROF__ITEM_RECT, .stroke = PYPROF__NO_COLOR, .rx = 2};
    pyprof__item text = {.kind = PYPROF__ITEM_TEXT,
                         .text = lab,
                         .font_size = f->o.fontsize,
                         .anchor = PYPROF__ANCHOR_START,
                         .fill = PYPROF__RGB(0, 0, 0)};
    pyprof__item group_end = {.kind = PYPROF__ITEM_GROUP_END};
    const pyprof__item *items[] = {&group, &rect, &text, &group_end};
    double ppu = (f->width - 2 * FLAME_XPAD) / f->total;
    for (size_t i = from; i < to; i++) {
        const pyprof_flame_frame *fr = &f->frames[i];
        frame_texts(f, fr, ppu, tip, sizeof tip, lab, sizeof lab, &text.y);
        rect.x = fr->x;
        rect.y = fr->y;
        rect.w = fr->w;
        rect.h = fr->h;
        rect.fill = PYPROF__RGB(fr->r, fr->g, fr->b);
        text.x = fr->x + 3;
        for (size_t k = 0; k < sizeof items / sizeof *items; k++) {
            if (st)
                pyprof__svg_stream_write(st, items[k]);
            else
                pyprof__svg_piece_write(pc, items[k]);
        }
    }
}

/* Below this many frames the second thread would save less than it costs
 * to start (making a frame's markup takes about 0.4 us). */
#define SPLIT_FRAMES 2048

/* Frames a chunk of markup holds when two threads make it (see below). */
#define CHUNK_FRAMES 512

#ifdef HAVE_PTHREAD
/*
 * The markup of a big graph (15,000 frames, 3.4 MB, from a 100 MB file)
 * took 6.5 ms on one thread.  Two threads make it in chunks of frames, each
 * taking the next chunk not yet taken, into a piece of its own; this thread
 * also puts the pieces made so far in the stream, in order, between its
 * chunks.  Writing is a third of the work (the bytes go to the file), and
 * while each thread made a fixed half, the second half's 1.7 MB were still
 * to be written when both halves were made: 1.1 ms on this thread alone.
 * Taking chunks shares the writing out too, whatever the speed of either.
 */
struct chunks {
    const pyprof_flame *f;
    size_t n;                 /* chunks */
    atomic_size_t next;       /* the next chunk to take */
    pyprof__svg_piece **pc;   /* each chunk's piece (NULL: none could be made) */
    atomic_bool *made;        /* whether pc[k] is final */
};

/* The frames after chunk k's: its first is k * CHUNK_FRAMES. */
static size_t
chunk_end(const struct chunks *c, size_t k)
{
    size_t to = (k + 1) * CHUNK_FRAMES;
    return to < c->f->nframes ? to : c->f->nframes;
}

static void
make_chunk(struct chunks *c, size_t k)
{
    c->pc[k] = pyprof__svg_piece_new();
    if (c->pc[k])
        write_frames(c->f, k * CHUNK_FRAMES, chunk_end(c, k), NULL, c->pc[k]);
    atomic_store_explicit(&c->made[k], true, memory_order_release);
}

static void *
make_chunks(void *arg)
{
    struct chunks *c = arg;
    size_t k;
    while ((k = atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed)) < c->n)
        make_chunk(c, k);
    return NULL;
}

/* Chunk k into the stream: its piece, or (no memory for one) its frames
 * made here and now. */
static void
put_chunk(struct chunks *c, size_t k, pyprof__svg_stream *st)
{
    if (c->pc[k]) {
        pyprof__svg_stream_put_piece(st, c->pc[k]);
        c->pc[k] = NULL;
        return;
    }
    write_frames(c->f, k * CHUNK_FRAMES, chunk_end(c, k), st, NULL);
}

/* All frames into st on two threads; false if no second thread could be
 * had (nothing was written then). */
static bool
write_frames_shared(const pyprof_flame *f, pyprof__svg_stream *st)
{
    struct chunks c = {.f = f, .n = (f->nframes + CHUNK_FRAMES - 1) / CHUNK_FRAMES};
    atomic_init(&c.next, 0);
    c.pc = pyprof__calloc(c.n, sizeof(*c.pc));
    c.made = pyprof__malloc(c.n * sizeof(*c.made));
    for (size_t k = 0; c.made && k < c.n; k++)
        atomic_init(&c.made[k], false); /* (before the helper may set one) */
    pthread_t th;
    if (!c.pc || !c.made || pthread_create(&th, NULL, make_chunks, &c) != 0) {
        pyprof__free(c.pc);
        pyprof__free(c.made);
        return false;
    }
    size_t k, put = 0;
    while ((k = atomic_fetch_add_explicit(&c.next, 1, memory_order_relaxed)) < c.n) {
        make_chunk(&c, k);
        while (put < c.n && atomic_load_explicit(&c.made[put], memory_order_acquire))
            put_chunk(&c, put++, st);
    }
    pthread_join(th, NULL);
    while (put < c.n)
        put_chunk(&c, put++, st);
    pyprof__free(c.pc);
    pyprof__free(c.made);
    return true;
}
#endif

/* The bytes are those of pyprof__flame_scene's scene. */
int
pyprof_flame_write_svg(const pyprof_flame *f, pyprof_output *o, pyprof_error *err)
{
    pyprof__scene *s;
    int rc = flame_scene(f, true, false, &s);
    if (rc < 0)
        return pyprof_error_set(err, rc, pyprof_output_name(o), "svg", -1, 0, "%s",
                                pyprof_status_string(rc));
    pyprof__svg_stream *st;
    rc = pyprof__svg_stream_open(&st, s, o, err);
    pyprof__scene_free(s);
    if (rc < 0)
        return rc;
    bool done = false;
#ifdef HAVE_PTHREAD
    if (f->nframes >= SPLIT_FRAMES)
        done = write_frames_shared(f, st);
#endif
    if (!done)
        write_frames(f, 0, f->nframes, st, NULL);
    pyprof__item group_end = {.kind = PYPROF__ITEM_GROUP_END};
    pyprof__svg_stream_write(st, &group_end); /* <g id="frames"> */
    return pyprof__svg_stream_close(st, err);
}

int
pyprof_flame_write_png(const pyprof_flame *f, pyprof_output *o, pyprof_error *err)
{
    pyprof__scene *s;
    int rc = pyprof__flame_scene(f, false, &s);
    if (rc < 0)
        return pyprof_error_set(err, rc, pyprof_output_name(o), "png", -1, 0, "%s",
                                pyprof_status_string(rc));
    rc = pyprof__scene_write_png(s, o, err);
    pyprof__scene_free(s);
    return rc;
}

int
pyprof_render_flame(pyprof_profile *p, const pyprof_flame_options *opts, const char *type,
                    pyprof_output *o, pyprof_error *err)
{
    if (type && strcmp(type, "svg") != 0 && strcmp(type, "png") != 0)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, "flame", -1, 0,
                                "unknown output type '%s' (svg or png)", type);
    bool png = type && strcmp(type, "png") == 0;
    pyprof__xml_preload *xml = png ? NULL : pyprof__xml_preload_start(); /* during the layout */
    pyprof_flame *f;
    int rc = pyprof_flame_layout(&f, p, opts, err);
    pyprof__xml_preload_end(xml);
    if (rc < 0)
        return rc;
    if (png)
        rc = pyprof_flame_write_png(f, o, err);
    else
        rc = pyprof_flame_write_svg(f, o, err);
    pyprof_flame_free(f);
    return rc;
}
