/*
 * pyprof_int.h - the private contract between the library core and the
 * format modules and renderers.  Not installed.  Names here are pyprof__*
 * (semi-private: visible across the library's files, never exported; the
 * link's -export-symbols-regex hides them).
 */
#ifndef PYPROF_INT_H
#define PYPROF_INT_H

#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pyprof/pyprof.h>

/* ---- error shorthands ------------------------------------------------------
 * One-line error paths, as zstd's RETURN_ERROR_IF/FORWARD_IF_ERROR: a
 * function keeps `int rc` and one `out:` label that releases what it holds. */
#define PYPROF_TRY(expr)                                                                           \
    do {                                                                                           \
        rc = (expr);                                                                               \
        if (rc < 0)                                                                                \
            goto out;                                                                              \
    } while (0)

/* ---- checked size arithmetic ----------------------------------------------- */
static inline bool
pyprof__mul_overflows(size_t a, size_t b, size_t *r)
{
    return __builtin_mul_overflow(a, b, r);
}
static inline bool
pyprof__add_overflows(size_t a, size_t b, size_t *r)
{
    return __builtin_add_overflow(a, b, r);
}

/* v rounded to the nearest integer (halves away from zero), held to the
 * int64_t range, NaN as 0: a count derived from a weight.  llround's result
 * is unspecified out of range (in practice INT64_MIN for any big value). */
static inline int64_t
pyprof__round_i64(double v)
{
    if (!(v == v))
        return 0;
    if (v >= 9223372036854775807.0) /* (the double is 2^63) */
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)__builtin_round(v);
}

/* a += b, as pstats.Stats.add adds two entries; the call counts held to the
 * int64_t range (sums of damaged files' counts can pass it, and a signed
 * overflow would be undefined) */
static inline int64_t
pyprof__add_sat_i64(int64_t a, int64_t b)
{
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r))
        return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}
static inline void
pyprof__counts_add(pyprof_counts *a, const pyprof_counts *b)
{
    a->primcalls = pyprof__add_sat_i64(a->primcalls, b->primcalls);
    a->ncalls = pyprof__add_sat_i64(a->ncalls, b->ncalls);
    a->tottime += b->tottime;
    a->cumtime += b->cumtime;
}

/* ---- allocation ------------------------------------------------------------
 * Every allocation of the library goes through these, so that the tests can
 * fail the Nth one (pyprof__alloc_fail_after) and check that each failure
 * comes back as PYPROF_ENOMEM without a leak. */
void *pyprof__malloc(size_t n);
void *pyprof__calloc(size_t n, size_t size);
/* Zeroed like calloc, but with every page written now: for big tables that
 * are read before they are written (see alloc.c). */
void *pyprof__zalloc(size_t n, size_t size);
/* Ask for transparent huge pages over the whole 2 MiB pages inside
 * [p, p + n) (see alloc.c); a hint. */
void pyprof__advise_huge(void *p, size_t n);
/* Fault in the pages inside [p, p + n) for writing, in one call (see
 * alloc.c); a hint. */
void pyprof__populate(void *p, size_t n);
void *pyprof__realloc(void *p, size_t n);
/* realloc of n*size bytes with overflow checking */
void *pyprof__reallocarray(void *p, size_t n, size_t size);
void pyprof__free(void *p);
char *pyprof__strdup(const char *s);
/* Test hook: allocation number `n` (0-based, counted from this call) and all
 * later ones fail; n < 0 switches failing off.  Returns allocations so far. */
long pyprof__alloc_fail_after(long n);

/* Grow a dynamic array `*items` (element size `size`) so that it holds at
 * least `need` elements; capacity doubles.  Returns 0 or PYPROF_ENOMEM. */
int pyprof__grow(void **items, size_t *cap, size_t need, size_t size);
#define PYPROF_GROW(arr, cap, need) pyprof__grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* CPUs this process may run on (core/cpus.c): a reader splits its work
 * over two threads only with two or more. */
long pyprof__usable_cpus(void);

/* Whether a reader reads a big plain file in two halves on two threads
 * (collapsed_split.c, mprofile_split.c), one gate per reader: files of at
 * least `min` bytes, on two CPUs or more.  Tests move `min` (and then get
 * halves on one CPU too) and count the reads whose halves were joined. */
typedef struct pyprof__split_gate {
    uint64_t min, min_default;
    _Atomic uint64_t joined; /* atomic: two reads in two threads may each split */
} pyprof__split_gate;
#define PYPROF__SPLIT_GATE(bytes) {(bytes), (bytes), 0}
bool pyprof__split_gate_open(const pyprof__split_gate *g, int64_t size);
void pyprof__split_gate_joined(pyprof__split_gate *g);
/* for tests: set min (returns the old one); reads joined so far */
uint64_t pyprof__split_gate_set_min(pyprof__split_gate *g, uint64_t bytes);
uint64_t pyprof__split_gate_count(pyprof__split_gate *g);

/* ---- prefaulting (core/prefault.c) -------------------------------------------
 * Have a helper thread fault in p[0..n) (whole pages within it), memory the
 * caller has allocated and will fill later, while the caller does other
 * work.  The range must stay allocated (not freed, not moved by realloc)
 * until pyprof__prefault_finish, which stops the helper at its next slice
 * and waits for it; writing into it meanwhile is safe, since the helper
 * only asks the kernel to populate pages and never changes contents
 * (mprofile.c fills its samples while the helper runs).  Returns NULL when
 * not worth it or not possible (small ranges, no threads, no
 * MADV_POPULATE_WRITE); finish takes NULL.  Only a hint: contents are not
 * changed, and any failure just leaves the faults to the caller. */
typedef struct pyprof__prefault pyprof__prefault;
pyprof__prefault *pyprof__prefault_start(void *p, size_t n);
void pyprof__prefault_finish(pyprof__prefault *pf);

/* ---- arena -------------------------------------------------------------------
 * Bump allocation for objects that live as long as their profile (strings).
 * Freed all at once.  With PYPROF_DEBUG_ARENA every object is its own malloc
 * so that ASan sees overruns between neighbours. */
typedef struct pyprof__arena {
    struct pyprof__arena_block *head;
} pyprof__arena;
void *pyprof__arena_alloc(pyprof__arena *a, size_t n);
void pyprof__arena_free(pyprof__arena *a);

/* ---- hashing ------------------------------------------------------------------
 * A fixed-seed hash: output never depends on it (nothing iterates hash
 * order), but fixed seeds keep runs reproducible for debugging. */
uint64_t pyprof__hash_bytes(const void *data, size_t len);
static inline uint64_t
pyprof__hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

/* Open-addressing table of ids; the owner compares keys through a callback.
 * A slot holds the top 32 bits of the key's hash and id+1 (0 = empty), so the
 * owner's keys are read only on a 32-bit hash match.  The hash's high bits
 * must be well mixed (pyprof__hash_bytes and pyprof__hash_mix are). */
typedef struct pyprof__idtab {
    uint64_t *slots;
    size_t mask; /* capacity - 1, capacity a power of two */
    size_t used;
} pyprof__idtab;
typedef bool (*pyprof__idtab_eq)(const void *ctx, uint32_t id, const void *key);
/* Find key with hash h; returns id or PYPROF_NONE. */
uint32_t pyprof__idtab_find(const pyprof__idtab *t, uint64_t h, pyprof__idtab_eq eq,
                            const void *ctx, const void *key);
/* Insert id (known absent) with hash h.  Growing needs no help from the
 * owner: slots keep their hash. */
int pyprof__idtab_insert(pyprof__idtab *t, uint64_t h, uint32_t id);
/* Grow (never shrink) to hold `n` ids in all without further rehashing. */
int pyprof__idtab_reserve(pyprof__idtab *t, size_t n);
void pyprof__idtab_free(pyprof__idtab *t);

/* ---- stack tree fast path ---------------------------------------------------------
 * Append the child `func` of `parent`, which the caller KNOWS is not in the
 * tree yet (e.g. `parent` was itself created a moment ago).  The lookup
 * index is not updated now: the next pyprof_profile_stack_child catches up.
 * A reader that finds existing children by other means (collapsed_stack.c
 * keeps its own table of nodes by path) thus never pays for an index of
 * millions of nodes.  `func` is not checked: a reader may name a function
 * it makes before the read returns (collapsed_names.c). */
int pyprof__profile_stack_append(pyprof_profile *p, pyprof_id *out, pyprof_id parent,
                                 pyprof_id func);
/* Room for n more stack nodes, so that appending them moves nothing. */
int pyprof__profile_stack_reserve(pyprof_profile *p, size_t n);
/* Record `weight` of stacks left out below `node` (see pyprof_stack_elided). */
int pyprof__profile_stack_elide(pyprof_profile *p, pyprof_id node, double weight);
/* 0, or PYPROF_ECAPS (with a message naming `what`) when `p` has elided
 * stacks: for operations that need every frame. */
int pyprof__profile_whole_stacks(const pyprof_profile *p, pyprof_error *err, const char *what);

/* ---- reading one file in parts (input.c) ------------------------------------------
 * A plain (not zstd) regular file can be read by two inputs at once: the
 * first stops at a line boundary, the second reads from there (with
 * pread, so they share the descriptor without sharing a file offset).
 * Stopping is undoable: after pyprof__input_set_end(in, UINT64_MAX) the
 * first input reads on from where it stopped, as if it had never stopped. */

/* Make `in` read no byte at or after file offset `end` (UINT64_MAX: no
 * limit); bytes it already holds past `end` are dropped, to be read again
 * if the limit is lifted.  EINVAL if `in` is not a plain regular file or
 * has already given its reader bytes past `end`. */
int pyprof__input_set_end(pyprof_input *in, uint64_t end);
/* The file offset just after the first newline at or after `from`, in
 * *out; the file size if there is none. */
int pyprof__input_line_start(pyprof_input *in, uint64_t from, uint64_t *out, pyprof_error *err);
/* A new input over bytes [start, end) of the file `in` reads (borrowing its
 * descriptor: close it before `in`).  It never sniffs zstd (a line may
 * start with anything), reports no progress, and keeps `in`'s limits. */
int pyprof__input_open_range(pyprof_input **out, pyprof_input *in, uint64_t start, uint64_t end,
                             pyprof_error *err);
/* The bytes past the end of `in` were read by another input: report the
 * whole file as read to the progress callback. */
void pyprof__input_report_done(pyprof_input *in);

/* ---- reading bytes again (input.c) ---------------------------------------------
 * A reader may keep where some text was instead of the text, and read it
 * again if it turns out to be needed (the lazy collapsed reader does). */

/* True if `in` can give bytes again by offset: a plain (not zstd) regular
 * file or memory. */
bool pyprof__input_rereadable(const pyprof_input *in);
/* The file offset of byte `p` of the line (or peeked bytes) `in` gave out
 * last; p must point into them. */
uint64_t pyprof__input_offset_of(const pyprof_input *in, const void *p);
/* Read n bytes at file offset `at` again into dst.  PYPROF_EIO, naming the
 * offset, if the file no longer has them; PYPROF_EINVAL if `in` is not
 * rereadable.  Whether the bytes are the ones read before is known only
 * once pyprof__input_reread_check has passed: a reader that read again
 * must call it after its last read again, and before it trusts the result. */
int pyprof__input_reread(pyprof_input *in, uint64_t at, void *dst, size_t n, pyprof_error *err);
/* PYPROF_EIO, naming the lowest offset read again, if bytes were read again
 * and the file is no longer as it was when opened (its size or modification
 * time changed); else 0. */
int pyprof__input_reread_check(pyprof_input *in, pyprof_error *err);
/* Make `in` answer for what `part` (pyprof__input_open_range of it) read
 * again, so that one check of `in` covers both. */
void pyprof__input_reread_adopt(pyprof_input *in, const pyprof_input *part);

/* ---- UTF-8 ---------------------------------------------------------------------- */
/* Length of the valid UTF-8 prefix of s[0..len) (== len when all valid). */
size_t pyprof__utf8_valid_prefix(const unsigned char *s, size_t len);
/* Number of code points in valid UTF-8 (for column widths, as Python's len()). */
size_t pyprof__utf8_length(const char *s, size_t len);

/* ---- locale-independent number formatting ----------------------------------- */
/* vsnprintf in the C locale (uselocale, never setlocale). */
int pyprof__vsnprintf_c(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int pyprof__snprintf_c(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* pyprof_error_set with a va_list (for the positioned-error helpers). */
int pyprof__error_setv(pyprof_error *err, int code, const char *source, const char *format,
                       int64_t offset, int64_t line, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));
/* strtod in the C locale. */
double pyprof__strtod_c(const char *s, char **end);
/* The decimal digits of v at p (at most 20 bytes, or 21 with the sign of
 * a negative one; no NUL), as printf's %llu / %lld would write them;
 * returns the end.  For writers of millions of integers, where printf's
 * format parsing and locale switch would cost more than the rest. */
char *pyprof__fmt_u64(char *p, uint64_t v);
char *pyprof__fmt_i64(char *p, int64_t v);
/* snprintf(buf, size, "%.1f", v) in the C locale, its text and its return
 * value, without printf for nearly all v (see numfmt.c). */
size_t pyprof__fmt_f1(char *buf, size_t size, double v);
/* True, with |v| * 10 rounded to an integer as "%.1f" rounds it in *n,
 * when that is sure without printf's exact arithmetic (nearly always). */
bool pyprof__tenths(double v, uint64_t *n);

/* The file a profile was read from (its first source), or NULL: errors
 * about what a profile lacks name it, as errors about its bytes do. */
const char *pyprof__profile_name(const pyprof_profile *p);

/* ---- bulk loading ----------------------------------------------------------
 * Append the edge caller -> callee without looking it up: the caller
 * guarantees it is new (a pstats callers dict names each caller once).  The
 * edge index catches up at the next lookup, so a reader that never looks
 * edges up never pays for the index (a cache miss per edge on big files). */
int pyprof__profile_edge_append(pyprof_profile *p, pyprof_id *out, pyprof_id caller,
                                pyprof_id callee);
/* Room for `n` more memory samples, written in place by a reader that has
 * 10^6 of them (a call per sample cost as much as parsing its numbers);
 * NULL when out of memory.  The slots count only once committed, which
 * must happen before any other sample is added; the caller guarantees
 * each slot's series exists. */
pyprof_mem_sample *pyprof__profile_mem_samples_reserve(pyprof_profile *p, size_t n);
void pyprof__profile_mem_samples_commit(pyprof_profile *p, size_t n);

/* ---- memory sample summary (core/mem_summary.c) ----------------------------
 * What a memory plot learns in one pass over the samples [0, n): times in
 * order or not, the MiB range, the first highest sample, and the first
 * lowest and first highest sample of each chunk.  Chunks are
 * PYPROF__MEM_CHUNK samples aligned from 0 below `split` and from `split`
 * on (two reading threads each summarize their own half; 0: one grid), so
 * the last chunk before `split` may be short. */
#define PYPROF__MEM_CHUNK 64

typedef struct pyprof__mem_summary {
    size_t n, split;
    bool ordered; /* t never decreases */
    bool nan;     /* a NaN MiB: the bounds follow NaN comparisons, use none of it */
    bool chunks;  /* after finish: chunk_lo/chunk_hi hold every chunk */
    double lo, hi;
    size_t peak;
    uint32_t *chunk_lo, *chunk_hi; /* sample indices; cap entries each */
    size_t cap;
    /* the chunk being filled (index k), between feeds */
    bool open, lost;
    size_t k, il, ih;
    double yl, yh;
} pyprof__mem_summary;

/* Start with caller-owned chunk arrays of `cap` entries (NULL, 0: none, or
 * grown by reserve, then owned and freed by pyprof__mem_summary_free). */
void pyprof__mem_summary_init(pyprof__mem_summary *s, uint32_t *chunk_lo, uint32_t *chunk_hi,
                              size_t cap);
void pyprof__mem_summary_free(pyprof__mem_summary *s);
/* Room in the (malloc'd) chunk arrays for the chunks of `n` samples. */
int pyprof__mem_summary_reserve(pyprof__mem_summary *s, size_t n);
/* Take in run[s->n, to); run[i] is sample i (earlier ones stay readable). */
void pyprof__mem_summary_feed(pyprof__mem_summary *s, const pyprof_mem_sample *run, size_t to);
/* After the last feed. */
void pyprof__mem_summary_finish(pyprof__mem_summary *s);
/* Finished `b`, of the samples that follow s's in `run` (run[s->n] is b's
 * sample 0), appended to finished `s`, whose arrays must hold both. */
void pyprof__mem_summary_append(pyprof__mem_summary *s, const pyprof__mem_summary *b,
                                const pyprof_mem_sample *run);
/* The profile keeps a reader's summary (taking its arrays) while its
 * samples do not change; the getter returns NULL once they did. */
void pyprof__profile_mem_summary_set(pyprof_profile *p, pyprof__mem_summary *s);
const pyprof__mem_summary *pyprof__profile_mem_summary(const pyprof_profile *p);

/* All edges as one array (edge id = index), borrowed until the edges change:
 * for passes over hundreds of thousands of edges, which would otherwise pay
 * a call per edge. */
const pyprof_edge *pyprof__profile_edges(const pyprof_profile *p, size_t *n);
/* The reserved but unused edge storage after the last edge (where the next
 * edges appended will go), and its size in bytes (for prefaulting). */
void *pyprof__profile_edges_spare(pyprof_profile *p, size_t *bytes);

/* ---- format modules -------------------------------------------------------------- */
typedef struct pyprof__format {
    const char *name;        /* canonical name, as -f takes it */
    const char *aliases;     /* space-separated other names accepted by -f, or NULL */
    const char *description; /* one line for --help and error messages */
    /* Bid 0..100 on the first `len` (<= PYPROF_PROBE_BYTES) decoded bytes.
     * `at_eof` says whether those are all the bytes there are. */
    int (*probe)(const unsigned char *head, size_t len, bool at_eof);
    /* Read everything from `in` into the empty profile `p`. */
    int (*read)(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts,
                pyprof_error *err);
} pyprof__format;

/* The registry, in bid-tie order (formats/registry.c). */
extern const pyprof__format *const pyprof__formats[];
extern const size_t pyprof__format_count;

/* Each module's entry (formats/<name>.c). */
extern const pyprof__format pyprof__format_pstats;
extern const pyprof__format pyprof__format_lprof;
extern const pyprof__format pyprof__format_mprofile;
extern const pyprof__format pyprof__format_memreport;
extern const pyprof__format pyprof__format_collapsed;
extern const pyprof__format pyprof__format_callgrind;
extern const pyprof__format pyprof__format_speedscope;

/* Defaults applied when read options leave a limit at 0. */
#define PYPROF__DEFAULT_MAX_DEPTH 2000u

#endif
