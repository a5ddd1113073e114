# tools/stats.mk - pstats format and pyprof-stats.
libpyprof_libpyprof_la_SOURCES += formats/pstats.c
