/*
 * collapsed_stack.c - the hot path of the collapsed-stacks reader: one
 * stack of frame texts into the profile's stack tree (formats.md §8).
 *
 * Four things keep a 1 GB file fast and its memory bounded by the number of
 * distinct stacks: the previous line's frames are reused up to the first
 * byte that differs (sorted files share long prefixes), or in a lazy read
 * the runs of frames walked before are jumped over (collapsed_jump.c);
 * frame texts map to functions through a small cache in front of the
 * string table (collapsed_frame.c); nodes are found by the hash of their
 * whole path, so that the profile's index of ten million nodes is never
 * built while reading; and each lookup is split into steps that each
 * prefetch what the whole line needs, so that the cache misses of a line
 * overlap.  A lazy read (for flame graphs) also
 * stops building a stack at its first new frame, or at the first node still
 * too light to draw: see collapsed_tail.c.
 * What two threads read of one file is joined in collapsed_merge.c.
 */
#include "config.h"

#include <pyprof/flame.h>

#include <math.h>

#include "collapsed.h"

/* ---- finding nodes by path ------------------------------------------------------------------
 * pyprof_profile_stack_child keeps a hash index keyed by (parent, func); a
 * 1 GB file can have ten million nodes, and looking a path up one level
 * at a time through it is a chain of cache misses, each waiting for the
 * one before (the parent's id is part of the next key).  So the reader
 * keys each node by a hash of its whole path of functions, which it can
 * compute for every frame of a line before looking anything up: the
 * probes of a line then go to memory together.  A hit is confirmed by the
 * node's own parent and function, which makes the result exact whatever
 * the hash does: by induction, the node found at depth d is the child of
 * the (confirmed) node at depth d - 1 for the frame's function, and the
 * tree has one such child.  The profile indexes its nodes only if someone
 * looks one up later. */

/* Load factor at most 3/4: linear probing stays short, and the table costs
 * 11-21 bytes a node (the sibling lists it replaced cost 16, plus a hash
 * for nodes with many children). */
#define PATH_TAB_MIN 4096

/* The table is probed at random all over: at 4 KiB pages nearly every
 * probe of a big one also misses the TLB.  Transparent huge pages, where
 * the system offers them on request, cut a tenth off reading a 1 GB file. */
static int
path_grow(reader *r)
{
    size_t ncap = r->path_tab ? (r->path_mask + 1) * 2 : PATH_TAB_MIN;
    if (ncap - 1 > UINT32_MAX) /* the home slot comes from the stored 32 bits */
        return PYPROF_ELIMIT;
    uint64_t *nt = pyprof__malloc(ncap * sizeof(*nt));
    if (!nt)
        return PYPROF_ENOMEM;
    pyprof__advise_huge(nt, ncap * sizeof(*nt));
    memset(nt, 0, ncap * sizeof(*nt)); /* written, not calloc'd: see pyprof__zalloc */
    for (size_t i = 0; r->path_tab && i <= r->path_mask; i++) {
        uint64_t e = r->path_tab[i];
        if (!e)
            continue;
        size_t j = (e >> 32) & (ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = e;
    }
    pyprof__free(r->path_tab);
    r->path_tab = nt;
    r->path_mask = ncap - 1;
    return 0;
}

static int
path_put(reader *r, uint64_t h, pyprof_id node)
{
    int rc;
    if ((r->path_used + 1) * 4 > (r->path_tab ? r->path_mask + 1 : 0) * 3 &&
        (rc = path_grow(r)) < 0)
        return rc;
    uint32_t tag = pyprof__path_tag(h);
    size_t j = tag & r->path_mask;
    while (r->path_tab[j])
        j = (j + 1) & r->path_mask;
    r->path_tab[j] = (uint64_t)tag << 32 | ((uint64_t)node + 1);
    r->path_used++;
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

/* Room for n frames of the current stack. */
static int
grow_frames(reader *r, size_t n)
{
    size_t c[5] = {r->frames_cap, r->frames_cap, r->frames_cap, r->frames_cap, r->frames_cap};
    if (PYPROF_GROW(r->fend, c[0], n) < 0 || PYPROF_GROW(r->fnode, c[1], n) < 0 ||
        PYPROF_GROW(r->fhash, c[2], n) < 0 || PYPROF_GROW(r->fpath, c[3], n) < 0 ||
        PYPROF_GROW(r->ffunc, c[4], n) < 0)
        return PYPROF_ENOMEM;
    size_t m = c[0];
    for (size_t i = 1; i < 5; i++)
        m = c[i] < m ? c[i] : m;
    r->frames_cap = m;
    return 0;
}

/* Sums of non-negative integers below 2^53 are exact in any order, so the
 * sums of two halves add up to the sum of the whole; anything else may
 * round differently (see pyprof__collapsed_halves_mergeable). */
static void
note_weights(reader *r, double w0, double w1)
{
    const double exact = 9007199254740992.0; /* 2^53 */
    if (!(w0 >= 0 && w0 < exact && w0 == (double)(uint64_t)w0) ||
        !(w1 >= 0 && w1 < exact && w1 == (double)(uint64_t)w1))
        r->inexact = true;
    r->weight_sum += w0 + w1;
    if (!(r->weight_sum < exact))
        r->inexact = true;
}

/* The functions of the frames s[pos..len), at most `max` of them, into
 * r->ffunc[from...], and their ends into r->fend (index = depth: the eager
 * path's new frames, or a tail's, where the arrays past the r->nframes
 * cached frames are scratch); their number in *n, and where the next
 * frame starts (len if none) in *next.  The frame-cache slots of all of
 * them, then the texts those point to, are asked for before the first is
 * looked at, so that the cache misses of a line overlap. */
static int
rest_funcs(reader *r, const char *s, size_t pos, size_t len, size_t from, size_t max, size_t *n,
           size_t *next)
{
    int rc;
    size_t k = from, start = pos;
    unsigned odd = 0;
    while (pos < len && k - from < max) {
        size_t fe = pyprof__next_semi(s, pos, len, &odd);
        if (fe > UINT32_MAX)
            return PYPROF_ELIMIT;
        if (k >= r->frames_cap && (rc = grow_frames(r, k + 1)) < 0)
            return rc;
        r->fend[k++] = (uint32_t)fe;
        pos = fe < len ? fe + 1 : len;
    }
    *next = pos;
    bool plain = !odd;
    if (!plain)
        r->nonplain = true;
    for (size_t i = from; i < k; i++) {
        size_t fs = i > from ? (size_t)r->fend[i - 1] + 1 : start;
        r->fhash[i] = plain ? pyprof__frame_hash(s + fs, r->fend[i] - fs) : 0;
        if (plain && r->fc)
            __builtin_prefetch(&r->fc[r->fhash[i] & r->fc_mask]);
    }
    for (size_t i = from; plain && r->fc && i < k; i++) {
        const struct frame_cache *e = &r->fc[r->fhash[i] & r->fc_mask];
        if (e->hash == r->fhash[i])
            __builtin_prefetch(e->text);
    }
    for (size_t i = from; i < k; i++) {
        size_t fs = i > from ? (size_t)r->fend[i - 1] + 1 : start;
        size_t fl = r->fend[i] - fs;
        r->ffunc[i] = plain ? pyprof__frame_cached(r, s + fs, fl, r->fhash[i]) : PYPROF_NONE;
        if (r->ffunc[i] == PYPROF_NONE &&
            (rc = pyprof__collapsed_frame_func(r, &r->ffunc[i], s + fs, fl, i, plain,
                                               r->fhash[i])) < 0)
            return rc;
    }
    *n = k - from;
    return 0;
}

/* ---- the lazy walk (see collapsed_tail.c) ------------------------------------------------------ */

static inline void
add_self(reader *r, pyprof_id node, double w0, double w1)
{
    pyprof_stack_node *nd = pyprof_profile_stack_node_mut(r->p, node);
    nd->self[0] += w0;
    nd->self[1] += w1;
}

/* Frames of a new tail that are looked up at once when its text can be
 * read again: pushes mostly take a tail's first few frames, and a pread
 * costs as much as looking up a dozen frames.  On the 1 GB benchmark file
 * 4 frames make 20,000 of the 550,000 pushes read text again, 6 make
 * 11,000, 8 make 6,500, and 6 was as fast as any. */
static size_t tail_known = 6;
/* Frames a tail's text is split into when it is read again: a tail that
 * is needed past its first frames is most often needed a few more down. */
static size_t fill_frames = 8;

/* Whether a stack heavy enough to be drawn on its own has all its frames
 * looked up when it is deferred (see defer_rest). */
static bool heavy_whole = true;

void
pyprof__collapsed_tail_text(size_t known, size_t fill)
{
    tail_known = known;
    fill_frames = fill ? fill : 1;
}

bool
pyprof__collapsed_heavy_whole(bool on)
{
    bool old = heavy_whole;
    heavy_whole = on;
    return old;
}

/* Bytes a tail's text is first read again in: a few frames' worth.  The
 * read doubles until it holds fill_frames whole frames, so that the bytes
 * read again stay proportional to the frames taken (reading all of a tail
 * that is a deep stack's ten million frames, for 8 of them at a time, took
 * hours). */
#define FILL_READ 512

static atomic_uint_least64_t reread_bytes; /* (for tests, on every thread) */

uint64_t
pyprof__collapsed_reread_bytes(void)
{
    return atomic_load_explicit(&reread_bytes, memory_order_relaxed);
}

/* If tail t has no functions left but has text, read the text again and
 * turn its first `frames` frames (or all, if fewer) into functions. */
static int
tail_fill(reader *r, struct tail *t, size_t frames)
{
    if (t->n || !t->text_len)
        return 0;
    int rc;
    size_t len = 0, n, next, seps = 0, at = 0; /* separators seen in tbuf[0..at) */
    /* (all frames: all the text at once) */
    for (size_t want = frames == SIZE_MAX ? t->text_len : FILL_READ;; want *= 2) {
        if (want > t->text_len)
            want = t->text_len;
        if (PYPROF_GROW(r->tbuf, r->tbuf_cap, want) < 0)
            return PYPROF_ENOMEM;
        if ((rc = pyprof__input_reread(r->in, t->text_at + len, r->tbuf + len, want - len,
                                       r->err)) < 0)
            return rc;
        atomic_fetch_add_explicit(&reread_bytes, want - len, memory_order_relaxed);
        if (want == t->text_len) { /* the whole rest */
            len = want;
            break;
        }
        /* cut after the frames-th separator, when the bytes hold it
         * (the bytes of earlier pieces were counted already) */
        const char *semi;
        while (seps < frames && (semi = memchr(r->tbuf + at, ';', want - at)) != NULL) {
            at = (size_t)(semi - r->tbuf) + 1;
            seps++;
        }
        if (seps == frames) {
            len = at; /* rest_funcs stops at the separator's frame: next = at */
            break;
        }
        len = want;
    }
    if ((rc = rest_funcs(r, r->tbuf, 0, len, r->nframes, frames, &n, &next)) < 0)
        return rc;
    pyprof_id *f = pyprof__tail_room(r, n);
    if (!f)
        return PYPROF_ENOMEM;
    memcpy(f, r->ffunc + r->nframes, n * sizeof(*f));
    t->funcs = f;
    t->n = (uint32_t)n;
    t->text_at += next;
    t->text_len -= (uint32_t)next;
    return 0;
}

/* Put the first frame of each tail of `at` in the tree, and hang the rest
 * of each from it: `at` gets children (found, or added in the order of
 * the tails' stacks) and keeps no tails. */
int
pyprof__collapsed_tails_push(reader *r, pyprof_id at)
{
    /* The list is newest first; the children must come in the order of
     * the stacks, as one pass would add them (a flame chart draws them
     * so).  So it is read into r->tscratch first, which asks for its
     * tails, scattered in memory, all at once; then for the lists of
     * functions they point to. */
    size_t n = 0;
    for (uint32_t ti = pyprof__tail_at(r, at); ti; ti = r->tnext[ti - 1]) {
        if (n == r->tscratch_cap && PYPROF_GROW(r->tscratch, r->tscratch_cap, n + 1) < 0)
            return PYPROF_ENOMEM;
        r->tscratch[n++] = ti - 1;
        __builtin_prefetch(&r->tails[ti - 1]);
    }
    for (size_t i = n; i-- > 0;)
        __builtin_prefetch(r->tails[r->tscratch[i]].funcs);
    r->tail_of[at] = 0;
    r->tail_w[at] = 0;
    while (n--) {
        uint32_t ti = r->tscratch[n];
        int rc;
        if ((rc = tail_fill(r, &r->tails[ti], fill_frames)) < 0)
            return rc;
        struct tail t = r->tails[ti];
        uint64_t h = pyprof__path_hash(t.path, t.funcs[0]);
        size_t nn;
        pyprof_id node =
            pyprof__path_find(r, pyprof_profile_stack_nodes(r->p, &nn), h, at, t.funcs[0]);
        if (node == PYPROF_NONE &&
            ((rc = pyprof__profile_stack_append(r->p, &node, at, t.funcs[0])) < 0 ||
             (rc = path_put(r, h, node)) < 0))
            return rc;
        if (t.n == 1 && t.text_len == 0) {
            r->tails[ti].node = PYPROF_NONE;
            add_self(r, node, t.w, t.w);
            continue;
        }
        r->tails[ti].funcs = t.funcs + 1;
        r->tails[ti].n = t.n - 1;
        r->tails[ti].path = h;
        if ((rc = pyprof__tail_move(r, ti, node)) < 0)
            return rc;
    }
    return 0;
}

static atomic_uint_least64_t light_stops; /* (for tests, on every thread) */

uint64_t
pyprof__collapsed_light_stops(void)
{
    return atomic_load_explicit(&light_stops, memory_order_relaxed);
}

/* Whether a stack of weight w that goes below `node` leaves its frames
 * there as a tail (pyprof__stays_light), counted. */
static inline bool
stays_light(reader *r, pyprof_id node, double w)
{
    if (!pyprof__stays_light(r, node, w))
        return false;
    r->light_stops++; /* (added to the test hook's count when the reader is freed) */
    return true;
}

/* One step down from *parent (PYPROF_NONE: the roots) to its child for
 * `func`, whose path hashes to h: push down the tail hanging there, find
 * the child, or add it.  *fresh says the parent was added by an earlier
 * step: nothing under it can be found, and it gets set once a node is added. */
static int
step_down(reader *r, pyprof_id *parent, uint64_t h, pyprof_id func, bool *fresh)
{
    int rc;
    if (*parent != PYPROF_NONE && pyprof__tail_at(r, *parent) &&
        (rc = pyprof__collapsed_tails_push(r, *parent)) < 0)
        return rc;
    pyprof_id node = PYPROF_NONE;
    if (!*fresh) {
        size_t nn;
        node = pyprof__path_find(r, pyprof_profile_stack_nodes(r->p, &nn), h, *parent, func);
    }
    if (node == PYPROF_NONE) {
        if ((rc = pyprof__profile_stack_append(r->p, &node, *parent, func)) < 0 ||
            (rc = path_put(r, h, node)) < 0)
            return rc;
        *fresh = true;
    }
    *parent = node;
    return 0;
}

/* Walk tail t's frames down from `parent` (path hash `ph`) as walk() does
 * frames, to the first node that keeps tails, whatever their weight, or
 * the first new node, and hang the rest there: for b's tails in a merge,
 * after which only the end of the read weighs tails (see merge_tails). */
int
pyprof__collapsed_walk_tail(reader *r, struct tail t, pyprof_id parent, uint64_t ph)
{
    int rc;
    bool fresh = false;
    for (;;) {
        if ((rc = tail_fill(r, &t, fill_frames)) < 0)
            return rc;
        if (t.n == 0)
            break;
        if (pyprof__tail_at(r, parent))
            return pyprof__tail_new(r, parent, t.funcs, t.n, t.text_at, t.text_len, t.w, ph, false);
        pyprof_id f = *t.funcs++;
        t.n--;
        ph = pyprof__path_hash(ph, f);
        if ((rc = step_down(r, &parent, ph, f, &fresh)) < 0)
            return rc;
        /* the rest stays a tail (its list is in a chunk already) */
        if (fresh && (t.n || t.text_len))
            return pyprof__tail_new(r, parent, t.funcs, t.n, t.text_at, t.text_len, t.w, ph, false);
    }
    add_self(r, parent, t.w, t.w);
    return 0;
}

/* Frames a walk looks at together: enough for the cache misses of their
 * lookups to overlap, few enough that little is hashed past the first
 * frame new to the tree (where a deferred stack stops). */
#define WALK_AHEAD 8

/* A frame of a walk's window: where its text is, its text's hash, its
 * path's hash, its function. */
struct ahead {
    size_t start, end;
    uint64_t text, path;
    pyprof_id func;
};

/* Hang the stack's frames from fw[first] on (the rest of the window
 * fw[0..n), then the frames after it) as a tail from `parent` (path hash
 * ph), fw[first] being at `depth`: the functions of the window's frames
 * and of a few frames more, then the text after those; all functions if
 * the text cannot be read again, or if the stack alone is as heavy as the
 * light limit.  Such a stack is most likely drawn down to its leaf: its
 * text would be read again and looked up at the end of the read
 * (chain_down), on one thread, where now the two threads that read the
 * file share the work.
 * On the 100 MB benchmark file that end took 1.7-1.9 ms less (4.3 -> 2.6
 * and 5.1 -> 3.1 ms, two sets of runs on a busy machine); on the 1 GB
 * file, 3 ms less. */
static int
defer_rest(reader *r, const char *s, size_t len, const struct ahead *fw, size_t first, size_t n,
           pyprof_id parent, uint64_t ph, size_t depth, double w)
{
    int rc;
    size_t m = n - first, more = 0;
    size_t rest = fw[n - 1].end < len ? fw[n - 1].end + 1 : len;
    bool whole = !r->text_tails || len - rest > UINT32_MAX || (heavy_whole && w >= r->light_limit);
    size_t want = whole ? SIZE_MAX : m < tail_known ? tail_known - m : 0;
    if (depth + m > r->frames_cap && (rc = grow_frames(r, depth + m)) < 0)
        return rc;
    for (size_t i = 0; i < m; i++)
        r->ffunc[depth + i] = fw[first + i].func;
    if (rest < len && want && (rc = rest_funcs(r, s, rest, len, depth + m, want, &more, &rest)) < 0)
        return rc;
    uint64_t at = rest < len ? pyprof__input_offset_of(r->in, s + rest) : 0;
    if ((rc = pyprof__tail_new(r, parent, r->ffunc + depth, m + more, at, len - rest, w, ph,
                               true)) < 0)
        return rc;
    r->walk_tail = (uint32_t)r->ntails; /* (collapsed_line.c) */
    return 0;
}

/*
 * Walk the frames s[pos..len) down from `parent` (path hash `ph`, the
 * frames' first depth `depth`), pushing tails down on the way, and add the
 * weights where the stack ends.  `defer`: the frames after the first one
 * new to the tree become a tail instead.  `cache`: note the frames for the
 * next line (r->fend, fnode, fpath from index `depth`).
 */
static int
walk(reader *r, const char *s, size_t pos, size_t len, pyprof_id parent, uint64_t ph, size_t depth,
     bool defer, double w0, double w1, bool cache)
{
    int rc;
    bool fresh = false; /* parent was just added: nothing under it to find */
    r->walk_leaf = PYPROF_NONE;
    r->walk_tail = 0;
    struct ahead fw[WALK_AHEAD];
    /* the window of text the walk is in (collapsed_jump.c): s[ws..we) (we
     * 0: none), entered at node wnode at depth wdepth; wplain: its frames
     * so far were plain */
    size_t ws = 0, we = 0, wdepth = 0;
    pyprof_id wnode = PYPROF_NONE;
    bool wplain = false;
    while (pos < len) {
        /* 0. at the end of a window: note it, then jump over the windows
         *    that follow while they were walked before */
        if (pos >= we) {
            if (we && wplain &&
                (rc = pyprof__jump_put(r, wnode, s + ws, we - ws, parent, ph, depth - wdepth)) < 0)
                return rc;
            we = pyprof__jump_end(s, pos, len);
            const struct pyprof__jump *jp;
            while (we && !fresh && (jp = pyprof__jump_find(r, parent, s + pos, we - pos))) {
                r->jumps++;
                parent = jp->to;
                ph = jp->path;
                depth += jp->frames;
                pos = we;
                we = pyprof__jump_end(s, pos, len);
            }
            ws = pos;
            wnode = parent;
            wdepth = depth;
            wplain = true;
        }
        /* 1. the next frames' ends (up to the window's end); if they are
         *    plain, their text hashes and frame-cache slots */
        size_t n = 0;
        unsigned odd = 0;
        for (size_t p = pos; n < WALK_AHEAD;) {
            size_t fe = pyprof__next_semi(s, p, len, &odd);
            if (fe > UINT32_MAX)
                return PYPROF_ELIMIT;
            fw[n].start = p;
            fw[n].end = fe;
            n++;
            if (fe == len || fe + 1 == we)
                break;
            p = fe + 1;
        }
        bool plain = !odd;
        if (!plain) {
            r->nonplain = true;
            wplain = false;
        }
        for (size_t j = 0; j < n; j++) {
            fw[j].text = plain ? pyprof__frame_hash(s + fw[j].start, fw[j].end - fw[j].start) : 0;
            if (plain && r->fc)
                __builtin_prefetch(&r->fc[fw[j].text & r->fc_mask]);
        }
        for (size_t j = 0; plain && r->fc && j < n; j++) { /* the texts the slots point to */
            const struct frame_cache *e = &r->fc[fw[j].text & r->fc_mask];
            if (e->hash == fw[j].text)
                __builtin_prefetch(e->text);
        }
        /* 2. their functions and path hashes; the path slots (3.) and the
         *    nodes they name, unless nothing below can be in the tree */
        uint64_t h = ph;
        for (size_t j = 0; j < n; j++) {
            const char *f = s + fw[j].start;
            size_t fl = fw[j].end - fw[j].start;
            fw[j].func = plain ? pyprof__frame_cached(r, f, fl, fw[j].text) : PYPROF_NONE;
            if (fw[j].func == PYPROF_NONE &&
                (rc = pyprof__collapsed_frame_func(r, &fw[j].func, f, fl, depth + j, plain,
                                                   fw[j].text)) < 0)
                return rc;
            h = fw[j].path = pyprof__path_hash(h, fw[j].func);
            if (!fresh && r->path_tab)
                __builtin_prefetch(&r->path_tab[pyprof__path_tag(h) & r->path_mask]);
        }
        size_t nn;
        const pyprof_stack_node *nodes = pyprof_profile_stack_nodes(r->p, &nn);
        for (size_t j = 0; !fresh && r->path_tab && j < n; j++) {
            uint64_t e = r->path_tab[pyprof__path_tag(fw[j].path) & r->path_mask];
            if (e && (uint32_t)(e >> 32) == pyprof__path_tag(fw[j].path))
                __builtin_prefetch(&nodes[(uint32_t)e - 1]);
        }
        /* 4. down the tree */
        for (size_t j = 0; j < n; j++) {
            /* below a node still too light to draw, the rest waits there */
            if (defer && stays_light(r, parent, w0))
                return defer_rest(r, s, len, fw, j, n, parent, ph, depth, w0);
            if ((rc = step_down(r, &parent, fw[j].path, fw[j].func, &fresh)) < 0)
                return rc;
            if (cache) {
                if (depth >= r->frames_cap && (rc = grow_frames(r, depth + 1)) < 0)
                    return rc;
                r->fend[depth] = (uint32_t)fw[j].end;
                r->fnode[depth] = parent;
                r->fpath[depth] = fw[j].path;
                r->nframes = depth + 1;
            }
            ph = fw[j].path;
            depth++;
            pos = fw[j].end + 1;
            if (fw[j].end == len) /* the last frame */
                break;
            if (fresh && defer) /* the rest: a tail under the new node */
                return defer_rest(r, s, len, fw, j + 1, n, parent, ph, depth, w0);
        }
    }
    add_self(r, parent, w0, w1);
    r->walk_leaf = parent;
    return 0;
}

/* Put the one tail of `at` in the tree down to its last frame: a stack
 * heavy enough on its own to be opened at every depth (a sample with a big
 * count).  Pushing it one level per visit of the loop below gave the same
 * nodes, each child its parent's only one, at several times the cost: on
 * the 100 MB benchmark file such stacks were all but 71 of the 18,461
 * pushes at the end of the read.  Its text is read again in one piece, and
 * the new nodes get no path slots: nothing is looked up below them. */
static int
chain_down(reader *r, pyprof_id at)
{
    uint32_t ti = pyprof__tail_at(r, at) - 1;
    r->tail_of[at] = 0;
    r->tail_w[at] = 0;
    struct tail t = r->tails[ti];
    for (;;) {
        int rc;
        if ((rc = tail_fill(r, &t, SIZE_MAX)) < 0) /* all of it: every frame is needed */
            return rc;
        if ((rc = pyprof__profile_stack_append(r->p, &at, at, *t.funcs)) < 0)
            return rc;
        t.funcs++;
        if (--t.n == 0 && t.text_len == 0)
            break;
    }
    r->tails[ti].node = PYPROF_NONE;
    add_self(r, at, t.w, t.w);
    return 0;
}

int
pyprof__collapsed_tails_finish(reader *r, double fraction)
{
    /* Each deferred stack had one weight, above zero, in every metric: the
     * graph's total is at least their sum.  A node whose tails and own
     * weight come to less than the fraction of that is narrower than the
     * graph's minimum width, and so is everything below it: its tails
     * become elided weight.  (A thousandth less than the fraction: the
     * layout sums the same weights in another order, and fractional ones
     * may round.  Half the fraction, as it was, opened nodes that no graph
     * draws: 9,000 of the 47,800 of the 100 MB benchmark file, a
     * millisecond of the end of its read.)  Any other node with tails is
     * opened, and its children are looked at in turn: they come after it
     * in id order.  (A node's only tail that is this heavy on its own goes
     * down to its end at once.) */
    double cut = fraction * r->defer_sum * 0.999;
    for (pyprof_id at = 0; at < pyprof_profile_stack_count(r->p); at++) {
        if (!pyprof__tail_at(r, at))
            continue;
        const pyprof_stack_node *nd = pyprof_profile_stack_node(r->p, at);
        double own = nd->self[0] > nd->self[1] ? nd->self[0] : nd->self[1];
        int rc;
        if (r->tail_w[at] + (own > 0 ? own : 0) < cut) {
            rc = pyprof__profile_stack_elide(r->p, at, r->tail_w[at]);
            r->tail_of[at] = 0; /* (its tails are dropped with the list) */
            r->tail_w[at] = 0;
        } else if (!r->tnext[r->tail_of[at] - 1] && !(r->tails[r->tail_of[at] - 1].w < cut)) {
            rc = chain_down(r, at); /* one tail, wide enough at every depth */
        } else {
            rc = pyprof__collapsed_tails_push(r, at);
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The light limit for a file expected to weigh `expect` in all (below). */
static double
limit_for(const reader *r, double expect)
{
    return r->elide / 2 * expect;
}

/* Write what this half has read into its slot of the gauge, and take in
 * what the other half has, once a megabyte: more often would pull the
 * other thread's cache line over at every line.  Relaxed: a byte count
 * and a weight from two moments apart only make the estimate rougher. */
static void
gauge_trade(reader *r, uint64_t done)
{
    pyprof__collapsed_gauge *g = r->gauge;
    unsigned me = r->gauge_slot, other = !me;
    uint64_t bits;
    memcpy(&bits, &r->defer_sum, sizeof bits);
    atomic_store_explicit(&g->slot[me].weight, bits, memory_order_relaxed);
    atomic_store_explicit(&g->slot[me].funcs, r->nfunc, memory_order_relaxed);
    atomic_store_explicit(&g->slot[me].nodes, pyprof_profile_stack_count(r->p),
                          memory_order_relaxed);
    atomic_store_explicit(&g->slot[me].bytes, done, memory_order_relaxed);
    bits = atomic_load_explicit(&g->slot[other].weight, memory_order_relaxed);
    memcpy(&r->other_weight, &bits, sizeof bits);
    r->other_bytes = atomic_load_explicit(&g->slot[other].bytes, memory_order_relaxed);
    r->gauge_next = done + ((uint64_t)1 << 20);
}

void
pyprof__collapsed_gauge_leave(reader *r)
{
    r->gauge = NULL;
    r->other_bytes = 0;
    r->other_weight = 0;
}

/* The weight through a node below which stacks wait in tails there: half
 * the elide fraction of the weight the reader expects of the whole file,
 * from what it has read (the tails of a node that turns out heavier are
 * put in the tree at the end, so any value gives the same graph; this one
 * keeps the tree to the frames that may be drawn).
 *
 * Two halves read at once estimate it from what both have read.  Counts
 * are heavy-tailed: on the 100 MB benchmark file one stack in the second
 * half weighs a sixth of the file.  Each half on its own put the limit at
 * 0.47 and 1.5 times the whole file's; the first half opened 21,600
 * nodes to the second's 11,700 and took 11-33% more CPU time, while the
 * second waited for it.  By both halves' weight the limits are within 6%
 * of the whole file's, the halves open 13,900 and 14,100 nodes, and their
 * CPU times are within 4%. */
static double
light_limit(reader *r)
{
    int64_t size = pyprof_input_file_size(r->in);
    uint64_t done = pyprof_input_offset(r->in) - r->start_at;
    if (r->gauge && done >= r->gauge_next)
        gauge_trade(r, done);
    double expect = r->defer_sum + r->other_weight;
    done += r->other_bytes;
    if (size > 0 && done > 0 && (uint64_t)size > done)
        expect *= (double)size / (double)done;
    return limit_for(r, expect);
}

/* A lazy read's stack of weights w0, w1 counted into the weight deferred
 * and the light limit, as its walk needs them; whether it may be deferred
 * (only stacks with one weight in every metric are). */
static bool
lazy_note(reader *r, double w0, double w1)
{
    bool defer = w0 == w1 && w0 > 0 && w0 < INFINITY;
    if (defer)
        r->defer_sum += w0;
    r->light_limit = light_limit(r);
    return defer;
}

/* The lazy read's walk of a stack from `pos` (see walk). */
static int
lazy_walk(reader *r, const char *s, size_t pos, size_t len, pyprof_id parent, uint64_t ph,
          size_t depth, double w0, double w1, bool cache)
{
    bool defer = lazy_note(r, w0, w1);
    return walk(r, s, pos, len, parent, ph, depth, defer, w0, w1, cache);
}

/*
 * A lazy read's stack whose text an earlier stack had (collapsed_line.c):
 * what its walk would do, done at once, if that is still what the earlier
 * walk did; false if it is not (nothing is done then).
 *
 * The nodes above where the earlier walk stopped all had children, so
 * they never get tails (a node has one or the other), and the tree only
 * grows: a walk of the same frames goes down the same nodes and reaches
 * that node again, without pushing anything on the way.  If it added its
 * weight there, so does this one.  If it left the rest of its frames as a
 * tail, that tail may have moved down since (pushed, where it is still a
 * record of the frames below its node): while the node it hangs from
 * keeps stacks of this weight below it, the walk would hang the same
 * frames there, so the tail takes this weight too.  One tail of twice the
 * weight stands for two identical ones: their frames would make the same
 * nodes, in the same order.  A node that no longer keeps them, or a tail
 * put in the tree, takes a walk.
 */
static bool
walk_again(reader *r, uint32_t tail, pyprof_id node, double w0, double w1)
{
    double before = r->defer_sum;
    bool defer = lazy_note(r, w0, w1);
    if (!tail) {
        add_self(r, node, w0, w1);
        return true;
    }
    struct tail *t = &r->tails[tail - 1];
    if (!defer || t->node == PYPROF_NONE || !stays_light(r, t->node, w0)) {
        r->defer_sum = before; /* (the walk notes it) */
        return false;
    }
    t->w += w0;
    r->tail_w[t->node] += w0;
    return true;
}

/* Add one stack s[0..len) with weights w0 (metric 0) and w1 (metric 1). */
int
pyprof__collapsed_add_stack(reader *r, const char *s, size_t len, double w0, double w1)
{
    int rc;
    note_weights(r, w0, w1);
    /* Perl's split drops trailing empty fields: "a;b;" is a;b, ";;" is nothing */
    while (len > 0 && s[len - 1] == ';')
        len--;
    if (len == 0) {
        r->root_self += w1;
        return 0;
    }
    if (r->lazy && pyprof__jump_window()) { /* (jumps take the place of the previous stack) */
        uint64_t key;
        uint32_t tail;
        pyprof_id node;
        if (pyprof__line_find(r, s, len, &key, &tail, &node) && walk_again(r, tail, node, w0, w1)) {
            r->lines_again++;
            return 0;
        }
        rc = lazy_walk(r, s, 0, len, PYPROF_NONE, PYPROF__PATH_ROOT_HASH, 0, w0, w1, false);
        if (rc < 0)
            return rc;
        return pyprof__line_note(r, key, s, len, r->walk_leaf == PYPROF_NONE ? r->walk_tail : 0,
                                 r->walk_leaf);
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
    if (!r->lazy) { /* (a lazy walk keeps only what it put in the tree, below) */
        memcpy(r->prev + c, s + c, len - c);
        r->prev_len = len;
    }
    r->nframes = k;

    pyprof_id parent = k ? r->fnode[k - 1] : PYPROF_NONE;
    size_t pos = k ? (size_t)r->fend[k - 1] + 1 : 0;
    if (pos > len) /* the shared frames cover the whole stack */
        pos = len;
    if (r->lazy) {
        rc = lazy_walk(r, s, pos, len, parent, k ? r->fpath[k - 1] : PYPROF__PATH_ROOT_HASH, k, w0,
                       w1, true);
        /* the next line can reuse only frames in the tree: keep the text up
         * to the separator after the last one (a deferred stack's tail is
         * half of a big file's bytes, and copying it here cost as much as
         * reading it) */
        size_t keep = r->nframes ? (size_t)r->fend[r->nframes - 1] + 1 : 0;
        if (keep > len)
            keep = len;
        if (keep > c)
            memcpy(r->prev + c, s + c, keep - c);
        r->prev_len = keep;
        return rc;
    }

    /* A big file's frame cache and tree do not fit in the CPU caches, so
     * most of the time goes into waiting for memory.  Each step below first
     * asks for what a whole line needs, so that those waits overlap instead
     * of following one another.
     * 1. The new frames' functions (rest_funcs: their frame-cache slots
     *    and texts are prefetched first). */
    size_t nf, end;
    if ((rc = rest_funcs(r, s, pos, len, k, SIZE_MAX, &nf, &end)) < 0)
        return rc;
    nf += k;
    /* 2. Their path hashes; prefetch the path slots. */
    for (size_t i = k; i < nf; i++) {
        r->fpath[i] = pyprof__path_hash(i ? r->fpath[i - 1] : PYPROF__PATH_ROOT_HASH, r->ffunc[i]);
        if (r->path_tab)
            __builtin_prefetch(&r->path_tab[pyprof__path_tag(r->fpath[i]) & r->path_mask]);
    }
    /* 3. Prefetch the nodes those slots name (the usual hit: first probe). */
    size_t nnodes;
    const pyprof_stack_node *nodes = pyprof_profile_stack_nodes(r->p, &nnodes);
    for (size_t i = k; r->path_tab && i < nf; i++) {
        uint64_t e = r->path_tab[pyprof__path_tag(r->fpath[i]) & r->path_mask];
        if (e && (uint32_t)(e >> 32) == pyprof__path_tag(r->fpath[i]))
            __builtin_prefetch(&nodes[(uint32_t)e - 1]);
    }
    /* 4. Walk down: find the existing nodes, then append the rest.  Once a
     *    frame is new to the tree, so are all frames under it: those need
     *    no lookup (most of the work on big files). */
    size_t i = k;
    for (; i < nf; i++) {
        pyprof_id node = pyprof__path_find(r, nodes, r->fpath[i], parent, r->ffunc[i]);
        if (node == PYPROF_NONE)
            break;
        r->fnode[i] = parent = node;
    }
    for (; i < nf; i++) {
        pyprof_id node;
        if ((rc = pyprof__profile_stack_append(r->p, &node, parent, r->ffunc[i])) < 0 ||
            (rc = path_put(r, r->fpath[i], node)) < 0)
            return rc;
        r->fnode[i] = parent = node;
    }
    r->nframes = nf;
    pyprof_stack_node *nd = pyprof_profile_stack_node_mut(r->p, parent);
    nd->self[0] += w0;
    nd->self[1] += w1;
    return 0;
}

void
pyprof__collapsed_reader_drop_lookups(reader *r)
{
    pyprof__jumps_free(r);
    pyprof__lines_free(r);
    pyprof__free(r->prev);
    pyprof__free(r->fend);
    pyprof__free(r->fnode);
    pyprof__free(r->fhash);
    pyprof__free(r->fpath);
    pyprof__free(r->ffunc);
    pyprof__free(r->func_of_str);
    pyprof__free(r->fc);
    pyprof__free(r->path_tab);
    r->prev = NULL;
    r->prev_len = r->prev_cap = 0;
    r->fend = r->fnode = NULL;
    r->fhash = r->fpath = NULL;
    r->ffunc = NULL;
    r->nframes = r->frames_cap = 0;
    r->func_of_str = NULL;
    r->fos_cap = 0;
    r->fc = NULL;
    r->fc_mask = r->fc_used = 0;
    r->path_tab = NULL;
    r->path_mask = r->path_used = 0;
}

void
pyprof__collapsed_reader_free(reader *r)
{
    atomic_fetch_add_explicit(&light_stops, r->light_stops, memory_order_relaxed);
    r->light_stops = 0;
    pyprof__collapsed_names_join(r); /* (a read that failed may leave one running) */
    pyprof__collapsed_reader_drop_lookups(r);
    pyprof__tails_free(r);
    pyprof__free(r->ftext);
    r->ftext = NULL;
    r->ftext_cap = 0;
    pyprof__arena_free(&r->texts);
}
