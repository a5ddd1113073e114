# formats/local.mk - the format registry.  Each format's own module is listed
# by the feature fragment that owns it (tools/*.mk), next to its tool.
libpyprof_libpyprof_la_SOURCES += formats/registry.c
