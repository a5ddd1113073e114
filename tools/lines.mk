# tools/lines.mk - lprof format and pyprof-lines.
libpyprof_libpyprof_la_SOURCES += formats/lprof.c
