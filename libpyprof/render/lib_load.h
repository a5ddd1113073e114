/*
 * lib_load.h - optional shared libraries, opened on first use (private;
 * see lib_load.c).
 */
#ifndef PYPROF_RENDER_LIB_LOAD_H
#define PYPROF_RENDER_LIB_LOAD_H

#include <stdatomic.h>

#include "pyprof_int.h"

/* A function to take from a library: its symbol, and the function pointer
 * of a table that receives its address (written through void **, as POSIX
 * allows for dlsym). */
typedef struct pyprof__lib_fn {
    const char *name;
    void **slot;
} pyprof__lib_fn;

/* The entry for symbol `sym` whose address goes to table.field. */
#define PYPROF__LIB_FN(table, field, sym)                                                          \
    {                                                                                              \
        .name = #sym, .slot = (void **)&(table).field                                              \
    }

/* A library and the functions taken from it.  The caller fills in the
 * first fields (statically); the rest is the load's state. */
typedef struct pyprof__lib {
    const char *soname;        /* dlopen()ed by this name */
    const pyprof__lib_fn *fns; /* ends with a NULL name */
    const char *init;          /* a function without arguments to call once opened, if the
                                  library has it (NULL: none) */
    atomic_bool done;          /* the load has run, to success or failure */
    bool loaded;               /* ... and every function was found */
    char why[256];             /* else why not, for an error message */
} pyprof__lib;

/* Open L and fill in its table, once per process: the first caller on any
 * thread does it, callers meanwhile wait for it, later ones find it done.
 * True if the table is complete; false (for good) with the reason in
 * L->why.  The library stays open until the process ends. */
bool pyprof__lib_load(pyprof__lib *L);

/* Whether L's load has run (a helper thread would have nothing to do). */
bool pyprof__lib_tried(pyprof__lib *L);

/* Load libs[0..n) in turn: 0 when every one is loaded, else PYPROF_EIO
 * with the first failure's reason and then "(`why`)" in err (which may be
 * NULL), against output `name` and format `format` (both may be NULL). */
int pyprof__libs_load(pyprof__lib *const *libs, size_t n, const char *name, const char *format,
                      const char *why, pyprof_error *err);

#endif
