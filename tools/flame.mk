# tools/flame.mk - collapsed stacks and pyprof-flame.
libpyprof_libpyprof_la_SOURCES += formats/collapsed.c
