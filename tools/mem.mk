# tools/mem.mk - mprofile and memory_profiler report formats, and pyprof-mem.
libpyprof_libpyprof_la_SOURCES += formats/mprofile.h formats/mprofile_line.h formats/mprofile.c \
	formats/mprofile_split.c formats/memreport.c

# The memory plot (layout -> scene -> SVG/PNG) and mprof's peak/list.
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/mem_plot.h \
	libpyprof/render/mem_plot.c \
	libpyprof/render/mem_curve.c \
	libpyprof/render/mem_draw.c \
	libpyprof/render/mem_ticks.c \
	libpyprof/render/mem_peak.c \
	libpyprof/render/mem_report.c

bin_PROGRAMS += tools/pyprof-mem
tools_pyprof_mem_SOURCES = tools/pyprof-mem.c
tools_pyprof_mem_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE
tools_pyprof_mem_LDADD = $(PYPROF_TOOL_LIBS)
dist_man1_MANS += tools/pyprof-mem.1

check_PROGRAMS += tests/t_mprofile tests/t_mem
TESTS += tests/t_mprofile tests/t_mem tests/mem_corpus.sh tests/mem_tool.sh
dist_check_SCRIPTS += tests/mem_corpus.sh tests/mem_tool.sh

tests_t_mprofile_SOURCES = tests/t_mprofile.c tests/tap.h
tests_t_mprofile_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_mprofile_LDFLAGS = -static
tests_t_mprofile_LDADD = $(TEST_LIBS)

check_PROGRAMS += tests/t_mprofile_split
TESTS += tests/t_mprofile_split
tests_t_mprofile_split_SOURCES = tests/t_mprofile_split.c tests/tap.h tests/profile_diff.h
tests_t_mprofile_split_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats
# -static: the split threshold is a semi-private test hook
tests_t_mprofile_split_LDFLAGS = -static
tests_t_mprofile_split_LDADD = $(TEST_LIBS)
CLEANFILES += t_mprofile_split.tmp

tests_t_mem_SOURCES = tests/t_mem.c tests/tap.h
tests_t_mem_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_mem_LDFLAGS = -static
tests_t_mem_LDADD = $(TEST_LIBS)

EXTRA_DIST += bench/mem.sh
