# tools/dot.mk - call graphs and pyprof-dot.
