#!/bin/sh
# bench/dot.sh - pyprof-dot against gprof2dot: pstats to DOT, default options.
#
# Usage: bench/dot.sh [BUILDDIR [DATADIR [GPROF2DOT]]]
#   GPROF2DOT=/path/to/gprof2dot.py   (or the third argument) also time
#                                      gprof2dot on the same inputs
#   PYTHON=python3                     the interpreter for gprof2dot
#   RUNS=5                             runs per case (the median is reported)
#
# Inputs: DATADIR/pstats-{small,medium,large}.pstats (made by
# shared/bench/gen/gen.sh).  Each run is a whole process, timed with
# /usr/bin/time: wall seconds, CPU seconds (user + system, all threads) and
# peak RSS; the median run by wall time is reported, and the fastest wall
# time beside it.  On a shared machine the CPU time says more than the wall
# time: a loaded machine stretches wall times, and pstats reading uses a
# second thread (prefaulting) when a core is free.  This script fetches nothing: it
# runs gprof2dot only from a path given in GPROF2DOT.  Without one it prints
# our figures next to the peer figure recorded in shared/bench/README.md,
# clearly marked as not measured in this run (a loaded machine inflates wall
# times 1.2-2.7x, so ratios against a figure from another run are rough).
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$here/../build}
DATA=${2:-$here/../../bench-data}
RUNS=${RUNS:-5}
PYTHON=${PYTHON:-python3}
GPROF2DOT=${3:-${GPROF2DOT:-}}
DOT="$BUILD/tools/pyprof-dot"
# In a build tree, time the program itself, not libtool's wrapper script
# (a shell that costs ~10 ms of CPU per run).
if [ -x "$BUILD/tools/.libs/pyprof-dot" ] && [ -d "$BUILD/libpyprof/.libs" ]; then
    DOT="$BUILD/tools/.libs/pyprof-dot"
    LD_LIBRARY_PATH="$BUILD/libpyprof/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

[ -x "$DOT" ] || { echo "bench/dot.sh: $DOT not built" >&2; exit 2; }
if [ -n "$GPROF2DOT" ] && [ ! -f "$GPROF2DOT" ]; then
    echo "bench/dot.sh: GPROF2DOT=$GPROF2DOT: no such file" >&2
    exit 2
fi

# RUNS runs of a command: prints "wall_s rss_mib cpu_s best_wall_s" of the
# median run by wall time, and the fastest wall time
measure() {
    i=0
    : >"$TMP/times"
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -f '%e %M %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" ||
            { echo "FAILED: $*" >&2; cat "$TMP/err" >&2; return 1; }
        cat "$TMP/t" >>"$TMP/times"
        i=$((i + 1))
    done
    sort -n "$TMP/times" | awk -v n="$RUNS" 'NR == 1 { best = $1 }
        NR == int((n + 1) / 2) { printf "%.3f %.0f %.2f %.3f\n", $1, $2 / 1024, $3 + $4, best }'
}

printf '%-14s %-10s %10s %10s %8s %10s %12s %10s\n' case tool wall_s rss_MiB cpu_s best_wall \
    ratio_wall ratio_rss
for size in small medium large; do
    in="$DATA/pstats-$size.pstats"
    [ -f "$in" ] || { echo "pstats-$size: missing ($in)"; continue; }
    set -- $(measure "$DOT" -f pstats "$in" -o "$TMP/out.dot")
    ours_t=$1 ours_m=$2
    printf '%-14s %-10s %10s %10s %8s %10s\n' "pstats-$size" pyprof-dot "$ours_t" "$ours_m" "$3" "$4"
    if [ -n "$GPROF2DOT" ]; then
        set -- $(measure "$PYTHON" "$GPROF2DOT" -f pstats "$in" -o "$TMP/peer.dot")
        printf '%-14s %-10s %10s %10s %8s %10s %11.1fx %9.1fx\n' "pstats-$size" gprof2dot "$1" "$2" \
            "$3" "$4" "$(echo "$1 / $ours_t" | bc -l)" "$(echo "$2 / $ours_m" | bc -l)"
    elif [ "$size" = large ]; then
        # shared/bench/README.md: "pstats-large to DOT | gprof2dot | 8.50 | 512"
        printf '%-14s %-10s %10s %10s %8s %10s %11.1fx %9.1fx   <- peer figure from README, not measured in this run\n' \
            "pstats-$size" gprof2dot 8.50 512 - - \
            "$(echo "8.50 / $ours_t" | bc -l)" "$(echo "512 / $ours_m" | bc -l)"
    fi
done
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each, median)"
