#!/bin/sh
# Regenerate the bundled example profiles (Debian 12: python3,
# python3-line-profiler, python3-memory-profiler).  Each records its script
# by the relative name it was run with.
#   example.pstats  cProfile of workload.py
#   example.lprof   kernprof -l of lines_workload.py
#   example.dat     mprof run of mem_workload.py (mprofile format)
set -e
cd "$(dirname "$0")"
/usr/bin/python3 -m cProfile -o example.pstats workload.py
kernprof -l -o example.lprof lines_workload.py >/dev/null
rm -f example.dat
python3-mprof run -o example.dat --python mem_workload.py >/dev/null
