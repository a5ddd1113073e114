#!/bin/sh
# bench/stats.sh - pyprof-stats against Python's pstats on the same job:
# load a profile, sort by cumulative time, print 20 rows.  One run of each
# (run by hand, never by make check; compare in one run, as the load of the
# machine moves both).  Reports wall time and peak RSS, and their ratios.
#
#   bench/stats.sh [BUILD_DIR [DATA_DIR]]
#
# Inputs: DATA_DIR/pstats-{small,medium,large}.pstats, made by
# ../shared/bench/gen/gen.sh (default DATA_DIR /work/bench-data).
set -eu
build=${1:-build}
data=${2:-/work/bench-data}
tool="$build/tools/pyprof-stats"
py=${PYTHON3:-python3}
[ -x "$tool" ] || { echo "bench/stats.sh: no $tool (build first)" >&2; exit 2; }
# Time the program, not libtool's wrapper script around it (a shell that
# would add tens of milliseconds to every run).
if [ -x "$build/tools/.libs/pyprof-stats" ]; then
    tool="$build/tools/.libs/pyprof-stats"
    LD_LIBRARY_PATH="$build/libpyprof/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

measure() { # measure LABEL CMD...: "seconds kib" of one run
    /usr/bin/time -f '%e %M' -o "$out/time" "$@" >"$out/stdout" 2>/dev/null
    cat "$out/time"
}

printf '%-8s %10s %10s %10s %10s %8s %8s %s\n' input py_s ours_s py_MiB ours_MiB speed mem same
for size in small medium large; do
    f="$data/pstats-$size.pstats"
    [ -f "$f" ] || { echo "$size: $f missing"; continue; }
    set -- $(measure "$py" -c "import pstats; pstats.Stats('$f').sort_stats('cumulative').print_stats(20)")
    pt=$1 pm=$2
    cp "$out/stdout" "$out/py.txt"
    set -- $(measure "$tool" "$f" sort cumulative 20)
    ot=$1 om=$2
    same=no
    cmp -s "$out/stdout" "$out/py.txt" && same=yes
    awk -v s="$size" -v pt="$pt" -v ot="$ot" -v pm="$pm" -v om="$om" -v same="$same" 'BEGIN {
        t = ot > 0 ? pt / ot : 0; if (ot == 0) ot_s = "<0.01"; else ot_s = ot
        printf "%-8s %10s %10s %10.1f %10.1f %7.1fx %7.1fx %s\n", s, pt, ot_s, pm / 1024, om / 1024,
               (ot > 0 ? pt / ot : pt / 0.005), pm / om, same }'
done
echo "speed = python wall / ours (a 0.00 s run counts as 0.005 s); mem = python peak RSS / ours;"
echo "same = byte-identical output"
