/*
 * topfuncs - print the ten most expensive functions of any profile that
 * libpyprof reads (pstats, folded stacks, lprof, ...), by cumulative time.
 *
 *     cc topfuncs.c $(pkg-config --cflags --libs libpyprof) -o topfuncs
 *     ./topfuncs profile.pstats
 *
 * It uses only the public API: load (the format is probed), make sure there
 * is a call graph (sampled stacks are turned into one), then read the model.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pyprof/pyprof.h>

static const pyprof_profile *sort_profile; /* qsort has no context argument */

static int
by_cumtime(const void *a, const void *b)
{
    const pyprof_func *fa = pyprof_profile_func(sort_profile, *(const pyprof_id *)a);
    const pyprof_func *fb = pyprof_profile_func(sort_profile, *(const pyprof_id *)b);
    if (fa->counts.cumtime != fb->counts.cumtime)
        return fa->counts.cumtime < fb->counts.cumtime ? 1 : -1;
    /* ties keep file order, as pstats' stable sort does */
    return *(const pyprof_id *)a < *(const pyprof_id *)b ? -1 : 1;
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROFILE\n", argv[0]);
        return 2;
    }
    pyprof_profile *p;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_profile_load(&p, argv[1], NULL, &err) < 0) {
        char msg[2048];
        pyprof_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "topfuncs: %s\n", msg);
        return 1;
    }
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_FUNCS) ||
        pyprof_profile_caps(p) & PYPROF_CAP_STACKS) {
        if (pyprof_profile_derive_callgraph(p, &err) < 0) {
            fprintf(stderr, "topfuncs: %s\n", err.message);
            pyprof_profile_free(p);
            return 1;
        }
    }

    size_t n = pyprof_profile_func_count(p), rows = 0;
    pyprof_id *ids = malloc((n ? n : 1) * sizeof(*ids));
    if (!ids) {
        pyprof_profile_free(p);
        return 1;
    }
    for (pyprof_id i = 0; i < n; i++) {
        /* functions seen only as callers have no counters of their own */
        if (!(pyprof_profile_func(p, i)->flags & PYPROF_FUNC_CALLER_ONLY))
            ids[rows++] = i;
    }
    sort_profile = p;
    qsort(ids, rows, sizeof(*ids), by_cumtime);

    printf("%10s %10s %10s  %s\n", "cumtime", "tottime", "ncalls", "function");
    for (size_t r = 0; r < rows && r < 10; r++) {
        const pyprof_func *f = pyprof_profile_func(p, ids[r]);
        printf("%10.6f %10.6f %10lld  %s:%lld(%s)\n", f->counts.cumtime, f->counts.tottime,
               (long long)f->counts.ncalls, pyprof_profile_string(p, f->file), (long long)f->line,
               pyprof_profile_string(p, f->name));
    }
    free(ids);
    pyprof_profile_free(p);
    return 0;
}
