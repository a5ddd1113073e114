/*
 * numfmt.c - number formatting and parsing in the C locale.
 *
 * Output must use '.' as the decimal point whatever LC_NUMERIC says, and a
 * library must not call setlocale() behind its host program's back.  POSIX
 * uselocale() switches only the calling thread, only for the call.
 * Integers need no locale at all, and are written by hand.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif
#include <stdarg.h>
#include <stdio.h>

#include "pyprof_int.h"

/* The C locale object, made on first use and kept for the process's
 * lifetime.  First uses can come on several threads at once (the two
 * halves of a split read, or a host's threads), hence pthread_once. */
static locale_t c_loc = (locale_t)0;

static void
make_c_locale(void)
{
    c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t
c_locale(void)
{
#if defined(HAVE_PTHREAD)
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_c_locale);
#else
    if (!c_loc)
        make_c_locale();
#endif
    return c_loc;
}

int
pyprof__vsnprintf_c(char *buf, size_t size, const char *fmt, va_list ap)
{
    locale_t c = c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int n = vsnprintf(buf, size, fmt, ap);
    if (c)
        uselocale(old);
    return n;
}

int
pyprof__snprintf_c(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = pyprof__vsnprintf_c(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

double
pyprof__strtod_c(const char *s, char **end)
{
    locale_t c = c_locale();
    if (c)
        return strtod_l(s, end, c);
    return strtod(s, end);
}

/* "00" "01" ... "99": two digits per division halves the dependent
 * divisions of a long number (a callgrind file of nanosecond costs is
 * mostly 8-12 digit numbers, and formatting them was an eighth of its
 * writer's time). */
static const char two_digits[201] = "00010203040506070809"
                                    "10111213141516171819"
                                    "20212223242526272829"
                                    "30313233343536373839"
                                    "40414243444546474849"
                                    "50515253545556575859"
                                    "60616263646566676869"
                                    "70717273747576777879"
                                    "80818283848586878889"
                                    "90919293949596979899";

char *
pyprof__fmt_u64(char *p, uint64_t v)
{
    char tmp[20]; /* UINT64_MAX has 20 digits; filled from the end */
    char *q = tmp + sizeof(tmp);
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--q = two_digits[d + 1];
        *--q = two_digits[d];
    }
    if (v >= 10) {
        *--q = two_digits[v * 2 + 1];
        *--q = two_digits[v * 2];
    } else {
        *--q = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof(tmp) - q);
    memcpy(p, q, n);
    return p + n;
}

char *
pyprof__fmt_i64(char *p, int64_t v)
{
    if (v >= 0)
        return pyprof__fmt_u64(p, (uint64_t)v);
    *p++ = '-';
    return pyprof__fmt_u64(p, 0 - (uint64_t)v); /* INT64_MIN too: unsigned wraps */
}

/* "%.1f" needs the exact decimal value of v, which printf works out with
 * big-number arithmetic (most of the time of a large line_profiler report,
 * a third of a flame graph's layout).  Without it for nearly all v:
 * t = |v| * 10 is within half an ulp (< 6e-8 below 1e9) of the exact
 * product, so when t's fraction is further than 1e-6 from .5 the exact
 * product rounds to the same integer as t. */
bool
pyprof__tenths(double v, uint64_t *n)
{
    double t = fabs(v) * 10;
    if (!(t < 1e9))
        return false;
    double fl = floor(t), frac = t - fl; /* both exact */
    if (!(fabs(frac - 0.5) > 1e-6))
        return false;
    *n = (uint64_t)fl + (frac > 0.5);
    return true;
}

/* The text is n / 10 "." n % 10, with printf's sign ("-0.0" too). */
size_t
pyprof__fmt_f1(char *buf, size_t size, double v)
{
    uint64_t n;
    if (size >= 16 && pyprof__tenths(v, &n)) {
        char *p = buf;
        if (signbit(v))
            *p++ = '-';
        p = pyprof__fmt_u64(p, n / 10);
        *p++ = '.';
        *p++ = (char)('0' + n % 10);
        *p = '\0';
        return (size_t)(p - buf);
    }
    int k = pyprof__snprintf_c(buf, size, "%.1f", v);
    return k < 0 ? 0 : (size_t)k;
}
