#!/bin/sh
# stats_pipe.sh - pyprof-stats -i: browser commands piped in print what
# `python -m pstats` prints for the same commands piped in, byte for byte
# (prompts, messages, help texts, tables), on the fixtures; without -i a
# pipe on standard input is never read.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
T="$(cd "$top_builddir" && pwd)/tools/pyprof-stats"
fix="$(cd "$top_srcdir/tests/fixtures/stats" && pwd)"
if [ -z "${PYTHON3:-}" ] || ! "$PYTHON3" -c 'import pstats' 2>/dev/null; then
    echo "ok 1 # SKIP no python3 with pstats to compare with"
    echo "1..1"
    exit 0
fi
work="$top_builddir/tests/stats_pipe.d"
rm -rf "$work"
mkdir -p "$work"
# (not profile.pstats: Python prints its code objects with their memory
# address, "<code object <module> at 0x7f...>", which differs every run)
for f in a b c py27; do
    cp "$fix/$f.pstats" "$work/"
    chmod u+w "$work/$f.pstats"
    TZ=UTC touch -d @1704067200 "$work/$f.pstats"
done
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
# same SCRIPT ARGS...: the two transcripts of SCRIPT piped in, compared
same() {
    s=$1
    shift
    TZ=UTC "$T" -i "$@" <"$s" >ours.txt 2>&1
    echo "[exit $?]" >>ours.txt
    TZ=UTC "$PYTHON3" -m pstats "$@" <"$s" >ref.txt 2>&1
    echo "[exit $?]" >>ref.txt
    cmp -s ours.txt ref.txt || { diff ref.txt ours.txt | head -n 10 | sed 's/^/# /'; false; }
}

cp "$fix/browser.keys" keys.txt
printf 'sort time\nstats 3\n\n\ncallees fib\nhelp add\nhelp EOF\nhelp help\nread\nadd\n' >more.txt
printf 'stats\nsort time\nread a.pstats\nadd b.pstats\nsort nfl\nstats 2\nEOF\nstats\n' >eof.txt
printf 'sort calls\nstats .2 .*a\nreverse\ncallers 2\nstrip\ncallees 3' >nonl.txt
: >empty.txt
for f in a b c; do
    for s in keys more nonl empty; do
        check "$f.pstats, $s.txt piped: as python -m pstats" same $s.txt $f.pstats
    done
done
check "no file, read and add in the session: as python -m pstats" same eof.txt
# Python 3's pstats cannot read a Python 2 file: its error, then ours
TZ=UTC "$T" -i py27.pstats <keys.txt >t.txt 2>&1
check "a Python 2 file, which python -m pstats cannot read, browses" grep -q '^py27\.pstats% ' t.txt

# without -i a pipe is not read: the table, no prompt
printf 'sort time\nstats 1\n' | "$T" a.pstats >t.txt 2>&1
check "without -i a piped stdin is not read" sh -c '! grep -q "% " t.txt && grep -q "ncalls" t.txt'
for extra in "stats 1" "--json" "-o x.txt"; do
    # shellcheck disable=SC2086
    "$T" -i $extra a.pstats </dev/null >t.txt 2>&1
    rc=$?
    check "-i with $extra: usage error (2), one message" \
        sh -c "[ $rc = 2 ] && grep -q '^pyprof-stats: -i ' t.txt && [ ! -e x.txt ]"
done

echo "1..$n"
cd - >/dev/null || exit 1
[ $fail = 0 ] && rm -rf "$work"
[ $fail = 0 ]
