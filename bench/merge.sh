#!/bin/sh
# merge.sh - pyprof-merge on 1,000 pstats files of 5,000 functions each
# (target: under 10 s on one core, peak RSS under 10x one file), and
# pyprof-convert pstats-large -> callgrind next to pyprof2calltree's figure.
# Run by hand from the build directory:  sh ../bench/merge.sh [DATA_DIR]
set -e
B=${B:-./tools}
DATA=${1:-/work/bench-data}
W=${W:-bench-merge.tmp}
N=${N:-1000}
mkdir -p $W
if [ ! -f $W/r$((N - 1)).pstats ] || [ ! -f $W/.v2 ]; then
    rm -f $W/*.pstats
    # Randomised cProfile-shaped dicts (5,000 functions, 3 callers each),
    # written by Python's own marshal, seeded per file: reproducible.  The
    # call graph is the same in every file (ranks of one program); only the
    # numbers differ, so the merged result has the size of one input.
    python3 - "$W" "$N" <<'PYEOF'
import marshal, random, sys
w, n = sys.argv[1], int(sys.argv[2])
keys = [("/app/pkg%d/mod%d.py" % (i % 40, i % 400), 10 + i, "func_%d" % i) for i in range(5000)]
graph = random.Random(-1)
callers_of = [graph.sample(range(5000), 3) for _ in keys]
for r in range(n):
    rnd = random.Random(r)
    d = {}
    for i, k in enumerate(keys):
        cc = rnd.randint(1, 50); tt = rnd.random() * 1e-3; ct = tt + rnd.random() * 1e-2
        callers = {}
        for j in callers_of[i]:
            callers[keys[j]] = (rnd.randint(1, 9), rnd.randint(1, 9), tt / 3, ct / 3)
        d[k] = (cc, cc + rnd.randint(0, 3), tt, ct, callers)
    with open("%s/r%d.pstats" % (w, r), "wb") as f:
            marshal.dump(d, f)
PYEOF
    touch $W/.v2
fi
one=$(stat -c %s $W/r0.pstats)
echo "inputs: $N files of 5,000 functions, $(du -sh $W | cut -f1) ($one bytes each)"
base=$(/usr/bin/time -f '%M' $B/pyprof-merge --version 2>&1 >/dev/null | tail -1)
set -- $(/usr/bin/time -f '%e %U %S %M' $B/pyprof-merge -q "$W/r*.pstats" -o $W/merged.pstats 2>&1 >/dev/null | tail -1)
echo "pyprof-merge: $1 s wall, $(awk "BEGIN{print $2 + $3}") s CPU (one core; wall includes waiting on a shared machine)"
echo "  peak RSS $4 KiB = $(awk "BEGIN{printf \"%.1f\", $4 * 1024 / $one}")x one file;" \
    "above the $base KiB of an idle process: $(awk "BEGIN{printf \"%.1f\", ($4 - $base) * 1024 / $one}")x"
set -- $(/usr/bin/time -f '%e %M' $B/pyprof-merge -q "$W/r*.pstats" --ranks -n 20 -o $W/merged2.pstats 2>&1 >/dev/null | tail -1)
echo "pyprof-merge --ranks: $1 s wall, peak RSS $2 KiB"
if [ -f $DATA/pstats-large.pstats ]; then
    set -- $(/usr/bin/time -f '%e %M' $B/pyprof-convert -q $DATA/pstats-large.pstats -o $W/large.callgrind 2>&1 >/dev/null | tail -1)
    echo "pyprof-convert pstats-large -> callgrind: $1 s wall, peak RSS $(($2 / 1024)) MiB"
    echo "  peer (not installed here; figure from shared/bench/README.md, quiet machine):"
    echo "  pyprof2calltree 8.85 s, 363 MiB -> ratio $(awk "BEGIN{printf \"%.2f\", $1 / 8.85}") wall, $(awk "BEGIN{printf \"%.2f\", $2 / 1024 / 363}") RSS"
fi
