/*
 * numparse.h - the common case of decimal text to double, fast and exact
 * (private; inline because it runs twice per line of a 10^6-line file).
 *
 * mprof writes "%.6f"/"%.4f", and strtod on each of the 2 * 10^6 numbers
 * of a 10^6-sample file was most of the reading time.  Here the digits are
 * gathered as an integer and divided once by a power of ten.  That is
 * exact by Clinger's fast path: a mantissa of at most 15 digits is an
 * integer below 2^53 and every power of ten up to 1e22 is a double, so the
 * one IEEE division is correctly rounded: the very double strtod returns.
 *
 * Only [-]digits[.digits] with 1-15 digits in all (leading zeros count,
 * which is merely conservative) is taken; anything else (exponents, '+',
 * more digits, hex, inf/nan) is declined and the caller uses strtod.
 *
 * (Eight-digits-at-a-time SWAR conversion was tried here and was slower
 * on these short numbers: finding where each run of digits ends, chunk
 * after dependent chunk, cost more than the digit loop it replaces.  Where
 * the runs' places are known beforehand it wins: pyprof__digits8 below,
 * used by the mprofile reader for lines shaped like the one before.)
 */
#ifndef PYPROF_NUMPARSE_H
#define PYPROF_NUMPARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* m / 10^frac, 0 <= frac <= 15: correctly rounded while m has at most 15
 * digits (see above), which every caller makes sure of. */
static inline double
pyprof__decimal_of(uint64_t m, unsigned frac)
{
    static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    return (double)m / pow10[frac];
}

/* The number at the start of [s, end).  On success *out is the double
 * strtod would give and *stop where strtod stops (never at a digit, '.',
 * 'e', 'E', 'x' or 'X'); false for anything else, including numbers strtod
 * accepts. */
static inline bool
pyprof__parse_decimal(const char *s, const char *end, const char **stop, double *out)
{
    const char *q = s;
    bool neg = q < end && *q == '-';
    q += neg;
    uint64_t m = 0;
    const char *d0 = q;
    /* m may wrap past 19 digits; such a number is declined below */
    while (q < end && (unsigned)(*q - '0') < 10)
        m = m * 10 + (uint64_t)(*q++ - '0');
    long ndig = q - d0, frac = 0;
    if (q < end && *q == '.') {
        const char *f0 = ++q;
        while (q < end && (unsigned)(*q - '0') < 10)
            m = m * 10 + (uint64_t)(*q++ - '0');
        frac = q - f0;
    }
    ndig += frac;
    /* strtod would go on: an exponent, a hex number after "0", a second '.'
     * (not a number: declined so that the caller's own check says so) */
    if (ndig == 0 || ndig > 15 ||
        (q < end && (*q == 'e' || *q == 'E' || *q == 'x' || *q == 'X' || *q == '.')))
        return false;
    double v = pyprof__decimal_of(m, (unsigned)frac);
    *out = neg ? -v : v;
    *stop = q;
    return true;
}

/* The n digits at p, 1 <= n <= 8, as a number (p[0] the most significant),
 * reading the 8 bytes at p (all must be readable; those after the run are
 * ignored).  *bad gets a bit set when any of the n bytes is not an ASCII
 * digit, and the value is then meaningless.  No loop and no branch: the
 * run's bytes are shifted to the top of a word (zeros, read as leading
 * zero digits, below) and combined pairwise, 2 -> 4 -> 8 digits, with
 * three multiplications. */
static inline uint64_t
pyprof__digits8(const char *p, unsigned n, uint64_t *bad)
{
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t t = v ^ 0x3030303030303030u; /* digits become 0..9 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    t = __builtin_bswap64(t); /* p[0] in the low byte, as below */
#endif
    t <<= 8 * (8 - n);
    /* a byte is a digit iff its value is at most 9: adding 0x76 to its low
     * 7 bits sets bit 7 from 10 on (no carry into the next byte), and a
     * set bit 7 of its own is no digit either */
    *bad |= (((t & 0x7f7f7f7f7f7f7f7fu) + 0x7676767676767676u) | t) & 0x8080808080808080u;
    t = (t * 10 + (t >> 8)) & 0x00ff00ff00ff00ffu;        /* pairs: 0..99 */
    t = (t * 100 + (t >> 16)) & 0x0000ffff0000ffffu;      /* quads: 0..9999 */
    return (t * 10000 + (t >> 32)) & 0x00000000ffffffffu; /* all eight */
}

/* The same for 1 <= n <= 16 digits, reading the 8 bytes at p + n - 8 too. */
static inline uint64_t
pyprof__digits16(const char *p, unsigned n, uint64_t *bad)
{
    if (n <= 8)
        return pyprof__digits8(p, n, bad);
    return pyprof__digits8(p, n - 8, bad) * 100000000u + pyprof__digits8(p + n - 8, 8, bad);
}

/* The decimal of the ni digits at i before the point and the nf at f after
 * it (ni, nf >= 1, ni + nf <= 15), as pyprof__parse_decimal gives it; the
 * digits are read and checked as pyprof__digits16 does. */
static inline double
pyprof__digits_decimal(const char *i, unsigned ni, const char *f, unsigned nf, uint64_t *bad)
{
    static const uint64_t pow10[] = {
        1u,           10u,           100u,           1000u,           10000u,
        100000u,      1000000u,      10000000u,      100000000u,      1000000000u,
        10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u};
    uint64_t m = pyprof__digits16(i, ni, bad) * pow10[nf] + pyprof__digits16(f, nf, bad);
    return pyprof__decimal_of(m, nf);
}

#endif
