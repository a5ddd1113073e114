/*
 * emit.c - numbers, JSON and CSV values written straight to an output.
 *
 * The function table of a 100,000-function profile is a 70 MB JSON
 * document; built as a cJSON tree first it took 650 MB and five seconds.
 * Writers stream it with these instead.  The JSON text is byte for byte
 * what cJSON_PrintUnformatted writes for the same values (t_json_emit
 * checks that against the library itself), so documents did not change
 * when the writers stopped building trees.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "render/emit.h"

/* ---- numbers ------------------------------------------------------------------------------
 * Both number texts below were printf "%g" at 15 digits, read back with
 * strtod, and printed again at 16 or 17 digits when that failed: two or
 * three slow libc calls a number, most of the time of a JSON export (a
 * profile's times are arbitrary doubles, which mostly need 17 digits).
 * Now one "%.16e" gives v's 17 correctly rounded digits; the 15 and 16
 * digit texts are rounded from those and read back exactly by Clinger's
 * fast path.  The slow way is kept for what that cannot decide; the texts
 * are the same (t_json_emit compares them against cJSON's and against
 * printf's and strtod's). */

/* v's 17 significant digits, sign and decimal exponent, as "%.16e" gives
 * them. */
struct digits17 {
    char d[17];
    int x;
    bool neg;
};

static bool
digits17_of(double v, struct digits17 *g)
{
    char e[40];
    int n = pyprof__snprintf_c(e, sizeof(e), "%.16e", v);
    const char *q = e + (e[0] == '-');
    if (n <= 0 || (size_t)n >= sizeof(e) || q[1] != '.' || q[18] != 'e')
        return false;
    g->neg = e[0] == '-';
    g->d[0] = q[0];
    memcpy(g->d + 1, q + 2, 16);
    g->x = atoi(q + 19);
    return true;
}

/* The first `prec` (15 or 16) digits of g rounded to nearest, in out[]
 * with their exponent in *x; false when the dropped digits are exactly
 * half a unit ("5", "50"): the exact value, which only printf knows, may
 * then lie on either side. */
static bool
digits_round(const struct digits17 *g, int prec, char *out, int *x)
{
    int t = 0, half = prec == 15 ? 50 : 5;
    for (int i = prec; i < 17; i++)
        t = t * 10 + (g->d[i] - '0');
    if (t == half)
        return false;
    memcpy(out, g->d, (size_t)prec);
    *x = g->x;
    if (t > half) { /* up, carrying */
        int i = prec - 1;
        while (i >= 0 && out[i] == '9')
            out[i--] = '0';
        if (i >= 0) {
            out[i]++;
        } else {
            out[0] = '1';
            ++*x;
        }
    }
    return true;
}

/* Powers of ten that are exact doubles (10^22 is the last). */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The double nearest to the decimal d[0..prec) * 10^(x - prec + 1), as
 * strtod reads it, when one IEEE operation on exact doubles gives it: the
 * digits below 2^53, the power of ten at most 10^22 (and the arithmetic
 * in double precision, not x87's wider registers). */
static bool
digits_value(const char *d, int prec, int x, bool neg, double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    uint64_t m = 0;
    for (int i = 0; i < prec; i++)
        m = m * 10 + (uint64_t)(d[i] - '0');
    int k = x - prec + 1;
    if (m > (1ull << 53) || k < -22 || k > 22)
        return false;
    double v = k >= 0 ? (double)m * pow10_exact[k] : (double)m / pow10_exact[-k];
    *out = neg ? -v : v;
    return true;
#else
    (void)d, (void)prec, (void)x, (void)neg, (void)out;
    return false;
#endif
}

/* The `prec` significant digits d[0..prec) (ASCII) with decimal exponent
 * x (that of d[0]) as "%1.<prec>g" writes them: fixed notation when
 * -4 <= x < prec, else d.ddde+XX; trailing zeros of the fraction dropped,
 * and the point with them when nothing follows it. */
static size_t
g_style(char *out, bool neg, const char *d, int prec, int x)
{
    char *o = out;
    int p = prec;
    while (p > 1 && d[p - 1] == '0')
        p--;
    if (neg)
        *o++ = '-';
    if (x < -4 || x >= prec) {
        *o++ = d[0];
        if (p > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)p - 1);
            o += p - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        unsigned ax = (unsigned)(x < 0 ? -x : x);
        if (ax >= 100) {
            *o++ = (char)('0' + ax / 100);
            ax %= 100;
        }
        *o++ = (char)('0' + ax / 10);
        *o++ = (char)('0' + ax % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++) /* the integer part: x + 1 <= prec digits */
            *o++ = i < p ? d[i] : '0';
        if (p > x + 1) {
            *o++ = '.';
            memcpy(o, d + x + 1, (size_t)(p - x - 1));
            o += p - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *o++ = '0';
        memcpy(o, d, (size_t)p);
        o += p;
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* pyprof__fmt_double the slow way */
static void
fmt_double_printf(char buf[PYPROF__DBL_BUF], double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        pyprof__snprintf_c(buf, PYPROF__DBL_BUF, "%.*g", prec, v);
        if (prec == 17 || pyprof__strtod_c(buf, NULL) == v)
            break;
    }
}

const char *
pyprof__fmt_double(char buf[PYPROF__DBL_BUF], double v)
{
    if (isnan(v))
        return strcpy(buf, "nan");
    if (isinf(v))
        return strcpy(buf, v < 0 ? "-inf" : "inf");
    struct digits17 g;
    if (!digits17_of(v, &g)) {
        fmt_double_printf(buf, v);
        return buf;
    }
    for (int prec = 15; prec <= 16; prec++) {
        char d[16];
        int x;
        double back;
        if (!digits_round(&g, prec, d, &x) || !digits_value(d, prec, x, g.neg, &back)) {
            fmt_double_printf(buf, v);
            return buf;
        }
        if (back == v) {
            g_style(buf, g.neg, d, prec, x);
            return buf;
        }
    }
    g_style(buf, g.neg, g.d, 17, g.x);
    return buf;
}

/* cJSON's text of a finite non-integer v, the slow way: "%1.15g" if that
 * reads back as v within one unit of the last place, else "%1.17g". */
static size_t
number_text_printf(char buf[PYPROF__DBL_BUF], double v)
{
    int n = pyprof__snprintf_c(buf, PYPROF__DBL_BUF, "%1.15g", v);
    double back = pyprof__strtod_c(buf, NULL);
    double big = fabs(back) > fabs(v) ? fabs(back) : fabs(v);
    if (!(fabs(back - v) <= big * DBL_EPSILON))
        n = pyprof__snprintf_c(buf, PYPROF__DBL_BUF, "%1.17g", v);
    return n > 0 ? (size_t)n : 0;
}

/* number_text_printf's text, the fast way */
static size_t
number_text_fast(char buf[PYPROF__DBL_BUF], double v)
{
    struct digits17 g;
    char d[15];
    int x;
    double back;
    if (!digits17_of(v, &g) || !digits_round(&g, 15, d, &x) ||
        !digits_value(d, 15, x, g.neg, &back))
        return number_text_printf(buf, v);
    double big = fabs(back) > fabs(v) ? fabs(back) : fabs(v);
    if (fabs(back - v) <= big * DBL_EPSILON)
        return g_style(buf, g.neg, d, 15, x);
    return g_style(buf, g.neg, g.d, 17, g.x);
}

size_t
pyprof__json_number_text(char buf[PYPROF__DBL_BUF], double v)
{
    if (isnan(v) || isinf(v)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    /* Integers below 10^15 print as their digits under "%1.15g" too, and
     * are most of a profile's numbers (ids, lines, call counts). */
    if (v == floor(v) && fabs(v) < 1e15) {
        if (v == 0) {
            size_t n = signbit(v) ? 2 : 1;
            memcpy(buf, signbit(v) ? "-0" : "0", n + 1);
            return n;
        }
        char *end = pyprof__fmt_i64(buf, (int64_t)v);
        *end = '\0';
        return (size_t)(end - buf);
    }
    return number_text_fast(buf, v);
}

void
pyprof__json_number(pyprof_output *o, double v)
{
    char buf[PYPROF__DBL_BUF];
    pyprof_output_write(o, buf, pyprof__json_number_text(buf, v));
}

void
pyprof__json_string(pyprof_output *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    pyprof_output_write(o, "\"", 1);
    const char *run = s; /* bytes written as they are, not yet written */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue; /* UTF-8 and DEL pass through, as cJSON leaves them */
        pyprof_output_write(o, run, (size_t)(s - run));
        run = s + 1;
        /* the escapes with a letter, else \u00XX */
        static const char named[] = "\"\\\b\f\n\r\t", letter[] = "\"\\bfnrt";
        const char *k = memchr(named, c, sizeof(named) - 1);
        char esc[6] = {'\\', k ? letter[k - named] : 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        size_t n = k ? 2 : 6;
        pyprof_output_write(o, esc, n);
    }
    pyprof_output_write(o, run, (size_t)(s - run));
    pyprof_output_write(o, "\"", 1);
}

void
pyprof__json_key(pyprof_output *o, bool first, const char *key)
{
    if (!first)
        pyprof_output_write(o, ",", 1);
    pyprof__json_string(o, key);
    pyprof_output_write(o, ":", 1);
}

void
pyprof__json_member_string(pyprof_output *o, bool first, const char *key, const char *v)
{
    pyprof__json_key(o, first, key);
    pyprof__json_string(o, v);
}

void
pyprof__json_member_number(pyprof_output *o, bool first, const char *key, double v)
{
    pyprof__json_key(o, first, key);
    pyprof__json_number(o, v);
}

void
pyprof__json_exact(pyprof_output *o, double v)
{
    char buf[PYPROF__DBL_BUF];
    pyprof_output_puts(o, isfinite(v) ? pyprof__fmt_double(buf, v) : "null");
}

void
pyprof__csv_field(pyprof_output *o, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        pyprof_output_puts(o, s);
        return;
    }
    pyprof_output_write(o, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        pyprof_output_write(o, s, (size_t)(q - s) + 1); /* through the quote, */
        pyprof_output_write(o, "\"", 1);                /* and once more */
    }
    pyprof_output_puts(o, s);
    pyprof_output_write(o, "\"", 1);
}
