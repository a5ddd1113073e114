# formats/pstats.mk - the pstats reader (marshal + pstats dialects) and its tests.
libpyprof_libpyprof_la_SOURCES += formats/pstats.c formats/marshal.c formats/marshal.h

check_PROGRAMS += tests/t_marshal tests/t_pstats
TESTS += tests/t_marshal tests/t_pstats

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
