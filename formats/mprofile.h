/*
 * mprofile.h - the mprofile reader's state and its fast path for plain
 * MEM lines (mprofile.c).  Private to formats/.
 */
#ifndef PYPROF_FORMATS_MPROFILE_H
#define PYPROF_FORMATS_MPROFILE_H

#include "pyprof_int.h"

#include "core/numparse.h"
#include "mprofile_line.h"

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
    double per_byte; /* lines per byte of the first window (0: unknown) */
    pyprof__mem_shape shape; /* of the last plain MEM line (mprofile_line.h) */
    /* the second half's thread while it runs (mprofile_split.c): it writes
     * the samples array from index half_guard on */
    struct pyprof__mprofile_half *half;
    size_t half_guard;
    /* the samples summarized for the plot as they are stored (see
     * core/mem_summary.c); off when the profile had samples before */
    pyprof__mem_summary sum;
    bool sum_on;
} reader;

/* Lines are taken straight from the input's window (peek/consume) rather
 * than one pyprof_input_read_line call each: at 10^6 lines the per-line
 * call and newline search cost as much as the numbers. */
#define PYPROF__MPROFILE_WINDOW ((size_t)64 * 1024)
/* Sample slots reserved at a time: 96 KiB, a small fraction of a big file's. */
#define PYPROF__MPROFILE_SLOTS 4096
/* Sample counts foreseen from lines per byte are raised by this much. */
#define PYPROF__MPROFILE_MARGIN 1.05

/* Summarize the samples stored so far into r->sum (mprofile.c). */
void pyprof__mprofile_summarize(reader *r);

/* Stop the second half's thread and drop its work (mprofile_split.c). */
void pyprof__mprofile_half_stop(reader *r);

/* Before the model may hold `count` samples: the second half's samples
 * start at half_guard, and a growing array moves, so the second thread
 * must be done with it first. */
static inline void
pyprof__mprofile_will_hold(reader *r, size_t count)
{
    if (r->half && count > r->half_guard)
        pyprof__mprofile_half_stop(r);
}

/* The line nearly every record of a big file is, "MEM <MiB> <time>\n" with
 * plain decimals, read without first searching for its end (by the shape
 * of the last such line when it has it, mprofile_line.h); returns the
 * start of the next line, or NULL for any other line (or one not complete
 * in [s, end)), which the general path then reads, errors and all. */
static inline const char *
pyprof__mprofile_plain_mem(pyprof__mem_shape *sh, const char *s, const char *end, double *mib,
                           double *t)
{
    const char *q;
    if (end - s < 4 || memcmp(s, "MEM ", 4) != 0)
        return NULL;
    if (sh->len && end - s >= (ptrdiff_t)sh->len + 8 &&
        (q = pyprof__mem_shape_read(sh, s, mib, t)) != NULL)
        return q;
    const char *sp;
    if (!pyprof__parse_decimal(s + 4, end, &sp, mib) || sp == end || *sp != ' ' ||
        !pyprof__parse_decimal(sp + 1, end, &q, t) || q == end || *q != '\n')
        return NULL;
    pyprof__mem_shape_learn(sh, s, sp, q + 1);
    return q + 1;
}

/* Reads every line up to the end of r->in, by the general rules. */
typedef int (*pyprof__mprofile_lines_fn)(reader *r);

/* Read a big plain file in two halves on two threads when that gives what
 * one pass gives (mprofile_split.c); *done says whether the whole file was
 * read, else nothing was and `lines` is to read it in one pass.  The
 * reader's state is then as after one pass over the file. */
int pyprof__mprofile_read_split(reader *r, pyprof__mprofile_lines_fn lines, bool *done);
/* For tests: files at least this big are split (returns the old bound),
 * and how many reads took the second thread's half. */
uint64_t pyprof__mprofile_split_min(uint64_t bytes);
uint64_t pyprof__mprofile_merges(void);

#endif
