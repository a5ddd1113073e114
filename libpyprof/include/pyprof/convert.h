/*
 * pyprof/convert.h - writing profiles in other formats, merge rank
 * statistics, and differences between two profiles.
 *
 * Writers form a small registry, like the readers of format.h: a writer is
 * named ("pstats", "collapsed", "callgrind", "speedscope", "json", "csv"),
 * can be found from an output file name, and writes one profile to one
 * pyprof_output.  No target holds everything the model can: each writer
 * says what it had to drop or estimate as human-readable notes (one line
 * each, no trailing '.'), which tools print on stderr.  A writer never
 * changes the profile it is given; derived views (a call graph from stacks,
 * estimated stacks from a call graph) are built in scratch copies.
 */
#ifndef PYPROF_CONVERT_H
#define PYPROF_CONVERT_H

#include <pyprof/output.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- notes ------------------------------------------------------------------ */

/** A list of one-line messages about what a conversion could not keep. */
typedef struct pyprof_notes pyprof_notes;

/** Create an empty list. */
int pyprof_notes_new(pyprof_notes **out);
/** Free a list; NULL is allowed. */
void pyprof_notes_free(pyprof_notes *n);
/** Append a printf-formatted note (C locale); equal notes are kept once. */
int pyprof_notes_add(pyprof_notes *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** Number of notes. */
size_t pyprof_notes_count(const pyprof_notes *n);
/** The i-th note, in the order added; NULL past the end. */
const char *pyprof_notes_at(const pyprof_notes *n, size_t i);

/* ---- writers ---------------------------------------------------------------- */

/** Number of writers. */
size_t pyprof_writer_count(void);
/** Name of the i-th writer, or NULL past the end. */
const char *pyprof_writer_name(size_t i);
/** One-line description of the i-th writer, or NULL. */
const char *pyprof_writer_description(size_t i);
/** Canonical writer name for `name` or an alias ("folded", "prof"); NULL if unknown. */
const char *pyprof_writer_canonical(const char *name);
/**
 * The writer a file name asks for: *.pstats and *.prof -> pstats,
 * *.folded and *.collapsed -> collapsed, *.callgrind and callgrind.out.* ->
 * callgrind, *.speedscope.json -> speedscope, other *.json -> json,
 * *.csv -> csv.  NULL if the name says nothing.
 */
const char *pyprof_writer_from_path(const char *path);

/** Options for writing.  Always start from PYPROF_WRITE_OPTIONS_INIT. */
typedef struct pyprof_write_options {
    unsigned version;    /**< PYPROF_WRITE_OPTIONS_VERSION */
    pyprof_notes *notes; /**< where to record what the target cannot hold; may be NULL */
    const char *name;    /**< a title for formats that carry one (speedscope); NULL = none */
    double min_fraction; /**< estimated stacks: drop paths below this share of the total
                              (0 = default 1e-5) */
    size_t max_nodes;    /**< estimated stacks: bound on tree nodes (0 = default 1,000,000) */
} pyprof_write_options;

#define PYPROF_WRITE_OPTIONS_VERSION 1
#define PYPROF_WRITE_OPTIONS_INIT                                                                  \
    {                                                                                              \
        PYPROF_WRITE_OPTIONS_VERSION, NULL, NULL, 0, 0                                             \
    }

/**
 * Write `p` to `out` as `format` (a writer name or alias).  Output errors
 * are left in `out` (sticky) for pyprof_output_commit to report; the return
 * value covers the conversion itself: PYPROF_EINVAL for an unknown format,
 * PYPROF_ECAPS when the profile has nothing the format can hold (e.g. a
 * memory timeline as pstats).  `p` is not modified (it is non-const only
 * because the adjacency accessors build caches).  `opts` may be NULL.
 *
 * Writers and what they keep:
 *  - pstats: Python's marshal version-2 subset that every CPython from 2.5
 *    to 3.14 loads; functions in id order (= dict order), code-object names
 *    written as strings, caller-only functions appear only as callers.
 *  - collapsed: one line per stack with self weight; from a profile with
 *    only a call graph, stacks estimated from caller ratios (marked in a
 *    leading "# " line and a note; the reader takes the line back as the
 *    mark, so flame graphs of the file say "estimated"); weights in
 *    microseconds then.
 *  - callgrind: format version 1 as KCachegrind and callgrind_annotate load
 *    it, event "ns"; per-function call counts and cumulative time, which
 *    callgrind cannot express, ride along in "# pyprof:" comment lines that
 *    this library's reader uses and other tools ignore.
 *  - speedscope: one sampled profile (shared frames, root-first samples);
 *    estimated stacks say so at the end of the profile's name, which the
 *    reader takes back as the mark.
 *  - json, csv: the function table (see the man page of pyprof-convert for
 *    the field names, which are stable).
 */
int pyprof_profile_write(pyprof_profile *p, pyprof_output *out, const char *format,
                         const pyprof_write_options *opts, pyprof_error *err);

/* ---- rank statistics (pyprof-merge --ranks) -------------------------------- */

/**
 * Per-function spread of self and total time across many inputs (one per
 * process or MPI rank).  Inputs are added one at a time and may be freed
 * afterwards; the accumulator keeps one pair of numbers per function per
 * input in which the function appears (absent means 0).
 */
typedef struct pyprof_ranks pyprof_ranks;

/** A new, empty accumulator in *out (PYPROF_ENOMEM if none can be made). */
int pyprof_ranks_new(pyprof_ranks **out);
/** Free an accumulator (NULL is allowed). */
void pyprof_ranks_free(pyprof_ranks *r);
/** Record one input; `label` names it in the report (e.g. its file name). */
int pyprof_ranks_add(pyprof_ranks *r, pyprof_profile *input, const char *label, pyprof_error *err);

/** Statistics of one function over all inputs (absent inputs count as 0). */
typedef struct pyprof_rank_stat {
    double min, median, max, mean, stddev; /**< population standard deviation */
    double imbalance;                      /**< max / mean (0 when mean is 0) */
    size_t argmax;                         /**< index of the first input holding max */
} pyprof_rank_stat;

/** Number of functions seen so far. */
size_t pyprof_ranks_func_count(const pyprof_ranks *r);
/** Number of inputs added so far. */
size_t pyprof_ranks_input_count(const pyprof_ranks *r);
/** Label of input `i`. */
const char *pyprof_ranks_input_label(const pyprof_ranks *r, size_t i);
/**
 * Statistics of function `i` (first-seen order): `self` for tottime,
 * `total` for cumtime; `name` receives its display name (pstats style).
 */
int pyprof_ranks_stat(pyprof_ranks *r, size_t i, const char **name, pyprof_rank_stat *self,
                      pyprof_rank_stat *total);
/**
 * Write the report, sorted by maximum total time: `type` "txt" (aligned
 * table), "json" or "csv".  At most `limit` rows (0 = all).
 */
int pyprof_ranks_write(pyprof_ranks *r, pyprof_output *out, const char *type, size_t limit,
                       pyprof_error *err);

/* ---- differences (pyprof-diff) ----------------------------------------------- */

typedef struct pyprof_diff_options {
    unsigned version; /**< PYPROF_DIFF_OPTIONS_VERSION */
    int normalize;    /**< scale BEFORE so that its total equals AFTER's */
    double threshold; /**< hide rows whose |change| is below this share of the
                           larger total (0.01 = 1%); new/vanished rows always shown */
    const char *type; /**< "txt" (default), "json" or "csv" */
    size_t limit;     /**< at most this many changed rows (0 = all) */
    const char *sort; /**< "self" (default: change of self time) or "total" */
} pyprof_diff_options;

#define PYPROF_DIFF_OPTIONS_VERSION 1
#define PYPROF_DIFF_OPTIONS_INIT                                                                   \
    {                                                                                              \
        PYPROF_DIFF_OPTIONS_VERSION, 0, 0.0, NULL, 0, NULL                                         \
    }

/**
 * Compare two profiles function by function, matched by (file, line, name)
 * (stack-only profiles get their call graph derived first, in a copy), and
 * write a table sorted by the size of the change with absolute and relative
 * deltas, followed by the functions that are new in `after` and those that
 * vanished from `before`.  Neither profile is modified.
 */
int pyprof_diff_write(pyprof_profile *before, pyprof_profile *after, pyprof_output *out,
                      const pyprof_diff_options *opts, pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
