/*
 * t_svg_markup.c - the SVG writer builds its items' markup itself, which is
 * only right if it gives libxml2's bytes: each escaper against
 * xmlTextWriter on fixed tricky strings and on seeded random ones (ASCII
 * specials, control bytes, UTF-8 of every length, non-characters, stray
 * and impossible bytes), and the "%.2f" / "%.0f" / coordinate formatters against
 * snprintf on values around every rounding tie, signs, zeros, huge and
 * non-finite values.
 */
#include "config.h"

#include <libxml/xmlerror.h>
#include <libxml/xmlwriter.h>

#include "render/svg_markup.h"
#include "tap.h"

/* libxml2 reports the non-characters it escapes on stderr: not a failure */
static void
quiet(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

/* <a v="s">s</a> by xmlTextWriter, and by our escapers */
static bool
same_as_libxml2(const char *s, char **got, char **want)
{
    xmlBufferPtr xb = xmlBufferCreate();
    xmlTextWriterPtr x = xmlNewTextWriterMemory(xb, 0);
    xmlTextWriterStartElement(x, BAD_CAST "a");
    xmlTextWriterWriteAttribute(x, BAD_CAST "v", BAD_CAST s);
    xmlTextWriterWriteString(x, BAD_CAST s);
    xmlTextWriterEndElement(x);
    xmlFreeTextWriter(x);

    pyprof__svgbuf b = {0};
    PYPROF__SVGBUF_LIT(&b, "<a v=\"");
    pyprof__svgbuf_attr(&b, s);
    PYPROF__SVGBUF_LIT(&b, "\">");
    pyprof__svgbuf_text(&b, s);
    PYPROF__SVGBUF_LIT(&b, "</a>");
    bool same = !b.bad && b.len == (size_t)xmlBufferLength(xb) &&
                memcmp(b.p, xmlBufferContent(xb), b.len) == 0;
    if (!same && got && want) {
        *got = strndup(b.p ? b.p : "", b.len);
        *want = strdup((const char *)xmlBufferContent(xb));
    }
    pyprof__svgbuf_free(&b);
    xmlBufferFree(xb);
    return same;
}

static void
check_string(const char *s, const char *name)
{
    char *got = NULL, *want = NULL;
    if (!TAP_OK(same_as_libxml2(s, &got, &want), "escaped as libxml2: %s", name))
        tap_diag("  got '%s', want '%s'", got, want);
    free(got);
    free(want);
}

/* Pieces random strings are made of, a line per kind: ASCII, what gets
 * escaped, UTF-8 of 2-4 bytes, non-characters, bytes that are not UTF-8. */
/* clang-format off */
static const char *const pieces[] = {
    "a", "Z", " ", ";", "&amp;", "]]>", "--",
    "&", "<", ">", "\"", "'", "\t", "\n", "\r", "\x01", "\x1f", "\x7f",
    "\xc2\x80", "\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe2\x82\xac", "\xed\x9f\xbf",
    "\xee\x80\x80", "\xef\xbf\xbd", "\xf0\x90\x80\x80", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
    "\xef\xbf\xbe", "\xef\xbf\xbf",
    "\x80", "\xbf", "\xc3", "\xe2\x82", "\xf0\x9f", "\xf8", "\xfe", "\xff", "\xc0\xaf",
};
/* clang-format on */

static void
test_escaping(void)
{
    check_string("", "empty");
    check_string("plain text", "plain");
    check_string("a<b> & \"c\" 'd'", "specials");
    check_string("tab\there\nnew\rline", "white space");
    check_string("\x01\x02\x1b\x7f", "control bytes");
    check_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "UTF-8 of 2, 3 and 4 bytes");
    check_string("\xef\xbf\xbe \xef\xbf\xbf", "non-characters U+FFFE U+FFFF");
    check_string("x\xc3", "a last lead byte");
    check_string("x\xff", "a last impossible byte");
    check_string("\x80x\xbf", "stray continuation bytes");

    unsigned long long seed = 0x5eed5e6ull;
    int bad = 0;
    const int rounds = 20000;
    for (int i = 0; i < rounds; i++) {
        char s[256];
        size_t n = 0, k = tap_rand(&seed) % 12;
        for (size_t j = 0; j < k; j++) {
            const char *p = pieces[tap_rand(&seed) % (sizeof pieces / sizeof *pieces)];
            size_t l = strlen(p);
            memcpy(s + n, p, l);
            n += l;
        }
        /* three ASCII bytes end every string, so no sequence is cut short
         * by the NUL (where libxml2 would read past the string), then
         * sometimes one byte libxml2 copies as it is, being the last */
        memcpy(s + n, "end", 4);
        if (tap_rand(&seed) & 1) {
            s[n + 3] = (char)(0x80 + tap_rand(&seed) % 0x80);
            s[n + 4] = '\0';
        }
        char *got = NULL, *want = NULL;
        if (!same_as_libxml2(s, bad ? NULL : &got, bad ? NULL : &want)) {
            if (!bad)
                tap_diag("first difference: got '%s', want '%s'", got, want);
            bad++;
        }
        free(got);
        free(want);
    }
    TAP_OK(bad == 0, "%d random strings escaped as libxml2 (%d differ)", rounds, bad);
}

static void
check_number(double v, int *bad)
{
    char got[64], want[64];
    size_t n = pyprof__fmt_fixed2(got, sizeof got, v);
    pyprof__snprintf_c(want, sizeof want, "%.2f", v);
    if (strcmp(got, want) != 0 || n != strlen(want)) {
        if (!(*bad)++)
            tap_diag("%.17g: '%s' for %%.2f, want '%s'", v, got, want);
    }
    /* the coordinate: "%.2f" less trailing zeros, -0 as 0, or 0 for "use printf" */
    n = pyprof__fmt_coord(got, v);
    if (n) {
        got[n] = '\0';
        pyprof__snprintf_c(want, sizeof want, "%.2f", v > -0.005 && v < 0.005 ? 0.0 : v);
        char *end = want + strlen(want);
        if (strchr(want, '.')) {
            while (end[-1] == '0')
                *--end = '\0';
            if (end[-1] == '.')
                *--end = '\0';
        }
        if (strcmp(got, want) != 0 && !(*bad)++)
            tap_diag("%.17g: '%s' as a coordinate, want '%s'", v, got, want);
    }
    n = pyprof__fmt_fixed0(got, sizeof got, v);
    pyprof__snprintf_c(want, sizeof want, "%.0f", v);
    if (strcmp(got, want) != 0 || n != strlen(want)) {
        if (!(*bad)++)
            tap_diag("%.17g: '%s' for %%.0f, want '%s'", v, got, want);
    }
}

static void
test_numbers(void)
{
    int bad = 0;
    const double fixed[] = {0.0,      -0.0,
                            0.004,    -0.004,
                            0.005,    -0.005,
                            0.015,    0.125,
                            0.5,      1.5,
                            2.5,      -2.5,
                            1.005,    2.675,
                            1e9,      9.99999999e6,
                            1e15,     1e22,
                            1e300,    -1e300,
                            5e-324,   4503599627370496.5,
                            1e-7,     123.456,
                            HUGE_VAL, -HUGE_VAL,
                            NAN};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        check_number(fixed[i], &bad);
    TAP_OK(bad == 0, "fixed values formatted as snprintf (%d differ)", bad);

    unsigned long long seed = 0xf1ce2ull;
    bad = 0;
    const int rounds = 200000;
    for (int i = 0; i < rounds; i++) {
        double scale = (double)(1ull << (tap_rand(&seed) % 40));
        double v = (double)tap_rand(&seed) / 4294967296.0 * scale;
        switch (tap_rand(&seed) % 4) {
        case 0: /* hundredths and halves of them: the ties and their neighbours */
            v = (double)(tap_rand(&seed) % 2000000) / 200.0;
            break;
        case 1:
            v = nextafter((double)(tap_rand(&seed) % 2000000) / 200.0, v > 1e6 ? 0 : 1e300);
            break;
        default:
            break;
        }
        if (tap_rand(&seed) & 1)
            v = -v;
        check_number(v, &bad);
    }
    TAP_OK(bad == 0, "%d random values formatted as snprintf (%d differ)", rounds, bad);
}

int
main(void)
{
    xmlSetGenericErrorFunc(NULL, quiet);
    test_escaping();
    test_numbers();
    xmlCleanupParser();
    return tap_done();
}
