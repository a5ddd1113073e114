#!/bin/sh
# dot_tool.sh - pyprof-dot as a command: images through Graphviz, the type
# from -T or the -o extension, and the family's conventions for errors,
# exit codes, --help and --version.
. "$top_srcdir/tests/tap.sh"

DOT="${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-dot"
FIX="$top_srcdir/tests/fixtures/dot"
OUT="$top_builddir/tests/dot_tool.out"
rm -rf "$OUT"
mkdir -p "$OUT"

# ---- images -----------------------------------------------------------------
"$DOT" "$FIX/small.pstats" -o "$OUT/g.png"
tap_check "PNG written (type from the -o extension)" test -s "$OUT/g.png"
magic=$(od -An -tx1 -N8 "$OUT/g.png" | tr -d ' \n')
if [ "$magic" = 89504e470d0a1a0a ]; then tap_ok "PNG magic"; else tap_not_ok "PNG magic ($magic)"; fi
# IHDR width and height (bytes 16-23, big-endian): a real graph, not a dot
w=$(od -An -tu1 -j16 -N4 "$OUT/g.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
h=$(od -An -tu1 -j20 -N4 "$OUT/g.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
if [ "$w" -ge 300 ] && [ "$h" -ge 300 ] && [ "$w" -le 20000 ] && [ "$h" -le 20000 ]; then
    tap_ok "PNG is ${w}x${h}"
else
    tap_not_ok "PNG size ${w}x${h}"
fi

"$DOT" -T svg "$FIX/small.pstats" -o "$OUT/g.out"
if command -v xmllint >/dev/null 2>&1; then
    tap_check "SVG (-T svg) is well-formed XML" xmllint --noout "$OUT/g.out"
else
    tap_skip "SVG is well-formed XML" "xmllint absent"
fi
tap_check "SVG has the function nodes" grep -q 'workload:8:fib' "$OUT/g.out"
tap_check "SVG has edges" grep -q 'class="edge"' "$OUT/g.out"

"$DOT" -T pdf "$FIX/small.pstats" >"$OUT/g.pdf"
tap_check "PDF to stdout" grep -q '^%PDF-' "$OUT/g.pdf"
"$DOT" -K neato -T svg "$FIX/small.pstats" -o "$OUT/neato.svg"
tap_check "-K neato lays out" grep -q 'workload:8:fib' "$OUT/neato.svg"
if cmp -s "$OUT/g.out" "$OUT/neato.svg"; then tap_not_ok "-K changes the layout"; else tap_ok "-K changes the layout"; fi

# ---- errors and exit codes --------------------------------------------------
"$DOT" -K no-such-engine -T png "$FIX/small.pstats" -o "$OUT/x.png" 2>"$OUT/err"
rc=$?
if [ $rc -eq 1 ] && grep -q '^pyprof-dot: .*small.pstats: graphviz: layout failed.*no-such-engine' "$OUT/err" &&
    [ "$(wc -l <"$OUT/err")" -eq 1 ]; then
    tap_ok "unknown engine: one-line Graphviz error, exit 1"
else
    tap_not_ok "unknown engine: exit $rc: $(cat "$OUT/err")"
fi
tap_check "a failed render leaves no output file" test ! -e "$OUT/x.png"

"$DOT" -T gif "$FIX/small.pstats" 2>"$OUT/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "unknown type 'gif'" "$OUT/err"; then tap_ok "-T gif: usage error"; else tap_not_ok "-T gif: exit $rc"; fi
"$DOT" -n abc "$FIX/small.pstats" 2>/dev/null
[ $? -eq 2 ] && tap_ok "-n abc: usage error" || tap_not_ok "-n abc: usage error"
"$DOT" -c rainbow "$FIX/small.pstats" 2>/dev/null
[ $? -eq 2 ] && tap_ok "-c rainbow: usage error" || tap_not_ok "-c rainbow: usage error"
"$DOT" --compare "$FIX/small.pstats" 2>/dev/null
[ $? -eq 2 ] && tap_ok "--compare with one file: usage error" || tap_not_ok "--compare with one file"
"$DOT" --focus '(' "$FIX/small.pstats" 2>"$OUT/err" >/dev/null
rc=$?
if [ $rc -eq 2 ] && grep -q 'focus: invalid regular expression' "$OUT/err"; then tap_ok "bad --focus regex: exit 2"; else tap_not_ok "bad --focus regex: exit $rc"; fi
"$DOT" -z 'no_such_function' "$FIX/small.pstats" 2>"$OUT/err" >/dev/null
rc=$?
if [ $rc -eq 2 ] && grep -q "root function 'no_such_function' not found" "$OUT/err"; then tap_ok "-z matching nothing: exit 2"; else tap_not_ok "-z matching nothing: exit $rc"; fi
printf 'not a profile\n' >"$OUT/bad.txt"
"$DOT" "$OUT/bad.txt" 2>"$OUT/err" >/dev/null
rc=$?
if [ $rc -eq 1 ] && grep -q "^pyprof-dot: .*bad.txt" "$OUT/err"; then tap_ok "unreadable input: exit 1 with the file name"; else tap_not_ok "unreadable input: exit $rc"; fi
head -c 700 "$FIX/small.pstats" >"$OUT/trunc.pstats"
"$DOT" -f pstats "$OUT/trunc.pstats" 2>"$OUT/err" >/dev/null
rc=$?
if [ $rc -eq 1 ] && grep -q "trunc.pstats: offset [0-9]*:" "$OUT/err"; then tap_ok "truncated pstats: positioned error, exit 1"; else tap_not_ok "truncated pstats: exit $rc $(cat "$OUT/err")"; fi
lprof=$(ls "$PYPROF_CORPUS"/lprof/*/*.lprof 2>/dev/null | head -1)
if [ -n "$lprof" ]; then
    "$DOT" "$lprof" 2>"$OUT/err" >/dev/null
    rc=$?
    if [ $rc -eq 1 ] && grep -q 'line timings but no calls' "$OUT/err"; then tap_ok "lprof (no call graph): exit 1, says why"; else tap_not_ok "lprof: exit $rc"; fi
else
    tap_skip "lprof (no call graph)" "corpus absent"
fi
cp "$FIX/small.pstats" "$OUT/in.pstats"
"$DOT" "$OUT/in.pstats" -o "$OUT/in.pstats" 2>/dev/null
rc=$?
if [ $rc -eq 2 ] && cmp -s "$FIX/small.pstats" "$OUT/in.pstats"; then tap_ok "refuses to write over its input"; else tap_not_ok "writes over its input (exit $rc)"; fi

# ---- formats and the rest ---------------------------------------------------
"$DOT" -f pstats "$FIX/small.pstats" >"$OUT/f.dot" && "$DOT" "$FIX/small.pstats" >"$OUT/probe.dot"
tap_check "-f pstats equals probing" cmp "$OUT/f.dot" "$OUT/probe.dot"
"$DOT" -f nosuch "$FIX/small.pstats" 2>/dev/null
[ $? -eq 2 ] && tap_ok "-f nosuch: usage error" || tap_not_ok "-f nosuch: usage error"
"$DOT" - <"$FIX/small.pstats" >"$OUT/stdin.dot"
tap_check "standard input ('-') as gprof2dot cannot" cmp "$OUT/stdin.dot" "$OUT/probe.dot"
if command -v zstd >/dev/null 2>&1; then
    zstd -q -c "$FIX/small.pstats" >"$OUT/small.pstats.zst"
    "$DOT" "$OUT/small.pstats.zst" >"$OUT/zst.dot"
    tap_check "zstd-compressed input" cmp "$OUT/zst.dot" "$OUT/probe.dot"
else
    tap_skip "zstd-compressed input" "zstd absent"
fi
# gprof2dot's name "collapse" for folded stacks; probing finds them too
"$DOT" -f collapse "$FIX/pyspy.folded" >"$OUT/collapse.dot"
rc=$?
"$DOT" "$FIX/pyspy.folded" >"$OUT/probed.dot"
if [ $rc -eq 0 ] && grep -q 'workload.py\\nfib' "$OUT/collapse.dot" && cmp -s "$OUT/collapse.dot" "$OUT/probed.dot"; then
    tap_ok "-f collapse (gprof2dot's name) reads folded stacks, as probing does"
else
    tap_not_ok "-f collapse: exit $rc"
fi
# a locale with a decimal comma must not change a single number
if tap_comma_locale "$(cd "$OUT" && pwd)/locale"; then
    LC_ALL=$TAP_COMMA "$DOT" "$FIX/small.pstats" >"$OUT/comma.dot" 2>/dev/null
    tap_check "numbers ignore LC_NUMERIC ($TAP_COMMA)" cmp "$OUT/comma.dot" "$OUT/probe.dot"
else
    tap_skip "numbers ignore LC_NUMERIC" "no decimal-comma locale, and localedef could not build one"
fi
"$DOT" --help >"$OUT/help"
tap_check "--help lists --max-nodes" grep -q -- '--max-nodes' "$OUT/help"
tap_check "--help has an example" grep -q 'Example' "$OUT/help"
"$DOT" --version >"$OUT/version"
tap_check "--version names the tool" grep -q '^pyprof-dot' "$OUT/version"
tap_check "man page exists" test -s "$top_srcdir/tools/pyprof-dot.1"
# keep the outputs only when something failed (make distcheck wants a clean tree)
[ "$_tap_failed" -eq 0 ] && rm -rf "$OUT"
tap_done
