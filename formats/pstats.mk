# formats/pstats.mk - the pstats reader (marshal + pstats dialects) and its tests.
libpyprof_libpyprof_la_SOURCES += formats/pstats.c formats/marshal.c formats/marshal.h
