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
