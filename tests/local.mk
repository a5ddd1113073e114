# tests/local.mk - the unit tests of the core.  Feature fragments
# (tools/*.mk) add their own tests to check_PROGRAMS and TESTS.
TEST_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
TEST_LIBS = libpyprof/libpyprof.la $(LIBM)

check_PROGRAMS += tests/t_core tests/t_input
TESTS += tests/t_core tests/t_input

tests_t_core_SOURCES = tests/t_core.c tests/tap.h
tests_t_core_CPPFLAGS = $(TEST_CPPFLAGS)
# The core tests reach the semi-private pyprof__* test hooks, which the
# shared library hides, so they link the convenience objects statically.
tests_t_core_LDFLAGS = -static
tests_t_core_LDADD = $(TEST_LIBS)

tests_t_input_SOURCES = tests/t_input.c tests/tap.h
tests_t_input_CPPFLAGS = $(TEST_CPPFLAGS) $(ZSTD_CFLAGS)
tests_t_input_LDADD = $(TEST_LIBS) $(ZSTD_LIBS)

EXTRA_DIST += tests/fixtures tests/golden

# The exact decimal fast path against strtod (numparse.h is private).
check_PROGRAMS += tests/t_numparse
TESTS += tests/t_numparse
tests_t_numparse_SOURCES = tests/t_numparse.c tests/tap.h
tests_t_numparse_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_numparse_LDFLAGS = -static
tests_t_numparse_LDADD = $(TEST_LIBS)

# Every reader, writer and renderer inside a host program that switched to
# a decimal-comma locale must give the bytes it gives under "C".
check_PROGRAMS += tests/t_locale
TESTS += tests/t_locale
tests_t_locale_SOURCES = tests/t_locale.c tests/tap.h tests/transcript.h
tests_t_locale_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_locale_LDADD = $(TEST_LIBS)

# Distinct profiles used on four threads at once give what one thread gives.
check_PROGRAMS += tests/t_threads
TESTS += tests/t_threads
tests_t_threads_SOURCES = tests/t_threads.c tests/tap.h tests/transcript.h
tests_t_threads_CPPFLAGS = $(TEST_CPPFLAGS)
# -static: the split thresholds are semi-private test hooks
tests_t_threads_LDFLAGS = -static
tests_t_threads_LDADD = $(TEST_LIBS) $(PTHREAD_LIBS)

check_PROGRAMS += tests/t_scene
TESTS += tests/t_scene
tests_t_scene_SOURCES = tests/t_scene.c tests/tap.h
tests_t_scene_CPPFLAGS = $(TEST_CPPFLAGS) $(XML_CFLAGS) $(CAIRO_CFLAGS) $(FREETYPE_CFLAGS)
tests_t_scene_LDFLAGS = -static
tests_t_scene_LDADD = $(TEST_LIBS) $(XML_LIBS) $(CAIRO_LIBS) $(FREETYPE_LIBS)

# The SVG writer's own escaping and number formatting against libxml2 and
# snprintf (-static: the semi-private pyprof__svgbuf_* and pyprof__fmt_*).
check_PROGRAMS += tests/t_svg_markup
TESTS += tests/t_svg_markup
tests_t_svg_markup_SOURCES = tests/t_svg_markup.c tests/tap.h
tests_t_svg_markup_CPPFLAGS = $(TEST_CPPFLAGS) $(XML_CFLAGS)
tests_t_svg_markup_LDFLAGS = -static
tests_t_svg_markup_LDADD = $(TEST_LIBS) $(XML_LIBS)

# SVG output when libxml2 cannot be loaded (-static: the private hook).
check_PROGRAMS += tests/t_xml_load
TESTS += tests/t_xml_load
tests_t_xml_load_SOURCES = tests/t_xml_load.c tests/tap.h
tests_t_xml_load_CPPFLAGS = $(TEST_CPPFLAGS) $(XML_CFLAGS)
tests_t_xml_load_LDFLAGS = -static
tests_t_xml_load_LDADD = $(TEST_LIBS)

# cairo and Graphviz are loaded on first use: none in a process that draws
# nothing with them, and a one-line error when they cannot be loaded
# (-static: the private hooks).
check_PROGRAMS += tests/t_lib_load
TESTS += tests/t_lib_load
tests_t_lib_load_SOURCES = tests/t_lib_load.c tests/tap.h
tests_t_lib_load_CPPFLAGS = $(TEST_CPPFLAGS) $(CAIRO_CFLAGS) $(FREETYPE_CFLAGS) $(GVC_CFLAGS)
tests_t_lib_load_LDFLAGS = -static
tests_t_lib_load_LDADD = $(TEST_LIBS)

# Whole-build checks: headers stand alone; the installed library works
# through pkg-config for a program outside the tree; the man pages are clean
# roff and document what the tools' --help lists; every tool refuses a bad
# option in the family's one line.
TESTS += tests/headers.sh tests/example_installed.sh tests/man_pages.sh tests/cli_options.sh
EXTRA_DIST += tests/tap.sh tests/headers.sh tests/example_installed.sh tests/man_pages.sh \
	tests/cli_options.sh
EXTRA_DIST += tests/lsan.supp

check_PROGRAMS += tests/t_probe
TESTS += tests/t_probe
tests_t_probe_SOURCES = tests/t_probe.c tests/tap.h
tests_t_probe_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_probe_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/t_mutate
TESTS += tests/t_mutate
tests_t_mutate_SOURCES = tests/t_mutate.c tests/tap.h
tests_t_mutate_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_mutate_LDADD = $(TEST_LIBS)

# The allocation-failure sweep of every reader (-static: the semi-private hook).
check_PROGRAMS += tests/t_oom
TESTS += tests/t_oom
tests_t_oom_SOURCES = tests/t_oom.c tests/tap.h
tests_t_oom_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/libpyprof -I$(top_srcdir)/formats
tests_t_oom_LDFLAGS = -static
tests_t_oom_LDADD = $(TEST_LIBS)

# Broken inputs through every tool (runs the built programs).
check_PROGRAMS += tests/t_tool_mutate
TESTS += tests/t_tool_mutate
tests_t_tool_mutate_SOURCES = tests/t_tool_mutate.c tests/tap.h
tests_t_tool_mutate_CPPFLAGS = $(TEST_CPPFLAGS)

# The CLI tests once more with every tool run under valgrind memcheck
# (.ci/run does this; slow, so not part of `make check`).
VALGRIND_TESTS = tests/stats_golden.sh tests/stats_cli.sh tests/dot_golden.sh tests/dot_tool.sh \
	tests/flame_cli.sh tests/lines_fixtures.sh tests/lines_cli.sh tests/mem_tool.sh \
	tests/convert_tools.sh
EXTRA_DIST += tests/valgrind-tools.sh tests/valgrind.supp
check-valgrind: all
	$(SHELL) $(srcdir)/tests/valgrind-tools.sh '$(abs_top_builddir)' \
		'$(abs_top_srcdir)/tests/valgrind.supp' '$(abs_top_builddir)/tests/valgrind-tools'
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(VALGRIND_TESTS)' \
		PYPROF_TOOLS='$(abs_top_builddir)/tests/valgrind-tools'
clean-local: clean-valgrind-tools
clean-valgrind-tools:
	rm -rf tests/valgrind-tools
.PHONY: check-valgrind clean-valgrind-tools

# SIGKILL at random moments never leaves a partial output.
TESTS += tests/atomic_kill.sh
EXTRA_DIST += tests/atomic_kill.sh

# Input limits and the options that raise them.
TESTS += tests/limits.sh
EXTRA_DIST += tests/limits.sh
