#!/bin/sh
# limits.sh - the input limits and the options that raise them
# (--max-bytes, --max-depth, --max-ratio, shared by every tool): a limit that
# is hit gives one line naming the file, where, and the option to raise; the
# same input with the limit raised reads; bad values are usage errors.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
. "$top_srcdir/tests/tap.sh"
TOOLS=${PYPROF_TOOLS:-$top_builddir/tools}
FIX="$top_srcdir/tests/fixtures"
W="$top_builddir/tests/limits.d"
rm -rf "$W"
mkdir -p "$W"
P="$FIX/pstats/cprofile_py311.pstats"
size=$(wc -c < "$P")

# --max-bytes: a pstats file is read whole, so one byte less than its size fails
"$TOOLS/pyprof-stats" --max-bytes $((size - 1)) "$P" stats 1 > /dev/null 2> "$W/err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$W/err")" = 1 ] &&
    grep -q "^pyprof-stats: $P: offset 0: more than $((size - 1)) bytes .*--max-bytes" "$W/err" &&
    tap_ok "--max-bytes below the file's size: one line naming file, offset and option" ||
    { tap_not_ok "--max-bytes below the file's size (exit $rc)"; sed 's/^/# /' "$W/err"; }
tap_check "--max-bytes of exactly the file's size reads it" \
    "$TOOLS/pyprof-stats" --max-bytes "$size" "$P" stats 1
tap_check "--max-bytes takes suffixes (64K)" "$TOOLS/pyprof-dot" --max-bytes 64K "$P" -o "$W/g.dot"
for t in stats dot flame lines convert merge diff; do
    case $t in
    lines) in="$FIX/lprof/py311_p5.lprof" ;;
    *) in="$P" ;;
    esac
    case $t in
    merge | diff) set -- "$in" "$in" ;;
    convert) set -- "$in" -o "$W/c.json" ;;
    *) set -- "$in" ;;
    esac
    [ $t = merge ] && set -- "$@" -o "$W/m.json"
    "$TOOLS/pyprof-$t" --max-bytes 100 "$@" > /dev/null 2> "$W/err"
    rc=$?
    [ $rc = 1 ] && grep -q "^pyprof-$t: $in: .*raise the limit with --max-bytes" "$W/err" &&
        tap_ok "pyprof-$t --max-bytes 100 refuses a file held whole, naming the option" ||
        { tap_not_ok "pyprof-$t --max-bytes 100 (exit $rc)"; sed 's/^/# /' "$W/err"; }
done

# --max-depth: marshal nesting (dict > tuple > tuple of numbers is 3 deep)
"$TOOLS/pyprof-dot" --max-depth 2 "$P" > /dev/null 2> "$W/err"
rc=$?
[ $rc = 1 ] && grep -q "^pyprof-dot: $P: offset [0-9]*: objects nested deeper than 2 levels (raise the limit with --max-depth)" "$W/err" &&
    tap_ok "--max-depth 2 refuses a pstats file, naming offset and option" ||
    { tap_not_ok "--max-depth 2 (exit $rc)"; sed 's/^/# /' "$W/err"; }
tap_check "--max-depth 100 reads it" "$TOOLS/pyprof-dot" --max-depth 100 "$P" -o "$W/g2.dot"
"$TOOLS/pyprof-lines" --max-depth 1 "$FIX/lprof/py311_p5.lprof" > /dev/null 2> "$W/err"
rc=$?
[ $rc = 1 ] && grep -q "^pyprof-lines: .*--max-depth" "$W/err" &&
    tap_ok "pyprof-lines --max-depth 1 refuses nested pickle MARKs" ||
    { tap_not_ok "pyprof-lines --max-depth 1 (exit $rc)"; sed 's/^/# /' "$W/err"; }

# --max-ratio: 72 MiB of one repeated stack compress thousands of times over
if command -v zstd > /dev/null 2>&1; then
    yes 'main;work;inner 1' | head -c 75497472 | zstd -q -19 -o "$W/bomb.folded.zst"
    "$TOOLS/pyprof-flame" "$W/bomb.folded.zst" -o "$W/b.svg" 2> "$W/err"
    rc=$?
    [ $rc = 1 ] && grep -q "^pyprof-flame: $W/bomb.folded.zst: offset [0-9]*: zstd data expands more than 1000x; .*--max-ratio" "$W/err" &&
        tap_ok "a zstd bomb is refused by default, naming the option" ||
        { tap_not_ok "zstd bomb (exit $rc)"; sed 's/^/# /' "$W/err"; }
    "$TOOLS/pyprof-flame" --max-ratio 100000000 "$W/bomb.folded.zst" -o "$W/b.svg" 2> "$W/err"
    rc=$?
    [ $rc = 0 ] && grep -q '4,194,304 samples\|4194304' "$W/b.svg" &&
        tap_ok "--max-ratio raised: the same file draws all 4,194,304 samples" ||
        { tap_not_ok "--max-ratio raised (exit $rc)"; sed 's/^/# /' "$W/err"; }
else
    tap_skip "zstd bomb" "no zstd program"
    tap_skip "--max-ratio raised" "no zstd program"
fi

# bad values are usage errors
for bad in "--max-bytes 0" "--max-bytes 12Q" "--max-bytes -5" "--max-depth x" "--max-ratio 0"; do
    # shellcheck disable=SC2086
    "$TOOLS/pyprof-stats" $bad "$P" stats 1 > /dev/null 2> "$W/err"
    rc=$?
    [ $rc = 2 ] && grep -q "^pyprof-stats: --max-" "$W/err" &&
        tap_ok "$bad: usage error" || { tap_not_ok "$bad: exit $rc"; sed 's/^/# /' "$W/err"; }
done
for t in stats dot flame lines mem convert merge diff; do
    "$TOOLS/pyprof-$t" --help 2>&1 | grep -q -- '--max-ratio N' &&
        tap_ok "pyprof-$t --help lists the limits" || tap_not_ok "pyprof-$t --help lists the limits"
done
[ "$_tap_failed" = 0 ] && rm -rf "$W"
tap_done
