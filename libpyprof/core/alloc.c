/*
 * alloc.c - the library's allocator front, with a test hook that fails the
 * Nth allocation (SQLite's test_malloc idea): the OOM-sweep tests raise N
 * until a read succeeds and check that every earlier attempt failed cleanly.
 * The counter is process-global: one read at a time (which may use two
 * threads).
 */
#include "config.h"

#include <stdatomic.h>
#include <sys/mman.h>

#include "pyprof_int.h"

/* (atomic: a split read allocates on two threads, and the sweep of one
 * counts both; each allocation from the Nth on fails, whichever thread
 * asks, so that a read cannot recover into a success) */
static atomic_long fail_at = -1; /* allocation index that starts failing; -1 = never */
static atomic_long count;        /* allocations attempted since the hook was set */

long
pyprof__alloc_fail_after(long n)
{
    long done = atomic_exchange_explicit(&count, 0, memory_order_relaxed);
    atomic_store_explicit(&fail_at, n, memory_order_relaxed);
    return done;
}

static bool
should_fail(void)
{
    long at = atomic_load_explicit(&fail_at, memory_order_relaxed);
    if (at < 0)
        return false;
    return atomic_fetch_add_explicit(&count, 1, memory_order_relaxed) >= at;
}

/*
 * A block this big comes from a mapping of its own (the tools have glibc
 * map blocks of 2 MiB and more, tools/cli.c; glibc's default is 128 KiB
 * to 32 MiB), and is fresh memory: asking for 2 MiB pages before it is
 * touched saves a page fault per 4 KiB (microseconds each in a virtual
 * machine) and TLB misses where it is probed at random.  Drawing the 1 GB
 * folded benchmark file (whose two halves size their tails arrays at 48
 * MiB each) took 4,227 faults where it took 9,680, and 0.40 s where it
 * took 0.47 (medians of 9 runs each, in turn).  Only whole 2 MiB pages
 * inside the block can be huge: at 4 MiB there is at least one.  Grown by
 * realloc (mremap), a block keeps the advice, and its new pages come as
 * 2 MiB pages too.
 */
#define ADVISE_HUGE_MIN ((size_t)4 << 20)

static void *
advise_big(void *p, size_t n)
{
    if (p && n >= ADVISE_HUGE_MIN)
        pyprof__advise_huge(p, n);
    return p;
}

void *
pyprof__malloc(size_t n)
{
    if (should_fail())
        return NULL;
    return advise_big(malloc(n ? n : 1), n);
}

void *
pyprof__calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    size_t bytes = 0;
    (void)pyprof__mul_overflows(n, size, &bytes); /* (calloc itself refuses an overflow) */
    return advise_big(calloc(n ? n : 1, size ? size : 1), bytes);
}

static bool populate(void *p, size_t n);

/*
 * A big zeroed block is faulted in for writing at once, by one madvise
 * call, before it is zeroed: zeroing fresh memory a page at a time traps
 * into the kernel at every 4 KiB page (memset's page faults were 3% of
 * drawing a 100 MB folded file), and code that reads a slot before it
 * writes it (a += into a table) takes two faults a page on a mapping of
 * the shared zero page, the second one flushing the TLB of every CPU the
 * process has run on.  calloc is no help: it zeroes a block from the heap
 * itself, page by page, before the madvise could map it; and the tools
 * have glibc serve blocks below 2 MiB from the heap (tools/cli.c).  Asking
 * for the pages first, then zeroing what is by then all mapped, took the
 * 100 MB file's faults from 4,927 to 3,588 (perf stat, 10 runs each) and
 * its drawing from 78.6 to 76.1 ms (medians of 60 runs each, in turn).  A
 * small block, or where the kernel cannot populate, is simply zeroed.
 */
#define POPULATE_MIN ((size_t)64 * 1024)

void *
pyprof__zalloc(size_t n, size_t size)
{
    size_t bytes;
    if (pyprof__mul_overflows(n ? n : 1, size ? size : 1, &bytes))
        return NULL;
    char *p = pyprof__malloc(bytes);
    if (!p)
        return NULL;
    if (bytes >= POPULATE_MIN)
        (void)populate(p, bytes); /* (only a hint: the memset below does the work if not) */
    memset(p, 0, bytes);
    return p;
}

void *
pyprof__realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    return advise_big(realloc(p, n ? n : 1), n);
}

void *
pyprof__reallocarray(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (pyprof__mul_overflows(n, size, &bytes))
        return NULL;
    return pyprof__realloc(p, bytes);
}

void
pyprof__free(void *p)
{
    free(p);
}

char *
pyprof__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = pyprof__malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

int
pyprof__grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (pyprof__mul_overflows(ncap, 2, &ncap))
            return PYPROF_ENOMEM;
    }
    void *n = pyprof__reallocarray(*items, ncap, size);
    if (!n)
        return PYPROF_ENOMEM;
    *items = n;
    *cap = ncap;
    return 0;
}

#if defined(MADV_HUGEPAGE) || defined(HAVE_MADV_POPULATE_WRITE)
/* madvise `advice` over the whole `align`-byte pages inside [p, p + n);
 * false if madvise failed (most callers take it as a hint and ignore it). */
static bool
advise_inside(void *p, size_t n, uintptr_t align, int advice)
{
    uintptr_t lo = ((uintptr_t)p + align - 1) & ~(align - 1),
              hi = ((uintptr_t)p + n) & ~(align - 1);
    return hi <= lo || madvise((void *)lo, hi - lo, advice) == 0;
}
#endif

/*
 * Memory that is written once from end to end, or probed at random all
 * over, costs a page fault per 4 KiB and (when probed) a TLB miss per
 * probe; a 2 MiB page saves 511 of those faults.  Only a hint: a kernel
 * that declines costs the usual way.
 */
void
pyprof__advise_huge(void *p, size_t n)
{
#if defined(MADV_HUGEPAGE)
    advise_inside(p, n, (uintptr_t)2 << 20, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

/*
 * Fresh memory traps into the kernel at the first write to each 4 KiB
 * page; in a virtual machine each trap costs microseconds.  Memory that is
 * about to be written in full can be faulted in with one call instead.
 * Only a hint (Linux 5.14+).
 */
static bool
populate(void *p, size_t n)
{
#if defined(HAVE_MADV_POPULATE_WRITE)
    return advise_inside(p, n, 4096, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
    return false;
#endif
}

void
pyprof__populate(void *p, size_t n)
{
    (void)populate(p, n);
}
