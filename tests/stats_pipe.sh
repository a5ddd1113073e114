#!/bin/sh
# stats_pipe.sh - pyprof-stats -i: browser commands piped in print what
# `python -m pstats` prints for the same commands piped in, byte for byte
# (prompts, messages, help texts, tables), on the fixtures; without -i a
# pipe on standard input is never read.
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
T="$(cd "$top_builddir" && pwd)/tools/pyprof-stats"
top="$(cd "$top_srcdir" && pwd)"
fix="$top/tests/fixtures/stats"
. "$top/tests/tap.sh"
if [ -z "${PYTHON3:-}" ] || ! "$PYTHON3" -c 'import pstats' 2>/dev/null; then
    tap_skip "pyprof-stats -i against python -m pstats" "no python3 with pstats to compare with"
    tap_done
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
# session SCRIPT ARGS...: SCRIPT piped into pyprof-stats -i (ours.txt) and
# into python -m pstats (ref.txt), each with its exit status
session() {
    s=$1
    shift
    TZ=UTC "$T" -i "$@" <"$s" >ours.txt 2>&1
    echo "[exit $?]" >>ours.txt
    TZ=UTC "$PYTHON3" -m pstats "$@" <"$s" >ref.txt 2>&1
    echo "[exit $?]" >>ref.txt
}

cp "$fix/browser.keys" keys.txt
printf 'sort time\nstats 3\n\n\ncallees fib\nhelp add\nhelp EOF\nhelp help\nread\nadd\n' >more.txt
printf 'stats\nsort time\nread a.pstats\nadd b.pstats\nsort nfl\nstats 2\nEOF\nstats\n' >eof.txt
printf 'sort calls\nstats .2 .*a\nreverse\ncallers 2\nstrip\ncallees 3' >nonl.txt
: >empty.txt
for f in a b c; do
    for s in keys more nonl empty; do
        session $s.txt $f.pstats
        tap_diff "$f.pstats, $s.txt piped: as python -m pstats" ours.txt ref.txt
    done
done
session eof.txt
tap_diff "no file, read and add in the session: as python -m pstats" ours.txt ref.txt
# python -m pstats cannot read a Python 2 file at all; pyprof-stats -i browses it
TZ=UTC "$T" -i py27.pstats <keys.txt >t.txt 2>&1
tap_check "a Python 2 file, which python -m pstats cannot read, browses" grep -q '^py27\.pstats% ' t.txt

# a command line of 2 MiB is cut at 1 MiB with a warning (memory stays
# bounded), and the commands after it still run
{ head -c 2097152 /dev/zero | tr '\0' x; printf '\nsort time\nstats 1\n'; } >long.txt
"$T" -i a.pstats <long.txt >t.txt 2>err.txt
rc=$?
tap_check "a 2 MiB command line: cut, with a one-line warning naming line 1" \
    sh -c "[ $rc = 0 ] && [ \$(wc -l <err.txt) = 1 ] && grep -q '^pyprof-stats: warning: standard input: line 1: longer than 1048575 bytes' err.txt"
tap_check "...and the commands after it run" grep -q 'Ordered by: internal time' t.txt

# without -i a pipe is not read: the table, no prompt
printf 'sort time\nstats 1\n' | "$T" a.pstats >t.txt 2>&1
tap_check "without -i a piped stdin is not read" sh -c '! grep -q "% " t.txt && grep -q "ncalls" t.txt'
for extra in "stats 1" "--json" "-o x.txt"; do
    # shellcheck disable=SC2086
    "$T" -i $extra a.pstats </dev/null >t.txt 2>&1
    rc=$?
    tap_check "-i with $extra: usage error (2), one message" \
        sh -c "[ $rc = 2 ] && grep -q '^pyprof-stats: -i ' t.txt && [ ! -e x.txt ]"
done

cd - >/dev/null || exit 1
[ "$_tap_failed" = 0 ] && rm -rf "$work"
tap_done
