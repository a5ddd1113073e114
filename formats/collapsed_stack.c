/*
 * collapsed_stack.c - the hot path of the collapsed-stacks reader: one
 * stack of frame texts into the profile's stack tree (formats.md §8).
 *
 * Three things keep a 1 GB file fast and its memory bounded by the number of
 * distinct stacks: the previous line's frames are reused up to the first
 * byte that differs (sorted files share long prefixes); frame texts map to
 * functions through a small cache in front of the string table; and
 * children are found through the reader's own sibling lists, so that the
 * profile's hash index of ten million nodes is never built while reading.
 */
#include "config.h"

#include <pyprof/flame.h>

#include "collapsed.h"

static inline bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* ---- frames -------------------------------------------------------------------------------- */

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
 * scattered memory reads.  ASCII frames only, whose stored text is the
 * input text. */
static pyprof_id
fcache_find(const reader *r, const char *f, size_t n, uint64_t h)
{
    if (!r->fc)
        return PYPROF_NONE;
    for (size_t j = h & r->fc_mask; r->fc[j].text; j = (j + 1) & r->fc_mask) {
        const struct frame_cache *e = &r->fc[j];
        if (e->hash == h && e->len == n && memcmp(e->text, f, n) == 0)
            return e->func;
    }
    return PYPROF_NONE;
}

static int
fcache_put(reader *r, uint64_t h, const char *text, size_t n, pyprof_id func)
{
    if (n > UINT32_MAX)
        return 0;
    if ((r->fc_used + 1) * 2 > (r->fc ? r->fc_mask + 1 : 0)) {
        size_t ncap = r->fc ? (r->fc_mask + 1) * 2 : 4096;
        struct frame_cache *nc = pyprof__calloc(ncap, sizeof(*nc));
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
    }
    size_t j = h & r->fc_mask;
    while (r->fc[j].text)
        j = (j + 1) & r->fc_mask;
    r->fc[j] = (struct frame_cache){h, text, (uint32_t)n, func};
    r->fc_used++;
    return 0;
}

/* The function for frame text f[0..n) at `depth` (0 = outermost); `plain`:
 * the text is known to be ASCII without NUL. */
static int
frame_func(reader *r, pyprof_id *out, const char *f, size_t n, size_t depth, bool plain)
{
    pyprof_id sid;
    uint64_t h = 0;
    if (plain) {
        h = pyprof__hash_bytes(f, n);
        if ((*out = fcache_find(r, f, n, h)) != PYPROF_NONE)
            return 0;
    }
    int rc = intern_text(r, &sid, f, n, plain);
    if (rc < 0)
        return rc;
    if (sid < r->fos_cap && r->func_of_str[sid] != PYPROF_NONE) {
        *out = r->func_of_str[sid];
        return plain ? fcache_put(r, h, pyprof_profile_string(r->p, sid), n, *out) : 0;
    }
    if (sid >= r->fos_cap) {
        size_t old = r->fos_cap;
        if (PYPROF_GROW(r->func_of_str, r->fos_cap, (size_t)sid + 1) < 0)
            return PYPROF_ENOMEM;
        for (size_t i = old; i < r->fos_cap; i++)
            r->func_of_str[i] = PYPROF_NONE;
    }

    /* the text as stored may differ from f (U+FFFD substitutions): split that */
    const char *text = pyprof_profile_string(r->p, sid);
    size_t len = pyprof_profile_string_len(r->p, sid);
    pyprof__frame_fields ff;
    bool split = false;
    uint32_t flags = PYPROF_FUNC_FRAME_NAME;
    if (r->dialect == D_AUSTIN && is_austin_task_frame(text, len, depth)) {
        flags |= PYPROF_FUNC_SYNTHETIC;
    } else if (r->shape) {
        split = pyprof__frame_split(text, len, r->shape, &ff);
    } else {
        static const uint32_t folded_shapes[] = {PYPROF_FUNC_FRAME_NAME_FILE_LINE,
                                                 PYPROF_FUNC_FRAME_FILE_NAME_LINE};
        static const uint32_t austin_shapes[] = {PYPROF_FUNC_FRAME_FILE_NAME_LINE,
                                                 PYPROF_FUNC_FRAME_NAME_FILE_LINE,
                                                 PYPROF_FUNC_FRAME_NAME_FILE};
        const uint32_t *shapes = r->dialect == D_AUSTIN ? austin_shapes : folded_shapes;
        size_t nshapes = r->dialect == D_AUSTIN ? 3 : 2;
        for (size_t i = 0; i < nshapes && !split; i++)
            if ((split = pyprof__frame_split(text, len, shapes[i], &ff)))
                r->shape = shapes[i];
    }
    pyprof_id file = 0, name = sid;
    int64_t line = 0;
    if (split) {
        if ((rc = pyprof_profile_intern(r->p, &file, ff.file, ff.file_len)) < 0 ||
            (rc = pyprof_profile_intern(r->p, &name, ff.name, ff.name_len)) < 0)
            return rc;
        line = ff.line;
        flags = ff.shape;
    }
    rc = pyprof_profile_func_intern(r->p, out, file, line, name, flags, NULL);
    if (rc < 0)
        return rc;
    r->func_of_str[sid] = *out;
    return plain ? fcache_put(r, h, text, n, *out) : 0;
}

/* ---- finding children ---------------------------------------------------------------------
 * pyprof_profile_stack_child keeps a hash index of all nodes; a 1 GB file
 * can have ten million, nearly all in chains with one child each, and
 * indexing them is half the reading time.  So the reader finds children
 * itself: by walking a node's sibling list when it has few children, and
 * through a small hash of (parent, function) for the few nodes with many
 * (the roots of the forest and shallow frames).  The profile then indexes
 * its nodes only if someone looks one up later. */
#define FEW_KIDS 2

static uint64_t
wide_key(pyprof_id parent, pyprof_id func)
{
    return ((uint64_t)parent << 32) | func;
}

static int
wide_put(reader *r, uint64_t key, uint32_t node)
{
    if ((r->wide_used + 1) * 2 > (r->wide_keys ? r->wide_mask + 1 : 0)) {
        size_t ncap = r->wide_keys ? (r->wide_mask + 1) * 2 : 1024;
        uint64_t *nk = pyprof__calloc(ncap, sizeof(*nk));
        uint32_t *nv = pyprof__calloc(ncap, sizeof(*nv));
        if (!nk || !nv) {
            pyprof__free(nk);
            pyprof__free(nv);
            return PYPROF_ENOMEM;
        }
        for (size_t i = 0; r->wide_keys && i <= r->wide_mask; i++) {
            if (!r->wide_vals[i])
                continue;
            size_t j = pyprof__hash_mix(r->wide_keys[i], 0) & (ncap - 1);
            while (nv[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = r->wide_keys[i];
            nv[j] = r->wide_vals[i];
        }
        pyprof__free(r->wide_keys);
        pyprof__free(r->wide_vals);
        r->wide_keys = nk;
        r->wide_vals = nv;
        r->wide_mask = ncap - 1;
    }
    size_t j = pyprof__hash_mix(key, 0) & r->wide_mask;
    while (r->wide_vals[j])
        j = (j + 1) & r->wide_mask;
    r->wide_keys[j] = key;
    r->wide_vals[j] = node + 1;
    r->wide_used++;
    return 0;
}

static size_t
kids_of(const reader *r, pyprof_id parent, uint32_t *first)
{
    if (parent == PYPROF_NONE) {
        *first = r->root_first;
        return r->root_n;
    }
    *first = r->kid[parent].first;
    return r->kid[parent].n;
}

/* The child of `parent` (PYPROF_NONE: a root) for `func`, or PYPROF_NONE. */
static pyprof_id
find_child(const reader *r, pyprof_id parent, pyprof_id func)
{
    uint32_t c;
    size_t n = kids_of(r, parent, &c);
    if (n <= FEW_KIDS) {
        for (; c != PYPROF_NONE; c = r->kid[c].next)
            if (r->kid[c].func == func)
                return c;
        return PYPROF_NONE;
    }
    uint64_t key = wide_key(parent, func);
    for (size_t j = pyprof__hash_mix(key, 0) & r->wide_mask; r->wide_vals[j];
         j = (j + 1) & r->wide_mask)
        if (r->wide_keys[j] == key)
            return r->wide_vals[j] - 1;
    return PYPROF_NONE;
}

/* Create the child of `parent` for `func` (known to be absent). */
static int
new_child(reader *r, pyprof_id *out, pyprof_id parent, pyprof_id func)
{
    int rc = pyprof__profile_stack_append(r->p, out, parent, func);
    if (rc < 0)
        return rc;
    uint32_t id = *out;
    if (id >= r->kids_cap && PYPROF_GROW(r->kid, r->kids_cap, (size_t)id + 1) < 0)
        return PYPROF_ENOMEM;
    uint32_t *head = parent == PYPROF_NONE ? &r->root_first : &r->kid[parent].first;
    size_t n = parent == PYPROF_NONE ? r->root_n++ : r->kid[parent].n++;
    r->kid[id] = (struct kid){PYPROF_NONE, *head, func, 0};
    *head = id;
    if (n + 1 == FEW_KIDS + 1) { /* becoming wide: index all its children */
        for (uint32_t c = *head; c != PYPROF_NONE; c = r->kid[c].next)
            if ((rc = wide_put(r, wide_key(parent, r->kid[c].func), c)) < 0)
                return rc;
    } else if (n + 1 > FEW_KIDS + 1) {
        if ((rc = wide_put(r, wide_key(parent, func), id)) < 0)
            return rc;
    }
    return 0;
}

/* Length of the common prefix of a and b, eight bytes at a time. */
static size_t
common_prefix(const char *a, size_t na, const char *b, size_t nb)
{
    size_t n = na < nb ? na : nb, i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (i + 8 <= n) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return i + (size_t)__builtin_ctzll(x ^ y) / 8;
        i += 8;
    }
#endif
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* True if s[0..n) is ASCII without NUL bytes (then it is valid UTF-8 as
 * it is, and needs no per-frame check); eight bytes at a time. */
static bool
plain_ascii(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= (w & highs) | ((w - ones) & ~w & highs);
    }
    if (acc)
        return false;
    for (; i < n; i++)
        if ((unsigned char)s[i] >= 0x80 || s[i] == 0)
            return false;
    return true;
}

/* Add one stack s[0..len) with weights w0 (metric 0) and w1 (metric 1). */
int
pyprof__collapsed_add_stack(reader *r, const char *s, size_t len, double w0, double w1)
{
    int rc;
    /* Perl's split drops trailing empty fields: "a;b;" is a;b, ";;" is nothing */
    while (len > 0 && s[len - 1] == ';')
        len--;
    if (len == 0) {
        r->root_self += w1;
        return 0;
    }
    /* frames shared with the previous stack: those that end inside the
     * common prefix, or exactly at its end when this stack ends there too */
    size_t c = common_prefix(r->prev, r->prev_len, s, len);
    size_t k = 0;
    while (k < r->nframes && (r->fend[k] < c || (r->fend[k] == c && c == len)))
        k++;
    if (len > r->prev_cap) {
        char *np = pyprof__realloc(r->prev, len);
        if (!np)
            return PYPROF_ENOMEM;
        r->prev = np;
        r->prev_cap = len;
    }
    memcpy(r->prev + c, s + c, len - c);
    r->prev_len = len;
    r->nframes = k;

    pyprof_id parent = k ? r->fnode[k - 1] : PYPROF_NONE;
    size_t pos = k ? (size_t)r->fend[k - 1] + 1 : 0;
    if (pos > len) /* the shared frames cover the whole stack */
        pos = len;
    bool plain = plain_ascii(s + pos, len - pos);
    /* once a frame is new to the tree, so are all frames under it: those
     * are appended without a lookup (most of the work on big files) */
    bool fresh = false;
    while (pos < len) {
        const char *semi = memchr(s + pos, ';', len - pos);
        size_t fe = semi ? (size_t)(semi - s) : len;
        pyprof_id func, node;
        if ((rc = frame_func(r, &func, s + pos, fe - pos, r->nframes, plain)) < 0)
            return rc;
        node = fresh ? PYPROF_NONE : find_child(r, parent, func);
        if (node == PYPROF_NONE) {
            if ((rc = new_child(r, &node, parent, func)) < 0)
                return rc;
            fresh = true;
        }
        if (r->nframes >= r->frames_cap) {
            size_t c1 = r->frames_cap, c2 = r->frames_cap;
            if (PYPROF_GROW(r->fend, c1, r->nframes + 1) < 0 ||
                PYPROF_GROW(r->fnode, c2, r->nframes + 1) < 0)
                return PYPROF_ENOMEM;
            r->frames_cap = c1 < c2 ? c1 : c2;
        }
        if (fe > UINT32_MAX)
            return PYPROF_ELIMIT;
        r->fend[r->nframes] = (uint32_t)fe;
        r->fnode[r->nframes] = node;
        r->nframes++;
        parent = node;
        if (!semi)
            break;
        pos = fe + 1; /* < len: trailing ';' were trimmed */
    }
    pyprof_stack_node *nd = pyprof_profile_stack_node_mut(r->p, parent);
    nd->self[0] += w0;
    nd->self[1] += w1;
    return 0;
}

void
pyprof__collapsed_reader_free(reader *r)
{
    pyprof__free(r->prev);
    pyprof__free(r->fend);
    pyprof__free(r->fnode);
    pyprof__free(r->func_of_str);
    pyprof__free(r->kid);
    pyprof__free(r->wide_keys);
    pyprof__free(r->wide_vals);
    pyprof__free(r->fc);
}
