/*
 * profile_int.h - the layout of struct pyprof_profile, shared by the core
 * files that implement the model (profile.c, merge.c, derive.c).  Format
 * modules and renderers use the public accessors instead.
 */
#ifndef PYPROF_PROFILE_INT_H
#define PYPROF_PROFILE_INT_H

#include "pyprof_int.h"

/* A lazily built adjacency list: ids of bucket k are ids[start[k]..start[k+1]). */
struct pyprof__adj {
    size_t *start;
    pyprof_id *ids;
    size_t nkeys;
    bool valid;
};

struct pyprof__meta {
    pyprof_id key, value;
};

struct pyprof_profile {
    pyprof__arena arena;

    const char **str; /* string id -> text (in the arena) */
    uint32_t *str_len;
    size_t nstr, str_cap, str_len_cap;
    pyprof__idtab str_tab;
    uint64_t replacements;

    pyprof_source *sources;
    size_t nsources, sources_cap;
    struct pyprof__meta *meta;
    size_t nmeta, meta_cap;

    pyprof_func *funcs;
    size_t nfuncs, funcs_cap;
    pyprof__idtab func_tab;

    pyprof_edge *edges;
    size_t nedges, edges_cap;
    pyprof__idtab edge_tab;
    /* edges[0, nedges_indexed) are in edge_tab; bulk readers append edges
     * without it (pyprof__profile_edge_append) and lookups catch up */
    size_t nedges_indexed;
    struct pyprof__adj callers, callees;

    pyprof_stack_node *nodes;
    size_t nnodes, nodes_cap;
    pyprof__idtab node_tab;
    size_t node_tab_upto; /* nodes [0, upto) are in node_tab: the rest were
                             appended by pyprof__profile_stack_append and are
                             indexed on the next lookup */
    struct pyprof__adj children;
    unsigned stack_metrics;
    pyprof_stack_elided *elided; /* weight left out below nodes (see profile.h) */
    size_t nelided, elided_cap;

    pyprof_line_stat *lines;
    size_t nlines, lines_cap;
    double line_unit;

    pyprof_mem_series *mem_series;
    size_t nmem_series, mem_series_cap;
    pyprof_mem_sample *mem_samples;
    size_t nmem_samples, mem_samples_cap;
    /* a reader's summary of the samples (valid: it covers them all, and
     * none changed since, see pyprof__profile_mem_summary) */
    pyprof__mem_summary mem_summary;
    bool mem_summary_valid;
    pyprof_mem_bracket *mem_brackets;
    size_t nmem_brackets, mem_brackets_cap;
};

#endif
