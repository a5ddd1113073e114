/*
 * mprofile.h - the mprofile reader's state and its fast path for plain
 * MEM lines (mprofile.c).  Private to formats/.
 */
#ifndef PYPROF_FORMATS_MPROFILE_H
#define PYPROF_FORMATS_MPROFILE_H

#include "pyprof_int.h"

#include "core/numparse.h"

/* pid -> series, open addressing.  Many children are possible (-M on a
 * process pool), so a linear search per CHLD line could go quadratic. */
typedef struct child_map {
    int64_t *pid;
    pyprof_id *series;
    size_t cap, used;
} child_map;

typedef struct reader {
    pyprof_profile *p;
    pyprof_input *in;
    pyprof_error *err;
    child_map children;
    unsigned records; /* lines with a known tag */
    uint64_t line;    /* the line being read, from 1 */
    /* a helper faulting in the model's samples ahead of the reader (see
     * mprofile_read), valid while there are at most pf_cap samples */
    pyprof__prefault *pf;
    size_t pf_cap;
} reader;

/* Before the model may hold `count` samples: a growing array moves, so
 * the helper must be done with it first. */
static inline void
pyprof__mprofile_will_hold(reader *r, size_t count)
{
    if (r->pf && count > r->pf_cap) {
        pyprof__prefault_finish(r->pf);
        r->pf = NULL;
    }
}

/* The line nearly every record of a big file is, "MEM <MiB> <time>\n" with
 * plain decimals, read without first searching for its end; returns the
 * start of the next line, or NULL for any other line (or one not complete
 * in [s, end)), which the general path then reads, errors and all. */
static inline const char *
pyprof__mprofile_plain_mem(const char *s, const char *end, double *mib, double *t)
{
    const char *q;
    if (end - s < 4 || memcmp(s, "MEM ", 4) != 0 || !pyprof__parse_decimal(s + 4, end, &q, mib) ||
        q == end || *q != ' ' || !pyprof__parse_decimal(q + 1, end, &q, t) || q == end ||
        *q != '\n')
        return NULL;
    return q + 1;
}

#endif
