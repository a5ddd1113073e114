# tools/stats.mk - the pstats view (library), pyprof-stats and their tests.

libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/stats_int.h \
	libpyprof/render/stats.c \
	libpyprof/render/stats_sort.c \
	libpyprof/render/stats_strip.c \
	libpyprof/render/stats_print.c \
	libpyprof/render/stats_export.c

bin_PROGRAMS += tools/pyprof-stats
tools_pyprof_stats_SOURCES = tools/pyprof-stats.c tools/stats_browser.c tools/stats_cli.h
tools_pyprof_stats_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE $(EDIT_CFLAGS)
tools_pyprof_stats_LDADD = $(PYPROF_TOOL_LIBS) $(EDIT_LIBS)
dist_man1_MANS += tools/pyprof-stats.1

TESTS += tests/stats_corpus.sh
dist_check_SCRIPTS += tests/stats_corpus.sh

check_PROGRAMS += tests/t_stats
tests_t_stats_SOURCES = tests/t_stats.c tests/tap.h
tests_t_stats_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_stats_LDADD = $(TEST_LIBS)
# the allocation-failure hook (pyprof__alloc_fail_after) is not exported
tests_t_stats_LDFLAGS = -static
TESTS += tests/t_stats
TESTS += tests/stats_golden.sh
dist_check_SCRIPTS += tests/stats_golden.sh
TESTS += tests/stats_cli.sh tests/stats_browser.sh tests/stats_pipe.sh
dist_check_SCRIPTS += tests/stats_cli.sh tests/stats_browser.sh tests/stats_pipe.sh
EXTRA_DIST += tests/stats_pty.py
TESTS += tests/stats_pstats_golden.sh
dist_check_SCRIPTS += tests/stats_pstats_golden.sh
EXTRA_DIST += tests/stats_lib.sh
EXTRA_DIST += bench/stats.sh
