/*
 * utf8.c - UTF-8 validation (the model's strings must be valid UTF-8:
 * libxml2 passes invalid bytes through into ill-formed SVG, and cairo's
 * context is poisoned by them) and code-point counting (Python's len(),
 * which pstats uses for column widths).
 */
#include "config.h"

#include "pyprof_int.h"

/* Whether none of the eight bytes of w is NUL or has its top bit set: plain
 * ASCII, valid as it is.  (w - 0x01..01) & ~w sets a byte's top bit where
 * the byte was 0 (and, after a 0 byte's borrow, maybe in later bytes, which
 * only sends a word to the byte loop); ORing w in adds bytes >= 0x80. */
static inline bool
plain8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
    return (((w - ones) & ~w) | w) & tops ? false : true;
}

size_t
pyprof__utf8_valid_prefix(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        /* names and paths are nearly all ASCII: eight bytes at a time (a
         * label of 50 bytes took 380 instructions byte by byte) */
        while (len - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (!plain8(w))
                break;
            i += 8;
        }
        if (i >= len)
            break;
        unsigned char c = s[i];
        if (c < 0x80) {
            if (c == 0)
                return i; /* NUL is not allowed inside model strings */
            i++;
            continue;
        }
        size_t n;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return i;
        }
        if (len - i <= n)
            return i;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        /* overlong forms, surrogates and values past U+10FFFF */
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return i;
}

size_t
pyprof__utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    }
    return n;
}
