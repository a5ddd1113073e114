#!/bin/sh
# pstats.sh - the pstats reader on a big profile, next to Python's pstats.
# Reads pstats-large (28.7 MB: 101,620 functions, 640,599 call edges) with
# pyprof-stats (sort cumulative 20) and examples/topfuncs, and with
# python3 -c "pstats.Stats(F).sort_stats('cumulative').print_stats(20)",
# in the same run.  Reported: CPU time (user + sys, as the machine is
# shared), wall time and peak RSS of the run with the least CPU time, and
# the ratios.  Run by hand from the build directory:
#     sh ../bench/pstats.sh [FILE] [RUNS]
set -e
F=${1:-/work/bench-data/pstats-large.pstats}
RUNS=${2:-5}
export LD_LIBRARY_PATH=$PWD/libpyprof/.libs
bin() { if [ -x "$(dirname "$1")/.libs/$(basename "$1")" ]; then echo "$(dirname "$1")/.libs/$(basename "$1")"; else echo "$1"; fi; }
best() { # command... -> "cpu wall rss" of the run with the least CPU time
    for i in $(seq "$RUNS"); do
        /usr/bin/time -f '%U %S %e %M' "$@" 2>&1 >/dev/null | tail -1
    done | awk '{ c = $1 + $2; if (!n++ || c < bc) { bc = c; w = $3; m = $4 } }
                END { printf "%.2f %.2f %d\n", bc, w, m }'
}
py=$(best python3 -c "import pstats, sys; pstats.Stats(sys.argv[1]).sort_stats('cumulative').print_stats(20)" "$F")
echo "$F, best CPU time (user+sys) of $RUNS runs:"
echo "$py" | awk '{ printf "  %-14s cpu %5.2f s  wall %5.2f s  rss %7d KiB\n", "python pstats", $1, $2, $3 }'
for t in tools/pyprof-stats examples/topfuncs; do
    [ -x "$t" ] || continue
    if [ "$t" = tools/pyprof-stats ]; then r=$(best "$(bin $t)" "$F" sort cumulative 20)
    else r=$(best "$(bin $t)" "$F"); fi
    echo "$r $py" | awk -v t="$(basename $t)" '{ printf "  %-14s cpu %5.2f s  wall %5.2f s  rss %7d KiB: %.1fx less CPU, %.2fx the RSS\n", t, $1, $2, $3, $4 / $1, $3 / $6 }'
done
