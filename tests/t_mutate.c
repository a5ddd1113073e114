/*
 * t_mutate.c - every fixture, broken on purpose: truncated at 64 points,
 * 1,000 (or $PYPROF_MUTATIONS) seeded random byte flips, and a few
 * structural mutations (a doubled middle, a dropped middle, a zeroed head).
 * Each broken copy is read through the probe; the read must either succeed
 * or fail with a real error: a status, a message, the file's name and, for
 * invalid data, a position (offset or line).  Crashes, hangs and sanitizer
 * reports fail the test through the harness.
 */
#include "config.h"

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>

#include <pyprof/pyprof.h>

#include "tap.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ull; /* tap_rand's seed */

static int bad_errors;
static char first_bad[2048];

static void
try_read(const unsigned char *data, size_t len, const char *what)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.max_bytes = 256u << 20;
    if (pyprof_input_open_memory(&in, data, len, "m", &err) < 0)
        return;
    int rc = pyprof_profile_read(&p, in, &o, &err);
    if (rc < 0) {
        bool positioned = err.offset >= 0 || err.line > 0;
        bool ok = err.code == rc && err.message[0] && strcmp(err.source, "m") == 0 &&
                  (rc != PYPROF_EFORMAT || positioned);
        if (!ok && bad_errors++ == 0)
            snprintf(first_bad, sizeof first_bad, "%s: rc %d source '%s' offset %lld line %lld: %s",
                     what, rc, err.source, (long long)err.offset, (long long)err.line, err.message);
    }
    pyprof_profile_free(p);
    pyprof_input_close(in);
}

static void
mutate_file(const char *path, int flips)
{
    size_t len;
    unsigned char *orig = tap_slurp(path, &len);
    if (!orig || len == 0 || len > (4u << 20)) {
        free(orig);
        return;
    }
    unsigned char *buf = malloc(len * 2 + 1);
    char what[64];
    bad_errors = 0;
    for (int i = 1; i <= 64; i++) {
        size_t cut = len * (size_t)i / 65;
        memcpy(buf, orig, cut);
        snprintf(what, sizeof what, "truncated at %zu", cut);
        try_read(buf, cut, what);
    }
    for (int i = 0; i < flips; i++) {
        memcpy(buf, orig, len);
        int k = 1 + (int)(tap_rand(&rng) % 4);
        for (int j = 0; j < k; j++) {
            size_t at = tap_rand(&rng) % len;
            buf[at] ^= (unsigned char)(1u << (tap_rand(&rng) % 8));
            if (tap_rand(&rng) % 4 == 0)
                buf[at] = (unsigned char)tap_rand(&rng); /* sometimes a whole new byte */
        }
        snprintf(what, sizeof what, "flip %d", i);
        try_read(buf, len, what);
    }
    size_t half = len / 2;
    memcpy(buf, orig, half);
    memcpy(buf + half, orig + len / 4, half);
    memcpy(buf + 2 * half, orig + half, len - half);
    try_read(buf, len + half, "middle doubled");
    memcpy(buf, orig, len / 4);
    memcpy(buf + len / 4, orig + half, len - half);
    try_read(buf, len / 4 + len - half, "middle dropped");
    memcpy(buf, orig, len);
    memset(buf, 0, len < 16 ? len : 16);
    try_read(buf, len, "head zeroed");
    const char *rel = strstr(path, "tests/fixtures/");
    if (!TAP_OK(bad_errors == 0, "%s survives %d mutations with proper errors", rel ? rel : path,
                64 + flips + 3))
        tap_diag("  %d bad errors; first: %s", bad_errors, first_bad);
    free(buf);
    free(orig);
}

static int
cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
walk(const char *dir, int flips, int *files)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[4096];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 4096) {
        if (e->d_name[0] == '.')
            continue;
        size_t l = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        snprintf(names[n], l, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof(*names), cmp);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        const char *ext = strrchr(names[i], '.');
        if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            walk(names[i], flips, files);
        } else if (!(ext && (!strcmp(ext, ".sh") || !strcmp(ext, ".py") || !strcmp(ext, ".md")))) {
            mutate_file(names[i], flips);
            (*files)++;
        }
        free(names[i]);
    }
}

int
main(void)
{
    const char *env = getenv("PYPROF_MUTATIONS");
    int flips = env ? atoi(env) : 1000;
    int files = 0;
    char root[4096];
    snprintf(root, sizeof root, "%s", tap_fixture(""));
    root[strlen(root) - 1] = '\0'; /* drop the trailing slash */
    walk(root, flips, &files);
    if (files == 0)
        printf("ok 1 - no fixtures # SKIP none yet\n"), tap_count = 1;
    return tap_done();
}
