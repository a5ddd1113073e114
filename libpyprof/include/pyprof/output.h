/*
 * pyprof/output.h - where rendered bytes go.
 *
 * A file output is written to a temporary file in the target's directory and
 * renamed over the target only by pyprof_output_commit(), so a run that dies
 * half way leaves the old file (or none), never half a file.  Targets that
 * are not regular files (/dev/null, a pipe) are written directly, and "-"
 * means standard output.
 *
 * Errors are sticky, as in cairo: writes after a failure are ignored and the
 * first error comes back from pyprof_output_commit().  Numbers written with
 * pyprof_output_printf use the C locale whatever LC_NUMERIC says.
 */
#ifndef PYPROF_OUTPUT_H
#define PYPROF_OUTPUT_H

#include <pyprof/error.h>
#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pyprof_output pyprof_output;

/** Write to `path` atomically ("-" = stdout). */
int pyprof_output_open_file(pyprof_output **out, const char *path, pyprof_error *err);

/**
 * Remove the temporary files of all file outputs open at this moment, so
 * that a program stopped by a signal leaves no stray file beside its
 * targets (which keep their old contents).  Async-signal-safe: for a
 * program's SIGINT or SIGTERM handler, which must then end the program
 * (those outputs can no longer be committed).  The library installs no
 * signal handler itself.
 */
void pyprof_output_remove_temps(void);

/** Write into a growing memory buffer (see pyprof_output_data). */
int pyprof_output_open_memory(pyprof_output **out, pyprof_error *err);

/** Write to an open stdio stream that the caller keeps owning. */
int pyprof_output_open_stdio(pyprof_output **out, FILE *f, const char *name, pyprof_error *err);

/** Append `len` bytes. */
void pyprof_output_write(pyprof_output *o, const void *data, size_t len);

/** Append a NUL-terminated string. */
void pyprof_output_puts(pyprof_output *o, const char *s);

/** Append printf-formatted text, numbers in the C locale. */
void pyprof_output_printf(pyprof_output *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/** pyprof_output_printf with a va_list. */
void pyprof_output_vprintf(pyprof_output *o, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

/** The first error so far (0 if none); copies it to `err` too. */
int pyprof_output_status(const pyprof_output *o, pyprof_error *err);

/** The bytes of a memory output so far (not NUL-terminated); NULL otherwise. */
const unsigned char *pyprof_output_data(const pyprof_output *o, size_t *len);

/** The name errors use for this output. */
const char *pyprof_output_name(const pyprof_output *o);

/**
 * Finish: flush, and for a file output rename the temporary file over the
 * target.  Returns the sticky error, if any (then nothing is renamed).
 * Frees `o` in every case.
 */
int pyprof_output_commit(pyprof_output *o, pyprof_error *err);

/** Give up: remove the temporary file, free `o`.  NULL is allowed. */
void pyprof_output_abort(pyprof_output *o);

#ifdef __cplusplus
}
#endif
#endif
