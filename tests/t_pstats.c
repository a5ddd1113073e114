/*
 * t_pstats.c - the pstats reader against what Python itself sees.
 *
 * Every tests/golden/pstats/<fixture>.summary was written by
 * tests/fixtures/pstats/summary.py from Python's own marshal.load of the
 * fixture (under the Python that made it): counts of entries, edges and
 * caller-only keys, the sums of nc, cc, tt and ct, and, where dict order is
 * file order (Python 3), every function and every edge in order with exact
 * values.  Then: producers and dialect markers, probe bids, zstd copies,
 * hand-made edge cases (duplicate keys, caller-only functions, the 3.15
 * sampling marker, bad structures), an out-of-memory sweep, and a walk over
 * the shared corpus checking case.json's entry and edge counts.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>

#include "pyprof_int.h"
#include "tap.h"

/* ---- helpers -------------------------------------------------------------- */

static pyprof_profile *
load_file(const char *path, pyprof_error *err)
{
    pyprof_profile *p = NULL;
    pyprof_error_clear(err);
    if (pyprof_profile_load(&p, path, NULL, err) < 0)
        return NULL;
    return p;
}

static int
read_mem(pyprof_profile **p, const void *bytes, size_t n, pyprof_error *err)
{
    pyprof_input *in;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "pstats";
    int rc = pyprof_input_open_memory(&in, bytes, n, "mem", err);
    if (rc < 0)
        return rc;
    rc = pyprof_profile_read(p, in, &o, err);
    pyprof_input_close(in);
    return rc;
}

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t k;
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            b = realloc(b, (cap *= 2) + 1);
    }
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}

/* "file\tline\tname" of a function, as summary.py writes keys */
static void
key_text(const pyprof_profile *p, pyprof_id f, char *buf, size_t size)
{
    const pyprof_func *fn = pyprof_profile_func(p, f);
    snprintf(buf, size, "%s\t%lld\t%s", pyprof_profile_string(p, fn->file), (long long)fn->line,
             pyprof_profile_string(p, fn->name));
}

/* Python's repr of a number: ints print as ints, floats round-trip. */
static bool
num_eq(const char *text, double v)
{
    return strtod(text, NULL) == v;
}

/* Split `line` at tabs in place; returns the number of fields. */
static int
split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *c = line; *c && n < max; c++)
        if (*c == '\t') {
            *c = '\0';
            f[n++] = c + 1;
        }
    return n;
}

/* ---- fixtures against their Python summaries ----------------------------- */

static void
check_summary(const char *summary_path)
{
    size_t len;
    char *text = slurp(summary_path, &len);
    if (!TAP_OK(text != NULL, "read %s", summary_path))
        return;
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    char *f[16];
    if (!line || split(line, f, 16) != 2 || strcmp(f[0], "file") != 0) {
        TAP_OK(0, "%s starts with its file name", summary_path);
        free(text);
        return;
    }
    char fixture[256], rel[300];
    snprintf(fixture, sizeof fixture, "%s", f[1]);
    snprintf(rel, sizeof rel, "pstats/%s", fixture);
    pyprof_error err;
    pyprof_profile *p = load_file(tap_fixture(rel), &err);
    if (!TAP_OK(p != NULL, "%s reads", fixture)) {
        tap_diag("  %s", err.message);
        free(text);
        return;
    }
    size_t nf = pyprof_profile_func_count(p), entries = 0, caller_only = 0, codeobj = 0;
    long long nc = 0, cc = 0;
    double tt = 0, ct = 0;
    for (pyprof_id i = 0; i < nf; i++) {
        const pyprof_func *fn = pyprof_profile_func(p, i);
        if (fn->flags & PYPROF_FUNC_CALLER_ONLY) {
            caller_only++;
            continue;
        }
        entries++;
        codeobj += (fn->flags & PYPROF_FUNC_CODEOBJ) != 0;
        nc += fn->counts.ncalls;
        cc += fn->counts.primcalls;
        tt += fn->counts.tottime;
        ct += fn->counts.cumtime;
    }
    const char *sampled = pyprof_profile_meta_get(p, "sampled");
    bool unordered = strstr(save ? save : "", "unordered\t1") != NULL;
    int bad = 0, funcs_seen = 0, edges_seen = 0;
    char key[1024];
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int n = split(line, f, 16);
        const char *k = f[0];
        long long want = n > 1 ? strtoll(f[1], NULL, 10) : 0;
        if (!strcmp(k, "entries"))
            bad += !TAP_OK(entries == (size_t)want, "%s: %zu entries (Python %lld)", fixture,
                           entries, want);
        else if (!strcmp(k, "edges"))
            bad += !TAP_OK(pyprof_profile_edge_count(p) == (size_t)want,
                           "%s: %zu caller edges (Python %lld)", fixture,
                           pyprof_profile_edge_count(p), want);
        else if (!strcmp(k, "caller_only"))
            bad += !TAP_OK(caller_only == (size_t)want, "%s: %zu caller-only functions", fixture,
                           caller_only);
        else if (!strcmp(k, "codeobj"))
            bad += !TAP_OK(codeobj == (size_t)want, "%s: %zu code-object keys", fixture, codeobj);
        else if (!strcmp(k, "sampled"))
            bad += !TAP_OK((sampled != NULL) == (want == 1), "%s: sampled marker %s", fixture,
                           want ? "noticed" : "absent");
        else if (!strcmp(k, "sum_nc"))
            bad += !TAP_OK(nc == want, "%s: sum of nc %lld (Python %lld)", fixture, nc, want);
        else if (!strcmp(k, "sum_cc"))
            bad += !TAP_OK(cc == want, "%s: sum of cc %lld (Python %lld)", fixture, cc, want);
        else if (!strcmp(k, "sum_tt") || !strcmp(k, "sum_ct")) {
            /* summed in the same order, so equal to the last bit, unless
             * Python 2 summed in its hash order */
            double got = k[4] == 't' ? tt : ct, w = strtod(f[1], NULL);
            double eps = unordered ? 1e-12 * (fabs(w) + 1) : 0;
            bad += !TAP_OK(fabs(got - w) <= eps, "%s: %s %.17g (Python %s)", fixture, k, got, f[1]);
        } else if (!strcmp(k, "func") && n == 8) {
            /* the i-th entry: key and (cc, nc, tt, ct) exactly */
            pyprof_id id = (pyprof_id)funcs_seen++;
            const pyprof_func *fn = pyprof_profile_func(p, id);
            char want_key[1024];
            snprintf(want_key, sizeof want_key, "%s\t%s\t%s", f[1], f[2], f[3]);
            if (fn)
                key_text(p, id, key, sizeof key);
            if (!fn || strcmp(key, want_key) != 0 || fn->counts.primcalls != strtoll(f[4], 0, 10) ||
                fn->counts.ncalls != strtoll(f[5], 0, 10) || !num_eq(f[6], fn->counts.tottime) ||
                !num_eq(f[7], fn->counts.cumtime)) {
                if (bad++ < 3)
                    tap_diag("  function %u: want %s %s %s %s %s", id, want_key, f[4], f[5], f[6],
                             f[7]);
            }
        } else if (!strcmp(k, "edge") && n == 9) {
            pyprof_id id = (pyprof_id)edges_seen++;
            const pyprof_edge *e = pyprof_profile_edge(p, id);
            char want_key[1024];
            snprintf(want_key, sizeof want_key, "%s\t%s\t%s", f[2], f[3], f[4]);
            if (e)
                key_text(p, e->caller, key, sizeof key);
            bool count_only = !strcmp(f[7], "-");
            if (!e || e->callee != (pyprof_id)strtoul(f[1], NULL, 10) ||
                strcmp(key, want_key) != 0 || e->counts.ncalls != strtoll(f[5], 0, 10) ||
                e->counts.primcalls != strtoll(f[6], 0, 10) ||
                count_only != ((e->flags & PYPROF_EDGE_COUNT_ONLY) != 0) ||
                (!count_only &&
                 (!num_eq(f[7], e->counts.tottime) || !num_eq(f[8], e->counts.cumtime)))) {
                if (bad++ < 3)
                    tap_diag("  edge %u: want callee %s caller %s %s %s %s %s", id, f[1], want_key,
                             f[5], f[6], f[7], f[8]);
            }
        }
    }
    if (!unordered) {
        TAP_OK(funcs_seen > 0 && edges_seen == (int)pyprof_profile_edge_count(p),
               "%s: every function and edge listed", fixture);
        TAP_OK(bad == 0, "%s: functions and edges in file order with Python's exact values",
               fixture);
    }
    pyprof_profile_free(p);
    free(text);
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
test_summaries(void)
{
    char dir[4096];
    const char *top = getenv("top_srcdir");
    snprintf(dir, sizeof dir, "%s/tests/golden/pstats", top ? top : ".");
    DIR *d = opendir(dir);
    if (!TAP_OK(d != NULL, "open %s", dir))
        return;
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 8 && !strcmp(de->d_name + l - 8, ".summary"))
            names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str); /* readdir order is not stable */
    TAP_OK(n >= 30, "%zu fixture summaries", n);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_summary(path);
        free(names[i]);
    }
}

/* ---- producers, dialects, probe, zstd ------------------------------------ */

static void
expect_meta(const char *fixture, const char *key, const char *want)
{
    char rel[256];
    snprintf(rel, sizeof rel, "pstats/%s", fixture);
    pyprof_error err;
    pyprof_profile *p = load_file(tap_fixture(rel), &err);
    const char *got = p ? pyprof_profile_meta_get(p, key) : NULL;
    if (!TAP_OK(want ? got && !strcmp(got, want) : got == NULL, "%s: %s is %s", fixture, key,
                want ? want : "unset"))
        tap_diag("  got %s", got ? got : "(unset)");
    pyprof_profile_free(p);
}

static void
test_producers(void)
{
    expect_meta("cprofile_py313.pstats", "producer", "cProfile");
    expect_meta("cprofile_py27.pstats", "producer", "cProfile");
    expect_meta("profile_py311.pstats", "producer", "profile");
    expect_meta("profile_py27.pstats", "producer", "profile");
    expect_meta("yappi_py311.pstats", "producer", "yappi");
    expect_meta("sampled.pstats", "producer", "profiling.sampling");
    expect_meta("sampled.pstats", "sampled", "1");
    expect_meta("cprofile_py311.pstats", "sampled", NULL);
    expect_meta("cprofile_py27.pstats", "python", "2");
    expect_meta("cprofile_py311.pstats", "python", NULL);

    /* yappi's swapped counts are kept as written: fib shows cc > nc */
    pyprof_error err;
    pyprof_profile *p = load_file(tap_fixture("pstats/yappi_py311.pstats"), &err);
    bool swapped = false;
    for (pyprof_id i = 0; p && i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, i);
        if (!strcmp(pyprof_profile_string(p, f->name), "fib"))
            swapped = f->counts.primcalls == 8361 && f->counts.ncalls == 1;
    }
    TAP_OK(swapped, "yappi: fib keeps (cc, nc) = (8361, 1) as pstats prints it (1/8361)");
    pyprof_profile_free(p);

    /* the profile module: a code-object key, int callers */
    p = load_file(tap_fixture("pstats/profile_py311.pstats"), &err);
    pyprof_id code = PYPROF_NONE;
    for (pyprof_id i = 0; p && i < pyprof_profile_func_count(p); i++)
        if (pyprof_profile_func(p, i)->flags & PYPROF_FUNC_CODEOBJ)
            code = i;
    TAP_OK(code != PYPROF_NONE, "profile: the code-object key is flagged");
    if (code != PYPROF_NONE) {
        const pyprof_func *f = pyprof_profile_func(p, code);
        TAP_IS_STR(pyprof_profile_string(p, f->name),
                   "<code object <module> at 0x0, file \"wl/wl.py\", line 1>",
                   "profile: its name is the code object's repr, address 0");
        TAP_IS_STR(pyprof_profile_string(p, f->file), "profile", "profile: in file 'profile'");
    }
    bool all_count_only = p && pyprof_profile_edge_count(p) > 0;
    for (pyprof_id i = 0; p && i < pyprof_profile_edge_count(p); i++)
        all_count_only &= (pyprof_profile_edge(p, i)->flags & PYPROF_EDGE_COUNT_ONLY) != 0;
    TAP_OK(all_count_only, "profile: every caller value is a bare count");
    pyprof_profile_free(p);

    /* Python 2 Latin-1 names are decoded */
    p = load_file(tap_fixture("pstats/nonascii_py27.pstats"), &err);
    TAP_OK(p && !strcmp(pyprof_profile_string(p, pyprof_profile_func(p, 0)->file),
                        "wl/caf\xc3\xa9.py"),
           "Python 2 Latin-1 file name decoded to UTF-8");
    pyprof_profile_free(p);
}

static void
test_probe(void)
{
    static const char *const fixtures[] = {
        "pstats/cprofile_py311.pstats",     "pstats/cprofile_py27.pstats",
        "pstats/marshal_v0.pstats",         "pstats/marshal_v3.pstats",
        "pstats/profile_py36.pstats",       "pstats/yappi_py311.pstats",
        "pstats/cprofile_py311.pstats.zst",
    };
    for (size_t k = 0; k < sizeof fixtures / sizeof fixtures[0]; k++) {
        pyprof_input *in;
        pyprof_error err;
        const char *name = NULL;
        int score = 0;
        if (pyprof_input_open_file(&in, tap_fixture(fixtures[k]), &err) == 0) {
            pyprof_format_probe(in, &name, &score, &err);
            pyprof_input_close(in);
        }
        TAP_OK(name && !strcmp(name, "pstats") && score >= 90, "probe: %s bids %d for %s",
               fixtures[k], score, name ? name : "nothing");
    }
    static const struct {
        const char *bytes;
        size_t n;
        bool pstats;
        const char *name;
    } heads[] = {
        {"{0", 2, true, "an empty dict still goes to pstats (which explains)"},
        {"{N", 2, false, "a dict whose key is not a tuple"},
        {"[\x00\x00\x00\x00", 5, false, "a marshalled list"},
        {"{(\x03\x00\x00\x00i", 7, false, "a 3-tuple key not starting with a string"},
        {"fib;main 3\n", 11, false, "folded stacks"},
        {"\x80\x04\x95", 3, false, "a pickle"},
    };
    for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++) {
        pyprof_input *in;
        pyprof_error err;
        const char *name = NULL;
        pyprof_input_open_memory(&in, heads[k].bytes, heads[k].n, "mem", &err);
        pyprof_format_probe(in, &name, NULL, &err);
        pyprof_input_close(in);
        TAP_OK((name && !strcmp(name, "pstats")) == heads[k].pstats, "probe: %s", heads[k].name);
    }
}

/* The zstd copies give the same model, function by function. */
static void
test_zstd_same(const char *plain, const char *zst)
{
    pyprof_error err;
    pyprof_profile *a = load_file(tap_fixture(plain), &err);
    pyprof_profile *b = load_file(tap_fixture(zst), &err);
    bool same = a && b && pyprof_profile_func_count(a) == pyprof_profile_func_count(b) &&
                pyprof_profile_edge_count(a) == pyprof_profile_edge_count(b);
    for (pyprof_id i = 0; same && i < pyprof_profile_func_count(a); i++) {
        char ka[1024], kb[1024];
        key_text(a, i, ka, sizeof ka);
        key_text(b, i, kb, sizeof kb);
        same =
            !strcmp(ka, kb) && !memcmp(&pyprof_profile_func(a, i)->counts,
                                       &pyprof_profile_func(b, i)->counts, sizeof(pyprof_counts));
    }
    for (pyprof_id i = 0; same && i < pyprof_profile_edge_count(a); i++)
        same = !memcmp(pyprof_profile_edge(a, i), pyprof_profile_edge(b, i), sizeof(pyprof_edge));
    TAP_OK(same, "%s reads exactly as %s", zst, plain);
    pyprof_profile_free(a);
    pyprof_profile_free(b);
}

/* ---- hand-made files -------------------------------------------------------- */

/* marshal v2-style pieces, enough for small dicts */
#define KEY(file, line, name) "(\x03\x00\x00\x00" file "i" line "\x00\x00\x00" name
#define ZS(n, s)              "z" n s
#define I32(b)                "i" b "\x00\x00\x00"
#define G15                   "g\x00\x00\x00\x00\x00\x00\xf8\x3f" /* 1.5 */
#define VAL5(cc, nc)          "(\x05\x00\x00\x00" I32(cc) I32(nc) G15 G15

static void
test_handmade(void)
{
    pyprof_profile *p;
    pyprof_error err;

    /* duplicate key: last value wins, first position kept; and a caller
     * with no entry of its own comes after the entries */
    static const char dup[] = "{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f"))
        VAL5("\x01", "\x01") "{" KEY(ZS("\x01", "a"), "\x09", ZS("\x01", "m"))
            I32("\x01") "0" KEY(ZS("\x01", "a"), "\x02", ZS("\x01", "g"))
                VAL5("\x02", "\x02") "{0" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f"))
                    VAL5("\x07", "\x08") "{" KEY(ZS("\x01", "a"), "\x02",
                                                 ZS("\x01", "g")) "(\x04\x00\x00\x00" I32("\x05")
                        I32("\x04") G15 G15 "0"
                                            "0";
    TAP_IS_INT(read_mem(&p, dup, sizeof dup - 1, &err), 0, "duplicate keys read");
    if (p) {
        TAP_IS_INT(pyprof_profile_func_count(p), 2, "  two functions");
        const pyprof_func *f = pyprof_profile_func(p, 0);
        TAP_OK(!strcmp(pyprof_profile_string(p, f->name), "f") && f->counts.primcalls == 7 &&
                   f->counts.ncalls == 8,
               "  f keeps position 0 and takes the last value (7/8)");
        TAP_IS_INT(pyprof_profile_edge_count(p), 1, "  only the last value's callers");
        const pyprof_edge *e = pyprof_profile_edge(p, 0);
        TAP_OK(e && e->caller == 1 && e->callee == 0 && e->counts.ncalls == 5 &&
                   e->counts.primcalls == 4 && e->flags == 0,
               "  edge g->f with (nc, cc) = (5, 4) from the caller tuple's order");
        pyprof_profile_free(p);
    }

    static const char caller_only[] = "{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f"))
        VAL5("\x01", "\x01") "{" KEY(ZS("\x01", "a"), "\x09", ZS("\x01", "m"))
            I32("\x03") "0" KEY(ZS("\x01", "a"), "\x02", ZS("\x01", "g")) VAL5("\x02", "\x02") "{0"
                                                                                               "0";
    TAP_IS_INT(read_mem(&p, caller_only, sizeof caller_only - 1, &err), 0, "caller-only read");
    if (p) {
        const pyprof_func *m = pyprof_profile_func(p, 2);
        TAP_OK(pyprof_profile_func_count(p) == 3 && m &&
                   !strcmp(pyprof_profile_string(p, m->name), "m") &&
                   (m->flags & PYPROF_FUNC_CALLER_ONLY),
               "  the unknown caller m is function 2, after both entries, flagged caller-only");
        const pyprof_edge *e = pyprof_profile_edge(p, 0);
        TAP_OK(e && e->counts.ncalls == 3 && e->counts.primcalls == 3 &&
                   (e->flags & PYPROF_EDGE_COUNT_ONLY),
               "  an int caller value is ncalls = primcalls, count-only");
        TAP_IS_STR(pyprof_profile_meta_get(p, "producer"), "hotshot",
                   "  int callers without the profiler entry: hotshot");
        pyprof_profile_free(p);
    }

    /* yappi without built-ins or recursion still gives itself away by
     * its qualified method names */
    static const char yappi[] =
        "{" KEY(ZS("\x08", "/a/wl.py"), "\x17", ZS("\x0b", "Counter.add")) VAL5("\x14", "\x14") "{0"
                                                                                                "0";
    TAP_IS_INT(read_mem(&p, yappi, sizeof yappi - 1, &err), 0, "yappi-like file read");
    if (p) {
        TAP_IS_STR(pyprof_profile_meta_get(p, "producer"), "yappi", "  producer yappi");
        pyprof_profile_free(p);
    }

    /* the 3.15 sampling marker at the start does not break reading */
    static const char marker[] =
        "{)\x01" ZS("\x0b", "__sampled__") "T" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f"))
            VAL5("\x01", "\x01") "{0"
                                 "0";
    TAP_IS_INT(read_mem(&p, marker, sizeof marker - 1, &err), 0, "sampling marker first");
    if (p) {
        TAP_IS_INT(pyprof_profile_func_count(p), 1, "  is not a function");
        TAP_IS_STR(pyprof_profile_meta_get(p, "sampled"), "1", "  sets meta sampled=1");
        pyprof_profile_free(p);
    }

    /* bools are ints to Python: ('a', True, 'f'): (True, 2, ...) */
    static const char bools[] =
        "{(\x03\x00\x00\x00" ZS("\x01", "a") "T" ZS("\x01", "f") "(\x05\x00\x00\x00T" I32("\x02")
            G15 "F{00";
    TAP_IS_INT(read_mem(&p, bools, sizeof bools - 1, &err), 0, "bool line and counts read");
    if (p) {
        const pyprof_func *f = pyprof_profile_func(p, 0);
        TAP_OK(f->line == 1 && f->counts.primcalls == 1 && f->counts.ncalls == 2 &&
                   f->counts.cumtime == 0.0,
               "  as 1 and 0");
        pyprof_profile_free(p);
    }

    static const struct {
        const char *bytes;
        size_t n;
        int code;
        long long offset;
        const char *what;
        const char *name;
    } bad[] = {
#define B(s) s, sizeof(s) - 1
        {B(""), PYPROF_EFORMAT, 0, "empty file", "empty file"},
        {B("{0"), PYPROF_EFORMAT, 0, "an empty profile: the dict has no entries", "empty dict"},
        {B("{)\x01" ZS("\x0b", "__sampled__") "T0"), PYPROF_EFORMAT, 0, "no function entries",
         "only the sampling marker"},
        {B("[\x00\x00\x00\x00"), PYPROF_EFORMAT, 0, "top-level object is a list",
         "a list at the top"},
        {B("{0xyz"), PYPROF_EFORMAT, 2, "3 bytes of trailing data", "trailing garbage"},
        {B("{" I32("\x01") "N0"), PYPROF_EFORMAT, 1, "function key is an int", "an int key"},
        {B("{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f")) "N0"), PYPROF_EFORMAT, 17,
         "function value is None", "None value"},
        {B("{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f")) "(\x04\x00\x00\x00NNNN0"),
         PYPROF_EFORMAT, 17, "a tuple of another size", "4-tuple value"},
        {B("{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f")) "(\x05\x00\x00\x00" I32(
             "\x01") "l\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00" G15 G15
                     "{00"),
         PYPROF_ELIMIT, 27, "call count does not fit in 64 bits", "count beyond 64 bits"},
        {B("{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f")) VAL5("\x01", "\x01") "N0"),
         PYPROF_EFORMAT, 50, "callers of a function is None", "callers not a dict"},
        {B("{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f"))
               VAL5("\x01", "\x01") "{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f")) "z\x00"
                                                                                      "00"),
         PYPROF_EFORMAT, 67, "caller value is a str", "caller value a string"},
        {B("{" KEY(ZS("\x01", "a"), "\x01", ZS("\x01", "f")) VAL5("\x01", "\x01") "{0"),
         PYPROF_EFORMAT, 52, "unexpected end", "truncated outer dict"},
        {B("{(\x03\x00\x00\x00" ZS("\x01", "a") "g\x00\x00\x00\x00\x00\x00\xf8\x3f" ZS("\x01", "f")
               VAL5("\x01", "\x01") "{00"),
         PYPROF_EFORMAT, 9, "line number in a key is a float", "float line number"},
#undef B
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        p = NULL;
        int rc = read_mem(&p, bad[k].bytes, bad[k].n, &err);
        if (!TAP_OK(rc == bad[k].code && err.offset == bad[k].offset &&
                        strstr(err.message, bad[k].what) && !strcmp(err.format, "pstats") &&
                        !strcmp(err.source, "mem"),
                    "error: %s", bad[k].name))
            tap_diag("  rc %d offset %lld format %s: %s", rc, (long long)err.offset, err.format,
                     err.message);
        pyprof_profile_free(p);
    }
}

/* pyprof_profile_reserve (core:, added for this reader) changes capacity only. */
static void
test_reserve(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id file, name, f[300], e;
    pyprof_profile_intern(p, &file, "a.py", 4);
    TAP_IS_INT(pyprof_profile_reserve(p, 300, 1000), 0, "reserve on an empty profile");
    TAP_IS_INT(pyprof_profile_func_count(p), 0, "  adds no function");
    int ok = 1;
    for (int i = 0; i < 300; i++) {
        char buf[16];
        snprintf(buf, sizeof buf, "f%d", i);
        pyprof_profile_intern(p, &name, buf, strlen(buf));
        ok &= pyprof_profile_func_intern(p, &f[i], file, i, name, 0, NULL) == 0 &&
              f[i] == (pyprof_id)i;
        if (i)
            ok &= pyprof_profile_edge_intern(p, &e, f[i - 1], f[i], NULL) == 0;
    }
    TAP_IS_INT(pyprof_profile_reserve(p, 10, 10), 0, "reserve on a filled profile");
    for (int i = 1; i < 300; i++)
        ok &= pyprof_profile_edge_find(p, f[i - 1], f[i]) == (pyprof_id)(i - 1) &&
              pyprof_profile_func_find(p, file, i, pyprof_profile_func(p, f[i])->name, 0) == f[i];
    TAP_OK(ok, "  functions and edges are found after reserving");
    pyprof_profile_free(p);
}

/* ---- out of memory ---------------------------------------------------------- */

static void
test_oom(const char *rel)
{
    size_t len;
    char *data = slurp(tap_fixture(rel), &len);
    if (!TAP_OK(data != NULL, "read %s for the OOM sweep", rel))
        return;
    long n;
    int bad = 0;
    for (n = 0; n < 100000; n++) {
        pyprof_input *in;
        pyprof_error err;
        pyprof_profile *p = NULL;
        if (pyprof_input_open_memory(&in, data, len, "oom", &err) < 0)
            break;
        pyprof__alloc_fail_after(n);
        int rc = pyprof_profile_read(&p, in, NULL, &err);
        pyprof__alloc_fail_after(-1);
        pyprof_input_close(in);
        pyprof_profile_free(p);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM || err.code != PYPROF_ENOMEM) {
            if (bad++ < 3)
                tap_diag("  allocation %ld: rc %d: %s", n, rc, err.message);
        }
    }
    TAP_OK(n > 5 && n < 100000, "%s: OOM sweep reached success after %ld failing runs", rel, n);
    TAP_IS_INT(bad, 0, "every failed allocation came back as ENOMEM");
    free(data);
}

/* ---- the shared corpus ------------------------------------------------------ */

/* The integer after "key": in a case.json, or -1. */
static long long
json_int(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *at = strstr(json, pat);
    return at ? strtoll(at + strlen(pat), NULL, 10) : -1;
}

static void
test_corpus(void)
{
    const char *corpus = getenv("PYPROF_CORPUS");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/pstats", corpus ? corpus : "");
    DIR *d = corpus ? opendir(dir) : NULL;
    if (!d) {
        printf("ok %d # SKIP corpus absent\n", ++tap_count);
        return;
    }
    char *names[512];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 512)
        if (de->d_name[0] != '.')
            names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    size_t matched = 0, cases = 0;
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        size_t len;
        snprintf(path, sizeof path, "%s/%s/case.json", dir, names[i]);
        char *json = slurp(path, &len);
        if (!json) {
            free(names[i]);
            continue;
        }
        cases++;
        long long want_entries = json_int(json, "entries");
        long long want_edges = json_int(json, "caller_edges");
        /* every input reads; the facts describe the first */
        const char *in = strstr(json, "\"inputs\":");
        const char *end = in ? strchr(in, ']') : NULL;
        int k = 0, ok = in && end;
        for (const char *q = ok ? strchr(in, '[') : NULL; q && q < end;) {
            const char *a = strchr(q, '"'), *e = a ? strchr(a + 1, '"') : NULL;
            if (!e || e > end)
                break;
            q = e + 1;
            char file[8192];
            snprintf(file, sizeof file, "%s/%s/%.*s", dir, names[i], (int)(e - a - 1), a + 1);
            pyprof_error err;
            pyprof_profile *p = load_file(file, &err);
            if (!p) {
                /* an empty dict is refused, by pstats as by the reader */
                ok = k == 0 && want_entries == 0 && err.code == PYPROF_EFORMAT;
                if (!ok)
                    tap_diag("  %s: %s", file, err.message);
                k++;
                break;
            }
            if (k++ == 0) {
                /* the producer, as case.json names it */
                char pv[256] = "";
                const char *pj = strstr(json, "\"producer\": \"");
                if (pj)
                    sscanf(pj + 13, "%255[^\"]", pv);
                const char *want = strstr(pv, "hotshot")          ? "hotshot"
                                   : strstr(pv, "austin")         ? "austin-python"
                                   : strstr(pv, "yappi")          ? "yappi"
                                   : !strncmp(pv, "profile (", 9) ? "profile"
                                   : !strncmp(pv, "cProfile", 8)  ? "cProfile"
                                                                  : NULL; /* not said */
                const char *got = pyprof_profile_meta_get(p, "producer");
                if (want && (!got || strcmp(got, want) != 0)) {
                    ok = 0;
                    tap_diag("  %s: producer %s, case.json says %s", file, got ? got : "-", want);
                }
                size_t entries = 0;
                for (pyprof_id f = 0; f < pyprof_profile_func_count(p); f++)
                    entries += !(pyprof_profile_func(p, f)->flags & PYPROF_FUNC_CALLER_ONLY);
                /* Python counts the sampling profiler's marker key as an entry */
                bool marker = pyprof_profile_meta_get(p, "sampled") != NULL;
                ok = ok &&
                     ((long long)entries == want_entries ||
                      (marker && (long long)entries + 1 == want_entries)) &&
                     (long long)pyprof_profile_edge_count(p) == want_edges;
                if (!ok)
                    tap_diag("  %s: %zu entries, %zu edges", file, entries,
                             pyprof_profile_edge_count(p));
            }
            pyprof_profile_free(p);
        }
        ok = ok && k > 0;
        matched += ok;
        TAP_OK(ok,
               "corpus %s: %d input(s) read; producer, %lld entries, %lld edges as case.json says",
               names[i], k, want_entries, want_edges);
        free(json);
        free(names[i]);
    }
    TAP_OK(cases > 0 && matched == cases, "corpus: %zu of %zu pstats cases match", matched, cases);
}

int
main(void)
{
    test_summaries();
    test_producers();
    test_probe();
    test_zstd_same("pstats/cprofile_py311.pstats", "pstats/cprofile_py311.pstats.zst");
    test_zstd_same("pstats/cprofile_py311.pstats", "pstats/cprofile_py311_2frames.pstats.zst");
    test_zstd_same("pstats/profile_py27.pstats", "pstats/profile_py27.pstats.zst");
    test_handmade();
    test_reserve();
    test_oom("pstats/profile_py311.pstats");
    test_oom("pstats/cprofile_py27.pstats");
    test_oom("pstats/profile_py36.pstats"); /* code objects found by trial and error */
    test_corpus();
    return tap_done();
}
