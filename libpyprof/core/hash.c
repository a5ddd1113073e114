/*
 * hash.c - a fixed-seed byte hash and an open-addressing table of ids.
 *
 * The table stores only ids; keys live in the owner's arrays and are
 * compared through a callback.  That keeps one generic table for strings,
 * functions, edges and stack nodes without copying keys.  Linear probing,
 * load factor at most 1/2.
 */
#include "config.h"

#include "pyprof_int.h"

uint64_t
pyprof__hash_bytes(const void *data, size_t len)
{
    /* FNV-1a over 8-byte words then a final mix: fast enough and, with a
     * fixed seed, the same on every run. */
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    while (len--) {
        h = (h ^ *p++) * 0x100000001b3ull;
    }
    return pyprof__hash_mix(h, 0);
}

/*
 * A slot is 64 bits: the top 32 bits of the key's hash, then id + 1 (0 =
 * empty).  The stored hash bits pick the bucket and screen candidates, so a
 * probe touches the owner's arrays only when 32 bits of hash agree (almost
 * always the real match); and growing the table needs no rehash of keys.
 * Loads that are cache misses into the owner's arrays were most of the cost
 * of reading a large pstats file before.
 */
static inline uint32_t
tag_of(uint64_t h)
{
    return (uint32_t)(h >> 32);
}

uint32_t
pyprof__idtab_find(const pyprof__idtab *t, uint64_t h, pyprof__idtab_eq eq, const void *ctx,
                   const void *key)
{
    if (!t->slots)
        return PYPROF_NONE;
    uint32_t tag = tag_of(h);
    for (size_t i = tag & t->mask;; i = (i + 1) & t->mask) {
        uint64_t s = t->slots[i];
        if (s == 0)
            return PYPROF_NONE;
        uint32_t id = (uint32_t)s - 1;
        if ((uint32_t)(s >> 32) == tag && eq(ctx, id, key))
            return id;
    }
}

static void
place(uint64_t *slots, size_t mask, uint32_t tag, uint32_t id)
{
    size_t i = tag & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = (uint64_t)tag << 32 | ((uint64_t)id + 1);
}

/* Move every id into a table of `ncap` slots (a power of two).  Its zeros
 * are written, not calloc'd: place() reads a slot before it stores, and
 * the extra fault of each page cost a read on two threads a tenth of its
 * time in TLB flushes (see pyprof__zalloc). */
static int
resize(pyprof__idtab *t, size_t ncap)
{
    size_t cap = t->slots ? t->mask + 1 : 0;
    uint64_t *ns = pyprof__zalloc(ncap, sizeof(*ns));
    if (!ns)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < cap; i++) {
        uint64_t s = t->slots[i];
        if (s)
            place(ns, ncap - 1, (uint32_t)(s >> 32), (uint32_t)s - 1);
    }
    pyprof__free(t->slots);
    t->slots = ns;
    t->mask = ncap - 1;
    return 0;
}

int
pyprof__idtab_insert(pyprof__idtab *t, uint64_t h, uint32_t id)
{
    size_t cap = t->slots ? t->mask + 1 : 0;
    if ((t->used + 1) * 2 > cap) {
        size_t ncap = cap ? cap * 2 : 64;
        if (ncap < cap || resize(t, ncap) < 0)
            return PYPROF_ENOMEM;
    }
    place(t->slots, t->mask, tag_of(h), id);
    t->used++;
    return 0;
}

int
pyprof__idtab_reserve(pyprof__idtab *t, size_t n)
{
    size_t cap = t->slots ? t->mask + 1 : 0, ncap = 64;
    if (n > SIZE_MAX / 2)
        return PYPROF_ENOMEM;
    while (ncap < n * 2) {
        if (pyprof__mul_overflows(ncap, 2, &ncap))
            return PYPROF_ENOMEM;
    }
    return ncap > cap ? resize(t, ncap) : 0;
}

void
pyprof__idtab_free(pyprof__idtab *t)
{
    pyprof__free(t->slots);
    t->slots = NULL;
    t->mask = 0;
    t->used = 0;
}
