# tools/dot.mk - call graphs: the renderer (libpyprof/render/dot*.c), pyprof-dot,
# its tests and fixtures.
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/dot_int.h \
	libpyprof/render/dot.c \
	libpyprof/render/dot_graph.c \
	libpyprof/render/dot_prune.c \
	libpyprof/render/dot_integrate.c \
	libpyprof/render/dot_style.c \
	libpyprof/render/dot_compare.c

bin_PROGRAMS += tools/pyprof-dot
tools_pyprof_dot_SOURCES = tools/pyprof-dot.c
tools_pyprof_dot_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tools_pyprof_dot_LDADD = $(PYPROF_TOOL_LIBS)
dist_man1_MANS += tools/pyprof-dot.1

TESTS += tests/dot_corpus.sh
EXTRA_DIST += tests/dot_corpus.sh tests/dot_canon.py
TESTS += tests/dot_golden.sh tests/dot_tool.sh
EXTRA_DIST += tests/dot_golden.sh tests/dot_tool.sh

check_PROGRAMS += tests/t_dot
TESTS += tests/t_dot
tests_t_dot_SOURCES = tests/t_dot.c tests/tap.h
tests_t_dot_CPPFLAGS = $(TEST_CPPFLAGS) $(GVC_CFLAGS)
# t_dot reaches the semi-private colour functions and the allocation hook,
# which the shared library hides: link the library statically.
tests_t_dot_LDFLAGS = -static
tests_t_dot_LDADD = $(TEST_LIBS) $(GVC_LIBS)
EXTRA_DIST += bench/dot.sh
