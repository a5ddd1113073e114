/*
 * collapsed_jump.c - jumps: runs of frames a lazy read has walked before,
 * found by their text in one lookup (the walk in collapsed_stack.c).
 *
 * Stacks of a big sampled file share their upper frames: on the 100 MB
 * benchmark file a line walks 14 frames of the tree on average before it
 * reaches a new frame or a node too light to draw, and each of those frames
 * cost about 300 instructions (its end, its hash, the frame cache, the path
 * table, the node).  Yet the text of those frames is the same, byte for
 * byte, as that of a line the walk has already taken that way.  So the walk
 * cuts a line into windows of text: a window runs from a frame's start to
 * the last ';' within jump_bytes bytes.  When it has walked all the frames
 * of a window, it notes the window's text with the nodes it went from and
 * to; a later line whose window, from that same node, has the same text
 * goes to that node at once, for a hash and a compare of the bytes.
 *
 * A jump is exact, and the walk it replaces would have done nothing else:
 * the nodes inside a window have children (the walk went on through them),
 * a node with children never gets tails, so no tail is pushed and no stack
 * is stopped there, and a stack's weight is added only where it ends (never
 * inside a window: a window ends at a ';').  The tree only grows while
 * lines are read, so a noted jump stays valid.  Windows start at the start
 * of a line and where the previous one ended, so lines that share frames
 * cut them into the same windows.
 *
 * On the 100 MB benchmark file a line jumps 2.4 times, over 11.5 frames,
 * and looks up 5 frames one by one, where it looked up 15 (the frames of the
 * window where it leaves the tree, and a few after that); reading takes a
 * quarter fewer instructions.  Noting every run of frames at the start of
 * a window too, so that a line could jump to where it leaves the tree
 * inside a window (a binary search over the runs), was slower: each probe
 * waits for the one before, where the walk's lookups overlap.
 */
#include "config.h"

#include "collapsed.h"

/* The most text a window holds: about five frames of a py-spy stack.  Each
 * window is one hash table probe and one compare; a longer window saves
 * more lookups, but a line's walk through the tree ends inside it more
 * often, and then the window's frames are walked one by one. */
static size_t jump_bytes = 256;

size_t
pyprof__collapsed_jump_bytes(size_t bytes)
{
    size_t old = jump_bytes;
    jump_bytes = bytes;
    return old;
}

size_t
pyprof__jump_window(void)
{
    return jump_bytes;
}

/* Slots hold a jump and its key; at most half are used. */
#define JUMP_TAB_MIN 1024

/* The most memory the windows of one reader keep, with their text,
 * whatever the file (on the 1 GB benchmark file, 2 MB a thread): past it,
 * the windows noted so far are still taken, but no new one is noted. */
#define JUMP_BYTES_MAX ((size_t)64 << 20)

size_t
pyprof__jump_end(const char *s, size_t pos, size_t len)
{
    size_t bytes = jump_bytes;
    if (!bytes)
        return 0;
    size_t i = len - pos > bytes ? pos + bytes : len;
#if defined(__SSE2__)
    const __m128i semi = _mm_set1_epi8(';');
    for (; i >= pos + 16; i -= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 16));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, semi));
        if (m)
            return i - 16 + (size_t)(31 - __builtin_clz(m)) + 1;
    }
#endif
    for (; i > pos; i--)
        if (s[i - 1] == ';')
            return i;
    return 0;
}

/* The key of a window: its node, its length and five of its words.  Not a
 * hash of every byte (that took longer than the compare that confirms a
 * hit): windows that differ only elsewhere share a key, and the compare
 * tells them apart. */
static inline uint64_t
jump_key(pyprof_id from, const char *s, size_t n)
{
    uint64_t w[5] = {0, 0, 0, 0, 0};
    if (n < 8) {
        memcpy(&w[0], s, n);
    } else {
        size_t q = (n - 8) / 4;
        memcpy(&w[0], s, 8);
        memcpy(&w[1], s + q, 8);
        memcpy(&w[2], s + 2 * q, 8);
        memcpy(&w[3], s + 3 * q, 8);
        memcpy(&w[4], s + n - 8, 8);
    }
    const uint64_t k1 = 0xff51afd7ed558ccdull, k2 = 0xc4ceb9fe1a85ec53ull;
    uint64_t a = (w[0] ^ ((uint64_t)from << 32 | n)) * k1, b = (w[1] ^ w[4]) * k2;
    a = (a ^ (a >> 29) ^ w[2]) * k2;
    b = (b ^ (b >> 29) ^ w[3]) * k1;
    return pyprof__hash_mix(a, b);
}

const struct pyprof__jump *
pyprof__jump_find(const reader *r, pyprof_id from, const char *s, size_t n)
{
    if (!r->jtab)
        return NULL;
    uint64_t key = jump_key(from, s, n);
    for (size_t j = key & r->jmask;; j = (j + 1) & r->jmask) {
        const struct pyprof__jump *e = r->jtab[j].jump;
        if (!e)
            return NULL;
        if (r->jtab[j].key == key && e->from == from && e->len == n &&
            pyprof__same_text(e->text, s, n))
            return e;
    }
}

static int
jump_grow(reader *r)
{
    size_t ncap = r->jtab ? (r->jmask + 1) * 2 : JUMP_TAB_MIN;
    struct jump_slot *nt = pyprof__zalloc(ncap, sizeof(*nt));
    if (!nt)
        return PYPROF_ENOMEM;
    for (size_t i = 0; r->jtab && i <= r->jmask; i++) {
        if (!r->jtab[i].jump)
            continue;
        size_t j = r->jtab[i].key & (ncap - 1);
        while (nt[j].jump)
            j = (j + 1) & (ncap - 1);
        nt[j] = r->jtab[i];
    }
    pyprof__free(r->jtab);
    r->jtab = nt;
    r->jmask = ncap - 1;
    return 0;
}

int
pyprof__jump_put(reader *r, pyprof_id from, const char *s, size_t n, pyprof_id to, uint64_t path,
                 size_t frames)
{
    int rc;
    if (n > UINT32_MAX || frames > UINT32_MAX ||
        r->jbytes + sizeof(struct pyprof__jump) + n > JUMP_BYTES_MAX)
        return 0; /* (not noted: the walk still works, one frame at a time) */
    if ((r->jused + 1) * 2 > (r->jtab ? r->jmask + 1 : 0) && (rc = jump_grow(r)) < 0)
        return rc;
    struct pyprof__jump *e = pyprof__arena_alloc(&r->jarena, sizeof(*e) + n);
    if (!e)
        return PYPROF_ENOMEM;
    *e = (struct pyprof__jump){
        .from = from, .to = to, .len = (uint32_t)n, .frames = (uint32_t)frames, .path = path};
    memcpy(e->text, s, n);
    uint64_t key = jump_key(from, s, n);
    size_t j = key & r->jmask;
    while (r->jtab[j].jump)
        j = (j + 1) & r->jmask;
    r->jtab[j].key = key;
    r->jtab[j].jump = e;
    r->jused++;
    r->jbytes += sizeof(*e) + n;
    return 0;
}

static atomic_uint_least64_t jumps_taken; /* (for tests, on every thread) */

uint64_t
pyprof__collapsed_jumps(void)
{
    return atomic_load_explicit(&jumps_taken, memory_order_relaxed);
}

void
pyprof__jumps_free(reader *r)
{
    atomic_fetch_add_explicit(&jumps_taken, r->jumps, memory_order_relaxed);
    r->jumps = 0;
    pyprof__free(r->jtab);
    r->jtab = NULL;
    r->jmask = r->jused = r->jbytes = 0;
    pyprof__arena_free(&r->jarena);
}
