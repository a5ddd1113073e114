/*
 * pyprof/mem.h - memory-over-time plots and mprof-style summaries.
 *
 * Works on a profile's memory timeline (pyprof/profile.h), as the mprofile
 * reader fills it: per source file, one main series (child -1, labelled with
 * the command line), one series per child process, and FUNC brackets on the
 * main series.  A profile made by merging several files (pyprof_profile_merge)
 * holds one main series per file; the plot draws one line per file, as
 * `mprof plot a.dat b.dat` does.
 *
 * The text written by pyprof_mem_write_peak and pyprof_mem_write_list is
 * byte for byte what `mprof peak` and `mprof list` (memory_profiler 0.61)
 * print; see ../shared/docs/formats.md section 7.4.
 */
#ifndef PYPROF_MEM_H
#define PYPROF_MEM_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- peak ---------------------------------------------------------------- */

/** How a peak was found. */
typedef enum pyprof_mem_peak_basis {
    PYPROF_MEM_PEAK_NONE = 0,    /**< nothing to take a maximum of: `mib` is NaN */
    PYPROF_MEM_PEAK_SAMPLES = 1, /**< the largest memory sample */
    /** --func only: no sample fell inside the function's executions (it is
     * shorter than the sampling interval), so the peak is the largest of the
     * entry/exit memory recorded by its FUNC lines.  mprof crashes here. */
    PYPROF_MEM_PEAK_BRACKETS = 2
} pyprof_mem_peak_basis;

typedef struct pyprof_mem_peak {
    double mib;                  /**< peak memory in MiB, NaN when basis is NONE */
    double t;                    /**< time (epoch s) at which it was reached, NaN if none */
    size_t nsamples;             /**< samples taken into account */
    pyprof_mem_peak_basis basis; /**< see above */
} pyprof_mem_peak;

/**
 * Peak of `series` over its samples only (FUNC points are not samples,
 * as in `mprof peak`).  With `func` non-NULL, only samples whose time lies
 * inside an execution [t0, t1] of a bracket named `func` (exactly, on the
 * same source's main series) count; an unknown `func` gives basis NONE.
 * The first sample reaching the maximum wins.
 */
int pyprof_mem_peak_of(pyprof_mem_peak *out, const pyprof_profile *p, pyprof_id series,
                       const char *func);

/**
 * Write `mprof peak [--func NAME]` text for every source of `p`, in source
 * order: "<file>\t%.3f MiB" for the main series (NaN when `func` is unknown
 * or nothing qualifies), then "  Child <pid>\t\t\t%.3f MiB" per child.
 */
int pyprof_mem_write_peak(pyprof_output *o, const pyprof_profile *p, const char *func,
                          pyprof_error *err);

/* ---- list ---------------------------------------------------------------- */

/**
 * The `mprofile_??????????????.dat` files of directory `dir` (NULL = "."),
 * as mprof globs them (each '?' is one character), sorted by name; the
 * last one is what mprof calls the newest.  `*names` is a NULL-terminated
 * array owned by the caller: free it with pyprof_mem_list_free.
 */
int pyprof_mem_list_files(char ***names, size_t *n, const char *dir, pyprof_error *err);
/** Free a list from pyprof_mem_list_files (NULL is allowed). */
void pyprof_mem_list_free(char **names);

/**
 * Write `mprof list` text for `names`: "<index> <name> HH:MM:SS DD/MM/YYYY"
 * with the date and time read from the name's timestamp.
 */
int pyprof_mem_write_list(pyprof_output *o, char *const *names, size_t n, pyprof_error *err);

/* ---- plot ---------------------------------------------------------------- */

/** What to draw.  Always start from PYPROF_MEM_PLOT_OPTIONS_INIT. */
typedef struct pyprof_mem_plot_options {
    unsigned version;     /**< PYPROF_MEM_PLOT_OPTIONS_VERSION */
    const char *title;    /**< NULL: the command line when there is one file */
    int window;           /**< non-zero: show only times [window_start, window_end] */
    double window_start;  /**< seconds from the first point */
    double window_end;    /**< seconds from the first point */
    int slope;            /**< fitted trend line per curve, its MiB/s in the legend */
    int flame;            /**< function executions as boxes stacked by depth */
    int include_children; /**< add a curve: main + children summed (as mprof run -C) */
    int no_functions;     /**< no brackets or boxes (mprof plot -n) */
    int no_children;      /**< leave child series out */
    double width, height; /**< pixels; 0 = mprof's 14x6 in at 90 dpi (1260x540) */
    const char *font;     /**< font family; NULL = "DejaVu Sans" */
} pyprof_mem_plot_options;

#define PYPROF_MEM_PLOT_OPTIONS_VERSION 1
#define PYPROF_MEM_PLOT_OPTIONS_INIT                                                               \
    {                                                                                              \
        PYPROF_MEM_PLOT_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL                  \
    }

/**
 * Draw the memory plot of `p` as "svg" or "png" (`type`) into `o`.
 * Needs PYPROF_CAP_MEMORY (PYPROF_ECAPS otherwise).  The first SVG of a
 * process loads libxml2, the first PNG cairo and FreeType; if the library
 * cannot be loaded, PYPROF_EIO with a message that names it.
 * Large series are drawn decimated by min/max per pixel column, so every
 * sample's extreme stays visible however many there are.
 */
int pyprof_mem_plot(pyprof_output *o, const pyprof_profile *p, const char *type,
                    const pyprof_mem_plot_options *opts, pyprof_error *err);

/* ---- line-by-line report (memreport format) ------------------------------- */

/**
 * Write a summary of a profile read from an `@profile` text report: per
 * function its peak memory and the line where it was reached, then the
 * `top` lines with the largest positive increments (0 = 10; the decorator
 * row, whose figure is the memory at entry, is left out).  `type` is "txt",
 * "json" or "csv".  Needs PYPROF_CAP_LINES (PYPROF_ECAPS otherwise).
 */
int pyprof_mem_write_report(pyprof_output *o, const pyprof_profile *p, const char *type, size_t top,
                            pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
