#!/bin/sh
# bench/mem.sh - pyprof-mem against mprof (memory_profiler 0.61, matplotlib
# with the Agg backend), in one run on the same machine:
#   plot to PNG of mem-60s.dat (a real 60 s mprof run with FUNC lines) and of
#   mem-synth-1m.dat (1,000,000 MEM samples), and `peak` of both.
#
# Usage: bench/mem.sh [BUILDDIR [DATADIR]]
#   MPROF=python3-mprof     the peer command (Debian python3-memory-profiler)
#   RUNS=1                  runs per case (the median is reported)
#
# Each run is a whole process timed with /usr/bin/time (wall seconds, peak
# RSS).  Ratios are peer / ours, so bigger is better for us.  On a loaded
# machine wall times of both inflate; compare ratios, not absolutes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$here/../build}
DATA=${2:-$here/../../bench-data}
RUNS=${RUNS:-1}
MPROF=${MPROF:-python3-mprof}
MEM="$BUILD/tools/pyprof-mem"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
export MPLBACKEND=Agg TZ=UTC

[ -x "$MEM" ] || { echo "bench/mem.sh: $MEM not built" >&2; exit 2; }
command -v "$MPROF" >/dev/null 2>&1 || { echo "bench/mem.sh: $MPROF not found" >&2; exit 2; }

# median of RUNS runs of a command: prints "wall_s rss_kib user_s"
measure() {
    i=0
    : >"$TMP/times"
    while [ $i -lt "$RUNS" ]; do
        /usr/bin/time -f '%e %M %U' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" ||
            { echo "FAILED: $*" >&2; cat "$TMP/err" >&2; return 1; }
        cat "$TMP/t" >>"$TMP/times"
        i=$((i + 1))
    done
    sort -n "$TMP/times" | sed -n "$(( (RUNS + 1) / 2 ))p"
}

printf '%-28s %10s %10s %9s %9s %8s %8s\n' case "ours s" "mprof s" "ours MiB" "mprof MiB" "wall x" "RSS x"
row() {
    name=$1 ours=$2 peer=$3
    awk -v n="$name" -v o="$ours" -v p="$peer" 'BEGIN {
        split(o, a, " "); split(p, b, " ");
        printf "%-28s %10.3f %10.3f %9.1f %9.1f %8.1f %8.1f\n", n, a[1], b[1], a[2] / 1024, b[2] / 1024,
            (a[1] > 0 ? b[1] / a[1] : 0), (a[2] > 0 ? b[2] / a[2] : 0) }'
}

for f in mem-60s.dat mem-synth-1m.dat; do
    in="$DATA/$f"
    [ -f "$in" ] || { echo "bench/mem.sh: $in missing (run shared/bench/gen/gen.sh)" >&2; continue; }
    ours=$(measure "$MEM" plot "$in" -o "$TMP/ours.png") || exit 1
    peer=$(measure "$MPROF" plot -o "$TMP/peer.png" "$in") || exit 1
    row "plot $f" "$ours" "$peer"
    ours=$(measure "$MEM" peak "$in") || exit 1
    peer=$(measure "$MPROF" peak "$in") || exit 1
    row "peak $f" "$ours" "$peer"
    cmp -s "$("$MEM" peak "$in" >"$TMP/a"; echo "$TMP/a")" \
        "$("$MPROF" peak "$in" >"$TMP/b"; echo "$TMP/b")" || echo "  (peak text differs from mprof's!)"
done
