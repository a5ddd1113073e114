#!/bin/sh
# stats_golden.sh - pyprof-stats command lines against what Python's pstats
# printed for the same files (tests/fixtures/stats/cli.tsv, references made
# by tests/fixtures/stats/gen_cli.sh): cProfile files of Python 3.11 and
# 2.7 and of the pure-Python profile module, merged files, add/read, chains
# of commands.  Inputs get the references' mtime (TZ=UTC) in a copy in the
# build directory, so the header lines match too.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
TOOL="${PYPROF_TOOLS:-$(cd "$top_builddir" && pwd)/tools}/pyprof-stats"
fix="$top_srcdir/tests/fixtures/stats"
gold="$top_srcdir/tests/golden/stats"
work="$top_builddir/tests/stats_golden.d"
rm -rf "$work"
mkdir -p "$work"
cp "$fix"/*.pstats "$work"
chmod u+w "$work"/*.pstats
for f in "$work"/*.pstats; do TZ=UTC touch -d @1704067200 "$f"; done
n=0
fail=0
tab=$(printf '\t')
while IFS="$tab" read -r name args ref python; do
    case "$name" in '#'* | '') continue ;; esac
    n=$((n + 1))
    # shellcheck disable=SC2086 # the arguments are words
    (cd "$work" && TZ=UTC "$TOOL" $args) >"$work/$name.got" 2>"$work/$name.err"
    rc=$?
    if [ "${python:-}" = python2.7 ]; then
        # Python 2 prints no space after an arrow that ends a line (formats.md 4.9)
        sed 's/\(<-\|->\) $/\1/' "$work/$name.got" >"$work/$name.cmp"
    else
        cp "$work/$name.got" "$work/$name.cmp"
    fi
    if [ $rc = 0 ] && cmp -s "$work/$name.cmp" "$gold/cli_$name.txt"; then
        echo "ok $n - pyprof-stats $args"
    else
        fail=$((fail + 1))
        echo "not ok $n - pyprof-stats $args (exit $rc)"
        diff "$gold/cli_$name.txt" "$work/$name.cmp" | head -n 20 | sed 's/^/# /'
    fi
done <"$fix/cli.tsv"

# Where pstats fails, we do better: the profile module's code-object name
# sorts by name as the text it prints as (pstats: TypeError).
n=$((n + 1))
(cd "$work" && TZ=UTC "$TOOL" profile.pstats sort name stats) >"$work/name.got" 2>&1
if [ $? = 0 ] && grep -q 'profile:0(<code object <module> at 0x0, file "prog.py", line 1>)' \
    "$work/name.got" && grep -q 'Ordered by: function name' "$work/name.got"; then
    echo "ok $n - profile-module file sorts by name (pstats raises TypeError)"
else
    echo "not ok $n - profile-module file sorts by name"
    fail=$((fail + 1))
fi
echo "1..$n"
# keep the work directory only when something failed (distclean must find none)
[ $fail = 0 ] && rm -rf "$work"
[ $fail = 0 ]
