/*
 * pyprof/flame.h - flame graphs: layout, interactive SVG and PNG.
 *
 * The layout follows flamegraph.pl (brendangregg/FlameGraph, formats.md §9):
 * every sampled stack is a "line" prefixed with an "all" root, the lines are
 * ordered as flamegraph.pl sorts its text lines (or kept in first-seen order
 * for a flame chart), adjacent equal frames merge, frames narrower than
 * `minwidth` pixels are dropped, and the geometry, tooltips and colours are
 * flamegraph.pl's.  One layout is drawn by two backends: SVG (with its own
 * JavaScript: hover details, click to zoom, search, Ctrl-F) and PNG (cairo).
 *
 * Inputs: a profile with stacks (folded files), or one with only a call
 * graph (pstats), from which pyprof_profile_estimate_stacks() builds stacks
 * by caller ratios - an estimate, which the title and notes then say.
 * Two-count data (metadata "stack_metrics" = "before,after": differential
 * folded lines, or pyprof_profile_diff_stacks) is drawn as a differential
 * flame graph: widths from "after", red/blue by change.
 *
 * Ownership: a pyprof_flame is created by pyprof_flame_layout and released by
 * pyprof_flame_free; frames and strings it returns are borrowed from it.
 */
#ifndef PYPROF_FLAME_H
#define PYPROF_FLAME_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Options, named and defaulted as flamegraph.pl's.  Start from PYPROF_FLAME_OPTIONS_INIT. */
typedef struct pyprof_flame_options {
    unsigned version;      /**< PYPROF_FLAME_OPTIONS_VERSION */
    const char *title;     /**< NULL: "Flame Graph" / "Icicle Graph" / "Flame Chart" */
    const char *subtitle;  /**< NULL: none */
    double width;          /**< image width in px (1200) */
    double height;         /**< frame height in px (16) */
    double minwidth;       /**< omit frames narrower than this many px (0.1) ... */
    int minwidth_percent;  /**< ... or, when non-zero, this percent of the total */
    const char *fonttype;  /**< CSS font family ("Verdana") */
    double fontsize;       /**< font size (12) */
    double fontwidth;      /**< average glyph width / fontsize, for label fitting (0.59) */
    const char *countname; /**< unit word in tooltips ("samples") */
    const char *nametype;  /**< details prefix ("Function:") */
    const char *colors;    /**< palette: hot (default), mem, io, wakeup, chain, java, js,
                                perl, red, green, blue, aqua, yellow, purple, orange */
    const char *bgcolors;  /**< NULL: per palette; yellow, blue, green, grey or #rrggbb */
    int hash;              /**< colour by name hash */
    const char *cp_file;   /**< consistent palette file (flamegraph.pl --cp: "palette.map"),
                                read and updated; NULL: off */
    int reverse;           /**< reverse every stack (leaf first) before merging */
    int inverted;          /**< icicle graph: root at the top */
    int flamechart;        /**< keep first-seen order instead of sorting */
    int negate;            /**< swap differential colours */
    double factor;         /**< multiply displayed counts (1) */
    double total;          /**< override the total used for widths (0: the sum) */
    const char *notes;     /**< text for the NOTES comment / script */
    int diff_vanished;     /**< differential: widths max(before, after), so that frames
                                that vanished are drawn too (blue); 0: after, as
                                flamegraph.pl */
} pyprof_flame_options;

#define PYPROF_FLAME_OPTIONS_VERSION 1
#define PYPROF_FLAME_OPTIONS_INIT                                                                  \
    {                                                                                              \
        PYPROF_FLAME_OPTIONS_VERSION, NULL, NULL, 1200, 16, 0.1, 0, "Verdana", 12, 0.59,           \
            "samples", "Function:", "hot", NULL, 0, NULL, 0, 0, 0, 0, 1, 0, NULL, 0                \
    }

/** One drawn frame of a flame graph. */
typedef struct pyprof_flame_frame {
    const char *name;  /**< frame text (root: "all"), valid UTF-8 */
    pyprof_id func;    /**< function id, PYPROF_NONE for the root */
    uint32_t depth;    /**< 0 = root */
    double start, end; /**< in count units (samples), as flamegraph.pl's stime/etime */
    double delta;      /**< differential: after - before of the stack ending here, else 0 */
    int has_delta;     /**< 1 for frames of a differential graph */
    double x, y, w, h; /**< box in px, rounded as flamegraph.pl writes it */
    uint8_t r, g, b;   /**< fill colour */
} pyprof_flame_frame;

typedef struct pyprof_flame pyprof_flame;

/**
 * Lay out the flame graph of `p` (which must have stacks: PYPROF_ECAPS
 * otherwise; see pyprof_profile_estimate_stacks).  `opts` may be NULL.
 * No valid samples (total 0) is PYPROF_EFORMAT "no samples".  The profile
 * is not changed, but its lazily built index of stack children may be
 * (hence not const); the layout reads the stack tree in place.
 */
int pyprof_flame_layout(pyprof_flame **out, pyprof_profile *p, const pyprof_flame_options *opts,
                        pyprof_error *err);

/**
 * The pyprof_read_options.stack_elide_below a profile may be read with to
 * be drawn with `opts` (NULL: the defaults) and give the same graph: a frame
 * lighter than that share of the samples is narrower than the minimum
 * width, and so is everything below it.  0 when the
 * graph needs every frame (--reverse, minwidth 0).  The reader then skips
 * most of the work on big files of distinct stacks.  A differential graph
 * of two profiles (pyprof_profile_diff_stacks) needs every frame too.
 */
double pyprof_flame_elide_fraction(const pyprof_flame_options *opts);

/** Free a layout; NULL is allowed. */
void pyprof_flame_free(pyprof_flame *f);

/** Number of frames drawn (after minwidth pruning), root included. */
size_t pyprof_flame_frame_count(const pyprof_flame *f);

/** The i-th frame, ordered by depth then x; NULL past the end. */
const pyprof_flame_frame *pyprof_flame_frame_at(const pyprof_flame *f, size_t i);

/** Image size in px. */
void pyprof_flame_size(const pyprof_flame *f, double *width, double *height);

/** The total (root width) in count units. */
double pyprof_flame_total(const pyprof_flame *f);

/**
 * Write the layout as an interactive SVG.  A graph of 2,048 frames or
 * more has the markup of its second half made on a short-lived helper
 * thread; it has ended by the time the call returns, and it never calls
 * back into the caller.
 */
int pyprof_flame_write_svg(const pyprof_flame *f, pyprof_output *o, pyprof_error *err);

/**
 * Write the layout as a PNG.  The first PNG of a process loads cairo and
 * FreeType (libpyprof is not linked with them, so that a program that draws
 * no PNG does not load them); if they cannot be loaded, PYPROF_EIO with a
 * message that names the library.
 */
int pyprof_flame_write_png(const pyprof_flame *f, pyprof_output *o, pyprof_error *err);

/**
 * Lay out and write in one call; `type` is "svg" or "png" (NULL: "svg").
 * For SVG, the first call of a process loads libxml2 on a short-lived
 * helper thread while it lays the graph out; the thread has ended by the
 * time the call returns, and later calls need none (see also
 * pyprof_flame_write_svg).
 */
int pyprof_render_flame(pyprof_profile *p, const pyprof_flame_options *opts, const char *type,
                        pyprof_output *o, pyprof_error *err);

/**
 * The text of function `func` as a flame graph frame shows it (for frames
 * read from folded stacks: exactly the original frame text).  Writes at most
 * `size` bytes including the NUL, like snprintf, and returns the full length.
 */
size_t pyprof_flame_frame_label(const pyprof_profile *p, pyprof_id func, char *buf, size_t size);

/**
 * Give a profile that has a call graph but no stacks (pstats) an estimated
 * stack tree: from each root (a function's cumulative time that its
 * callers' edges do not account for), descend into callees, splitting each
 * function's time among its callees in proportion to the edges' cumulative
 * times, as caller-ratio estimators (flameprof, gprof2dot) do.  Recursion is cut at the first
 * repeat of a function on the path, and paths deeper than `max_depth` (0: 256) are cut there.  Sets
 * metadata "stacks_estimated" = "1".  Does nothing if `p` has stacks.
 */
int pyprof_profile_estimate_stacks(pyprof_profile *p, unsigned max_depth, pyprof_error *err);

/**
 * Build the differential profile of two stack profiles, as difffolded.pl:
 * every stack of either side, metric 0 = `before`'s weight, metric 1 =
 * `after`'s (missing side 0), metadata "stack_metrics" = "before,after".
 * With `normalize`, before's weights are scaled to after's total (-n).
 */
int pyprof_profile_diff_stacks(pyprof_profile **out, const pyprof_profile *before,
                               const pyprof_profile *after, int normalize, pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
