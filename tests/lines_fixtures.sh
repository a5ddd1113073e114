#!/bin/sh
# lines_fixtures.sh - pyprof-lines against line_profiler 4.0.2's reports of the
# project's own fixtures (tests/fixtures/lprof/gen.sh made both): pickle
# protocols 0-5, Python 2.7/3.6/3.11/3.13, the three LineStats class paths,
# a Latin-1 source, -u/-z, and missing sources.
# golden/lprof/NAME[_VARIANT].txt is the report of fixtures/lprof/NAME.lprof,
# with VARIANT u1e-3 (-u 1e-3), u1 (-u 1), z (-z) or nosource (no sources).
: "${top_srcdir:=..}" "${top_builddir:=..}"
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
top_srcdir=$(cd "$top_srcdir" && pwd) || exit 1
LINES="${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-lines"
FIX="$top_srcdir/tests/fixtures/lprof"
OUT="$top_builddir/tests/lines_fixtures.out"
mkdir -p "$OUT" || exit 1

set -- "$top_srcdir"/tests/golden/lprof/*.txt
echo "1..$(($# + 2))"
for ref in "$@"; do
    name=$(basename "$ref" .txt)
    opts= dir=$FIX
    case $name in
    *_u1e-3) opts="-u 1e-3" name=${name%_u1e-3} ;;
    *_u1) opts="-u 1" name=${name%_u1} ;;
    *_z) opts="-z" name=${name%_z} ;;
    *_nosource) opts="--no-search" name=${name%_nosource} dir=$OUT ;;
    esac
    got="$OUT/$(basename "$ref")"
    # the profiles record "workload.py": run where line_profiler ran
    # shellcheck disable=SC2086 # opts is a word list
    (cd "$dir" && "$LINES" $opts "$FIX/$name.lprof") > "$got" 2> "$got.err"
    rc=$?
    if [ "$rc" = 0 ] && cmp -s "$got" "$ref"; then
        echo "ok - $(basename "$ref")"
    else
        : > "$OUT/FAILED"
        echo "not ok - $(basename "$ref"): exit $rc"
        diff "$ref" "$got" | head -10 | sed 's/^/# /'
        sed 's/^/# /' "$got.err"
    fi
done
# Beyond line_profiler: run elsewhere, the sources are found under
# --source-root, or next to the profile.
ref="$top_srcdir/tests/golden/lprof/kernprof_py311.txt"
for how in "--no-search --source-root $FIX" ""; do
    # shellcheck disable=SC2086 # how is a word list
    (cd "$OUT" && "$LINES" $how "$FIX/kernprof_py311.lprof") > "$OUT/found.txt" 2>&1
    if cmp -s "$OUT/found.txt" "$ref"; then
        echo "ok - sources found from elsewhere (${how:-next to the profile})"
    else
        : > "$OUT/FAILED"
        echo "not ok - sources found from elsewhere (${how:-next to the profile})"
        diff "$ref" "$OUT/found.txt" | head -10 | sed 's/^/# /'
    fi
done

# keep the outputs only when something differed
[ -e "$OUT/FAILED" ] || rm -rf "$OUT"
