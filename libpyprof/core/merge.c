/*
 * merge.c - adding one profile into another (pstats.Stats.add semantics for
 * the call graph, plain union for the other parts).
 *
 * Ids differ between profiles, so every src id is translated through a map
 * built on the way; functions are visited in src order so that new ones are
 * appended in the order Stats.add appends them.
 */
#include "config.h"

#include "profile_int.h"

struct idmap {
    pyprof_id *map;
    size_t n;
};

static int
map_strings(pyprof_profile *dst, const pyprof_profile *src, struct idmap *m)
{
    m->n = src->nstr;
    m->map = pyprof__calloc(m->n, sizeof(*m->map));
    if (!m->map)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < src->nstr; i++) {
        int rc = pyprof_profile_intern(dst, &m->map[i], src->str[i], src->str_len[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int
pyprof_profile_merge(pyprof_profile *dst, const pyprof_profile *src, pyprof_error *err)
{
    int rc = 0;
    struct idmap s = {0}, f = {0}, nodes = {0}, series = {0};
    size_t source_base = dst->nsources;

    if ((rc = pyprof__profile_whole_stacks(src, err, "adding profiles")) < 0 ||
        (rc = pyprof__profile_whole_stacks(dst, err, "adding profiles")) < 0)
        return rc;

    PYPROF_TRY(map_strings(dst, src, &s));

    /* functions, in src order */
    f.n = src->nfuncs;
    f.map = pyprof__calloc(f.n, sizeof(*f.map));
    if (!f.map) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < src->nfuncs; i++) {
        const pyprof_func *sf = &src->funcs[i];
        int created;
        PYPROF_TRY(pyprof_profile_func_intern(dst, &f.map[i], s.map[sf->file], sf->line,
                                              s.map[sf->name], sf->flags, &created));
        pyprof_func *df = &dst->funcs[f.map[i]];
        if (!created) {
            /* an entry anywhere makes it an entry */
            uint32_t caller_only = df->flags & sf->flags & PYPROF_FUNC_CALLER_ONLY;
            df->flags = ((df->flags | sf->flags) & ~PYPROF_FUNC_CALLER_ONLY) | caller_only;
        }
        pyprof__counts_add(&df->counts, &sf->counts);
    }

    /* edges: the src order within one callee is kept, appended after dst's */
    for (size_t i = 0; i < src->nedges; i++) {
        const pyprof_edge *se = &src->edges[i];
        pyprof_id id;
        int created;
        PYPROF_TRY(
            pyprof_profile_edge_intern(dst, &id, f.map[se->caller], f.map[se->callee], &created));
        pyprof_edge *de = &dst->edges[id];
        if (created) {
            de->flags = se->flags;
        } else if ((de->flags ^ se->flags) & PYPROF_EDGE_COUNT_ONLY) {
            rc = pyprof_error_set(err, PYPROF_EFORMAT, NULL, NULL, -1, 0,
                                  "cannot add a profile-module call count to a cProfile "
                                  "caller record (%s -> %s)",
                                  src->str[src->funcs[se->caller].name],
                                  src->str[src->funcs[se->callee].name]);
            goto out;
        }
        pyprof__counts_add(&de->counts, &se->counts);
    }

    /* stack tree: parents precede children, so one forward pass maps paths */
    nodes.n = src->nnodes;
    nodes.map = pyprof__calloc(nodes.n, sizeof(*nodes.map));
    if (!nodes.map) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < src->nnodes; i++) {
        const pyprof_stack_node *sn = &src->nodes[i];
        pyprof_id parent = sn->parent == PYPROF_NONE ? PYPROF_NONE : nodes.map[sn->parent];
        PYPROF_TRY(pyprof_profile_stack_child(dst, &nodes.map[i], parent, f.map[sn->func]));
        for (int m = 0; m < PYPROF_STACK_METRICS; m++)
            dst->nodes[nodes.map[i]].self[m] += sn->self[m];
    }
    if (src->stack_metrics > dst->stack_metrics)
        dst->stack_metrics = src->stack_metrics;

    /* line timings: reconcile units by converting src times to dst's unit */
    double scale = 1.0;
    if (src->nlines || src->line_unit > 0) {
        if (dst->line_unit <= 0)
            dst->line_unit = src->line_unit;
        else if (src->line_unit > 0 && src->line_unit != dst->line_unit)
            scale = src->line_unit / dst->line_unit;
    }
    for (size_t i = 0; i < src->nlines; i++) {
        const pyprof_line_stat *l = &src->lines[i];
        PYPROF_TRY(pyprof_profile_line_add(dst, f.map[l->func], l->line, l->hits, l->time * scale));
    }

    /* memory: src series become new series */
    series.n = src->nmem_series;
    series.map = pyprof__calloc(series.n, sizeof(*series.map));
    if (!series.map) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < src->nmem_series; i++) {
        const pyprof_mem_series *ms = &src->mem_series[i];
        PYPROF_TRY(pyprof_profile_mem_series_add(dst, &series.map[i], s.map[ms->label], ms->child,
                                                 (pyprof_id)(ms->source + source_base)));
    }
    for (size_t i = 0; i < src->nmem_samples; i++) {
        const pyprof_mem_sample *ms = &src->mem_samples[i];
        PYPROF_TRY(pyprof_profile_mem_sample_add(dst, series.map[ms->series], ms->t, ms->mib));
    }
    for (size_t i = 0; i < src->nmem_brackets; i++) {
        pyprof_mem_bracket b = src->mem_brackets[i];
        b.series = series.map[b.series];
        b.name = s.map[b.name];
        PYPROF_TRY(pyprof_profile_mem_bracket_add(dst, &b));
    }

    for (size_t i = 0; i < src->nsources; i++) {
        const pyprof_source *so = &src->sources[i];
        PYPROF_TRY(
            pyprof_profile_add_source(dst, src->str[so->name], src->str[so->format], so->mtime));
    }
    for (size_t i = 0; i < src->nmeta; i++) {
        const char *k = src->str[src->meta[i].key];
        if (!pyprof_profile_meta_get(dst, k))
            PYPROF_TRY(pyprof_profile_meta_set(dst, k, src->str[src->meta[i].value]));
    }
    dst->replacements += src->replacements;

out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory while merging profiles");
    pyprof__free(s.map);
    pyprof__free(f.map);
    pyprof__free(nodes.map);
    pyprof__free(series.map);
    return rc;
}
