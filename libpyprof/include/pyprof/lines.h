/*
 * pyprof/lines.h - line_profiler-style line-by-line reports.
 *
 * pyprof_render_lines() prints the report of `python -m line_profiler` for
 * the line timings of a profile (read from an .lprof, or merged from
 * several), byte for byte as line_profiler 4.0.2 prints it:
 *
 *     Timer unit: 1e-06 s
 *
 *     Total time: 0.000690458 s
 *     File: lp_prog.py
 *     Function: work at line 2
 *
 *     Line #      Hits         Time  Per Hit   % Time  Line Contents
 *     ==============================================================
 *          2                                           @profile
 *          3                                           def work(n):
 *          4         3          0.8      0.3      0.1      total = 0
 *
 * Like line_profiler, the renderer reads the profiled source files at print
 * time and shows the function's block (Python's inspect.getblock rules).
 * Unlike it, when the recorded path does not exist it also looks under the
 * source roots given in the options (for profiles taken on another machine),
 * before printing line_profiler's "Could not find file" text.
 *
 * Known deviations from line_profiler 4.0.2 (it crashes in these cases):
 * an entry with 0 hits gets a blank "Per Hit" column instead of a
 * ZeroDivisionError; a source whose block runs into the end of the file
 * inside an open bracket or string is cut there instead of a TokenError.
 * Sources declared in an encoding other than UTF-8, Latin-1 or ASCII are
 * read as UTF-8 (Latin-1 where that is invalid).
 */
#ifndef PYPROF_LINES_H
#define PYPROF_LINES_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Options of pyprof_render_lines().  Always start from PYPROF_LINES_OPTIONS_INIT. */
typedef struct pyprof_lines_options {
    unsigned version;   /**< PYPROF_LINES_OPTIONS_VERSION */
    double output_unit; /**< seconds per displayed time unit (-u); 0 = the profile's own unit */
    int skip_zero;      /**< -z: leave out functions whose total time is 0 */
    int sort_by_time;   /**< -t: ascending total time (ties in file order) instead of by
                             (file, line, name) */
    int summarize;      /**< -m: one summary line per function after the blocks (4.1 layout) */
    /** Directories searched for a source whose recorded path does not exist:
     * each root is tried with the recorded path's longest suffix first
     * (ROOT/a/b/f.py, then ROOT/b/f.py, then ROOT/f.py). */
    const char *const *source_roots;
    size_t nsource_roots; /**< entries in source_roots */
} pyprof_lines_options;

#define PYPROF_LINES_OPTIONS_VERSION 1
#define PYPROF_LINES_OPTIONS_INIT                                                                  \
    {                                                                                              \
        PYPROF_LINES_OPTIONS_VERSION, 1e-6, 0, 0, 0, NULL, 0                                       \
    }

/**
 * Write the line report of every function of `p` that has a line table
 * (PYPROF_FUNC_LINES) to `out`.  Several records of one (function, line),
 * as a merge of several profiles leaves them, are summed.  Fails with
 * PYPROF_ECAPS when `p` has no line timings at all (not even empty tables),
 * PYPROF_EINVAL for a non-positive output unit; otherwise returns the
 * output's sticky status.  `opts` may be NULL (defaults).
 */
int pyprof_render_lines(const pyprof_profile *p, pyprof_output *out,
                        const pyprof_lines_options *opts, pyprof_error *err);

/**
 * Write the line timings as JSON: an object
 *   {"unit": SECONDS_PER_UNIT,
 *    "functions": [{"file": F, "line": N, "name": S, "total_time": SECONDS,
 *                   "lines": [{"line": N, "hits": N, "time": SECONDS}, ...]}, ...]}
 * with functions in profile (file) order and lines ascending; times are in
 * seconds.  Same failures as pyprof_render_lines.
 */
int pyprof_lines_write_json(const pyprof_profile *p, pyprof_output *out, pyprof_error *err);

/**
 * Write the line timings as CSV with the header
 *   file,function,first_line,line,hits,time_s,time_per_hit_s
 * one row per (function, line), functions in profile order, lines ascending
 * (RFC 4180 quoting, "\n" line ends).  Same failures as pyprof_render_lines.
 */
int pyprof_lines_write_csv(const pyprof_profile *p, pyprof_output *out, pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
