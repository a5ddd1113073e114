/* version.c - what this build of the library is and has. */
#include "config.h"

#include "pyprof_int.h"

const char *
pyprof_version(void)
{
    return PACKAGE_VERSION;
}

unsigned
pyprof_features(void)
{
    /* Every dependency is required by configure today; the bits exist so
     * that a later optional dependency does not change the ABI. */
    return PYPROF_FEATURE_ZSTD | PYPROF_FEATURE_GRAPHVIZ | PYPROF_FEATURE_CAIRO |
           PYPROF_FEATURE_LIBXML2 | PYPROF_FEATURE_PCRE2 | PYPROF_FEATURE_CJSON;
}
