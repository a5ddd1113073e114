#!/bin/sh
# stats_browser.sh - the interactive browser, typed at through a
# pseudo-terminal (tests/stats_pty.py): the transcript of a session equals
# python -m pstats's (tests/golden/stats/browser.txt, from gen_cli.sh), and
# Tab completion, history (Up arrow), the empty line and end of input work.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
T="$(cd "$top_builddir" && pwd)/tools/pyprof-stats"
fix="$top_srcdir/tests/fixtures/stats"
drv="$(cd "$top_srcdir" && pwd)/tests/stats_pty.py"
gold="$(cd "$top_srcdir" && pwd)/tests/golden/stats/browser.txt"
keys="$(cd "$fix" && pwd)/browser.keys"
if [ -z "${PYTHON3:-}" ] || ! "$PYTHON3" -c 'import pty' 2>/dev/null; then
    echo "ok 1 # SKIP no python3 with pty to drive a terminal"
    echo "1..1"
    exit 0
fi
work="$top_builddir/tests/stats_browser.d"
rm -rf "$work"
mkdir -p "$work"
cp "$fix/a.pstats" "$top_srcdir/tests/fixtures/pstats/nonascii_py311.pstats" "$work/"
chmod u+w "$work/a.pstats" "$work/nonascii_py311.pstats"
TZ=UTC touch -d @1704067200 "$work/a.pstats"
cd "$work" || exit 1
n=0
fail=0
check() {
    name=$1
    shift
    n=$((n + 1))
    if "$@"; then echo "ok $n - $name"; else
        echo "not ok $n - $name"
        fail=$((fail + 1))
    fi
}
session() { # session KEYS [ARGS]: the transcript in t.txt
    k=$1
    shift
    printf "$k" | TZ=UTC "$PYTHON3" "$drv" "$T" "$@" >t.txt
}

TZ=UTC "$PYTHON3" "$drv" "$T" a.pstats <"$keys" >session.txt
check "a whole session reads as python -m pstats's" cmp -s session.txt "$gold"
[ $fail = 0 ] || diff "$gold" session.txt | head -n 20 | sed 's/^/# /'

session 'so\\t ti\\t\nstats 1\nquit\n' a.pstats
check "Tab completes the command and the sort key" grep -q 'Ordered by: internal time' t.txt

session 'stats 1\nsort calls\n\\e[A\\e[A\nquit\n' a.pstats
check "Up arrow recalls an earlier line" grep -q 'Ordered by: call count' t.txt

session 'sort calls\nstats 1\n\nquit\n' a.pstats
check "an empty line repeats the last command" [ "$(grep -c 'Ordered by: call count' t.txt)" = 2 ]

session 'stats\n\004\n' a.pstats
check "end of input says Goodbye" grep -q '^Goodbye\.$' t.txt
check "and exits 0" grep -q '^\[exit 0\]$' t.txt

# typed UTF-8 reaches the command whole, whatever locale the environment names
main=$(printf 'm\303\244in') # "main" with a-umlaut, as UTF-8
for loc in C.UTF-8 C; do
    printf 'stats %s\nquit\n' "$main" | LC_ALL=$loc TZ=UTC "$PYTHON3" "$drv" "$T" nonascii_py311.pstats >t.txt
    check "a non-ASCII word typed on a terminal restricts by it (LC_ALL=$loc)" \
        grep -q "List reduced from 2 to 1 due to restriction <'$main'>" t.txt
done

session 'stats\nread a.pstats\nstats 1\nquit\n'
check "without a file: the bare prompt" grep -q '^% stats$' t.txt
check "without a file: nothing is loaded" grep -q '^No statistics object is loaded\.$' t.txt
check "read sets the prompt to the file" grep -q '^a\.pstats% stats 1$' t.txt

echo "1..$n"
cd - >/dev/null || exit 1
# keep the work directory only when something failed (distclean must find none)
[ $fail = 0 ] && rm -rf "$work"
[ $fail = 0 ]
