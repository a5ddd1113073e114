/*
 * cpus.c - how many CPUs a reader may count on when it considers a second
 * thread (collapsed_split.c, mprofile_split.c): on one CPU the thread only
 * adds the cost of merging its work.
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
