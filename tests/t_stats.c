/*
 * t_stats.c - the pstats view on profiles built through the model API:
 * sort keys and abbreviations, restriction words, and every scenario of
 * tests/fixtures/stats/scenarios.txt compared byte for byte with what
 * CPython 3.11's pstats printed for the same dicts (tests/golden/stats/,
 * made by tests/fixtures/stats/gen_golden.py).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyprof_int.h"

#include "tap.h"

/* ---- building profiles from profiles.txt -------------------------------------------- */

#define MAXP 8
static struct {
    char name[32];
    char *text; /* the profile's lines */
    int bytes;  /* keys are bytes: metadata key_strings=bytes */
} defs[MAXP];
static int ndefs;

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static void
load_defs(void)
{
    char *all = slurp(tap_fixture("stats/profiles.txt"), NULL);
    if (!all)
        return;
    char *save = NULL;
    for (char *line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "profile ", 8) == 0 && ndefs < MAXP) {
            snprintf(defs[ndefs].name, sizeof defs[ndefs].name, "%s", line + 8);
            char *sp = strchr(defs[ndefs].name, ' ');
            defs[ndefs].bytes = sp && strcmp(sp, " bytes") == 0;
            if (sp)
                *sp = '\0';
            defs[ndefs].text = calloc(1, 1);
            ndefs++;
        } else if (ndefs && line[0] != '#') {
            char *t = defs[ndefs - 1].text;
            size_t n = strlen(t), m = strlen(line);
            t = realloc(t, n + m + 2);
            memcpy(t + n, line, m);
            memcpy(t + n + m, "\n", 2);
            defs[ndefs - 1].text = t;
        }
    }
    free(all);
}

static pyprof_id
intern(pyprof_profile *p, const char *s)
{
    pyprof_id id = PYPROF_NONE;
    pyprof_profile_intern(p, &id, s, strlen(s));
    return id;
}

/* Split "a|b|c" in place. */
static int
fields(char *s, char **f, int max)
{
    int n = 0;
    f[n++] = s;
    for (char *c = s; *c && n < max; c++)
        if (*c == '|') {
            *c = '\0';
            f[n++] = c + 1;
        }
    return n;
}

static pyprof_profile *
build(const char *name)
{
    const char *text = NULL;
    int bytes = 0;
    for (int i = 0; i < ndefs; i++)
        if (strcmp(defs[i].name, name) == 0) {
            text = defs[i].text;
            bytes = defs[i].bytes;
        }
    if (!text)
        return NULL;
    pyprof_profile *p;
    pyprof_profile_new(&p);
    if (bytes)
        pyprof_profile_meta_set(p, "key_strings", "bytes");
    /* two passes: entries first (dict order), then callers, so that
     * functions known only as callers come after every entry */
    for (int pass = 0; pass < 2; pass++) {
        char *copy = strdup(text), *save = NULL;
        pyprof_id last = PYPROF_NONE;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            char *f[8] = {0};
            char *kind = l, *rest = strchr(l, ' ');
            *rest++ = '\0';
            int nf = fields(rest, f, 8);
            if (nf < 4)
                continue;
            pyprof_id file = intern(p, f[0]), fname = intern(p, f[2]);
            int64_t line = atoll(f[1]);
            if (strcmp(kind, "func") == 0 && nf == 7) {
                pyprof_profile_func_intern(p, &last, file, line, fname, 0, NULL);
                if (pass == 0) {
                    pyprof_func *fn = pyprof_profile_func_mut(p, last);
                    fn->counts.primcalls = atoll(f[3]);
                    fn->counts.ncalls = atoll(f[4]);
                    fn->counts.tottime = strtod(f[5], NULL);
                    fn->counts.cumtime = strtod(f[6], NULL);
                }
            } else if (pass == 1) {
                pyprof_id caller = pyprof_profile_func_find(p, file, line, fname, 0);
                if (caller == PYPROF_NONE)
                    pyprof_profile_func_intern(p, &caller, file, line, fname,
                                               PYPROF_FUNC_CALLER_ONLY, NULL);
                pyprof_id e;
                pyprof_profile_edge_intern(p, &e, caller, last, NULL);
                pyprof_edge *ed = pyprof_profile_edge_mut(p, e);
                ed->counts.ncalls = atoll(f[3]);
                if (strcmp(kind, "count") == 0) {
                    ed->flags = PYPROF_EDGE_COUNT_ONLY;
                } else {
                    ed->counts.primcalls = atoll(f[4]);
                    ed->counts.tottime = strtod(f[5], NULL);
                    ed->counts.cumtime = strtod(f[6], NULL);
                }
            }
        }
        free(copy);
    }
    return p;
}

/* ---- scenarios ------------------------------------------------------------------------ */

static size_t
restrictions(char *arg, char **words, pyprof_stats_restriction *r)
{
    size_t n = 0;
    if (!arg)
        return 0;
    char *save = NULL;
    for (char *w = strtok_r(arg, ",", &save); w && n < 16; w = strtok_r(NULL, ",", &save)) {
        words[n] = w;
        if (pyprof_stats_restriction_parse(&r[n], w, NULL) == 0)
            n++;
    }
    return n;
}

static int
run_op(pyprof_stats *st, pyprof_output *out, char *op)
{
    char *arg = strchr(op, '=');
    if (arg)
        *arg++ = '\0';
    char *words[16];
    pyprof_stats_restriction r[16];
    pyprof_error err = PYPROF_ERROR_INIT;
    if (strcmp(op, "sort") == 0) {
        const char *keys[16];
        size_t n = 0;
        char *save = NULL;
        for (char *k = strtok_r(arg, ",", &save); k && n < 16; k = strtok_r(NULL, ",", &save))
            keys[n++] = k;
        return pyprof_stats_sort(st, keys, n, &err);
    }
    if (strcmp(op, "legacy") == 0)
        return pyprof_stats_sort_legacy(st, atoi(arg), &err);
    if (strcmp(op, "reverse") == 0) {
        pyprof_stats_reverse(st);
        return 0;
    }
    if (strcmp(op, "strip") == 0)
        return pyprof_stats_strip_dirs(st, &err);
    size_t n = restrictions(arg, words, r);
    if (strcmp(op, "stats") == 0)
        return pyprof_stats_print(st, out, r, n, &err);
    if (strcmp(op, "callers") == 0)
        return pyprof_stats_print_callers(st, out, r, n, &err);
    if (strcmp(op, "callees") == 0)
        return pyprof_stats_print_callees(st, out, r, n, &err);
    return -1;
}

static void
test_scenarios(void)
{
    char *all = slurp(tap_fixture("stats/scenarios.txt"), NULL);
    TAP_OK(all != NULL, "scenarios.txt readable");
    if (!all)
        return;
    char *save = NULL;
    for (char *line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0])
            continue;
        char *s2 = NULL;
        char *name = strtok_r(line, " ", &s2);
        char *spec = strtok_r(NULL, " ", &s2);
        char *plus = NULL, *pname = strtok_r(spec, "+", &plus);
        pyprof_stats *st = NULL;
        int rc = pyprof_stats_new(&st, build(pname), NULL);
        for (char *more = strtok_r(NULL, "+", &plus); more && rc == 0;
             more = strtok_r(NULL, "+", &plus)) {
            pyprof_profile *q = build(more);
            rc = pyprof_stats_add(st, q, NULL);
            pyprof_profile_free(q);
        }
        pyprof_output *out;
        pyprof_output_open_memory(&out, NULL);
        for (char *op = strtok_r(NULL, " ", &s2); op && rc == 0; op = strtok_r(NULL, " ", &s2))
            rc = run_op(st, out, op);
        size_t len, wlen;
        const unsigned char *got = pyprof_output_data(out, &len);
        char path[512];
        snprintf(path, sizeof path, "%s/tests/golden/stats/%s.txt",
                 getenv("top_srcdir") ? getenv("top_srcdir") : "..", name);
        char *want = slurp(path, &wlen);
        int same = rc == 0 && want && wlen == len && memcmp(want, got, len) == 0;
        if (!tap_ok(same, "scenario %s matches pstats", name)) {
            tap_diag("rc %d; got:", rc);
            fwrite(got, 1, len, stdout);
        }
        free(want);
        pyprof_output_commit(out, NULL);
        pyprof_stats_free(st);
    }
    free(all);
}

/* ---- sort keys, restrictions, strip on a bare profile, export --------------------------- */

static void
test_keys(void)
{
    static const char *const accepted[][2] = {{"ca", "calls"},        {"calls", "calls"},
                                              {"nc", "ncalls"},       {"ncall", "ncalls"},
                                              {"cu", "cumtime"},      {"cumt", "cumtime"},
                                              {"cumu", "cumulative"}, {"cumulative", "cumulative"},
                                              {"f", "filename"},      {"file", "filename"},
                                              {"m", "module"},        {"l", "line"},
                                              {"na", "name"},         {"nf", "nfl"},
                                              {"p", "pcalls"},        {"s", "stdname"},
                                              {"ti", "time"},         {"to", "tottime"},
                                              {"tottime", "tottime"}};
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        const char *k = pyprof_stats_sort_key_lookup(accepted[i][0]);
        TAP_IS_STR(k, accepted[i][1], accepted[i][0]);
    }
    static const char *const rejected[] = {"c", "cum", "n", "t", "", "cumtimes", "x", "Time"};
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++)
        TAP_OK(pyprof_stats_sort_key_lookup(rejected[i]) == NULL, "'%s' is rejected", rejected[i]);
    TAP_IS_INT(pyprof_stats_sort_key_count(), 13, "13 full keys");
    TAP_IS_STR(pyprof_stats_sort_key_description(2), "cumulative time", "description");
}

static void
test_restriction_words(void)
{
    pyprof_stats_restriction r;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_OK(pyprof_stats_restriction_parse(&r, "20", NULL) == 0 && r.kind == PYPROF_RESTRICT_COUNT &&
               r.count == 20,
           "20 is a count");
    TAP_OK(pyprof_stats_restriction_parse(&r, "1_000", NULL) == 0 && r.count == 1000,
           "1_000 is a count, as int() reads it");
    TAP_OK(pyprof_stats_restriction_parse(&r, "-3", NULL) == 0 && r.count == -3, "-3 is a count");
    TAP_OK(pyprof_stats_restriction_parse(&r, ".5", NULL) == 0 &&
               r.kind == PYPROF_RESTRICT_FRACTION && r.fraction == 0.5,
           ".5 is a fraction");
    TAP_OK(pyprof_stats_restriction_parse(&r, "5e-1", NULL) == 0 && r.fraction == 0.5,
           "5e-1 is a fraction");
    TAP_OK(pyprof_stats_restriction_parse(&r, "1.5", &err) == PYPROF_EINVAL, "1.5 is refused");
    TAP_IS_STR(err.message, "Fraction argument must be in [0, 1]", "with pstats' message");
    TAP_OK(pyprof_stats_restriction_parse(&r, "fib", NULL) == 0 &&
               r.kind == PYPROF_RESTRICT_REGEX && strcmp(r.pattern, "fib") == 0,
           "fib is a pattern");
    TAP_OK(pyprof_stats_restriction_parse(&r, "1e", NULL) == 0 && r.kind == PYPROF_RESTRICT_REGEX,
           "1e is a pattern");
}

static void
test_api_errors(void)
{
    pyprof_stats *st;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_OK(pyprof_stats_new(&st, build("P1"), NULL) == 0, "view of P1");
    const char *bad[] = {"cum"};
    TAP_IS_INT(pyprof_stats_sort(st, bad, 1, &err), PYPROF_EINVAL, "ambiguous key fails");
    TAP_OK(strstr(err.message, "'cum'") != NULL, "and names the key");
    TAP_IS_INT(pyprof_stats_sort_legacy(st, 3, NULL), PYPROF_EINVAL, "legacy 3 fails");
    TAP_IS_INT(pyprof_stats_count(st), 8, "8 entries (the caller-only function has no row)");
    pyprof_stats_totals t;
    pyprof_stats_get_totals(st, &t);
    TAP_OK(t.ncalls == 6477 && t.primcalls == 6013, "totals of calls");
    TAP_IS_STR(pyprof_stats_label(st, 2), "{built-in method builtins.len}", "built-in label");
    TAP_IS_STR(pyprof_stats_label(st, 7), "plain", "'~' name without brackets stays as is");

    /* JSON and CSV exports list the same rows as print_stats */
    const char *keys[] = {"cumulative"};
    pyprof_stats_sort(st, keys, 1, NULL);
    pyprof_stats_restriction r = {PYPROF_RESTRICT_COUNT, 2, 0, NULL};
    pyprof_output *o;
    size_t len;
    pyprof_output_open_memory(&o, NULL);
    TAP_OK(pyprof_stats_export(st, o, PYPROF_STATS_CSV, 0, &r, 1, NULL) == 0, "CSV export");
    const char *csv = (const char *)pyprof_output_data(o, &len);
    static const char want_csv[] =
        "file,line,function,label,ncalls,primcalls,tottime,tottime_percall,"
        "cumtime,cumtime_percall\r\n/a/prog.py,10,main,/a/prog.py:10(main),"
        "1,1,0.0001,0.0001,0.5,0.5\r\n~,0,plain,plain,5,5,0.5,0.1,0.5,0.1\r\n";
    TAP_OK(len == sizeof want_csv - 1 && memcmp(csv, want_csv, len) == 0,
           "CSV header and two rows");
    pyprof_output_commit(o, NULL);
    r.count = 3;
    pyprof_output_open_memory(&o, NULL);
    TAP_OK(pyprof_stats_export(st, o, PYPROF_STATS_JSON, 1, &r, 1, NULL) == 0, "JSON export");
    const char *json = (const char *)pyprof_output_data(o, &len);
    char *js = strndup(json, len);
    TAP_OK(strstr(js, "\"order\": \"cumulative time\"") &&
               strstr(js, "\"label\": \"/a/prog.py:2(fib)\"") &&
               strstr(js, "\"callers\": [{\"label\": \"/a/prog.py:10(main)\", \"ncalls\": 1, "
                          "\"primcalls\": 1, \"tottime\": 0.001, \"cumtime\": 0.375}"),
           "JSON holds order, rows and callers");
    free(js);
    pyprof_output_commit(o, NULL);
    pyprof_stats_free(st);

    /* strip on a bare profile: the caller replacement quirk */
    pyprof_profile *p = build("P1"), *q = NULL;
    TAP_OK(pyprof_profile_strip_dirs(&q, p, NULL) == 0, "strip a bare profile");
    pyprof_id f = pyprof_profile_func_find(q, intern(q, "util.py"), 5, intern(q, "hélper"), 0);
    const pyprof_id *edges;
    size_t n = 0;
    if (f != PYPROF_NONE)
        pyprof_profile_callers(q, f, &edges, &n);
    TAP_IS_INT(n, 1, "two callers collapsing to prog.py:10(main) leave one");
    if (n == 1)
        TAP_IS_DBL(pyprof_profile_edge(q, edges[0])->counts.tottime, 0.03125, 0,
                   "the later caller's value replaced the earlier (not summed)");
    pyprof_id fib = pyprof_profile_func_find(q, intern(q, "prog.py"), 2, intern(q, "fib"), 0);
    TAP_OK(fib != PYPROF_NONE && pyprof_profile_func(q, fib)->counts.ncalls == 468,
           "entries collapsing are summed (465 + 3 calls)");
    pyprof_profile_free(p);
    pyprof_profile_free(q);

    /* a view with no rows sorts, prints and exports (UBSan in CI: no NULL
     * reaches memcpy) */
    pyprof_profile *empty = NULL;
    pyprof_profile_new(&empty);
    TAP_OK(pyprof_stats_new(&st, empty, NULL) == 0, "view of an empty profile");
    for (size_t k = 0; k < pyprof_stats_sort_key_count(); k++) {
        const char *key[] = {pyprof_stats_sort_key_name(k)};
        if (pyprof_stats_sort(st, key, 1, &err) != 0) {
            TAP_OK(0, "sorting no rows by %s: %s", key[0], err.message);
            break;
        }
    }
    pyprof_output_open_memory(&o, NULL);
    TAP_OK(pyprof_stats_print(st, o, NULL, 0, NULL) == 0 && pyprof_stats_count(st) == 0,
           "no rows, sorted by every key, then printed");
    pyprof_output_abort(o);
    pyprof_stats_free(st);
}

/* Fail the Nth allocation of the view's work, N rising until it succeeds:
 * every failure must come back as PYPROF_ENOMEM (ASan/valgrind runs of the
 * suite check that nothing leaks on the way). */
static void
test_oom(void)
{
    int clean = 1, done = 0;
    long n;
    for (n = 0; n < 100000 && !done; n++) {
        pyprof_profile *p = build("P1"), *q = build("P3");
        pyprof_output *o;
        pyprof_output_open_memory(&o, NULL);
        pyprof__alloc_fail_after(n);
        pyprof_stats *st = NULL;
        const char *keys[] = {"time", "name"};
        pyprof_stats_restriction r = {PYPROF_RESTRICT_REGEX, 0, 0, "fib"};
        int rc = pyprof_stats_new(&st, p, NULL);
        if (rc < 0)
            pyprof_profile_free(p);
        if (rc == 0)
            rc = pyprof_stats_add(st, q, NULL);
        if (rc == 0)
            rc = pyprof_stats_sort(st, keys, 2, NULL);
        if (rc == 0)
            rc = pyprof_stats_print(st, o, &r, 1, NULL);
        if (rc == 0)
            rc = pyprof_stats_strip_dirs(st, NULL);
        if (rc == 0)
            rc = pyprof_stats_print_callers(st, o, NULL, 0, NULL);
        if (rc == 0)
            rc = pyprof_stats_export(st, o, PYPROF_STATS_JSON, 1, NULL, 0, NULL);
        pyprof__alloc_fail_after(-1);
        if (rc == 0)
            done = 1;
        else if (rc != PYPROF_ENOMEM)
            clean = 0;
        pyprof_output_abort(o);
        pyprof_stats_free(st);
        pyprof_profile_free(q);
    }
    TAP_OK(done && clean, "every failed allocation in the view is ENOMEM (%ld tried)", n);
}

int
main(void)
{
    load_defs();
    TAP_OK(ndefs == 4, "profiles.txt defines 4 profiles");
    test_keys();
    test_restriction_words();
    test_api_errors();
    test_scenarios();
    test_oom();
    for (int i = 0; i < ndefs; i++)
        free(defs[i].text);
    return tap_done();
}
