/*
 * convert_int.h - the private contract between the writer registry
 * (render/convert.c) and the writers (formats/ *_write.c): the writer table
 * entry, and the helpers several writers share.  Not installed.
 */
#ifndef PYPROF_CONVERT_INT_H
#define PYPROF_CONVERT_INT_H

#include "pyprof_int.h"

#include <pyprof/convert.h>

#include "render/emit.h"

typedef struct pyprof__writer {
    const char *name;        /* canonical name, as -t takes it */
    const char *aliases;     /* space-separated other names, or NULL */
    const char *description; /* one line for --help */
    /* Write `p` (not to be modified) to `out`; opts is never NULL. */
    int (*write)(pyprof_profile *p, pyprof_output *out, const pyprof_write_options *opts,
                 pyprof_error *err);
} pyprof__writer;

extern const pyprof__writer pyprof__writer_pstats;
extern const pyprof__writer pyprof__writer_collapsed;
extern const pyprof__writer pyprof__writer_callgrind;
extern const pyprof__writer pyprof__writer_speedscope;
extern const pyprof__writer pyprof__writer_json;
extern const pyprof__writer pyprof__writer_csv;

/* What the speedscope writer appends to the profile's name when its stacks
 * are estimated from a call graph: speedscope shows it, and the reader
 * (formats/speedscope.c) takes it back as the "stacks_estimated" mark. */
#define PYPROF__SPEEDSCOPE_ESTIMATED " (stacks estimated from caller ratios)"

/* Add a note when `notes` is not NULL; out of memory is ignored (notes are
 * advice, and the conversion itself should not fail for them). */
void pyprof__note(pyprof_notes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True if the profile has per-function or per-edge numbers (not only the
 * zero-count functions that a stack tree refers to). */
bool pyprof__has_callgraph(const pyprof_profile *p);

/* A profile with a call graph to write: `p` itself when it has one, else a
 * copy with the call graph derived from its stacks (then *owned is that
 * copy, to be freed by the caller, and a note says so).  PYPROF_ECAPS when
 * there is neither. */
int pyprof__callgraph_view(pyprof_profile *p, pyprof_profile **view, pyprof_profile **owned,
                           const pyprof_write_options *opts, pyprof_error *err);

/* A profile with a stack tree to write: `p` itself when it has stacks, else
 * a copy whose stacks are estimated from the call graph by caller ratios
 * (metric 0 in microseconds of cumulative time; *estimated set to 1, and
 * *owned is the copy to free). */
int pyprof__stack_view(pyprof_profile *p, pyprof_profile **view, pyprof_profile **owned,
                       int *estimated, const pyprof_write_options *opts, pyprof_error *err);

/* pstats' func_std_string: "{built-in method len}" for ('~', 0, '<...>'),
 * else "FILE:LINE(NAME)".  Returns a pointer into `buf` (truncated to `size`). */
const char *pyprof__func_display(const pyprof_profile *p, pyprof_id func, char *buf, size_t size);

/* Is the profile's time unit seconds (the default) rather than samples? */
bool pyprof__unit_is_seconds(const pyprof_profile *p);

#endif
