/*
 * prefault.c - fault in, on a helper thread, memory that is about to be
 * filled.
 *
 * The first write to each 4 KiB page of fresh memory traps into the kernel,
 * which finds and zeroes a page: for the ~30 MB of call edges of a big
 * pstats profile that is about as much time as filling them.  A reader that
 * has reserved such an array, and has other work to do before filling it,
 * can have the faults taken on another core meanwhile.  The helper asks the
 * kernel to populate the range (MADV_POPULATE_WRITE, Linux 5.14): it never
 * reads or writes the memory itself, so the contents are whatever they
 * would have been.  It works in slices and stops at the next slice once it
 * is told to finish, so a helper that got no CPU costs nothing but the
 * thread.
 *
 * Only a hint.  Without threads, without MADV_POPULATE_WRITE, or when
 * anything fails, nothing happens and the owner takes the faults as usual.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#if defined(HAVE_PTHREAD) && defined(HAVE_MADV_POPULATE_WRITE)
#include <pthread.h>
#include <sys/mman.h>
#define PREFAULT 1
#endif

#include "pyprof_int.h"

/* Below this a helper thread costs more than the faults it saves (a
 * thread is some tens of microseconds; a fault on this machine's VM about
 * a microsecond, 256 of them a MiB). */
#define PREFAULT_MIN ((size_t)1 << 20)
/* Slices small enough that finishing never waits long for the helper. */
#define PREFAULT_SLICE ((size_t)1 << 20)

struct pyprof__prefault {
#ifdef PREFAULT
    pthread_t thread;
#endif
    char *lo, *hi; /* page-aligned range */
    atomic_bool stop;
};

#ifdef PREFAULT
static void *
populate(void *arg)
{
    pyprof__prefault *pf = arg;
    for (char *at = pf->lo; at < pf->hi; at += PREFAULT_SLICE) {
        if (atomic_load_explicit(&pf->stop, memory_order_relaxed))
            break;
        size_t n = (size_t)(pf->hi - at) < PREFAULT_SLICE ? (size_t)(pf->hi - at) : PREFAULT_SLICE;
        if (madvise(at, n, MADV_POPULATE_WRITE) != 0)
            break; /* not supported here, or no memory: the owner will fault */
    }
    return NULL;
}
#endif

pyprof__prefault *
pyprof__prefault_start(void *p, size_t n)
{
#ifdef PREFAULT
    long page = sysconf(_SC_PAGESIZE);
    if (n < PREFAULT_MIN || page <= 0)
        return NULL;
    /* whole pages inside the range only: the rest may belong to others */
    uintptr_t lo = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
    if (hi <= lo)
        return NULL;
    pyprof__prefault *pf = pyprof__malloc(sizeof *pf);
    if (!pf)
        return NULL;
    pf->lo = (char *)lo;
    pf->hi = (char *)hi;
    atomic_init(&pf->stop, false);
    if (pthread_create(&pf->thread, NULL, populate, pf) != 0) {
        pyprof__free(pf);
        return NULL;
    }
    return pf;
#else
    (void)p;
    (void)n;
    return NULL;
#endif
}

void
pyprof__prefault_finish(pyprof__prefault *pf)
{
    if (!pf)
        return;
#ifdef PREFAULT
    atomic_store_explicit(&pf->stop, true, memory_order_relaxed);
    pthread_join(pf->thread, NULL);
#endif
    pyprof__free(pf);
}
