# tools/local.mk - helpers shared by the pyprof-* tools (not installed).
noinst_LTLIBRARIES += tools/libcli.la
tools_libcli_la_SOURCES = tools/cli.c tools/cli.h
tools_libcli_la_CPPFLAGS = $(AM_CPPFLAGS) -D_GNU_SOURCE

# What every tool links with.
PYPROF_TOOL_LIBS = tools/libcli.la libpyprof/libpyprof.la
