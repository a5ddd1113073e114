/*
 * collapsed.h - what the collapsed-stacks reader's files share (not installed).
 *
 * A frame of a folded stack is a piece of text.  Flame graphs must show that
 * text byte for byte (that is what flamegraph.pl draws), while pyprof-stats
 * and pyprof-dot want a function's name, file and line.  So a frame is split
 * into fields only when the split can be undone exactly: the frame "shape"
 * (one of PYPROF_FUNC_FRAME_*) is kept in the function's flags, and
 * pyprof_flame_frame_label() rebuilds the original text from the fields.
 */
#ifndef PYPROF_COLLAPSED_H
#define PYPROF_COLLAPSED_H

#include <stdalign.h>

#include "pyprof_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The frame shapes a file may use; a file uses at most one of the
 * field-carrying shapes (the first one seen), so that two shapes can never
 * give one text two different readings. */
typedef struct pyprof__frame_fields {
    const char *file, *name; /* pointers into the frame text */
    size_t file_len, name_len;
    int64_t line;
    uint32_t shape; /* PYPROF_FUNC_FRAME_* */
} pyprof__frame_fields;

/* Try to split `len` bytes of frame text `s` as `shape` (one of the
 * field-carrying PYPROF_FUNC_FRAME_* values).  True on success: the fields
 * then rebuild exactly `s` through pyprof_flame_frame_label. */
bool pyprof__frame_split(const char *s, size_t len, uint32_t shape, pyprof__frame_fields *out);

/* The first line of a folded file whose stacks the collapsed writer
 * estimated from a call graph (no newline).  The reader takes it back as
 * the profile's "stacks_estimated" mark, so that a flame graph drawn from
 * the file still says it is an estimate. */
#define PYPROF__FOLDED_ESTIMATE_LINE                                                               \
    "# stacks estimated from the call graph by caller ratios; weights in microseconds"

/* Where the count of "STACK<ws>NUMBER" starts in s[0..len), 0 if the text
 * does not end so.  NUMBER is digits with an optional "." and digits after
 * it (12, 12., 12.5; not .5, -3, 1e3), the one <ws> is Perl's \s: the
 * flamegraph.pl grammar.  A line whose stack itself ends so is read as two
 * counts (differential), which the writer must avoid. */
size_t pyprof__folded_count_start(const char *s, size_t len);

/* The hash of frame text s[0..n) that the reader's frame cache is keyed
 * by.  Frames are hashed by the tens of millions, most 30-60 bytes long:
 * two lanes of 8-byte words, and the last bytes as one overlapping word,
 * so that a 45-byte frame costs three multiplies in a row, where
 * pyprof__hash_bytes chains ten (a word at a time, then a byte). */
static inline uint64_t
pyprof__frame_hash(const char *s, size_t n)
{
    const uint64_t k1 = 0xff51afd7ed558ccdull, k2 = 0xc4ceb9fe1a85ec53ull;
    uint64_t a = 0x9e3779b97f4a7c15ull ^ n, b = 0x6a09e667f3bcc909ull, w = 0;
    if (n < 8) {
        memcpy(&w, s, n);
        return pyprof__hash_mix(a, w);
    }
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        uint64_t x, y;
        memcpy(&x, s + i, 8);
        memcpy(&y, s + i + 8, 8);
        a = (a ^ x) * k1;
        a ^= a >> 29;
        b = (b ^ y) * k2;
        b ^= b >> 29;
    }
    if (i + 8 <= n) {
        memcpy(&w, s + i, 8);
        a = (a ^ w) * k1;
        a ^= a >> 29;
    }
    memcpy(&w, s + n - 8, 8); /* the last 8 bytes (some may have been seen) */
    b = (b ^ w) * k2;
    return pyprof__hash_mix(a, b ^ (b >> 29));
}

/* Where the first ';' in s[from..len) is, len if there is none.  Frames
 * are a few dozen bytes: a call of memchr, which sets up for long
 * searches, cost more than this loop's two or three compares.  On the way
 * it looks at whether the bytes it reads (which may go on a little past
 * the ';') are plain: ASCII without NUL, which is valid UTF-8 as it is and
 * needs no check of its own.  *odd gets nonzero bits if any is not.  (Only
 * the frames a read looks up are looked at: the text kept in tails is
 * looked at when it is read again, if ever.) */
static inline size_t
pyprof__next_semi(const char *s, size_t from, size_t len, unsigned *odd)
{
    size_t i = from;
#if defined(__SSE2__)
    const __m128i semi = _mm_set1_epi8(';'), zero = _mm_setzero_si128();
    for (; i + 16 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        *odd |= (unsigned)_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero)));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, semi));
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
#endif
    for (; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        *odd |= (c & 0x80u) | (c == 0);
        if (c == ';')
            return i;
    }
    return len;
}

/* ---- the reader (collapsed.c reads lines, collapsed_stack.c builds the tree) ---- */

/* What the readers of a file's two halves (collapsed_split.c) tell each
 * other while they read: how many bytes each has read and the weight of
 * the stacks it has deferred, so that both estimate the whole file's
 * weight from both samples (light_limit in collapsed_stack.c), and how
 * many functions and nodes it has (for the merge: collapsed_split.c).  Each writes
 * its own slot, on a cache line of its own, once a megabyte. */
typedef struct pyprof__collapsed_gauge {
    struct {
        alignas(64) _Atomic uint64_t bytes;
        _Atomic uint64_t weight; /* a double's bits */
        _Atomic uint64_t funcs;  /* function ids given */
        _Atomic uint64_t nodes;  /* nodes in its tree */
        _Atomic bool done;       /* the half has been read (set once, at the end) */
    } slot[2];
} pyprof__collapsed_gauge;

/* How many malformed line numbers the metadata keeps (the count is exact). */
#define MAX_BAD_LINES_KEPT 10

enum dialect {
    D_FOLDED,    /* flamegraph.pl grammar, py-spy, pyflame aggregated */
    D_AUSTIN,    /* austin: metadata comments, P/T or Thread frames, signed/comma metrics */
    D_PYFLAME_TS /* pyflame timestamp mode */
};

typedef struct pyprof__collapsed_reader {
    pyprof_profile *p;
    pyprof_input *in;
    pyprof_error *err;
    enum dialect dialect;
    uint32_t shape; /* field-carrying frame shape of this file, 0 until one is seen */

    /* previous stack: text, frame ends, nodes and path hashes (the prefix cache) */
    char *prev;
    size_t prev_len, prev_cap;
    uint32_t *fend;
    pyprof_id *fnode;
    uint64_t *fhash;  /* the new frames' text hashes, while a stack is added */
    uint64_t *fpath;  /* path hash of each frame of the previous stack */
    pyprof_id *ffunc; /* function of each new frame, while a stack is added */
    size_t nframes, frames_cap;

    /* frame text string id -> function id (text that is not plain ASCII,
     * stored repaired: several texts may be one string) */
    pyprof_id *func_of_str;
    size_t fos_cap;
    /* Function ids given so far.  While names_later (collapsed_names.c),
     * a new plain frame text gets only an id and a copy of its text: the
     * profile's functions end at the first id still to be made. */
    size_t nfunc;
    bool names_later;
    struct pyprof__names_job *names_job; /* ids being made on a helper thread */
    /* function id -> its frame text, as stored (the profile's strings, or
     * `texts`: a frame split into fields keeps no string of its own) */
    struct func_text {
        const char *text;
        size_t len;
        uint64_t hash; /* the text's pyprof__frame_hash if it is plain, else 0 */
    } * ftext;
    size_t ftext_cap;
    pyprof__arena texts;
    /* ASCII frame text -> function id, in front of the lookups above */
    struct frame_cache {
        uint64_t hash;
        const char *text; /* a stable copy (ftext's) */
        uint32_t len;
        pyprof_id func;
    } * fc;
    size_t fc_mask, fc_used;
    bool fc_dense; /* the cache may be fuller: nothing more is read (collapsed_frame.c) */

    /* jumps (collapsed_jump.c): runs of frames walked before, by their
     * text and the node they start from; jbytes: the memory they keep */
    struct jump_slot {
        uint64_t key;
        struct pyprof__jump *jump;
    } * jtab;
    size_t jmask, jused, jbytes;
    pyprof__arena jarena;
    uint64_t jumps; /* jumps taken (a test hook counts them) */

    /* lines (collapsed_line.c): stack texts walked before, by a key of
     * their bytes, with what their walk did; `lines_off` once a file shows
     * that its lines do not repeat */
    struct line_slot *ltab;
    size_t lmask, lused, lbytes;
    uint64_t lines_looked, lines_again;
    bool lines_off;
    pyprof__arena larena;
    /* what the last walk did: added its weight at walk_leaf, or made tail
     * walk_tail (index + 1) */
    pyprof_id walk_leaf;
    uint32_t walk_tail;

    /* every node by the hash of its path (see collapsed_stack.c): slots
     * are (low 32 bits of the hash) << 32 | (node + 1), 0 = empty */
    uint64_t *path_tab;
    size_t path_mask, path_used;

    /* Lazy reading (pyprof_read_options.stack_elide_below, collapsed_tail.c):
     * a stack's frames after its first one new to the tree are kept as a
     * "tail" hanging from that node, and so are the frames below a node
     * still too light to draw, until the weight through it says it may be
     * drawn.  tail_of[node] is the first of the node's tails (index + 1, 0:
     * none; each links to the next in tnext), tail_w[node] their weight.  A node
     * has tails or children, never both.  A tail is a list of functions,
     * then (text_tails: the input can be read again) the rest of its
     * frames as where their text is in the file. */
    bool lazy, text_tails;
    struct tail {
        pyprof_id *funcs;  /* the first frames below `node`, outermost first (in a chunk) */
        uint32_t n;        /* how many */
        uint32_t text_len; /* then the rest: text_len bytes of frames at file offset text_at */
        uint64_t text_at;
        pyprof_id node; /* PYPROF_NONE once the tail is all in the tree */
        uint64_t path;  /* path hash of `node` */
        double w;       /* the stack's weight (every metric) */
    } * tails;
    size_t ntails, tails_cap;
    bool tails_sized; /* the array was grown to what the read should need (collapsed_tail.c) */
    /* tnext[tail]: the node's next tail (index + 1, 0: none); apart from
     * the tails, so that following a list reads 4 bytes a tail, mostly
     * from the CPU caches, not 48 from memory */
    uint32_t *tnext;
    size_t tnext_cap;
    uint32_t *tail_of;
    double *tail_w;
    size_t tail_of_cap;
    uint32_t *tscratch; /* a list's tails, while they are pushed */
    size_t tscratch_cap;
    double elide;              /* the read's stack_elide_below */
    double defer_sum;          /* the weight of the stacks deferred so far */
    double light_limit;        /* below this, the weight through a node keeps it light */
    /* the other half's reader, while two read at once (NULL otherwise):
     * this reader's slot, when it writes it next (bytes read), and what
     * the other slot said when it was last looked at */
    pyprof__collapsed_gauge *gauge;
    unsigned gauge_slot;
    uint64_t gauge_next, other_bytes;
    double other_weight;
    uint64_t start_at;         /* the input offset this reader started at */
    uint64_t light_stops;      /* stacks left below a light node (a test hook counts them) */
    struct tail_chunk *chunks; /* tail functions: blocks that never move */
    char *tbuf;                /* tail text read again */
    size_t tbuf_cap;

    double root_self; /* weight of empty stacks: the root alone */
    uint64_t good, blank, bad, crlf;
    uint64_t bad_lines[MAX_BAD_LINES_KEPT];
    bool two_counts, full_metrics, pending_ts;
    /* what decides whether two halves read apart add up to what one pass
     * gives (collapsed_split.c): frames that are not plain ASCII, and
     * weights whose sums could round */
    bool nonplain, inexact;
    double weight_sum;
} pyprof__collapsed_reader;
typedef pyprof__collapsed_reader reader;

/* Add one stack s[0..len) ("frame;frame;...", outermost first) with weights
 * w0 (metric 0) and w1 (metric 1). */
int pyprof__collapsed_add_stack(reader *r, const char *s, size_t len, double w0, double w1);

/* The function for frame text f[0..n) at `depth` (0 = outermost); `plain`:
 * the text is known to be ASCII without NUL, and `h` is its hash
 * (collapsed_frame.c: a cache of frame texts in front of the string table). */
int pyprof__collapsed_frame_func(reader *r, pyprof_id *out, const char *f, size_t n, size_t depth,
                                 bool plain, uint64_t h);

/* Room for n more functions in the reader's frame cache and function
 * texts: a first half that finishes before the second makes room for what
 * the merge may add while it waits (collapsed_split.c).  A failure does
 * no harm: the room is only made later, as functions come. */
int pyprof__collapsed_frames_reserve(pyprof__collapsed_reader *r, size_t n);
/* Room for n more nodes in the reader's profile and, in a lazy read, in
 * its per-node tail arrays (collapsed_tail.c); as harmless if it fails. */
int pyprof__collapsed_nodes_reserve(pyprof__collapsed_reader *r, size_t n);

/* Make function `id`, whose id names_later gave, from its frame text
 * text[0..len): the profile's next function must be it. */
int pyprof__collapsed_func_make(pyprof__collapsed_reader *r, pyprof_id id, const char *text,
                                size_t len);

/* ---- function fields made later (collapsed_names.c) ---- */

/* Make every function whose id was given and that is not made yet (after
 * the helper making some, if one runs), and make functions at once from
 * here on. */
int pyprof__collapsed_names_flush(pyprof__collapsed_reader *r);
/* Start making the functions given ids so far on a helper thread (or make
 * them here if no thread starts); until pyprof__collapsed_names_join, the
 * reader may give more ids and add nodes, but not touch the profile's
 * strings or functions. */
int pyprof__collapsed_names_start(pyprof__collapsed_reader *r);
/* Wait for the helper, if one runs; its status. */
int pyprof__collapsed_names_join(pyprof__collapsed_reader *r);

/* Whether the n bytes at a and at b are the same: frame texts, a few dozen
 * bytes, compared sixteen at a time (the last sixteen overlapping) without
 * the call and the set-up of memcmp. */
static inline bool
pyprof__same_text(const char *a, const char *b, size_t n)
{
#if defined(__SSE2__)
    if (n >= 16) {
        for (size_t i = 0; i + 16 < n; i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) != 0xFFFF)
                return false;
        }
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + n - 16));
        __m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) == 0xFFFF;
    }
#endif
    return memcmp(a, b, n) == 0;
}

/* The function of plain frame text f[0..n) with hash h if the frame cache
 * holds it in its first slot for h (most lookups), else PYPROF_NONE: the
 * hot path's look before it calls pyprof__collapsed_frame_func. */
static inline pyprof_id
pyprof__frame_cached(const pyprof__collapsed_reader *r, const char *f, size_t n, uint64_t h)
{
    if (!r->fc)
        return PYPROF_NONE;
    const struct frame_cache *e = &r->fc[h & r->fc_mask];
    return e->hash == h && e->len == n && pyprof__same_text(e->text, f, n) ? e->func : PYPROF_NONE;
}

/* ---- nodes by the hash of their path (collapsed_stack.c says why) ---- */

#define PYPROF__PATH_ROOT_HASH 0x6a09e667f3bcc909ull /* any constant: the parent hash of roots */

/* The path hash of the child for `func` of a node whose path hashes to parent_hash. */
static inline uint64_t
pyprof__path_hash(uint64_t parent_hash, pyprof_id func)
{
    return pyprof__hash_mix(parent_hash, func);
}

/* The bits of a path hash a table slot keeps (its home slot comes from them). */
static inline uint32_t
pyprof__path_tag(uint64_t h)
{
    return (uint32_t)h;
}

/* The node whose path hashes to h, with this parent and function, or PYPROF_NONE. */
static inline pyprof_id
pyprof__path_find(const reader *r, const pyprof_stack_node *nodes, uint64_t h, pyprof_id parent,
                  pyprof_id func)
{
    if (!r->path_tab) /* (nodes the merge added have no slots) */
        return PYPROF_NONE;
    uint32_t tag = pyprof__path_tag(h);
    for (size_t j = tag & r->path_mask;; j = (j + 1) & r->path_mask) {
        uint64_t e = r->path_tab[j];
        if (!e)
            return PYPROF_NONE;
        if ((uint32_t)(e >> 32) == tag) {
            pyprof_id id = (pyprof_id)e - 1;
            if (nodes[id].parent == parent && nodes[id].func == func)
                return id;
        }
    }
}

/* Put the first frame of each tail of `at` in the tree (so `at` has
 * children and no tails) and hang the rest of each from it. */
int pyprof__collapsed_tails_push(reader *r, pyprof_id at);
/* Walk tail t's frames down from `parent` (path hash `ph`) to the first
 * node that keeps tails or the first new node, adding nodes as a stack's
 * frames are, and hang the rest there (for b's tails in a merge). */
int pyprof__collapsed_walk_tail(reader *r, struct tail t, pyprof_id parent, uint64_t ph);

/* ---- jumps (collapsed_jump.c) ---- */

/* A window of frame text the walk has gone through: `frames` frames (its
 * `len` bytes of text, each frame with its ';') from node `from` (PYPROF_NONE:
 * the roots) down to node `to`, whose path hashes to `path`. */
struct pyprof__jump {
    pyprof_id from, to;
    uint32_t len, frames;
    uint64_t path;
    char text[];
};
/* Where the window that starts at s[pos] (a frame's start) ends: just past
 * the last ';' within the window size of s[pos..len); 0 if there is none. */
size_t pyprof__jump_end(const char *s, size_t pos, size_t len);
/* The jump noted from node `from` over the n bytes of window text s, or NULL. */
const struct pyprof__jump *pyprof__jump_find(const pyprof__collapsed_reader *r, pyprof_id from,
                                             const char *s, size_t n);
/* Note that the walk went from `from` through the `frames` frames of the n
 * bytes of window text s to node `to` (path hash `path`). */
int pyprof__jump_put(pyprof__collapsed_reader *r, pyprof_id from, const char *s, size_t n,
                     pyprof_id to, uint64_t path, size_t frames);
void pyprof__jumps_free(pyprof__collapsed_reader *r);
/* Test hook: the window size in bytes (0: no jumps; the default is 256);
 * returns the old one. */
size_t pyprof__collapsed_jump_bytes(size_t bytes);
/* The window size: 0 if the walk takes no jumps. */
size_t pyprof__jump_window(void);
/* Test hook: jumps taken so far, all readers together. */
uint64_t pyprof__collapsed_jumps(void);

/* ---- lines walked before (collapsed_line.c) ---- */

/* Whether stack text s[0..len) (len > 0) was walked before and its text
 * kept: then *tail (index + 1) is the tail its walk made, or 0 and *node
 * where its weight went.  *key gets the text's key (for
 * pyprof__line_note) in any case. */
bool pyprof__line_find(pyprof__collapsed_reader *r, const char *s, size_t len, uint64_t *key,
                       uint32_t *tail, pyprof_id *node);
/* Note that the walk of s[0..len) (`key` from pyprof__line_find) made
 * tail `tail` (index + 1), or else added its weight at `node`. */
int pyprof__line_note(pyprof__collapsed_reader *r, uint64_t key, const char *s, size_t len,
                      uint32_t tail, pyprof_id node);
void pyprof__lines_free(pyprof__collapsed_reader *r);
/* Test hook: lines added as an earlier line of the same text was, all
 * readers together. */
uint64_t pyprof__collapsed_lines_again(void);

/* ---- tails (collapsed_tail.c) ---- */

/* The tail index + 1 of `node`, 0 if it has none. */
static inline uint32_t
pyprof__tail_at(const pyprof__collapsed_reader *r, pyprof_id node)
{
    return node < r->tail_of_cap ? r->tail_of[node] : 0;
}
/* Whether stacks of weight w in all that go below `node` all stay there as
 * tails: the node has tails (so no children), and with w the weight
 * through it is still too small to draw (roots have no tails). */
static inline bool
pyprof__stays_light(const pyprof__collapsed_reader *r, pyprof_id node, double w)
{
    return pyprof__tail_at(r, node) && r->tail_w[node] + w < r->light_limit;
}
/* Hang a new tail of weight w from `node` (which has no tail): functions
 * funcs[0..n), then the frames of the text_len bytes at file offset
 * text_at (none if 0); at least one frame.  `copy`: the functions are
 * copied (else they must live in a chunk the reader owns, see
 * pyprof__tails_adopt). */
int pyprof__tail_new(pyprof__collapsed_reader *r, pyprof_id node, pyprof_id *funcs, size_t n,
                     uint64_t text_at, size_t text_len, double w, uint64_t path, bool copy);
/* Room for n functions in a chunk: valid until the reader is freed. */
pyprof_id *pyprof__tail_room(pyprof__collapsed_reader *r, size_t n);
/* Hang tail index `ti` (funcs and path already updated) from `node`. */
int pyprof__tail_move(pyprof__collapsed_reader *r, uint32_t ti, pyprof_id node);
/* Room for n more tails, written from index r->ntails on (a merge copies a
 * second half's tails in whole). */
int pyprof__tails_reserve(pyprof__collapsed_reader *r, size_t n);
/* Put a list of tails already linked through r->tnext, newest (index) to
 * oldest, of weight w in all, in front of the list of `node`. */
int pyprof__tails_splice(pyprof__collapsed_reader *r, pyprof_id node, uint32_t newest,
                         uint32_t oldest, double w);
/* Rewrite every function id the tails of r hold (map[id], id < nmap):
 * the lists are written whole in their chunks, and read in order. */
int pyprof__tails_map_funcs(pyprof__collapsed_reader *r, const pyprof_id *map, size_t nmap);
/* Take over the chunks of b (after a merge that moved b's tails to a). */
void pyprof__tails_adopt(pyprof__collapsed_reader *a, pyprof__collapsed_reader *b);
void pyprof__tails_free(pyprof__collapsed_reader *r);
/* End of a lazy read: the frames below nodes too light to be drawn at
 * `fraction` are elided (pyprof_stack_elided), the other tails put in the
 * tree. */
int pyprof__collapsed_tails_finish(pyprof__collapsed_reader *r, double fraction);

/* Read from here on as if no other half were read at once (a reader
 * that read its half next to another, and now reads on alone). */
void pyprof__collapsed_gauge_leave(pyprof__collapsed_reader *r);

/* Free what the reader allocated (not the profile). */
void pyprof__collapsed_reader_free(reader *r);
/* Free what only reading more lines needs (caches, lookup tables), keeping
 * what pyprof__collapsed_merge needs of the reader read from. */
void pyprof__collapsed_reader_drop_lookups(reader *r);

/* Read lines from r->in to its end; `at_start`: the input is at the start
 * of the file (where a UTF-8 BOM is skipped). */
int pyprof__collapsed_read_lines(reader *r, bool at_start);

/* Add what reader `b` read (the lines after a's, on another thread, into
 * its own profile) to a's profile, exactly as if a had read those lines.
 * Only for readers whose pyprof__collapsed_halves_mergeable() is true. */
int pyprof__collapsed_merge(reader *a, reader *b);
bool pyprof__collapsed_halves_mergeable(const reader *a, const reader *b);

/* Read r->in in two halves on two threads when that is worthwhile and gives
 * the same profile; *done says whether it did (else nothing was read). */
int pyprof__collapsed_read_split(reader *r, bool *done);

/* Test hooks: inputs of at least this many bytes are split (returns the
 * old value; the default is 32 MiB); how many reads merged two halves. */
uint64_t pyprof__collapsed_split_min(uint64_t bytes);
uint64_t pyprof__collapsed_merges(void);
/* Test hook: a new tail looks up its first `known` frames (SIZE_MAX: all
 * of them, no text kept; a heavy stack's are all looked up, see
 * pyprof__collapsed_heavy_whole) and a tail's text read again is split
 * `fill` frames at a time.  The defaults are 6 and 8. */
void pyprof__collapsed_tail_text(size_t known, size_t fill);
/* Test hook: whether a stack as heavy as the light limit on its own has
 * all its frames looked up as it is read (the default), or keeps its text
 * as other tails do; returns the old setting. */
bool pyprof__collapsed_heavy_whole(bool on);
/* Test hook: bytes of tail text read again so far, all readers together. */
uint64_t pyprof__collapsed_reread_bytes(void);
/* Test hook: stacks left so far below a node still too light to draw, all
 * readers together. */
uint64_t pyprof__collapsed_light_stops(void);
/* Test hook: times a half of a split read grew its tails array to what
 * its tails should come to (collapsed_tail.c), all readers together. */
uint64_t pyprof__collapsed_tails_sized(void);

#endif
