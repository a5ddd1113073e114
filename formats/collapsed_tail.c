/*
 * collapsed_tail.c - where the lazy collapsed reader keeps the frames it has
 * not put in the tree yet.
 *
 * A big sampled file is mostly distinct stacks that share their upper
 * frames and then fan out: on the 1 GB benchmark file more than half of all
 * frames are the only visit of their node, and most of the others are
 * visits of nodes far too narrow to draw.  Building those nodes (a node, a
 * slot in the path table, lookups that miss the CPU caches) was most of
 * the cost of reading, and a flame graph never shows them.  So, when asked
 * to (pyprof_read_options.stack_elide_below), the reader puts a stack in
 * the tree only down to its first new frame, or to the first node that is
 * still too light to draw, and keeps the rest as a list of function ids
 * hanging from that node: a "tail".  A node has tails or children, never
 * both.  Once the weight of the stacks through a node reaches half the
 * drawable width the reader expects of the whole file (collapsed_stack.c,
 * light_limit), the node's tails are moved down one frame, in the order of
 * their stacks, and later stacks walk on below it.  At the end, every node
 * with tails that might be drawn wide enough to show what is below it gets
 * its tails put in the tree, level by level, and the others keep their
 * tails' weight as elided weight: the tree then holds every frame the
 * graph can draw, with the weight of everything below, whatever the
 * estimate was.  On the 1 GB file the tree has 160,000 nodes, where
 * stopping only at new frames gave a million and an eager read builds 11
 * million.
 *
 * Most tails are never needed past their first frames: nearly all the
 * frames put in tails are still there at the end, in tails too light to
 * draw.  So when the input can be read again (a plain file or
 * memory, not a pipe or zstd), a tail keeps the functions of its first few
 * frames and, for the rest, only where their text is in the file: 12 bytes
 * however deep the stack.  The text is read again (pread) and split into
 * functions a few frames at a time when a push needs them (collapsed_stack.c,
 * tail_fill): on the 1 GB file 11,000 times in 550,000 pushes.  Keeping the
 * text itself would fault in half a GB of fresh memory, and looking up
 * every frame (what happens when the input cannot be read again) is half
 * of all the lookups of the file.
 *
 * The lists live in chunks that never move (tails keep pointers into them),
 * and a tail's list is shortened from the front as it moves down, so a
 * chunk is written once and never compacted.
 */
#include "config.h"

#include "collapsed.h"

/* Chunks (in functions) grow from 256 Ki to 8 Mi: a small file gets a
 * small block, and each block is faulted in with one call (page by page,
 * fresh memory costs microseconds a page in a virtual machine). */
#define CHUNK_FIRST ((size_t)1 << 18)
#define CHUNK_MAX ((size_t)8 << 20)

struct tail_chunk {
    struct tail_chunk *next;
    size_t used, cap;
    pyprof_id funcs[];
};

pyprof_id *
pyprof__tail_room(reader *r, size_t n)
{
    struct tail_chunk *c = r->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = !c ? CHUNK_FIRST : c->cap < CHUNK_MAX ? c->cap * 2 : CHUNK_MAX;
        if (cap < n)
            cap = n;
        c = pyprof__malloc(sizeof(*c) + cap * sizeof(pyprof_id));
        if (!c)
            return NULL;
        pyprof__populate(c->funcs, cap * sizeof(pyprof_id));
        c->next = r->chunks;
        c->used = 0;
        c->cap = cap;
        r->chunks = c;
    }
    pyprof_id *p = c->funcs + c->used;
    c->used += n;
    return p;
}

/* tail_of and tail_w cover node ids up to `node`. */
static int
tail_of_cover(reader *r, pyprof_id node)
{
    if (node < r->tail_of_cap)
        return 0;
    size_t old = r->tail_of_cap, co = old, cw = old;
    if (PYPROF_GROW(r->tail_of, co, (size_t)node + 1) < 0 ||
        PYPROF_GROW(r->tail_w, cw, (size_t)node + 1) < 0)
        return PYPROF_ENOMEM; /* (the arrays' first `old` entries are as they were) */
    r->tail_of_cap = co < cw ? co : cw;
    memset(r->tail_of + old, 0, (r->tail_of_cap - old) * sizeof(*r->tail_of));
    memset(r->tail_w + old, 0, (r->tail_of_cap - old) * sizeof(*r->tail_w));
    return 0;
}

int
pyprof__collapsed_nodes_reserve(reader *r, size_t n)
{
    size_t have = pyprof_profile_stack_count(r->p);
    int rc = pyprof__profile_stack_reserve(r->p, n);
    if (rc < 0 || n == 0)
        return rc;
    return r->lazy ? tail_of_cover(r, (pyprof_id)(have + n - 1)) : 0;
}

int
pyprof__tail_move(reader *r, uint32_t ti, pyprof_id node)
{
    int rc = tail_of_cover(r, node);
    if (rc < 0)
        return rc;
    r->tails[ti].node = node;
    r->tnext[ti] = r->tail_of[node];
    r->tail_of[node] = ti + 1;
    r->tail_w[node] += r->tails[ti].w;
    return 0;
}

/* Room in the tails array (and its next-links) for `need` tails. */
static int
tails_grow(reader *r, size_t need)
{
    if (PYPROF_GROW(r->tails, r->tails_cap, need) < 0 ||
        PYPROF_GROW(r->tnext, r->tnext_cap, need) < 0)
        return PYPROF_ENOMEM;
    return 0;
}

/* Room for the tails array to grow to, when it must grow.  Grown by
 * doubling, the array of each half of a split read was copied to a bigger
 * block four or five times, and the copies touched fresh pages: 480 page
 * faults of the 100 MB benchmark file's read, on both threads.  And the
 * first half takes in the second half's tails when the two are merged
 * (pyprof__tails_reserve), which copied its whole array once more.  So,
 * once it has read a megabyte, a half grows its array to what its tails
 * should come to at the rate so far (and a little more): the first half's
 * to the whole file's, the second's to its own half's.  Memory it does
 * not fill is never touched, and glibc maps a block that big on its own,
 * which grows without a copy if it must; at most TAILS_ROOM_MAX bytes are
 * asked for this way, and if they cannot be had the array grows as
 * before. */
#define TAILS_ROOM_MAX ((size_t)64 << 20)

static atomic_uint_least64_t tails_sized; /* (for tests, on every thread) */

uint64_t
pyprof__collapsed_tails_sized(void)
{
    return atomic_load_explicit(&tails_sized, memory_order_relaxed);
}

static size_t
tails_room(const reader *r)
{
    size_t need = r->ntails + 1;
    if (need <= r->tails_cap || !r->gauge || r->tails_sized)
        return need;
    uint64_t done = pyprof_input_offset(r->in) - r->start_at;
    int64_t size = pyprof_input_file_size(r->in);
    if (done < ((uint64_t)1 << 20) || size <= 0 || (uint64_t)size <= r->start_at + done)
        return need;
    /* the first half (slot 0) reads from the start; its region is the whole file */
    double region = (double)((uint64_t)size - (r->gauge_slot ? r->start_at : 0));
    double whole = (double)r->ntails * (region / (double)done) * 1.05;
    double most = (double)(TAILS_ROOM_MAX / sizeof(*r->tails));
    if (whole > most)
        whole = most;
    return whole > (double)need ? (size_t)whole : need;
}

/* Room in the tails array (and its next-links) for a new tail. */
static int
tails_make_room(reader *r)
{
    size_t want = tails_room(r), need = r->ntails + 1;
    if (want > need) {
        r->tails_sized = true; /* (once: later growth doubles) */
        if (tails_grow(r, want) == 0) {
            atomic_fetch_add_explicit(&tails_sized, 1, memory_order_relaxed);
            return 0;
        }
    }
    return tails_grow(r, need);
}

int
pyprof__tail_new(reader *r, pyprof_id node, pyprof_id *funcs, size_t n, uint64_t text_at,
                 size_t text_len, double w, uint64_t path, bool copy)
{
    if (n == 0 && text_len == 0)
        return PYPROF_EINVAL;
    if (n > UINT32_MAX || text_len > UINT32_MAX || r->ntails >= UINT32_MAX - 1)
        return PYPROF_ELIMIT;
    if (tails_make_room(r) < 0)
        return PYPROF_ENOMEM;
    if (n == 0)
        funcs = NULL; /* (not the caller's scratch: tail_fill sets it) */
    if (copy && n) {
        pyprof_id *t = pyprof__tail_room(r, n);
        if (!t)
            return PYPROF_ENOMEM;
        memcpy(t, funcs, n * sizeof(*t));
        funcs = t;
    }
    uint32_t ti = (uint32_t)r->ntails++;
    r->tails[ti] = (struct tail){.funcs = funcs,
                                 .n = (uint32_t)n,
                                 .text_len = (uint32_t)text_len,
                                 .text_at = text_at,
                                 .path = path,
                                 .w = w};
    return pyprof__tail_move(r, ti, node);
}

int
pyprof__tails_reserve(reader *r, size_t n)
{
    if (n >= UINT32_MAX - 1 - r->ntails)
        return PYPROF_ELIMIT;
    return tails_grow(r, r->ntails + n);
}

int
pyprof__tails_splice(reader *r, pyprof_id node, uint32_t newest, uint32_t oldest, double w)
{
    int rc = tail_of_cover(r, node);
    if (rc < 0)
        return rc;
    r->tnext[oldest] = r->tail_of[node];
    r->tail_of[node] = newest + 1;
    r->tail_w[node] += w;
    return 0;
}

int
pyprof__tails_map_funcs(reader *r, const pyprof_id *map, size_t nmap)
{
    for (struct tail_chunk *c = r->chunks; c; c = c->next)
        for (size_t i = 0; i < c->used; i++) {
            if (c->funcs[i] >= nmap)
                return PYPROF_EINVAL;
            c->funcs[i] = map[c->funcs[i]];
        }
    return 0;
}

void
pyprof__tails_adopt(reader *a, reader *b)
{
    struct tail_chunk **end = &a->chunks;
    while (*end)
        end = &(*end)->next;
    *end = b->chunks;
    b->chunks = NULL;
}

void
pyprof__tails_free(reader *r)
{
    while (r->chunks) {
        struct tail_chunk *c = r->chunks;
        r->chunks = c->next;
        pyprof__free(c);
    }
    pyprof__free(r->tails);
    pyprof__free(r->tail_of);
    pyprof__free(r->tail_w);
    pyprof__free(r->tscratch);
    r->tscratch = NULL;
    r->tscratch_cap = 0;
    pyprof__free(r->tbuf);
    r->tbuf = NULL;
    r->tbuf_cap = 0;
    r->tails = NULL;
    r->ntails = r->tails_cap = 0;
    pyprof__free(r->tnext);
    r->tnext = NULL;
    r->tnext_cap = 0;
    r->tail_of = NULL;
    r->tail_w = NULL;
    r->tail_of_cap = 0;
}
