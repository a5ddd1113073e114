# tools/flame.mk - collapsed stacks and pyprof-flame.
libpyprof_libpyprof_la_SOURCES += \
	formats/collapsed.h \
	formats/collapsed.c \
	formats/collapsed_frame.c
