/*
 * pyprof/stats.h - pstats-style tables: sorting, restrictions,
 * print_stats/print_callers/print_callees, strip_dirs and adding files.
 *
 * A pyprof_stats is what Python's pstats.Stats is: a profile plus the
 * running totals, the order in which functions were first entered (the
 * "dict order" every unsorted listing and every tie follows), and the
 * current sort.  Its printers write, byte for byte, what CPython 3.11's
 * pstats prints for the same data (formats.md section 4), so that tools and
 * tests can compare with the reference.  Where pstats fails (it cannot
 * compare a pure-Python `profile` code-object name with a string; it cannot
 * read Python 2 files), the view does the sensible thing instead: names are
 * compared as the text they print as.
 *
 * Functions flagged PYPROF_FUNC_CALLER_ONLY (known only as somebody's
 * caller) have no row, exactly as pstats has no entry for them, but appear
 * as partners in the callers/callees listings.
 *
 * A profile whose metadata says key_strings=bytes (a Python 2 file that
 * Python 3 loads with bytes keys) gets its labels as Python 3's pstats
 * prints them: b'file.py':7(b'fib').
 *
 * Ownership: pyprof_stats_new takes the profile it is given; the view frees
 * it.  pyprof_stats_profile lends it back.
 */
#ifndef PYPROF_STATS_H
#define PYPROF_STATS_H

#include <pyprof/format.h>
#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pyprof_stats pyprof_stats;

/* ---- building a view ------------------------------------------------------ */

/**
 * Make a view of `profile`, taking ownership of it (on failure the caller
 * keeps it).  The view is unsorted: listings follow the profile's order of
 * entries.  The totals (calls, primitive calls, time) are summed here, in
 * that order, as pstats does on load.
 */
int pyprof_stats_new(pyprof_stats **out, pyprof_profile *profile, pyprof_error *err);

/** Free the view and its profile; NULL is allowed. */
void pyprof_stats_free(pyprof_stats *st);

/** The profile behind the view (borrowed; replaced by strip_dirs). */
pyprof_profile *pyprof_stats_profile(const pyprof_stats *st);

/**
 * Load files as pstats.Stats(f1, f2, ..., fn) does: f1, then fn, fn-1 ...
 * f2 added in that (reversed) order, which is also the order of the header
 * lines.  `opts` may be NULL.  Sampled stacks (folded files) get their
 * call graph derived (pyprof_profile_derive_callgraph); a file with no
 * function counters (line timings, memory) fails with PYPROF_ECAPS saying
 * which format it is.
 */
int pyprof_stats_load(pyprof_stats **out, const char *const *paths, size_t n,
                      const pyprof_read_options *opts, pyprof_error *err);

/**
 * Add `other` (borrowed, unchanged) into the view as Stats.add does:
 * counters summed, new functions appended in `other`'s order, totals
 * summed, the sort discarded.  Mixing a profile-module caller count with a
 * cProfile caller record for the same edge fails with PYPROF_EFORMAT.
 */
int pyprof_stats_add(pyprof_stats *st, const pyprof_profile *other, pyprof_error *err);

/** Read `path` and add it (the `add FILE` command). */
int pyprof_stats_add_file(pyprof_stats *st, const char *path, const pyprof_read_options *opts,
                          pyprof_error *err);

/**
 * Strip leading directories from every file name, as Stats.strip_dirs():
 * functions that collapse to the same key are added together, but within
 * one function's callers a collapsing caller *replaces* the earlier one
 * (pstats re-keys a dict, losing data; this is reproduced on purpose).
 * The sort is discarded; the totals are kept.
 */
int pyprof_stats_strip_dirs(pyprof_stats *st, pyprof_error *err);

/**
 * The same transformation on a bare profile, in its own order of entries:
 * `*out` is a new profile holding the functions, edges, sources and
 * metadata of `p` (stacks, lines and memory are not carried over).
 */
int pyprof_profile_strip_dirs(pyprof_profile **out, const pyprof_profile *p, pyprof_error *err);

/* ---- totals and rows -------------------------------------------------------- */

/** The totals pstats prints: calls, primitive calls and time. */
typedef struct pyprof_stats_totals {
    int64_t ncalls;    /**< sum of nc over the entries */
    int64_t primcalls; /**< sum of cc */
    double tottime;    /**< sum of tt, added in load order */
} pyprof_stats_totals;

/** Copy the totals to `*out`. */
void pyprof_stats_get_totals(const pyprof_stats *st, pyprof_stats_totals *out);

/** Number of entries (rows of an unrestricted table). */
size_t pyprof_stats_count(const pyprof_stats *st);

/**
 * The function id of row `i` in the current order (sorted, reversed, or
 * entry order); PYPROF_NONE past the end.
 */
pyprof_id pyprof_stats_row(const pyprof_stats *st, size_t i);

/**
 * The pstats label of function `func` (func_std_string): "{inner}" for a
 * cProfile built-in ("~", 0, "<inner>"), a "~" name without brackets as
 * it is, else "FILE:LINE(NAME)".  The string is borrowed from the view and
 * valid until the next call on it (labels are built on first use); NULL if
 * `func` is out of range or memory ran out.
 */
const char *pyprof_stats_label(pyprof_stats *st, pyprof_id func);

/* ---- sorting ---------------------------------------------------------------- */

/**
 * Sort by `n` keys, primary first, stably (ties keep the current entry
 * order).  Each key is a full name or an unambiguous abbreviation of one of
 * calls ncalls cumtime cumulative filename line module name nfl pcalls
 * stdname time tottime (formats.md 4.5: "cu" works, "cum" does not).
 * n == 0 discards the sort, as sort_stats() does.  An unknown key fails
 * with PYPROF_EINVAL naming it, and leaves the view unchanged.
 */
int pyprof_stats_sort(pyprof_stats *st, const char *const *keys, size_t n, pyprof_error *err);

/** The old profiler's integer sort: -1 stdname, 0 calls, 1 time, 2 cumulative. */
int pyprof_stats_sort_legacy(pyprof_stats *st, int code, pyprof_error *err);

/** Reverse the current sorted order; no effect while unsorted (as pstats). */
void pyprof_stats_reverse(pyprof_stats *st);

/** The full key name `word` stands for, or NULL if unknown or ambiguous. */
const char *pyprof_stats_sort_key_lookup(const char *word);

/** Number of full sort key names (13). */
size_t pyprof_stats_sort_key_count(void);

/** The i-th full key name in pstats' table order, or NULL past the end. */
const char *pyprof_stats_sort_key_name(size_t i);

/** What the i-th key prints after "Ordered by:", e.g. "cumulative time". */
const char *pyprof_stats_sort_key_description(size_t i);

/* ---- restrictions ----------------------------------------------------------- */

enum pyprof_restriction_kind {
    PYPROF_RESTRICT_COUNT = 0,    /**< keep the first `count` rows (if 0 <= count < rows) */
    PYPROF_RESTRICT_FRACTION = 1, /**< keep int(rows * fraction + 0.5) (if 0 <= f < 1) */
    PYPROF_RESTRICT_REGEX = 2     /**< keep rows whose label a Python `re` pattern finds */
};

/** One argument of print_stats/print_callers/print_callees. */
typedef struct pyprof_stats_restriction {
    int kind;            /**< a pyprof_restriction_kind */
    int64_t count;       /**< for PYPROF_RESTRICT_COUNT */
    double fraction;     /**< for PYPROF_RESTRICT_FRACTION */
    const char *pattern; /**< for PYPROF_RESTRICT_REGEX (borrowed) */
} pyprof_stats_restriction;

/**
 * Classify a command word as the pstats browser does: an integer (Python
 * int() syntax) is a count, else a float (Python float() syntax) is a
 * fraction, else the word is a regular expression (pointing at `word`).
 * A float outside [0, 1] fails with PYPROF_EINVAL and the message
 * "Fraction argument must be in [0, 1]" (the browser drops such words).
 */
int pyprof_stats_restriction_parse(pyprof_stats_restriction *out, const char *word,
                                   pyprof_error *err);

/* ---- printing (byte-identical to pstats) ------------------------------------- */

/**
 * print_stats(*restrictions): file header lines, totals, the order and
 * restriction messages, then the table.  Restrictions are applied in
 * order, each to the previous result.  An invalid regular expression is
 * reported in the output ("<Invalid regular expression 'x'>"), as pstats
 * does, and is not an error.
 */
int pyprof_stats_print(pyprof_stats *st, pyprof_output *out, const pyprof_stats_restriction *restr,
                       size_t n, pyprof_error *err);

/** print_callers(*restrictions): who called each listed function. */
int pyprof_stats_print_callers(pyprof_stats *st, pyprof_output *out,
                               const pyprof_stats_restriction *restr, size_t n, pyprof_error *err);

/** print_callees(*restrictions): what each listed function called. */
int pyprof_stats_print_callees(pyprof_stats *st, pyprof_output *out,
                               const pyprof_stats_restriction *restr, size_t n, pyprof_error *err);

/* ---- export ------------------------------------------------------------------ */

enum pyprof_stats_export_format {
    PYPROF_STATS_JSON = 0, /**< one JSON object, see pyprof_stats_export */
    PYPROF_STATS_CSV = 1   /**< RFC 4180 CSV with a header row */
};

/**
 * Export the restricted table (the rows print_stats would list) as data.
 * Field names are stable.  Each row has: file, line, function, label,
 * ncalls, primcalls, tottime, tottime_percall, cumtime, cumtime_percall
 * (the per-call values are null in JSON and empty in CSV when the divisor
 * is 0).  JSON wraps the rows as {"files": [...], "total_calls": N,
 * "primitive_calls": N, "total_time": T, "order": "..." or null, "rows":
 * [...]}, and with `with_edges` each row also has "callers" and "callees":
 * arrays of {"label", "ncalls", "primcalls", "tottime", "cumtime"}
 * (only "label" and "ncalls" for profile-module call counts).  Numbers are
 * written with the shortest text that reads back to the same double.
 */
int pyprof_stats_export(pyprof_stats *st, pyprof_output *out, int format, int with_edges,
                        const pyprof_stats_restriction *restr, size_t n, pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
