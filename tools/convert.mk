# tools/convert.mk - conversion, merging and diffing: the writers, the
# callgrind and speedscope readers, pyprof-convert, pyprof-merge,
# pyprof-diff, their tests and man pages.
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/convert_int.h \
	libpyprof/render/convert.c \
	formats/pstats_write.c \
	formats/collapsed_write.c \
	formats/callgrind_write.c \
	formats/speedscope_write.c \
	formats/table_write.c \
	formats/callgrind.c \
	formats/speedscope.c

pyprofinclude_HEADERS += libpyprof/include/pyprof/convert.h
