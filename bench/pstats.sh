#!/bin/sh
# pstats.sh - the pstats reader on a big profile, next to Python's pstats.
# Reads pstats-large (28.7 MB: 101,620 functions, 640,599 call edges) with
# examples/topfuncs (load + sort by cumulative time + print 20) and with
# python3 -c "pstats.Stats(F).sort_stats('cumulative').print_stats(20)",
# in the same run.  Reported: CPU time (user + sys, as the machine is
# shared), wall time and peak RSS, and the ratios.  Run by hand from the
# build directory:  sh ../bench/pstats.sh [FILE] [RUNS]
set -e
F=${1:-/work/bench-data/pstats-large.pstats}
RUNS=${2:-5}
T=${T:-examples/topfuncs}
export LD_LIBRARY_PATH=$PWD/libpyprof/.libs
[ -x examples/.libs/topfuncs ] && T=examples/.libs/topfuncs
best() { # command... -> "cpu wall rss" of the run with the least CPU time
    for i in $(seq "$RUNS"); do
        /usr/bin/time -f '%U %S %e %M' "$@" 2>&1 >/dev/null | tail -1
    done | awk '{ c = $1 + $2; if (!n++ || c < bc) { bc = c; w = $3; m = $4 } }
                END { printf "%.2f %.2f %d\n", bc, w, m }'
}
ours=$(best "$T" "$F")
py=$(best python3 -c "import pstats, sys; pstats.Stats(sys.argv[1]).sort_stats('cumulative').print_stats(20)" "$F")
echo "$F, best CPU time of $RUNS runs:"
echo "  topfuncs:     cpu $(echo $ours | cut -d' ' -f1) s  wall $(echo $ours | cut -d' ' -f2) s  rss $(echo $ours | cut -d' ' -f3) KiB"
echo "  python pstats: cpu $(echo $py | cut -d' ' -f1) s  wall $(echo $py | cut -d' ' -f2) s  rss $(echo $py | cut -d' ' -f3) KiB"
echo "$ours $py" | awk '{ printf "  ratio: %.1fx less CPU time, %.2fx the peak RSS\n", $4 / $1, $3 / $6 }'
