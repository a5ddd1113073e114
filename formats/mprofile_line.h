/*
 * mprofile_line.h - reading the "MEM <MiB> <time>\n" lines of a big
 * mprofile file (private to the mprofile reader).
 *
 * mprof writes every sample as "MEM %.6f %.4f\n", so consecutive lines
 * nearly always have the same shape: the same length, and the '.' and ' '
 * at the same places ("MEM 42.131925 1795330000.0029\n").  Reading digit
 * by digit, each line cost ~250 instructions (~25 ns), most of a 10^6-line
 * file's reading time.  Once a line's shape is known, the next line is
 * checked against it with four byte compares, and its four digit runs are
 * converted at their known places eight digits at a time
 * (pyprof__digits8), which also checks that they are digits: less than
 * half the time.  A line of another shape, or any doubt, goes the general
 * way (pyprof__parse_decimal), which then learns the new shape; the
 * numbers are the same either way, bit for bit: the same integer of all
 * digits divided once by the same power of ten.
 */
#ifndef PYPROF_FORMATS_MPROFILE_LINE_H
#define PYPROF_FORMATS_MPROFILE_LINE_H

#include "core/numparse.h"

/* The shape of the last plain line: offsets from its 'M'.  len 0: none. */
typedef struct pyprof__mem_shape {
    unsigned len;       /* up to and with the '\n' */
    unsigned dot0, sp;  /* the first number's '.', the space after it */
    unsigned dot1;      /* the second number's '.' */
} pyprof__mem_shape;

static const double pyprof__mem_p10d[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                          1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
static const uint64_t pyprof__mem_p10u[] = {1u,
                                            10u,
                                            100u,
                                            1000u,
                                            10000u,
                                            100000u,
                                            1000000u,
                                            10000000u,
                                            100000000u,
                                            1000000000u,
                                            10000000000u,
                                            100000000000u,
                                            1000000000000u,
                                            10000000000000u,
                                            100000000000000u,
                                            1000000000000000u};

/* The line at s read by its shape; s has "MEM " and at least len + 8
 * readable bytes.  NULL when the line has another shape. */
static inline const char *
pyprof__mem_shape_read(const pyprof__mem_shape *sh, const char *s, double *mib, double *t)
{
    if (s[sh->len - 1] != '\n' || s[sh->dot0] != '.' || s[sh->sp] != ' ' || s[sh->dot1] != '.')
        return NULL;
    unsigned ia = sh->dot0 - 4, fa = sh->sp - sh->dot0 - 1;
    unsigned ib = sh->dot1 - sh->sp - 1, fb = sh->len - 2 - sh->dot1;
    uint64_t bad = 0;
    uint64_t ma = pyprof__digits16(s + 4, ia, &bad) * pyprof__mem_p10u[fa] +
                  pyprof__digits16(s + sh->dot0 + 1, fa, &bad);
    uint64_t mb = pyprof__digits16(s + sh->sp + 1, ib, &bad) * pyprof__mem_p10u[fb] +
                  pyprof__digits16(s + sh->dot1 + 1, fb, &bad);
    if (bad)
        return NULL;
    *mib = (double)ma / pyprof__mem_p10d[fa];
    *t = (double)mb / pyprof__mem_p10d[fb];
    return s + sh->len;
}

/* [s, next): a line the general way read as "MEM <a> <b>\n".  Its shape is
 * kept when both numbers have digits on both sides of a '.' and at most
 * 15 in all, as pyprof__parse_decimal takes them. */
static inline void
pyprof__mem_shape_learn(pyprof__mem_shape *sh, const char *s, const char *next)
{
    sh->len = 0;
    const char *end = next - 1; /* the '\n' */
    const char *d0 = memchr(s + 4, '.', (size_t)(end - (s + 4)));
    const char *sp = d0 ? memchr(d0, ' ', (size_t)(end - d0)) : NULL;
    const char *d1 = sp ? memchr(sp, '.', (size_t)(end - sp)) : NULL;
    if (!d1 || next - s > 64)
        return;
    unsigned len = (unsigned)(next - s), dot0 = (unsigned)(d0 - s), spo = (unsigned)(sp - s),
             dot1 = (unsigned)(d1 - s);
    unsigned ia = dot0 - 4, fa = spo - dot0 - 1, ib = dot1 - spo - 1, fb = len - 2 - dot1;
    if (ia < 1 || fa < 1 || ib < 1 || fb < 1 || ia + fa > 15 || ib + fb > 15)
        return; /* also a sign, which is not a digit, fails when read */
    *sh = (pyprof__mem_shape){len, dot0, spo, dot1};
}

#endif
