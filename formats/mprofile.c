/*
 * mprofile.c - reader for memory_profiler time series (`mprof run`):
 * mprofile_*.dat.  Spec: ../shared/docs/formats.md section 7.1-7.2.
 *
 * One record per line, fields separated by single spaces:
 *     CMDLINE <command line>
 *     MEM <MiB> <epoch s>
 *     CHLD <pid> <MiB> <epoch s>
 *     FUNC <module.func> <MiB in> <epoch s in> <MiB out> <epoch s out> [<level>]
 *
 * Model (pyprof/profile.h, memory timeline):
 *  - series 0 is the main process (child -1); its label is the command line,
 *    which is also the metadata "cmdline";
 *  - each CHLD pid gets its own series (child = pid, label "child <pid>"),
 *    in order of first appearance, as mprof groups them;
 *  - each FUNC line is one bracket on series 0 (level -1 when the line has
 *    no stack-depth field, i.e. memory_profiler < 0.56).
 * Samples keep file order: the two writers of a .dat (mprof and the
 * profiled child) buffer independently, so FUNC lines may precede CMDLINE
 * and MEM lines; consumers sort by time when they need to.
 *
 * Differences from mprof's own reader, on purpose: blank lines are skipped
 * (mprof aborts with "Sampling time was too short"), a trailing "\r" is
 * ignored, and a line that cannot be parsed is an error with its line
 * number instead of a Python traceback.  Unknown upper-case tags are
 * skipped, as mprof skips them, so newer writers stay readable.
 */
#include "config.h"

#include <math.h>

#include "pyprof_int.h"

#include "core/numparse.h"
#include "mprofile.h"

#define FMT "mprofile"

/* No real record comes near this; the bound keeps a file without newlines
 * from being read into memory whole. */
#define MAX_LINE (1u << 20)
/* Stack levels are recursion depths of @profile functions; anything above
 * this is corruption, and the flame layout allocates per level. */
#define MAX_LEVEL 100000

static void
child_map_free(child_map *m)
{
    pyprof__free(m->pid);
    pyprof__free(m->series);
}

static size_t
child_slot(const child_map *m, int64_t pid)
{
    size_t i = (size_t)pyprof__hash_mix(0, (uint64_t)pid) & (m->cap - 1);
    while (m->series[i] != PYPROF_NONE && m->pid[i] != pid)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int
child_map_grow(child_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    child_map n = {pyprof__reallocarray(NULL, ncap, sizeof(int64_t)),
                   pyprof__reallocarray(NULL, ncap, sizeof(pyprof_id)), ncap, m->used};
    if (!n.pid || !n.series) {
        child_map_free(&n);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < ncap; i++)
        n.series[i] = PYPROF_NONE;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->series[i] == PYPROF_NONE)
            continue;
        size_t j = child_slot(&n, m->pid[i]);
        n.pid[j] = m->pid[i];
        n.series[j] = m->series[i];
    }
    child_map_free(m);
    *m = n;
    return 0;
}

/* "FILE: line N: <TAG> line: <reason>" */
static int
bad_line(reader *r, const char *tag, const char *why)
{
    if (!tag)
        return pyprof_input_error_line(r->in, r->err, PYPROF_EFORMAT, FMT, r->line, "%s", why);
    return pyprof_input_error_line(r->in, r->err, PYPROF_EFORMAT, FMT, r->line, "%s line: %s", tag,
                                   why);
}

/* Split off the next space-separated field of [*s, end). */
static bool
next_field(const char **s, const char *end, const char **f, size_t *flen)
{
    const char *p = *s;
    while (p < end && *p == ' ')
        p++;
    if (p == end)
        return false;
    const char *q = p;
    while (q < end && *q != ' ')
        q++;
    *f = p;
    *flen = (size_t)(q - p);
    *s = q;
    return true;
}

/* Exact powers of ten: every one up to 1e22 is a double without rounding. */
static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A finite decimal number filling the whole field (Python's float() also
 * takes "nan"/"inf", which no writer produces and no plot can place).
 *
 * Speed matters here: a 10^6-sample file is 2 * 10^6 numbers, and strtod
 * was most of the reading time.  mprof writes "%.6f"/"%.4f", so the fast
 * path takes [+-]digits[.digits] with at most 15 significant digits: the
 * digits as an integer (exact below 2^53) divided by an exact power of ten
 * is one correctly rounded operation, the same double strtod returns
 * (Clinger's fast path).  Anything else goes to strtod. */
static bool
parse_number(const char *f, size_t len, double *out)
{
    size_t i = 0;
    bool neg = false;
    if (len > 0 && (f[0] == '-' || f[0] == '+')) {
        neg = f[0] == '-';
        i = 1;
    }
    uint64_t m = 0;
    int digits = 0, frac = 0;
    bool dot = false, any = false;
    for (; i < len; i++) {
        char c = f[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (m == 0 && c == '0') { /* leading zeros are not significant */
                frac += dot;
                continue;
            }
            if (++digits > 15)
                break;
            m = m * 10 + (uint64_t)(c - '0');
            frac += dot;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (i == len && any && digits <= 15 && frac <= 22) {
        double v = (double)m / POW10[frac];
        *out = neg ? -v : v;
        return true;
    }
    /* the general case: exponents, long mantissas, or not a number */
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, f, len);
    buf[len] = '\0';
    for (size_t k = 0; k < len; k++)
        if (!(buf[k] >= '0' && buf[k] <= '9') && !strchr("+-.eE", buf[k]))
            return false; /* strtod would take hex, "inf", "nan" */
    char *end;
    double v = pyprof__strtod_c(buf, &end);
    if (end != buf + len || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool
parse_int(const char *f, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (len > 0 && (f[0] == '-' || f[0] == '+')) {
        neg = f[0] == '-';
        i = 1;
    }
    if (i == len || len - i > 18)
        return false;
    int64_t v = 0;
    for (; i < len; i++) {
        if (f[i] < '0' || f[i] > '9')
            return false;
        v = v * 10 + (f[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* Read `n` numbers from the rest of the line; `what` names the record. */
static int
numbers(reader *r, const char **s, const char *end, double *v, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        /* the common case in one pass: at most 15 digits, as mprof writes */
        const char *p = *s, *q;
        while (p < end && *p == ' ')
            p++;
        if (pyprof__parse_decimal(p, end, &q, &v[i]) && (q == end || *q == ' ')) {
            *s = q;
            continue;
        }
        const char *f;
        size_t len;
        if (!next_field(s, end, &f, &len))
            return bad_line(r, what, "too few fields");
        if (!parse_number(f, len, &v[i]))
            return bad_line(r, what, "a field is not a number");
    }
    return 0;
}

static int
no_more_fields(reader *r, const char **s, const char *end, const char *what)
{
    const char *f;
    size_t len;
    if (next_field(s, end, &f, &len))
        return bad_line(r, what, "too many fields");
    return 0;
}

static int
read_mem(reader *r, const char *s, const char *end)
{
    double v[2];
    int rc;
    if ((rc = numbers(r, &s, end, v, 2, "MEM")) < 0 || (rc = no_more_fields(r, &s, end, "MEM")) < 0)
        return rc;
    pyprof__mprofile_will_hold(r, pyprof_profile_mem_sample_count(r->p) + 1);
    return pyprof_profile_mem_sample_add(r->p, 0, v[1], v[0]);
}

static int
read_chld(reader *r, const char *s, const char *end)
{
    const char *f;
    size_t len;
    int64_t pid;
    double v[2];
    int rc;
    if (!next_field(&s, end, &f, &len))
        return bad_line(r, "CHLD", "too few fields");
    if (!parse_int(f, len, &pid))
        return bad_line(r, "CHLD", "the child id is not an integer");
    if ((rc = numbers(r, &s, end, v, 2, "CHLD")) < 0 ||
        (rc = no_more_fields(r, &s, end, "CHLD")) < 0)
        return rc;

    if (2 * (r->children.used + 1) > r->children.cap && (rc = child_map_grow(&r->children)) < 0)
        return rc;
    size_t slot = child_slot(&r->children, pid);
    if (r->children.series[slot] == PYPROF_NONE) {
        char label[48];
        pyprof_id lab, sid;
        pyprof__snprintf_c(label, sizeof label, "child %lld", (long long)pid);
        if ((rc = pyprof_profile_intern(r->p, &lab, label, strlen(label))) < 0 ||
            (rc = pyprof_profile_mem_series_add(r->p, &sid, lab, pid,
                                                (pyprof_id)pyprof_profile_source_count(r->p))) < 0)
            return rc;
        r->children.pid[slot] = pid;
        r->children.series[slot] = sid;
        r->children.used++;
    }
    pyprof__mprofile_will_hold(r, pyprof_profile_mem_sample_count(r->p) + 1);
    return pyprof_profile_mem_sample_add(r->p, r->children.series[slot], v[1], v[0]);
}

static int
read_func(reader *r, const char *s, const char *end)
{
    const char *f;
    size_t len;
    double v[4];
    int rc;
    pyprof_mem_bracket b = {0};
    if (!next_field(&s, end, &f, &len))
        return bad_line(r, "FUNC", "too few fields");
    if ((rc = pyprof_profile_intern_lossy(r->p, &b.name, f, len, 0)) < 0)
        return rc;
    if ((rc = numbers(r, &s, end, v, 4, "FUNC")) < 0)
        return rc;
    b.series = 0;
    b.m0 = v[0];
    b.t0 = v[1];
    b.m1 = v[2];
    b.t1 = v[3];
    b.level = -1;
    if (next_field(&s, end, &f, &len)) {
        int64_t level;
        if (!parse_int(f, len, &level) || level < 0 || level > MAX_LEVEL)
            return bad_line(r, "FUNC", "the stack level is not a small non-negative integer");
        b.level = (int32_t)level;
        if ((rc = no_more_fields(r, &s, end, "FUNC")) < 0)
            return rc;
    }
    if (b.t1 < b.t0)
        return bad_line(r, "FUNC", "the function ends before it starts");
    return pyprof_profile_mem_bracket_add(r->p, &b);
}

static int
read_cmdline(reader *r, const char *s, const char *end)
{
    pyprof_id id;
    int rc = pyprof_profile_intern_lossy(r->p, &id, s, (size_t)(end - s), 0);
    if (rc < 0)
        return rc;
    pyprof_profile_mem_series_mut(r->p, 0)->label = id;
    return pyprof_profile_meta_set(r->p, "cmdline", pyprof_profile_string(r->p, id));
}

static bool
is_tag(const char *s, size_t len, const char *tag)
{
    size_t n = strlen(tag);
    return len > n && memcmp(s, tag, n) == 0 && s[n] == ' ';
}

/* An upper-case word and a space: a tag some future writer may add. */
static bool
unknown_tag(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && ((line[i] >= 'A' && line[i] <= 'Z') || line[i] == '_'))
        i++;
    return i > 0 && i < len && line[i] == ' ';
}

static int
read_record(reader *r, const char *line, size_t len)
{
    const char *end = line + len;
    if (is_tag(line, len, "MEM"))
        return read_mem(r, line + 4, end);
    if (is_tag(line, len, "FUNC"))
        return read_func(r, line + 5, end);
    if (is_tag(line, len, "CHLD"))
        return read_chld(r, line + 5, end);
    if (is_tag(line, len, "CMDLINE"))
        return read_cmdline(r, line + 8, end);
    if (len == 7 && memcmp(line, "CMDLINE", 7) == 0)
        return 0; /* an empty command line */
    /* An unknown tag of capitals, as a future writer might add, is skipped
     * (mprof ignores it too); anything else is not this format. */
    if (unknown_tag(line, len))
        return 1;
    return bad_line(r, NULL, "not an mprofile record (expected CMDLINE, MEM, FUNC or CHLD)");
}

/* One line, without its newline, by the general rules. */
static int
read_line(reader *r, const char *line, size_t len)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (r->line == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
        line += 3; /* a BOM, from an editor */
        len -= 3;
    }
    if (len == 0)
        return 0;
    int rc = read_record(r, line, len);
    if (rc == 0)
        r->records++;
    return rc < 0 ? rc : 0;
}

#define WINDOW PYPROF__MPROFILE_WINDOW /* see mprofile.h */
#define SLOTS  PYPROF__MPROFILE_SLOTS

void
pyprof__mprofile_summarize(reader *r)
{
    size_t n = pyprof_profile_mem_sample_count(r->p);
    if (!r->sum_on || n == r->sum.n)
        return;
    if (pyprof__mem_summary_reserve(&r->sum, n) < 0) {
        r->sum_on = false; /* the plot will make its own */
        return;
    }
    pyprof__mem_summary_feed(&r->sum, pyprof_profile_mem_sample(r->p, 0), n);
}

/* Every line up to the end of r->in, by the general rules. */
static int
read_lines(reader *r)
{
    /* plain MEM lines go straight into reserved model slots */
    pyprof_mem_sample *slot = NULL;
    size_t nslot = 0, used = 0;
    pyprof_profile *p = r->p;
    pyprof_input *in = r->in;
    int rc;
    size_t want = WINDOW;
    for (;;) {
        const unsigned char *data;
        size_t avail;
        if ((rc = pyprof_input_peek(in, want, &data, &avail, r->err)) < 0)
            goto out;
        bool eof = avail < want; /* peek stops short only at the end */
        const char *s = (const char *)data, *end = s + avail;
        while (s < end) {
            double mib, t;
            const char *next = pyprof__mprofile_plain_mem(&r->shape, s, end, &mib, &t);
            if (next) {
                r->line++;
                if (used == nslot) {
                    pyprof__profile_mem_samples_commit(p, used);
                    /* while the slots just filled are in cache */
                    pyprof__mprofile_summarize(r);
                    used = 0;
                    nslot = SLOTS;
                    pyprof__mprofile_will_hold(r, pyprof_profile_mem_sample_count(p) + nslot);
                    if (!(slot = pyprof__profile_mem_samples_reserve(p, nslot))) {
                        nslot = 0;
                        rc = PYPROF_ENOMEM;
                        goto out;
                    }
                }
                slot[used++] = (pyprof_mem_sample){0, t, mib};
                r->records++;
                s = next;
                continue;
            }
            /* anything else may add samples of its own, after these */
            pyprof__profile_mem_samples_commit(p, used);
            used = nslot = 0;
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            size_t len = (size_t)((nl ? nl : end) - s);
            if (len > MAX_LINE) {
                rc = pyprof_input_error_line(in, r->err, PYPROF_ELIMIT, NULL, r->line + 1,
                                             "line longer than %zu bytes", (size_t)MAX_LINE);
                goto out;
            }
            if (!nl && !eof)
                break; /* the rest of this line is not in the window yet */
            r->line++;
            if ((rc = read_line(r, s, len)) < 0)
                goto out;
            s = nl ? nl + 1 : end;
        }
        size_t taken = (size_t)(s - (const char *)data);
        pyprof_input_consume(in, taken);
        if (eof && s == end)
            break;
        /* a line longer than the window: widen it (up to MAX_LINE) */
        want = taken == 0 ? avail + WINDOW : WINDOW;
    }
    rc = 0;
out:
    pyprof__profile_mem_samples_commit(p, used); /* keep the model whole */
    if (rc == 0)
        pyprof__mprofile_summarize(r);
    return rc;
}

/* The first write to each page of the samples array traps into the
 * kernel: for a 10^6-sample file (24 MB of samples) 6,000 traps of 4 KiB,
 * each microseconds in a virtual machine, a fifth of the reading time.  A
 * big file's sample count is foreseeable from the lines of its first
 * window, so the array is sized for that once (which also saves growing
 * it) and asked to be backed by 2 MiB pages where the kernel allows them
 * (transparent huge pages in "madvise" mode, the usual default): a dozen
 * traps instead.  A helper thread that faulted the 4 KiB pages in ahead of
 * the reader (core/prefault.c) was slower: on two cores it took CPU from
 * the two halves' readers (mprofile_split.c), and while it held the
 * address space the second reader's thread could not start. */
static void
presize(reader *r)
{
    int64_t size = pyprof_input_file_size(r->in);
    const unsigned char *data;
    size_t avail;
    pyprof_error ignored = PYPROF_ERROR_INIT;
    if (size <= 0 || pyprof_input_is_compressed(r->in) ||
        pyprof_input_peek(r->in, WINDOW, &data, &avail, &ignored) < 0 || avail < WINDOW)
        return; /* small, or not a plain file: nothing to foresee */
    size_t lines = 0;
    for (const unsigned char *s = data, *end = data + avail;
         (s = memchr(s, '\n', (size_t)(end - s))) != NULL; s++)
        lines++;
    /* the first window's lines per byte, never more than the shortest
     * sample line, "MEM 0 0\n", allows; with a margin, and room for each
     * half's own margin should the file be split (mprofile_split.c) */
    r->per_byte = (double)lines / (double)avail;
    if (r->per_byte > 1.0 / 8)
        r->per_byte = 1.0 / 8;
    size_t n = (size_t)((double)size * r->per_byte * PYPROF__MPROFILE_MARGIN) + 2 * SLOTS;
    pyprof_mem_sample *spare = pyprof__profile_mem_samples_reserve(r->p, n);
    if (!spare)
        return; /* no memory now: growing as we go will say so */
    pyprof__advise_huge(spare, n * sizeof *spare);
}

static int
mprofile_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts,
              pyprof_error *err)
{
    (void)opts;
    reader r = {.p = p, .in = in, .err = err};
    pyprof__mem_summary_init(&r.sum, NULL, NULL, 0);
    /* the summary covers the whole array: only when this read fills it */
    r.sum_on = pyprof_profile_mem_sample_count(p) == 0;
    pyprof_id main_series;
    int rc = pyprof_profile_mem_series_add(p, &main_series, 0, -1,
                                           (pyprof_id)pyprof_profile_source_count(p));
    if (rc == 0)
        presize(&r);
    bool done = false;
    /* a big plain file: its second half on another thread (mprofile_split.c) */
    if (rc == 0)
        rc = pyprof__mprofile_read_split(&r, read_lines, &done);
    if (rc == 0 && !done)
        rc = read_lines(&r);
    if (rc == 0 && r.sum_on) {
        pyprof__mprofile_summarize(&r);
        if (r.sum_on) {
            pyprof__mem_summary_finish(&r.sum);
            pyprof__profile_mem_summary_set(p, &r.sum);
        }
    }
    pyprof__mem_summary_free(&r.sum);
    if (rc == 0 && r.records == 0)
        rc = pyprof_input_error_line(in, err, PYPROF_EFORMAT, FMT, r.line,
                                     "no CMDLINE, MEM, FUNC or CHLD record in the file");
    if (rc == PYPROF_ENOMEM)
        rc = pyprof_input_error_line(in, err, PYPROF_ENOMEM, FMT, r.line, "out of memory");
    child_map_free(&r.children);
    return rc;
}

/* Bid on the first lines: every complete non-empty line must be a record
 * of ours.  FUNC may come first (see above), so any known tag counts. */
static int
mprofile_probe(const unsigned char *head, size_t len, bool at_eof)
{
    const char *s = (const char *)head, *end = s + len;
    if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
        s += 3;
    int records = 0, data = 0;
    while (s < end && records < 32) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl && !at_eof)
            break; /* a cut line proves nothing either way */
        const char *e = nl ? nl : end;
        size_t n = (size_t)(e - s);
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (n > 0) {
            if (is_tag(s, n, "MEM") || is_tag(s, n, "FUNC") || is_tag(s, n, "CHLD"))
                data++;
            else if (!is_tag(s, n, "CMDLINE") && !(n == 7 && memcmp(s, "CMDLINE", 7) == 0) &&
                     !unknown_tag(s, n))
                return 0;
            records++;
        }
        s = nl ? nl + 1 : end;
    }
    if (data > 0)
        return 90;
    return records > 0 ? 60 : 0;
}

const pyprof__format pyprof__format_mprofile = {
    .name = "mprofile",
    .aliases = "mprof dat",
    .description = "memory_profiler time series (mprof run): mprofile_*.dat",
    .probe = mprofile_probe,
    .read = mprofile_read,
};
