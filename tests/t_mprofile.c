/*
 * t_mprofile.c - the mprofile (.dat) and memreport (@profile text report)
 * readers: real files from `mprof run` and `python -m memory_profiler`
 * (tests/fixtures/mprofile/gen.sh), hand-written edge cases, malformed
 * lines, every truncation of a real file, and clean ENOMEM at every
 * allocation.
 */
#include "config.h"

#include "pyprof_int.h"
#include "tap.h"

static int
load(pyprof_profile **p, const char *rel, const char *format, pyprof_error *err)
{
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = format;
    pyprof_error_clear(err);
    return pyprof_profile_load(p, tap_fixture(rel), &o, err);
}

/* gen.sh's -M run: the first default-named file (golden/mem/names.txt). */
static const char *
child_fixture(void)
{
    static char rel[128];
    char path[4096];
    const char *top = getenv("top_srcdir");
    snprintf(path, sizeof path, "%s/tests/golden/mem/names.txt", top ? top : ".");
    FILE *f = fopen(path, "r");
    char name[100] = "missing";
    if (f) {
        if (fscanf(f, "%99s", name) != 1)
            strcpy(name, "missing");
        fclose(f);
    }
    snprintf(rel, sizeof rel, "mprofile/%s", name);
    return rel;
}

static size_t
count_series_samples(const pyprof_profile *p, pyprof_id s)
{
    size_t n = 0;
    for (size_t i = 0; i < pyprof_profile_mem_sample_count(p); i++)
        n += pyprof_profile_mem_sample(p, i)->series == s;
    return n;
}

static void
test_real(void)
{
    pyprof_profile *p;
    pyprof_error err;
    int rc = load(&p, "mprofile/run_python.dat", NULL, &err);
    if (!TAP_OK(rc == 0, "mprof run --python output reads (probed)"))
        return tap_diag("%s", err.message);
    TAP_OK(pyprof_profile_caps(p) & PYPROF_CAP_MEMORY, "caps: memory");
    TAP_IS_INT(pyprof_profile_mem_series_count(p), 1, "one series (no CHLD lines)");
    TAP_IS_STR(pyprof_profile_meta_get(p, "cmdline"), "/usr/bin/python3 workload.py",
               "CMDLINE as metadata");
    TAP_IS_STR(pyprof_profile_string(p, pyprof_profile_mem_series(p, 0)->label),
               "/usr/bin/python3 workload.py", "...and as the main series' label");
    TAP_IS_INT(pyprof_profile_mem_bracket_count(p), 4, "four FUNC lines (before CMDLINE)");
    /* the numbers of the file's own first FUNC and MEM lines */
    double m0, t0, m1, t1, mm, mt;
    char name[64], line[256];
    FILE *fp = fopen(tap_fixture("mprofile/run_python.dat"), "r");
    int got = 0;
    while (fp && fgets(line, sizeof line, fp)) {
        if (!(got & 1) && sscanf(line, "FUNC %63s %lf %lf %lf %lf", name, &m0, &t0, &m1, &t1) == 5)
            got |= 1;
        if (!(got & 2) && sscanf(line, "MEM %lf %lf", &mm, &mt) == 2)
            got |= 2;
    }
    if (fp)
        fclose(fp);
    const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, 0);
    TAP_OK(got == 3, "fixture has FUNC and MEM lines");
    TAP_IS_STR(pyprof_profile_string(p, b->name), name, "FUNC name");
    TAP_IS_INT(b->level, 1, "FUNC stack level (inner is nested in outer)");
    TAP_IS_DBL(b->m0, m0, 1e-9, "FUNC memory at entry");
    TAP_IS_DBL(b->t0, t0, 1e-6, "FUNC time at entry (memory before time)");
    TAP_IS_DBL(b->m1, m1, 1e-9, "FUNC memory at exit");
    TAP_IS_DBL(b->t1, t1, 1e-6, "FUNC time at exit");
    const pyprof_mem_sample *s = pyprof_profile_mem_sample(p, 0);
    TAP_IS_DBL(s->mib, mm, 1e-9, "first MEM: MiB");
    TAP_IS_DBL(s->t, mt, 1e-6, "first MEM: time");
    TAP_IS_STR(pyprof_profile_string(p, pyprof_profile_source(p, 0)->format), "mprofile",
               "source format recorded");
    pyprof_profile_free(p);

    rc = load(&p, child_fixture(), NULL, &err);
    TAP_OK(rc == 0, "mprof run -M output reads");
    TAP_IS_INT(pyprof_profile_mem_series_count(p), 2, "main + one child series");
    const pyprof_mem_series *c = pyprof_profile_mem_series(p, 1);
    char lab[64];
    snprintf(lab, sizeof lab, "child %lld", (long long)c->child);
    TAP_OK(c->child > 1, "child series keeps the pid");
    TAP_IS_STR(pyprof_profile_string(p, c->label), lab, "child label");
    TAP_OK(count_series_samples(p, 1) > 3, "child samples go to the child series");
    pyprof_profile_free(p);
}

static void
check_edge(pyprof_profile *p, const char *what)
{
    TAP_IS_INT(pyprof_profile_mem_series_count(p), 3, what);
    TAP_IS_INT(count_series_samples(p, 0), 4, "4 MEM samples, the trailing 0 one included");
    TAP_IS_DBL(pyprof_profile_mem_sample(p, 6)->mib, 0, 0, "trailing zero sample kept");
    TAP_IS_INT(pyprof_profile_mem_series(p, 1)->child, 42, "children in order of appearance");
    TAP_IS_INT(pyprof_profile_mem_series(p, 2)->child, 43, "second child");
    TAP_IS_INT(count_series_samples(p, 1), 2, "interleaved CHLD lines grouped by id");
    TAP_IS_INT(pyprof_profile_mem_bracket_count(p), 2, "two FUNC lines before CMDLINE");
    TAP_IS_INT(pyprof_profile_mem_bracket(p, 0)->level, -1, "5-field FUNC: level -1");
    TAP_IS_INT(pyprof_profile_mem_bracket(p, 1)->level, 1, "6-field FUNC: its level");
    TAP_IS_STR(pyprof_profile_meta_get(p, "cmdline"), "python prog.py 'arg with space'",
               "CMDLINE after FUNC still labels the file");
}

static void
test_edge(void)
{
    pyprof_profile *p;
    pyprof_error err;
    if (TAP_OK(load(&p, "mprofile/edge/func_first.dat", NULL, &err) == 0,
               "FUNC first, blank lines, unknown tag: reads")) {
        check_edge(p, "func_first.dat: three series");
        pyprof_profile_free(p);
    } else {
        tap_diag("%s", err.message);
    }
    if (TAP_OK(load(&p, "mprofile/edge/crlf.dat", NULL, &err) == 0, "CRLF line ends: reads")) {
        check_edge(p, "crlf.dat: three series");
        pyprof_profile_free(p);
    }
    TAP_OK(load(&p, "mprofile/edge/cmdline_only.dat", NULL, &err) == 0 &&
               !(pyprof_profile_caps(p) & PYPROF_CAP_MEMORY),
           "CMDLINE only: reads, with no timeline");
    pyprof_profile_free(p);

    static const struct {
        const char *file;
        int line;
        const char *reason;
    } bad[] = {
        {"bad_number.dat", 3, "MEM line: a field is not a number"},
        {"bad_tag.dat", 2, "not an mprofile record"},
        {"few_fields.dat", 1, "FUNC line: too few fields"},
        {"many_fields.dat", 2, "MEM line: too many fields"},
        {"bad_level.dat", 1, "stack level"},
        {"backwards.dat", 1, "ends before it starts"},
        {"chld_id.dat", 2, "child id is not an integer"},
        {"not_finite.dat", 2, "not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "mprofile/edge/%s", bad[i].file);
        int rc = load(&p, rel, "mprofile", &err);
        char msg[2048];
        pyprof_error_format(&err, msg, sizeof msg);
        char want[64];
        snprintf(want, sizeof want, "line %d: ", bad[i].line);
        if (!TAP_OK(rc == PYPROF_EFORMAT && strstr(msg, want) && strstr(msg, bad[i].reason) &&
                        strstr(msg, bad[i].file),
                    "%s: FILE: line %d: reason", bad[i].file, bad[i].line))
            tap_diag("got rc %d: %s", rc, msg);
    }
}

static void
test_probe(void)
{
    static const struct {
        const char *rel, *want;
    } cases[] = {
        {"mprofile/run_python.dat", "mprofile"},
        {"mprofile/edge/func_first.dat", "mprofile"},
        {"mprofile/report.txt", "memreport"},
        {"mprofile/edge/report_old.txt", "memreport"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pyprof_input *in;
        const char *name = NULL;
        pyprof_input_open_file(&in, tap_fixture(cases[i].rel), NULL);
        pyprof_format_probe(in, &name, NULL, NULL);
        TAP_IS_STR(name, cases[i].want, cases[i].rel);
        pyprof_input_close(in);
    }
    const char *junk = "hello world\nMEM 1 2\n";
    pyprof_input *in;
    const char *name = NULL;
    pyprof_input_open_memory(&in, junk, strlen(junk), "junk", NULL);
    pyprof_format_probe(in, &name, NULL, NULL);
    TAP_OK(!name || strcmp(name, "mprofile") != 0, "text with a foreign first line: not mprofile");
    pyprof_input_close(in);
}

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void
test_truncation(void)
{
    size_t len;
    char *data = slurp(tap_fixture("mprofile/run_python.dat"), &len);
    if (!TAP_OK(data != NULL, "fixture read"))
        return;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "mprofile";
    int ok = 1, errors = 0;
    for (size_t cut = 0; cut < len; cut++) {
        pyprof_input *in;
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof_input_open_memory(&in, data, cut, "cut.dat", NULL);
        int rc = pyprof_profile_read(&p, in, &o, &err);
        if (rc < 0) {
            errors++;
            if (rc != PYPROF_EFORMAT || (cut > 0 && err.line < 1)) {
                ok = 0;
                tap_diag("cut at %zu: rc %d, line %lld: %s", cut, rc, (long long)err.line,
                         err.message);
            }
        }
        pyprof_profile_free(p);
        pyprof_input_close(in);
    }
    TAP_OK(ok, "every truncation reads or fails with EFORMAT at a line");
    TAP_OK(errors > 0, "some truncations are detected (%d)", errors);
    /* a cut inside the last MEM record: "MEM 33.8" has no time */
    const char *cut = "CMDLINE x\nMEM 1.0 1700000000.0\nMEM 33.8";
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_input_open_memory(&in, cut, strlen(cut), "cut.dat", NULL);
    TAP_IS_INT(pyprof_profile_read(&p, in, &o, &err), PYPROF_EFORMAT, "cut record: EFORMAT");
    TAP_IS_INT(err.line, 3, "...at its line");
    pyprof_input_close(in);
    free(data);
}

static void
test_oom(void)
{
    size_t len;
    char *data = slurp(tap_fixture(child_fixture()), &len);
    if (!data)
        return;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    int ok = 1;
    long n;
    for (n = 0; n < 10000; n++) {
        pyprof_input *in = NULL;
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof__alloc_fail_after(n);
        int rc = pyprof_input_open_memory(&in, data, len, "oom.dat", NULL);
        if (rc == 0)
            rc = pyprof_profile_read(&p, in, &o, &err);
        pyprof__alloc_fail_after(-1);
        pyprof_profile_free(p);
        pyprof_input_close(in);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM) {
            ok = 0;
            tap_diag("allocation %ld: rc %d (%s)", n, rc, err.message);
        }
    }
    TAP_OK(ok && n > 0 && n < 10000, "OOM sweep: each of %ld failing allocations gives ENOMEM", n);
    free(data);
}

static void
test_memreport(void)
{
    pyprof_profile *p;
    pyprof_error err;
    int rc = load(&p, "mprofile/report.txt", NULL, &err);
    if (!TAP_OK(rc == 0, "@profile report reads (probed as memreport)"))
        return tap_diag("%s", err.message);
    TAP_IS_INT(pyprof_profile_func_count(p), 3, "one function per block");
    const pyprof_func *f = pyprof_profile_func(p, 0);
    TAP_IS_STR(pyprof_profile_string(p, f->name), "inner", "name from the def row");
    TAP_IS_STR(pyprof_profile_string(p, f->file), "workload.py", "file from Filename:");
    TAP_IS_INT(f->line, 15, "line = first row (the decorator)");
    TAP_IS_INT(f->counts.ncalls, 2, "calls = the decorator row's occurrences");
    /* row "    17   73.812 MiB   48.008 MiB           2       block = [0] * n" */
    double mem = 0, inc = 0;
    char row[256];
    FILE *fp = fopen(tap_fixture("mprofile/report.txt"), "r");
    while (fp && fgets(row, sizeof row, fp))
        if (sscanf(row, "    17 %lf MiB %lf MiB", &mem, &inc) == 2)
            break;
    if (fp)
        fclose(fp);
    TAP_IS_DBL(f->counts.cumtime, mem, 1e-9, "cumtime = the block's peak MiB");
    const pyprof_line_stat *ls = pyprof_profile_line(p, 2);
    TAP_IS_INT(ls->line, 17, "third row is line 17");
    TAP_IS_DBL(ls->time, inc, 1e-9, "line time = increment MiB");
    TAP_IS_INT(ls->hits, 2, "hits = occurrences");
    TAP_IS_INT(pyprof_profile_line(p, 1)->hits, 0, "a row never executed: 0 hits");
    TAP_IS_STR(pyprof_profile_meta_get(p, "line_time_unit"), "MiB", "meta: unit MiB");
    TAP_IS_STR(pyprof_profile_meta_get(p, "occurrences"), "yes", "meta: occurrences column");
    const pyprof_func *o = pyprof_profile_func(p, 1);
    int neg = 0;
    for (size_t i = 0; i < pyprof_profile_line_count(p); i++) {
        const pyprof_line_stat *l = pyprof_profile_line(p, i);
        neg |= l->func == 1 && l->time < 0;
    }
    TAP_OK(o && neg, "negative increments kept");
    pyprof_profile_free(p);

    rc = load(&p, "mprofile/edge/report_old.txt", NULL, &err);
    TAP_OK(rc == 0, "pre-0.58 report (no Occurrences column) reads");
    if (rc == 0) {
        TAP_IS_STR(pyprof_profile_string(p, pyprof_profile_func(p, 0)->name), "work",
                   "old report: function name");
        TAP_IS_INT(pyprof_profile_line_count(p), 4, "old report: four rows");
        TAP_IS_DBL(pyprof_profile_line(p, 3)->time, -40.0, 1e-9, "old report: increment");
        TAP_IS_STR(pyprof_profile_meta_get(p, "occurrences"), "no", "meta: no occurrences");
        pyprof_profile_free(p);
    }

    const char *corpus = getenv("PYPROF_CORPUS");
    char path[4096];
    snprintf(path, sizeof path, "%s/mprofile/memory_profiler_line_report/expected/line_report.txt",
             corpus ? corpus : "/nonexistent");
    FILE *cf = fopen(path, "rb");
    if (!cf) {
        printf("ok %d # SKIP corpus absent\n", ++tap_count);
        return;
    }
    fclose(cf);
    rc = pyprof_profile_load(&p, path, NULL, &err);
    TAP_OK(rc == 0 && pyprof_profile_func_count(p) == 4,
           "corpus report (program output before it) reads: 4 functions");
    pyprof_profile_free(p);
}

/* The mprofile text [buf, buf + len) reads as exactly the n samples
 * want[2i] MiB at want[2i + 1] s (bit for bit). */
static bool
reads_as(const char *buf, size_t len, const double *want, size_t n)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "mprofile";
    pyprof_input_open_memory(&in, buf, len, "numbers.dat", NULL);
    int rc = pyprof_profile_read(&p, in, &o, NULL);
    bool same = rc == 0 && pyprof_profile_mem_sample_count(p) == n;
    for (size_t i = 0; same && i < n; i++) {
        const pyprof_mem_sample *s = pyprof_profile_mem_sample(p, i);
        same = s->mib == want[2 * i] && s->t == want[2 * i + 1];
        if (!same)
            tap_diag("sample %zu: %.17g %.17g, want %.17g %.17g", i, s->mib, s->t, want[2 * i],
                     want[2 * i + 1]);
    }
    pyprof_profile_free(p);
    pyprof_input_close(in);
    return same;
}

/* Lines read by the shape of the line before (formats/mprofile_line.h):
 * runs of lines of one shape whose widths change now and then (9.99 ->
 * 10.00, 99999 s -> 100000 s) and lines of other shapes inside a run (a
 * sign, CRLF, more digits, an exponent) give strtod's numbers; a line of
 * the same shape with a wrong byte in place of any digit is refused at its
 * own line. */
static void
test_shapes(void)
{
    size_t cap = 8 << 20, len = 0, k = 0;
    char *buf = malloc(cap);
    double *want = malloc(2 * 60000 * sizeof(double));
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    double mib = 9.5, t = 99990.0;
    for (int i = 0; i < 60000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* slow drifts across digit counts, both ways */
        mib += (double)(x % 2001) / 1000.0 - 1.0;
        if (mib < 0.5 || mib > 250000)
            mib = 9.5;
        t += (double)(x % 97) / 10.0;
        char a[64], b[64];
        int kind = (int)((x >> 20) % 50);
        snprintf(a, sizeof a, "%.6f", kind == 1 ? -mib : mib);
        snprintf(b, sizeof b, kind == 2 ? "%.6f" : "%.4f", kind == 3 ? t * 1e6 : t);
        want[k++] = strtod(a, NULL);
        want[k++] = strtod(b, NULL);
        len += (size_t)snprintf(buf + len, cap - len,
                                kind == 4   ? "MEM %s %s\r\n"
                                : kind == 5 ? "MEM %se0 %s\n"
                                            : "MEM %s %s\n",
                                a, b);
    }
    TAP_OK(reads_as(buf, len, want, k / 2),
           "%zu MEM lines in runs of one shape, widths drifting: every number is strtod's",
           k / 2);
    pyprof_input *in;
    pyprof_profile *p;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "mprofile";
    int rc;

    /* line 4 as lines 1-3 and 5-7, but for one wrong byte where a digit was */
    static const char good[] = "MEM 12.345678 1700000000.1234\n";
    int refused = 0, tried = 0;
    for (size_t at = 4; at < sizeof good - 2; at++) {
        if (good[at] < '0' || good[at] > '9')
            continue;
        for (const char *c = "x/:-"; *c; c++) {
            if (*c == '-' && good[at - 1] == ' ')
                continue; /* a sign where a number starts is fine */
            len = 0;
            for (int l = 1; l <= 7; l++)
                len += (size_t)snprintf(buf + len, cap - len, "%s", good);
            buf[3 * (sizeof good - 1) + at] = *c;
            pyprof_error err = PYPROF_ERROR_INIT;
            p = NULL;
            pyprof_input_open_memory(&in, buf, len, "shapes.dat", NULL);
            rc = pyprof_profile_read(&p, in, &o, &err);
            tried++;
            refused += rc < 0 && err.line == 4;
            pyprof_error_clear(&err);
            pyprof_profile_free(p);
            pyprof_input_close(in);
        }
    }
    TAP_OK(refused == tried && tried == 4 * 22 - 2,
           "a wrong byte for any digit of a shaped line: refused at line 4 (%d of %d)", refused,
           tried);
    free(want);
    free(buf);
}

/* The reader's fast path for mprof's "%.6f"/"%.4f" numbers must give the
 * very double strtod gives (correct rounding), for every shape of number. */
static void
test_numbers(void)
{
    char *buf = malloc(4 << 20);
    double *want = malloc(2 * 40000 * sizeof(double));
    size_t len = 0, k = 0;
    unsigned long long x = 88172645463325252ull;
    for (int i = 0; i < 40000; i++) {
        /* xorshift: reproducible values of many magnitudes */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double mib = (double)(x % 100000000000ull) / pow(10, (double)(x % 9));
        double t = 1.7e9 + (double)(x % 1000000000ull) / 1e4;
        char a[64], b[64];
        double v = (i & 64) ? -mib : mib;
        switch (i % 6) {
        case 0:
            snprintf(a, sizeof a, "%.6f", v);
            break;
        case 1:
            snprintf(a, sizeof a, "%.4f", v);
            break;
        case 2:
            snprintf(a, sizeof a, "%.15g", v);
            break;
        case 3:
            snprintf(a, sizeof a, "%.17g", v);
            break;
        case 4:
            snprintf(a, sizeof a, "%g", v);
            break;
        default:
            snprintf(a, sizeof a, "%.1f", v);
            break;
        }
        snprintf(b, sizeof b, "%.4f", t);
        want[k++] = strtod(a, NULL);
        want[k++] = strtod(b, NULL);
        /* the reader's in-place path takes plain "MEM a b\n" lines; CRLF,
         * extra spaces and other records between them take the general
         * one, and 40000 lines cross many of its 64 KiB windows */
        if (i % 17 == 3)
            len += (size_t)snprintf(buf + len, (4 << 20) - len, "CMDLINE python x%d.py\n\n", i);
        if (i % 5 == 1)
            len += (size_t)snprintf(buf + len, (4 << 20) - len, "MEM %s %s\r\n", a, b);
        else if (i % 13 == 2)
            len += (size_t)snprintf(buf + len, (4 << 20) - len, "MEM  %s   %s \n", a, b);
        else
            len += (size_t)snprintf(buf + len, (4 << 20) - len, "MEM %s %s\n", a, b);
    }
    TAP_OK(reads_as(buf, len, want, k / 2),
           "40000 MEM lines of mixed shapes: every number is exactly strtod's");

    /* a bad line far into the file is reported with its own line number */
    pyprof_input *in;
    pyprof_profile *p;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "mprofile";
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    len += (size_t)snprintf(buf + len, (4 << 20) - len, "MEM 1.5 17OO\nMEM 1 2\n");
    pyprof_error err = PYPROF_ERROR_INIT;
    p = NULL;
    pyprof_input_open_memory(&in, buf, len, "numbers.dat", NULL);
    int rc = pyprof_profile_read(&p, in, &o, &err);
    TAP_OK(rc == PYPROF_EFORMAT && err.line == (int64_t)lines + 1 &&
               strstr(err.message, "MEM line: a field is not a number"),
           "a bad number on line %zu is reported there (%lld: %s)", lines + 1, (long long)err.line,
           err.message);
    pyprof_profile_free(p);
    pyprof_input_close(in);
    free(buf);
    free(want);
}

int
main(void)
{
    test_real();
    test_edge();
    test_probe();
    test_truncation();
    test_oom();
    test_numbers();
    test_shapes();
    test_memreport();
    return tap_done();
}
