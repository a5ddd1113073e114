#!/bin/sh
# flame_cli.sh - pyprof-flame as a command: options, outputs, exit codes and
# messages (tools/pyprof-flame.1, ../shared/docs/cli.md).
: "${top_srcdir:=..}" "${top_builddir:=..}"
. "$top_srcdir/tests/tap.sh"
T="${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-flame"
F="$top_srcdir/tests/fixtures/collapsed"
d="$PWD/flame-cli.$$"
mkdir -p "$d" || exit 1
trap 'rm -rf "$d"' EXIT

"$T" --help > "$d/help" 2>&1
tap_check "--help exits 0" "$T" --help
tap_check "--help has an example" grep -q '^Example:' "$d/help"
tap_check "--help names flamegraph.pl's options" grep -q -- '--minwidth X' "$d/help"
tap_check "--version names the library" sh -c "'$T' --version | grep -q '^library: libpyprof'"

"$T" "$F/plain.folded" > "$d/out.svg" 2> "$d/err"
tap_check "SVG on stdout by default" grep -q '<svg ' "$d/out.svg"
if command -v xmllint > /dev/null; then
    tap_check "the SVG is well-formed XML" xmllint --noout "$d/out.svg"
else
    tap_skip "the SVG is well-formed XML" "no xmllint"
fi
tap_check "the SVG has flamegraph.pl's frame tooltips" \
    grep -q '<title>compute (9 samples, 56.25%)</title>' "$d/out.svg"
"$T" "$F/plain.folded" > "$d/again.svg"
tap_diff "the same input gives the same bytes" "$d/again.svg" "$d/out.svg"

"$T" "$F/plain.folded" -o "$d/out.png"
tap_check "-o x.png writes a PNG" sh -c "head -c 8 '$d/out.png' | od -c | grep -q 'P   N   G'"
"$T" -T png "$F/plain.folded" > "$d/stdout.png"
tap_diff "-T png to stdout gives the same PNG" "$d/stdout.png" "$d/out.png"

"$T" "$F/badlines.folded" > /dev/null 2> "$d/err"
tap_check "malformed lines: a warning with their line numbers" \
    grep -q 'warning: .*badlines.folded: ignored 2 lines with invalid format (lines 2,4)' "$d/err"

"$T" "$F/plain.folded" "$F/plain.folded.zst" > "$d/two.svg"
tap_check "several inputs are merged (zstd read as well)" \
    grep -q '<title>all (32 samples, 100%)</title>' "$d/two.svg"
"$T" "$F/utf16le.folded" > "$d/u16.svg"
tap_check "UTF-16 input" grep -q '<title>all (16 samples, 100%)</title>' "$d/u16.svg"
"$T" "$F/austin3.austin" > "$d/austin.svg"
tap_check "austin metadata is not drawn" sh -c "! grep -q '<title># ' '$d/austin.svg'"

# --diff BEFORE AFTER: widths are AFTER's, colours the change of self samples
# (largest change 2 = full red or blue); io vanished, new appeared
printf 'main;parse;read 5\nmain;work;compute 9\nmain;new 2\n' > "$d/after.folded"
"$T" --diff "$F/plain.folded" "$d/after.folded" > "$d/d2.svg"
for want in 'new (2 samples, 12.50%; +12.50%).*fill="rgb(255,0,0)"' \
    'parse (5 samples, 31.25%; -12.50%).*fill="rgb(0,0,255)"' \
    'compute (9 samples, 56.25%; 0.00%).*fill="rgb(255,255,255)"'; do
    tap_check "--diff of two inputs: ${want%%)*})" grep -q "<title>$want" "$d/d2.svg"
done
tap_check "--diff of two inputs: a vanished frame is not drawn" sh -c "! grep -q '<title>io ' '$d/d2.svg'"
"$T" "$F/diff.folded" > "$d/diff.svg"
tap_check "two-count lines: differential tooltips" \
    grep -q '<title>a (12 samples, 75.00%; +12.50%)</title>' "$d/diff.svg"
# +4 of at most 5 (b fell by 5): g = b = int(210 * 1 / 5) = 42
tap_check "two-count lines: growth is red, scaled by the largest change" \
    grep -q '<title>c (4 samples.*fill="rgb(255,42,42)"' "$d/diff.svg"

"$T" --title 'A <title> & more' --countname ms --width 800 "$F/plain.folded" > "$d/t.svg"
tap_check "--title is escaped" grep -q '>A &lt;title&gt; &amp; more<' "$d/t.svg"
tap_check "--width" grep -q 'width="800"' "$d/t.svg"
tap_check "--countname" grep -q '(16 ms, 100%)' "$d/t.svg"

if [ -r "$top_srcdir/tests/fixtures/pstats/cprofile_py311.pstats" ]; then
    "$T" "$top_srcdir/tests/fixtures/pstats/cprofile_py311.pstats" > "$d/est.svg" 2> "$d/err"
    tap_check "pstats: an estimated flame graph, said so" grep -q '(estimated)' "$d/est.svg"
    tap_check "pstats: a warning says it is estimated" grep -q 'estimated' "$d/err"
else
    tap_skip "pstats: an estimated flame graph" "no pstats fixture"
fi

"$T" --bogus "$F/plain.folded" 2> "$d/err"
tap_check "unknown option: exit 2" test $? -eq 2
"$T" "$F/plain.folded" -o "$F/plain.folded" 2> "$d/err"
tap_check "refuses to write over its input: exit 2" test $? -eq 2
"$T" "$d/missing.folded" 2> "$d/err"
tap_check "missing input: exit 1" test $? -eq 1
tap_check "missing input: one line naming the file" \
    sh -c "test \$(wc -l < '$d/err') -eq 1 && grep -q 'missing.folded' '$d/err'"
if [ -w /dev/full ]; then
    # a full disk while the frames are written (2,000 of them, past the
    # output's buffer): our one line, not libxml2's "I/O error" as well
    awk 'BEGIN { for (i = 0; i < 2000; i++) printf "main;f%d 1\n", i }' > "$d/wide.folded"
    "$T" "$d/wide.folded" -o /dev/full 2> "$d/err"
    tap_check "a full disk: exit 1" test $? -eq 1
    tap_check "a full disk: one line naming the file and the reason" \
        sh -c "test \$(wc -l < '$d/err') -eq 1 && grep -q '/dev/full: write failed: No space left' '$d/err'"
else
    tap_skip "a full disk" "no /dev/full"
fi
: > "$d/empty.folded"
"$T" -f collapsed "$d/empty.folded" > /dev/null 2> "$d/err"
tap_check "no valid input: exit 1" test $? -eq 1
# a count of 90 digits: read whole, shown whole (flamegraph.pl's %.0f of
# the double, with commas), written back whole and not called fractional
big=123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890
want=123456789012345682605088655686354621222764112297217511295283277332448749541999975172407296
printf 'a;b %s\n' "$big" > "$d/big.folded"
"$T" "$d/big.folded" > "$d/big.svg"
commas=$(echo "$want" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta')
tap_check "a 90-digit count: every digit in the tooltip" grep -q "<title>b ($commas samples" "$d/big.svg"
"${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-convert" "$d/big.folded" -o "$d/big2.folded" 2> "$d/big.err"
tap_check "a 90-digit count: written back as all its digits" grep -qx "a;b $want" "$d/big2.folded"
tap_check "a 90-digit count: not called fractional" sh -c "! grep -q fractional '$d/big.err'"

tap_done
