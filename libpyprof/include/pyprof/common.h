/*
 * pyprof/common.h - status codes, ids and version of libpyprof.
 *
 * Conventions used by every public header (stated once, here):
 *  - Functions are named pyprof_<noun>_<verb>.  Types are opaque where the
 *    library may change them, plain structs where callers fill or read them.
 *  - Fallible calls return a pyprof_status: 0 on success, a negative
 *    PYPROF_E* code on failure, and fill the trailing `pyprof_error *err`
 *    (which may be NULL) with the file, position and reason.
 *  - Out-parameters come first.  `**out` results are owned by the caller and
 *    released with the matching _free/_close (all of which accept NULL);
 *    returned `const` pointers are borrowed from their owner and stay valid
 *    until it is freed or modified.
 *  - Strings are NUL-terminated valid UTF-8; times are in seconds.
 */
#ifndef PYPROF_COMMON_H
#define PYPROF_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PYPROF_VERSION_MAJOR  0
#define PYPROF_VERSION_MINOR  1
#define PYPROF_VERSION_PATCH  0
#define PYPROF_VERSION_STRING "0.1.0"

/** Status codes.  0 is success; every failure is negative. */
typedef enum pyprof_status {
    PYPROF_OK = 0,
    PYPROF_ENOMEM = -1,       /**< an allocation failed */
    PYPROF_EIO = -2,          /**< the operating system refused a read or write */
    PYPROF_EFORMAT = -3,      /**< the input is not valid for its format */
    PYPROF_EUNSUPPORTED = -4, /**< valid, but a feature this build cannot handle */
    PYPROF_ELIMIT = -5,       /**< a safety limit (size, depth, count) was exceeded */
    PYPROF_ECAPS = -6,        /**< the profile lacks a part the operation needs */
    PYPROF_EINVAL = -7        /**< the caller passed an invalid argument */
} pyprof_status;

/** Entities of a profile are named by dense 32-bit ids, never by pointer. */
typedef uint32_t pyprof_id;

/** The id that names nothing (no parent, no caller, absent string). */
#define PYPROF_NONE ((pyprof_id)UINT32_MAX)

/** The library's version string, e.g. "0.1.0" (may differ from the header's). */
const char *pyprof_version(void);

/** Bit set of the optional parts compiled into this build. */
enum pyprof_feature {
    PYPROF_FEATURE_ZSTD = 1u << 0,
    PYPROF_FEATURE_GRAPHVIZ = 1u << 1,
    PYPROF_FEATURE_CAIRO = 1u << 2,
    PYPROF_FEATURE_LIBXML2 = 1u << 3,
    PYPROF_FEATURE_PCRE2 = 1u << 4,
    PYPROF_FEATURE_CJSON = 1u << 5
};

/** Which PYPROF_FEATURE_* bits this build has. */
unsigned pyprof_features(void);

/** A short English description of a status code ("out of memory", ...). */
const char *pyprof_status_string(int status);

#ifdef __cplusplus
}
#endif
#endif
