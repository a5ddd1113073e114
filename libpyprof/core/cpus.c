/*
 * cpus.c - whether a reader takes a second thread (collapsed_split.c,
 * mprofile_split.c): only for a file big enough to pay for it, and only
 * with a CPU for it; on one CPU the thread only adds the cost of joining
 * its work.
 */
#include "config.h"

#include <sched.h>
#include <unistd.h>

#include "pyprof_int.h"

long
pyprof__usable_cpus(void)
{
#if defined(CPU_COUNT)
    cpu_set_t set; /* taskset and cgroup cpusets narrow it */
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
#endif
    return sysconf(_SC_NPROCESSORS_ONLN);
}

bool
pyprof__split_gate_open(const pyprof__split_gate *g, int64_t size)
{
    if (size < 2 || (uint64_t)size < g->min)
        return false;
    /* tests that moved min want halves whatever the machine */
    return g->min != g->min_default || pyprof__usable_cpus() >= 2;
}

void
pyprof__split_gate_joined(pyprof__split_gate *g)
{
    atomic_fetch_add_explicit(&g->joined, 1, memory_order_relaxed);
}

uint64_t
pyprof__split_gate_set_min(pyprof__split_gate *g, uint64_t bytes)
{
    uint64_t old = g->min;
    g->min = bytes;
    return old;
}

uint64_t
pyprof__split_gate_count(pyprof__split_gate *g)
{
    return atomic_load_explicit(&g->joined, memory_order_relaxed);
}
