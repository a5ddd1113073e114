# tools/lines.mk - line_profiler support: the lprof reader (on a data-only
# pickle machine), the line report renderer, pyprof-lines, and their tests.
libpyprof_libpyprof_la_SOURCES += \
	formats/lprof.c \
	formats/pickle.c \
	formats/pickle.h \
	formats/pickle_int.h \
	formats/pickle_ops.c \
	formats/pickle_text.c \
	libpyprof/render/lines.c \
	libpyprof/render/lines_source.c \
	libpyprof/render/lines_int.h

bin_PROGRAMS += tools/pyprof-lines
tools_pyprof_lines_SOURCES = tools/pyprof-lines.c tools/cli.h
tools_pyprof_lines_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tools_pyprof_lines_LDADD = $(PYPROF_TOOL_LIBS) $(LIBM)
dist_man1_MANS += tools/pyprof-lines.1

# Conformance with line_profiler 4.0.2's reports: the shared corpus, and the
# fixtures of tests/fixtures/lprof (made by its gen.sh).
TESTS += tests/lines_corpus.sh tests/lines_fixtures.sh tests/lines_refuse.sh tests/lines_cli.sh
dist_check_SCRIPTS += tests/lines_corpus.sh tests/lines_fixtures.sh tests/lines_refuse.sh \
	tests/lines_cli.sh
EXTRA_DIST += bench/lines.sh

# The pickle machine (semi-private: linked statically) and the lprof reader.
check_PROGRAMS += tests/t_pickle
TESTS += tests/t_pickle
tests_t_pickle_SOURCES = tests/t_pickle.c tests/tap.h
tests_t_pickle_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats
tests_t_pickle_LDFLAGS = -static
tests_t_pickle_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/t_lprof
TESTS += tests/t_lprof
tests_t_lprof_SOURCES = tests/t_lprof.c tests/tap.h
tests_t_lprof_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/libpyprof/render
tests_t_lprof_LDFLAGS = -static
tests_t_lprof_LDADD = $(TEST_LIBS)
