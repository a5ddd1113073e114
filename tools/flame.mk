# tools/flame.mk - collapsed stacks and pyprof-flame.
libpyprof_libpyprof_la_SOURCES += \
	formats/collapsed.h \
	formats/collapsed.c \
	formats/collapsed_stack.c \
	formats/collapsed_merge.c \
	formats/collapsed_split.c \
	formats/collapsed_tail.c \
	formats/collapsed_jump.c \
	formats/collapsed_frame.c \
	formats/collapsed_names.c \
	formats/collapsed_line.c \
	libpyprof/render/flame_int.h \
	libpyprof/render/flame_layout.c \
	libpyprof/render/flame_graph.c \
	libpyprof/render/flame_color.c \
	libpyprof/render/flame_draw.c \
	libpyprof/render/flame_script.c \
	libpyprof/render/flame_derive.c

bin_PROGRAMS += tools/pyprof-flame
tools_pyprof_flame_SOURCES = tools/pyprof-flame.c
tools_pyprof_flame_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -D_GNU_SOURCE
tools_pyprof_flame_LDADD = $(PYPROF_TOOL_LIBS)
dist_man1_MANS += tools/pyprof-flame.1

# Tests: the reader, the layout, the corpus against flamegraph.pl, the SVG's
# script in a headless browser.
TESTS += tests/flame_cli.sh tests/flame_corpus.sh tests/flame_browser.sh
EXTRA_DIST += tests/flame_cli.sh tests/flame_corpus.sh tests/flame_corpus.py tests/flame_frames.py \
	tests/flame_browser.sh tests/flame_browser.html
CLEANFILES += flame-corpus-out/*

check_PROGRAMS += tests/t_collapsed tests/t_flame
TESTS += tests/t_collapsed tests/t_flame
tests_t_collapsed_SOURCES = tests/t_collapsed.c tests/tap.h
tests_t_collapsed_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats $(ZSTD_CFLAGS)
# -static: the OOM sweep reaches the semi-private allocation hook
tests_t_collapsed_LDFLAGS = -static
tests_t_collapsed_LDADD = $(TEST_LIBS) $(ZSTD_LIBS)
check_PROGRAMS += tests/t_collapsed_split
TESTS += tests/t_collapsed_split
tests_t_collapsed_split_SOURCES = tests/t_collapsed_split.c tests/tap.h tests/profile_diff.h
tests_t_collapsed_split_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats
# -static: the split threshold is a semi-private test hook
tests_t_collapsed_split_LDFLAGS = -static
tests_t_collapsed_split_LDADD = $(TEST_LIBS)
CLEANFILES += t_collapsed_split.tmp
check_PROGRAMS += tests/t_collapsed_lazy
TESTS += tests/t_collapsed_lazy
tests_t_collapsed_lazy_SOURCES = tests/t_collapsed_lazy.c tests/tap.h
tests_t_collapsed_lazy_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats
# -static: the split threshold is a semi-private test hook
tests_t_collapsed_lazy_LDFLAGS = -static
tests_t_collapsed_lazy_LDADD = $(TEST_LIBS)
CLEANFILES += t_collapsed_lazy.tmp
tests_t_flame_SOURCES = tests/t_flame.c tests/tap.h
tests_t_flame_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/libpyprof/render
# -static: the scene (semi-private) is checked item by item
tests_t_flame_LDFLAGS = -static
tests_t_flame_LDADD = $(TEST_LIBS) $(XML_LIBS) $(CAIRO_LIBS)
EXTRA_DIST += bench/flame.sh bench/flame.md
