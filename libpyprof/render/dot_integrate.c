/*
 * dot_integrate.c - totals for sampled profiles, as gprof2dot computes them
 * for its sample formats (formats.md 12.5): self shares, cycles (strongly
 * connected components), call ratios, then either gprof's integration of
 * self shares along call ratios (callratios, the default) or the share of
 * samples in which a function is on the stack (callstacks).
 *
 * gprof2dot integrates recursively; call graphs derived from deep stacks
 * can be far deeper than a C stack, so here everything is iterative:
 * Tarjan's algorithm with an explicit stack emits components callees-first,
 * which is exactly the order integration needs, and inside a cycle the
 * members are processed by decreasing rank instead of by recursion.
 */
#include "config.h"

#include "dot_int.h"

static double
ratio(double a, double b)
{
    if (b == 0.0)
        return 1.0;
    double r = a / b;
    return r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
}

typedef struct scc_state {
    uint32_t *index, *low, *stack, *order; /* order: functions by component, callees first */
    uint32_t *comp_first; /* component c = order[comp_first[c] .. comp_first[c+1]) */
    size_t ncomp;
    uint8_t *onstack;
    uint32_t *work; /* DFS stack of functions */
    size_t *next;   /* per function: next call to look at */
} scc_state;

/* Iterative Tarjan over all functions, in id order. */
static void
find_components(dot_graph *g, scc_state *s)
{
    size_t n = g->nfns, counter = 0, sp = 0, wp = 0, out = 0;
    for (size_t i = 0; i < n; i++)
        s->index[i] = UINT32_MAX;
    s->ncomp = 0;
    for (size_t root = 0; root < n; root++) {
        if (s->index[root] != UINT32_MAX)
            continue;
        s->work[wp++] = (uint32_t)root;
        s->index[root] = s->low[root] = (uint32_t)counter++;
        s->stack[sp++] = (uint32_t)root;
        s->onstack[root] = 1;
        s->next[root] = 0;
        while (wp) {
            uint32_t v = s->work[wp - 1];
            const dot_fn *fn = &g->fns[v];
            if (s->next[v] < fn->ncalls) {
                uint32_t w = g->calls[fn->first_call + s->next[v]++].callee;
                if (s->index[w] == UINT32_MAX) {
                    s->index[w] = s->low[w] = (uint32_t)counter++;
                    s->stack[sp++] = w;
                    s->onstack[w] = 1;
                    s->next[w] = 0;
                    s->work[wp++] = w;
                } else if (s->onstack[w] && s->index[w] < s->low[v]) {
                    s->low[v] = s->index[w];
                }
                continue;
            }
            wp--;
            if (wp && s->low[v] < s->low[s->work[wp - 1]])
                s->low[s->work[wp - 1]] = s->low[v];
            if (s->low[v] == s->index[v]) {
                s->comp_first[s->ncomp] = (uint32_t)out;
                uint32_t w;
                size_t members = 0;
                do {
                    w = s->stack[--sp];
                    s->onstack[w] = 0;
                    s->order[out++] = w;
                    members++;
                } while (w != v);
                /* only components of two or more functions are cycles */
                if (members > 1)
                    for (size_t k = out - members; k < out; k++)
                        g->fns[s->order[k]].cycle = (int32_t)s->ncomp;
                s->ncomp++;
            }
        }
    }
    s->comp_first[s->ncomp] = (uint32_t)out;
}

/* Profile.call_ratios: each call's share of what enters its callee (or, for
 * a call into a cycle from outside, of what enters the cycle). */
static int
call_ratios(dot_graph *g, size_t ncomp)
{
    double *fn_in = pyprof__calloc(g->nfns ? g->nfns : 1, sizeof *fn_in);
    double *cyc_in = pyprof__calloc(ncomp ? ncomp : 1, sizeof *cyc_in);
    if (!fn_in || !cyc_in) {
        pyprof__free(fn_in);
        pyprof__free(cyc_in);
        return PYPROF_ENOMEM;
    }
    for (size_t k = 0; k < g->ncalls; k++) {
        const dot_call *c = &g->calls[k];
        if (c->caller == c->callee)
            continue;
        const dot_fn *callee = &g->fns[c->callee];
        fn_in[c->callee] += c->samples;
        if (callee->cycle >= 0 && callee->cycle != g->fns[c->caller].cycle)
            cyc_in[callee->cycle] += c->samples;
    }
    for (size_t k = 0; k < g->ncalls; k++) {
        dot_call *c = &g->calls[k];
        if (c->caller == c->callee)
            continue;
        const dot_fn *callee = &g->fns[c->callee];
        if (callee->cycle >= 0 && callee->cycle != g->fns[c->caller].cycle)
            c->ratio = ratio(c->samples, cyc_in[callee->cycle]);
        else
            c->ratio = ratio(c->samples, fn_in[c->callee]);
    }
    pyprof__free(fn_in);
    pyprof__free(cyc_in);
    return 0;
}

/* Scratch arrays for cycles, one slot per function. */
typedef struct cycle_scratch {
    int32_t *rank;
    double *partial, *fwd_in, *in_ratio;
    uint32_t *queue;
    double *cycle_total; /* per component: the whole cycle's total */
} cycle_scratch;

/* What a call brings to its caller's total: its ratio times the callee's
 * total, where a callee inside a cycle stands for its whole cycle (in
 * gprof2dot, integrating a cycle member returns the cycle's total). */
static double
call_total(const dot_graph *g, const dot_call *c, const cycle_scratch *s)
{
    const dot_fn *callee = &g->fns[c->callee];
    return c->ratio * (callee->cycle >= 0 ? s->cycle_total[callee->cycle] : callee->total_ratio);
}

/* Profile._integrate_cycle for the cycle made of `members`.  Everything the
 * cycle calls outside has its total already (callees come first). */
static void
integrate_cycle(dot_graph *g, const uint32_t *members, size_t n, int32_t cyc, cycle_scratch *s)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        dot_fn *m = &g->fns[members[i]];
        double sub = m->time_ratio;
        for (size_t k = m->first_call; k < m->first_call + m->ncalls; k++) {
            dot_call *c = &g->calls[k];
            if (g->fns[c->callee].cycle == cyc)
                continue;
            c->has_total_ratio = true;
            c->total_ratio = call_total(g, c, s);
            sub += c->total_ratio;
        }
        total += sub;
    }
    s->cycle_total[cyc] = total;
    for (size_t i = 0; i < n; i++) {
        g->fns[members[i]].total_ratio = 0.0;
        g->fns[members[i]].has_total_ratio = true;
    }
    for (size_t e = 0; e < n; e++) {
        uint32_t entry = members[e];
        double r = s->in_ratio[entry];
        if (r < 0.0)
            continue;
        /* ranks: unit-weight shortest paths from the entry, inside the cycle */
        for (size_t i = 0; i < n; i++) {
            s->rank[members[i]] = -1;
            s->fwd_in[members[i]] = 0.0;
        }
        size_t head = 0, tail = 0;
        s->rank[entry] = 0;
        s->queue[tail++] = entry;
        while (head < tail) {
            uint32_t v = s->queue[head++];
            const dot_fn *f = &g->fns[v];
            for (size_t k = f->first_call; k < f->first_call + f->ncalls; k++) {
                uint32_t w = g->calls[k].callee;
                if (g->fns[w].cycle == cyc && s->rank[w] < 0) {
                    s->rank[w] = s->rank[v] + 1;
                    s->queue[tail++] = w;
                }
            }
        }
        /* Σ ratios of the forward (rank-increasing) calls into each member */
        for (size_t i = 0; i < tail; i++) {
            uint32_t v = s->queue[i];
            const dot_fn *f = &g->fns[v];
            for (size_t k = f->first_call; k < f->first_call + f->ncalls; k++) {
                const dot_call *c = &g->calls[k];
                if (c->callee != v && g->fns[c->callee].cycle == cyc &&
                    s->rank[c->callee] > s->rank[v])
                    s->fwd_in[c->callee] += c->ratio;
            }
        }
        /* partials, highest rank first (the queue is in rank order) */
        for (size_t i = tail; i-- > 0;) {
            uint32_t v = s->queue[i];
            dot_fn *f = &g->fns[v];
            double p = r * f->time_ratio;
            for (size_t k = f->first_call; k < f->first_call + f->ncalls; k++) {
                dot_call *c = &g->calls[k];
                if (c->callee == v)
                    continue;
                if (g->fns[c->callee].cycle != cyc) {
                    p += r * c->total_ratio;
                } else if (s->rank[c->callee] > s->rank[v]) {
                    double cp = ratio(c->ratio, s->fwd_in[c->callee]) * s->partial[c->callee];
                    if (!c->has_total_ratio) {
                        c->has_total_ratio = true;
                        c->total_ratio = 0.0;
                    }
                    c->total_ratio += cp;
                    p += cp;
                }
            }
            s->partial[v] = p;
            f->total_ratio += p;
        }
    }
}

int
pyprof__dot_integrate(dot_graph *g, pyprof_dot_total method)
{
    size_t n = g->nfns;
    size_t m = n ? n : 1;
    int rc = 0;
    scc_state s = {0};
    cycle_scratch cs = {0};
    s.index = pyprof__malloc(m * sizeof *s.index);
    s.low = pyprof__malloc(m * sizeof *s.low);
    s.stack = pyprof__malloc(m * sizeof *s.stack);
    s.order = pyprof__malloc(m * sizeof *s.order);
    s.comp_first = pyprof__malloc((m + 1) * sizeof *s.comp_first);
    s.onstack = pyprof__calloc(m, 1);
    s.work = pyprof__malloc(m * sizeof *s.work);
    s.next = pyprof__malloc(m * sizeof *s.next);
    cs.rank = pyprof__malloc(m * sizeof *cs.rank);
    cs.partial = pyprof__malloc(m * sizeof *cs.partial);
    cs.fwd_in = pyprof__malloc(m * sizeof *cs.fwd_in);
    cs.in_ratio = pyprof__malloc(m * sizeof *cs.in_ratio);
    cs.queue = pyprof__malloc(m * sizeof *cs.queue);
    cs.cycle_total = pyprof__calloc(m, sizeof *cs.cycle_total);
    if (!s.index || !s.low || !s.stack || !s.order || !s.comp_first || !s.onstack || !s.work ||
        !s.next || !cs.rank || !cs.partial || !cs.fwd_in || !cs.in_ratio || !cs.queue ||
        !cs.cycle_total) {
        rc = PYPROF_ENOMEM;
        goto out;
    }

    /* SAMPLES and TIME_RATIO: self samples over all samples */
    double samples = 0.0;
    for (size_t d = 0; d < n; d++) {
        dot_fn *fn = &g->fns[d];
        fn->has_samples = true; /* fn->samples summed by the graph builder */
        samples += fn->samples;
    }
    for (size_t d = 0; d < n; d++) {
        dot_fn *fn = &g->fns[d];
        fn->has_time_ratio = true;
        fn->time_ratio = ratio(fn->samples, samples);
    }
    find_components(g, &s);
    PYPROF_TRY(call_ratios(g, s.ncomp));
    /* the share of each cycle member's input that comes from outside its
     * cycle (-1: not entered from outside) */
    for (size_t d = 0; d < n; d++)
        cs.in_ratio[d] = -1.0;
    for (size_t k = 0; k < g->ncalls; k++) {
        const dot_call *c = &g->calls[k];
        int32_t cyc = g->fns[c->callee].cycle;
        if (cyc >= 0 && g->fns[c->caller].cycle != cyc) {
            double *r = &cs.in_ratio[c->callee];
            *r = (*r < 0.0 ? 0.0 : *r) + c->ratio;
        }
    }

    if (method == PYPROF_DOT_TOTAL_CALLSTACKS) {
        for (size_t d = 0; d < n; d++) {
            dot_fn *fn = &g->fns[d];
            fn->has_total_ratio = true;
            fn->total_ratio = ratio(fn->stack_samples, samples);
        }
        for (size_t k = 0; k < g->ncalls; k++) {
            dot_call *c = &g->calls[k];
            if (c->ratio >= 0.0) {
                c->has_total_ratio = true;
                c->total_ratio = c->ratio * g->fns[c->callee].total_ratio;
            }
        }
        goto out;
    }
    /* callratios: components come callees first */
    for (size_t comp = 0; comp < s.ncomp; comp++) {
        const uint32_t *members = s.order + s.comp_first[comp];
        size_t nm = s.comp_first[comp + 1] - s.comp_first[comp];
        if (nm > 1) {
            integrate_cycle(g, members, nm, g->fns[members[0]].cycle, &cs);
            continue;
        }
        dot_fn *fn = &g->fns[members[0]];
        double total = fn->time_ratio;
        for (size_t k = fn->first_call; k < fn->first_call + fn->ncalls; k++) {
            dot_call *c = &g->calls[k];
            if (c->callee == members[0])
                continue; /* recursion adds nothing */
            c->has_total_ratio = true;
            c->total_ratio = call_total(g, c, &cs);
            total += c->total_ratio;
        }
        fn->has_total_ratio = true;
        fn->total_ratio = total;
    }
out:
    pyprof__free(s.index);
    pyprof__free(s.low);
    pyprof__free(s.stack);
    pyprof__free(s.order);
    pyprof__free(s.comp_first);
    pyprof__free(s.onstack);
    pyprof__free(s.work);
    pyprof__free(s.next);
    pyprof__free(cs.rank);
    pyprof__free(cs.partial);
    pyprof__free(cs.fwd_in);
    pyprof__free(cs.in_ratio);
    pyprof__free(cs.queue);
    pyprof__free(cs.cycle_total);
    return rc;
}
