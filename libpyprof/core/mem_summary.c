/*
 * mem_summary.c - one pass over a memory sample array that tells the plot
 * what it needs before it can thin a 10^6-sample curve: whether the times
 * are in order, the lowest and highest MiB (and where the first highest
 * is), and the first lowest and first highest sample of each chunk
 * (render/mem_curve.c: decimation takes a chunk that lies within one pixel
 * column whole).
 *
 * Run by the plot after reading, the pass took ~4 ms of a ~45 ms plot of
 * 10^6 samples, alone on one core.  The mprofile reader now feeds it block
 * by block as it stores samples (they are still in cache), on both of its
 * threads, and leaves the result with the profile; the plot then skips its
 * own pass.  The plot's own pass (another reader, a profile changed since)
 * is this same code, fed once.
 */
#include "config.h"

#include "pyprof_int.h"

void
pyprof__mem_summary_init(pyprof__mem_summary *s, uint32_t *chunk_lo, uint32_t *chunk_hi, size_t cap)
{
    *s = (pyprof__mem_summary){.ordered = true,
                               .chunk_lo = chunk_lo,
                               .chunk_hi = chunk_hi,
                               .cap = chunk_lo && chunk_hi ? cap : 0};
}

void
pyprof__mem_summary_free(pyprof__mem_summary *s)
{
    pyprof__free(s->chunk_lo);
    pyprof__free(s->chunk_hi);
    s->chunk_lo = s->chunk_hi = NULL;
    s->cap = 0;
}

int
pyprof__mem_summary_reserve(pyprof__mem_summary *s, size_t n)
{
    /* indices are stored in 32 bits */
    if (n > UINT32_MAX)
        return PYPROF_ELIMIT;
    size_t need = n / PYPROF__MEM_CHUNK + 2; /* + the partial chunks of two grids */
    if (need <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < need)
        cap *= 2;
    uint32_t *lo = pyprof__reallocarray(s->chunk_lo, cap, sizeof(uint32_t));
    if (!lo)
        return PYPROF_ENOMEM;
    s->chunk_lo = lo;
    uint32_t *hi = pyprof__reallocarray(s->chunk_hi, cap, sizeof(uint32_t));
    if (!hi)
        return PYPROF_ENOMEM;
    s->chunk_hi = hi;
    s->cap = cap;
    return 0;
}

/* The chunk being filled goes into the totals, as the plot's loop did: in
 * chunk order, strict comparisons, so the first highest point wins. */
static void
fold(pyprof__mem_summary *s)
{
    s->lo = s->yl < s->lo ? s->yl : s->lo;
    if (s->yh > s->hi) {
        s->hi = s->yh;
        s->peak = s->ih;
    }
    s->open = false;
}

void
pyprof__mem_summary_feed(pyprof__mem_summary *s, const pyprof_mem_sample *run, size_t to)
{
    const size_t ch = PYPROF__MEM_CHUNK;
    size_t i = s->n;
    while (i < to) {
        /* chunks start at multiples of ch from 0, or from `split` on */
        size_t base = i < s->split ? 0 : s->split;
        size_t c0 = base + (i - base) / ch * ch, cend = c0 + ch;
        if (i < s->split && cend > s->split)
            cend = s->split;
        if (i == c0) {
            s->k = (base ? (s->split + ch - 1) / ch : 0) + (i - base) / ch;
            s->yl = s->yh = run[i].mib;
            s->il = s->ih = i;
            s->nan = s->nan || s->yl != s->yl;
            s->ordered = s->ordered && (i == 0 || run[i - 1].t <= run[i].t);
            if (i == 0) {
                s->lo = s->hi = s->yl;
                s->peak = 0;
            }
            s->open = true;
            i++;
        }
        size_t e = cend < to ? cend : to, il = s->il, ih = s->ih;
        double yl = s->yl, yh = s->yh;
        /* written for conditional moves: on noisy data a branch per new
         * extreme mispredicts often */
        bool ordered = true, bad = false;
        for (; i < e; i++) {
            double y = run[i].mib;
            ordered &= run[i - 1].t <= run[i].t;
            bad |= y != y;
            bool below = y<yl, above = y> yh;
            il = below ? i : il;
            yl = below ? y : yl;
            ih = above ? i : ih;
            yh = above ? y : yh;
        }
        s->ordered = s->ordered && ordered;
        s->nan = s->nan || bad;
        s->il = il;
        s->ih = ih;
        s->yl = yl;
        s->yh = yh;
        if (s->k < s->cap) {
            s->chunk_lo[s->k] = (uint32_t)il;
            s->chunk_hi[s->k] = (uint32_t)ih;
        } else {
            s->lost = true;
        }
        if (i == cend)
            fold(s);
    }
    s->n = i > s->n ? i : s->n;
}

void
pyprof__mem_summary_finish(pyprof__mem_summary *s)
{
    if (s->open)
        fold(s);
    s->chunks = s->n > 0 && !s->lost;
}

void
pyprof__mem_summary_append(pyprof__mem_summary *s, const pyprof__mem_summary *b,
                           const pyprof_mem_sample *run)
{
    size_t off = s->n, nk = (off + PYPROF__MEM_CHUNK - 1) / PYPROF__MEM_CHUNK;
    if (b->n == 0)
        return;
    if (off == 0) {
        /* nothing before: b as it is, in the arrays of s */
        s->ordered = b->ordered;
        s->nan = b->nan;
        s->lo = b->lo;
        s->hi = b->hi;
        s->peak = b->peak;
    } else {
        s->ordered = s->ordered && b->ordered && run[off - 1].t <= run[off].t;
        s->nan = s->nan || b->nan;
        /* as if b's chunks had been folded after s's: NaN aside (then no
         * summary is used), min and first max do not depend on grouping */
        s->lo = b->lo < s->lo ? b->lo : s->lo;
        if (b->hi > s->hi) {
            s->hi = b->hi;
            s->peak = off + b->peak;
        }
    }
    size_t bk = (b->n + PYPROF__MEM_CHUNK - 1) / PYPROF__MEM_CHUNK;
    s->lost = s->lost || !b->chunks || nk + bk > s->cap || off + b->n > UINT32_MAX;
    s->chunks = !s->lost;
    if (s->chunks)
        for (size_t k = 0; k < bk; k++) {
            s->chunk_lo[nk + k] = (uint32_t)(off + b->chunk_lo[k]);
            s->chunk_hi[nk + k] = (uint32_t)(off + b->chunk_hi[k]);
        }
    s->split = off;
    s->n = off + b->n;
    s->k = nk + bk - 1;
    s->open = false;
}
