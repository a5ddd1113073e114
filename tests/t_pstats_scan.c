/*
 * t_pstats_scan.c - the pstats reader's fast path (formats/pstats_scan.c)
 * against its general path (marshal.c): on every fixture, every pstats
 * file of the shared corpus, and thousands of mutations of the fixtures
 * the fast path takes, both paths must give the same profile (every
 * function, edge, counter, flag and metadata item, in order) or the same
 * error (status, offset and message).  That is the fast path's contract:
 * it either reads exactly what the general reader would, or leaves the
 * input to it.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>

#include "pstats_scan.h"
#include "pyprof_int.h"
#include "tap.h"

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap);
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

/* One read of bytes, with the fast path on or off. */
static int
read_with(bool fast, const void *bytes, size_t n, pyprof_profile **p, pyprof_error *err)
{
    pyprof_input *in;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "pstats";
    *p = NULL;
    pyprof_error_clear(err);
    bool was = pyprof__pscan_enable(fast);
    int rc = pyprof_input_open_memory(&in, bytes, n, "mem", err);
    if (rc == 0) {
        rc = pyprof_profile_read(p, in, &o, err);
        pyprof_input_close(in);
    }
    pyprof__pscan_enable(was);
    return rc;
}

static bool
same_counts(const pyprof_counts *a, const pyprof_counts *b)
{
    /* bit for bit: both paths decode the same bytes */
    return a->primcalls == b->primcalls && a->ncalls == b->ncalls &&
           memcmp(&a->tottime, &b->tottime, sizeof a->tottime) == 0 &&
           memcmp(&a->cumtime, &b->cumtime, sizeof a->cumtime) == 0;
}

static bool
same_string(const pyprof_profile *a, pyprof_id x, const pyprof_profile *b, pyprof_id y)
{
    return pyprof_profile_string_len(a, x) == pyprof_profile_string_len(b, y) &&
           memcmp(pyprof_profile_string(a, x), pyprof_profile_string(b, y),
                  pyprof_profile_string_len(a, x)) == 0;
}

/* The first difference between two profiles, or NULL. */
static const char *
profile_diff(const pyprof_profile *a, const pyprof_profile *b)
{
    static char why[256];
    if (pyprof_profile_func_count(a) != pyprof_profile_func_count(b))
        return "function counts differ";
    for (pyprof_id f = 0; f < pyprof_profile_func_count(a); f++) {
        const pyprof_func *x = pyprof_profile_func(a, f), *y = pyprof_profile_func(b, f);
        if (x->file != y->file || x->name != y->name || !same_string(a, x->file, b, y->file) ||
            !same_string(a, x->name, b, y->name) || x->line != y->line || x->flags != y->flags ||
            !same_counts(&x->counts, &y->counts)) {
            snprintf(why, sizeof why, "function %lu differs", (unsigned long)f);
            return why;
        }
    }
    if (pyprof_profile_edge_count(a) != pyprof_profile_edge_count(b))
        return "edge counts differ";
    for (pyprof_id e = 0; e < pyprof_profile_edge_count(a); e++) {
        const pyprof_edge *x = pyprof_profile_edge(a, e), *y = pyprof_profile_edge(b, e);
        if (x->caller != y->caller || x->callee != y->callee || x->flags != y->flags ||
            !same_counts(&x->counts, &y->counts)) {
            snprintf(why, sizeof why, "edge %lu differs", (unsigned long)e);
            return why;
        }
    }
    if (pyprof_profile_meta_count(a) != pyprof_profile_meta_count(b))
        return "metadata counts differ";
    for (size_t i = 0; i < pyprof_profile_meta_count(a); i++) {
        const char *ka, *va, *kb, *vb;
        pyprof_profile_meta_at(a, i, &ka, &va);
        pyprof_profile_meta_at(b, i, &kb, &vb);
        if (strcmp(ka, kb) != 0 || strcmp(va, vb) != 0)
            return "metadata differs";
    }
    return NULL;
}

/* Both paths on one input: NULL when they agree, else what differs. */
static const char *
paths_differ(const void *bytes, size_t n, bool *ok_out)
{
    static char why[2200];
    pyprof_profile *pf, *pg;
    pyprof_error ef, eg;
    int rf = read_with(true, bytes, n, &pf, &ef);
    int rg = read_with(false, bytes, n, &pg, &eg);
    const char *diff = NULL;
    if (rf != rg) {
        snprintf(why, sizeof why, "fast %d (%s), general %d (%s)", rf, ef.message, rg, eg.message);
        diff = why;
    } else if (rf < 0) {
        if (ef.code != eg.code || ef.offset != eg.offset || strcmp(ef.message, eg.message) != 0) {
            snprintf(why, sizeof why, "fast: offset %lld: %s; general: offset %lld: %s",
                     (long long)ef.offset, ef.message, (long long)eg.offset, eg.message);
            diff = why;
        }
    } else {
        diff = profile_diff(pf, pg);
    }
    if (ok_out)
        *ok_out = rf == 0;
    pyprof_profile_free(pf);
    pyprof_profile_free(pg);
    return diff;
}

/* Does the fast path take these bytes whole? */
static bool
scanned(const void *bytes, size_t n)
{
    pyprof__pscan s;
    size_t stop;
    int rc = pyprof__pscan_run(&s, bytes, n, 0, &stop);
    pyprof__pscan_free(&s);
    return rc == 1;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory, sorted; returns how many (at most max). */
static size_t
list_dir(const char *dir, char **names, size_t max)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *de;
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL && n < max)
        if (de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    return n;
}

static bool
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A small deterministic generator (xorshift), so failures replay. */
static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t
next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Mutations of a file the fast path takes: single bytes set to random or
 * to type codes, truncations, and bytes dropped, each read both ways. */
static void
test_mutations(const char *name, const unsigned char *data, size_t len, int rounds)
{
    static const unsigned char codes[] = "0rir\xe9\xfa)(zZuatsgfilNTF{[<>c:R\x80\xff\x01\x03\x05";
    unsigned char *m = malloc(len + 1);
    int agree = 0, reads = 0;
    const char *first = NULL;
    for (int k = 0; k < rounds; k++) {
        memcpy(m, data, len);
        size_t n = len, at = (size_t)(next_rand() % len);
        switch (next_rand() % 4) {
        case 0:
            m[at] = (unsigned char)next_rand();
            break;
        case 1:
            m[at] = codes[next_rand() % (sizeof codes - 1)];
            break;
        case 2:
            n = at;
            break;
        default:
            memmove(m + at, m + at + 1, len - at - 1);
            n = len - 1;
            break;
        }
        bool ok;
        const char *d = paths_differ(m, n, &ok);
        reads += ok;
        if (!d)
            agree++;
        else if (!first) {
            first = d;
            tap_diag("  %s, mutation %d (at %zu): %s", name, k, at, d);
        }
    }
    TAP_OK(agree == rounds, "%s: both paths agree on %d of %d mutations (%d read)", name, agree,
           rounds, reads);
    free(m);
}

static void
test_fixtures(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", tap_fixture("pstats"));
    char *names[256];
    size_t n = list_dir(dir, names, 256), fast = 0, files = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ends_with(names[i], ".pstats")) {
            free(names[i]);
            continue;
        }
        char path[8192];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unsigned char *data = (unsigned char *)slurp(path, &len);
        if (!TAP_OK(data != NULL, "read %s", names[i])) {
            free(names[i]);
            continue;
        }
        files++;
        bool is_fast = scanned(data, len);
        fast += is_fast;
        /* cProfile under Python 3 is the shape the fast path is for */
        if (strncmp(names[i], "cprofile_py3", 12) == 0)
            TAP_OK(is_fast, "%s: the fast path takes it", names[i]);
        const char *d = paths_differ(data, len, NULL);
        TAP_OK(d == NULL, "%s: both paths give the same %s", names[i],
               is_fast ? "profile" : "result (general path)");
        if (d)
            tap_diag("  %s", d);
        if (is_fast)
            test_mutations(names[i], data, len, 400);
        free(data);
        free(names[i]);
    }
    TAP_OK(files > 20 && fast > 5, "fixtures: %zu of %zu take the fast path", fast, files);
}

static void
test_corpus(void)
{
    const char *corpus = getenv("PYPROF_CORPUS");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/pstats", corpus ? corpus : "");
    char *cases[512];
    size_t n = corpus ? list_dir(dir, cases, 512) : 0;
    if (n == 0) {
        printf("ok %d # SKIP corpus absent\n", ++tap_count);
        return;
    }
    size_t files = 0, agree = 0, fast = 0;
    for (size_t i = 0; i < n; i++) {
        char sub[8192];
        snprintf(sub, sizeof sub, "%s/%s", dir, cases[i]);
        char *names[64];
        size_t m = list_dir(sub, names, 64);
        for (size_t j = 0; j < m; j++) {
            char path[12288];
            size_t len;
            snprintf(path, sizeof path, "%s/%s", sub, names[j]);
            char *data = ends_with(names[j], ".json") ? NULL : slurp(path, &len);
            if (data && len > 0) {
                files++;
                fast += scanned(data, len);
                const char *d = paths_differ(data, len, NULL);
                agree += d == NULL;
                if (d)
                    tap_diag("  %s: %s", path, d);
            }
            free(data);
            free(names[j]);
        }
        free(cases[i]);
    }
    TAP_OK(files > 0 && agree == files,
           "corpus: both paths agree on %zu of %zu files (%zu take the fast path)", agree, files,
           fast);
}

/* ---- a big generated profile ----------------------------------------------
 * cProfile-shaped marshal (version 4 short strings, no references) with
 * enough edges that the fast path has the model's edge array prefaulted by a
 * helper thread (core/prefault.c) while it interns the functions. */
typedef struct gen {
    unsigned char *b;
    size_t n, cap;
    int32_t nrefs, file_slot[97], name_slot[1500];
} gen;

static void
put(gen *g, const void *p, size_t n)
{
    if (g->n + n > g->cap) {
        while (g->n + n > g->cap)
            g->cap = g->cap ? g->cap * 2 : 1 << 16;
        g->b = realloc(g->b, g->cap);
    }
    memcpy(g->b + g->n, p, n);
    g->n += n;
}

static void
put_byte(gen *g, unsigned char c)
{
    put(g, &c, 1);
}

static void
put_int(gen *g, int32_t v)
{
    uint32_t u = (uint32_t)v;
    unsigned char b[5] = {'i', (unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24)};
    put(g, b, 5);
}

static void
put_float(gen *g, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_byte(g, 'g');
    for (int i = 0; i < 8; i++)
        put_byte(g, (unsigned char)(u >> (8 * i)));
}

/* A string, shared as Python's marshal shares it: with FLAG_REF the first
 * time (taking the next reference slot), as a back-reference after that. */
static void
put_shared(gen *g, const char *str, int32_t *slot)
{
    if (*slot >= 0) {
        uint32_t u = (uint32_t)*slot;
        unsigned char b[5] = {'r', (unsigned char)u, (unsigned char)(u >> 8),
                              (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
        put(g, b, 5);
        return;
    }
    *slot = g->nrefs++;
    put_byte(g, 'z' | 0x80);
    put_byte(g, (unsigned char)strlen(str));
    put(g, str, strlen(str));
}

/* Function f's key: names are shared by several functions (as "__init__"
 * is), so that the scan's key deduplication sees names alternate. */
static void
put_key(gen *g, int f)
{
    char file[32], name[32];
    snprintf(file, sizeof file, "/src/mod%d.py", f % 10);
    snprintf(name, sizeof name, "fn_%d", f % 150);
    put_byte(g, ')');
    put_byte(g, 3);
    put_shared(g, file, &g->file_slot[f % 10]);
    put_int(g, f % 7 ? f % 1000 : -1 - f % 1000); /* negative lines too */
    put_shared(g, name, &g->name_slot[f % 150]);
}

static void
test_big(void)
{
    enum { NFUNCS = 3000, NCALLERS = 40 }; /* 120,000 edges: 5.8 MB of them */
    gen g = {0};
    for (int i = 0; i < 97; i++)
        g.file_slot[i] = -1;
    for (int i = 0; i < 1500; i++)
        g.name_slot[i] = -1;
    put_byte(&g, '{');
    for (int f = 0; f < NFUNCS; f++) {
        put_key(&g, f);
        put_byte(&g, ')');
        put_byte(&g, 5);
        put_int(&g, f + 1);
        put_int(&g, f + 2);
        put_float(&g, f * 0.001);
        put_float(&g, f * 0.002);
        put_byte(&g, '{');
        for (int k = 0; k < NCALLERS; k++) {
            /* callers beyond NFUNCS are caller-only functions */
            put_key(&g, (f * 7 + k * 131) % (NFUNCS + 500));
            put_byte(&g, ')');
            put_byte(&g, 4);
            put_int(&g, k + 1);
            put_int(&g, k + 1);
            put_float(&g, k * 0.0001);
            put_float(&g, k * 0.0003);
        }
        put_byte(&g, '0');
    }
    put_byte(&g, '0');
    bool ok = false;
    TAP_OK(scanned(g.b, g.n), "big generated profile: the fast path takes it");
    const char *d = paths_differ(g.b, g.n, &ok);
    if (d)
        tap_diag("  %s", d);
    TAP_OK(ok && !d, "big generated profile: both paths agree");
    free(g.b);
}

int
main(void)
{
    test_fixtures();
    test_corpus();
    test_big();
    return tap_done();
}
