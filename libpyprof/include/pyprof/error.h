/*
 * pyprof/error.h - the one error type of libpyprof.
 *
 * An error carries enough to print the one-line message users are promised:
 *     FILE: offset N: reason        (binary formats)
 *     FILE: line N: reason          (text formats)
 * The struct is plain and fixed-size so that filling it never allocates:
 * an out-of-memory error must be reportable when memory is gone.
 */
#ifndef PYPROF_ERROR_H
#define PYPROF_ERROR_H

#include <pyprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PYPROF_ERROR_SOURCE_MAX  1024
#define PYPROF_ERROR_MESSAGE_MAX 512

typedef struct pyprof_error {
    int code;                               /**< a pyprof_status, 0 when clear */
    char format[32];                        /**< format being read ("pstats"), or "" */
    char source[PYPROF_ERROR_SOURCE_MAX];   /**< file name as given, or "" */
    int64_t offset;                         /**< byte offset in the decoded input, or -1 */
    int64_t line;                           /**< 1-based line for text formats, or 0 */
    char message[PYPROF_ERROR_MESSAGE_MAX]; /**< the reason, one line, no trailing '.' */
} pyprof_error;

/** Static initialiser for a cleared error. */
#define PYPROF_ERROR_INIT                                                                          \
    {                                                                                              \
        0, "", "", -1, 0, ""                                                                       \
    }

/** Reset `err` (may be NULL) to the cleared state. */
void pyprof_error_clear(pyprof_error *err);

/**
 * Record an error.  `err` may be NULL (then only `code` is returned).
 * `source`, `format` may be NULL; `offset` -1 and `line` 0 mean unknown.
 * The message is printf-formatted in the C locale and cut to one line.
 * Returns `code`, so callers can write `return pyprof_error_set(...)`.
 */
int pyprof_error_set(pyprof_error *err, int code, const char *source, const char *format,
                     int64_t offset, int64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/**
 * Write the user-facing line ("FILE: offset N: reason", without newline)
 * into `buf` of `size` bytes; returns the length it wanted, like snprintf.
 */
int pyprof_error_format(const pyprof_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
