/*
 * t_core.c - the profile model: interning, functions and edges in insertion
 * order, pstats.Stats.add merge semantics, the stack-derived call graph,
 * lossy interning, and clean ENOMEM at every allocation.
 */
#include "config.h"

#include <time.h>

#include "pyprof_int.h"
#include "tap.h"

static pyprof_id
S(pyprof_profile *p, const char *s)
{
    pyprof_id id = PYPROF_NONE;
    pyprof_profile_intern(p, &id, s, strlen(s));
    return id;
}

static pyprof_id
F(pyprof_profile *p, const char *file, int line, const char *name)
{
    pyprof_id id = PYPROF_NONE;
    pyprof_profile_func_intern(p, &id, S(p, file), line, S(p, name), 0, NULL);
    return id;
}

static void
test_strings(void)
{
    pyprof_profile *p;
    TAP_OK(pyprof_profile_new(&p) == 0, "profile_new");
    pyprof_id a = S(p, "fib"), b = S(p, "main"), c = S(p, "fib");
    TAP_OK(a == c && a != b, "equal strings intern to equal ids");
    TAP_IS_STR(pyprof_profile_string(p, b), "main", "string text round-trips");
    TAP_IS_INT(S(p, ""), 0, "id 0 is the empty string");
    pyprof_id l;
    pyprof_profile_intern_lossy(p, &l, "caf\xe9", 4, 1);
    TAP_IS_STR(pyprof_profile_string(p, l), "caf\xc3\xa9", "latin-1 fallback decodes \\xe9");
    pyprof_profile_intern_lossy(p, &l,
                                "a\xff"
                                "b",
                                3, 0);
    TAP_IS_STR(pyprof_profile_string(p, l),
               "a\xef\xbf\xbd"
               "b",
               "invalid byte becomes U+FFFD");
    TAP_IS_INT(pyprof_profile_replacements(p), 2, "replacements are counted");
    /* many strings force several rehashes */
    char buf[32];
    int ok = 1;
    for (int i = 0; i < 20000; i++) {
        snprintf(buf, sizeof buf, "s%d", i);
        pyprof_id id = S(p, buf);
        if (strcmp(pyprof_profile_string(p, id), buf) != 0)
            ok = 0;
    }
    for (int i = 0; i < 20000 && ok; i += 7) {
        snprintf(buf, sizeof buf, "s%d", i);
        pyprof_id id1 = S(p, buf), id2 = S(p, buf);
        ok = id1 == id2;
    }
    TAP_OK(ok, "20000 strings stay distinct and stable across rehashes");
    pyprof_profile_free(p);
}

static void
test_funcs_edges(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id fib = F(p, "prog.py", 2, "fib");
    pyprof_id mainf = F(p, "prog.py", 10, "main");
    pyprof_id len = F(p, "~", 0, "<built-in method builtins.len>");
    TAP_OK(fib == 0 && mainf == 1 && len == 2, "functions get ids in insertion order");
    TAP_IS_INT(F(p, "prog.py", 2, "fib"), fib, "same key finds the same function");
    TAP_IS_INT(pyprof_profile_func_find(p, S(p, "prog.py"), 3, S(p, "fib"), 0), PYPROF_NONE,
               "a different line is a different function");
    pyprof_id code;
    pyprof_profile_func_intern(p, &code, S(p, "prog.py"), 2, S(p, "fib"), PYPROF_FUNC_CODEOBJ,
                               NULL);
    TAP_OK(code != fib, "a code-object name is not the same key as a string name");

    pyprof_id e1, e2, e3;
    pyprof_profile_edge_intern(p, &e1, mainf, fib, NULL);
    pyprof_profile_edge_intern(p, &e2, fib, fib, NULL);
    pyprof_profile_edge_intern(p, &e3, mainf, len, NULL);
    const pyprof_id *ids;
    size_t n;
    pyprof_profile_callers(p, fib, &ids, &n);
    TAP_OK(n == 2 && ids[0] == e1 && ids[1] == e2, "callers of fib in insertion order");
    pyprof_profile_callees(p, mainf, &ids, &n);
    TAP_OK(n == 2 && ids[0] == e1 && ids[1] == e3, "callees of main in insertion order");
    pyprof_profile_callers(p, mainf, &ids, &n);
    TAP_IS_INT(n, 0, "main has no callers");
    pyprof_id e4;
    pyprof_profile_edge_intern(p, &e4, len, mainf, NULL);
    pyprof_profile_callers(p, mainf, &ids, &n);
    TAP_OK(n == 1 && ids[0] == e4, "the caller index is rebuilt after a new edge");
    TAP_IS_INT(pyprof_profile_caps(p), PYPROF_CAP_FUNCS | PYPROF_CAP_EDGES, "caps: funcs+edges");
    pyprof_profile_free(p);
}

/* pstats.Stats.add: counters summed, new functions and callers appended. */
static void
test_merge(void)
{
    pyprof_profile *a, *b;
    pyprof_profile_new(&a);
    pyprof_profile_new(&b);
    pyprof_id a_main = F(a, "m.py", 1, "main"), a_f = F(a, "m.py", 5, "f");
    pyprof_profile_func_mut(a, a_f)->counts = (pyprof_counts){1, 2, 0.5, 1.0};
    pyprof_id e;
    pyprof_profile_edge_intern(a, &e, a_main, a_f, NULL);
    pyprof_profile_edge_mut(a, e)->counts = (pyprof_counts){2, 2, 0.5, 1.0};

    pyprof_id b_g = F(b, "m.py", 9, "g"), b_f = F(b, "m.py", 5, "f");
    pyprof_profile_func_mut(b, b_f)->counts = (pyprof_counts){3, 4, 0.25, 2.0};
    pyprof_profile_edge_intern(b, &e, b_g, b_f, NULL);
    pyprof_profile_edge_mut(b, e)->counts = (pyprof_counts){4, 3, 0.25, 2.0};
    pyprof_profile_add_source(b, "b.prof", "pstats", 5);

    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_profile_merge(a, b, &err), 0, "merge succeeds");
    TAP_IS_INT(pyprof_profile_func_count(a), 3, "union of functions");
    TAP_IS_STR(pyprof_profile_string(a, pyprof_profile_func(a, 2)->name), "g",
               "new function appended at the end");
    const pyprof_counts *c = &pyprof_profile_func(a, a_f)->counts;
    TAP_OK(c->primcalls == 4 && c->ncalls == 6 && c->tottime == 0.75 && c->cumtime == 3.0,
           "existing function's counters summed");
    const pyprof_id *ids;
    size_t n;
    pyprof_profile_callers(a, a_f, &ids, &n);
    TAP_OK(n == 2 && pyprof_profile_edge(a, ids[0])->caller == a_main &&
               pyprof_profile_func(a, pyprof_profile_edge(a, ids[1])->caller)->line == 9,
           "old callers first, new callers appended");
    TAP_IS_INT(pyprof_profile_source_count(a), 1, "sources appended");

    /* a count-only (profile module) edge cannot meet a cProfile tuple */
    pyprof_profile *c1;
    pyprof_profile_new(&c1);
    pyprof_id x = F(c1, "m.py", 1, "main"), y = F(c1, "m.py", 5, "f");
    pyprof_profile_edge_intern(c1, &e, x, y, NULL);
    pyprof_profile_edge_mut(c1, e)->flags = PYPROF_EDGE_COUNT_ONLY;
    int rc = pyprof_profile_merge(a, c1, &err);
    TAP_IS_INT(rc, PYPROF_EFORMAT, "int caller count + tuple is an error, as TypeError");
    TAP_OK(strstr(err.message, "call count") != NULL, "and the message says why");
    pyprof_profile_free(c1);
    pyprof_profile_free(a);
    pyprof_profile_free(b);
}

/* stacks a;b;a (2), a;c (1): recursion counted once per sample */
static void
test_derive(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id a = F(p, "", 0, "a"), b = F(p, "", 0, "b"), c = F(p, "", 0, "c");
    pyprof_id n1, n2, n3, n4;
    pyprof_profile_stack_child(p, &n1, PYPROF_NONE, a);
    pyprof_profile_stack_child(p, &n2, n1, b);
    pyprof_profile_stack_child(p, &n3, n2, a);
    pyprof_profile_stack_node_mut(p, n3)->self[0] = 2;
    pyprof_profile_stack_child(p, &n4, n1, c);
    pyprof_profile_stack_node_mut(p, n4)->self[0] = 1;
    pyprof_id again;
    pyprof_profile_stack_child(p, &again, n1, b);
    TAP_IS_INT(again, n2, "stack_child finds an existing path");
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_profile_derive_callgraph(p, &err), 0, "derive succeeds");
    const pyprof_func *fa = pyprof_profile_func(p, a);
    TAP_IS_DBL(fa->counts.cumtime, 3, 0, "a total = 3 samples (not 5)");
    TAP_IS_DBL(fa->counts.tottime, 2, 0, "a self = 2");
    TAP_IS_DBL(pyprof_profile_func(p, b)->counts.cumtime, 2, 0, "b total = 2");
    TAP_IS_DBL(pyprof_profile_func(p, c)->counts.tottime, 1, 0, "c self = 1");
    pyprof_id eab = pyprof_profile_edge_find(p, a, b), eba = pyprof_profile_edge_find(p, b, a);
    TAP_OK(eab != PYPROF_NONE && eba != PYPROF_NONE, "edges a->b and b->a exist");
    TAP_IS_DBL(pyprof_profile_edge(p, eba)->counts.cumtime, 2, 0, "b->a carries 2");
    TAP_IS_STR(pyprof_profile_meta_get(p, "time_unit"), "samples", "time unit is samples");
    pyprof_profile_free(p);
}

/* Every allocation in a build-and-merge sequence may fail; each failure
 * must surface as ENOMEM (checked under valgrind/ASan for leaks). */
static int
build_and_merge(void)
{
    pyprof_profile *a = NULL, *b = NULL;
    int rc = 0;
    pyprof_id s1, s2, f1, f2, e, node;
    PYPROF_TRY(pyprof_profile_new(&a));
    PYPROF_TRY(pyprof_profile_new(&b));
    for (int i = 0; i < 50; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        PYPROF_TRY(pyprof_profile_intern(b, &s1, "x.py", 4));
        PYPROF_TRY(pyprof_profile_intern(b, &s2, name, strlen(name)));
        PYPROF_TRY(pyprof_profile_func_intern(b, &f2, s1, i, s2, 0, NULL));
        if (i) {
            PYPROF_TRY(pyprof_profile_edge_intern(b, &e, f1, f2, NULL));
            PYPROF_TRY(pyprof_profile_stack_child(b, &node, PYPROF_NONE, f2));
        }
        f1 = f2;
    }
    PYPROF_TRY(pyprof_profile_meta_set(b, "producer", "test"));
    PYPROF_TRY(pyprof_profile_add_source(b, "b", "pstats", 0));
    PYPROF_TRY(pyprof_profile_merge(a, b, NULL));
    PYPROF_TRY(pyprof_profile_derive_callgraph(a, NULL));
out:
    pyprof_profile_free(a);
    pyprof_profile_free(b);
    return rc;
}

static void
test_oom_sweep(void)
{
    int bad = 0;
    long n;
    for (n = 0; n < 100000; n++) {
        pyprof__alloc_fail_after(n);
        int rc = build_and_merge();
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM)
            bad++;
    }
    pyprof__alloc_fail_after(-1);
    TAP_OK(n > 10 && n < 100000, "OOM sweep reached success after %ld failing runs", n);
    TAP_IS_INT(bad, 0, "every failed allocation came back as ENOMEM");
}

/* The prefault helper only ever populates: what the memory holds before
 * is what it holds after, with the helper stopped early or left to finish;
 * ranges too small for a thread get none. */
static void
test_prefault(void)
{
    size_t n = (size_t)24 << 20;
    unsigned char *m = malloc(n);
    for (size_t i = 0; i < n; i += 4093)
        m[i] = (unsigned char)(i * 31 + 7);
    pyprof__prefault *pf = pyprof__prefault_start(m, n);
    pyprof__prefault_finish(pf); /* at once: stops at the next slice */
    pf = pyprof__prefault_start(m + 1, n - 2);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL); /* let it run */
    pyprof__prefault_finish(pf);
    size_t bad = 0;
    for (size_t i = 0; i < n; i += 4093)
        bad += m[i] != (unsigned char)(i * 31 + 7);
    TAP_IS_INT(bad, 0, "prefaulting leaves the contents alone");
    TAP_OK(pyprof__prefault_start(m, 4096) == NULL, "a small range gets no helper");
    TAP_OK(pyprof__prefault_start(NULL, 0) == NULL, "an empty range gets no helper");
    pyprof__prefault_finish(NULL);
    free(m);
}

/* The valid UTF-8 prefix, one code point at a time (the definition that
 * pyprof__utf8_valid_prefix's eight-byte ASCII steps must agree with). */
static size_t
utf8_prefix_slow(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t n = c < 0x80                 ? 0
                   : c >= 0xC2 && c <= 0xDF ? 1
                   : c >= 0xE0 && c <= 0xEF ? 2
                   : c >= 0xF0 && c <= 0xF4 ? 3
                                            : 9;
        if (c == 0 || n == 9 || len - i <= n)
            return i;
        uint32_t cp = n == 0 ? c : c & (0x3F >> n);
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return i;
}

/* Mostly-ASCII strings with one odd byte or sequence (NUL, 0x7F-0x80
 * edges, a valid or broken multibyte sequence) at every position, every
 * length up to 40 and every alignment. */
static void
test_utf8_prefix(void)
{
    static const char *const odd[] = {"",
                                      "\x00",
                                      "\x7f",
                                      "\x80",
                                      "\xc3\xa9",
                                      "\xc3",
                                      "\xe2\x82\xac",
                                      "\xe2\x82",
                                      "\xed\xa0\x80",
                                      "\xf0\x9f\x98\x80",
                                      "\xf4\x90\x80\x80",
                                      "\xff",
                                      "\xc0\xaf"};
    unsigned char buf[64];
    long bad = 0, cases = 0;
    for (size_t o = 0; o < sizeof odd / sizeof *odd; o++)
        for (size_t align = 0; align < 8; align++)
            for (size_t len = 0; len <= 40; len++)
                for (size_t at = 0; at <= len; at++) {
                    unsigned char *t = buf + align;
                    for (size_t i = 0; i < len; i++)
                        t[i] = (unsigned char)('a' + (i * 7 + o) % 26);
                    size_t ol = strlen(odd[o]);
                    if (o == 1)
                        ol = 1; /* (the NUL) */
                    for (size_t k = 0; k < ol && at + k < len; k++)
                        t[at + k] = (unsigned char)odd[o][k];
                    cases++;
                    bad += pyprof__utf8_valid_prefix(t, len) != utf8_prefix_slow(t, len);
                }
    TAP_OK(bad == 0, "valid UTF-8 prefix: %ld of %ld cases differ from the byte loop", bad, cases);
    const unsigned char ascii[] = "0123456789abcdefghijklmnopqrstuvwxyz~ ()./:";
    TAP_IS_INT((int)pyprof__utf8_valid_prefix(ascii, sizeof ascii - 1), (int)(sizeof ascii - 1),
               "a plain ASCII label is valid whole");
}

int
main(void)
{
    test_strings();
    test_utf8_prefix();
    test_funcs_edges();
    test_merge();
    test_derive();
    test_oom_sweep();
    test_prefault();
    return tap_done();
}
