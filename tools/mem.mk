# tools/mem.mk - mprofile and memory_profiler report formats, and pyprof-mem.
libpyprof_libpyprof_la_SOURCES += formats/mprofile.c formats/memreport.c
