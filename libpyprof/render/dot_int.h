/*
 * dot_int.h - the call graph that pyprof_dot_render draws, between the
 * profile model and Graphviz.
 *
 * It mirrors gprof2dot's own model, because matching its output means
 * matching its arithmetic: functions are numbered in the order gprof2dot
 * registers them while walking the pstats dict (each entry, then each of
 * its callers), events are present or absent exactly where gprof2dot's are
 * (a function seen only as a caller has no times), and pruning marks nodes
 * and calls dead rather than renumbering, since gprof2dot keeps its ids.
 */
#ifndef PYPROF_DOT_INT_H
#define PYPROF_DOT_INT_H

#include "pyprof_int.h"

#include <pyprof/dot.h>

/* A call (edge) between two graph functions, numbered by their dot ids.
 * (Doubles first, flags last: large profiles have 10^5-10^6 of these.) */
typedef struct dot_call {
    double calls;         /* call count (cc for pstats) */
    double total;         /* edge total time, seconds (pstats) */
    double total_ratio;   /* share of the profile total */
    double samples;       /* sampled profiles: weight of the caller -> callee pair */
    double ratio;         /* sampled profiles: call ratio (negative = unset) */
    double weight;        /* pruning and colour weight */
    uint32_t caller;      /* dot id */
    uint32_t callee;      /* dot id */
    bool has_calls;       /* CALLS event present */
    bool has_total;       /* TOTAL_TIME event present */
    bool has_total_ratio; /* TOTAL_TIME_RATIO event present */
    bool has_weight;
    bool alive;
} dot_call;

/* A function of the graph.  The has_* flags say which of gprof2dot's events
 * it has: a label shows only those. */
typedef struct dot_fn {
    double time;               /* TIME: self time (pstats) */
    double time_ratio;         /* TIME_RATIO: self share */
    double total;              /* TOTAL_TIME: cumulative time (pstats) */
    double total_ratio;        /* TOTAL_TIME_RATIO: total share */
    double samples;            /* SAMPLES: self samples (sampled profiles) */
    double stack_samples;      /* samples with the function on the stack (--total callstacks) */
    double called;             /* call count shown as "N×" */
    double weight;             /* pruning and colour weight */
    size_t first_call, ncalls; /* its calls: graph->calls[first_call ..], sorted by callee */
    pyprof_id func;            /* model function id (the first, when several merged) */
    int32_t cycle;             /* sampled profiles: cycle index, -1 = none */
    bool has_time, has_time_ratio, has_total, has_total_ratio, has_samples, has_called;
    bool has_weight;
    bool alive;
} dot_fn;

typedef struct dot_graph {
    pyprof_profile *p;
    dot_fn *fns; /* by dot id */
    size_t nfns;
    dot_call *calls; /* grouped by caller, each group sorted by callee */
    size_t ncalls;
    double total; /* pstats: the denominator of total shares */
    bool sampled; /* built from samples: integrated totals */
} dot_graph;

/* Build the graph of `p` with gprof2dot's events (pstats: straight from the
 * profiler's times; sampled: integrated along call ratios or call stacks).
 * With `prune`, for a graph that pyprof__dot_graph_prune will prune with the
 * same `o`: pstats graphs get their nodes pruned already and only the calls
 * that can survive the pruning (calls between live nodes at or above the
 * edge threshold; the rest would only ever be skipped).  What is drawn is
 * the same; big profiles are built faster and in far less memory. */
int pyprof__dot_graph_build(dot_graph *g, pyprof_profile *p, const pyprof_dot_options *o,
                            bool prune, pyprof_error *err);
/* Sampled profiles: self ratios, cycles, call ratios, and totals by
 * integration or from call stacks (dot_integrate.c). */
int pyprof__dot_integrate(dot_graph *g, pyprof_dot_total method);
/* Thresholds, -p paths, selftime colouring, -z/-l, focus/ignore, max-nodes. */
/* The node part of the thresholds: node weights, node threshold, -p paths and
 * selftime colouring (dot_prune.c).  Idempotent. */
void pyprof__dot_prune_nodes(dot_graph *g, const pyprof_dot_options *o);
/* Set a call's pruning and colour weight from its events and its ends'. */
void pyprof__dot_call_weigh(const dot_graph *g, dot_call *c);
int pyprof__dot_graph_prune(dot_graph *g, const pyprof_dot_options *o, pyprof_error *err);
void pyprof__dot_graph_free(dot_graph *g);

/* ---- Graphviz (dot.c) -------------------------------------------------------- */

struct Agraph_s;
/* A new directed graph whose agwrite goes to the pyprof_output given as the
 * channel (between pyprof__dot_gv_enter and _leave). */
struct Agraph_s *pyprof__dot_open(void);
/* Write `G` as DOT, or lay it out and render it, as opts->type says. */
int pyprof__dot_emit(struct Agraph_s *G, const pyprof_dot_options *o, pyprof_output *out,
                     pyprof_error *err);
int pyprof__dot_check_options(const pyprof_dot_options *o, pyprof_error *err);
/* Take Graphviz for this thread alone, its errors collected for
 * pyprof__dot_gv_fail (loading it first: gv_load.c); give it back.  A
 * failed _enter (Graphviz cannot be loaded: err says why) takes nothing. */
int pyprof__dot_gv_enter(pyprof_error *err);
void pyprof__dot_gv_leave(void);
int pyprof__dot_gv_fail(pyprof_error *err, const char *what);

/* ---- style (dot_style.c) ---------------------------------------------------- */

typedef struct dot_theme {
    double bg[3], min[3], max[3]; /* HSL */
    const char *fontcolor;        /* node default font colour */
    const char *nodestyle;        /* "filled" or "solid" */
    double minfont, maxfont, minpen, maxpen, gamma, skew;
} dot_theme;

void pyprof__dot_theme(dot_theme *t, pyprof_dot_colormap map, double skew);
/* "#rrggbb" of the theme's colour at `weight`. */
void pyprof__dot_color(const dot_theme *t, double weight, char out[8]);
/* "#rrggbb" of the background (the font colour of filled nodes). */
void pyprof__dot_bgcolor(const dot_theme *t, char out[8]);
double pyprof__dot_fontsize(const dot_theme *t, double weight);
double pyprof__dot_penwidth(const dot_theme *t, double weight);

/* A growing string for labels. */
typedef struct dot_buf {
    char *s;
    size_t len, cap;
    int rc; /* sticky PYPROF_ENOMEM */
} dot_buf;
/* Empty the string, keeping its memory (the text stays NUL-terminated). */
void pyprof__dot_buf_reset(dot_buf *b);
void pyprof__dot_buf_put(dot_buf *b, const char *s, size_t n);
void pyprof__dot_buf_puts(dot_buf *b, const char *s);
void pyprof__dot_buf_printf(dot_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append text as a DOT string body: '\' -> "\\", newline -> "\n", tab -> "\t"
 * (agwrite adds the quotes and escapes '"' itself). */
void pyprof__dot_buf_escaped(dot_buf *b, const char *s, size_t n);

/* gprof2dot's pstats function name "module:line:name", then -s and -w
 * applied, appended raw (unescaped) to `b`. */
/* The module line gprof2dot shows above the name, or NULL: for py-spy
 * frames ("NAME (FILE:LINE)") the file. */
const char *pyprof__dot_function_module(const pyprof_profile *p, pyprof_id func);
void pyprof__dot_function_name(dot_buf *b, const pyprof_profile *p, pyprof_id func, int strip,
                               int wrap);

#endif
