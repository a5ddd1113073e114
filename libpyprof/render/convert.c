/*
 * convert.c - the writer registry, conversion notes, and the two derived
 * views writers need: a call graph for a stack-only profile, and estimated
 * stacks for a call-graph-only one.
 *
 * Estimated stacks (pstats -> folded/speedscope) follow the usual rule of
 * gprof-style tools: a function reached with inclusive time w passes to
 * each callee the share w * edge.cumtime / func.cumtime and keeps
 * w * tottime / cumtime as its own.  Recursion is cut where a function is
 * already on the path (its time is inside the outer activation), tiny paths
 * are pruned and the tree is bounded, so a 100k-function graph cannot
 * explode into exponentially many paths.  Trees start at the functions
 * nothing calls, then at the largest function not yet placed (time inside
 * call cycles has no root), and time that cProfile counted twice through
 * recursion is scaled back to the measured total.  The result is an
 * estimate: the call graph does not say which callers' calls were the
 * expensive ones.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include <pyprof/flame.h>

#include "render/convert_int.h"

/* ---- notes ------------------------------------------------------------------ */

struct pyprof_notes {
    char **items;
    size_t n, cap;
};

int
pyprof_notes_new(pyprof_notes **out)
{
    *out = pyprof__calloc(1, sizeof(**out));
    return *out ? 0 : PYPROF_ENOMEM;
}

void
pyprof_notes_free(pyprof_notes *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        pyprof__free(n->items[i]);
    pyprof__free(n->items);
    pyprof__free(n);
}

static int __attribute__((format(printf, 2, 0)))
notes_vadd(pyprof_notes *n, const char *fmt, va_list ap)
{
    char buf[1024];
    pyprof__vsnprintf_c(buf, sizeof(buf), fmt, ap);
    for (size_t i = 0; i < n->n; i++) {
        if (strcmp(n->items[i], buf) == 0)
            return 0;
    }
    if (PYPROF_GROW(n->items, n->cap, n->n + 1) < 0)
        return PYPROF_ENOMEM;
    char *s = pyprof__strdup(buf);
    if (!s)
        return PYPROF_ENOMEM;
    n->items[n->n++] = s;
    return 0;
}

int
pyprof_notes_add(pyprof_notes *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = notes_vadd(n, fmt, ap);
    va_end(ap);
    return rc;
}

size_t
pyprof_notes_count(const pyprof_notes *n)
{
    return n ? n->n : 0;
}

const char *
pyprof_notes_at(const pyprof_notes *n, size_t i)
{
    return n && i < n->n ? n->items[i] : NULL;
}

void
pyprof__note(pyprof_notes *notes, const char *fmt, ...)
{
    if (!notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    (void)notes_vadd(notes, fmt, ap);
    va_end(ap);
}

/* ---- registry ---------------------------------------------------------------- */

static const pyprof__writer *const writers[] = {
    &pyprof__writer_pstats,     &pyprof__writer_collapsed, &pyprof__writer_callgrind,
    &pyprof__writer_speedscope, &pyprof__writer_json,      &pyprof__writer_csv,
};
#define NWRITERS (sizeof(writers) / sizeof(writers[0]))

size_t
pyprof_writer_count(void)
{
    return NWRITERS;
}

const char *
pyprof_writer_name(size_t i)
{
    return i < NWRITERS ? writers[i]->name : NULL;
}

const char *
pyprof_writer_description(size_t i)
{
    return i < NWRITERS ? writers[i]->description : NULL;
}

static const pyprof__writer *
writer_lookup(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < NWRITERS; i++) {
        if (strcmp(writers[i]->name, name) == 0)
            return writers[i];
        for (const char *a = writers[i]->aliases; a && *a;) {
            size_t k = strcspn(a, " ");
            if (k == n && memcmp(a, name, n) == 0)
                return writers[i];
            a += k;
            while (*a == ' ')
                a++;
        }
    }
    return NULL;
}

const char *
pyprof_writer_canonical(const char *name)
{
    const pyprof__writer *w = name ? writer_lookup(name) : NULL;
    return w ? w->name : NULL;
}

static bool
ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

const char *
pyprof_writer_from_path(const char *path)
{
    if (!path)
        return NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    /* valgrind names its files callgrind.out.<pid>: the type is a prefix */
    if (strncmp(base, "callgrind.out", 13) == 0 || ends_with(base, n, ".callgrind"))
        return "callgrind";
    if (ends_with(base, n, ".speedscope.json"))
        return "speedscope";
    if (ends_with(base, n, ".pstats") || ends_with(base, n, ".prof"))
        return "pstats";
    if (ends_with(base, n, ".folded") || ends_with(base, n, ".collapsed"))
        return "collapsed";
    if (ends_with(base, n, ".json"))
        return "json";
    if (ends_with(base, n, ".csv"))
        return "csv";
    return NULL;
}

int
pyprof_profile_write(pyprof_profile *p, pyprof_output *out, const char *format,
                     const pyprof_write_options *opts, pyprof_error *err)
{
    pyprof_write_options def = PYPROF_WRITE_OPTIONS_INIT;
    const pyprof__writer *w = format ? writer_lookup(format) : NULL;
    if (!w)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "unknown output format '%s' (known: pstats, collapsed, "
                                "callgrind, speedscope, json, csv)",
                                format ? format : "(null)");
    if (!opts)
        opts = &def;
    if (pyprof_profile_replacements(p))
        pyprof__note(opts->notes, "%llu invalid byte sequence(s) in names were written as U+FFFD",
                     (unsigned long long)pyprof_profile_replacements(p));
    return w->write(p, out, opts, err);
}

/* ---- helpers shared by the writers --------------------------------------------- */

bool
pyprof__has_callgraph(const pyprof_profile *p)
{
    if (pyprof_profile_edge_count(p))
        return true;
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_counts *c = &pyprof_profile_func(p, (pyprof_id)i)->counts;
        if (c->ncalls || c->primcalls || c->tottime != 0 || c->cumtime != 0)
            return true;
    }
    return false;
}

bool
pyprof__unit_is_seconds(const pyprof_profile *p)
{
    const char *u = pyprof_profile_meta_get(p, "time_unit");
    if (u)
        return strcmp(u, "seconds") == 0;
    /* unset: pstats-like data is in seconds, stacks count samples */
    return !(pyprof_profile_caps(p) & PYPROF_CAP_STACKS);
}

static int
copy_profile(pyprof_profile **out, pyprof_profile *p, pyprof_error *err)
{
    int rc = pyprof_profile_new(out);
    if (rc < 0)
        return pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
    if ((rc = pyprof_profile_merge(*out, p, err)) < 0) {
        pyprof_profile_free(*out);
        *out = NULL;
    }
    return rc;
}

int
pyprof__callgraph_view(pyprof_profile *p, pyprof_profile **view, pyprof_profile **owned,
                       const pyprof_write_options *opts, pyprof_error *err)
{
    *view = p;
    *owned = NULL;
    if (pyprof__has_callgraph(p))
        return 0;
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_STACKS)) {
        if (pyprof_profile_func_count(p) && !(pyprof_profile_caps(p) & PYPROF_CAP_LINES))
            return 0; /* functions that were all never called: still a table */
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has no function timings or stacks to write");
    }
    int rc = copy_profile(owned, p, err);
    if (rc < 0)
        return rc;
    if ((rc = pyprof_profile_derive_callgraph(*owned, err)) < 0) {
        pyprof_profile_free(*owned);
        *owned = NULL;
        return rc;
    }
    *view = *owned;
    pyprof__note(opts->notes, "call graph derived from the stacks: call counts are numbers of "
                              "samples, times are sample weights");
    return 0;
}

/* Inclusive weight of `f` for the estimate: its cumulative time, or for a
 * function known only as a caller (no counters), what its edges carry. */
static double
effective_cum(pyprof_profile *p, pyprof_id f)
{
    const pyprof_func *fn = pyprof_profile_func(p, f);
    if (fn->counts.cumtime > 0)
        return fn->counts.cumtime;
    double sum = fn->counts.tottime;
    const pyprof_id *es;
    size_t ne;
    if (pyprof_profile_callees(p, f, &es, &ne) < 0)
        return sum;
    for (size_t i = 0; i < ne; i++) {
        const pyprof_edge *e = pyprof_profile_edge(p, es[i]);
        if (e->callee != f)
            sum += e->counts.cumtime;
    }
    return sum;
}

struct est_frame {
    pyprof_id node, func;
    double ratio; /* share of the function's inclusive time on this path */
    size_t next;  /* next callee edge to visit */
};

static int
estimate_from_root(pyprof_profile *q, pyprof_id root, double min_w, size_t max_nodes,
                   uint32_t *on_path, struct est_frame **stack, size_t *stack_cap, bool *truncated)
{
    int rc = 0;
    double cum = effective_cum(q, root);
    if (!(cum > 0))
        return 0;
    size_t depth = 0;
    pyprof_id node;
    PYPROF_TRY(pyprof_profile_stack_child(q, &node, PYPROF_NONE, root));
    PYPROF_TRY(PYPROF_GROW(*stack, *stack_cap, 1));
    (*stack)[0] = (struct est_frame){node, root, 1.0, 0};
    pyprof_profile_stack_node_mut(q, node)->self[0] += pyprof_profile_func(q, root)->counts.tottime;
    on_path[root]++;
    for (;;) {
        struct est_frame *fr = &(*stack)[depth];
        const pyprof_id *es;
        size_t ne;
        PYPROF_TRY(pyprof_profile_callees(q, fr->func, &es, &ne));
        if (fr->next < ne) {
            const pyprof_edge *e = pyprof_profile_edge(q, es[fr->next++]);
            if (on_path[e->callee])
                continue; /* recursion: already inside the outer activation */
            double w = e->counts.cumtime * fr->ratio;
            double ccum = effective_cum(q, e->callee);
            if (!(w >= min_w) || !(ccum > 0))
                continue;
            if (pyprof_profile_stack_count(q) >= max_nodes) {
                *truncated = true;
                continue;
            }
            pyprof_id parent = fr->node, callee = e->callee;
            double ratio = w / ccum;
            PYPROF_TRY(pyprof_profile_stack_child(q, &node, parent, callee));
            pyprof_profile_stack_node_mut(q, node)->self[0] +=
                pyprof_profile_func(q, callee)->counts.tottime * ratio;
            PYPROF_TRY(PYPROF_GROW(*stack, *stack_cap, depth + 2));
            (*stack)[++depth] = (struct est_frame){node, callee, ratio, 0};
            on_path[callee]++;
            continue;
        }
        on_path[fr->func]--;
        if (depth == 0)
            break;
        depth--;
    }
out:
    return rc;
}

int
pyprof__stack_view(pyprof_profile *p, pyprof_profile **view, pyprof_profile **owned, int *estimated,
                   const pyprof_write_options *opts, pyprof_error *err)
{
    int rc = 0;
    uint32_t *on_path = NULL;
    bool *reached = NULL;
    struct est_frame *stack = NULL;
    size_t stack_cap = 0;
    pyprof_profile *q = NULL;
    if ((rc = pyprof__profile_whole_stacks(p, err, "writing stacks")) < 0)
        return rc;

    *view = p;
    *owned = NULL;
    *estimated = 0;
    if (pyprof_profile_caps(p) & PYPROF_CAP_STACKS)
        return 0;
    if (!pyprof__has_callgraph(p))
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has neither stacks nor a call graph to write");
    if ((rc = copy_profile(&q, p, err)) < 0)
        return rc;
    /* the estimate is in the call graph's unit: say so before the stacks
     * appear, or stack data would be taken for sample counts */
    if (!pyprof_profile_meta_get(q, "time_unit"))
        PYPROF_TRY(pyprof_profile_meta_set(q, "time_unit", "seconds"));
    size_t nf = pyprof_profile_func_count(q);
    on_path = pyprof__calloc(nf ? nf : 1, sizeof(*on_path));
    if (!on_path) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    double total = 0;
    for (size_t i = 0; i < nf; i++)
        total += pyprof_profile_func(q, (pyprof_id)i)->counts.tottime;
    double min_w = total * (opts->min_fraction > 0 ? opts->min_fraction : 1e-5);
    size_t max_nodes = opts->max_nodes ? opts->max_nodes : 1000000;
    bool truncated = false;

    /* Roots: functions nothing else calls (a self-call does not count). */
    for (size_t i = 0; i < nf; i++) {
        const pyprof_id *es;
        size_t ne, k;
        PYPROF_TRY(pyprof_profile_callers(q, (pyprof_id)i, &es, &ne));
        for (k = 0; k < ne; k++) {
            if (pyprof_profile_edge(q, es[k])->caller != (pyprof_id)i)
                break;
        }
        if (k < ne)
            continue;
        PYPROF_TRY(estimate_from_root(q, (pyprof_id)i, min_w, max_nodes, on_path, &stack,
                                      &stack_cap, &truncated));
    }
    /* Time inside call cycles is reachable from no root: cProfile's
     * builtins.exec is called by importlib, which the program run under
     * exec calls in turn.  So more trees start at the largest function not
     * placed yet, until (nearly) all self time is placed. */
    double covered = 0;
    reached = pyprof__calloc(nf ? nf : 1, sizeof(*reached));
    if (!reached) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (int round = 0;; round++) {
        covered = 0;
        for (size_t i = 0; i < pyprof_profile_stack_count(q); i++) {
            const pyprof_stack_node *nd = pyprof_profile_stack_node(q, (pyprof_id)i);
            covered += nd->self[0];
            reached[nd->func] = true;
        }
        if (covered >= total * 0.999 || truncated || round == 64)
            break;
        pyprof_id best = PYPROF_NONE;
        double best_cum = 0;
        for (size_t i = 0; i < nf; i++) {
            double c = reached[i] ? 0 : effective_cum(q, (pyprof_id)i);
            if (c > best_cum) {
                best_cum = c;
                best = (pyprof_id)i;
            }
        }
        if (best == PYPROF_NONE)
            break;
        PYPROF_TRY(
            estimate_from_root(q, best, min_w, max_nodes, on_path, &stack, &stack_cap, &truncated));
    }
    if (covered > total && covered > 0) {
        /* cProfile counts a recursive activation's time in the caller's
         * cumulative time as well, so a cycle (exec -> import -> exec)
         * passes some time down twice: scale back to the measured total */
        double f = total / covered;
        for (size_t i = 0; i < pyprof_profile_stack_count(q); i++)
            pyprof_profile_stack_node_mut(q, (pyprof_id)i)->self[0] *= f;
        covered = total;
    }
    pyprof_profile_set_stack_metrics(q, 1);
    pyprof__note(opts->notes,
                 "the input has no stacks: stacks are estimated from caller ratios of the call "
                 "graph (%.1f%% of self time placed)",
                 total > 0 ? 100.0 * covered / total : 100.0);
    if (truncated)
        pyprof__note(opts->notes, "estimated stack tree cut at %zu nodes", max_nodes);
    *view = *owned = q;
    q = NULL;
    *estimated = 1;
out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory while estimating stacks");
    pyprof_profile_free(q);
    pyprof__free(on_path);
    pyprof__free(reached);
    pyprof__free(stack);
    return rc;
}

const char *
pyprof__func_display(const pyprof_profile *p, pyprof_id func, char *buf, size_t size)
{
    const pyprof_func *f = pyprof_profile_func(p, func);
    const char *file = pyprof_profile_string(p, f->file);
    const char *name = pyprof_profile_string(p, f->name);
    size_t nl = strlen(name);
    if ((f->flags & PYPROF_FUNC_FRAME_MASK) || (!file[0] && f->line == 0)) {
        /* a frame of folded stacks: its own text */
        pyprof_flame_frame_label(p, func, buf, size);
    } else if (strcmp(file, "~") == 0 && f->line == 0) {
        if (nl >= 2 && name[0] == '<' && name[nl - 1] == '>')
            snprintf(buf, size, "{%.*s}", (int)(nl - 2), name + 1);
        else
            snprintf(buf, size, "%s", name);
    } else {
        snprintf(buf, size, "%s:%lld(%s)", file, (long long)f->line, name);
    }
    return buf;
}
