/*
 * callgrind_write.c - writer of the callgrind format (formats.md §10.4), as
 * KCachegrind, QCachegrind and callgrind_annotate load it.
 *
 *   # callgrind format / version: 1 / creator / positions: line
 *   event: ns : Nanoseconds / events: ns / summary: <sum of self>
 *   fl=(F) file   fn=(N) name   <first line> <self ns>
 *     cfi=(F) file  cfn=(N) name  calls=<calls> <callee first line>
 *     <first line> <inclusive ns of those calls>
 *   totals: <sum of self>
 *
 * Files and functions are name-compressed.  KCachegrind identifies a
 * function by (file, name), so a name that occurs twice in one file gets
 * ":<first line>" appended, as pyprof2calltree does.  Times are integer
 * nanoseconds (sample counts for sampled data, event "samples").
 *
 * What callgrind cannot say - a function's own call count and primitive
 * calls, its cumulative time where recursion makes "self + calls" wrong, an
 * edge's primitive calls and self time - is written in comment lines
 * "# pyprof-func: ..." and "# pyprof-call: ...", which every callgrind
 * reader skips and ours uses, so that our own files round-trip.  The
 * function's line also says "line_suffix=1" when the name got ":<first
 * line>", so that our reader takes off only what was added.
 */
#include "config.h"

#include <math.h>

#include "render/convert_int.h"

/* Names end at the line break: a break inside one would start a new line. */
static void
put_name(pyprof_output *o, const pyprof_profile *p, pyprof_id s)
{
    const char *t = pyprof_profile_string(p, s);
    size_t n = pyprof_profile_string_len(p, s), start = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '\n' || t[i] == '\r') {
            pyprof_output_write(o, t + start, i - start);
            pyprof_output_write(o, " ", 1);
            start = i + 1;
        }
    }
    pyprof_output_write(o, t + start, n - start);
}

/* One output line built in memory and written at once.  A profile of
 * 100,000 functions makes a callgrind file of millions of short lines of
 * integers; printf's format parsing, its locale switch and a stdio call per
 * piece took three quarters of the writer's time there.  Each buffer built
 * here holds short literals and at most six integers (the three lines of a
 * call): under 200 bytes. */
struct line {
    char b[256];
    size_t n;
};

static void
lit(struct line *l, const char *s)
{
    size_t k = strlen(s);
    memcpy(l->b + l->n, s, k);
    l->n += k;
}

static void
num(struct line *l, int64_t v)
{
    l->n = (size_t)(pyprof__fmt_i64(l->b + l->n, v) - l->b);
}

/* A position: callgrind's are unsigned, so a negative line (only ever
 * seen in damaged input) is written as 0, the "no line" of the format. */
static void
pos(struct line *l, int64_t line)
{
    num(l, line > 0 ? line : 0);
}

static void
unum(struct line *l, uint64_t v)
{
    l->n = (size_t)(pyprof__fmt_u64(l->b + l->n, v) - l->b);
}

static void
flush(pyprof_output *o, struct line *l)
{
    pyprof_output_write(o, l->b, l->n);
    l->n = 0;
}

/* "key=(id)", and the line's end unless a name follows */
static void
put_ref(pyprof_output *o, const char *key, uint64_t id, bool name_follows)
{
    struct line l = {.n = 0};
    lit(&l, key);
    lit(&l, "=(");
    unum(&l, id);
    lit(&l, name_follows ? ") " : ")\n");
    flush(o, &l);
}

struct cg_state {
    pyprof_profile *p;
    pyprof_output *o;
    double scale;        /* profile units to costs (seconds to ns, or 1) */
    bool clamped;        /* a cost was above what callgrind's 64-bit costs hold */
    bool negative_calls; /* an edge's call count was below 0 (damaged input) */
    uint32_t *file_id;   /* string id -> compressed id (0 = not yet written) */
    uint32_t next_file;
    bool *fn_written;
    bool *dup; /* function name needs ":line" */
};

/* A time or weight as a callgrind cost: a non-negative integer (negative
 * and NaN weights cost nothing), at most 2^64 - 1.  (llround would
 * overflow above 2^63 and turn a huge cost into a wrong one.) */
static uint64_t
cost(struct cg_state *s, double t)
{
    double v = t * s->scale;
    if (!(v > 0))
        return 0;
    if (v >= 18446744073709551616.0) { /* 2^64 */
        s->clamped = true;
        return UINT64_MAX;
    }
    return (uint64_t)round(v);
}

/* a + b, held at 2^64 - 1 */
static uint64_t
add_cost(struct cg_state *s, uint64_t a, uint64_t b)
{
    if (a > UINT64_MAX - b) {
        s->clamped = true;
        return UINT64_MAX;
    }
    return a + b;
}

static void
put_file(struct cg_state *s, const char *key, pyprof_id file)
{
    if (s->file_id[file]) {
        put_ref(s->o, key, s->file_id[file], false);
        return;
    }
    s->file_id[file] = ++s->next_file;
    put_ref(s->o, key, s->file_id[file], true);
    put_name(s->o, s->p, file);
    pyprof_output_write(s->o, "\n", 1);
}

static void
put_fn(struct cg_state *s, const char *key, pyprof_id func)
{
    if (s->fn_written[func]) {
        put_ref(s->o, key, (uint64_t)func + 1, false);
        return;
    }
    const pyprof_func *f = pyprof_profile_func(s->p, func);
    s->fn_written[func] = true;
    put_ref(s->o, key, (uint64_t)func + 1, true);
    put_name(s->o, s->p, f->name);
    struct line l = {.n = 0};
    if (s->dup[func]) {
        lit(&l, ":");
        pos(&l, f->line);
    }
    lit(&l, "\n");
    flush(s->o, &l);
}

/* By (file, name) id; the profile is qsort_r's context (not a file-scope
 * variable: distinct profiles may be written on several threads at once) */
static int
cmp_file_name(const void *a, const void *b, void *profile)
{
    const pyprof_func *fa = pyprof_profile_func(profile, *(const pyprof_id *)a);
    const pyprof_func *fb = pyprof_profile_func(profile, *(const pyprof_id *)b);
    if (fa->file != fb->file)
        return fa->file < fb->file ? -1 : 1;
    if (fa->name != fb->name)
        return fa->name < fb->name ? -1 : 1;
    return *(const pyprof_id *)a < *(const pyprof_id *)b ? -1 : 1;
}

/* Mark every function whose (file, name) is shared with another one. */
static int
find_duplicates(pyprof_profile *p, bool *dup)
{
    size_t n = pyprof_profile_func_count(p);
    pyprof_id *ids = pyprof__calloc(n ? n : 1, sizeof(*ids));
    if (!ids)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < n; i++)
        ids[i] = (pyprof_id)i;
    qsort_r(ids, n, sizeof(*ids), cmp_file_name, p);
    for (size_t i = 1; i < n; i++) {
        const pyprof_func *a = pyprof_profile_func(p, ids[i - 1]);
        const pyprof_func *b = pyprof_profile_func(p, ids[i]);
        if (a->file == b->file && a->name == b->name)
            dup[ids[i - 1]] = dup[ids[i]] = true;
    }
    pyprof__free(ids);
    return 0;
}

/* How many functions ahead the call loop asks for what it will read.
 * A function's calls are scattered over the profile's edge array (pstats
 * stores them by callee), and each names a callee elsewhere in the
 * function array: on a 500,000-edge profile those two cache misses per
 * call were two thirds of the writer's time.  Asking for the edges of
 * function i + 2 and the callees of function i + 1 lets them overlap. */
#define CALLS_AHEAD 2

static void
prefetch_calls(pyprof_profile *p, size_t i, bool callees)
{
    const pyprof_id *es;
    size_t ne;
    if (i >= pyprof_profile_func_count(p) || pyprof_profile_callees(p, (pyprof_id)i, &es, &ne) < 0)
        return;
    for (size_t k = 0; k < ne; k++) {
        const pyprof_edge *e = pyprof_profile_edge(p, es[k]);
        if (callees)
            __builtin_prefetch(pyprof_profile_func(p, e->callee));
        else
            __builtin_prefetch(e);
    }
}

static int
callgrind_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
                pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int rc = pyprof__callgraph_view(in, &p, &owned, opts, err);
    if (rc < 0)
        return rc;
    size_t nf = pyprof_profile_func_count(p);
    bool seconds = pyprof__unit_is_seconds(p);
    struct cg_state s = {.p = p, .o = o, .scale = seconds ? 1e9 : 1.0};

    /* string ids are dense: the largest id any function uses bounds the map */
    pyprof_id max_str = 0;
    for (size_t i = 0; i < nf; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (f->file > max_str)
            max_str = f->file;
    }
    s.file_id = pyprof__calloc((size_t)max_str + 1, sizeof(*s.file_id));
    s.fn_written = pyprof__calloc(nf ? nf : 1, sizeof(*s.fn_written));
    s.dup = pyprof__calloc(nf ? nf : 1, sizeof(*s.dup));
    if (!s.file_id || !s.fn_written || !s.dup) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    if ((rc = find_duplicates(p, s.dup)) < 0)
        goto out;

    uint64_t total = 0;
    for (size_t i = 0; i < nf; i++)
        total = add_cost(&s, total, cost(&s, pyprof_profile_func(p, (pyprof_id)i)->counts.tottime));

    pyprof_output_puts(o, "# callgrind format\nversion: 1\n");
    pyprof_output_printf(o, "creator: libpyprof %s\n", pyprof_version());
    const char *cmd = pyprof_profile_meta_get(p, "cmdline");
    if (cmd && !strpbrk(cmd, "\r\n"))
        pyprof_output_printf(o, "cmd: %s\n", cmd);
    pyprof_output_puts(o, "positions: line\n");
    pyprof_output_puts(o, seconds ? "event: ns : Nanoseconds\nevents: ns\n"
                                  : "event: samples : Samples\nevents: samples\n");
    pyprof_output_printf(o, "summary: %llu\n", (unsigned long long)total);

    for (size_t i = 0; i < nf; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        prefetch_calls(p, i + CALLS_AHEAD, false);
        prefetch_calls(p, i + CALLS_AHEAD - 1, true);
        pyprof_output_write(o, "\n", 1);
        put_file(&s, "fl", f->file);
        put_fn(&s, "fn", (pyprof_id)i);
        struct line l = {.n = 0};
        lit(&l, "# pyprof-func: ncalls=");
        num(&l, f->counts.ncalls);
        lit(&l, " primcalls=");
        num(&l, f->counts.primcalls);
        lit(&l, " cum=");
        unum(&l, cost(&s, f->counts.cumtime));
        if (s.dup[i])
            lit(&l, " line_suffix=1");
        lit(&l, f->flags & PYPROF_FUNC_CALLER_ONLY ? " caller_only=1\n" : "\n");
        pos(&l, f->line);
        lit(&l, " ");
        unum(&l, cost(&s, f->counts.tottime));
        lit(&l, "\n");
        flush(o, &l);
        const pyprof_id *es;
        size_t ne;
        if ((rc = pyprof_profile_callees(p, (pyprof_id)i, &es, &ne)) < 0)
            goto out;
        for (size_t k = 0; k < ne; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, es[k]);
            const pyprof_func *g = pyprof_profile_func(p, e->callee);
            put_file(&s, "cfi", g->file);
            put_fn(&s, "cfn", e->callee);
            lit(&l, "# pyprof-call: primcalls=");
            num(&l, e->counts.primcalls);
            lit(&l, " self=");
            unum(&l, cost(&s, e->counts.tottime));
            lit(&l, e->flags & PYPROF_EDGE_COUNT_ONLY ? " count_only=1\ncalls=" : "\ncalls=");
            /* callgrind's call counts are unsigned (a reader refuses "-2") */
            num(&l, e->counts.ncalls > 0 ? e->counts.ncalls : 0);
            s.negative_calls |= e->counts.ncalls < 0;
            lit(&l, " ");
            pos(&l, g->line);
            lit(&l, "\n");
            pos(&l, f->line);
            lit(&l, " ");
            unum(&l, cost(&s, e->counts.cumtime));
            lit(&l, "\n");
            flush(o, &l);
        }
    }
    pyprof_output_printf(o, "\ntotals: %llu\n", (unsigned long long)total);

    if (pyprof_profile_caps(in) & PYPROF_CAP_STACKS)
        pyprof__note(opts->notes, "callgrind has no stacks: only per-function and per-call "
                                  "totals are kept");
    if (pyprof_profile_caps(in) & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "line timings are not written to callgrind");
    if (pyprof_profile_caps(in) & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "callgrind has no memory timeline: it is dropped");
    if (s.negative_calls)
        pyprof__note(opts->notes, "negative call counts (damaged input) were written as 0");
    if (s.clamped)
        pyprof__note(opts->notes, "costs above 2^64 - 1 (callgrind's largest) were written as "
                                  "2^64 - 1");
    if (seconds) {
        pyprof__note(opts->notes, "callgrind costs are integers: times are rounded to "
                                  "nanoseconds");
    } else {
        for (size_t i = 0; i < nf; i++) {
            double t = pyprof_profile_func(p, (pyprof_id)i)->counts.tottime;
            if (t != floor(t) && t > 0) {
                pyprof__note(opts->notes, "callgrind costs are integers: fractional sample "
                                          "weights are rounded");
                break;
            }
        }
    }
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "callgrind", -1, 0, "cannot write callgrind: %s",
                         pyprof_status_string(rc));
    pyprof__free(s.file_id);
    pyprof__free(s.fn_written);
    pyprof__free(s.dup);
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_callgrind = {
    .name = "callgrind",
    .aliases = "calltree kcachegrind",
    .description = "callgrind, as KCachegrind and callgrind_annotate read it",
    .write = callgrind_write,
};
