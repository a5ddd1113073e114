/*
 * flame_derive.c - stacks for flame graphs that have none to start from:
 * estimated stacks from a call graph (pstats), and the differential
 * profile of two stack profiles (difffolded.pl, formats.md §8.6).
 */
#include "config.h"

#include <math.h>

#include "flame_int.h"

/* An estimate stops splitting below this share of the total, and at this
 * many nodes: a call graph with cycles can otherwise unfold into millions
 * of paths, each an invented stack. */
#define ESTIMATE_MIN_SHARE     1e-5
#define ESTIMATE_MAX_NODES     200000
#define ESTIMATE_DEFAULT_DEPTH 256

typedef struct est_frame {
    pyprof_id func, node;
    double weight; /* this path's share of func's cumulative time */
    size_t next;   /* next callee edge to visit */
} est_frame;

int
pyprof_profile_estimate_stacks(pyprof_profile *p, unsigned max_depth, pyprof_error *err)
{
    int rc = 0;
    est_frame *st = NULL;
    size_t st_cap = 0;
    uint8_t *on_path = NULL;
    double *root = NULL;
    if (pyprof_profile_stack_count(p) > 0)
        return 0;
    if (!max_depth)
        max_depth = ESTIMATE_DEFAULT_DEPTH;
    size_t nf = pyprof_profile_func_count(p);
    if (nf == 0)
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), "flame", -1, 0,
                                "the profile has neither stacks nor a call graph");
    on_path = pyprof__calloc(nf, 1);
    if (!on_path)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, "flame", -1, 0, "out of memory");
    /* Roots: the part of each function's cumulative time that no caller
     * accounts for.  "Nobody calls it" is not enough: cProfile records the
     * outermost exec() without a caller but with callers from recursive
     * imports.  A function's root share is its cumulative time minus its
     * callers' edges (recursion excluded); shares under 0.1% are rounding. */
    root = pyprof__calloc(nf, sizeof(*root));
    if (!root) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    double total = 0;
    for (size_t i = 0; i < nf; i++) {
        const pyprof_id *in;
        size_t nin;
        double called = 0;
        PYPROF_TRY(pyprof_profile_callers(p, (pyprof_id)i, &in, &nin));
        for (size_t k = 0; k < nin; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, in[k]);
            if (e->caller != (pyprof_id)i)
                called += e->counts.cumtime;
        }
        double cum = pyprof_profile_func(p, (pyprof_id)i)->counts.cumtime;
        if (cum > 0 && cum - called > 1e-3 * cum) {
            root[i] = cum - called;
            total += root[i];
        }
    }
    double min_w = total * ESTIMATE_MIN_SHARE;
    for (size_t r = 0; r < nf; r++) {
        if (!(root[r] > 0))
            continue;
        size_t depth = 0;
        if (PYPROF_GROW(st, st_cap, 1) < 0) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        st[0] = (est_frame){.func = (pyprof_id)r, .weight = root[r]};
        PYPROF_TRY(pyprof_profile_stack_child(p, &st[0].node, PYPROF_NONE, (pyprof_id)r));
        on_path[r] = 1;
        depth = 1;
        while (depth > 0) {
            est_frame *t = &st[depth - 1];
            const pyprof_func *f = pyprof_profile_func(p, t->func);
            const pyprof_id *outs;
            size_t nout;
            PYPROF_TRY(pyprof_profile_callees(p, t->func, &outs, &nout));
            if (t->next == 0) {
                double ratio = f->counts.cumtime > 0 ? t->weight / f->counts.cumtime : 0;
                pyprof_profile_stack_node_mut(p, t->node)->self[0] += f->counts.tottime * ratio;
            }
            if (t->next >= nout) {
                on_path[t->func] = 0;
                depth--;
                continue;
            }
            const pyprof_edge *e = pyprof_profile_edge(p, outs[t->next++]);
            double w =
                f->counts.cumtime > 0 ? t->weight * e->counts.cumtime / f->counts.cumtime : 0;
            if (w < min_w)
                continue;
            if (on_path[e->callee] || depth >= max_depth ||
                pyprof_profile_stack_count(p) >= ESTIMATE_MAX_NODES) {
                /* recursion (counted once) or a cut: the time stays here */
                if (!on_path[e->callee])
                    pyprof_profile_stack_node_mut(p, t->node)->self[0] += w;
                continue;
            }
            if (PYPROF_GROW(st, st_cap, depth + 1) < 0) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            pyprof_id parent = st[depth - 1].node;
            st[depth] = (est_frame){.func = e->callee, .weight = w};
            PYPROF_TRY(pyprof_profile_stack_child(p, &st[depth].node, parent, e->callee));
            on_path[e->callee] = 1;
            depth++;
        }
    }
    /* times in microseconds, so that rounded counts stay meaningful */
    for (size_t i = 0; i < pyprof_profile_stack_count(p); i++) {
        pyprof_stack_node *n = pyprof_profile_stack_node_mut(p, (pyprof_id)i);
        n->self[0] *= 1e6;
        n->self[1] = n->self[0];
    }
    PYPROF_TRY(pyprof_profile_meta_set(p, "stacks_estimated", "1"));
    PYPROF_TRY(pyprof_profile_meta_set(p, "stack_unit", "microseconds"));
out:
    if (rc < 0 && err && !err->code)
        pyprof_error_set(err, rc, NULL, "flame", -1, 0, "cannot estimate stacks: %s",
                         pyprof_status_string(rc));
    pyprof__free(st);
    pyprof__free(on_path);
    pyprof__free(root);
    return rc;
}

/* Copy function `id` of `src` into `dst`; new id in *out. */
static int
copy_func(pyprof_profile *dst, const pyprof_profile *src, pyprof_id id, pyprof_id *out)
{
    const pyprof_func *f = pyprof_profile_func(src, id);
    pyprof_id file, name;
    const char *fs = pyprof_profile_string(src, f->file), *ns = pyprof_profile_string(src, f->name);
    int rc;
    if ((rc = pyprof_profile_intern(dst, &file, fs, strlen(fs))) < 0 ||
        (rc = pyprof_profile_intern(dst, &name, ns, strlen(ns))) < 0)
        return rc;
    return pyprof_profile_func_intern(dst, out, file, f->line, name, f->flags, NULL);
}

static int
add_side(pyprof_profile *dst, const pyprof_profile *src, int metric, double scale)
{
    int rc = 0;
    size_t nf = pyprof_profile_func_count(src), nn = pyprof_profile_stack_count(src);
    pyprof_id *fmap = pyprof__malloc((nf ? nf : 1) * sizeof(*fmap));
    pyprof_id *nmap = pyprof__malloc((nn ? nn : 1) * sizeof(*nmap));
    if (!fmap || !nmap) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nf; i++)
        PYPROF_TRY(copy_func(dst, src, (pyprof_id)i, &fmap[i]));
    unsigned m = pyprof_profile_stack_metrics(src) >= 2 ? 1 : 0;
    const char *sm = pyprof_profile_meta_get(src, "stack_metrics");
    if (sm && strcmp(sm, "before,after") != 0)
        m = 0; /* austin's time,memory: time */
    for (size_t i = 0; i < nn; i++) {
        const pyprof_stack_node *s = pyprof_profile_stack_node(src, (pyprof_id)i);
        pyprof_id parent = s->parent == PYPROF_NONE ? PYPROF_NONE : nmap[s->parent];
        PYPROF_TRY(pyprof_profile_stack_child(dst, &nmap[i], parent, fmap[s->func]));
        double w = s->self[m];
        if (scale != 1)
            w = floor(w * scale); /* difffolded.pl -n: int(count * total2 / total1) */
        pyprof_profile_stack_node_mut(dst, nmap[i])->self[metric] += w;
    }
out:
    pyprof__free(fmap);
    pyprof__free(nmap);
    return rc;
}

static double
stack_total(const pyprof_profile *p)
{
    double t = 0;
    unsigned m = pyprof_profile_stack_metrics(p) >= 2 ? 1 : 0;
    for (size_t i = 0; i < pyprof_profile_stack_count(p); i++)
        t += pyprof_profile_stack_node(p, (pyprof_id)i)->self[m];
    return t;
}

int
pyprof_profile_diff_stacks(pyprof_profile **out, const pyprof_profile *before,
                           const pyprof_profile *after, int normalize, pyprof_error *err)
{
    int rc;
    pyprof_profile *d = NULL;
    *out = NULL;
    if ((rc = pyprof__profile_whole_stacks(before, err, "a differential flame graph")) < 0 ||
        (rc = pyprof__profile_whole_stacks(after, err, "a differential flame graph")) < 0)
        return rc;
    if (!(pyprof_profile_caps(before) & PYPROF_CAP_STACKS) ||
        !(pyprof_profile_caps(after) & PYPROF_CAP_STACKS))
        return pyprof_error_set(
            err, PYPROF_ECAPS,
            pyprof__profile_name(!(pyprof_profile_caps(before) & PYPROF_CAP_STACKS) ? before
                                                                                    : after),
            "flame", -1, 0, "a differential flame graph needs stacks on both sides");
    double scale = 1;
    if (normalize) {
        double tb = stack_total(before), ta = stack_total(after);
        if (tb > 0 && ta > 0)
            scale = ta / tb;
    }
    PYPROF_TRY(pyprof_profile_new(&d));
    PYPROF_TRY(add_side(d, before, 0, scale));
    PYPROF_TRY(add_side(d, after, 1, 1));
    pyprof_profile_set_stack_metrics(d, 2);
    PYPROF_TRY(pyprof_profile_meta_set(d, "stack_metrics", "before,after"));
out:
    if (rc < 0) {
        pyprof_profile_free(d);
        return pyprof_error_set(err, rc, NULL, "flame", -1, 0, "cannot build the difference: %s",
                                pyprof_status_string(rc));
    }
    *out = d;
    return 0;
}
