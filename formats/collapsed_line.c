/*
 * collapsed_line.c - stacks a lazy read has walked before, found by their
 * whole text.
 *
 * Profiles that were concatenated (several captures of one program, the
 * benchmark's 100 copies of a real capture) or written a sample a line
 * repeat their stacks, line for line.  The walk of a repeat costs what the
 * first walk did: its windows of text hashed and compared (collapsed_jump.c),
 * the frames after its last known node looked up, and a new tail of the
 * same frames as the old one.  Yet the tree only grows, so what the first
 * walk did to the tree still holds for the same text, and can be done
 * again at once (walk_again, collapsed_stack.c).  So a line's text is kept,
 * with the node where its walk added its weight or the tail it made, once
 * the line has come twice: a line that comes once costs a key and a slot.
 *
 * The key is made of a line's ends, its length and a word of every 64
 * bytes (a hash of every byte would cost a line as much again as the walks
 * it saves on a file whose lines are all distinct); equal keys are
 * compared byte for byte.  A file whose first lines hardly repeat (the
 * synthetic benchmark files, where every line is distinct) drops its table
 * and reads on without it.
 *
 * On the 100 copies of the real 1 MB capture (bench/flame.sh's real100),
 * 92,000 lines of 920 texts, pyprof-flame's median time went from 85 to
 * 51 ms (20 alternations; CPU time from 139 to 77 ms).
 */
#include "config.h"

#include "collapsed.h"

struct line_slot {
    uint64_t key;
    const char *text; /* NULL: the line has come once, not kept */
    uint32_t len;     /* > 0: the slot is used */
    uint32_t tail;    /* the tail its walk made (index + 1), or 0 ... */
    pyprof_id node;   /* ... and where its weight went */
};

#define LINE_TAB_MIN 1024
/* What one reader keeps at most (slots, and text): 8 MB of each.  Past
 * either, the lines kept are still found, and no other is noted. */
#define LINE_SLOTS_MAX ((size_t)1 << 17)
#define LINE_BYTES_MAX ((size_t)8 << 20)
/* After this many lines, fewer than one in LINE_RARE found again drops
 * the table. */
#define LINE_TRIAL 8192
#define LINE_RARE  64

static atomic_uint_least64_t lines_again; /* (for tests, on every thread) */

uint64_t
pyprof__collapsed_lines_again(void)
{
    return atomic_load_explicit(&lines_again, memory_order_relaxed);
}

static uint64_t
line_key(const char *s, size_t len)
{
    if (len < 16)
        return pyprof__frame_hash(s, len);
    uint64_t a, b, c, d, h = 0x9e3779b97f4a7c15ull ^ len;
    memcpy(&a, s, 8);
    memcpy(&b, s + 8, 8);
    memcpy(&c, s + len - 16, 8);
    memcpy(&d, s + len - 8, 8);
    for (size_t i = 64; i + 8 <= len; i += 64) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    return pyprof__hash_mix(pyprof__hash_mix(a ^ h, b), pyprof__hash_mix(c, d));
}

/* The slot of key k and length len, or NULL. */
static struct line_slot *
slot_of(const reader *r, uint64_t k, size_t len)
{
    if (!r->ltab)
        return NULL;
    for (size_t j = k & r->lmask; r->ltab[j].len; j = (j + 1) & r->lmask) {
        struct line_slot *e = &r->ltab[j];
        if (e->key == k && e->len == len)
            return e;
    }
    return NULL;
}

bool
pyprof__line_find(reader *r, const char *s, size_t len, uint64_t *key, uint32_t *tail,
                  pyprof_id *node)
{
    *key = 0;
    if (r->lines_off || len > UINT32_MAX)
        return false;
    *key = line_key(s, len);
    r->lines_looked++;
    const struct line_slot *e = slot_of(r, *key, len);
    if (!e || !e->text || (!e->tail && e->node == PYPROF_NONE) || memcmp(e->text, s, len) != 0)
        return false;
    *tail = e->tail;
    *node = e->node;
    return true;
}

static int
grow(reader *r)
{
    size_t ncap = r->ltab ? (r->lmask + 1) * 2 : LINE_TAB_MIN;
    struct line_slot *nt = pyprof__zalloc(ncap, sizeof(*nt));
    if (!nt)
        return PYPROF_ENOMEM;
    for (size_t i = 0; r->ltab && i <= r->lmask; i++) {
        if (!r->ltab[i].len)
            continue;
        size_t j = r->ltab[i].key & (ncap - 1);
        while (nt[j].len)
            j = (j + 1) & (ncap - 1);
        nt[j] = r->ltab[i];
    }
    pyprof__free(r->ltab);
    r->ltab = nt;
    r->lmask = ncap - 1;
    return 0;
}

int
pyprof__line_note(reader *r, uint64_t key, const char *s, size_t len, uint32_t tail, pyprof_id node)
{
    if (r->lines_off || len > UINT32_MAX)
        return 0;
    if (r->lines_looked >= LINE_TRIAL && r->lines_again * LINE_RARE < r->lines_looked) {
        pyprof__lines_free(r); /* lines do not repeat here */
        r->lines_off = true;
        return 0;
    }
    struct line_slot *e = slot_of(r, key, len);
    if (!e) { /* the first time: a key */
        if (r->lused >= LINE_SLOTS_MAX)
            return 0;
        if ((r->lused + 1) * 2 > (r->ltab ? r->lmask + 1 : 0) && grow(r) < 0)
            return PYPROF_ENOMEM;
        size_t j = key & r->lmask;
        while (r->ltab[j].len)
            j = (j + 1) & r->lmask;
        r->ltab[j] = (struct line_slot){.key = key, .len = (uint32_t)len, .node = PYPROF_NONE};
        r->lused++;
        return 0;
    }
    if (!e->text) { /* the second: its text */
        if (r->lbytes + len > LINE_BYTES_MAX)
            return 0;
        char *copy = pyprof__arena_alloc(&r->larena, len);
        if (!copy)
            return PYPROF_ENOMEM;
        memcpy(copy, s, len);
        e->text = copy;
        r->lbytes += len;
    } else if (memcmp(e->text, s, len) != 0) {
        return 0; /* another text with the same key keeps the slot */
    }
    e->tail = tail;
    e->node = node;
    return 0;
}

void
pyprof__lines_free(reader *r)
{
    atomic_fetch_add_explicit(&lines_again, r->lines_again, memory_order_relaxed);
    r->lines_again = 0;
    pyprof__free(r->ltab);
    pyprof__arena_free(&r->larena);
    r->ltab = NULL;
    r->lmask = r->lused = r->lbytes = 0;
}
