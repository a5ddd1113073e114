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
    unsigned len;      /* up to and with the '\n' */
    unsigned dot0, sp; /* the first number's '.', the space after it */
    unsigned dot1;     /* the second number's '.' */
} pyprof__mem_shape;

/* The line at s read by its shape; s has "MEM " and at least len + 8
 * readable bytes.  NULL when the line has another shape. */
static inline const char *
pyprof__mem_shape_read(const pyprof__mem_shape *sh, const char *s, double *mib, double *t)
{
    if (s[sh->len - 1] != '\n' || s[sh->dot0] != '.' || s[sh->sp] != ' ' || s[sh->dot1] != '.')
        return NULL;
    uint64_t bad = 0;
    double a =
        pyprof__digits_decimal(s + 4, sh->dot0 - 4, s + sh->dot0 + 1, sh->sp - sh->dot0 - 1, &bad);
    double b = pyprof__digits_decimal(s + sh->sp + 1, sh->dot1 - sh->sp - 1, s + sh->dot1 + 1,
                                      sh->len - 2 - sh->dot1, &bad);
    if (bad)
        return NULL;
    *mib = a;
    *t = b;
    return s + sh->len;
}

/* [s, next): a line the general way read as "MEM <a> <b>\n", its space
 * between the numbers at sp.  Its shape is kept when both numbers are
 * unsigned with digits on both sides of a '.' and at most 15 in all, as
 * pyprof__parse_decimal takes them; else the shape is forgotten. */
static inline void
pyprof__mem_shape_learn(pyprof__mem_shape *sh, const char *s, const char *sp, const char *next)
{
    sh->len = 0;
    const char *d0 = memchr(s + 4, '.', (size_t)(sp - (s + 4)));
    const char *d1 = d0 ? memchr(sp, '.', (size_t)(next - 1 - sp)) : NULL;
    if (!d1 || next - s > 64 || s[4] == '-' || sp[1] == '-')
        return;
    unsigned len = (unsigned)(next - s), dot0 = (unsigned)(d0 - s), spo = (unsigned)(sp - s),
             dot1 = (unsigned)(d1 - s);
    unsigned ia = dot0 - 4, fa = spo - dot0 - 1, ib = dot1 - spo - 1, fb = len - 2 - dot1;
    if (ia < 1 || fa < 1 || ib < 1 || fb < 1 || ia + fa > 15 || ib + fb > 15)
        return;
    *sh = (pyprof__mem_shape){len, dot0, spo, dot1};
}

#endif
