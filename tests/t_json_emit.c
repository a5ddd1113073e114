/*
 * t_json_emit.c - the streamed JSON text (render/emit.c) against
 * cJSON_PrintUnformatted, which the JSON writers used to build documents
 * with: numbers of every kind (integers, -0, the 15/17-digit border,
 * subnormals, huge, NaN) and random bit patterns, and strings with every
 * byte value, must come out byte for byte the same.  (Should a newer cJSON
 * write numbers differently, this says so; which text to keep is then a
 * decision about the documents' stability, not a bug in either.)  Also the
 * CSV fields and the exact numbers the other writers use.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "render/convert_int.h"
#include "tap.h"

/* a double of 64 random bits: every exponent, NaNs and infinities too */
static double
random_bits(void)
{
    uint64_t bits = 0;
    for (int k = 0; k < 4; k++)
        bits = bits << 16 ^ (uint64_t)(rand() & 0xFFFF);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* 1 if our text of v is cJSON's */
static int
number_agrees(double v)
{
    char ours[PYPROF__DBL_BUF];
    size_t n = pyprof__json_number_text(ours, v);
    cJSON *item = cJSON_CreateNumber(v);
    char *theirs = item ? cJSON_PrintUnformatted(item) : NULL;
    int ok = theirs && strlen(theirs) == n && memcmp(ours, theirs, n) == 0 && ours[n] == '\0';
    static int shown;
    if (!ok && shown++ < 10)
        tap_diag("%.17g: ours '%s', cJSON '%s'", v, ours, theirs ? theirs : "(none)");
    cJSON_free(theirs);
    cJSON_Delete(item);
    return ok;
}

/* 1 if pyprof__fmt_double(v) is the shortest of "%.15g", "%.16g" and
 * "%.17g" that reads back as v, as printf and strtod make it */
static int
shortest_agrees(double v)
{
    char ours[PYPROF__DBL_BUF], ref[64];
    pyprof__fmt_double(ours, v);
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(ref, sizeof ref, "%.*g", prec, v);
        if (strtod(ref, NULL) == v)
            break;
    }
    int ok = strcmp(ours, ref) == 0;
    static int shown;
    if (!ok && shown++ < 10)
        tap_diag("%.17g: ours '%s', printf '%s'", v, ours, ref);
    return ok;
}

/* what write(o, s) writes, through a memory output */
static char *
written(void (*write)(pyprof_output *, const char *), const char *s)
{
    pyprof_output *o;
    if (pyprof_output_open_memory(&o, NULL) < 0)
        return NULL;
    write(o, s);
    size_t len;
    const unsigned char *d = pyprof_output_data(o, &len);
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, d, len);
        copy[len] = '\0';
    }
    pyprof_output_abort(o);
    return copy;
}

static int
string_agrees(const char *s)
{
    char *ours = written(pyprof__json_string, s);
    cJSON *item = cJSON_CreateString(s);
    char *theirs = item ? cJSON_PrintUnformatted(item) : NULL;
    int ok = ours && theirs && strcmp(ours, theirs) == 0;
    if (!ok)
        tap_diag("ours %s, cJSON %s", ours ? ours : "(none)", theirs ? theirs : "(none)");
    free(ours);
    cJSON_free(theirs);
    cJSON_Delete(item);
    return ok;
}

/* 1 if s is written as the CSV field `want` */
static int
csv_is(const char *s, const char *want)
{
    char *got = written(pyprof__csv_field, s);
    int ok = got && strcmp(got, want) == 0;
    if (!ok)
        tap_diag("CSV of [%s]: [%s], want [%s]", s, got ? got : "(none)", want);
    free(got);
    return ok;
}

/* pyprof__json_exact of this, in the shape written() calls */
static double exact_arg;

static void
json_exact_arg(pyprof_output *o, const char *unused)
{
    (void)unused;
    pyprof__json_exact(o, exact_arg);
}

/* 1 if pyprof__json_exact writes v as a number that reads back as v, in
 * at most 17 significant digits */
static int
exact_reads_back(double v)
{
    exact_arg = v;
    char *got = written(json_exact_arg, "");
    int ok = got && strtod(got, NULL) == v && strspn(got, "-0123456789.e+") == strlen(got);
    if (!ok)
        tap_diag("%.17g written as %s", v, got ? got : "(none)");
    free(got);
    return ok;
}

int
main(void)
{
    static const double edges[] = {
        0.0,
        1.0,
        -1.0,
        42.0,
        999999999999999.0,
        1e15,
        1e15 + 1,
        -1e15,
        2.0e9,
        1e20,
        0.1,
        0.5,
        1.0 / 3,
        2.0 / 3,
        1e-7,
        1.5e-300,
        1e300,
        DBL_MAX,
        -DBL_MAX,
        DBL_MIN,
        5e-324,
        0.000123456789,
        123.456,
        9.0e15 + 1,
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        ok &= number_agrees(edges[i]);
    TAP_OK(ok, "numbers: integers, the 10^15 border, thirds, tiny, huge, subnormal as cJSON");
    TAP_OK(number_agrees(-0.0), "-0 as cJSON writes it");
    TAP_OK(number_agrees(NAN) && number_agrees(INFINITY) && number_agrees(-INFINITY),
           "NaN and infinities: null");

    /* random bit patterns (every exponent), and profile-like times:
     * a random count of microseconds over 10^6, 10^9 */
    long wrong = 0;
    srand(11);
    for (long i = 0; i < 100000; i++) {
        double v = random_bits();
        if (isnan(v))
            continue;
        wrong += !number_agrees(v);
        wrong += !number_agrees((double)(rand() % 100000000) / (i % 2 ? 1e6 : 1e9));
        wrong += !number_agrees((double)(rand() % 1000000));
    }
    TAP_OK(wrong == 0, "numbers: 300,000 random doubles, times and counts as cJSON (%ld differ)",
           wrong);

    /* The 15-digit text is derived from the 17 digits (emit.c): where that
     * could go wrong.  Digits 16-17 of "50" (16-digit integers ending in 5
     * are exact ties), 15 nines that carry into a new digit, numbers of
     * 15, 16 and 17 digits, each around every exponent where the notation
     * changes (10^-5, 10^-4, 10^14 ... 10^17) and far beyond (10^+-22,
     * where reading back needs strtod). */
    wrong = 0;
    srand(12);
    for (long i = 0; i < 40000; i++) {
        uint64_t m15 =
            100000000000000ull + ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % 900000000000000ull;
        double tie = (double)(m15 * 10 + 5); /* 16 digits, exact, a tie */
        double nines = 999999999999999.0 + (rand() % 1000) / 1000.0;
        wrong += !number_agrees(tie) + !number_agrees(-tie) + !number_agrees(nines);
        wrong += !number_agrees((double)(m15 * 100 + (uint64_t)(rand() % 100))); /* 17 digits */
        static const int exps[] = {-300, -23, -22, -6, -5, -4, -3, 0, 13, 14, 15, 16, 17, 22, 23};
        int x = exps[i % (long)(sizeof exps / sizeof *exps)];
        char text[64];
        snprintf(text, sizeof text, "%llu.%02de%d", (unsigned long long)m15, rand() % 100, x - 14);
        double v = strtod(text, NULL); /* 15 + 2 digits at 10^x */
        wrong += !number_agrees(v) + !number_agrees(-v);
        snprintf(text, sizeof text, "9.99999999999999%de%d", rand() % 10, x);
        wrong += !number_agrees(strtod(text, NULL));
        snprintf(text, sizeof text, "%llue%d", (unsigned long long)m15, x - 14);
        wrong += !number_agrees(strtod(text, NULL)); /* 15 digits: reads back */
    }
    TAP_OK(wrong == 0,
           "numbers: 320,000 ties, carries and notation borders of the 15-digit rounding as "
           "cJSON (%ld differ)",
           wrong);

    /* the exact texts: 15, 16 or 17 digits, rounded from 17 (emit.c) */
    wrong = 0;
    srand(13);
    for (long i = 0; i < 60000; i++) {
        double v = random_bits();
        if (!isnan(v))
            wrong += !shortest_agrees(v);
        uint64_t m = ((uint64_t)rand() << 31 ^ (uint64_t)rand()) % 100000000000000000ull;
        static const int exps[] = {-320, -30, -22, -5, -4, 0, 14, 15, 16, 17, 22, 40};
        char text[64];
        snprintf(text, sizeof text, "%llue%d", (unsigned long long)m,
                 exps[i % (long)(sizeof exps / sizeof *exps)] - 16);
        wrong += !shortest_agrees(strtod(text, NULL)); /* up to 17 digits */
        wrong += !shortest_agrees((double)(rand() % 100000000) / 1e6) +
                 !shortest_agrees(-(double)(m % 100000000000000000ull)) + !shortest_agrees(0.0) +
                 !shortest_agrees(-0.0);
    }
    TAP_OK(wrong == 0,
           "exact numbers: 360,000 random doubles, decimals and integers as the shortest of "
           "%%.15g, %%.16g, %%.17g that reads back (%ld differ)",
           wrong);

    char all[256];
    for (int c = 1; c < 256; c++)
        all[c - 1] = (char)c;
    all[255] = '\0';
    TAP_OK(string_agrees(all), "a string of every byte 1-255 escaped as cJSON escapes it");
    TAP_OK(string_agrees("") && string_agrees("plain") && string_agrees("\"q\"\\") &&
               string_agrees("caf\xc3\xa9 \xe2\x82\xac\n"),
           "empty, plain, quotes and backslash, UTF-8 with a line break");

    TAP_OK(csv_is("plain name", "plain name") && csv_is("", "") && csv_is("a,b", "\"a,b\"") &&
               csv_is("say \"hi\"", "\"say \"\"hi\"\"\"") && csv_is("\"", "\"\"\"\"") &&
               csv_is("x\r\ny", "\"x\r\ny\"") &&
               csv_is("<lambda>;f (a.py:1)", "<lambda>;f (a.py:1)"),
           "CSV fields: quoted only with a comma, quote or line break; quotes doubled");

    int back = 1;
    for (long i = 0; i < 20000; i++) {
        double v = random_bits();
        if (isfinite(v))
            back &= exact_reads_back(v) & exact_reads_back((double)(rand() % 1000000) / 1e6);
    }
    TAP_OK(back, "exact numbers: 40,000 random doubles read back as themselves");
    exact_arg = NAN;
    char *nul = written(json_exact_arg, "");
    TAP_OK(nul && strcmp(nul, "null") == 0, "exact numbers: NaN is null");
    free(nul);
    return tap_done();
}
