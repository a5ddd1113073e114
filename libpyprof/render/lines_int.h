/*
 * lines_int.h - what the line report's files share (not installed).
 *
 * lines_source.c finds, reads and decodes profiled source files the way
 * line_profiler does through linecache, and cuts a function's block out of
 * them as inspect.getblock does; lines.c prints the report.
 */
#ifndef PYPROF_LINES_INT_H
#define PYPROF_LINES_INT_H

#include "pyprof_int.h"

/* A source file as linecache would hold it. */
typedef struct pyprof__src {
    /* MISSING: line_profiler prints "Could not find file"; EMPTY: the path
     * exists (or is a notebook cell) but gives no lines (a directory, an
     * unreadable or undecodable file); LINES: lines[] holds the text. */
    enum { PYPROF__SRC_MISSING, PYPROF__SRC_EMPTY, PYPROF__SRC_LINES } state;
    char *text;         /* decoded UTF-8, one NUL after each line */
    size_t *line_start; /* offsets of the lines in text; their ends are NUL */
    size_t nlines;
} pyprof__src;

typedef struct pyprof__src_cache pyprof__src_cache;

/* roots (may be NULL when n is 0) are searched for missing paths. */
int pyprof__src_cache_new(pyprof__src_cache **out, const char *const *roots, size_t nroots);
void pyprof__src_cache_free(pyprof__src_cache *c);

/* The source named `path` (string id `file` of the profile), read once and
 * cached by id.  Only allocation failures are errors (PYPROF_ENOMEM). */
int pyprof__src_get(pyprof__src_cache *c, pyprof_id file, const char *path,
                    const pyprof__src **out);

/* Number of lines of the block that starts at line index `first` (0-based)
 * of `src`, by the rules of inspect.getblock (0 if first is past the end). */
size_t pyprof__src_block(const pyprof__src *src, size_t first);

#endif
