/*
 * t_numparse.c - the exact decimal fast path (core/numparse.h) against
 * strtod: every number it takes must come out as the very double strtod
 * makes of the same characters, ending where strtod ends; what it declines
 * must be only what it promises to decline (the caller then uses strtod).
 * Edge cases first, then millions of random strings shaped like mprof's
 * numbers and like anything else.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/numparse.h"
#include "pyprof_int.h"
#include "tap.h"

/* 1 = taken and exact; 0 = declined; -1 = taken but wrong (reported). */
static int
check(const char *s)
{
    size_t len = strlen(s);
    const char *stop = NULL;
    double got;
    if (!pyprof__parse_decimal(s, s + len, &stop, &got))
        return 0;
    char *end;
    double want = pyprof__strtod_c(s, &end);
    static int shown;
    if (memcmp(&got, &want, sizeof got) != 0 || end != stop) {
        if (shown++ < 10)
            tap_diag("'%s': got %.17g ending at %td, strtod %.17g ending at %td", s, got, stop - s,
                     want, end - s);
        return -1;
    }
    return 1;
}

/* Significant-digit count as the parser counts it: all digits, leading
 * zeros included. */
static int
ndigits(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s >= '0' && *s <= '9';
    return n;
}

static void
test_edges(void)
{
    static const char *const taken[] = {
        "0",
        "-0",
        "0.0",
        "-0.0",
        "1",
        "9",
        "1.",
        ".5",
        "-.5",
        "5.",
        "42.131925",
        "1795330000.0029",
        "-1795330000.0029",
        "0.000000",
        "123456789012345",
        "999999999999999",
        "0.99999999999999",
        "0.00000000000001",
        "-999999999999.999",
        "9007199254740.99",
        "0.1",
        "0.2",
        "0.3",
        "2.5",
        "0.000001",
        "100000000000000",
        "1 2",
        "7\n",
        "3.25 trailing",
        "1,5",
        "00000000000001",
        "450359962737.049",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        int r = check(taken[i]);
        if (r != 1) {
            bad++;
            tap_diag("'%s' not taken exactly (%d)", taken[i], r);
        }
    }
    TAP_OK(bad == 0, "plain decimals up to 15 digits are taken, exactly as strtod");

    static const char *const declined[] = {
        "",
        "-",
        ".",
        "-.",
        "+1",
        " 1",
        "1e5",
        "1E5",
        "1.5e-3",
        "1.2.3",
        "1234567890123456",
        "0.1000000000000000055511151231257827",
        "0000000000000001",
        "inf",
        "-inf",
        "nan",
        "NaN",
        "0x10",
        "0X1p3",
        "-0x1",
        "0.999999999999999",
        "1.7976931348623157e308",
        "4.9e-324",
        "--1",
        "a1",
    };
    bad = 0;
    for (size_t i = 0; i < sizeof declined / sizeof declined[0]; i++) {
        int r = check(declined[i]);
        if (r != 0) {
            bad++;
            tap_diag("'%s' should be declined (%d)", declined[i], r);
        }
    }
    TAP_OK(bad == 0, "exponents, signs, long mantissas, hex, inf, nan are declined");

    const char *stop;
    double v;
    const char *s = "12.5 7";
    TAP_OK(pyprof__parse_decimal(s, s + 2, &stop, &v) && v == 12 && stop == s + 2,
           "the end bound is respected (\"12\" of \"12.5\")");
    TAP_OK(pyprof__parse_decimal(s + 5, s + 6, &stop, &v) && v == 7 && stop == s + 6,
           "a number ending at the bound");
}

/* A random decimal of `digits` digits, `frac` of them after the point. */
static void
random_decimal(char *buf, int digits, int frac, bool neg)
{
    char *p = buf;
    if (neg)
        *p++ = '-';
    for (int i = 0; i < digits; i++) {
        if (i == digits - frac)
            *p++ = '.';
        *p++ = (char)('0' + rand() % 10);
    }
    if (frac == digits && digits > 0 && rand() % 2) { /* ".5" or "0.5" */
        memmove(buf + neg + 1, buf + neg, (size_t)(p - buf - neg));
        buf[neg] = '0';
        p++;
    }
    *p = '\0';
}

static void
test_random(void)
{
    srand(20261125);
    char buf[64];
    long taken = 0, wrong = 0, missed = 0;
    for (long i = 0; i < 2000000; i++) {
        int digits = 1 + rand() % 18, frac = rand() % (digits + 1);
        random_decimal(buf, digits, frac, rand() % 4 == 0);
        int r = check(buf);
        taken += r == 1;
        wrong += r < 0;
        /* everything of plain shape within 15 digits must be taken */
        if (r == 0 && ndigits(buf) <= 15)
            missed++;
    }
    TAP_OK(wrong == 0, "2,000,000 random decimals: none taken wrongly (%ld taken)", taken);
    TAP_OK(missed == 0, "...and none of <= 15 digits declined (%ld)", missed);

    /* what mprof writes: %.6f MiB and %.4f epoch seconds, over wide ranges */
    wrong = 0;
    taken = 0;
    for (long i = 0; i < 1000000; i++) {
        double mib = ldexp((double)rand() / RAND_MAX, rand() % 40 - 20);
        double t = 1e9 + (double)rand() / RAND_MAX * 1e9;
        pyprof__snprintf_c(buf, sizeof buf, "%.6f", mib);
        int r = check(buf);
        pyprof__snprintf_c(buf, sizeof buf, "%.4f", t);
        int q = check(buf);
        wrong += (r < 0) + (q < 0);
        taken += (r > 0) + (q > 0);
    }
    TAP_OK(wrong == 0 && taken == 2000000, "mprof's %%.6f / %%.4f numbers: all taken, all exact");

    /* and %.17g / %.15g / %g of random doubles: exponents declined, the rest exact */
    wrong = 0;
    for (long i = 0; i < 1000000; i++) {
        double x = ldexp((double)rand() / RAND_MAX, rand() % 200 - 100) * (rand() % 2 ? 1 : -1);
        switch (i % 4) {
        case 0:
            pyprof__snprintf_c(buf, sizeof buf, "%.17g", x);
            break;
        case 1:
            pyprof__snprintf_c(buf, sizeof buf, "%.15g", x);
            break;
        case 2:
            pyprof__snprintf_c(buf, sizeof buf, "%g", x);
            break;
        default:
            pyprof__snprintf_c(buf, sizeof buf, "%.3f", x);
        }
        wrong += check(buf) < 0;
    }
    TAP_OK(wrong == 0, "1,000,000 printed doubles: nothing taken wrongly");

    /* random bytes from the number alphabet: never wrong, never past the bound */
    wrong = 0;
    static const char alpha[] = "0123456789.-+eE x";
    for (long i = 0; i < 1000000; i++) {
        int n = rand() % 20;
        for (int k = 0; k < n; k++)
            buf[k] = alpha[rand() % (sizeof alpha - 1)];
        buf[n] = '\0';
        wrong += check(buf) < 0;
    }
    TAP_OK(wrong == 0, "1,000,000 random strings of number characters: nothing taken wrongly");
}

/* pyprof__digits8/16: every run length, the value of random digits, and a
 * non-digit caught at every place of the run (none after it). */
static void
test_digits(void)
{
    srand(7);
    long wrong = 0, missed = 0, false_bad = 0;
    for (int i = 0; i < 200000; i++) {
        char buf[32];
        unsigned n = 1 + (unsigned)(i % 16);
        uint64_t want = 0;
        for (unsigned k = 0; k < n; k++) {
            buf[k] = (char)('0' + rand() % 10);
            want = want * 10 + (uint64_t)(buf[k] - '0');
        }
        for (unsigned k = n; k < sizeof buf; k++)
            buf[k] = (char)(rand() % 256); /* anything after the run */
        uint64_t bad = 0;
        uint64_t got = pyprof__digits16(buf, n, &bad);
        wrong += got != want;
        false_bad += bad != 0;
        /* one byte of the run made a non-digit: every value that is not one */
        unsigned at = (unsigned)rand() % n;
        unsigned c;
        do
            c = (unsigned)rand() % 256;
        while (c >= '0' && c <= '9');
        buf[at] = (char)c;
        bad = 0;
        (void)pyprof__digits16(buf, n, &bad);
        missed += bad == 0;
    }
    TAP_OK(wrong == 0 && false_bad == 0,
           "digits16: 200,000 random runs of 1-16 digits read exactly (%ld wrong, %ld flagged)",
           wrong, false_bad);
    TAP_OK(missed == 0, "...and a non-digit anywhere in the run is caught (%ld missed)", missed);
    uint64_t bad = 0;
    TAP_OK(pyprof__digits8("00000000", 8, &bad) == 0 &&
               pyprof__digits8("99999999", 8, &bad) == 99999999u &&
               pyprof__digits8("7x......", 1, &bad) == 7 && bad == 0,
           "digits8: all zeros, all nines, one digit before a non-digit");
    const char edge[] = "/:";
    for (unsigned k = 0; k < 2; k++) {
        char buf[9] = "11111111";
        buf[3] = edge[k]; /* '/' and ':' border the digits */
        bad = 0;
        (void)pyprof__digits8(buf, 8, &bad);
        TAP_OK(bad != 0, "digits8: '%c', next to the digits in ASCII, is no digit", edge[k]);
    }
}

/* pyprof__fmt_u64 / _i64 write what printf's %llu / %lld write, and
 * nothing past the end they return. */
static int
fmt_agrees(uint64_t u, int64_t i)
{
    char got[32], want[32];
    memset(got, '#', sizeof got);
    char *end = pyprof__fmt_u64(got, u);
    int n = snprintf(want, sizeof want, "%llu", (unsigned long long)u);
    if (end - got != n || memcmp(got, want, (size_t)n) != 0 || got[n] != '#') {
        tap_diag("fmt_u64(%s) gave '%.*s'", want, (int)(end - got), got);
        return 0;
    }
    memset(got, '#', sizeof got);
    end = pyprof__fmt_i64(got, i);
    n = snprintf(want, sizeof want, "%lld", (long long)i);
    if (end - got != n || memcmp(got, want, (size_t)n) != 0 || got[n] != '#') {
        tap_diag("fmt_i64(%s) gave '%.*s'", want, (int)(end - got), got);
        return 0;
    }
    return 1;
}

static void
test_fmt(void)
{
    /* digit-count borders, 2^32, the 19/20-digit border, the extremes */
    static const uint64_t edges[] = {
        0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u, 9999999999999999999u, UINT64_MAX,
    };
    int ok = 1;
    for (size_t k = 0; k < sizeof edges / sizeof *edges; k++) {
        ok &= fmt_agrees(edges[k], (int64_t)edges[k]);
        ok &= fmt_agrees(edges[k] / 2 + 1, -(int64_t)(edges[k] / 2));
    }
    ok &= fmt_agrees(10000000000000000000u, INT64_MIN) & fmt_agrees(0, INT64_MAX);
    TAP_OK(ok, "fmt_u64/_i64: digit-count borders, 2^32, 20 digits, UINT64_MAX, INT64_MIN");
    long wrong = 0;
    srand(7);
    for (long i = 0; i < 200000; i++) {
        uint64_t r = 0;
        for (int k = 0; k < 4; k++)
            r = r << 16 ^ (uint64_t)(rand() & 0xFFFF);
        r >>= rand() % 64; /* every length of number */
        wrong += !fmt_agrees(r, (int64_t)r);
    }
    TAP_OK(wrong == 0, "fmt_u64/_i64: 200,000 random values of every length (%ld wrong)", wrong);
}

/* pyprof__fmt_f1 writes and returns what snprintf's "%.1f" does. */
static int
f1_agrees(double v)
{
    char got[64], want[64];
    memset(got, '#', sizeof got);
    size_t n = pyprof__fmt_f1(got, sizeof got, v);
    int wn = snprintf(want, sizeof want, "%.1f", v);
    if ((int)n != wn || strcmp(got, want) != 0) {
        tap_diag("fmt_f1(%.17g) gave '%s' (%zu), printf '%s'", v, got, n, want);
        return 0;
    }
    return 1;
}

static void
test_fmt_f1(void)
{
    /* ties, near-ties either side, signs, zeros, the fast path's border,
     * what it leaves to printf */
    static const double edges[] = {0.0,   -0.0,   0.05,   0.15,        0.25,      0.35,
                                   -0.25, 2.5,    0.04,   -0.04,       0.0499999, 0.0500001,
                                   99.95, 99.949, 1e8,    99999999.95, 1e9,       123456789.25,
                                   1e300, -1e300, 5e-324, INFINITY,    -INFINITY, NAN};
    int ok = 1;
    for (size_t k = 0; k < sizeof edges / sizeof *edges; k++)
        ok &= f1_agrees(edges[k]);
    TAP_OK(ok, "fmt_f1: ties, signs, zeros, the fast path's border, inf, nan, 1e300");
    long wrong = 0;
    srand(11);
    for (long i = 0; i < 300000; i++) {
        /* random digits at every scale, and k / 20 (the ties and their neighbours) */
        double v = (double)rand() / RAND_MAX * pow(10, rand() % 14 - 5);
        if (i % 3 == 0)
            v = (double)(rand() % 2000000) / 20;
        if (i % 3 == 1)
            v = nextafter(v, i % 2 ? 0 : 1e10);
        wrong += !f1_agrees(i % 5 == 0 ? -v : v);
    }
    TAP_OK(wrong == 0, "fmt_f1: 300,000 random values, ties and their neighbours (%ld wrong)",
           wrong);
    char small[4];
    size_t n = pyprof__fmt_f1(small, sizeof small, 123.45);
    TAP_OK(n == 5 && strcmp(small, "123") == 0,
           "fmt_f1: a short buffer is cut as snprintf cuts (%zu, %s)", n, small);
}

int
main(void)
{
    test_edges();
    test_random();
    test_digits();
    test_fmt();
    test_fmt_f1();
    return tap_done();
}
