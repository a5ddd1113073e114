/*
 * arena.c - bump allocation for data that lives exactly as long as its
 * profile.  Strings are the bulk of a profile's memory; carving them from
 * 64 KiB blocks saves a malloc header per string and frees in one sweep.
 *
 * Build with -DPYPROF_DEBUG_ARENA (configure --enable-debug-arena) to give
 * every object its own block, so AddressSanitizer catches an overrun that
 * would otherwise land silently in a neighbouring string.
 */
#include "config.h"

#include "pyprof_int.h"

struct pyprof__arena_block {
    struct pyprof__arena_block *next;
    size_t used, size;
    max_align_t data[]; /* aligned for anything */
};

#ifdef PYPROF_DEBUG_ARENA
#define BLOCK_SIZE 0
#else
#define BLOCK_SIZE ((size_t)64 * 1024)
#endif

void *
pyprof__arena_alloc(pyprof__arena *a, size_t n)
{
    const size_t align = sizeof(max_align_t);
    size_t need;
    if (pyprof__add_overflows(n, align - 1, &need))
        return NULL;
    need &= ~(align - 1);

    struct pyprof__arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        /* Big objects get a block of their own, so one huge string cannot
         * waste most of a shared block. */
        size_t size = need > BLOCK_SIZE / 4 ? need : BLOCK_SIZE;
        size_t total;
        if (pyprof__add_overflows(sizeof(*b), size, &total))
            return NULL;
        struct pyprof__arena_block *nb = pyprof__malloc(total);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->size = size;
        if (b && need > BLOCK_SIZE / 4) {
            /* keep the current block as the one being filled */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += need;
    return p;
}

void
pyprof__arena_free(pyprof__arena *a)
{
    struct pyprof__arena_block *b = a->head;
    while (b) {
        struct pyprof__arena_block *next = b->next;
        pyprof__free(b);
        b = next;
    }
    a->head = NULL;
}
