#!/bin/sh
# bench/flame.sh - pyprof-flame against flamegraph.pl and the `wc -l` floor on
# folded stacks of 1 MB, 100 MB and 1 GB (time and peak memory), and against
# flameprof on pstats-large (stacks estimated from caller ratios).
#
# Usage: bench/flame.sh [BUILD_DIR]      (default: ./build)
#   BENCH_DATA=DIR       inputs (default /work/bench-data; made by
#                        ../shared/bench/gen/gen.sh: collapsed-syn-*.folded)
#   FLAMEGRAPH_PL=PATH   flamegraph.pl to measure in the same run; without it
#                        the peer figures of ../shared/bench/README.md are shown,
#                        labelled as such (a different run: compare with care)
#   RUNS=N               runs per measurement, the median is kept (default 3);
#                        `wc -l` and pyprof-flame are timed in turn, and the
#                        "pairs" ratio is the median of each pair's ratio
#   SIZES="1m 100m 1g"   which inputs
# /usr/bin/time counts wall seconds in hundredths, and `wc -l` reads 100 MB
# in about 0.02 s: a ratio to that could be off by half.  So each run of a
# measurement on an input under 200 MB times REPS back-to-back runs of the
# command (20 under 2 MB, else 10) and divides the times by REPS; its peak
# memory is still the biggest of those runs.
# Run by hand on a quiet machine; never part of make check.  pyprof-flame reads
# a plain folded file of 32 MiB or more on two threads: its cpu s (user+sys,
# both threads) then exceeds its wall s, and a busy machine slows it more.
# On a shared machine compare the cpu s column too.
set -u
BUILD=${1:-build}
DATA=${BENCH_DATA:-/work/bench-data}
RUNS=${RUNS:-3}
SIZES=${SIZES:-"1m 100m 1g"}
TOOL="$BUILD/tools/pyprof-flame"
# time the program, not libtool's wrapper script around it in a build tree
if [ -x "$BUILD/tools/.libs/pyprof-flame" ]; then
    TOOL="$BUILD/tools/.libs/pyprof-flame"
    LD_LIBRARY_PATH="$BUILD/libpyprof/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
OUT=${TMPDIR:-/tmp}/pyprof-flame-bench.$$
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT
[ -x "$TOOL" ] || { echo "bench/flame.sh: $TOOL not built" >&2; exit 2; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (wall times inflate on a busy machine; cpu s less so)"

# REPS for an input file: back-to-back runs timed together (see above)
reps_for() {
    sz=$(wc -c < "$1")
    if [ "$sz" -lt 2000000 ]; then echo 20
    elif [ "$sz" -lt 200000000 ]; then echo 10
    else echo 1; fi
}

# "wall user+sys peakKiB" of REPS back-to-back runs of a command (stdout
# discarded), times divided by REPS, appended to file $1
time_once() {
    to=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$OUT/t" sh -c '
        n=$1; shift; k=0
        while [ "$k" -lt "$n" ]; do "$@" > /dev/null || exit 1; k=$((k + 1)); done
    ' sh "$REPS" "$@" 2> "$OUT/err" || {
        echo "bench/flame.sh: failed: $*" >&2; cat "$OUT/err" >&2; return 1; }
    awk -v r="$REPS" '{printf "%.4f %.4f %s\n", $1 / r, ($2 + $3) / r, $4}' "$OUT/t" >> "$to"
}

# the median line of a file of timings
median_of() {
    sort -n "$1" | awk -v n="$RUNS" 'NR == int((n + 1) / 2)'
}

# median over RUNS of "wall user+sys peakKiB" for a command
measure() {
    i=0
    : > "$OUT/times"
    while [ "$i" -lt "$RUNS" ]; do
        time_once "$OUT/times" "$@" || return 1
        i=$((i + 1))
    done
    median_of "$OUT/times"
}

# `wc -l FILE` and pyprof-flame on FILE, RUNS times each, in turn, so that
# each pair sees the machine in one state: sets wc and us (the medians, as
# measure gives them) and ratio, the median of the pairs' wall ratios
measure_pair() {
    i=0
    : > "$OUT/wc"
    : > "$OUT/us"
    while [ "$i" -lt "$RUNS" ]; do
        time_once "$OUT/wc" wc -l "$1" || return 1
        time_once "$OUT/us" "$TOOL" "$1" -o "$OUT/out.svg" || return 1
        i=$((i + 1))
    done
    wc=$(median_of "$OUT/wc")
    us=$(median_of "$OUT/us")
    ratio=$(paste -d' ' "$OUT/us" "$OUT/wc" |
        awk '{print $1 / ($4 > 0.0001 ? $4 : 0.0001)}' | sort -n |
        awk -v n="$RUNS" 'NR == int((n + 1) / 2)')
}

# peer figures measured by the bench maintainers (shared/bench/README.md)
peer() {
    case $1 in
    100m) echo "9.60 - 624640" ;;
    1g) echo "111 - 5659648" ;;
    *) echo "" ;;
    esac
}

printf '%-6s %-16s %9s %9s %10s\n' input tool "wall s" "cpu s" "peak MiB"
for s in $SIZES; do
    f="$DATA/collapsed-syn-$s.folded"
    [ -r "$f" ] || { echo "bench/flame.sh: missing $f (run gen.sh)" >&2; continue; }
    cat "$f" > /dev/null # into the page cache first
    REPS=$(reps_for "$f")
    measure_pair "$f" || continue
    if [ -n "${FLAMEGRAPH_PL:-}" ]; then
        fg=$(REPS=1 measure perl "$FLAMEGRAPH_PL" "$f")
        fglabel="flamegraph.pl"
    else
        fg=$(peer "$s")
        fglabel="flamegraph.pl*"
    fi
    for row in "wc -l|$wc" "pyprof-flame|$us" "$fglabel|$fg"; do
        name=${row%%|*}
        vals=${row#*|}
        [ -n "$vals" ] || continue
        echo "$vals" | awk -v i="$s" -v t="$name" \
            '{printf "%-6s %-16s %9s %9s %10.1f\n", i, t, $1, $2, $3 / 1024}'
    done
    echo "$us|$wc|$fg|$ratio" | awk -F'|' -v i="$s" '{
        split($1, u, " "); split($2, w, " "); split($3, g, " ");
        printf "%-6s ratios: pyprof-flame / wc -l = %.1fx wall (pairs: %.1fx), %.1fx cpu", i,
            u[1] / (w[1] > 0.0001 ? w[1] : 0.0001), $4, u[2] / (w[2] > 0.0001 ? w[2] : 0.0001);
        if (g[1] != "") printf ", flamegraph.pl / pyprof-flame = %.1fx wall, %.1fx memory",
            g[1] / u[1], g[3] / u[3];
        printf "\n" }'
done
# Real stacks repeat: collapsed-real-1m (a real sampled run) concatenated 100
# times is 100 MB whose stacks are few; the synthetic files above have a new
# stack tail on almost every line (11 million tree nodes in 1 GB).
real="$DATA/collapsed-real-1m.folded"
if [ -r "$real" ] && [ -z "${NO_REAL:-}" ]; then
    i=0
    while [ $i -lt 100 ]; do cat "$real"; i=$((i + 1)); done > "$OUT/real100.folded"
    REPS=$(reps_for "$OUT/real100.folded")
    measure_pair "$OUT/real100.folded"
    for row in "wc -l|$wc" "pyprof-flame|$us"; do
        echo "${row#*|}" | awk -v t="${row%%|*}" \
            '{printf "%-6s %-16s %9s %9s %10.1f\n", "real100", t, $1, $2, $3 / 1024}'
    done
    echo "$us|$wc|$ratio" | awk -F'|' '{ split($1, u, " "); split($2, w, " ");
        printf "real100 ratios: pyprof-flame / wc -l = %.1fx wall (pairs: %.1fx)\n",
            u[1] / (w[1] > 0.0001 ? w[1] : 0.0001), $3 }'
fi
# pstats has no stacks: from pstats-large both tools draw stacks estimated
# from caller ratios (each its own way), flameprof in Python
pl="$DATA/pstats-large.pstats"
if [ -r "$pl" ] && [ -z "${NO_PSTATS:-}" ]; then
    REPS=$(reps_for "$pl")
    us=$(measure "$TOOL" "$pl" -o "$OUT/out.svg")
    echo "$us" | awk '{printf "%-6s %-16s %9s %9s %10.1f\n", "pstats", "pyprof-flame", $1, $2, $3 / 1024}'
    printf '%-6s %-16s %9s %9s %10.1f\n' pstats "flameprof*" 31 - 384
    echo "$us" | awk '{printf "pstats ratios: flameprof / pyprof-flame = %.0fx wall, %.1fx memory\n",
        31 / $1, 384 * 1024 / $3}'
fi
[ -n "${FLAMEGRAPH_PL:-}" ] || echo "* flamegraph.pl, flameprof: peer figures from shared/bench/README.md (another run, quiet machine)"
