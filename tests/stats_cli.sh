#!/bin/sh
# stats_cli.sh - pyprof-stats as a command: options, usage errors (exit 2),
# bad input (exit 1, one line "pyprof-stats: FILE: offset N: reason"),
# -o written atomically and never over an input, zstd input, --json/--csv.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
T="${PYPROF_TOOLS:-$(cd "$top_builddir" && pwd)/tools}/pyprof-stats"
fix="$top_srcdir/tests/fixtures/stats"
work="$top_builddir/tests/stats_cli.d"
rm -rf "$work"
mkdir -p "$work"
cp "$fix/a.pstats" "$fix/b.pstats" "$work/"
chmod u+w "$work"/*.pstats
. "$top_srcdir/tests/tap.sh" # (for tap_comma_locale)
cd "$work" || exit 1
n=0
fail=0
check() { # check NAME CONDITION...
    name=$1
    shift
    n=$((n + 1))
    if "$@"; then echo "ok $n - $name"; else
        echo "not ok $n - $name"
        fail=$((fail + 1))
    fi
}
run() { "$T" "$@" >out.txt 2>err.txt; echo $? >rc.txt; }
rc_is() { [ "$(cat rc.txt)" = "$1" ]; }
err_is() { [ "$(cat err.txt)" = "$1" ]; }
lines_of() { [ "$(wc -l <"$1")" -eq "$2" ]; }

run --help
check "--help exits 0 with a usage line" rc_is 0
check "--help shows an example" grep -q '^  pyprof-stats prog.prof sort cumtime 20' out.txt
run --version
check "--version exits 0" rc_is 0
check "--version names the library" grep -q '^library: libpyprof' out.txt

run
check "no input: usage error" rc_is 2
run --bogus a.pstats
check "unknown option: exit 2" rc_is 2
check "unknown option: one message line + hint" lines_of err.txt 2
run a.pstats sort
check "sort without a key: exit 2" rc_is 2
check "sort without a key lists the keys" grep -q '^cumulative -- cumulative time$' err.txt
run a.pstats sort bogus
check "sort with an unknown key: exit 2" rc_is 2
run a.pstats stats 1.5
check "fraction outside [0, 1]: exit 2" rc_is 2
check "with pstats' message" grep -q 'Fraction argument must be in \[0, 1\]' err.txt
run a.pstats add
check "add without FILE: exit 2" rc_is 2
run a.pstats sort cumtime 1.5
check "usage errors come before any output" [ ! -s out.txt ]
run -f nosuch a.pstats
check "unknown format name: exit 2" rc_is 2

run missing.pstats
check "missing file: exit 1" rc_is 1
check "missing file: one line naming it" err_is "pyprof-stats: missing.pstats: cannot open: No such file or directory"
head -c 200 a.pstats >trunc.pstats
run trunc.pstats
check "truncated file: exit 1" rc_is 1
check "truncated file: FILE: offset N: reason" grep -q '^pyprof-stats: trunc.pstats: offset [0-9]*: ' err.txt
check "truncated file: one line" lines_of err.txt 1
printf '\211PNG\r\n\032\n\000\000\000\rIHDR' >image.png
run image.png
check "another format: exit 1" rc_is 1
check "another format: says what it looks like" grep -q 'PNG image' err.txt
lprof="$top_srcdir/tests/fixtures/lprof/kernprof_py311.lprof"
if [ -f "$lprof" ]; then
    run "$lprof"
    check "line timings (lprof): exit 1" rc_is 1
    check "line timings (lprof): says what the file is" grep -q 'this is lprof data, which has no function table' err.txt
else
    n=$((n + 1))
    echo "ok $n # SKIP no lprof fixture in this tree"
fi
printf 'main;fib;fib 3\nmain;len 1\n' >stacks.folded
run stacks.folded sort cumulative
if grep -q 'unrecognised format' err.txt; then
    n=$((n + 1))
    echo "ok $n # SKIP no folded-stacks reader in this tree"
else
    check "folded stacks: their call graph is derived and tabled" grep -q '^        4    0.000    0.000    4.000    1.000 :0(main)$' out.txt
fi
run a.pstats add trunc.pstats
check "bad file in add: exit 1" rc_is 1
check "bad file in add: no partial table" [ ! -s out.txt ]

run a.pstats sort cumtime 5
cp out.txt want.txt
run -o result.txt a.pstats sort cumtime 5
check "-o: exit 0" rc_is 0
check "-o: nothing on stdout" [ ! -s out.txt ]
check "-o: file holds the table" cmp -s result.txt want.txt
run -o a.pstats a.pstats stats
check "-o over an input: refused, exit 2" rc_is 2
check "-o over an input: input intact" cmp -s a.pstats "$fix/a.pstats"
run -o b.pstats a.pstats add b.pstats
check "-o over an added file: refused" rc_is 2

if command -v zstd >/dev/null 2>&1; then
    zstd -q -c a.pstats >a.pstats.zst
    run a.pstats.zst sort cumtime 5
    sed 's/a\.pstats\.zst$/a.pstats/' out.txt | tail -n +2 >z.txt
    tail -n +2 want.txt >w.txt
    check "zstd input reads transparently" cmp -s z.txt w.txt
else
    n=$((n + 1))
    echo "ok $n # SKIP zstd not installed"
fi

run --csv a.pstats sort cumtime 3
check "--csv: exit 0" rc_is 0
check "--csv: header" [ "$(head -n 1 out.txt)" = "$(printf 'file,line,function,label,ncalls,primcalls,tottime,tottime_percall,cumtime,cumtime_percall\r')" ]
check "--csv: header and 3 rows" lines_of out.txt 4
run --csv a.pstats callers
check "--csv with callers: usage error" rc_is 2
run --json a.pstats sort cumtime callers 2
check "--json: exit 0" rc_is 0
if [ -n "${PYTHON3:-}" ]; then
    check "--json: valid JSON with 2 rows and their callers" "$PYTHON3" -c '
import json, sys
d = json.load(open("out.txt"))
assert d["order"] == "cumulative time" and len(d["rows"]) == 2, d
assert all("callers" in r and "callees" in r for r in d["rows"])
assert d["files"] == ["a.pstats"]'
else
    check "--json: has rows" grep -q '"rows": \[' out.txt
fi

run -o top.csv a.pstats sort cumtime 3
check "-o FILE.csv exports CSV" grep -q '^file,line,function,label' top.csv
run -T json a.pstats stats 1
check "-T json exports JSON" grep -q '^{"files": \["a.pstats"\]' out.txt
run -T svg a.pstats
check "-T with a type the tool cannot write: exit 2" rc_is 2

run a.pstats b.pstats
check "two files: two header lines, in Stats(a, b) order" [ "$(head -n 2 out.txt | sed 's/.*    //' | tr '\n' ' ')" = "a.pstats b.pstats " ]
run a.pstats sort time
check "sort without a printing command prints the whole table at the end" grep -q 'Ordered by: internal time' out.txt
if tap_comma_locale "$(pwd)/locale"; then
    LC_ALL=$TAP_COMMA "$T" a.pstats stats 2 >de.txt 2>/dev/null
    "$T" a.pstats stats 2 >c.txt
    check "numbers do not follow LC_NUMERIC ($TAP_COMMA)" cmp -s de.txt c.txt
else
    n=$((n + 1))
    echo "ok $n - numbers do not follow LC_NUMERIC # SKIP no decimal-comma locale"
fi

echo "1..$n"
cd - >/dev/null || exit 1
# keep the work directory only when something failed (distclean must find none)
[ $fail = 0 ] && rm -rf "$work"
[ $fail = 0 ]
