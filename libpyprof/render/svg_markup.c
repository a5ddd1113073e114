/*
 * svg_markup.c - see svg_markup.h.  The escaping follows libxml2 2.9.14's
 * xmlEncodeSpecialChars (text) and xmlBufAttrSerializeTxtContent (attribute
 * values, no document) rule for rule, including what they do with bytes
 * that are not XML characters; the number formatting is exact, with printf
 * kept for the few values where a fast path could not prove its digits.
 */
#include "config.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "svg_markup.h"

int
pyprof__svgbuf_reserve(pyprof__svgbuf *b, size_t n)
{
    if (b->bad)
        return -1;
    if (b->cap - b->len >= n)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->bad = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = pyprof__realloc(b->p, cap);
    if (!p) {
        b->bad = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void
pyprof__svgbuf_free(pyprof__svgbuf *b)
{
    pyprof__free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* "00" to "99" */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* The decimal digits of n, written backwards from end; returns the first. */
static char *
digits(char *end, uint64_t n)
{
    do {
        *--end = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    return end;
}

/* snprintf's return value n made the length actually written */
static size_t
written(char *out, size_t size, int n)
{
    if (n < 0) {
        out[0] = '\0';
        return 0;
    }
    return (size_t)n < size ? (size_t)n : size - 1;
}

/* sign, then n, then `decimals` of its last digits after a point */
static size_t
fixed(char *out, bool minus, uint64_t n, int decimals)
{
    char tmp[32], *end = tmp + sizeof tmp, *s = end;
    for (int i = 0; i < decimals; i++) {
        *--s = (char)('0' + n % 10);
        n /= 10;
    }
    if (decimals)
        *--s = '.';
    s = digits(s, n);
    if (minus)
        *--s = '-'; /* printf writes "-0.00" for -0.001 and -0.0 */
    size_t len = (size_t)(end - s);
    memcpy(out, s, len);
    out[len] = '\0';
    return len;
}

size_t
pyprof__fmt_fixed2(char *out, size_t size, double v)
{
    /* t = |v| * 100 is within half an ulp (< 6e-8 below 1e9) of the exact
     * product, so when t's fraction is further than 1e-6 from .5, the exact
     * value rounds to the same integer as t: those are printf's digits. */
    double t = fabs(v) * 100;
    if (t < 1e9) {
        double fl = floor(t), frac = t - fl; /* both exact */
        if (fabs(frac - 0.5) > 1e-6)
            return fixed(out, signbit(v), (uint64_t)fl + (frac > 0.5), 2);
    }
    return written(out, size, pyprof__snprintf_c(out, size, "%.2f", v));
}

size_t
pyprof__fmt_coord(char *out, double v)
{
    if (v > -0.005 && v < 0.005) {
        out[0] = '0'; /* no "-0" */
        return 1;
    }
    /* as pyprof__fmt_fixed2; t >= 0.5 here, and below 1e9 the conversion
     * truncates, which is floor */
    double t = fabs(v) * 100;
    if (!(t < 1e9))
        return 0;
    uint64_t whole = (uint64_t)t;
    double frac = t - (double)whole;
    if (!(fabs(frac - 0.5) > 1e-6))
        return 0;
    uint32_t n = (uint32_t)(whole + (frac > 0.5)), ip = n / 100, cents = n % 100;
    /* The integer part (at most 7 digits) two digits at a time, backwards
     * into a scratch buffer: a frame has five coordinates, and a digit a
     * division (a multiply and a shift) was a quarter of writing it. */
    char tmp[16] = {0}, *e = tmp + 8, *s = e; /* (room to copy 8 bytes from s) */
    for (; ip >= 100; ip /= 100)
        memcpy(s -= 2, digit_pairs + 2 * (ip % 100), 2);
    if (ip >= 10)
        memcpy(s -= 2, digit_pairs + 2 * ip, 2);
    else
        *--s = (char)('0' + ip);
    size_t len = 0;
    if (v < 0)
        out[len++] = '-';
    memcpy(out + len, s, 8); /* (a copy of known size; only e - s bytes count) */
    len += (size_t)(e - s);
    if (cents) { /* the decimals that are not trailing zeros */
        out[len++] = '.';
        out[len++] = digit_pairs[2 * cents];
        if (cents % 10)
            out[len++] = digit_pairs[2 * cents + 1];
    }
    return len;
}

size_t
pyprof__fmt_fixed0(char *out, size_t size, double v)
{
    double a = fabs(v);
    if (a < 9007199254740992.0) { /* 2^53: floor and the fraction are exact */
        double fl = floor(a), frac = a - fl;
        if (frac != 0.5) /* ties follow the rounding mode: printf's business */
            return fixed(out, signbit(v), (uint64_t)fl + (frac > 0.5), 0);
    }
    return written(out, size, pyprof__snprintf_c(out, size, "%.0f", v));
}

/* Bytes that need a reference in text content (1) or in an attribute
 * value (2 as well), as libxml2 escapes them. */
static const unsigned char special[256] = {
    ['&'] = 3, ['<'] = 3, ['>'] = 3, ['"'] = 3, ['\r'] = 3, ['\n'] = 2, ['\t'] = 2,
};

static const char *
entity(unsigned char c)
{
    switch (c) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    case '"':
        return "&quot;";
    case '\r':
        return "&#13;";
    case '\n':
        return "&#10;";
    default:
        return "&#9;";
    }
}

/* The length of the run of s[0..n) that text content keeps as it is. */
static size_t
text_run(const unsigned char *s, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    /* sixteen bytes at a time: a tooltip is a few dozen bytes with nothing
     * to escape, and the byte loop below was a tenth of writing a frame */
    const __m128i amp = _mm_set1_epi8('&'), lt = _mm_set1_epi8('<'), gt = _mm_set1_epi8('>'),
                  quot = _mm_set1_epi8('"'), cr = _mm_set1_epi8('\r');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, amp), _mm_cmpeq_epi8(v, lt)),
                                   _mm_or_si128(_mm_cmpeq_epi8(v, gt), _mm_cmpeq_epi8(v, quot)));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(hit, _mm_cmpeq_epi8(v, cr)));
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
#endif
    while (i < n && !(special[s[i]] & 1))
        i++;
    return i;
}

void
pyprof__svgbuf_text(pyprof__svgbuf *b, const char *s)
{
    const unsigned char *cur = (const unsigned char *)s;
    size_t n = strlen(s);
    for (;;) {
        size_t run = text_run(cur, n);
        pyprof__svgbuf_put(b, (const char *)cur, run);
        if (run == n)
            return;
        const char *e = entity(cur[run]);
        pyprof__svgbuf_put(b, e, strlen(e));
        cur += run + 1;
        n -= run + 1;
    }
}

/* libxml2's IS_CHAR: the code points XML allows. */
static bool
xml_char(uint32_t c)
{
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
           (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

/* "&#xHEX;" with upper-case digits and no leading zeros (xmlSerializeHexCharRef). */
static void
hex_ref(pyprof__svgbuf *b, uint32_t c)
{
    char tmp[16], *end = tmp + sizeof tmp, *s = end;
    *--s = ';';
    do {
        *--s = "0123456789ABCDEF"[c & 0xF];
        c >>= 4;
    } while (c);
    *--s = 'x';
    *--s = '#';
    *--s = '&';
    pyprof__svgbuf_put(b, s, (size_t)(end - s));
}

void
pyprof__svgbuf_attr(pyprof__svgbuf *b, const char *s)
{
    const unsigned char *base = (const unsigned char *)s, *cur = base;
    for (;;) {
        while (*cur && *cur < 0x80 && !special[*cur])
            cur++;
        pyprof__svgbuf_put(b, (const char *)base, (size_t)(cur - base));
        if (!*cur)
            return;
        if (*cur < 0x80) {
            const char *e = entity(*cur);
            pyprof__svgbuf_put(b, e, strlen(e));
            base = ++cur;
            continue;
        }
        if (!cur[1]) { /* libxml2 copies a last non-ASCII byte as it is */
            base = cur++;
            continue;
        }
        /* the lead byte says the length; continuation bytes are not checked */
        size_t l = *cur < 0xC0 ? 1 : *cur < 0xE0 ? 2 : *cur < 0xF0 ? 3 : *cur < 0xF8 ? 4 : 1;
        uint32_t val = l == 2 ? cur[0] & 0x1Fu : l == 3 ? cur[0] & 0x0Fu : cur[0] & 0x07u;
        for (size_t k = 1; k < l; k++) {
            if (!cur[k]) { /* cut short: libxml2 would read past the end */
                l = 1;
                break;
            }
            val = val << 6 | (cur[k] & 0x3Fu);
        }
        if (l == 1 || !xml_char(val)) {
            hex_ref(b, cur[0]); /* and the rest of the sequence byte by byte */
            base = ++cur;
            continue;
        }
        hex_ref(b, val);
        cur += l;
        base = cur;
    }
}
