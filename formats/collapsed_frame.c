/*
 * collapsed_frame.c - a folded-stack frame: splitting its text into name,
 * file and line and rebuilding the text from them (formats.md §8.2-8.4), and
 * finding the function a frame text stands for, through a cache that the
 * reader's hot path (collapsed_stack.c) asks for every frame.
 *
 * Shapes:  py-spy      NAME (FILE:LINE)
 *          austin 1/2  NAME (FILE)          (the line is a separate "L<n>" frame)
 *          austin 3    FILE:NAME:LINE       (FILE may itself contain ':')
 * A split is accepted only when rebuilding gives the same bytes: the line
 * must be written canonically (no sign, no leading zero, at most 9 digits)
 * and name and file must be non-empty.  Anything else stays a plain name.
 */
#include "config.h"

#include <limits.h>

#include <pyprof/flame.h>

#include "collapsed.h"

/* A canonical positive line number in s[0..len), or -1. */
static int64_t
canonical_line(const char *s, size_t len)
{
    if (len == 0 || len > 9 || s[0] == '0')
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* The last occurrence of " (" in s[0..len), or NULL. */
static const char *
last_open_paren(const char *s, size_t len)
{
    while (len > 1) {
        const char *p = memrchr(s + 1, '(', len - 1);
        if (!p)
            return NULL;
        if (p[-1] == ' ')
            return p - 1;
        len = (size_t)(p - s);
    }
    return NULL;
}

bool
pyprof__frame_split(const char *s, size_t len, uint32_t shape, pyprof__frame_fields *out)
{
    memset(out, 0, sizeof(*out));
    out->shape = shape;
    if (len < 5)
        return false;
    if (shape == PYPROF_FUNC_FRAME_NAME_FILE_LINE || shape == PYPROF_FUNC_FRAME_NAME_FILE) {
        if (s[len - 1] != ')')
            return false;
        const char *open = last_open_paren(s, len - 1);
        if (!open || open == s)
            return false;
        const char *inner = open + 2, *end = s + len - 1;
        out->name = s;
        out->name_len = (size_t)(open - s);
        if (shape == PYPROF_FUNC_FRAME_NAME_FILE) {
            out->file = inner;
            out->file_len = (size_t)(end - inner);
            return out->file_len > 0;
        }
        const char *colon = memrchr(inner, ':', (size_t)(end - inner));
        if (!colon || colon == inner)
            return false;
        out->line = canonical_line(colon + 1, (size_t)(end - colon - 1));
        out->file = inner;
        out->file_len = (size_t)(colon - inner);
        return out->line > 0;
    }
    if (shape == PYPROF_FUNC_FRAME_FILE_NAME_LINE) {
        const char *c2 = memrchr(s, ':', len);
        if (!c2)
            return false;
        out->line = canonical_line(c2 + 1, (size_t)(s + len - c2 - 1));
        if (out->line <= 0)
            return false;
        const char *c1 = memrchr(s, ':', (size_t)(c2 - s));
        if (!c1 || c1 == s || c1 + 1 == c2)
            return false;
        out->file = s;
        out->file_len = (size_t)(c1 - s);
        out->name = c1 + 1;
        out->name_len = (size_t)(c2 - c1 - 1);
        return true;
    }
    return false;
}

/* py-spy's "NAME (FILE:LINE)" into buf as snprintf would write it, pieces
 * copied: labelling the 25,000 functions a big graph shows spent a third
 * of its time in snprintf parsing its format.  The rare label that does
 * not fit goes through snprintf, which truncates it. */
static int
name_file_line(char *buf, size_t size, const pyprof_profile *p, const pyprof_func *f)
{
    const char *name = pyprof_profile_string(p, f->name);
    const char *file = pyprof_profile_string(p, f->file);
    size_t nn = pyprof_profile_string_len(p, f->name), fl = pyprof_profile_string_len(p, f->file);
    char digits[24];
    size_t dl = (size_t)(pyprof__fmt_i64(digits, f->line) - digits), n = nn + 2 + fl + 1 + dl + 1;
    if (n >= size || n > INT_MAX)
        return snprintf(buf, size, "%s (%s:%lld)", name, file, (long long)f->line);
    char *o = buf;
    memcpy(o, name, nn);
    o += nn;
    memcpy(o, " (", 2);
    o += 2;
    memcpy(o, file, fl);
    o += fl;
    *o++ = ':';
    memcpy(o, digits, dl);
    o += dl;
    *o++ = ')';
    *o = '\0';
    return (int)n;
}

size_t
pyprof_flame_frame_label(const pyprof_profile *p, pyprof_id func, char *buf, size_t size)
{
    const pyprof_func *f = pyprof_profile_func(p, func);
    if (!f) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    const char *name = pyprof_profile_string(p, f->name);
    const char *file = pyprof_profile_string(p, f->file);
    int n;
    switch (f->flags & PYPROF_FUNC_FRAME_MASK) {
    case PYPROF_FUNC_FRAME_NAME:
        n = snprintf(buf, size, "%s", name);
        break;
    case PYPROF_FUNC_FRAME_NAME_FILE_LINE:
        n = name_file_line(buf, size, p, f);
        break;
    case PYPROF_FUNC_FRAME_NAME_FILE:
        n = snprintf(buf, size, "%s (%s)", name, file);
        break;
    case PYPROF_FUNC_FRAME_FILE_NAME_LINE:
        n = snprintf(buf, size, "%s:%s:%lld", file, name, (long long)f->line);
        break;
    default:
        /* not from a frame (pstats): built-ins ("~" or "" file) show their
         * name alone, Python functions as py-spy shows them */
        if (!file[0] || strcmp(file, "~") == 0)
            n = snprintf(buf, size, "%s", name);
        else
            n = snprintf(buf, size, "%s (%s:%lld)", name, file, (long long)f->line);
        break;
    }
    return n < 0 ? 0 : (size_t)n;
}

static inline bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* ---- frame text to function ---------------------------------------------------------------- */

/* austin's leading process/thread frames: "P123", "T456", "T0:789", "Thread 7f12ab" */
static bool
is_austin_task_frame(const char *f, size_t n, size_t depth)
{
    if (depth > 1 || n < 2)
        return false;
    if (f[0] == 'P' && depth == 0) {
        for (size_t i = 1; i < n; i++)
            if (!is_digit(f[i]))
                return false;
        return true;
    }
    if (n > 7 && memcmp(f, "Thread ", 7) == 0)
        return depth == 0;
    if (f[0] == 'T') {
        for (size_t i = 1; i < n; i++)
            if (!is_digit(f[i]) && f[i] != ':' && f[i] != 'x' && !(f[i] >= 'a' && f[i] <= 'f'))
                return false;
        return true;
    }
    return false;
}

static int
intern_text(reader *r, pyprof_id *out, const char *s, size_t n, bool plain)
{
    if (plain || (pyprof__utf8_valid_prefix((const unsigned char *)s, n) == n && !memchr(s, 0, n)))
        return pyprof_profile_intern(r->p, out, s, n);
    return pyprof_profile_intern_lossy(r->p, out, s, n, 0);
}

/* The frame cache: most frames of a big file are repeats of a few
 * thousand texts, and this finds their function with one probe and one
 * compare, where interning the text and mapping it would cost four or five
 * scattered memory reads.  ASCII frames only, whose text needs no repair:
 * the cache compares with a copy of the frame's own bytes (r->ftext's). */
static pyprof_id
fcache_find(const reader *r, const char *f, size_t n, uint64_t h)
{
    if (!r->fc)
        return PYPROF_NONE;
    for (size_t j = h & r->fc_mask; r->fc[j].text; j = (j + 1) & r->fc_mask) {
        const struct frame_cache *e = &r->fc[j];
        if (e->hash == h && e->len == n && pyprof__same_text(e->text, f, n))
            return e->func;
    }
    return PYPROF_NONE;
}

/* Room in the frame cache for `more` entries: at most half the slots
 * used, or three quarters once the reader merges (fc_dense).  A merge adds
 * the second half's new functions to a table that then serves only the
 * few lookups left (tails read again): on the 100 MB benchmark file the
 * table doubled there, 16,400 entries rehashed into 65,536 slots (0.75-1
 * ms), to hold 19,100. */
static int
fcache_room(reader *r, size_t more)
{
    size_t cap = r->fc ? r->fc_mask + 1 : 0, ncap = cap ? cap : 4096;
    if ((r->fc_used + more) * (r->fc_dense ? 4 : 2) <= cap * (r->fc_dense ? 3 : 1))
        return 0;
    while ((r->fc_used + more) * 2 > ncap) {
        if (ncap > SIZE_MAX / 2 / sizeof(*r->fc))
            return PYPROF_ENOMEM;
        ncap *= 2;
    }
    struct frame_cache *nc = pyprof__zalloc(ncap, sizeof(*nc));
    if (!nc)
        return PYPROF_ENOMEM;
    for (size_t i = 0; r->fc && i <= r->fc_mask; i++) {
        if (!r->fc[i].text)
            continue;
        size_t j = r->fc[i].hash & (ncap - 1);
        while (nc[j].text)
            j = (j + 1) & (ncap - 1);
        nc[j] = r->fc[i];
    }
    pyprof__free(r->fc);
    r->fc = nc;
    r->fc_mask = ncap - 1;
    return 0;
}

static int
fcache_put(reader *r, uint64_t h, const char *text, size_t n, pyprof_id func)
{
    int rc;
    if (n > UINT32_MAX)
        return 0;
    if ((rc = fcache_room(r, 1)) < 0)
        return rc;
    size_t j = h & r->fc_mask;
    while (r->fc[j].text)
        j = (j + 1) & r->fc_mask;
    r->fc[j] = (struct frame_cache){h, text, (uint32_t)n, func};
    r->fc_used++;
    return 0;
}

/* Room in r->ftext for function ids below n. */
static int
ftext_room(reader *r, size_t n)
{
    if (n > r->ftext_cap) {
        size_t old = r->ftext_cap;
        if (PYPROF_GROW(r->ftext, r->ftext_cap, n) < 0)
            return PYPROF_ENOMEM;
        memset(r->ftext + old, 0, (r->ftext_cap - old) * sizeof(*r->ftext));
    }
    return 0;
}

/* Note that function `func` stands for frame text text[0..len), a stable
 * copy, and its hash h (0 if the text is not plain): the merge reads a
 * second half's functions back as text, and looks them up by that hash. */
static int
note_text(reader *r, pyprof_id func, const char *text, size_t len, uint64_t h)
{
    int rc;
    if ((rc = ftext_room(r, (size_t)func + 1)) < 0)
        return rc;
    if (!r->ftext[func].text)
        r->ftext[func] = (struct func_text){text, len, h};
    return 0;
}

int
pyprof__collapsed_frames_reserve(reader *r, size_t n)
{
    int rc = fcache_room(r, n);
    return rc < 0 ? rc : ftext_room(r, r->nfunc + n);
}

/* Split frame text s[0..n) at `depth` into *ff by the file's frame shape,
 * or by the first shape that fits if it has none yet (which then becomes
 * its shape); *flags gets the function's flags.  True if it was split. */
static bool
split_frame(reader *r, const char *s, size_t n, size_t depth, pyprof__frame_fields *ff,
            uint32_t *flags)
{
    *flags = PYPROF_FUNC_FRAME_NAME;
    if (r->dialect == D_AUSTIN && is_austin_task_frame(s, n, depth)) {
        *flags |= PYPROF_FUNC_SYNTHETIC;
        return false;
    }
    bool split = false;
    if (r->shape) {
        split = pyprof__frame_split(s, n, r->shape, ff);
    } else {
        static const uint32_t folded_shapes[] = {PYPROF_FUNC_FRAME_NAME_FILE_LINE,
                                                 PYPROF_FUNC_FRAME_FILE_NAME_LINE};
        static const uint32_t austin_shapes[] = {PYPROF_FUNC_FRAME_FILE_NAME_LINE,
                                                 PYPROF_FUNC_FRAME_NAME_FILE_LINE,
                                                 PYPROF_FUNC_FRAME_NAME_FILE};
        const uint32_t *shapes = r->dialect == D_AUSTIN ? austin_shapes : folded_shapes;
        size_t nshapes = r->dialect == D_AUSTIN ? 3 : 2;
        for (size_t i = 0; i < nshapes && !split; i++)
            if ((split = pyprof__frame_split(s, n, shapes[i], ff)))
                r->shape = shapes[i];
    }
    if (split)
        *flags = ff->shape;
    return split;
}

/* The function of frame text s[0..n): split by the file's frame shape
 * when it can be, its fields (or the whole text, as its name) interned.
 * `sid`: the string the text was stored as (text that is not plain), or
 * PYPROF_NONE; *split says whether the text was split. */
static int
func_of_text(reader *r, pyprof_id *out, const char *s, size_t n, size_t depth, pyprof_id sid,
             bool *split)
{
    int rc;
    pyprof__frame_fields ff;
    uint32_t flags;
    pyprof_id file = 0, name = sid;
    int64_t line = 0;
    *split = split_frame(r, s, n, depth, &ff, &flags);
    if (*split) {
        if ((rc = pyprof_profile_intern(r->p, &file, ff.file, ff.file_len)) < 0 ||
            (rc = pyprof_profile_intern(r->p, &name, ff.name, ff.name_len)) < 0)
            return rc;
        line = ff.line;
    } else if (sid == PYPROF_NONE && (rc = pyprof_profile_intern(r->p, &name, s, n)) < 0) {
        return rc; /* (the whole text is the name) */
    }
    return pyprof_profile_func_intern(r->p, out, file, line, name, flags, NULL);
}

int
pyprof__collapsed_func_make(reader *r, pyprof_id id, const char *text, size_t len)
{
    bool split;
    pyprof_id got;
    int rc = func_of_text(r, &got, text, len, 0, PYPROF_NONE, &split);
    /* (distinct plain texts are distinct functions: a split is taken only
     * when its fields give the text back, and a text left whole has no
     * file, where a split one has) */
    return rc < 0 ? rc : got == id ? 0 : PYPROF_EINVAL;
}

/* A new plain frame text f[0..n) (hash h) while function fields wait
 * (r->names_later): the next function id, a copy of the text to make it
 * from later, and a frame-cache entry. */
static int
name_later(reader *r, pyprof_id *out, const char *f, size_t n, uint64_t h)
{
    if (r->nfunc >= UINT32_MAX - 1)
        return PYPROF_ELIMIT;
    char *copy = pyprof__arena_alloc(&r->texts, n ? n : 1);
    if (!copy)
        return PYPROF_ENOMEM;
    memcpy(copy, f, n);
    *out = (pyprof_id)r->nfunc++;
    int rc = note_text(r, *out, copy, n, h);
    return rc < 0 ? rc : fcache_put(r, h, copy, n, *out);
}

/* The function for frame text f[0..n) at `depth` (0 = outermost); `plain`:
 * the text is known to be ASCII without NUL, and `h` is its hash.
 *
 * A plain text is its own stored text, and the frame cache finds it again,
 * so a new one is split as it is, and only its fields are interned: a
 * frame split into name and file keeps no string of the whole (a copy for
 * the cache, in r->texts, costs no lookup).  Other text is interned first,
 * repaired where it is not UTF-8 (so that two texts may be one string), and
 * that string is what is split and what maps to the function.  While
 * r->names_later, a new plain text only gets its id (see collapsed_names.c);
 * other text first makes every function that waits, so that strings are
 * interned in the order one pass interns them. */
int
pyprof__collapsed_frame_func(reader *r, pyprof_id *out, const char *f, size_t n, size_t depth,
                             bool plain, uint64_t h)
{
    if (plain && (*out = fcache_find(r, f, n, h)) != PYPROF_NONE)
        return 0;
    int rc;
    if (r->names_later) {
        if (plain && n <= UINT32_MAX) /* (longer texts are not cached: see fcache_put) */
            return name_later(r, out, f, n, h);
        if ((rc = pyprof__collapsed_names_flush(r)) < 0)
            return rc;
    }
    pyprof_id sid = PYPROF_NONE;
    const char *text = f;
    size_t len = n;
    if (!plain) {
        if ((rc = intern_text(r, &sid, f, n, false)) < 0)
            return rc;
        if (sid < r->fos_cap && r->func_of_str[sid] != PYPROF_NONE) {
            *out = r->func_of_str[sid];
            return 0;
        }
        if (sid >= r->fos_cap) {
            size_t old = r->fos_cap;
            if (PYPROF_GROW(r->func_of_str, r->fos_cap, (size_t)sid + 1) < 0)
                return PYPROF_ENOMEM;
            for (size_t i = old; i < r->fos_cap; i++)
                r->func_of_str[i] = PYPROF_NONE;
        }
        /* the text as stored may differ from f (U+FFFD substitutions): split that */
        text = pyprof_profile_string(r->p, sid);
        len = pyprof_profile_string_len(r->p, sid);
    }
    bool split;
    if ((rc = func_of_text(r, out, text, len, depth, sid, &split)) < 0)
        return rc;
    r->nfunc = pyprof_profile_func_count(r->p);
    if (sid != PYPROF_NONE)
        r->func_of_str[sid] = *out;
    /* a stable copy of the text: a string of the profile's, or in r->texts */
    const char *stable = text;
    if (!split) {
        stable = pyprof_profile_string(r->p, pyprof_profile_func(r->p, *out)->name);
    } else if (plain) {
        char *copy = pyprof__arena_alloc(&r->texts, n ? n : 1);
        if (!copy)
            return PYPROF_ENOMEM;
        memcpy(copy, f, n);
        stable = copy;
    }
    if ((rc = note_text(r, *out, stable, len, plain ? h : 0)) < 0)
        return rc;
    return plain ? fcache_put(r, h, stable, n, *out) : 0;
}
