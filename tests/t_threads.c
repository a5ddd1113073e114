/*
 * t_threads.c - distinct profiles used on several threads at once.
 *
 * profile.h promises that distinct profiles may be used concurrently.
 * Anything the library keeps per process (caches, lazily made objects,
 * counters, the loaded libxml2, fonts) can break that promise without any
 * single-threaded test noticing.  Here four threads each read every
 * fixture, write it with every writer and draw it with every renderer
 * (call graphs too: the library takes turns into Graphviz), in different
 * orders, twice over; each transcript must be the bytes the same
 * work gives on one thread.  Big-file readers split their input on threads
 * of their own: the split threshold is lowered so that they do so here
 * too.  Run under ASan in CI; under TSan by hand (configure
 * CFLAGS=-fsanitize=thread).
 */
#include "config.h"

#include <pthread.h>
#include <unistd.h>

#include "tap.h"
#include "transcript.h"

/* The split readers' test hooks (collapsed.h and mprofile.h, which cannot
 * both be included: each names its reader `reader`). */
uint64_t pyprof__collapsed_split_min(uint64_t bytes);
uint64_t pyprof__collapsed_merges(void);
uint64_t pyprof__mprofile_split_min(uint64_t bytes);
uint64_t pyprof__mprofile_merges(void);

static const char *const fixtures[] = {
    "pstats/cprofile_py311.pstats",
    "pstats/cprofile_py27.pstats",
    "pstats/cprofile_py311.pstats.zst",
    "dot/small.pstats",
    "collapsed/pyspy.folded",
    "collapsed/diff.folded",
    "collapsed/austin_full.austin",
    "collapsed/utf16le.folded",
    "convert/evented.speedscope.json",
    "convert/p2c.callgrind",
    "lprof/py311_p3.lprof",
    "lprof/py27_p2.lprof",
    "mprofile/mprofile_20261122114124.dat",
    "mprofile/report.txt",
};
#define NFIX     (sizeof(fixtures) / sizeof(fixtures[0]))
#define NIN      (NFIX + 1) /* and a memory timeline of plain samples only */
#define NTHREADS 4
#define ROUNDS   2

static char *paths[NIN];
static const char *labels[NIN];
static transcript want[NIN];

/* A timeline the mprofile reader splits (the fixtures have FUNC lines in
 * their second halves, which make it read on in one pass instead). */
static char *
plain_timeline(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/pyprof-t-threads-%ld.dat", tap_tmpdir(), (long)getpid());
    tap_buf b = {0};
    tap_buf_puts(&b, "CMDLINE python3 work.py\n");
    for (int i = 0; i < 4000; i++) {
        char line[64];
        snprintf(line, sizeof(line), "MEM %d.%04d 1764000000.%04d\n", 20 + i % 97, i * 7 % 10000,
                 i);
        tap_buf_puts(&b, line);
    }
    tap_write_file(path, b.s, b.len);
    free(b.s);
    return strdup(path);
}

struct worker {
    pthread_t th;
    size_t id;
    unsigned mismatches[NIN]; /* transcripts unlike the one-thread one */
};

static void *
work(void *arg)
{
    struct worker *w = arg;
    for (size_t round = 0; round < ROUNDS; round++)
        for (size_t k = 0; k < NIN; k++) {
            /* each thread starts at its own place in the list, and goes
             * the other way round on odd threads */
            size_t i = (w->id * 5 + (w->id % 2 ? NIN - 1 - k : k)) % NIN;
            transcript got = {{0}, 0};
            transcript_of(&got, paths[i], true);
            const tap_buf *a = &want[i].text, *b = &got.text;
            if (a->len != b->len || memcmp(a->s, b->s, a->len) != 0)
                w->mismatches[i]++;
            free(got.text.s);
        }
    return NULL;
}

int
main(void)
{
    /* every plain-file fixture of a splittable format is split */
    pyprof__collapsed_split_min(1);
    pyprof__mprofile_split_min(1);

    for (size_t i = 0; i < NIN; i++) {
        paths[i] = i < NFIX ? strdup(tap_fixture(fixtures[i])) : plain_timeline();
        labels[i] = i < NFIX ? fixtures[i] : "a timeline of plain samples";
        transcript_of(&want[i], paths[i], true);
        TAP_OK(want[i].succeeded >= 5, "%s: one thread: %zu calls succeeded", labels[i],
               want[i].succeeded);
    }

    struct worker w[NTHREADS];
    size_t started = 0;
    memset(w, 0, sizeof(w));
    for (size_t t = 0; t < NTHREADS; t++) {
        w[t].id = t;
        if (pthread_create(&w[t].th, NULL, work, &w[t]) != 0)
            break;
        started++;
    }
    TAP_OK(started == NTHREADS, "%zu threads started", started);
    for (size_t t = 0; t < started; t++)
        pthread_join(w[t].th, NULL);
    /* (their reads were split too: each merge joined two halves) */
    TAP_OK(pyprof__collapsed_merges() > 0 && pyprof__mprofile_merges() > 0,
           "reads split on threads of their own: %llu collapsed, %llu mprofile",
           (unsigned long long)pyprof__collapsed_merges(),
           (unsigned long long)pyprof__mprofile_merges());

    for (size_t i = 0; i < NIN; i++) {
        unsigned bad = 0;
        for (size_t t = 0; t < started; t++)
            bad += w[t].mismatches[i];
        TAP_OK(bad == 0, "%s: %zu threads x %d rounds give the one-thread transcript (%u differ)",
               labels[i], started, ROUNDS, bad);
        free(want[i].text.s);
        if (i >= NFIX)
            remove(paths[i]);
        free(paths[i]);
    }
    return tap_done();
}
