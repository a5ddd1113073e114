#!/bin/sh
# Regenerate example.pstats: cProfile of workload.py under Debian's Python 3.
# Run from anywhere; the profile records the script as "workload.py".
set -e
cd "$(dirname "$0")"
/usr/bin/python3 -m cProfile -o example.pstats workload.py
