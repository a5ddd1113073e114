/*
 * t_convert.c - writers and the callgrind/speedscope readers: read -> write
 * -> read gives an equal model (compared by a model-equality helper, on the
 * fixtures and on every case of $PYPROF_CORPUS), the pstats bytes of
 * formats.md §2.11, estimated stacks, reader errors, rank statistics and
 * diffs on constructed inputs.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <sys/stat.h>

#include "pyprof_int.h"
#include "tap.h"

/* ---- model equality ---------------------------------------------------------- */

/* Times are equal within `eps` seconds plus a relative 1e-12 (callgrind
 * holds integer nanoseconds; the others hold doubles exactly). */
static bool
near(double a, double b, double eps)
{
    return fabs(a - b) <= eps + 1e-12 * fmax(fabs(a), fabs(b));
}

static pyprof_id
find_func(const pyprof_profile *p, const pyprof_profile *q, pyprof_id f)
{
    const pyprof_func *fn = pyprof_profile_func(p, f);
    const char *file = pyprof_profile_string(p, fn->file),
               *name = pyprof_profile_string(p, fn->name);
    for (size_t i = 0; i < pyprof_profile_func_count(q); i++) {
        const pyprof_func *g = pyprof_profile_func(q, (pyprof_id)i);
        if (g->line == fn->line && strcmp(pyprof_profile_string(q, g->file), file) == 0 &&
            strcmp(pyprof_profile_string(q, g->name), name) == 0)
            return (pyprof_id)i;
    }
    return PYPROF_NONE;
}

/* Functions and edges equal as sets keyed by (file, line, name); stack
 * trees equal as sets of (path, weight).  Says what differs first. */
static bool
model_equal(pyprof_profile *a, pyprof_profile *b, double eps, bool stacks, char *why, size_t n)
{
    if (pyprof_profile_func_count(a) != pyprof_profile_func_count(b)) {
        snprintf(why, n, "%zu vs %zu functions", pyprof_profile_func_count(a),
                 pyprof_profile_func_count(b));
        return false;
    }
    if (pyprof_profile_edge_count(a) != pyprof_profile_edge_count(b)) {
        snprintf(why, n, "%zu vs %zu edges", pyprof_profile_edge_count(a),
                 pyprof_profile_edge_count(b));
        return false;
    }
    size_t nf = pyprof_profile_func_count(a);
    pyprof_id *map = calloc(nf ? nf : 1, sizeof(*map));
    bool ok = true;
    for (size_t i = 0; i < nf && ok; i++) {
        const pyprof_func *f = pyprof_profile_func(a, (pyprof_id)i);
        map[i] = find_func(a, b, (pyprof_id)i);
        if (map[i] == PYPROF_NONE) {
            snprintf(why, n, "function %s:%lld(%s) missing", pyprof_profile_string(a, f->file),
                     (long long)f->line, pyprof_profile_string(a, f->name));
            ok = false;
            break;
        }
        const pyprof_func *g = pyprof_profile_func(b, map[i]);
        if (f->counts.ncalls != g->counts.ncalls || f->counts.primcalls != g->counts.primcalls ||
            !near(f->counts.tottime, g->counts.tottime, eps) ||
            !near(f->counts.cumtime, g->counts.cumtime, eps) ||
            (f->flags & PYPROF_FUNC_CALLER_ONLY) != (g->flags & PYPROF_FUNC_CALLER_ONLY)) {
            snprintf(why, n, "counts of %s differ: %lld/%lld %.17g %.17g vs %lld/%lld %.17g %.17g",
                     pyprof_profile_string(a, f->name), (long long)f->counts.ncalls,
                     (long long)f->counts.primcalls, f->counts.tottime, f->counts.cumtime,
                     (long long)g->counts.ncalls, (long long)g->counts.primcalls, g->counts.tottime,
                     g->counts.cumtime);
            ok = false;
        }
    }
    for (size_t i = 0; i < pyprof_profile_edge_count(a) && ok; i++) {
        const pyprof_edge *e = pyprof_profile_edge(a, (pyprof_id)i);
        pyprof_id k = pyprof_profile_edge_find(b, map[e->caller], map[e->callee]);
        if (k == PYPROF_NONE) {
            snprintf(why, n, "edge %u -> %u missing", e->caller, e->callee);
            ok = false;
            break;
        }
        const pyprof_edge *d = pyprof_profile_edge(b, k);
        if (e->counts.ncalls != d->counts.ncalls || e->counts.primcalls != d->counts.primcalls ||
            !near(e->counts.tottime, d->counts.tottime, eps) ||
            !near(e->counts.cumtime, d->counts.cumtime, eps) ||
            (e->flags & PYPROF_EDGE_COUNT_ONLY) != (d->flags & PYPROF_EDGE_COUNT_ONLY)) {
            snprintf(why, n, "edge counts differ (%s -> %s)",
                     pyprof_profile_string(a, pyprof_profile_func(a, e->caller)->name),
                     pyprof_profile_string(a, pyprof_profile_func(a, e->callee)->name));
            ok = false;
        }
    }
    if (ok && stacks) {
        /* every weighted node of a has a node with the same path and weight in b */
        size_t na = 0, nb = 0;
        for (size_t i = 0; i < pyprof_profile_stack_count(b); i++)
            nb += pyprof_profile_stack_node(b, (pyprof_id)i)->self[0] != 0;
        for (size_t i = 0; i < pyprof_profile_stack_count(a) && ok; i++) {
            const pyprof_stack_node *nd = pyprof_profile_stack_node(a, (pyprof_id)i);
            if (nd->self[0] == 0)
                continue;
            na++;
            /* walk the path root-first in b */
            pyprof_id path[4096];
            size_t depth = 0;
            for (pyprof_id id = (pyprof_id)i; id != PYPROF_NONE && depth < 4096;
                 id = pyprof_profile_stack_node(a, id)->parent)
                path[depth++] = id;
            pyprof_id cur = PYPROF_NONE;
            while (depth-- > 0 && ok) {
                const pyprof_id *kids;
                size_t nk, j;
                pyprof_profile_stack_children(b, cur, &kids, &nk);
                pyprof_id want = map[pyprof_profile_stack_node(a, path[depth])->func];
                for (j = 0; j < nk; j++) {
                    if (pyprof_profile_stack_node(b, kids[j])->func == want)
                        break;
                }
                if (j == nk) {
                    snprintf(why, n, "a stack of the first is missing in the second");
                    ok = false;
                } else {
                    cur = kids[j];
                }
            }
            if (ok && !near(pyprof_profile_stack_node(b, cur)->self[0], nd->self[0], eps)) {
                snprintf(why, n, "stack weight %.17g vs %.17g", nd->self[0],
                         pyprof_profile_stack_node(b, cur)->self[0]);
                ok = false;
            }
        }
        if (ok && na != nb) {
            snprintf(why, n, "%zu vs %zu weighted stacks", na, nb);
            ok = false;
        }
    }
    free(map);
    return ok;
}

static bool
unit_is_seconds(const pyprof_profile *p)
{
    const char *u = pyprof_profile_meta_get(p, "time_unit");
    return !u || strcmp(u, "seconds") == 0;
}

/* ---- helpers ------------------------------------------------------------------ */

static int
write_mem(pyprof_profile *p, const char *fmt, pyprof_output **out, pyprof_notes *notes)
{
    pyprof_write_options wo = PYPROF_WRITE_OPTIONS_INIT;
    pyprof_error err = PYPROF_ERROR_INIT;
    wo.notes = notes;
    pyprof_output_open_memory(out, NULL);
    int rc = pyprof_profile_write(p, *out, fmt, &wo, &err);
    if (rc < 0)
        tap_diag("write %s: %s", fmt, err.message);
    return rc;
}

static int
read_mem(pyprof_profile **p, pyprof_output *o, const char *fmt)
{
    size_t len;
    const unsigned char *d = pyprof_output_data(o, &len);
    pyprof_input *in;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = fmt;
    pyprof_input_open_memory(&in, d, len, "mem", NULL);
    int rc = pyprof_profile_read(p, in, &ro, &err);
    if (rc < 0)
        tap_diag("read back %s: line %lld offset %lld: %s", fmt, (long long)err.line,
                 (long long)err.offset, err.message);
    pyprof_input_close(in);
    return rc;
}

/* write `p` as `fmt`, read it back as `rfmt`, compare */
static bool
round_trip(pyprof_profile *p, const char *fmt, double eps, bool stacks, const char *label)
{
    pyprof_output *o;
    pyprof_profile *q = NULL;
    char why[512] = "";
    bool ok = write_mem(p, fmt, &o, NULL) == 0 && read_mem(&q, o, fmt) == 0;
    /* a reader of stacks may leave the call graph to be derived on demand */
    if (ok && pyprof_profile_edge_count(p) && !pyprof_profile_edge_count(q) &&
        (pyprof_profile_caps(q) & PYPROF_CAP_STACKS))
        pyprof_profile_derive_callgraph(q, NULL);
    ok = ok && model_equal(p, q, eps, stacks, why, sizeof why);
    if (!tap_ok(ok, "%s: %s round trip", label, fmt))
        tap_diag("  %s", why);
    pyprof_output_abort(o);
    pyprof_profile_free(q);
    return ok;
}

static pyprof_id
S(pyprof_profile *p, const char *s)
{
    pyprof_id id;
    pyprof_profile_intern(p, &id, s, strlen(s));
    return id;
}

static pyprof_id
F(pyprof_profile *p, const char *file, int line, const char *name, int64_t nc, int64_t cc,
  double tt, double ct)
{
    pyprof_id id;
    pyprof_profile_func_intern(p, &id, S(p, file), line, S(p, name), 0, NULL);
    pyprof_func *f = pyprof_profile_func_mut(p, id);
    f->counts = (pyprof_counts){cc, nc, tt, ct};
    return id;
}

static void
E(pyprof_profile *p, pyprof_id caller, pyprof_id callee, int64_t nc, int64_t cc, double tt,
  double ct)
{
    pyprof_id id;
    pyprof_profile_edge_intern(p, &id, caller, callee, NULL);
    pyprof_profile_edge_mut(p, id)->counts = (pyprof_counts){cc, nc, tt, ct};
}

/* the fib example of formats.md §3.2 */
static pyprof_profile *
fib_profile(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_id fib = F(p, "prog.py", 2, "fib", 465, 1, 0.000181781, 0.003179289);
    pyprof_id mod = F(p, "prog.py", 1, "<module>", 1, 1, 5.287e-06, 0.003185576);
    pyprof_id mn = F(p, "prog.py", 10, "main", 1, 1, 1e-06, 0.003180289);
    pyprof_id ln = F(p, "~", 0, "<built-in method builtins.len>", 3, 3, 0.002997508, 0.002997508);
    pyprof_id i1 = F(p, "prog.py", 20, "__init__", 2, 2, 1e-8, 1e-8);
    pyprof_id i2 = F(p, "prog.py", 30, "__init__", 1, 1, 2e-8, 2e-8);
    E(p, mn, fib, 1, 1, 1e-4, 0.003179289);
    E(p, fib, fib, 464, 2, 8e-5, 0.000180649);
    E(p, mod, mn, 1, 1, 1e-6, 0.003180289);
    E(p, fib, ln, 3, 3, 0.002997508, 0.002997508);
    E(p, mn, i1, 2, 2, 1e-8, 1e-8);
    E(p, mn, i2, 1, 1, 2e-8, 2e-8);
    (void)i2;
    return p;
}

static void
test_pstats_bytes(void)
{
    pyprof_profile *p = fib_profile();
    pyprof_output *o;
    write_mem(p, "pstats", &o, NULL);
    size_t len;
    const unsigned char *d = pyprof_output_data(o, &len);
    /* formats.md §2.11: the first bytes marshal.dumps(d, 2) writes */
    static const unsigned char want[] = {0x7B, 0x28, 0x03, 0x00, 0x00, 0x00, 0x75, 0x07, 0x00,
                                         0x00, 0x00, 'p',  'r',  'o',  'g',  '.',  'p',  'y',
                                         0x69, 0x02, 0x00, 0x00, 0x00, 0x75, 0x03, 0x00, 0x00,
                                         0x00, 'f',  'i',  'b',  0x28, 0x05, 0x00, 0x00, 0x00};
    TAP_OK(len > sizeof(want) && memcmp(d, want, sizeof(want)) == 0,
           "pstats starts as marshal v2 of formats.md 2.11");
    TAP_OK(d[len - 1] == '0' && d[len - 2] == '0', "pstats ends with the two dict terminators");
    pyprof_output_abort(o);
    /* big counts use 'l' */
    pyprof_func *f = pyprof_profile_func_mut(p, 0);
    f->counts.ncalls = (int64_t)1 << 40;
    write_mem(p, "pstats", &o, NULL);
    d = pyprof_output_data(o, &len);
    static const unsigned char big[] = {0x6C, 0x03, 0x00, 0x00, 0x00, 0x00,
                                        0x00, 0x00, 0x00, 0x00, 0x04};
    TAP_OK(memmem(d, len, big, sizeof big) != NULL, "2^40 is written as 'l' with digits 0,0,1024");
    pyprof_output_abort(o);
    pyprof_profile_free(p);
}

static void
test_model_round_trips(void)
{
    pyprof_profile *p = fib_profile();
    round_trip(p, "callgrind", 1e-9, false, "fib model");
    /* callgrind output loads in this library with the ":LINE" suffixes removed */
    pyprof_output *o;
    write_mem(p, "callgrind", &o, NULL);
    size_t len;
    const unsigned char *d = pyprof_output_data(o, &len);
    TAP_OK(memmem(d, len, "fn=(5) __init__:20\n", 19) && memmem(d, len, "totals: 3185606\n", 16),
           "callgrind: duplicate names get :LINE, totals = sum of self ns");
    pyprof_output_abort(o);

    /* two functions with one pstats key (a code-object name equal to a
     * string name): one entry, counts and callers added, not two entries of
     * which Python keeps the later */
    pyprof_profile *dup;
    pyprof_profile_new(&dup);
    pyprof_id main_f = F(dup, "m.py", 1, "main", 1, 1, 0.5, 4.0);
    pyprof_id f1 = F(dup, "m.py", 5, "work", 2, 2, 1.0, 1.0);
    pyprof_id f2;
    pyprof_profile_func_intern(dup, &f2, S(dup, "m.py"), 5, S(dup, "work"), PYPROF_FUNC_CODEOBJ,
                               NULL);
    pyprof_profile_func_mut(dup, f2)->counts = (pyprof_counts){3, 3, 2.0, 2.5};
    E(dup, main_f, f1, 2, 2, 1.0, 1.0);
    E(dup, main_f, f2, 3, 3, 2.0, 2.5);
    pyprof_notes *dn;
    pyprof_notes_new(&dn);
    write_mem(dup, "pstats", &o, dn);
    pyprof_profile *db = NULL;
    bool merged = read_mem(&db, o, "pstats") == 0 && pyprof_profile_func_count(db) == 2 &&
                  pyprof_profile_edge_count(db) == 1 && pyprof_notes_count(dn) >= 1;
    for (size_t i = 0; merged && i < 2; i++) {
        const pyprof_func *f = pyprof_profile_func(db, (pyprof_id)i);
        if (strcmp(pyprof_profile_string(db, f->name), "work") == 0)
            merged = f->counts.ncalls == 5 && f->counts.tottime == 3.0 && f->counts.cumtime == 3.5;
    }
    const pyprof_edge *de = merged ? pyprof_profile_edge(db, 0) : NULL;
    TAP_OK(merged && de && de->counts.ncalls == 5 && de->counts.cumtime == 3.5,
           "pstats: two functions with one key are one entry, counts and callers added");
    pyprof_profile_free(db);
    pyprof_notes_free(dn);
    pyprof_output_abort(o);
    pyprof_profile_free(dup);

    /* a name that ends in ":LINE" itself keeps it (only the writer's
     * suffixes come off), next to a suffixed duplicate pair */
    pyprof_profile *sfx;
    pyprof_profile_new(&sfx);
    F(sfx, "t.py", 7, "tick:7", 1, 1, 1.0, 1.0);
    F(sfx, "t.py", 9, "tock", 1, 1, 1.0, 1.0);
    F(sfx, "t.py", 12, "tock", 1, 1, 1.0, 1.0);
    round_trip(sfx, "callgrind", 1e-9, false, "name ending in its line number");
    pyprof_profile_free(sfx);

    /* callgrind positions are unsigned: a negative line (damaged input) is 0 */
    pyprof_profile *neg;
    pyprof_profile_new(&neg);
    pyprof_id nm = F(neg, "n.py", -3, "neg", 1, 1, 1.0, 2.0),
              nc = F(neg, "n.py", 5, "c", 1, 1, 1, 1);
    E(neg, nm, nc, 1, 1, 1.0, 1.0);
    write_mem(neg, "callgrind", &o, NULL);
    d = pyprof_output_data(o, &len);
    TAP_OK(!memmem(d, len, "-3", 2) && memmem(d, len, "\n0 1000000000\n", 14) &&
               memmem(d, len, "\ncalls=1 5\n0 1000000000\n", 24),
           "callgrind: a negative line is written as position 0");
    pyprof_output_abort(o);
    /* and call counts are unsigned: a negative one is 0, with a note */
    pyprof_id nd = F(neg, "n.py", 9, "d", 1, 1, 1, 1);
    E(neg, nc, nd, -2, -2, 0.5, 0.5);
    pyprof_notes *cn;
    pyprof_notes_new(&cn);
    write_mem(neg, "callgrind", &o, cn);
    d = pyprof_output_data(o, &len);
    bool said = false;
    for (size_t i = 0; i < pyprof_notes_count(cn); i++)
        said |= strstr(pyprof_notes_at(cn, i), "negative call counts") != NULL;
    pyprof_profile *nb = NULL;
    TAP_OK(memmem(d, len, "\ncalls=0 9\n", 11) && said && read_mem(&nb, o, "callgrind") == 0,
           "callgrind: a negative call count is written as 0, noted, and reads back");
    pyprof_profile_free(nb);
    pyprof_notes_free(cn);
    pyprof_output_abort(o);
    pyprof_profile_free(neg);

    /* a stack model: speedscope and collapsed keep stacks */
    pyprof_profile *s;
    pyprof_profile_new(&s);
    pyprof_id a = F(s, "", 0, "a", 0, 0, 0, 0), b = F(s, "x.py", 3, "b", 0, 0, 0, 0);
    pyprof_id c = F(s, "", 0, "<len>", 0, 0, 0, 0);
    pyprof_id n1, n2, n3, n4;
    pyprof_profile_stack_child(s, &n1, PYPROF_NONE, a);
    pyprof_profile_stack_child(s, &n2, n1, b);
    pyprof_profile_stack_child(s, &n3, n2, c);
    pyprof_profile_stack_child(s, &n4, n2, a);
    pyprof_profile_stack_node_mut(s, n1)->self[0] = 2;
    pyprof_profile_stack_node_mut(s, n3)->self[0] = 5;
    pyprof_profile_stack_node_mut(s, n4)->self[0] = 1;
    pyprof_profile_meta_set(s, "time_unit", "samples");
    pyprof_profile_derive_callgraph(s, NULL);
    round_trip(s, "speedscope", 0, true, "stack model");
    round_trip(s, "collapsed", 0, true, "stack model");
    round_trip(s, "callgrind", 0, false, "stack model");
    write_mem(s, "collapsed", &o, NULL);
    d = pyprof_output_data(o, &len);
    static const char folded[] = "a 2\na;b (x.py:3);<len> 5\na;b (x.py:3);a 1\n";
    TAP_OK(len == sizeof(folded) - 1 && memcmp(d, folded, len) == 0, "collapsed text");
    pyprof_output_abort(o);
    pyprof_profile_free(s);

    /* a leaf frame ending in a number would be read back as a first count
     * (a differential line): the writer joins the number to its frame */
    pyprof_profile *num;
    pyprof_profile_new(&num);
    pyprof_id w = F(num, "", 0, "worker 42", 0, 0, 0, 0), r = F(num, "", 0, "run 1.5", 0, 0, 0, 0);
    pyprof_profile_stack_child(num, &n1, PYPROF_NONE, r);
    pyprof_profile_stack_child(num, &n2, n1, w);
    pyprof_profile_stack_node_mut(num, n1)->self[0] = 2;
    pyprof_profile_stack_node_mut(num, n2)->self[0] = 3;
    pyprof_profile_meta_set(num, "time_unit", "samples");
    pyprof_notes *nn;
    pyprof_notes_new(&nn);
    write_mem(num, "collapsed", &o, nn);
    d = pyprof_output_data(o, &len);
    static const char joined[] = "run_1.5 2\nrun 1.5;worker_42 3\n";
    pyprof_profile *jb = NULL;
    TAP_OK(len == sizeof(joined) - 1 && memcmp(d, joined, len) == 0 &&
               pyprof_notes_count(nn) == 1 && read_mem(&jb, o, "collapsed") == 0 &&
               pyprof_profile_stack_metrics(jb) == 1,
           "collapsed: a leaf ending in a number is joined to it with '_', noted, read back "
           "as one count");
    pyprof_profile_free(jb);
    pyprof_notes_free(nn);
    pyprof_output_abort(o);
    pyprof_profile_free(num);

    /* nor may a count have a sign: flamegraph.pl's grammar has none */
    pyprof_profile *sg;
    pyprof_profile_new(&sg);
    pyprof_id sa = F(sg, "", 0, "alloc", 0, 0, 0, 0), sf = F(sg, "", 0, "free", 0, 0, 0, 0);
    pyprof_profile_stack_child(sg, &n1, PYPROF_NONE, sa);
    pyprof_profile_stack_child(sg, &n2, PYPROF_NONE, sf);
    pyprof_profile_stack_node_mut(sg, n1)->self[0] = 3;
    pyprof_profile_stack_node_mut(sg, n2)->self[0] = -5;
    pyprof_profile_meta_set(sg, "time_unit", "samples");
    pyprof_notes_new(&nn);
    write_mem(sg, "collapsed", &o, nn);
    d = pyprof_output_data(o, &len);
    TAP_OK(len == 8 && memcmp(d, "alloc 3\n", 8) == 0 && pyprof_notes_count(nn) == 1,
           "collapsed: a stack with a negative weight is left out, noted");
    pyprof_notes_free(nn);
    pyprof_output_abort(o);
    pyprof_profile_free(sg);

    /* nor may a stack start with '#' (austin's comments, our estimate mark) */
    pyprof_profile *hash;
    pyprof_profile_new(&hash);
    pyprof_id h1 = F(hash, "", 0, "# mode: wall", 0, 0, 0, 0);
    pyprof_profile_stack_child(hash, &n1, PYPROF_NONE, h1);
    pyprof_profile_stack_node_mut(hash, n1)->self[0] = 4;
    pyprof_profile_meta_set(hash, "time_unit", "samples");
    pyprof_notes_new(&nn);
    write_mem(hash, "collapsed", &o, nn);
    d = pyprof_output_data(o, &len);
    TAP_OK(len == 15 && memcmp(d, "_ mode: wall 4\n", 15) == 0 && pyprof_notes_count(nn) == 1,
           "collapsed: a stack starting with '#' starts with '_', noted");
    pyprof_notes_free(nn);
    pyprof_output_abort(o);
    pyprof_profile_free(hash);

    /* estimated stacks from a call graph: main's time splits by edge ratio */
    pyprof_profile *g;
    pyprof_profile_new(&g);
    pyprof_id m = F(g, "m.py", 1, "main", 1, 1, 1.0, 10.0);
    pyprof_id x = F(g, "m.py", 5, "x", 2, 2, 3.0, 3.0);
    pyprof_id y = F(g, "m.py", 9, "y", 1, 1, 2.0, 6.0);
    E(g, m, x, 1, 1, 1.0, 1.0);
    E(g, m, y, 1, 1, 2.0, 6.0);
    E(g, y, x, 1, 1, 2.0, 2.0);
    pyprof_notes *notes;
    pyprof_notes_new(&notes);
    write_mem(g, "collapsed", &o, notes);
    d = pyprof_output_data(o, &len);
    static const char est[] = "# stacks estimated from the call graph by caller ratios; weights "
                              "in microseconds\n"
                              "main (m.py:1) 1000000\n"
                              "main (m.py:1);x (m.py:5) 1000000\n"
                              "main (m.py:1);y (m.py:9) 2000000\n"
                              "main (m.py:1);y (m.py:9);x (m.py:5) 2000000\n";
    if (!TAP_OK(len == sizeof(est) - 1 && memcmp(d, est, len) == 0,
                "estimated folded stacks split x's time 1:2 by caller ratio"))
        tap_diag("%.*s", (int)len, d);
    TAP_OK(pyprof_notes_count(notes) >= 1 && strstr(pyprof_notes_at(notes, 0), "estimated"),
           "the estimate is stated in a note");
    pyprof_output_abort(o);
    pyprof_notes_free(notes);
    pyprof_profile_free(g);
    pyprof_profile_free(p);
}

static int
read_text(pyprof_profile **p, const char *text, const char *fmt, pyprof_error *err)
{
    pyprof_input *in;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = fmt;
    pyprof_input_open_memory(&in, text, strlen(text), "t", NULL);
    int rc = pyprof_profile_read(p, in, &ro, err);
    pyprof_input_close(in);
    return rc;
}

/* Costs past 2^63 (llround's range) are written as their value, costs past
 * 2^64 - 1 as 2^64 - 1 with a note, and the total is held there too, not
 * wrapped; samples summed past 2^63 give call counts of INT64_MAX. */
static void
test_huge_weights(void)
{
    pyprof_profile *p;
    pyprof_profile_new(&p);
    pyprof_profile_meta_set(p, "time_unit", "samples");
    F(p, "a.py", 1, "big", 1, 1, 1e19, 1e19);
    F(p, "a.py", 2, "bigger", 1, 1, 3e19, 3e19);
    pyprof_notes *notes;
    pyprof_notes_new(&notes);
    pyprof_output *o;
    write_mem(p, "callgrind", &o, notes);
    size_t len;
    const unsigned char *d = pyprof_output_data(o, &len);
    bool noted = false;
    for (size_t i = 0; i < pyprof_notes_count(notes); i++)
        noted |= strstr(pyprof_notes_at(notes, i), "2^64") != NULL;
    TAP_OK(memmem(d, len, "\n1 10000000000000000000\n", 24) &&
               memmem(d, len, "\n2 18446744073709551615\n", 24) &&
               memmem(d, len, "totals: 18446744073709551615\n", 29) && noted,
           "callgrind: a cost of 1e19 written whole, 3e19 and the total held at 2^64 - 1, noted");
    pyprof_profile *back = NULL;
    double cum = 0;
    if (read_mem(&back, o, "callgrind") == 0)
        for (size_t i = 0; i < pyprof_profile_func_count(back); i++) {
            const pyprof_func *f = pyprof_profile_func(back, (pyprof_id)i);
            if (strcmp(pyprof_profile_string(back, f->name), "big") == 0)
                cum = f->counts.cumtime;
        }
    TAP_OK(cum == 1e19, "callgrind: a cumulative cost of 1e19 reads back whole (got %.17g)", cum);
    pyprof_profile_free(back);
    pyprof_output_abort(o);
    pyprof_notes_free(notes);
    pyprof_profile_free(p);

    /* folded stacks of 2^63 and more samples: derived call counts saturate */
    static const char folded[] = "main;work 9223372036854775808\nmain 9223372036854775808\n";
    pyprof_input *in;
    pyprof_profile *q = NULL;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "collapsed";
    pyprof_input_open_memory(&in, folded, sizeof folded - 1, "mem", NULL);
    int rc = pyprof_profile_read(&q, in, &ro, NULL);
    pyprof_input_close(in);
    rc = rc < 0 ? rc : pyprof_profile_derive_callgraph(q, NULL);
    int64_t main_calls = 0;
    for (size_t i = 0; rc == 0 && i < pyprof_profile_func_count(q); i++) {
        const pyprof_func *f = pyprof_profile_func(q, (pyprof_id)i);
        if (strcmp(pyprof_profile_string(q, f->name), "main") == 0)
            main_calls = f->counts.ncalls;
    }
    TAP_OK(main_calls == INT64_MAX, "2^64 samples under main: call count INT64_MAX (got %lld)",
           (long long)main_calls);
    pyprof_profile_free(q);
}

static void
test_reader_errors(void)
{
    static const struct {
        const char *fmt, *text;
        int64_t line;
        const char *why;
    } bad[] = {
        {"callgrind", "fn=a\n1 2\n", 2, "cost line before events"},
        {"callgrind", "events: ns\nfn=(3)\n", 2, "undefined compressed name"},
        {"callgrind", "events: ns\nfn=a\n1 zz\n", 3, "bad cost"},
        {"callgrind", "events: ns\nfn=a\ncalls=2 1\n1 5\n", 4, "calls= without cfn="},
        {"callgrind", "events: ns\n%%%\n", 2, "garbage line"},
        {"callgrind",
         "events: ns\nfn=a\ncfn=b\ncalls=9223372036854775807 1\n1 5\n"
         "cfn=b\ncalls=9223372036854775807 1\n1 5\n",
         8, "call counts that add up past 2^63 (fuzz_callgrind)"},
        {"callgrind", "events: ns\nfn=a\n9223372036854775807 1\n+2 1\n", 4,
         "a relative position past 2^63 - 1 (fuzz_callgrind)"},
        {"callgrind", "events: ns\nfn=a\n-9223372036854775807 1\n-2 1\n", 4,
         "a relative position below -2^63"},
        {"speedscope", "{}", 0, "no $schema"},
        {"speedscope", "{\"$schema\": \"x", 0, "truncated JSON"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        int rc = read_text(&p, bad[i].text, bad[i].fmt, &err);
        if (!TAP_OK(rc == PYPROF_EFORMAT && (bad[i].line == 0 || err.line == bad[i].line),
                    "%s rejects: %s", bad[i].fmt, bad[i].why))
            tap_diag("  rc %d line %lld: %s", rc, (long long)err.line, err.message);
        pyprof_profile_free(p);
    }
    /* calls into b from two callers add up past 2^63: an error in a file
     * that gives no count of its own, not in ours, which says b's count */
    static const char many[] = "events: ns\nfn=a\n1 1\ncfn=b\ncalls=9223372036854775807 1\n1 5\n"
                               "fn=c\n1 1\ncfn=b\ncalls=9223372036854775807 1\n1 5\n"
                               "fn=b\n%s1 1\n";
    char text[512];
    pyprof_profile *mp = NULL;
    pyprof_error merr = PYPROF_ERROR_INIT;
    snprintf(text, sizeof text, many, "");
    int mrc = read_text(&mp, text, "callgrind", &merr);
    pyprof_profile_free(mp);
    mp = NULL;
    snprintf(text, sizeof text, many,
             "# pyprof-func: ncalls=9223372036854775807 primcalls=9223372036854775807 cum=11\n");
    int orc = read_text(&mp, text, "callgrind", NULL);
    TAP_OK(mrc == PYPROF_EFORMAT && strstr(merr.message, "calls into b") && orc == 0,
           "callgrind: calls into a function past 2^63 are an error only without our count");
    pyprof_profile_free(mp);

    /* a NUL inside a line would cut a name short: refused, with the line */
    static const char nul[] = "events: ns\nfn=abc\0def\n1 2\n";
    pyprof_input *in;
    pyprof_profile *np = NULL;
    pyprof_error nerr = PYPROF_ERROR_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "callgrind";
    pyprof_input_open_memory(&in, nul, sizeof nul - 1, "mem", NULL);
    int nrc = pyprof_profile_read(&np, in, &ro, &nerr);
    pyprof_input_close(in);
    TAP_OK(nrc == PYPROF_EFORMAT && nerr.line == 2 && strstr(nerr.message, "NUL"),
           "callgrind rejects a NUL byte inside a line, at its line (%s)", nerr.message);
    pyprof_profile_free(np);
    static const char *const ss_bad[] = {"\"samples\":[[0]],\"weights\":[]",
                                         "\"samples\":[[5]],\"weights\":[1]",
                                         "\"samples\":[[0]],\"weights\":[-1]"};
    for (size_t i = 0; i < 3; i++) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                 "\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\","
                 "\"unit\":\"none\",%s}]}",
                 ss_bad[i]);
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        TAP_IS_INT(read_text(&p, buf, "speedscope", &err), PYPROF_EFORMAT, ss_bad[i]);
        pyprof_profile_free(p);
    }
    /* compression: "(1) name" defines, "+N"/"-N"/"*" positions */
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    int rc = read_text(&p,
                       "# callgrind format\nevents: Ticks\nfl=(1) a.py\nfn=(1) f\n5 10\n+2 5\n"
                       "cfn=(2) g\ncalls=2 20\n* 30\nfn=(2)\n20 7\n-1 1\n",
                       NULL, &err);
    TAP_OK(rc == 0 && pyprof_profile_func_count(p) == 2, "compressed callgrind reads");
    if (rc == 0) {
        const pyprof_func *f = pyprof_profile_func(p, 0), *g = pyprof_profile_func(p, 1);
        TAP_OK(f->line == 5 && near(f->counts.tottime, 15e-6, 0) &&
                   near(f->counts.cumtime, 45e-6, 0) && g->line == 20 && g->counts.ncalls == 2 &&
                   near(g->counts.tottime, 8e-6, 0),
               "Ticks are microseconds; self, inclusive and calls add up");
    }
    pyprof_profile_free(p);

    /* before any fl=: no file, which is the file "" - one function g, not
     * two that pstats would write as one key twice (fuzz_write) */
    p = NULL;
    rc = read_text(&p,
                   "# callgrind format\nevents: Ticks\n+2 5\n*\ncfn=(2) g\ncalls=2 20\n* 30\n"
                   "fn=(2)\n20 7\n",
                   NULL, &err);
    size_t gs = 0;
    for (size_t i = 0; rc == 0 && i < pyprof_profile_func_count(p); i++)
        gs +=
            strcmp(pyprof_profile_string(p, pyprof_profile_func(p, (pyprof_id)i)->name), "g") == 0;
    TAP_OK(rc == 0 && gs == 1, "a callee named before any fl= is the function of its fn= (%zu)",
           gs);
    pyprof_profile_free(p);
}

static void
test_fixtures(void)
{
    static const struct {
        const char *file, *fmt;
        size_t nfuncs;
    } fx[] = {{"convert/p2c.callgrind", "callgrind", 6},
              {"convert/yappi.callgrind", "callgrind", 0},
              {"convert/evented.speedscope.json", "speedscope", 3}};
    for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        int rc = pyprof_profile_load(&p, tap_fixture(fx[i].file), NULL, &err);
        if (!TAP_OK(rc == 0, "%s is probed and read", fx[i].file)) {
            tap_diag("  %s", err.message);
            continue;
        }
        TAP_IS_STR(pyprof_profile_string(p, pyprof_profile_source(p, 0)->format), fx[i].fmt,
                   "probe picks the right format");
        if (fx[i].nfuncs)
            TAP_IS_INT(pyprof_profile_func_count(p), fx[i].nfuncs, "function count");
        bool stacks = pyprof_profile_caps(p) & PYPROF_CAP_STACKS;
        if (stacks && !pyprof_profile_edge_count(p))
            pyprof_profile_derive_callgraph(p, NULL);
        round_trip(p, "callgrind", 1e-9, false, fx[i].file);
        if (stacks) {
            round_trip(p, "speedscope", 0, true, fx[i].file);
            /* main ran 10 ms: 1 ms alone, 7 ms in work, 1 ms in idle, 1 ms main again */
            pyprof_id w = pyprof_profile_func_find(p, S(p, "app.py"), 9, S(p, "work"), 0);
            TAP_OK(w != PYPROF_NONE &&
                       near(pyprof_profile_func(p, w)->counts.tottime, 0.007, 1e-15),
                   "evented: work's self time is 7 ms");
        }
        if (strstr(fx[i].file, "yappi")) {
            pyprof_id fib = pyprof_profile_func_find(p, S(p, "workload.py"), 1, S(p, "fib"), 0);
            TAP_OK(fib != PYPROF_NONE && pyprof_profile_func(p, fib)->counts.ncalls == 465,
                   "yappi: 'fib workload.py:1' is fib at line 1 with 465 calls");
        }
        pyprof_profile_free(p);
    }
}

/* every corpus case: read it, and every writer whose reader exists round-trips */
static void
test_corpus(void)
{
    const char *corpus = getenv("PYPROF_CORPUS");
    struct stat st;
    if (!corpus || stat(corpus, &st) != 0) {
        printf("ok %d # SKIP corpus absent\n", ++tap_count);
        return;
    }
    static const char *const kinds[] = {"pstats", "collapsed"};
    int cases = 0, failed = 0;
    for (int k = 0; k < 2; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", corpus, kinds[k]);
        DIR *dd = opendir(dir);
        if (!dd)
            continue;
        struct dirent *de;
        while ((de = readdir(dd))) {
            if (de->d_name[0] == '.')
                continue;
            char cdir[4096 + 256];
            snprintf(cdir, sizeof cdir, "%s/%s", dir, de->d_name);
            DIR *cd = opendir(cdir);
            if (!cd)
                continue;
            struct dirent *fe;
            while ((fe = readdir(cd))) {
                if (fe->d_name[0] == '.' || strcmp(fe->d_name, "case.json") == 0 ||
                    strcmp(fe->d_name, "expected") == 0 || strcmp(fe->d_name, "source") == 0)
                    continue;
                char path[8192 + 512];
                snprintf(path, sizeof path, "%s/%s", cdir, fe->d_name);
                pyprof_profile *p = NULL;
                if (pyprof_profile_load(&p, path, NULL, NULL) < 0)
                    continue; /* the readers' own tests judge what must load */
                cases++;
                bool stacks = pyprof_profile_caps(p) & PYPROF_CAP_STACKS;
                if (stacks && !pyprof_profile_edge_count(p))
                    pyprof_profile_derive_callgraph(p, NULL); /* compare both parts */
                int before = tap_failed;
                if (k == 0)
                    round_trip(p, "pstats", 0, false, path);
                bool integral = true; /* callgrind costs are integers */
                for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
                    double t = pyprof_profile_func(p, (pyprof_id)i)->counts.cumtime;
                    if (!unit_is_seconds(p) && t != floor(t))
                        integral = false;
                }
                if (integral)
                    round_trip(p, "callgrind", 1e-9, false, path);
                if (stacks) {
                    round_trip(p, "collapsed", 0, true, path);
                    if (pyprof_profile_stack_metrics(p) < 2)
                        round_trip(p, "speedscope", 1e-9, true, path);
                }
                failed += tap_failed != before;
                pyprof_profile_free(p);
            }
            closedir(cd);
        }
        closedir(dd);
    }
    tap_diag("corpus: %d inputs converted, %d with a failed round trip", cases, failed);
    TAP_OK(cases > 0, "the corpus has inputs the readers accept");
}

static void
test_ranks(void)
{
    pyprof_ranks *r;
    pyprof_ranks_new(&r);
    double selfs[4] = {1, 2, 3, 10};
    for (int i = 0; i < 4; i++) {
        pyprof_profile *p;
        pyprof_profile_new(&p);
        F(p, "a.py", 1, "work", 1, 1, selfs[i], selfs[i] * 2);
        if (i == 1)
            F(p, "a.py", 9, "rare", 1, 1, 4, 4);
        char label[16];
        snprintf(label, sizeof label, "rank%d", i);
        pyprof_ranks_add(r, p, label, NULL);
        pyprof_profile_free(p);
    }
    pyprof_rank_stat s, t;
    const char *name;
    TAP_IS_INT(pyprof_ranks_func_count(r), 2, "ranks: two functions");
    pyprof_ranks_stat(r, 0, &name, &s, &t);
    TAP_IS_STR(name, "work", "ranks: first function");
    TAP_OK(s.min == 1 && s.max == 10 && s.median == 2.5 && s.mean == 4 && s.argmax == 3 &&
               near(s.stddev, sqrt((9 + 4 + 1 + 36) / 4.0), 1e-15) && s.imbalance == 2.5,
           "ranks: self min/median/max/mean/stddev/imbalance/argmax");
    TAP_OK(t.max == 20 && t.mean == 8, "ranks: total");
    pyprof_ranks_stat(r, 1, &name, &s, &t);
    TAP_OK(s.min == 0 && s.median == 0 && s.max == 4 && s.mean == 1 && s.argmax == 1 &&
               s.imbalance == 4,
           "ranks: absent inputs count as 0");
    pyprof_output *o;
    pyprof_output_open_memory(&o, NULL);
    pyprof_ranks_write(r, o, "csv", 0, NULL);
    size_t len;
    const unsigned char *d = pyprof_output_data(o, &len);
    TAP_OK(memmem(d, len, "\na.py,1,work,1,2.5,10,4,", 24) != NULL, "ranks: CSV row");
    pyprof_output_abort(o);
    pyprof_ranks_free(r);
}

static void
test_diff(void)
{
    pyprof_profile *a, *b;
    pyprof_profile_new(&a);
    pyprof_profile_new(&b);
    F(a, "m.py", 1, "same", 1, 1, 1.0, 2.0);
    F(a, "m.py", 5, "slower", 1, 1, 1.0, 1.0);
    F(a, "m.py", 9, "gone", 1, 1, 2.0, 2.0);
    F(b, "m.py", 1, "same", 1, 1, 1.0, 2.0);
    F(b, "m.py", 5, "slower", 1, 1, 3.0, 3.0);
    F(b, "m.py", 7, "fresh", 1, 1, 0.5, 0.5);
    pyprof_diff_options o = PYPROF_DIFF_OPTIONS_INIT;
    o.type = "csv";
    o.threshold = 0.01;
    pyprof_output *out;
    pyprof_output_open_memory(&out, NULL);
    int rc = pyprof_diff_write(a, b, out, &o, NULL);
    size_t len;
    const unsigned char *d = pyprof_output_data(out, &len);
    static const char want[] =
        "status,file,line,name,self_before,self_after,self_delta,self_rel,total_before,"
        "total_after,total_delta,total_rel,calls_before,calls_after\n"
        "changed,m.py,5,slower,1,3,2,2,1,3,2,2,1,1\n"
        "new,m.py,7,fresh,0,0.5,0.5,,0,0.5,0.5,,0,1\n"
        "vanished,m.py,9,gone,2,0,-2,-1,2,0,-2,-1,1,0\n";
    if (!TAP_OK(rc == 0 && len == sizeof(want) - 1 && memcmp(d, want, len) == 0,
                "diff: changed sorted by delta, unchanged hidden, new and vanished listed"))
        tap_diag("%.*s", (int)len, d);
    pyprof_output_abort(out);
    o.normalize = 1;
    o.type = "json";
    pyprof_output_open_memory(&out, NULL);
    pyprof_diff_write(a, b, out, &o, NULL);
    d = pyprof_output_data(out, &len);
    TAP_OK(memmem(d, len, "\"scale\":1.125", 13) != NULL, "diff --normalize: 4.5 / 4 s");
    pyprof_output_abort(out);
    pyprof_profile_free(a);
    pyprof_profile_free(b);
}

/* Every allocation failing in turn: ENOMEM back, and no leak (ASan/valgrind). */
static void
test_oom(void)
{
    pyprof_profile *p = fib_profile();
    int ok = 1;
    for (long n = 0; n < 400; n++) {
        pyprof_output *o = NULL;
        pyprof_output_open_memory(&o, NULL);
        pyprof__alloc_fail_after(n);
        int rc = pyprof_profile_write(p, o, "collapsed", NULL, NULL);
        pyprof__alloc_fail_after(-1);
        pyprof_output_abort(o);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM)
            ok = 0;
    }
    TAP_OK(ok, "estimated-stack writer: every failed allocation is ENOMEM");
    pyprof_profile_free(p);

    /* the readers, on the fixtures: fail allocation n, n = 0, 1, ... */
    static const char *const files[] = {"convert/p2c.callgrind", "convert/evented.speedscope.json"};
    for (size_t f = 0; f < 2; f++) {
        ok = 1;
        long n;
        for (n = 0; n < 5000; n++) {
            pyprof_profile *q = NULL;
            pyprof_error err = PYPROF_ERROR_INIT;
            pyprof__alloc_fail_after(n);
            int rc = pyprof_profile_load(&q, tap_fixture(files[f]), NULL, &err);
            pyprof__alloc_fail_after(-1);
            pyprof_profile_free(q);
            if (rc == 0)
                break;
            if (rc != PYPROF_ENOMEM) {
                tap_diag("  allocation %ld: rc %d %s", n, rc, err.message);
                ok = 0;
            }
        }
        TAP_OK(ok && n < 5000, "%s: each failed allocation is ENOMEM (%ld sites)", files[f], n);
    }
}

int
main(void)
{
    test_pstats_bytes();
    test_model_round_trips();
    test_huge_weights();
    test_reader_errors();
    test_fixtures();
    test_ranks();
    test_diff();
    test_oom();
    test_corpus();
    return tap_done();
}
