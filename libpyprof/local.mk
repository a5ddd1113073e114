# libpyprof/local.mk - the library core: model, input/output, public headers.
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/pyprof_int.h \
	libpyprof/core/profile_int.h \
	libpyprof/core/alloc.c \
	libpyprof/core/prefault.c \
	libpyprof/core/cpus.c \
	libpyprof/core/arena.c \
	libpyprof/core/hash.c \
	libpyprof/core/utf8.c \
	libpyprof/core/numfmt.c \
	libpyprof/core/numparse.h \
	libpyprof/core/error.c \
	libpyprof/core/version.c \
	libpyprof/core/profile.c \
	libpyprof/core/profile_series.c \
	libpyprof/core/mem_summary.c \
	libpyprof/core/merge.c \
	libpyprof/core/derive.c \
	libpyprof/io/input.c \
	libpyprof/io/output.c

pyprofinclude_HEADERS += \
	libpyprof/include/pyprof/pyprof.h \
	libpyprof/include/pyprof/common.h \
	libpyprof/include/pyprof/error.h \
	libpyprof/include/pyprof/input.h \
	libpyprof/include/pyprof/output.h \
	libpyprof/include/pyprof/profile.h \
	libpyprof/include/pyprof/format.h \
	libpyprof/include/pyprof/stats.h \
	libpyprof/include/pyprof/dot.h \
	libpyprof/include/pyprof/flame.h \
	libpyprof/include/pyprof/lines.h \
	libpyprof/include/pyprof/mem.h

EXTRA_DIST += libpyprof/libpyprof.pc.in
DISTCLEANFILES += libpyprof/libpyprof.pc

# Numbers, JSON and CSV values written to an output: every JSON and CSV
# writer of the library shares them.
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/emit.h \
	libpyprof/render/emit.c

# The backend-neutral scene shared by the flame and plot renderers.
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/scene.h \
	libpyprof/render/scene.c \
	libpyprof/render/scene_svg.c \
	libpyprof/render/svg_markup.h \
	libpyprof/render/svg_markup.c \
	libpyprof/render/scene_png.c \
	libpyprof/render/png_encode.c \
	libpyprof/render/png_warmup.c \
	libpyprof/render/png_font.h \
	libpyprof/render/png_font.c \
	libpyprof/render/xml_load.h \
	libpyprof/render/xml_load.c \
	libpyprof/render/lib_load.h \
	libpyprof/render/lib_load.c \
	libpyprof/render/cairo_load.h \
	libpyprof/render/cairo_load.c \
	libpyprof/render/gv_load.h \
	libpyprof/render/gv_load.c
