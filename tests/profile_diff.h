/*
 * profile_diff.h - the first difference between two profiles read from the
 * same input in two ways (one pass and two halves, say), for tests and fuzz
 * targets: functions (ids, strings, frame shapes), stack nodes (ids,
 * parents, weights bit for bit), elided weights, stack metrics and
 * metadata.  Header-only: each program that includes it gets its own copy.
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
