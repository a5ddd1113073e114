# tools/stats.mk - pstats format and pyprof-stats.

