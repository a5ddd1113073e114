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

#include "render/emit.h"

const char *
pyprof__fmt_double(char buf[PYPROF__DBL_BUF], double v)
{
    if (isnan(v))
        return strcpy(buf, "nan");
    if (isinf(v))
        return strcpy(buf, v < 0 ? "-inf" : "inf");
    for (int prec = 15; prec <= 17; prec++) {
        pyprof__snprintf_c(buf, PYPROF__DBL_BUF, "%.*g", prec, v);
        if (prec == 17 || pyprof__strtod_c(buf, NULL) == v)
            break;
    }
    return buf;
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
    /* 15 significant digits when they read back as v within one unit of
     * the last place (cJSON's test), else 17 */
    int n = pyprof__snprintf_c(buf, PYPROF__DBL_BUF, "%1.15g", v);
    double back = pyprof__strtod_c(buf, NULL);
    double big = fabs(back) > fabs(v) ? fabs(back) : fabs(v);
    if (!(fabs(back - v) <= big * DBL_EPSILON))
        n = pyprof__snprintf_c(buf, PYPROF__DBL_BUF, "%1.17g", v);
    return n > 0 ? (size_t)n : 0;
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
