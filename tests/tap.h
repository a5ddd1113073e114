/*
 * tap.h - a tiny TAP producer for the C unit tests.  Each check prints one
 * "ok N - name" or "not ok N - name" line (automake's tap-driver counts
 * them), with a diagnostic saying what differed.  Header-only on purpose:
 * every test program includes it once.
 */
#ifndef PYPROF_TAP_H
#define PYPROF_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int
tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_count++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond)
        tap_failed++;
    fflush(stdout);
    return cond;
}

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void
tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define TAP_OK(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#define TAP_IS_INT(got, want, name)                                                                \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (!tap_ok(g_ == w_, "%s", name))                                                         \
            tap_diag("  got %lld, want %lld", g_, w_);                                             \
    } while (0)

#define TAP_IS_DBL(got, want, eps, name)                                                           \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!tap_ok(fabs(g_ - w_) <= (eps), "%s", name))                                           \
            tap_diag("  got %.17g, want %.17g", g_, w_);                                           \
    } while (0)

#define TAP_IS_STR(got, want, name)                                                                \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, "%s", name))                                  \
            tap_diag("  got '%s', want '%s'", g_ ? g_ : "(null)", w_ ? w_ : "(null)");             \
    } while (0)

/* Print the plan last ("1..N"), which TAP allows, and exit with status. */
static inline int
tap_done(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

/* xorshift64*: seeded random numbers, so every failure a mutation test
 * finds is reproducible from its seed. */
static inline unsigned
tap_rand(unsigned long long *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (unsigned)((*state * 2685821657736338717ull) >> 32);
}

/* The whole file at `path`, NUL-terminated (the NUL is not counted in
 * `*len`), or NULL if it cannot be read.  The caller frees it. */
static inline unsigned char *
tap_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    unsigned char *b = malloc(cap + 1);
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            unsigned char *nb = realloc(b, (cap *= 2) + 1);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    fclose(f);
    if (b) {
        b[n] = '\0';
        *len = n;
    }
    return b;
}

/* Write len bytes to `path`, or bail out of the whole test. */
static inline void
tap_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
}

/* The same double, bit for bit (a reader that must give what another
 * gives cannot be off by an ulp, and NaN must equal itself). */
static inline int
tap_same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A growing text buffer for generated inputs, always NUL-terminated;
 * {0} is empty.  Out of memory bails out of the whole test. */
typedef struct tap_buf {
    char *s;
    size_t len, cap;
} tap_buf;

static inline void
tap_buf_put(tap_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) {
            printf("Bail out! out of memory\n");
            exit(1);
        }
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static inline void
tap_buf_puts(tap_buf *b, const char *s)
{
    tap_buf_put(b, s, strlen(s));
}

/* Where a test puts files of its own: $TMPDIR, else /tmp. */
static inline const char *
tap_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Directory holding the fixtures: $top_srcdir/tests/fixtures. */
static inline const char *
tap_fixture(const char *rel)
{
    static char buf[4096];
    const char *top = getenv("top_srcdir");
    snprintf(buf, sizeof(buf), "%s/tests/fixtures/%s", top ? top : ".", rel);
    return buf;
}

#endif
