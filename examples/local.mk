# examples/local.mk - small programs that use only the public API.  They are
# built here against the in-tree library, and tests/example_installed.sh also
# builds topfuncs against an installed copy through pkg-config.
noinst_PROGRAMS += examples/topfuncs
examples_topfuncs_SOURCES = examples/topfuncs.c
examples_topfuncs_LDADD = libpyprof/libpyprof.la
EXTRA_DIST += examples/example.pstats examples/workload.py examples/make-example.sh \
	examples/example.lprof examples/lines_workload.py examples/example.dat examples/mem_workload.py
