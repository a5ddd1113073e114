# tests/fuzz/local.mk - one fuzz target per reader, plus the probe (auto) and
# the input layer.  With --enable-fuzzers (CC=clang) they link libFuzzer;
# otherwise tests/fuzz/driver.c, and `make check` replays the saved corpus
# (tests/fuzz/corpus/<target>/) and the project's fixtures through them.
FUZZ_TARGETS = tests/fuzz/fuzz_pstats tests/fuzz/fuzz_lprof tests/fuzz/fuzz_mprofile \
	tests/fuzz/fuzz_memreport tests/fuzz/fuzz_collapsed tests/fuzz/fuzz_probe \
	tests/fuzz/fuzz_input
check_PROGRAMS += $(FUZZ_TARGETS)

if ENABLE_FUZZERS
FUZZ_LINK = -fsanitize=fuzzer
FUZZ_DRIVER =
else
FUZZ_LINK =
FUZZ_DRIVER = tests/fuzz/driver.c
endif
FUZZ_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE

tests_fuzz_fuzz_pstats_SOURCES = tests/fuzz/fuzz_read.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_pstats_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"pstats"'
tests_fuzz_fuzz_pstats_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_pstats_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_lprof_SOURCES = tests/fuzz/fuzz_read.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_lprof_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"lprof"'
tests_fuzz_fuzz_lprof_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_lprof_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_mprofile_SOURCES = tests/fuzz/fuzz_read.c tests/profile_diff.h $(FUZZ_DRIVER)
# (linked statically for the reader's test hook, pyprof__mprofile_split_min)
tests_fuzz_fuzz_mprofile_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"mprofile"' \
	-DFUZZ_SPLIT=pyprof__mprofile_split_min -DFUZZ_SPLIT_H='"mprofile.h"' -I$(top_srcdir)/formats
tests_fuzz_fuzz_mprofile_LDFLAGS = $(FUZZ_LINK) -static
tests_fuzz_fuzz_mprofile_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_memreport_SOURCES = tests/fuzz/fuzz_read.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_memreport_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"memreport"'
tests_fuzz_fuzz_memreport_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_memreport_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_collapsed_SOURCES = tests/fuzz/fuzz_read.c tests/profile_diff.h $(FUZZ_DRIVER)
# (linked statically for the reader's test hooks, pyprof__collapsed_tail_text and _split_min)
tests_fuzz_fuzz_collapsed_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='"collapsed"' -DFUZZ_LAZY \
	-DFUZZ_SPLIT=pyprof__collapsed_split_min -DFUZZ_SPLIT_H='"collapsed.h"' -I$(top_srcdir)/formats
tests_fuzz_fuzz_collapsed_LDFLAGS = $(FUZZ_LINK) -static
tests_fuzz_fuzz_collapsed_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_probe_SOURCES = tests/fuzz/fuzz_read.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_probe_CPPFLAGS = $(FUZZ_CPPFLAGS) -DFUZZ_FORMAT='""'
tests_fuzz_fuzz_probe_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_probe_LDADD = $(TEST_LIBS)
tests_fuzz_fuzz_input_SOURCES = tests/fuzz/fuzz_input.c $(FUZZ_DRIVER)
tests_fuzz_fuzz_input_CPPFLAGS = $(FUZZ_CPPFLAGS)
tests_fuzz_fuzz_input_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_input_LDADD = $(TEST_LIBS)

# Replays run in plain make check only (a libFuzzer binary would fuzz instead).
if !ENABLE_FUZZERS
TESTS += tests/fuzz/replay_pstats.sh tests/fuzz/replay_lprof.sh tests/fuzz/replay_mprofile.sh \
	tests/fuzz/replay_memreport.sh tests/fuzz/replay_collapsed.sh tests/fuzz/replay_probe.sh \
	tests/fuzz/replay_input.sh
endif
EXTRA_DIST += tests/fuzz/replay.sh tests/fuzz/corpus tests/fuzz/replay_pstats.sh \
	tests/fuzz/replay_lprof.sh tests/fuzz/replay_mprofile.sh tests/fuzz/replay_memreport.sh \
	tests/fuzz/replay_collapsed.sh tests/fuzz/replay_probe.sh tests/fuzz/replay_input.sh
