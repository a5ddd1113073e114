/*
 * pyprof/dot.h - call graphs in gprof2dot's style, as DOT text or images through Graphviz.
 *
 * The graph is gprof2dot's (jrfonseca/gprof2dot 2025.04): one node per
 * function labelled "module:line:name", total% and (self%), call count; one
 * edge per caller -> callee labelled total% and call count; colours, font
 * sizes and pen widths from the weight of each node and edge.  For pstats
 * the totals are the profiler's own cumulative times; for profiles that only
 * hold sampled stacks the call graph is derived first and totals are
 * integrated along call ratios as gprof2dot does for sample formats.
 *
 * The graph is built with Graphviz cgraph and written with agwrite (DOT) or
 * laid out and rendered with gvc (PNG, SVG, PDF).  Graphviz is not
 * thread-safe, so the library lets one thread at a time into it: threads
 * that draw call graphs at once take turns for that part.  libpyprof is
 * not linked with Graphviz: the first call graph of a process loads it (a
 * program that draws none starts without it), and if it cannot be loaded
 * the call fails with PYPROF_EIO and a message that names the library.
 * The first image loads Graphviz's plugins into one context that the
 * process keeps (Graphviz cannot safely make a second one after freeing
 * the first).
 */
#ifndef PYPROF_DOT_H
#define PYPROF_DOT_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Colour themes, as gprof2dot's -c/--colormap. */
typedef enum pyprof_dot_colormap {
    PYPROF_DOT_COLOR = 0, /**< dark blue (cold) to red (hot); the default */
    PYPROF_DOT_PINK,      /**< pink to red */
    PYPROF_DOT_GRAY,      /**< light gray to black */
    PYPROF_DOT_BW,        /**< black, sizes carry the weight */
    PYPROF_DOT_PRINT      /**< black outlines, large fonts, for paper */
} pyprof_dot_colormap;

/** Measures a node label can show, as gprof2dot's --node-label. */
typedef enum pyprof_dot_measure {
    PYPROF_DOT_TOTAL_TIME_PERCENTAGE = 1, /**< "99.86%" */
    PYPROF_DOT_SELF_TIME_PERCENTAGE,      /**< "(0.17%)" */
    PYPROF_DOT_TOTAL_TIME,                /**< "1.234567" (%.7g) */
    PYPROF_DOT_SELF_TIME                  /**< "(0.001234)" */
} pyprof_dot_measure;

/** How totals are computed for sampled profiles (gprof2dot's --total). */
typedef enum pyprof_dot_total {
    PYPROF_DOT_TOTAL_CALLRATIOS = 0, /**< gprof's integration along call ratios */
    PYPROF_DOT_TOTAL_CALLSTACKS      /**< samples with the function anywhere on the stack */
} pyprof_dot_total;

#define PYPROF_DOT_MAX_MEASURES 8

/**
 * Options of pyprof_dot_render.  Always start from PYPROF_DOT_OPTIONS_INIT;
 * its values are gprof2dot's defaults.  Strings are borrowed for the call.
 */
typedef struct pyprof_dot_options {
    unsigned version;  /**< PYPROF_DOT_OPTIONS_VERSION */
    double node_thres; /**< drop nodes below this total percentage (0.5) */
    double edge_thres; /**< drop edges below this total percentage (0.1) */
    pyprof_dot_colormap colormap;
    double skew;                 /**< colour curve skew, > 0 (1.0 = linear) */
    int strip;                   /**< strip C++ argument lists and templates from names */
    int wrap;                    /**< wrap names longer than 32 characters */
    int color_nodes_by_selftime; /**< colour nodes by self time instead of total time */
    int show_samples;            /**< add the sample count to labels (sampled profiles) */
    /** Label lines after the name, in this order; all 0 = total%, (self%). */
    pyprof_dot_measure node_labels[PYPROF_DOT_MAX_MEASURES];
    pyprof_dot_total total;   /**< totals for sampled profiles */
    const char *root;         /**< fnmatch pattern: keep only its descendants, or NULL */
    const char *leaf;         /**< fnmatch pattern: keep only its ancestors, or NULL */
    int depth;                /**< with root/leaf: how many calls deep (-1 = unlimited) */
    const char *const *paths; /**< keep functions whose file starts with one of these */
    size_t npaths;
    size_t max_nodes;   /**< keep the heaviest N nodes and 2N calls (0: no cap) */
    const char *focus;  /**< PCRE2: keep paths through matching functions, or NULL */
    const char *ignore; /**< PCRE2: drop matching functions, or NULL */
    const char *type;   /**< "dot" (default when NULL), "png", "svg" or "pdf" */
    const char *engine; /**< Graphviz layout engine for images (NULL = "dot") */
} pyprof_dot_options;

#define PYPROF_DOT_OPTIONS_VERSION 1
#define PYPROF_DOT_OPTIONS_INIT                                                                    \
    {                                                                                              \
        PYPROF_DOT_OPTIONS_VERSION, 0.5, 0.1, PYPROF_DOT_COLOR, 1.0, 0, 0, 0, 0, {0},              \
            PYPROF_DOT_TOTAL_CALLRATIOS, NULL, NULL, -1, NULL, 0, 0, NULL, NULL, NULL, NULL        \
    }

/**
 * Draw the call graph of `p` into `out`: DOT text for type "dot", else the
 * laid-out image.  `p` needs functions and edges, or stacks (then the call
 * graph is derived into `p` first, which is why it is not const); without
 * either the call fails with PYPROF_ECAPS.  Bad options (unknown type,
 * engine or measure, invalid regular expression, a root or leaf pattern
 * that matches nothing) fail with PYPROF_EINVAL; a Graphviz failure with
 * PYPROF_EIO and Graphviz's message.  The output is not committed.
 */
int pyprof_dot_render(pyprof_profile *p, const pyprof_dot_options *opts, pyprof_output *out,
                      pyprof_error *err);

/**
 * gprof2dot's --compare: one graph of the functions of `base` found in
 * `other` too, each node and edge labelled with both values and their
 * difference, coloured by the change.  Options as pyprof_dot_render.
 */
int pyprof_dot_render_compare(pyprof_profile *base, pyprof_profile *other,
                              const pyprof_dot_options *opts, pyprof_output *out,
                              pyprof_error *err);

/** Parse a colormap name ("color", "pink", "gray", "bw", "print"); -1 if unknown. */
int pyprof_dot_colormap_parse(const char *name);

/** Parse a --node-label measure name ("total-time-percentage", ...); 0 if unknown. */
int pyprof_dot_measure_parse(const char *name);

#ifdef __cplusplus
}
#endif
#endif
