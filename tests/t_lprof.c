/*
 * t_lprof.c - the lprof reader's model, the probe, merging, the report's
 * options, and the source-block rules against Python's inspect.getblock.
 */
#include "config.h"

#include <stdio.h>

#include <pyprof/pyprof.h>

#include "lines_int.h"
#include "tap.h"

static const char *srcdir;

static pyprof_profile *
load_fixture(const char *name)
{
    char path[4096];
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    snprintf(path, sizeof(path), "%s/tests/fixtures/lprof/%s", srcdir, name);
    if (pyprof_profile_load(&p, path, NULL, &err) < 0)
        tap_diag("  %s: %s", name, err.message);
    return p;
}

static pyprof_profile *
load_bytes(const char *bytes, size_t len, pyprof_error *err)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "lprof";
    pyprof_error_clear(err);
    if (pyprof_input_open_memory(&in, bytes, len, "mem", err) < 0)
        return NULL;
    pyprof_profile_read(&p, in, &ro, err);
    pyprof_input_close(in);
    return p;
}

static pyprof_id
find_func(const pyprof_profile *p, const char *name)
{
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++)
        if (strcmp(pyprof_profile_string(p, pyprof_profile_func(p, (pyprof_id)i)->name), name) == 0)
            return (pyprof_id)i;
    return PYPROF_NONE;
}

/* The model of the real kernprof fixture. */
static void
test_model(void)
{
    pyprof_profile *p = load_fixture("kernprof_py311.lprof");
    if (!TAP_OK(p, "kernprof_py311.lprof loads"))
        return;
    TAP_IS_INT(pyprof_profile_func_count(p), 7, "seven profiled functions");
    TAP_IS_DBL(pyprof_profile_line_unit(p), 1e-9, 0, "timer unit 1e-9");
    TAP_OK(pyprof_profile_caps(p) & PYPROF_CAP_LINES, "caps include lines");
    TAP_OK(strcmp(pyprof_profile_meta_get(p, "producer"), "line_profiler") == 0, "producer");
    TAP_OK(strcmp(pyprof_profile_meta_get(p, "lprof_class"),
                  "line_profiler._line_profiler.LineStats") == 0,
           "class path recorded");
    bool flags = true, totals = true;
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        flags &= (f->flags & PYPROF_FUNC_LINES) != 0;
        double sum = 0;
        for (size_t k = 0; k < pyprof_profile_line_count(p); k++)
            if (pyprof_profile_line(p, k)->func == i)
                sum += pyprof_profile_line(p, k)->time;
        totals &= f->counts.tottime == sum * 1e-9 && f->counts.cumtime == f->counts.tottime &&
                  f->counts.ncalls == 0;
    }
    TAP_OK(flags, "every function has PYPROF_FUNC_LINES");
    TAP_OK(totals, "tottime = cumtime = sum of line times x unit; ncalls 0 (unknown)");
    pyprof_id never = find_func(p, "never_called");
    size_t never_lines = 0;
    for (size_t k = 0; k < pyprof_profile_line_count(p); k++)
        never_lines += pyprof_profile_line(p, k)->func == never;
    TAP_OK(never != PYPROF_NONE && never_lines == 0, "a never-called function has no lines");
    pyprof_id loops = find_func(p, "loops");
    TAP_OK(loops == 0 && pyprof_profile_func(p, loops)->line == 8 &&
               strcmp(pyprof_profile_string(p, pyprof_profile_func(p, loops)->file),
                      "workload.py") == 0,
           "first key: (workload.py, 8, loops)");
    pyprof_profile_free(p);

    /* the same data through Python 2 byte strings and the 5.0.1 class path */
    p = load_fixture("py27_p2.lprof");
    TAP_OK(p && find_func(p, "loops") != PYPROF_NONE && pyprof_profile_func_count(p) == 7 &&
               strcmp(pyprof_profile_meta_get(p, "lprof_class"), "_line_profiler.LineStats") == 0,
           "Python 2.7 protocol 2 (_line_profiler.LineStats, byte strings)");
    pyprof_profile_free(p);
    p = load_fixture("py313_p5_501.lprof");
    TAP_OK(p && find_func(p, "Counter.bump") != PYPROF_NONE &&
               strcmp(pyprof_profile_meta_get(p, "lprof_class"),
                      "line_profiler.line_profiler.LineStats") == 0,
           "line_profiler 5.0.1 class path, qualnames");
    pyprof_profile_free(p);
}

static void
test_probe(void)
{
    static const struct {
        const char *file;
        int score;
    } cases[] = {{"kernprof_py311.lprof", 100}, {"py311_p0.lprof", 90}, {"py311_p1.lprof", 90},
                 {"py311_p2.lprof", 100},       {"py27_p0.lprof", 90},  {"py36_p4.lprof", 100}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[4096];
        pyprof_input *in;
        const char *name = NULL;
        int score = 0;
        pyprof_error err = PYPROF_ERROR_INIT;
        snprintf(path, sizeof(path), "%s/tests/fixtures/lprof/%s", srcdir, cases[i].file);
        if (pyprof_input_open_file(&in, path, &err) == 0) {
            pyprof_format_probe(in, &name, &score, &err);
            pyprof_input_close(in);
        }
        TAP_OK(name && strcmp(name, "lprof") == 0 && score == cases[i].score,
               "probe %s: lprof, %d (got %s, %d)", cases[i].file, cases[i].score,
               name ? name : "none", score);
    }
    /* another pickle: not ours, and the message says what it is */
    static const char other[] = "\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00]\x94K\x01"
                                "a.";
    pyprof_input *in;
    const char *name = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_input_open_memory(&in, other, sizeof(other) - 1, "x.pkl", &err);
    int rc = pyprof_format_probe(in, &name, NULL, &err);
    pyprof_input_close(in);
    TAP_OK(rc == PYPROF_EFORMAT && !name && strstr(err.message, "pickle"),
           "a pickle of something else is not taken (%s)", err.message);
}

/* Hand-made LineStats pickles for the reader's own checks. */
#define HEAD                                                                                       \
    "\x80\x02"                                                                                     \
    "c_line_profiler\nLineStats\n)\x81"
#define KEY(name) "(U\x04w.pyK\x01U\x01" name "t"

static void
test_reader_rules(void)
{
    pyprof_error err;
    /* the same key twice: Python's dict keeps the first place, the last value */
    static const char dup[] = HEAD "}(U\x07timings}(" KEY(
        "f") "](K\x01K\x01K\x05\x87K\x02K\x01K\x06\x87"
             "e" KEY("g") "]" KEY("f") "](K\x03K\x02K\x07\x87"
                                       "euU\x04unitG\x3e\x11\x2e\x0b\xe8\x26\xd6\x95ub.";
    pyprof_profile *p = load_bytes(dup, sizeof(dup) - 1, &err);
    bool ok = p && pyprof_profile_func_count(p) == 2 && find_func(p, "f") == 0 &&
              pyprof_profile_line_count(p) == 1 && pyprof_profile_line(p, 0)->line == 3 &&
              pyprof_profile_line(p, 0)->hits == 2;
    if (!TAP_OK(ok, "a repeated key: first position, last value"))
        tap_diag("  %s", err.message);
    pyprof_profile_free(p);

    static const struct {
        const char *what, *bytes;
        size_t len;
        const char *needle;
    } bad[] = {
#define C(w, b, n) {w, b, sizeof(b) - 1, n}
        C("not a LineStats", "\x80\x02}.", "not a LineStats"),
        C("no unit", HEAD "}(U\x07timings}ub.", "'unit'"),
        C("no timings", HEAD "}(U\x04unitG\x3f\xf0\x00\x00\x00\x00\x00\x00ub.", "'timings'"),
        C("timings not a dict", HEAD "}(U\x07timings]U\x04unitK\x01ub.", "not a dict"),
        C("a bad key", HEAD "}(U\x07timings}(K\x01]uU\x04unitK\x01ub.", "key"),
        C("a bad entry",
          HEAD "}(U\x07timings}(" KEY("f") "](K\x01K\x02\x86"
                                           "euU\x04unitK\x01ub.",
          "line entry"),
        C("unit 0", HEAD "}(U\x07timings}U\x04unitK\x00ub.", "unit"),
#undef C
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        p = load_bytes(bad[i].bytes, bad[i].len, &err);
        if (!TAP_OK(!p && err.code == PYPROF_EFORMAT && strstr(err.message, bad[i].needle) &&
                        err.offset >= 0,
                    "refused: %s", bad[i].what))
            tap_diag("  code %d offset %lld: %s", err.code, (long long)err.offset, err.message);
        pyprof_profile_free(p);
    }
}

static char *
render(const pyprof_profile *p, const pyprof_lines_options *o, int which)
{
    pyprof_output *out;
    pyprof_error err = PYPROF_ERROR_INIT;
    size_t n;
    pyprof_output_open_memory(&out, &err);
    int rc = which == 0   ? pyprof_render_lines(p, out, o, &err)
             : which == 1 ? pyprof_lines_write_json(p, out, &err)
                          : pyprof_lines_write_csv(p, out, &err);
    const unsigned char *d = pyprof_output_data(out, &n);
    char *s = rc == 0 ? strndup((const char *)d, n) : NULL;
    if (rc < 0)
        tap_diag("  render: %s", err.message);
    pyprof_output_abort(out);
    return s;
}

static bool
starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static void
test_merge_and_options(void)
{
    pyprof_profile *a = load_fixture("kernprof_py311.lprof");
    pyprof_profile *b = load_fixture("py311_p0.lprof");
    pyprof_error err = PYPROF_ERROR_INIT;
    if (!TAP_OK(a && b && pyprof_profile_merge(a, b, &err) == 0, "merge two lprof files"))
        return;
    pyprof_lines_options o = PYPROF_LINES_OPTIONS_INIT;
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/lprof", srcdir);
    const char *roots[] = {dir};
    o.source_roots = roots;
    o.nsource_roots = 1;
    char *text = render(a, &o, 0);
    /* loops line 15 ran 200 times per file */
    TAP_OK(text && strstr(text, "\n    15       400 "), "merged hits are summed per line");
    TAP_OK(text && strstr(text, "Function: loops at line 8\n") &&
               !strstr(strstr(text, "Function: loops") + 1, "Function: loops"),
           "a merged function appears once");
    free(text);
    pyprof_profile_free(b);

    /* units: a profile in 1e-6 merged into one in 1e-9 keeps 1e-9 */
    pyprof_profile *u = NULL;
    pyprof_profile_new(&u);
    pyprof_id file, name, f;
    pyprof_profile_intern(u, &file, "workload.py", 11);
    pyprof_profile_intern(u, &name, "loops", 5);
    pyprof_profile_func_intern(u, &f, file, 8, name, PYPROF_FUNC_LINES, NULL);
    pyprof_profile_set_line_unit(u, 1e-6);
    pyprof_profile_line_add(u, f, 14, 1, 2.0); /* 2 us */
    pyprof_profile_func_mut(u, f)->counts.tottime = 2e-6;
    pyprof_profile *c = load_fixture("kernprof_py311.lprof");
    double before = pyprof_profile_func(c, 0)->counts.tottime;
    TAP_OK(pyprof_profile_merge(c, u, &err) == 0 && pyprof_profile_line_unit(c) == 1e-9,
           "merging 1e-6 into 1e-9 keeps 1e-9");
    double t14 = 0;
    for (size_t k = 0; k < pyprof_profile_line_count(c); k++) {
        const pyprof_line_stat *l = pyprof_profile_line(c, k);
        if (l->func == 0 && l->line == 14)
            t14 += l->time;
    }
    TAP_OK(fabs(pyprof_profile_func(c, 0)->counts.tottime - (before + 2e-6)) < 1e-15 && t14 > 2000,
           "times rescaled: 2 us become 2000 ns (line 14 now %.0f)", t14);
    pyprof_profile_free(u);
    pyprof_profile_free(c);

    /* -t: ascending total time, ties (never_called: 0) first; -m summary */
    o.sort_by_time = 1;
    o.summarize = 1;
    o.skip_zero = 1;
    text = render(a, &o, 0);
    bool sorted = text != NULL;
    double prev = -1;
    for (const char *s = text; sorted && (s = strstr(s, "Total time: ")); s++) {
        double t = strtod(s + 12, NULL);
        sorted = t >= prev;
        prev = t;
    }
    TAP_OK(sorted, "-t orders functions by ascending total time");
    TAP_OK(text && !strstr(text, "never_called"), "-z leaves out zero-time functions");
    const char *sum = text ? strstr(text, " seconds - workload.py:8 - loops\n") : NULL;
    TAP_OK(sum && sum - text >= 6 && sum[-7] == '\n',
           "-m summary line \"%%6.2f seconds - F:N - NAME\"");
    free(text);

    o = (pyprof_lines_options)PYPROF_LINES_OPTIONS_INIT;
    o.output_unit = -1;
    pyprof_output *out;
    pyprof_output_open_memory(&out, &err);
    TAP_OK(pyprof_render_lines(a, out, &o, &err) == PYPROF_EINVAL, "a negative unit is EINVAL");
    pyprof_output_abort(out);

    /* JSON and CSV carry the same numbers */
    text = render(a, NULL, 1);
    TAP_OK(starts_with(text, "{\"unit\": 1e-09, \"functions\": [\n  {\"file\": \"workload.py\", "
                             "\"line\": 8, \"name\": \"loops\", \"total_time\": "),
           "JSON layout");
    free(text);
    text = render(a, NULL, 2);
    TAP_OK(starts_with(text, "file,function,first_line,line,hits,time_s,time_per_hit_s\n"
                             "workload.py,loops,8,14,2,"),
           "CSV layout");
    free(text);
    pyprof_profile_free(a);

    /* a profile without line timings */
    pyprof_profile *empty = NULL;
    pyprof_profile_new(&empty);
    pyprof_output_open_memory(&out, &err);
    TAP_OK(pyprof_render_lines(empty, out, NULL, &err) == PYPROF_ECAPS, "no line timings: ECAPS");
    pyprof_output_abort(out);
    pyprof_profile_free(empty);
}

/* The block of every def/class/decorator line, as Python 3.11 computed it. */
static void
test_blocks(void)
{
    char path[4096], line[4096];
    snprintf(path, sizeof(path), "%s/tests/golden/lprof/blocks.tsv", srcdir);
    FILE *f = fopen(path, "r");
    if (!TAP_OK(f != NULL, "read blocks.tsv"))
        return;
    pyprof__src_cache *cache;
    pyprof__src_cache_new(&cache, NULL, 0);
    size_t n = 0, bad = 0;
    pyprof_id ids = 0;
    char last[256] = "";
    const pyprof__src *src = NULL;
    while (fgets(line, sizeof(line), f)) {
        char file[256];
        unsigned long row, want;
        if (sscanf(line, "%255[^\t]\t%lu\t%lu", file, &row, &want) != 3)
            continue;
        if (strcmp(file, last) != 0) {
            snprintf(path, sizeof(path), "%s/tests/fixtures/lprof/%s", srcdir, file);
            pyprof__src_get(cache, ids++, path, &src);
            snprintf(last, sizeof(last), "%s", file);
        }
        size_t got = pyprof__src_block(src, row - 1);
        n++;
        if (got != want && bad++ < 5)
            tap_diag("  %s:%lu: block of %zu lines, Python says %lu", file, row, got, want);
    }
    fclose(f);
    pyprof__src_cache_free(cache);
    TAP_OK(n > 20 && bad == 0, "%zu source blocks agree with inspect.getblock", n);
}

/* The report, failing each allocation in turn: ENOMEM each time, no leak. */
static void
test_render_oom(void)
{
    pyprof_profile *p = load_fixture("kernprof_py311.lprof");
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/lprof", srcdir);
    const char *roots[] = {dir};
    pyprof_lines_options o = PYPROF_LINES_OPTIONS_INIT;
    o.source_roots = roots;
    o.nsource_roots = 1;
    o.summarize = 1;
    long n = 0;
    int rc = -1;
    bool all_enomem = true;
    for (; p && n < 10000; n++) {
        pyprof_output *out = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof__alloc_fail_after(n);
        rc = pyprof_output_open_memory(&out, &err);
        if (rc == 0)
            rc = pyprof_render_lines(p, out, &o, &err);
        pyprof__alloc_fail_after(-1);
        pyprof_output_abort(out);
        if (rc == 0)
            break;
        all_enomem &= rc == PYPROF_ENOMEM;
    }
    TAP_OK(rc == 0 && all_enomem, "report: %ld failed allocations each give ENOMEM, then it prints",
           n);
    pyprof_profile_free(p);
}

int
main(void)
{
    srcdir = getenv("top_srcdir");
    if (!srcdir)
        srcdir = "..";
    test_model();
    test_probe();
    test_reader_rules();
    test_merge_and_options();
    test_blocks();
    test_render_oom();
    return tap_done();
}
