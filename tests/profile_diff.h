/*
 * profile_diff.h - the first difference between two profiles read from the
 * same input in two ways (one pass and two halves, say), for tests and fuzz
 * targets: functions (ids, strings, frame shapes), stack nodes (ids,
 * parents, weights bit for bit), elided weights, line timings, the memory
 * timeline (samples bit for bit, series, brackets) and metadata.
 * Header-only: each program that includes it gets its own copy.
 */
#ifndef PYPROF_TEST_PROFILE_DIFF_H
#define PYPROF_TEST_PROFILE_DIFF_H

#include <stdio.h>
#include <string.h>

#include <pyprof/pyprof.h>

/* Empty when p and q are the same profile, else what differs first
 * (written to buf when it needs numbers). */
static inline const char *
profile_difference(const pyprof_profile *p, const pyprof_profile *q, char *buf, size_t size)
{
    if (pyprof_profile_caps(p) != pyprof_profile_caps(q))
        return "caps";
    if (pyprof_profile_func_count(p) != pyprof_profile_func_count(q))
        return "function count";
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *a = pyprof_profile_func(p, (pyprof_id)i);
        const pyprof_func *b = pyprof_profile_func(q, (pyprof_id)i);
        if (a->file != b->file || a->name != b->name || a->line != b->line ||
            a->flags != b->flags ||
            strcmp(pyprof_profile_string(p, a->name), pyprof_profile_string(q, b->name)) ||
            strcmp(pyprof_profile_string(p, a->file), pyprof_profile_string(q, b->file))) {
            snprintf(buf, size, "function %zu", i);
            return buf;
        }
    }
    size_t n, m;
    const pyprof_stack_node *a = pyprof_profile_stack_nodes(p, &n);
    const pyprof_stack_node *b = pyprof_profile_stack_nodes(q, &m);
    if (n != m) {
        snprintf(buf, size, "node count %zu vs %zu", n, m);
        return buf;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i].parent != b[i].parent || a[i].func != b[i].func ||
            memcmp(a[i].self, b[i].self, sizeof a[i].self) != 0) {
            snprintf(buf, size, "node %zu", i);
            return buf;
        }
    const pyprof_stack_elided *ea, *eb;
    n = pyprof_profile_stack_elided(p, &ea);
    m = pyprof_profile_stack_elided(q, &eb);
    if (n != m) {
        snprintf(buf, size, "elided count %zu vs %zu", n, m);
        return buf;
    }
    for (size_t i = 0; i < n; i++)
        if (ea[i].node != eb[i].node || memcmp(&ea[i].weight, &eb[i].weight, sizeof ea[i].weight)) {
            snprintf(buf, size, "elided %zu", i);
            return buf;
        }
    if (pyprof_profile_stack_metrics(p) != pyprof_profile_stack_metrics(q))
        return "stack metrics";
    n = pyprof_profile_line_count(p);
    if (n != pyprof_profile_line_count(q))
        return "line count";
    for (size_t i = 0; i < n; i++) {
        const pyprof_line_stat *x = pyprof_profile_line(p, i), *y = pyprof_profile_line(q, i);
        if (x->func != y->func || x->line != y->line || x->hits != y->hits ||
            memcmp(&x->time, &y->time, sizeof x->time)) {
            snprintf(buf, size, "line %zu", i);
            return buf;
        }
    }
    n = pyprof_profile_mem_sample_count(p);
    if (n != pyprof_profile_mem_sample_count(q)) {
        snprintf(buf, size, "sample count %zu vs %zu", n, pyprof_profile_mem_sample_count(q));
        return buf;
    }
    for (size_t i = 0; i < n; i++) {
        const pyprof_mem_sample *x = pyprof_profile_mem_sample(p, i);
        const pyprof_mem_sample *y = pyprof_profile_mem_sample(q, i);
        if (x->series != y->series || memcmp(&x->t, &y->t, sizeof x->t) ||
            memcmp(&x->mib, &y->mib, sizeof x->mib)) {
            snprintf(buf, size, "sample %zu", i);
            return buf;
        }
    }
    if (pyprof_profile_mem_series_count(p) != pyprof_profile_mem_series_count(q))
        return "series count";
    for (pyprof_id i = 0; i < pyprof_profile_mem_series_count(p); i++) {
        const pyprof_mem_series *x = pyprof_profile_mem_series(p, i);
        const pyprof_mem_series *y = pyprof_profile_mem_series(q, i);
        if (x->child != y->child || x->source != y->source ||
            strcmp(pyprof_profile_string(p, x->label), pyprof_profile_string(q, y->label)))
            return "a series";
    }
    n = pyprof_profile_mem_bracket_count(p);
    if (n != pyprof_profile_mem_bracket_count(q))
        return "bracket count";
    for (size_t i = 0; i < n; i++) {
        const pyprof_mem_bracket *x = pyprof_profile_mem_bracket(p, i);
        const pyprof_mem_bracket *y = pyprof_profile_mem_bracket(q, i);
        if (x->series != y->series || x->level != y->level ||
            memcmp(&x->t0, &y->t0, sizeof x->t0) || memcmp(&x->t1, &y->t1, sizeof x->t1) ||
            memcmp(&x->m0, &y->m0, sizeof x->m0) || memcmp(&x->m1, &y->m1, sizeof x->m1) ||
            strcmp(pyprof_profile_string(p, x->name), pyprof_profile_string(q, y->name)))
            return "a bracket";
    }
    if (pyprof_profile_meta_count(p) != pyprof_profile_meta_count(q))
        return "metadata count";
    for (size_t i = 0; i < pyprof_profile_meta_count(p); i++) {
        const char *k1, *v1, *k2, *v2;
        pyprof_profile_meta_at(p, i, &k1, &v1);
        pyprof_profile_meta_at(q, i, &k2, &v2);
        if (strcmp(k1, k2) || strcmp(v1, v2)) {
            snprintf(buf, size, "metadata %s=%s vs %s=%s", k1, v1, k2, v2);
            return buf;
        }
    }
    return "";
}

#endif
