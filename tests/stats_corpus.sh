#!/bin/sh
# stats_corpus.sh - conformance of pyprof-stats with Python 3.11's pstats on
# every case of $PYPROF_CORPUS/pstats: each reference output made by a
# `python -c "import pstats; pstats.Stats(F...)[.strip_dirs()][.sort_stats(K)].print_X(N)"`
# command is remade with the equivalent pyprof-stats command line, in a copy
# of the case whose inputs carry the references' mtime, and compared byte
# for byte.  One TAP line per output file.
#
# Where the reference tool failed (Python 3 cannot read Python 2 files) we
# read the file anyway, and compare with the reference that the file's own
# Python (expected/native-py2.*) printed, after the two differences
# formats.md 4.9 documents for Python 2: no space after a bare arrow, and
# hash-ordered dicts (so unsorted listings and ties are compared as sets of
# lines).
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
TOOL="$(cd "$top_builddir" && pwd)/tools/pyprof-stats"

# TAP lines carry no numbers (TAP allows it): the loops run in subshells.
. "$top_srcdir/tests/stats_lib.sh"

if [ ! -d "${PYPROF_CORPUS:-/nonexistent}/pstats" ]; then
    echo "ok 1 # SKIP corpus absent"
    echo "1..1"
    exit 0
fi

work="$top_builddir/tests/stats_corpus.d"
rm -rf "$work"
mkdir -p "$work"
tab=$(printf '\t')

for case_dir in "$PYPROF_CORPUS"/pstats/*/; do
    case_name=$(basename "$case_dir")
    tsv="$case_dir/expected/commands.tsv"
    [ -f "$tsv" ] || continue
    run="$work/$case_name"
    mkdir -p "$run"
    for f in "$case_dir"/*; do
        b=$(basename "$f")
        case "$b" in case.json | expected | source) continue ;; esac
        cp "$f" "$run/$b"
        TZ=UTC touch -d @1704067200 "$run/$b"
    done
    tail -n +2 "$tsv" | while IFS="$tab" read -r output status cwd command; do
        case "$command" in *"import pstats; pstats.Stats("*) ;; *) continue ;; esac
        case "$output" in */*) continue ;; esac # other Pythons' references
        code=$(printf '%s\n' "$command" | sed -n 's/.*-c "\(.*\)" >.*/\1/p')
        # the pstats calls, as pyprof-stats arguments (one per line)
        args=$(translate "$code") || {
            echo "ok - $case_name/$output # SKIP cannot translate: $code"
            continue
        }
        old_ifs=$IFS
        IFS='
'
        set -f # a regular expression is not a file pattern
        # shellcheck disable=SC2086 # one argument per line
        set -- $args
        set +f
        IFS=$old_ifs
        check_run "$case_name/$output" "$case_dir/expected" "$output" "$status" "$run" "$@"
    done
done >"$work/tap.out"
cat "$work/tap.out"
total=$(grep -c '^\(not \)\{0,1\}ok ' "$work/tap.out")
echo "1..$total"
grep -q '^not ok' "$work/tap.out" && exit 1
# keep the work directory only when something failed (distclean must find none)
rm -rf "$work"
exit 0
