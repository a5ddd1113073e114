/*
 * pyprof/format.h - the format registry: naming, probing and reading.
 *
 * Each format module (formats/<name>.c) has a probe that looks at the first
 * decoded bytes of an input (at most PYPROF_PROBE_BYTES) and bids 0-100: 0 is
 * "not mine", 100 is "certainly mine" (a magic number).  The highest bid
 * wins; ties go to registry order.  A forced format (-f NAME) skips probing.
 */
#ifndef PYPROF_FORMAT_H
#define PYPROF_FORMAT_H

#include <pyprof/input.h>
#include <pyprof/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How many bytes a probe may see. */
#define PYPROF_PROBE_BYTES 4096

/** Options for reading.  Always start from PYPROF_READ_OPTIONS_INIT. */
typedef struct pyprof_read_options {
    unsigned version;            /**< PYPROF_READ_OPTIONS_VERSION */
    const char *format;          /**< a format name or alias, or NULL to probe */
    uint64_t max_bytes;          /**< bound on decoded bytes held in memory; 0 = default (1 GiB) */
    uint32_t max_depth;          /**< nesting bound for recursive formats; 0 = default (2000) */
    pyprof_progress_fn progress; /**< called as the input is read (see input.h), or NULL */
    void *progress_payload;      /**< passed to `progress` */
    /** Since version 2: bound on zstd expansion, decoded over compressed
     *  bytes; 0 = default (PYPROF_INPUT_MAX_RATIO_DEFAULT). */
    uint32_t max_ratio;
    /** Since version 2: threads a reader may use: 0 = as many as help
     *  (today: two for a big plain collapsed file, if it may run on two CPUs),
     *  1 = only the caller's.  The profile read is the same either way;
     *  with stack_elide_below, the flame graph drawn from it is the same,
     *  but its functions and stack nodes may be numbered in another order
     *  and its stacks cut at other frames. */
    unsigned threads;
    /** Since version 3: 0 = read every frame (the default).  A fraction in
     *  (0, 1): a reader may cut short the stacks below a frame whose weight
     *  (its own and all below it) is less than this fraction (less a
     *  thousandth of it, for rounding) of the summed weight of the stacks
     *  it could cut, keeping them down to that
     *  frame (see pyprof_stack_elided).  Drawing a flame graph needs only
     *  what is wide enough to see: pyprof_flame_elide_fraction gives the
     *  fraction for a graph's options.  Only the collapsed reader cuts,
     *  and only plain files and memory of folded text; on a big file with
     *  stacks that are all distinct it saves most of the work.  From a
     *  plain file or memory it may read parts of the input again before
     *  the read returns: a file whose size or modification time changed by
     *  then fails the read with PYPROF_EIO. */
    double stack_elide_below;
} pyprof_read_options;

/* Version 2 added max_ratio and threads, version 3 stack_elide_below; a
 * caller built against an older version passes a shorter struct, and the
 * library reads only what its version holds. */
#define PYPROF_READ_OPTIONS_VERSION 3
#define PYPROF_READ_OPTIONS_INIT                                                                   \
    {                                                                                              \
        PYPROF_READ_OPTIONS_VERSION, NULL, 0, 0, NULL, NULL, 0, 0, 0                               \
    }

/** Number of registered formats. */
size_t pyprof_format_count(void);

/** Name of the i-th format ("pstats", "lprof", ...), or NULL past the end. */
const char *pyprof_format_name(size_t i);

/** A one-line description of the i-th format, or NULL. */
const char *pyprof_format_description(size_t i);

/**
 * The canonical name for `name`, which may be an alias ("collapse",
 * "folded" -> "collapsed"); NULL if unknown.
 */
const char *pyprof_format_canonical(const char *name);

/**
 * Probe `in` without consuming it.  `*name` receives the best format's name,
 * or NULL when nothing bids (then PYPROF_EFORMAT is returned with a message
 * saying what the bytes look like, e.g. "a PNG image").  `score` may be NULL.
 */
int pyprof_format_probe(pyprof_input *in, const char **name, int *score, pyprof_error *err);

/**
 * Read one input into a new profile: probe (or use opts->format), run the
 * format's reader, and record the input as a source.  `opts` may be NULL.
 * Reading a big pstats file may start a short-lived helper thread (it
 * prefaults memory the reader is about to fill); it has ended by the time
 * the call returns, and it never calls back into the caller.
 */
int pyprof_profile_read(pyprof_profile **out, pyprof_input *in, const pyprof_read_options *opts,
                        pyprof_error *err);

/** Open `path` ("-" = stdin), read it, close it. */
int pyprof_profile_load(pyprof_profile **out, const char *path, const pyprof_read_options *opts,
                        pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
