# formats/pstats.mk - the pstats reader (marshal + pstats dialects) and its tests.
libpyprof_libpyprof_la_SOURCES += formats/pstats.c formats/pstats_scan.c formats/pstats_scan.h \
	formats/marshal.c formats/marshal_code.c formats/marshal.h formats/marshal_int.h

check_PROGRAMS += tests/t_marshal tests/t_pstats tests/t_pstats_scan
TESTS += tests/t_marshal tests/t_pstats tests/t_pstats_scan

# The marshal decoder is semi-private (pyprof__marshal_*), hidden by the
# shared library's export list: its test links the library statically.
tests_t_marshal_SOURCES = tests/t_marshal.c tests/tap.h
tests_t_marshal_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats
tests_t_marshal_CFLAGS = $(AM_CFLAGS) -pthread
tests_t_marshal_LDFLAGS = -static -pthread
tests_t_marshal_LDADD = $(TEST_LIBS)

tests_t_pstats_SOURCES = tests/t_pstats.c tests/tap.h
tests_t_pstats_CPPFLAGS = $(TEST_CPPFLAGS)
tests_t_pstats_LDFLAGS = -static
tests_t_pstats_LDADD = $(TEST_LIBS)

# The fast path against the general one (pyprof__pscan_*: static link).
tests_t_pstats_scan_SOURCES = tests/t_pstats_scan.c tests/tap.h
tests_t_pstats_scan_CPPFLAGS = $(TEST_CPPFLAGS) -I$(top_srcdir)/formats
tests_t_pstats_scan_LDFLAGS = -static
tests_t_pstats_scan_LDADD = $(TEST_LIBS)

EXTRA_DIST += bench/pstats.sh
