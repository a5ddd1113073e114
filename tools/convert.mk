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
libpyprof_libpyprof_la_SOURCES += \
	libpyprof/render/convert_ranks.c \
	libpyprof/render/convert_diff.c

# The three tools share input expansion and the streaming merge loop.
noinst_LTLIBRARIES += tools/libconvertcli.la
tools_libconvertcli_la_SOURCES = tools/convert_cli.c tools/convert_cli.h
tools_libconvertcli_la_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE

bin_PROGRAMS += tools/pyprof-convert tools/pyprof-merge tools/pyprof-diff
tools_pyprof_convert_SOURCES = tools/pyprof-convert.c
tools_pyprof_convert_LDADD = tools/libconvertcli.la $(PYPROF_TOOL_LIBS)
tools_pyprof_merge_SOURCES = tools/pyprof-merge.c
tools_pyprof_merge_LDADD = tools/libconvertcli.la $(PYPROF_TOOL_LIBS)
tools_pyprof_diff_SOURCES = tools/pyprof-diff.c
tools_pyprof_diff_LDADD = tools/libconvertcli.la $(PYPROF_TOOL_LIBS)

check_PROGRAMS += tests/t_convert
TESTS += tests/t_convert
tests_t_convert_SOURCES = tests/t_convert.c tests/tap.h
tests_t_convert_CPPFLAGS = $(TEST_CPPFLAGS)
# reaches the pyprof__alloc_fail_after test hook
tests_t_convert_LDFLAGS = -static
tests_t_convert_LDADD = $(TEST_LIBS)
TESTS += tests/convert_tools.sh
dist_check_SCRIPTS += tests/convert_tools.sh
CLEANFILES += convert_tools.tmp/*
dist_man1_MANS += tools/pyprof-convert.1 tools/pyprof-merge.1 tools/pyprof-diff.1
EXTRA_DIST += bench/merge.sh

# Fuzz targets of the two readers (tests/fuzz/fuzz_read.c), replayed in make check.
check_PROGRAMS += tests/fuzz/fuzz_callgrind tests/fuzz/fuzz_speedscope
tests_fuzz_fuzz_callgrind_SOURCES = tests/fuzz/fuzz_read.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_callgrind_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"callgrind"'
tests_fuzz_fuzz_callgrind_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_callgrind_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_speedscope_SOURCES = tests/fuzz/fuzz_read.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_speedscope_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"speedscope"'
tests_fuzz_fuzz_speedscope_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_speedscope_LDADD = $(TEST_LIBS)
# ...and of the writers and renderers (tests/fuzz/fuzz_write.c): whatever the
# probe reads, written in every format and read back.
check_PROGRAMS += tests/fuzz/fuzz_write
tests_fuzz_fuzz_write_SOURCES = tests/fuzz/fuzz_write.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_write_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_write_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_write_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/fuzz/replay_callgrind.sh tests/fuzz/replay_speedscope.sh \
	tests/fuzz/replay_write.sh
if !ENABLE_FUZZERS
TESTS += tests/fuzz/replay_callgrind.sh tests/fuzz/replay_speedscope.sh tests/fuzz/replay_write.sh
endif

# The streamed JSON text against the cJSON it replaced in the writers.
check_PROGRAMS += tests/t_json_emit
TESTS += tests/t_json_emit
tests_t_json_emit_SOURCES = tests/t_json_emit.c tests/tap.h
tests_t_json_emit_CPPFLAGS = $(TEST_CPPFLAGS) $(CJSON_CFLAGS)
tests_t_json_emit_LDFLAGS = -static
tests_t_json_emit_LDADD = $(TEST_LIBS) $(CJSON_LIBS)
