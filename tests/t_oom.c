/*
 * t_oom.c - the allocation-failure sweep of every reader, in one place.
 *
 * For each fixture (at least one per registered format, plus the zstd
 * layer), allocation number n is made to fail, for n = 0, 1, 2, ... until
 * the read succeeds.  Every earlier attempt must come back as a clean
 * PYPROF_ENOMEM: the status, a message naming the file, and no profile.
 * Leaks on those paths are found by the same test run under ASan (LSan)
 * and valgrind in CI.  The successful read must then equal a read without
 * the hook, so a failure path cannot have been "recovered" into a wrong
 * result.
 *
 * Links -static: pyprof__alloc_fail_after is semi-private.
 */
#include "config.h"

#include <pyprof/pyprof.h>

#include "collapsed.h"
#include "pyprof_int.h"
#include "tap.h"

/* An upper bound on the allocations of a fixture read; a sweep that reaches
 * it fails (a reader that loops on failure would otherwise pass). */
#define MAX_SITES 200000L

static const struct {
    const char *fixture, *format;
    double elide; /* > 0: a lazy read (pyprof_read_options.stack_elide_below) */
    bool halves;  /* read in two halves on two threads, then merged (however small) */
} cases[] = {
    {"pstats/cprofile_py311.pstats", "pstats", 0, false},
    {"pstats/profile_py27.pstats", "pstats", 0, false},
    {"pstats/yappi_py311.pstats", "pstats", 0, false},
    {"pstats/marshal_v0.pstats", "pstats", 0, false},
    {"pstats/cprofile_py311_2frames.pstats.zst", "pstats", 0, false},
    {"lprof/py27_p2.lprof", "lprof", 0, false},
    {"lprof/py311_p5.lprof", "lprof", 0, false},
    {"mprofile/run_python.dat", "mprofile", 0, false},
    {"mprofile/mprofile_20261122114124.dat", "mprofile", 0, false},
    {"mprofile/report.txt", "memreport", 0, false},
    {"collapsed/plain.folded.zst", "collapsed", 0, false},
    {"collapsed/austin_full.austin", "collapsed", 0, false},
    {"collapsed/pyflame_ts.txt", "collapsed", 0, false},
    {"collapsed/utf16le.folded", "collapsed", 0, false},
    {"collapsed/badlines.folded", "collapsed", 0, false},
    {"collapsed/plain.folded.zst", "collapsed", 0.3, false},
    {"collapsed/pyspy.folded", "collapsed", 0.01, false},
    {"collapsed/pyspy.folded", "collapsed", 0, true},
    {"collapsed/pyspy.folded", "collapsed", 0.01, true},
    {"convert/p2c.callgrind", "callgrind", 0, false},
    {"convert/yappi.callgrind", "callgrind", 0, false},
    {"convert/evented.speedscope.json", "speedscope", 0, false},
};

/* What a read is compared by: the sizes of every part of the model. */
#define SHAPE 7
static void
shape(const pyprof_profile *p, size_t out[SHAPE])
{
    out[0] = pyprof_profile_func_count(p);
    out[1] = pyprof_profile_edge_count(p);
    out[2] = pyprof_profile_stack_count(p);
    out[3] = pyprof_profile_line_count(p);
    out[4] = pyprof_profile_mem_sample_count(p);
    out[5] = pyprof_profile_mem_bracket_count(p);
    out[6] = pyprof_profile_caps(p);
}

/* The format the profile was read as (its first source's). */
static const char *
format_of(const pyprof_profile *p)
{
    if (pyprof_profile_source_count(p) == 0)
        return "";
    return pyprof_profile_string(p, pyprof_profile_source(p, 0)->format);
}

static void
sweep(const char *fixture, const char *format, double elide, bool halves)
{
    uint64_t old_min = pyprof__collapsed_split_min(halves ? 1 : UINT64_MAX);
    const char *path = tap_fixture(fixture);
    pyprof_profile *ref = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.stack_elide_below = elide;
    if (pyprof_profile_load(&ref, path, &ro, &err) < 0) {
        TAP_OK(0, "%s: reads without the hook (%s)", fixture, err.message);
        pyprof__collapsed_split_min(old_min);
        return;
    }
    TAP_OK(strcmp(format_of(ref), format) == 0, "%s: read as %s (%s)", fixture, format,
           format_of(ref));
    size_t want[SHAPE], got[SHAPE];
    shape(ref, want);
    pyprof_profile_free(ref);

    long n, bad = 0;
    char first[2048] = "";
    pyprof_profile *p = NULL;
    bool merged = false;
    for (n = 0; n < MAX_SITES; n++) {
        pyprof_error e = PYPROF_ERROR_INIT;
        p = NULL;
        uint64_t merges = pyprof__collapsed_merges();
        pyprof__alloc_fail_after(n);
        int rc = pyprof_profile_load(&p, path, &ro, &e);
        pyprof__alloc_fail_after(-1);
        merged = pyprof__collapsed_merges() != merges;
        if (rc == 0)
            break;
        bool clean = rc == PYPROF_ENOMEM && e.code == PYPROF_ENOMEM && p == NULL &&
                     e.message[0] != '\0' && strstr(e.source, fixture) != NULL;
        if (!clean && bad++ == 0)
            snprintf(first, sizeof first, "allocation %ld: rc %d, source '%s': %s", n, rc, e.source,
                     e.message);
        pyprof_profile_free(p);
        p = NULL;
    }
    if (bad)
        tap_diag("  %s", first);
    TAP_OK(bad == 0 && n > 0 &&
                   n<MAX_SITES,
                     "%s%s%s: allocations 0..%ld failed in turn, each a clean out-of-memory error",
                     fixture, elide> 0
               ? " (lazy)"
               : "",
           halves ? " (two halves)" : "", n - 1);
    if (halves)
        TAP_OK(merged, "%s%s: the read that succeeded merged two halves", fixture,
               elide > 0 ? " (lazy)" : "");
    pyprof__collapsed_split_min(old_min);
    if (p) {
        shape(p, got);
        TAP_OK(memcmp(want, got, sizeof want) == 0,
               "%s: the read after the sweep equals a plain read (%zu functions, %zu edges, "
               "%zu stack nodes)",
               fixture, got[0], got[1], got[2]);
        pyprof_profile_free(p);
    } else {
        TAP_OK(0, "%s: the read after the sweep equals a plain read (no read succeeded)", fixture);
    }
}

int
main(void)
{
    /* every registered format must have a case here */
    for (size_t i = 0; i < pyprof_format_count(); i++) {
        const char *name = pyprof_format_name(i);
        bool covered = false;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            covered |= strcmp(cases[c].format, name) == 0;
        TAP_OK(covered, "format %s has an allocation-failure sweep", name);
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        sweep(cases[c].fixture, cases[c].format, cases[c].elide, cases[c].halves);
    return tap_done();
}
