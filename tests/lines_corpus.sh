#!/bin/sh
# lines_corpus.sh - pyprof-lines against line_profiler 4.0.2's own reports in
# the shared corpus: every expected/lp_*.txt must come out byte for byte.
#
# The references were made with `python3 -m line_profiler [OPTS] profile.lprof`
# run in the case folder (expected/commands.tsv), with the profiled sources at
# the absolute paths the profile records; here those paths do not exist, so
# the copies in the case's source/ folder are found with --source-root.
# lp_default_nosource.txt was made with the sources absent: it is run with
# --no-search and no root, so that nothing is found.
: "${top_builddir:=..}"
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
LINES="$top_builddir/tools/pyprof-lines"
OUT="$top_builddir/tests/lines_corpus.out"

if [ -z "$PYPROF_CORPUS" ] || [ ! -d "$PYPROF_CORPUS/lprof" ]; then
    echo "1..1"
    echo "ok 1 # SKIP corpus absent"
    exit 0
fi
mkdir -p "$OUT" || exit 1

n=0
plan=$(cat "$PYPROF_CORPUS"/lprof/*/expected/commands.tsv | grep -c 'line_profiler')
echo "1..$plan"
for case in "$PYPROF_CORPUS"/lprof/*/; do
    case=${case%/}
    name=$(basename "$case")
    tail -n +2 "$case/expected/commands.tsv" | while IFS='	' read -r output code cwd command; do
        # the options between "-m line_profiler" and the profile name
        opts=$(printf '%s\n' "$command" | sed -n 's/.*-m line_profiler \(.*\)profile\.lprof.*/\1/p')
        case $output in
        *nosource*) extra="--no-search" ;;
        *) extra="--source-root source" ;;
        esac
        got="$OUT/$name.$output"
        # shellcheck disable=SC2086 # opts and extra are word lists
        (cd "$case" && "$LINES" $opts $extra profile.lprof) > "$got" 2> "$got.err"
        rc=$?
        if [ "$rc" = "$code" ] && cmp -s "$got" "$case/expected/$output"; then
            echo "ok - $name/$output ($opts$extra)"
        else
            : > "$OUT/FAILED"
            echo "not ok - $name/$output ($opts$extra): exit $rc, want $code"
            diff "$case/expected/$output" "$got" | head -10 | sed 's/^/# /'
            sed 's/^/# /' "$got.err"
        fi
    done
done
# keep the outputs only when something differed
[ -e "$OUT/FAILED" ] || rm -rf "$OUT"
