#!/bin/sh
# stats_pstats_golden.sh - pyprof-stats on the pstats reader's fixtures
# (tests/fixtures/pstats: every CPython from 2.7 to 3.13, cProfile and the
# profile module, yappi, marshal versions 0-4, merged, stripped, big counts,
# non-ASCII names, zstd) against the outputs of Python's pstats recorded in
# tests/golden/pstats/<fixture>/commands.tsv.  One TAP line per output.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
TOOL="$(cd "$top_builddir" && pwd)/tools/pyprof-stats"
. "$top_srcdir/tests/stats_lib.sh"
fix="$top_srcdir/tests/fixtures/pstats"
gold="$top_srcdir/tests/golden/pstats"
if ! ls "$gold"/*/commands.tsv >/dev/null 2>&1; then
    echo "ok 1 # SKIP no pstats goldens in this tree"
    echo "1..1"
    exit 0
fi
work="$top_builddir/tests/stats_pstats_golden.d"
rm -rf "$work"
mkdir -p "$work"
for f in "$fix"/*.pstats "$fix"/*.zst; do
    [ -f "$f" ] || continue
    cp "$f" "$work/"
done
chmod u+w "$work"/*
for f in "$work"/*; do TZ=UTC touch -d @1704067200 "$f"; done
tab=$(printf '\t')
for tsv in "$gold"/*/commands.tsv; do
    dir=$(dirname "$tsv")
    name=$(basename "$dir")
    tail -n +2 "$tsv" | while IFS="$tab" read -r output status command; do
        case "$output" in */*) continue ;; esac
        args=$(translate "$command") || {
            echo "ok - $name/$output # SKIP cannot translate: $command"
            continue
        }
        old_ifs=$IFS
        IFS='
'
        set -f
        # shellcheck disable=SC2086 # one argument per line
        set -- $args
        set +f
        IFS=$old_ifs
        line=$(check_run "$name/$output" "$dir" "$output" "$status" "$work" "$@")
        printf '%s\n' "$line"
    done
done >"$work/tap.out"
cat "$work/tap.out"
echo "1..$(grep -c '^\(not \)\{0,1\}ok ' "$work/tap.out")"
grep '^not ok' "$work/tap.out" | grep -qv '# TODO' && exit 1
rm -rf "$work" # kept only when something failed
exit 0
