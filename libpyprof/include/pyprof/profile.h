/*
 * pyprof/profile.h - the one profile model that every format reads into.
 *
 * A profile owns an arena and a string table.  Entities live in dense arrays
 * and are named by pyprof_id (index into that array), never by pointer,
 * because the arrays grow.  Every collection keeps insertion order, which for
 * a reader is file order: reference tools print in dict order and sort
 * stably, so reproducing their output exactly depends on it.  Nothing is
 * ever iterated in hash order.
 *
 * Parts, any of which may be present (see pyprof_profile_caps):
 *   functions + call edges  - pstats, and derived from stacks;
 *   stack tree              - folded stacks: (parent, func) nodes with weights;
 *   line timings            - lprof: (func, line, hits, time) + a time unit;
 *   memory timeline         - mprofile: (t, MiB) samples per series + brackets.
 *
 * Pointers returned by the accessors (pyprof_profile_func etc.) are borrowed
 * and valid until the next call that adds to the same part.
 * A profile is not thread-safe; distinct profiles may be used concurrently.
 */
#ifndef PYPROF_PROFILE_H
#define PYPROF_PROFILE_H

#include <pyprof/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pyprof_profile pyprof_profile;

/* ---- lifecycle ---------------------------------------------------------- */

/** Create an empty profile. */
int pyprof_profile_new(pyprof_profile **out);

/** Free a profile and everything it owns; NULL is allowed. */
void pyprof_profile_free(pyprof_profile *p);

/** Parts a profile holds: a writer or renderer needing a missing one fails with PYPROF_ECAPS. */
enum pyprof_caps {
    PYPROF_CAP_FUNCS = 1u << 0,  /**< per-function counters */
    PYPROF_CAP_EDGES = 1u << 1,  /**< caller -> callee counters */
    PYPROF_CAP_STACKS = 1u << 2, /**< sampled stacks */
    PYPROF_CAP_LINES = 1u << 3,  /**< line timings */
    PYPROF_CAP_MEMORY = 1u << 4  /**< memory timeline */
};

/** Bit set of PYPROF_CAP_* for the parts that are non-empty. */
unsigned pyprof_profile_caps(const pyprof_profile *p);

/* ---- strings ------------------------------------------------------------ */

/**
 * Intern `len` bytes at `s` (valid UTF-8 without NUL, which the caller
 * guarantees; see pyprof_profile_intern_lossy otherwise).  Equal strings get
 * equal ids.  Id 0 is always the empty string.
 */
int pyprof_profile_intern(pyprof_profile *p, pyprof_id *out, const char *s, size_t len);

/**
 * Intern bytes of unknown encoding: invalid UTF-8 sequences and NUL bytes are
 * replaced by U+FFFD, or, with `latin1_fallback`, a string that is not valid
 * UTF-8 is decoded as Latin-1 (Python 2 byte strings).  Each substitution is
 * counted in pyprof_profile_replacements().
 */
int pyprof_profile_intern_lossy(pyprof_profile *p, pyprof_id *out, const char *s, size_t len,
                                int latin1_fallback);

/** The NUL-terminated text of string `id` ("" for PYPROF_NONE). */
const char *pyprof_profile_string(const pyprof_profile *p, pyprof_id id);

/** Byte length of string `id`. */
size_t pyprof_profile_string_len(const pyprof_profile *p, pyprof_id id);

/** How many invalid byte sequences intern_lossy replaced so far. */
uint64_t pyprof_profile_replacements(const pyprof_profile *p);

/* ---- sources and metadata ----------------------------------------------- */

/** One input file that went into the profile (pstats prints these as its header). */
typedef struct pyprof_source {
    pyprof_id name;   /**< the path exactly as given */
    pyprof_id format; /**< format name, e.g. "pstats" */
    int64_t mtime;    /**< modification time (s since epoch), -1 if unknown */
} pyprof_source;

/** Append a source record. */
int pyprof_profile_add_source(pyprof_profile *p, const char *name, const char *format,
                              int64_t mtime);
/** Number of source records. */
size_t pyprof_profile_source_count(const pyprof_profile *p);
/** The i-th source record in the order added, or NULL if i is out of range. */
const pyprof_source *pyprof_profile_source(const pyprof_profile *p, size_t i);

/**
 * Free-form metadata (producer, command line, units, "estimated" flags).
 * Setting an existing key replaces its value in place (keeping its position).
 * Well-known keys: "producer" (e.g. "cProfile", "yappi", "profile"),
 * "time_unit" ("seconds" or "samples"), "cmdline", "sampled" ("1").
 */
int pyprof_profile_meta_set(pyprof_profile *p, const char *key, const char *value);
/** The value of `key`, or NULL. */
const char *pyprof_profile_meta_get(const pyprof_profile *p, const char *key);
/** Number of metadata pairs. */
size_t pyprof_profile_meta_count(const pyprof_profile *p);
/** The i-th key/value pair in insertion order. */
void pyprof_profile_meta_at(const pyprof_profile *p, size_t i, const char **key,
                            const char **value);

/* ---- functions and call edges ------------------------------------------- */

/**
 * Counters of a function or an edge, as pstats keeps them.  For sampled data
 * the times are sample weights and the metadata "time_unit" says "samples".
 */
typedef struct pyprof_counts {
    int64_t primcalls; /**< cc: primitive (non-recursive) calls */
    int64_t ncalls;    /**< nc: all calls */
    double tottime;    /**< tt: time in the function itself */
    double cumtime;    /**< ct: time including callees (outermost activation only) */
} pyprof_counts;

enum pyprof_func_flags {
    /** The name came from a code object (pure-Python profile module key). */
    PYPROF_FUNC_CODEOBJ = 1u << 0,
    /** The function has a line table (lprof), possibly with no lines. */
    PYPROF_FUNC_LINES = 1u << 1,
    /** Synthetic: made up by a reader or derivation, not seen in the data. */
    PYPROF_FUNC_SYNTHETIC = 1u << 2,
    /** Known only as a caller: the data has no entry (no row) of its own for it.
     * Readers create such functions after all real entries, so that entries
     * keep their file order. */
    PYPROF_FUNC_CALLER_ONLY = 1u << 3,
    /** Bits 8-11: how the text of a stack frame is formed from the fields
     * (collapsed stacks keep every frame's text byte for byte; see
     * pyprof_flame_frame_label).  0 = not from a frame: renderers choose. */
    PYPROF_FUNC_FRAME_MASK = 0xFu << 8,
    PYPROF_FUNC_FRAME_NAME = 1u << 8,           /**< the name is the whole frame text */
    PYPROF_FUNC_FRAME_NAME_FILE_LINE = 2u << 8, /**< "NAME (FILE:LINE)" (py-spy) */
    PYPROF_FUNC_FRAME_NAME_FILE = 3u << 8,      /**< "NAME (FILE)" (austin 1.x/2.x) */
    PYPROF_FUNC_FRAME_FILE_NAME_LINE = 4u << 8  /**< "FILE:NAME:LINE" (austin 3.x, pyflame) */
};

typedef struct pyprof_func {
    pyprof_id file;       /**< string id of the file name ("~" for C built-ins in cProfile) */
    pyprof_id name;       /**< string id of the function name */
    int64_t line;         /**< first line, 0 for built-ins */
    uint32_t flags;       /**< PYPROF_FUNC_* */
    pyprof_counts counts; /**< totals for this function */
} pyprof_func;

enum pyprof_edge_flags {
    /** The caller's value was a bare call count (profile module): only ncalls is data. */
    PYPROF_EDGE_COUNT_ONLY = 1u << 0
};

typedef struct pyprof_edge {
    pyprof_id caller;     /**< function id */
    pyprof_id callee;     /**< function id */
    uint32_t flags;       /**< PYPROF_EDGE_* */
    pyprof_counts counts; /**< this edge's share of the callee's counters */
} pyprof_edge;

/**
 * Find or create the function (file, line, name, flags & PYPROF_FUNC_CODEOBJ);
 * new functions start with zero counters and are appended.
 * `created` (may be NULL) is set to 1 if it was new.
 */
int pyprof_profile_func_intern(pyprof_profile *p, pyprof_id *out, pyprof_id file, int64_t line,
                               pyprof_id name, uint32_t flags, int *created);

/** Look a function up without creating it; PYPROF_NONE if absent. */
pyprof_id pyprof_profile_func_find(const pyprof_profile *p, pyprof_id file, int64_t line,
                                   pyprof_id name, uint32_t flags);

/** Number of functions; their ids are 0 .. count - 1. */
size_t pyprof_profile_func_count(const pyprof_profile *p);
/** Function `id`, or NULL if there is none; valid until a function is added. */
const pyprof_func *pyprof_profile_func(const pyprof_profile *p, pyprof_id id);
/** Mutable access, for readers and transformations. */
pyprof_func *pyprof_profile_func_mut(pyprof_profile *p, pyprof_id id);

/** Find or create the edge caller -> callee (zero counters when new). */
int pyprof_profile_edge_intern(pyprof_profile *p, pyprof_id *out, pyprof_id caller,
                               pyprof_id callee, int *created);
/** PYPROF_NONE if there is no such edge. */
pyprof_id pyprof_profile_edge_find(const pyprof_profile *p, pyprof_id caller, pyprof_id callee);

/**
 * Make room for `nfuncs` more functions and `nedges` more edges, so that a
 * reader that knows its sizes up front does not regrow and rehash on the
 * way.  Optional: it changes no content, only capacity.
 */
int pyprof_profile_reserve(pyprof_profile *p, size_t nfuncs, size_t nedges);

/** Number of call edges; their ids are 0 .. count - 1. */
size_t pyprof_profile_edge_count(const pyprof_profile *p);
/** Edge `id`, or NULL if there is none; valid until an edge is added. */
const pyprof_edge *pyprof_profile_edge(const pyprof_profile *p, pyprof_id id);
/** Mutable access, for readers and transformations. */
pyprof_edge *pyprof_profile_edge_mut(pyprof_profile *p, pyprof_id id);

/**
 * The edges into `func` (its callers), in insertion order; the array is
 * borrowed and valid until the profile's edges change.
 */
int pyprof_profile_callers(pyprof_profile *p, pyprof_id func, const pyprof_id **edges, size_t *n);
/** The edges out of `func` (its callees), in insertion order. */
int pyprof_profile_callees(pyprof_profile *p, pyprof_id func, const pyprof_id **edges, size_t *n);

/* ---- stack tree ----------------------------------------------------------- */

/** Metrics per stack node: 0 = samples (or the first count), 1 = second count (diffs, memory). */
#define PYPROF_STACK_METRICS 2

/**
 * A node of the stack prefix tree: the path root -> ... -> func.  A node's
 * id is always greater than its parent's, so one reverse pass over the ids
 * accumulates totals bottom-up.
 */
typedef struct pyprof_stack_node {
    pyprof_id parent;                  /**< PYPROF_NONE for a root frame */
    pyprof_id func;                    /**< function id */
    double self[PYPROF_STACK_METRICS]; /**< weight of samples ending exactly here */
} pyprof_stack_node;

/** Find or create the child of `parent` (PYPROF_NONE = a root frame) for `func`. */
int pyprof_profile_stack_child(pyprof_profile *p, pyprof_id *out, pyprof_id parent, pyprof_id func);
/** Number of stack nodes; their ids are 0 .. count - 1. */
size_t pyprof_profile_stack_count(const pyprof_profile *p);
/** Stack node `id`, or NULL if there is none; valid until a node is added. */
const pyprof_stack_node *pyprof_profile_stack_node(const pyprof_profile *p, pyprof_id id);
/** Mutable access (readers add self weights through it). */
pyprof_stack_node *pyprof_profile_stack_node_mut(pyprof_profile *p, pyprof_id id);
/**
 * All stack nodes as one array indexed by id, and their number in *n (the
 * array is NULL when there are none).  Borrowed, and invalidated by adding a
 * node: for passes over millions of nodes, where a call per node is most of
 * the cost.
 */
const pyprof_stack_node *pyprof_profile_stack_nodes(const pyprof_profile *p, size_t *n);
/** Children of `node` (PYPROF_NONE: the roots) in insertion order; borrowed. */
int pyprof_profile_stack_children(pyprof_profile *p, pyprof_id node, const pyprof_id **ids,
                                  size_t *n);
/** Number of metrics in use (1, or 2 for two-count data); set by readers. */
unsigned pyprof_profile_stack_metrics(const pyprof_profile *p);

/**
 * Weight left out below a node.  A profile read with
 * pyprof_read_options.stack_elide_below > 0 may lack the deepest frames of
 * its lightest stacks: such stacks are kept down to `node`, a frame too
 * narrow to draw what is below it, and their weight (the same in every
 * metric; one record may stand for several stacks) is recorded here instead
 * of as the self weight of chains of nodes under `node`.  Subtree totals
 * must add it; it is nobody's self weight.  This is for drawing (a flame
 * graph cannot show frames that narrow); operations that need every frame
 * (call graphs, merging, writing stacks) fail with PYPROF_ECAPS on such a
 * profile.
 */
typedef struct pyprof_stack_elided {
    pyprof_id node; /**< the deepest kept frame of the stacks left out */
    double weight;  /**< their weight, in every metric */
} pyprof_stack_elided;

/** The elided weights of `p` in *out (borrowed), and their number (0: the
 *  stack tree is whole). */
size_t pyprof_profile_stack_elided(const pyprof_profile *p, const pyprof_stack_elided **out);
/** Set the number of metrics in use; values outside 1 .. PYPROF_STACK_METRICS are ignored. */
void pyprof_profile_set_stack_metrics(pyprof_profile *p, unsigned n);

/* ---- line timings --------------------------------------------------------- */

typedef struct pyprof_line_stat {
    pyprof_id func; /**< function id (which has PYPROF_FUNC_LINES) */
    int64_t line;   /**< line number */
    int64_t hits;   /**< times the line ran */
    double time;    /**< time spent, in the profile's line unit */
} pyprof_line_stat;

/** Seconds per line-time unit (line_profiler's timer unit, e.g. 1e-9); 0 if unset. */
double pyprof_profile_line_unit(const pyprof_profile *p);
/** Set the seconds per line-time unit (readers of line timings do). */
void pyprof_profile_set_line_unit(pyprof_profile *p, double seconds);
/** Append a line record (records of one function are kept in the order given). */
int pyprof_profile_line_add(pyprof_profile *p, pyprof_id func, int64_t line, int64_t hits,
                            double time);
/** Number of line records. */
size_t pyprof_profile_line_count(const pyprof_profile *p);
/** The i-th line record in the order added, or NULL if i is out of range. */
const pyprof_line_stat *pyprof_profile_line(const pyprof_profile *p, size_t i);
/** Mutable access, for readers and transformations. */
pyprof_line_stat *pyprof_profile_line_mut(pyprof_profile *p, size_t i);

/* ---- memory timeline ------------------------------------------------------ */

typedef struct pyprof_mem_series {
    pyprof_id label;  /**< e.g. the command line, or "child 1" */
    int64_t child;    /**< -1 for the main process, else the child's index (CHLD id) */
    pyprof_id source; /**< index of the pyprof_source it came from */
} pyprof_mem_series;

typedef struct pyprof_mem_sample {
    pyprof_id series; /**< series index */
    double t;         /**< seconds since the epoch, as recorded */
    double mib;       /**< memory in MiB */
} pyprof_mem_sample;

typedef struct pyprof_mem_bracket {
    pyprof_id series; /**< series index */
    pyprof_id name;   /**< string id of the function name as recorded */
    double t0, t1;    /**< entry and exit time */
    double m0, m1;    /**< memory at entry and exit (MiB) */
    int32_t level;    /**< stack depth, -1 when the file did not record it */
} pyprof_mem_bracket;

/** Append a memory series (one process of a recording); its index in *out. */
int pyprof_profile_mem_series_add(pyprof_profile *p, pyprof_id *out, pyprof_id label, int64_t child,
                                  pyprof_id source);
/** Number of memory series. */
size_t pyprof_profile_mem_series_count(const pyprof_profile *p);
/** Memory series `id`, or NULL if there is none. */
const pyprof_mem_series *pyprof_profile_mem_series(const pyprof_profile *p, pyprof_id id);
/** Mutable access (a reader that learns a series' label after its samples). */
pyprof_mem_series *pyprof_profile_mem_series_mut(pyprof_profile *p, pyprof_id id);
/** Append a sample of `series` (PYPROF_EINVAL if there is no such series). */
int pyprof_profile_mem_sample_add(pyprof_profile *p, pyprof_id series, double t, double mib);
/** Number of memory samples, all series together. */
size_t pyprof_profile_mem_sample_count(const pyprof_profile *p);
/** The i-th sample in the order added, or NULL if i is out of range. */
const pyprof_mem_sample *pyprof_profile_mem_sample(const pyprof_profile *p, size_t i);
/** Append a copy of *b (PYPROF_EINVAL if b->series is no series). */
int pyprof_profile_mem_bracket_add(pyprof_profile *p, const pyprof_mem_bracket *b);
/** Number of function brackets, all series together. */
size_t pyprof_profile_mem_bracket_count(const pyprof_profile *p);
/** The i-th bracket in the order added, or NULL if i is out of range. */
const pyprof_mem_bracket *pyprof_profile_mem_bracket(const pyprof_profile *p, size_t i);

/* ---- whole-profile operations --------------------------------------------- */

/**
 * Add `src` into `dst` exactly as pstats.Stats.add does for functions and
 * edges (counters summed, new functions and callers appended, existing ones
 * keep their place; a count-only edge meeting a full one is a PYPROF_EFORMAT
 * error, as Python's TypeError), and also: stack trees are united path by
 * path, line records appended, memory series appended as new series,
 * sources and metadata appended (existing metadata keys keep dst's value).
 */
int pyprof_profile_merge(pyprof_profile *dst, const pyprof_profile *src, pyprof_error *err);

/**
 * Derive functions and edges from the stack tree: self = samples ending in
 * a frame, total = samples with the function anywhere on the stack (counted
 * once per sample however often it recurs), ncalls = primcalls = samples in
 * which it appears.  Does nothing to an existing call graph if the profile
 * has no stacks.
 */
int pyprof_profile_derive_callgraph(pyprof_profile *p, pyprof_error *err);

#ifdef __cplusplus
}
#endif
#endif
