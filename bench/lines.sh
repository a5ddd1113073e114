#!/bin/sh
# bench/lines.sh - pyprof-lines against `python3 -m line_profiler` (4.0.2) on
# the same .lprof, in one run: wall time and peak RSS of each whole process
# (/usr/bin/time -f '%e %M'), the best of N runs each, alternating, and the
# ratios.  Both read the same source files for the report; the outputs are
# also compared (they should be identical).
#   bench/lines.sh [BUILD_DIR] [LPROF] [RUNS]
# defaults: ./build, /work/bench-data/lines-large.lprof, 5
set -eu
build=${1:-build}
lprof=${2:-/work/bench-data/lines-large.lprof}
runs=${3:-5}
PY=${PYTHON3:-/usr/bin/python3}
# the real binary, not libtool's wrapper script (which costs a shell start)
tool="$build/tools/.libs/pyprof-lines"
[ -x "$tool" ] || tool="$build/tools/pyprof-lines"
export LD_LIBRARY_PATH="$build/libpyprof/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best wall time and its peak RSS (KiB) over the runs: "WALL RSS"
measure() {
    out=$1
    shift
    best=
    i=0
    while [ $i -lt "$runs" ]; do
        /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > "$out"
        read -r wall rss < "$tmp/time"
        if [ -z "$best" ] || awk "BEGIN{exit !($wall < ${best% *})}"; then
            best="$wall $rss"
        fi
        i=$((i + 1))
    done
    echo "$best"
}

echo "input: $lprof ($(wc -c < "$lprof") bytes), best of $runs runs"
ours=$(measure "$tmp/ours.txt" "$tool" "$lprof")
theirs=$(measure "$tmp/theirs.txt" "$PY" -m line_profiler "$lprof")
if cmp -s "$tmp/ours.txt" "$tmp/theirs.txt"; then
    same="identical ($(wc -l < "$tmp/ours.txt") lines)"
else
    same="DIFFERENT"
fi
printf '%-28s %8s %10s\n' tool "wall s" "RSS KiB"
printf '%-28s %8s %10s\n' "pyprof-lines" $ours
printf '%-28s %8s %10s\n' "python3 -m line_profiler" $theirs
# /usr/bin/time rounds to 10 ms: clamp to 0.01 s so the ratio is a lower bound
awk -v o="$ours" -v t="$theirs" 'BEGIN {
    split(o, a, " "); split(t, b, " ");
    w = a[1] < 0.01 ? 0.01 : a[1];
    printf "ratio: %.1fx faster (wall), %.2fx the peak RSS\n", b[1] / w, a[2] / b[2] }'
echo "reports: $same"
