/*
 * memreport.c - reader for memory_profiler's @profile line-by-line text
 * report (`python -m memory_profiler script.py`, or the output of a function
 * decorated with memory_profiler.profile).  Spec: ../shared/docs/formats.md
 * section 7.5.
 *
 * One block per profiled function (per call, with the decorator import):
 *     Filename: /path/script.py
 *     <blank>
 *     Line #    Mem usage    Increment  Occurrences   Line Contents
 *     =============================================================
 *         16   21.891 MiB   21.891 MiB           1   @profile
 *         17                                         def grow_list(n):
 *     <blank>
 * Before memory_profiler 0.58 there is no Occurrences column.  Values wider
 * than their fields shift the columns, so rows are read as tokens anchored
 * on the two "MiB" units rather than at fixed columns.  Anything outside a
 * block (the program's own output, which shares stdout) is skipped.
 *
 * Model (the report has no times, so this is how its numbers are kept):
 *  - one function per block: file = the Filename, line = the first row's
 *    line number, name = the name on the first "def" row (or "<lines A-B>"
 *    when there is none); flags PYPROF_FUNC_LINES; counts.ncalls = the first
 *    row's occurrences (the calls, for the decorator line) and
 *    counts.cumtime = the block's largest "Mem usage" in MiB;
 *  - one line record per row: time = Increment in MiB, hits = Occurrences
 *    (0 for rows never executed, and for reports without the column);
 *  - one memory series per block, labelled with the function name, whose
 *    samples are (t = line number, MiB = Mem usage): the only place the
 *    per-line memory fits the model;
 *  - metadata: producer "memory_profiler", line_time_unit "MiB",
 *    occurrences "yes" or "no".
 */
#include "config.h"

#include <math.h>

#include "pyprof_int.h"

#define FMT "memreport"

#define MAX_LINE (1u << 20)

static const char HEADER[] = "Line #    Mem usage    Increment";

typedef struct block {
    bool open;        /* inside a table */
    bool rule_seen;   /* the "====" line passed */
    bool occurrences; /* header has the column */
    pyprof_id file;   /* string id of the Filename */
    pyprof_id func;   /* PYPROF_NONE until the first row */
    pyprof_id series;
    int64_t first_line, last_line;
    double peak;
    bool named;
} block;

/* Rows wait in a small buffer until the block's def row names the function
 * (the decorator row comes first). */
typedef struct row {
    int64_t line, occ;
    double inc;
} row;

typedef struct reader {
    row *pending;
    size_t npending, pending_cap;
    pyprof_profile *p;
    pyprof_input *in;
    pyprof_error *err;
    bool have_file;
    pyprof_id file;
    block b;
    unsigned blocks;
    bool any_occ, any_old;
} reader;

static int
bad(reader *r, const char *why)
{
    return pyprof_input_error_line(r->in, r->err, PYPROF_EFORMAT, FMT, pyprof_input_line(r->in),
                                   "%s", why);
}

/* Next space-delimited token of [*s, end). */
static bool
token(const char **s, const char *end, const char **t, size_t *n)
{
    const char *p = *s;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end)
        return false;
    const char *q = p;
    while (q < end && *q != ' ' && *q != '\t')
        q++;
    *t = p;
    *n = (size_t)(q - p);
    *s = q;
    return true;
}

static bool
to_int(const char *t, size_t n, int64_t *out)
{
    if (n == 0 || n > 18)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return false;
        v = v * 10 + (t[i] - '0');
    }
    *out = v;
    return true;
}

static bool
to_num(const char *t, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, t, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!(buf[i] >= '0' && buf[i] <= '9') && !strchr("+-.eE", buf[i]))
            return false;
    char *e;
    *out = pyprof__strtod_c(buf, &e);
    return e == buf + n && isfinite(*out);
}

/* The function's name from a source row: "def NAME(" or "async def NAME(". */
static bool
def_name(const char *s, const char *end, const char **name, size_t *n)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if ((size_t)(end - s) > 6 && memcmp(s, "async ", 6) == 0)
        s += 6;
    if ((size_t)(end - s) <= 4 || memcmp(s, "def ", 4) != 0)
        return false;
    s += 4;
    while (s < end && *s == ' ')
        s++;
    const char *q = s;
    while (q < end && *q != '(' && *q != ' ' && *q != ':')
        q++;
    if (q == s)
        return false;
    *name = s;
    *n = (size_t)(q - s);
    return true;
}

static int
start_function(reader *r, int64_t line)
{
    block *b = &r->b;
    char tmp[64];
    pyprof_id name, sid;
    pyprof__snprintf_c(tmp, sizeof tmp, "<line %lld>", (long long)line);
    int rc = pyprof_profile_intern(r->p, &name, tmp, strlen(tmp));
    if (rc < 0)
        return rc;
    /* a placeholder name, replaced by the def row's (one function per
     * block: interned by (file, line, name) only once the name is known) */
    if ((rc = pyprof_profile_mem_series_add(r->p, &sid, name, -1,
                                            (pyprof_id)pyprof_profile_source_count(r->p))) < 0)
        return rc;
    b->series = sid;
    b->first_line = line;
    b->func = PYPROF_NONE;
    b->peak = NAN;
    b->named = false;
    return 0;
}

static int
flush_rows(reader *r, const char *name, size_t nlen)
{
    block *b = &r->b;
    pyprof_id nid;
    int rc = pyprof_profile_intern_lossy(r->p, &nid, name, nlen, 0);
    if (rc < 0)
        return rc;
    int created;
    if ((rc = pyprof_profile_func_intern(r->p, &b->func, b->file, b->first_line, nid, 0,
                                         &created)) < 0)
        return rc;
    pyprof_func *f = pyprof_profile_func_mut(r->p, b->func);
    f->flags |= PYPROF_FUNC_LINES;
    pyprof_profile_mem_series_mut(r->p, b->series)->label = nid;
    b->named = true;
    for (size_t i = 0; i < r->npending; i++) {
        if (i == 0)
            f->counts.ncalls += r->pending[i].occ;
        if ((rc = pyprof_profile_line_add(r->p, b->func, r->pending[i].line, r->pending[i].occ,
                                          r->pending[i].inc)) < 0)
            return rc;
        f = pyprof_profile_func_mut(r->p, b->func);
    }
    r->npending = 0;
    return 0;
}

static int
end_block(reader *r)
{
    block *b = &r->b;
    int rc = 0;
    if (!b->open)
        return 0;
    if (b->rule_seen && !b->named && b->first_line > 0) {
        char tmp[64];
        pyprof__snprintf_c(tmp, sizeof tmp, "<lines %lld-%lld>", (long long)b->first_line,
                           (long long)b->last_line);
        rc = flush_rows(r, tmp, strlen(tmp));
    }
    if (rc == 0 && b->func != PYPROF_NONE && !isnan(b->peak)) {
        pyprof_func *f = pyprof_profile_func_mut(r->p, b->func);
        if (b->peak > f->counts.cumtime)
            f->counts.cumtime = b->peak;
    }
    b->open = false;
    r->npending = 0;
    return rc;
}

static int
read_row(reader *r, const char *s, const char *end)
{
    block *b = &r->b;
    const char *t;
    size_t n;
    int64_t line;
    const char *p = s;
    if (!token(&p, end, &t, &n) || !to_int(t, n, &line))
        return bad(r, "a report row does not start with a line number");
    if (b->first_line == 0) {
        int rc = start_function(r, line);
        if (rc < 0)
            return rc;
    }
    b->last_line = line;
    /* numeric part: <mem> MiB <inc> MiB [<occ>] */
    const char *q = p, *t1, *t2, *t3, *t4;
    size_t n1, n2, n3, n4;
    double mem = NAN, inc = 0;
    int64_t occ = 0;
    const char *text = p;
    if (token(&q, end, &t1, &n1) && token(&q, end, &t2, &n2) && n2 == 3 &&
        memcmp(t2, "MiB", 3) == 0) {
        if (!to_num(t1, n1, &mem) || !token(&q, end, &t3, &n3) || !to_num(t3, n3, &inc) ||
            !token(&q, end, &t4, &n4) || n4 != 3 || memcmp(t4, "MiB", 3) != 0)
            return bad(r, "a report row has a malformed Mem usage or Increment field");
        if (b->occurrences) {
            const char *t5;
            size_t n5;
            if (!token(&q, end, &t5, &n5) || !to_int(t5, n5, &occ))
                return bad(r, "a report row has no Occurrences count");
        }
        text = q;
    }
    if (!isnan(mem)) {
        int rc = pyprof_profile_mem_sample_add(r->p, b->series, (double)line, mem);
        if (rc < 0)
            return rc;
        if (isnan(b->peak) || mem > b->peak)
            b->peak = mem;
    }
    if (b->named)
        return pyprof_profile_line_add(r->p, b->func, line, occ, inc);
    if (PYPROF_GROW(r->pending, r->pending_cap, r->npending + 1) < 0)
        return PYPROF_ENOMEM;
    r->pending[r->npending++] = (row){line, occ, inc};
    const char *name;
    size_t nlen;
    if (def_name(text, end, &name, &nlen))
        return flush_rows(r, name, nlen);
    return 0;
}

static int
read_line(reader *r, const char *s, size_t len)
{
    block *b = &r->b;
    const char *end = s + len;
    if (len >= 10 && memcmp(s, "Filename: ", 10) == 0) {
        int rc = end_block(r);
        if (rc < 0)
            return rc;
        if ((rc = pyprof_profile_intern_lossy(r->p, &r->file, s + 10, len - 10, 0)) < 0)
            return rc;
        r->have_file = true;
        return 0;
    }
    if (len >= sizeof HEADER - 1 && memcmp(s, HEADER, sizeof HEADER - 1) == 0) {
        int rc = end_block(r);
        if (rc < 0)
            return rc;
        memset(b, 0, sizeof(*b));
        b->open = true;
        b->file = r->have_file ? r->file : 0;
        b->func = PYPROF_NONE;
        b->occurrences = memmem(s, len, "Occurrences", 11) != NULL;
        if (b->occurrences)
            r->any_occ = true;
        else
            r->any_old = true;
        return 0;
    }
    if (!b->open)
        return 0; /* the program's own output */
    if (!b->rule_seen) {
        if (len > 0 && strspn(s, "=") == len) {
            b->rule_seen = true;
            r->blocks++;
            return 0;
        }
        return bad(r, "the report header is not followed by a '=' rule");
    }
    if (strspn(s, " \t") == len)
        return end_block(r);
    return read_row(r, s, end);
}

static int
memreport_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts,
               pyprof_error *err)
{
    (void)opts;
    reader r = {0};
    r.p = p;
    r.in = in;
    r.err = err;
    int rc;
    for (;;) {
        const char *line;
        size_t len;
        rc = pyprof_input_read_line(in, &line, &len, MAX_LINE, err);
        if (rc <= 0)
            break;
        if (len > 0 && line[len - 1] == '\r')
            len--;
        if ((rc = read_line(&r, line, len)) < 0)
            break;
    }
    if (rc == 0)
        rc = end_block(&r);
    if (rc == 0 && r.blocks == 0)
        rc = pyprof_input_error_line(in, err, PYPROF_EFORMAT, FMT, pyprof_input_line(in),
                                     "no memory_profiler report table in the file");
    if (rc == 0) {
        if ((rc = pyprof_profile_meta_set(p, "producer", "memory_profiler")) == 0 &&
            (rc = pyprof_profile_meta_set(p, "line_time_unit", "MiB")) == 0)
            rc = pyprof_profile_meta_set(p, "occurrences", r.any_old ? "no" : "yes");
    }
    if (rc == PYPROF_ENOMEM)
        rc = pyprof_input_error_line(in, err, rc, FMT, pyprof_input_line(in), "out of memory");
    pyprof__free(r.pending);
    return rc;
}

/* A "Filename: " line, a blank line and the table header, within the
 * first lines (program output may come before it). */
static int
memreport_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)at_eof;
    const char *s = (const char *)head, *end = s + len;
    const char *h = memmem(s, len, HEADER, sizeof HEADER - 1);
    if (!h)
        return 0;
    if (h != s && h[-1] != '\n')
        return 0;
    const char *f = memmem(s, (size_t)(h - s), "Filename: ", 10);
    const char *nl = memchr(h, '\n', (size_t)(end - h));
    bool rule = nl && nl + 1 < end && nl[1] == '=';
    if (f && rule)
        return 80;
    return f || rule ? 50 : 30;
}

const pyprof__format pyprof__format_memreport = {
    .name = "memreport",
    .aliases = "memory_profiler",
    .description = "memory_profiler @profile line-by-line text report",
    .probe = memreport_probe,
    .read = memreport_read,
};
