/*
 * t_mprofile_split.c - the mprofile reader's two-thread read of big files
 * (formats/mprofile_split.c) must give exactly the profile one pass gives:
 * the same samples (bit for bit, in order), series, brackets and metadata,
 * and the same errors with the same line numbers.  The split threshold is
 * lowered so that small files are split at every kind of boundary, with
 * every reason to fall back to one pass (FUNC, CHLD, CMDLINE, blank and
 * "\r\n" lines, numbers only strtod reads, errors, a last line without a
 * newline in the second half) and files whose first half holds more
 * samples than its lines per byte foresaw.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pyprof/pyprof.h>

#include "mprofile.h"
#include "profile_diff.h"
#include "tap.h"

#define TMP "t_mprofile_split.tmp"

typedef struct result {
    pyprof_profile *p;
    int rc;
    pyprof_error err;
    bool merged;
} result;

static result
load(bool split)
{
    result r = {.err = PYPROF_ERROR_INIT};
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "mprofile";
    uint64_t old = pyprof__mprofile_split_min(split ? 1 : UINT64_MAX);
    uint64_t merges = pyprof__mprofile_merges();
    r.rc = pyprof_profile_load(&r.p, TMP, &ro, &r.err);
    r.merged = pyprof__mprofile_merges() != merges;
    pyprof__mprofile_split_min(old);
    return r;
}

/* Empty when the summary the reader left for the plot (if any) is what
 * one pass over the samples finds, chunk by chunk, else what differs. */
static const char *
summary_difference(const pyprof_profile *p)
{
    const pyprof__mem_summary *s = pyprof__profile_mem_summary(p);
    size_t n = pyprof_profile_mem_sample_count(p);
    if (!s || n == 0)
        return n ? "no summary" : "";
    const pyprof_mem_sample *sm = pyprof_profile_mem_sample(p, 0);
    pyprof__mem_summary ref;
    pyprof__mem_summary_init(&ref, NULL, NULL, 0);
    pyprof__mem_summary_feed(&ref, sm, n);
    pyprof__mem_summary_finish(&ref);
    if (s->n != n || s->ordered != ref.ordered || s->nan != ref.nan)
        return "order or NaN";
    if (!tap_same_bits(s->lo, ref.lo) || !tap_same_bits(s->hi, ref.hi) || s->peak != ref.peak)
        return "bounds";
    if (!s->chunks)
        return "no chunks";
    /* every chunk of the reader's grid(s): its first lowest and highest */
    const size_t ch = PYPROF__MEM_CHUNK;
    size_t k = 0;
    for (size_t c0 = 0; c0 < n; k++) {
        size_t c1 = c0 < s->split ? (c0 + ch < s->split ? c0 + ch : s->split) : c0 + ch;
        c1 = c1 < n ? c1 : n;
        size_t il = c0, ih = c0;
        for (size_t i = c0 + 1; i < c1; i++) {
            il = sm[i].mib < sm[il].mib ? i : il;
            ih = sm[i].mib > sm[ih].mib ? i : ih;
        }
        if (k >= s->cap || s->chunk_lo[k] != il || s->chunk_hi[k] != ih)
            return "a chunk";
        c0 = c1;
    }
    return "";
}

/* Read TMP in one pass and split; both must agree.  `merge`: 1 = the
 * second half must have come from the other thread, 0 = must not, -1 =
 * either. */
static void
check(const char *name, int merge)
{
    result one = load(false), two = load(true);
    char buf[2400];
    const char *d = "";
    if (one.rc != two.rc) {
        d = "status";
    } else if (one.rc < 0) {
        if (strcmp(one.err.message, two.err.message) || one.err.line != two.err.line ||
            one.err.offset != two.err.offset) {
            snprintf(buf, sizeof buf, "error '%s' (line %lld) vs '%s' (line %lld)", one.err.message,
                     (long long)one.err.line, two.err.message, (long long)two.err.line);
            d = buf;
        }
    } else {
        d = profile_difference(one.p, two.p, buf, sizeof buf);
    }
    if (!TAP_OK(!*d, "%s: split read = one pass", name))
        tap_diag("differs: %s", d);
    TAP_OK(!one.merged, "%s: one pass took no second half", name);
    if (one.rc == 0 && two.rc == 0) {
        const char *d1 = summary_difference(one.p), *d2 = summary_difference(two.p);
        if (!TAP_OK(!*d1 && !*d2, "%s: the summaries for the plot are right", name))
            tap_diag("one pass: %s; split: %s", d1, d2);
    }
    if (merge >= 0)
        TAP_OK(two.merged == (merge == 1), "%s: second half %s", name,
               merge ? "from the other thread" : "read in one pass");
    pyprof_profile_free(one.p);
    pyprof_profile_free(two.p);
    pyprof_error_clear(&one.err);
    pyprof_error_clear(&two.err);
}

static void
check_str(const char *name, const char *text, int merge)
{
    tap_write_file(TMP, text, strlen(text));
    check(name, merge);
}

/* ---- generated files ------------------------------------------------------------------------ */

static unsigned long long rng = 12345;

static uint32_t
rnd(uint32_t n)
{
    return tap_rand(&rng) % n;
}

/* `lines` plain MEM lines (with `odd` put in at line `at` when not NULL),
 * after a CMDLINE; big enough (> 64 KiB) for the reader to foresee its
 * sample count when `lines` is. */
static void
gen(tap_buf *b, size_t lines, const char *odd, size_t at)
{
    char line[96];
    b->len = 0;
    tap_buf_puts(b, "CMDLINE python3 work.py\n");
    for (size_t i = 0; i < lines; i++) {
        if (odd && i == at)
            tap_buf_puts(b, odd);
        snprintf(line, sizeof line, "MEM %u.%06u %u.%04u\n", rnd(5000), rnd(1000000),
                 1700000000u + (unsigned)i / 10, rnd(10000));
        tap_buf_puts(b, line);
    }
    if (odd && at >= lines)
        tap_buf_puts(b, odd);
}

int
main(void)
{
    /* small files, every boundary */
    check_str("empty", "", 0);
    check_str("one line", "MEM 1.0 2.0\n", -1);
    check_str("two lines", "MEM 1.0 2.0\nMEM 3.0 4.0\n", 1);
    check_str("no newline at the end", "MEM 1.0 2.0\nMEM 3.0 4.0", 0);
    check_str("CMDLINE only", "CMDLINE x\n", -1);
    check_str("second half FUNC", "MEM 1.0 2.0\nMEM 1.0 2.0\nFUNC a.b 1.0 2.0 1.0 3.0 0\n", 0);
    check_str("second half CHLD", "MEM 1.0 2.0\nMEM 1.0 2.0\nCHLD 7 1.0 2.0\n", 0);
    check_str("second half blank", "MEM 1.0 2.0\nMEM 1.0 2.0\n\nMEM 1.0 2.0\n", 0);
    check_str("second half CRLF", "MEM 1.0 2.0\nMEM 1.0 2.0\r\nMEM 1.0 2.5\r\n", 0);
    check_str("second half exponent", "MEM 1.0 2.0\nMEM 1.0 2.0\nMEM 1e3 2.0\n", 0);
    check_str("second half error", "MEM 1.0 2.0\nMEM 1.0 2.0\nMEM 1.0 x\n", 0);
    check_str("first half error", "MEM 1.0 x\nMEM 1.0 2.0\nMEM 1.0 2.0\nMEM 1.0 2.0\n", 0);
    check_str("errors in both halves", "MEM x 2.0\nMEM 1.0 2.0\nMEM 1.0 2.0\nMEM 1.0 y\n", 0);

    /* big files: the sample count foreseen, halves joined */
    tap_buf b = {0};
    gen(&b, 20000, NULL, 0);
    tap_write_file(TMP, b.s, b.len);
    check("20,000 plain lines", 1);
    /* in time order, with plateaus (ties for the first lowest/highest),
     * at sizes around the chunk size and the split */
    static const size_t sizes[] = {20000, 20001, 20063, 20064, 20065, 25000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char line[96], name[96];
        b.len = 0;
        for (size_t i = 0; i < sizes[k]; i++) {
            snprintf(line, sizeof line, "MEM %u.%02u %zu.%04zu\n", 100 + (unsigned)(i / 700) % 9,
                     rnd(3) * 25, 1700000000 + i / 10000, i % 10000);
            tap_buf_puts(&b, line);
        }
        tap_write_file(TMP, b.s, b.len);
        snprintf(name, sizeof name, "%zu ordered lines", sizes[k]);
        check(name, 1);
    }
    /* an odd line anywhere, of each kind */
    static const char *const odd[] = {
        "FUNC m.f 10.0 1700000000.0 12.0 1700000001.0 0\n",
        "CHLD 42 3.5 1700000000.5\n",
        "\n",
        "MEM 1.0 1700000000.1234\r\n",
        "MEM 1.0e2 1700000000.5\n",
        "MEM 1.0 1700000000.5 extra\n",
        "garbage\n",
        "UNKNOWN_TAG 1 2\n",
    };
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
        size_t at[] = {0, 5000, 9999, 10000, 10001, 15000, 20000};
        for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {
            gen(&b, 20000, odd[k], at[j]);
            tap_write_file(TMP, b.s, b.len);
            char name[160];
            snprintf(name, sizeof name, "odd line %zu at %zu", k, at[j]);
            check(name, -1);
        }
    }
    /* a first window of long lines, then short ones: the first half holds
     * far more samples than foreseen (the second thread must be stopped) */
    b.len = 0;
    tap_buf_puts(&b, "CMDLINE x\n");
    for (int i = 0; i < 800; i++)
        tap_buf_puts(&b, "MEM 1234.567890123456 1700000000.123456789012 \n"); /* strtod path */
    for (int i = 0; i < 60000; i++)
        tap_buf_puts(&b, "MEM 1 2\n");
    tap_write_file(TMP, b.s, b.len);
    check("first half far denser than its first window", -1);
    /* the reverse: the second half denser than foreseen (it gives up) */
    b.len = 0;
    for (int i = 0; i < 30000; i++)
        tap_buf_puts(&b, "MEM 1234.567890 1700000000.1234\n");
    for (int i = 0; i < 150000; i++)
        tap_buf_puts(&b, "MEM 1 2\n");
    tap_write_file(TMP, b.s, b.len);
    check("second half far denser than foreseen", -1);
    free(b.s);
    remove(TMP);
    return tap_done();
}
