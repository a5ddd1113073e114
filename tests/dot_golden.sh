#!/bin/sh
# dot_golden.sh - pyprof-dot's options on the project's own fixtures, byte
# for byte against tests/golden/dot/*.dot.
#
# Where the goldens come from: no gprof2dot can run here (it is not
# installed and cannot be fetched), so they are pyprof-dot's own output,
# made with DOT_GOLDEN_UPDATE=1 and read before being committed.  What makes
# them trustworthy is tests/dot_corpus.sh: the same code reproduces every
# gprof2dot reference of the corpus (default, -n 0 -e 0, selftime colours,
# --compare), so these files pin that verified behaviour down, and cover the
# options the corpus has no reference for (colormaps, -s, -w, -z/-l/--depth,
# -p, --skew, --node-label, --max-nodes, --focus/--ignore) as regression tests.
# Each of those options is also checked for its effect in t_dot.c.
. "$top_srcdir/tests/tap.sh"

DOT="${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-dot"
FIX="$top_srcdir/tests/fixtures/dot"
GOLD="$top_srcdir/tests/golden/dot"
OUT="$top_builddir/tests/dot_golden.out"
rm -rf "$OUT"
mkdir -p "$OUT"

# name | options | inputs (relative to the fixtures)
while IFS='|' read -r name opts inputs; do
    [ -n "$name" ] || continue
    args=""
    for f in $inputs; do args="$args $FIX/$f"; done
    # the fixtures record "workload.py" as their file: run from the fixture
    # directory's parent is irrelevant, nothing depends on the cwd
    # shellcheck disable=SC2086
    if ! "$DOT" $opts -o "$OUT/$name.dot" $args 2>"$OUT/$name.err"; then
        tap_not_ok "$name: pyprof-dot $opts failed"
        sed 's/^/# /' "$OUT/$name.err"
        continue
    fi
    if [ -n "$DOT_GOLDEN_UPDATE" ]; then
        cp "$OUT/$name.dot" "$GOLD/$name.dot"
    fi
    tap_diff "$name: pyprof-dot $opts" "$OUT/$name.dot" "$GOLD/$name.dot"
done <<'LIST'
default||small.pstats
n0_e0|-n 0 -e 0|small.pstats
selftime|--color-nodes-by-selftime|small.pstats
pink|-c pink|small.pstats
gray|-c gray|small.pstats
bw|-c bw|small.pstats
print|-c print|small.pstats
skew|--skew 0.3|small.pstats
strip_wrap|-s -w -n 0|small.pstats
root|-z *:main -n 0 -e 0|small.pstats
root_depth|--root *:main --depth 1|small.pstats
leaf|-l *:is_odd -n 0 -e 0|small.pstats
path|-p workload -n 0|small.pstats
labels|--node-label self-time --node-label total-time --node-label total-time-percentage|small.pstats
max_nodes|--max-nodes 5 -n 0 -e 0|small.pstats
focus|--focus fib -n 0 -e 0|small.pstats
ignore|--ignore builtins|small.pstats
compare|--compare|small.pstats small2.pstats
profile_int_callers||profile.pstats
py27|-n 0 -e 0|py27.pstats
merged||small.pstats small2.pstats
folded||pyspy.folded
folded_n0|-n 0 -e 0|pyspy.folded
folded_callstacks|--total callstacks -n 0 -e 0|pyspy.folded
folded_samples|--show-samples --node-label self-time-percentage|pyspy.folded
LIST
# keep the outputs only when something failed (make distcheck wants a clean tree)
[ "$_tap_failed" -eq 0 ] && rm -rf "$OUT"
tap_done
