/*
 * t_collapsed_split.c - the collapsed reader's two-thread read of big files
 * (formats/collapsed_split.c) must give exactly the profile one pass gives:
 * the same functions (ids, strings, frame shapes), nodes (ids, parents,
 * weights bit for bit), metadata (malformed line numbers, counters) and
 * errors.  The split threshold is lowered so that small files are split at
 * every kind of boundary: empty and one-line files, a middle inside the
 * first line or inside a line longer than the buffers, no newline after the
 * middle; and every reason to fall back to one pass (malformed lines,
 * non-ASCII frames, fractional counts, an error in the second half).
 */
#include "config.h"

#include <stdint.h>
#include <unistd.h>

#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

#include "collapsed.h"
#include "profile_diff.h"
#include "tap.h"

#define TMP "t_collapsed_split.tmp"

static uint64_t last_done;
static int64_t last_total;

static void
progress(void *payload, const char *name, uint64_t done, int64_t total)
{
    (void)payload;
    (void)name;
    last_done = done;
    last_total = total;
}

typedef struct result {
    pyprof_profile *p;
    int rc;
    pyprof_error err;
    bool merged;
    bool progress_done; /* the last progress report was "all read" */
} result;

static result
load(bool split, uint64_t max_bytes)
{
    result r = {.err = PYPROF_ERROR_INIT};
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "collapsed";
    ro.max_bytes = max_bytes;
    ro.progress = progress;
    last_done = 0;
    last_total = -2;
    uint64_t old = pyprof__collapsed_split_min(split ? 1 : UINT64_MAX);
    uint64_t merges = pyprof__collapsed_merges();
    r.rc = pyprof_profile_load(&r.p, TMP, &ro, &r.err);
    r.merged = pyprof__collapsed_merges() != merges;
    r.progress_done = last_total >= 0 && last_done == (uint64_t)last_total;
    pyprof__collapsed_split_min(old);
    return r;
}

/* Read TMP in one pass and split; both must agree.  `merge`: 1 = the
 * halves must have been merged, 0 = must not, -1 = either. */
static void
check(const char *name, int merge, uint64_t max_bytes)
{
    result one = load(false, max_bytes), two = load(true, max_bytes);
    char buf[2400];
    const char *d = "";
    if (one.rc != two.rc) {
        d = "status";
    } else if (one.rc < 0) {
        if (strcmp(one.err.message, two.err.message) || one.err.line != two.err.line ||
            one.err.offset != two.err.offset) {
            snprintf(buf, sizeof buf, "error '%s' (line %lld) vs '%s' (line %lld)",
                     one.err.message, (long long)one.err.line, two.err.message,
                     (long long)two.err.line);
            d = buf;
        }
    } else {
        d = profile_difference(one.p, two.p, buf, sizeof buf);
    }
    if (!TAP_OK(!*d, "%s: split read = one pass", name))
        tap_diag("differs: %s", d);
    TAP_OK(!one.merged, "%s: one pass did not merge", name);
    if (merge >= 0)
        TAP_OK(two.merged == (merge == 1), "%s: halves %s", name,
               merge ? "merged" : "not merged (one pass)");
    if (two.rc == 0)
        TAP_OK(two.progress_done == one.progress_done, "%s: progress ends as in one pass", name);
    pyprof_profile_free(one.p);
    pyprof_profile_free(two.p);
}

static void
check_str(const char *name, const char *text, int merge)
{
    tap_write_file(TMP, text, strlen(text));
    check(name, merge, 0);
}

/* ---- generated files ------------------------------------------------------------------------ */

static unsigned long long rng = 12345;

static uint32_t
rnd(uint32_t n)
{
    return tap_rand(&rng) % n;
}

/* `lines` random stacks over a few functions: repeats, shared prefixes,
 * stacks that are prefixes of others; frames shaped by `style`. */
static void
random_stacks(tap_buf *b, int lines, int style)
{
    static const char *names[] = {"main", "run", "loop", "work", "parse", "emit", "f", "g"};
    for (int i = 0; i < lines; i++) {
        int depth = 1 + (int)rnd(6);
        for (int d = 0; d < depth; d++) {
            char fr[64];
            const char *n = names[d == 0 ? 0 : rnd(8)];
            if (style == 1)
                snprintf(fr, sizeof fr, "%s (pkg/m%u.py:%u)", n, rnd(3), 1 + rnd(4));
            else if (style == 2)
                snprintf(fr, sizeof fr, "pkg/m%u.py:%s:%u", rnd(3), n, 1 + rnd(4));
            else
                snprintf(fr, sizeof fr, "%s", n);
            if (d)
                tap_buf_puts(b, ";");
            tap_buf_puts(b, fr);
        }
        char cnt[32];
        snprintf(cnt, sizeof cnt, " %u\n", 1 + rnd(9));
        tap_buf_puts(b, cnt);
    }
}

static void
check_buf(const char *name, tap_buf *b, int merge)
{
    tap_write_file(TMP, b->s, b->len);
    check(name, merge, 0);
    free(b->s);
    *b = (tap_buf){0};
}

static void
test_boundaries(void)
{
    check_str("empty file", "", 0);
    check_str("one line, no newline", "a;b 1", 0);
    check_str("one line", "a;b 1\n", 0);
    check_str("two lines", "a;b 1\nc;d 2\n", 1);
    check_str("two lines, the second a repeat", "a;b 1\na;b 2\n", 1);
    check_str("middle in the last line, no newline after it", "a 1\nb;c;d;e;f;g;h;i;j 1", 0);
    check_str("newlines only", "\n\n\n\n", -1);
    check_str("trailing semicolons and empty stacks", "a;b; 1\n;; 2\n 3\na;b;;c 4\n 5\na; 6\n",
              1);

    tap_buf b = {0};
    random_stacks(&b, 3000, 0);
    check_buf("random stacks", &b, 1);
    random_stacks(&b, 3000, 1);
    check_buf("random py-spy stacks", &b, 1);

    /* the first line is longer than half the file */
    for (int i = 0; i < 5000; i++)
        tap_buf_puts(&b, i ? ";frame" : "frame");
    tap_buf_puts(&b, " 7\na;b 1\nframe;x 2\n");
    check_buf("first line past the middle", &b, 1);

    /* the middle falls inside a line longer than the buffers (64 and 128 KiB) */
    random_stacks(&b, 200, 0);
    for (int i = 0; i < 60000; i++)
        tap_buf_puts(&b, ";deep");
    tap_buf_puts(&b, " 3\n");
    random_stacks(&b, 200, 0);
    check_buf("middle in a 360 KB line", &b, 1);

    /* frame shapes: one pass takes the first field-carrying shape in the
     * file, which the second half alone would choose differently */
    random_stacks(&b, 500, 2);
    random_stacks(&b, 500, 1);
    check_buf("shape of the first half kept", &b, 1);
    random_stacks(&b, 500, 0);
    random_stacks(&b, 500, 1);
    check_buf("shape first seen in the second half", &b, 1);

    /* Text that is not plain in the first half: the functions its reader
     * had given ids only (collapsed_names.c) are made when it is met, in
     * the order one pass makes them, and those after it at once; the
     * second half's are merged as ever */
    random_stacks(&b, 300, 1);
    tap_buf_puts(&b, "main (pkg/m0.py:1);caf\xC3\xA9 (pkg/\xC3\xA9.py:3);x\xFF (pkg/m1.py:2) 2\n");
    for (int i = 0; i < 300; i++) {
        char line[128];
        snprintf(line, sizeof line, "main (pkg/m0.py:1);late%d (pkg/late%d.py:%d) 1\n", i, i % 7,
                 i + 1);
        tap_buf_puts(&b, line);
    }
    random_stacks(&b, 1200, 1);
    check_buf("non-ASCII frames in the first half only", &b, 1);
}

static void
test_fallbacks(void)
{
    tap_buf b = {0};
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "not a stack\n");
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 1\nbad line\nx;y -3\n");
    check_buf("malformed lines in both halves: numbered as in one pass", &b, 0);

    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "not a stack\n");
    random_stacks(&b, 2000, 0);
    check_buf("a malformed line in the first half only", &b, 1);

    random_stacks(&b, 1000, 0);
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;caf\xC3\xA9;b 2\na;\xFF\xFE;b 1\n");
    check_buf("non-ASCII and invalid frames in the second half", &b, 0);

    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 0.5\n");
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 1.25\n");
    check_buf("fractional counts", &b, 0);

    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 99999999999999999\n");
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 99999999999999999\n");
    check_buf("counts too big to sum exactly", &b, 0);

    random_stacks(&b, 1000, 0);
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "(\xB5/\xFD;a 1\n\xEF\xBB\xBF" "a;b 2\n");
    check_buf("zstd magic and a BOM at line starts in the second half", &b, 0);

    /* an error in the second half is the error of one pass */
    random_stacks(&b, 1000, 0);
    random_stacks(&b, 1000, 0);
    for (int i = 0; i < 2000; i++)
        tap_buf_puts(&b, ";long");
    tap_buf_puts(&b, " 1\n");
    random_stacks(&b, 10, 0);
    tap_write_file(TMP, b.s, b.len);
    check("a line over --max-bytes in the second half", 0, 8192);
    free(b.s);
    b = (tap_buf){0};
}

static void
test_merged_kinds(void)
{
    tap_buf b = {0};
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 1\r\n\r\n\n");
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 2\r\n\n \n");
    check_buf("CRLF and blank lines in both halves", &b, 1);

    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;b 1 2\n");
    random_stacks(&b, 1000, 0);
    tap_buf_puts(&b, "a;c 3 4\n");
    check_buf("differential lines", &b, 1);

    /* austin files are never split (their lines depend on earlier ones) */
    tap_buf_puts(&b, "# austin: 3.6.0\n# mode: wall\n\n");
    for (int i = 0; i < 2000; i++)
        tap_buf_puts(&b, i % 2 ? "P1;T1:2;a.py:main:1;a.py:f:2 10\n" : "P1;T1:2;a.py:main:1 5\n");
    check_buf("austin", &b, 0);
}

/* threads = 1 in the read options: never split */
static void
test_one_thread_option(void)
{
    tap_buf b = {0};
    random_stacks(&b, 2000, 0);
    tap_write_file(TMP, b.s, b.len);
    free(b.s);
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "collapsed";
    ro.threads = 1;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    uint64_t old = pyprof__collapsed_split_min(1), merges = pyprof__collapsed_merges();
    int rc = pyprof_profile_load(&p, TMP, &ro, &err);
    TAP_OK(rc == 0 && pyprof__collapsed_merges() == merges, "threads = 1: read in one pass");
    ro.version = 1; /* before `threads` existed: the field is not looked at */
    pyprof_profile_free(p);
    rc = pyprof_profile_load(&p, TMP, &ro, &err);
    TAP_OK(rc == 0 && pyprof__collapsed_merges() == merges + 1,
           "version 1 options: threads as the reader sees fit");
    pyprof_profile_free(p);
    pyprof__collapsed_split_min(old);
}

int
main(void)
{
    test_boundaries();
    test_fallbacks();
    test_merged_kinds();
    test_one_thread_option();
    unlink(TMP);
    return tap_done();
}
