#!/bin/sh
# pyprof-mem against its own fixtures (tests/fixtures/mprofile, made by
# gen.sh with the real mprof): peak/list text byte-identical to mprof's
# goldens, the cases where mprof crashes, error messages and exit codes.
set -u
. "$top_srcdir/tests/tap.sh"
bin="${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-mem"
fx="$top_srcdir/tests/fixtures/mprofile"
golden="$top_srcdir/tests/golden/mem"
work="$top_builddir/tests/tmp-mem-tool"
rm -rf "$work"
mkdir -p "$work"
cp "$fx"/*.dat "$work/"
chmod u+w "$work"/*.dat
export TZ=UTC LC_ALL=C.UTF-8

# mprof peak / list, byte for byte
for f in "$work"/*.dat; do
    name=$(basename "$f" .dat)
    (cd "$work" && "$bin" peak "$name.dat") > "$work/got" 2>&1
    tap_diff "peak $name.dat = mprof peak" "$work/got" "$golden/peak_$name.txt"
done
(cd "$work" && "$bin" peak --func __main__.inner run_python.dat) > "$work/got" 2>&1
tap_diff "peak --func __main__.inner = mprof's" "$work/got" "$golden/peak_func_inner.txt"
(cd "$work" && "$bin" peak --func __main__.nope run_python.dat) > "$work/got" 2>&1
tap_diff "peak --func of an unknown function: NaN, as mprof" "$work/got" "$golden/peak_func_unknown.txt"
(cd "$work" && "$bin" list) > "$work/got" 2>&1
tap_diff "list = mprof list" "$work/got" "$golden/list.txt"

# mprof crashes ("max() arg is an empty sequence") on a function shorter
# than the sampling interval; we answer with its FUNC points
(cd "$work" && "$bin" peak --func __main__.blink run_python.dat) > "$work/got" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^run_python.dat	[0-9.]* MiB$' "$work/got"; then
    tap_ok "peak --func of a too-short function: a number, exit 0"
else
    tap_not_ok "peak --func of a too-short function: a number, exit 0 (exit $rc)"
fi

# no FILE: the newest file, announced as mprof does; indices
newest=$(tail -n 1 "$golden/names.txt")
(cd "$work" && "$bin" peak) > "$work/got" 2>&1
{ echo "Using last profile data."; cat "$golden/peak_${newest%.dat}.txt"; } > "$work/want"
tap_diff "peak without FILE: the newest mprofile_*.dat" "$work/got" "$work/want"
(cd "$work" && "$bin" peak -1) > "$work/got" 2>&1
tap_diff "peak -1: the newest by index" "$work/got" "$golden/peak_${newest%.dat}.txt"

# tables as JSON and CSV
(cd "$work" && "$bin" peak --json run_python.dat) > "$work/got.json" 2>&1
tap_check "peak --json is valid JSON" python3 -m json.tool "$work/got.json"
(cd "$work" && "$bin" list --csv) > "$work/got" 2>&1
tap_check "list --csv has a header and a row per file" \
    test "$(wc -l < "$work/got")" -eq "$(( $(wc -l < "$golden/names.txt") + 1 ))"
"$bin" report --json "$fx/report.txt" > "$work/got.json" 2>&1
tap_check "report --json is valid JSON" python3 -m json.tool "$work/got.json"
"$bin" report "$fx/report.txt" > "$work/got" 2>&1
tap_check "report names the peak of inner" grep -q ' inner (workload.py:15)' "$work/got"

# plots
for t in png svg; do
    "$bin" plot "$work/run_python.dat" -o "$work/p.$t" > /dev/null 2>&1
    tap_check "plot -o .$t" test -s "$work/p.$t"
done
tap_check "plot SVG is well-formed XML" python3 -c \
    "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" "$work/p.svg"
"$bin" plot -f -s --include-children -w 0.1,0.9 -t "a title" "$work"/mprofile_*.dat -o "$work/q.svg" > /dev/null 2>&1
tap_check "plot with several files and every option" grep -q 'a title' "$work/q.svg"

# errors: one line, FILE: line N: reason, exit 1; usage errors exit 2
"$bin" peak "$fx/edge/bad_number.dat" > /dev/null 2> "$work/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "^pyprof-mem: .*bad_number.dat: line 3: MEM line: a field is not a number$" "$work/err" \
    && [ "$(wc -l < "$work/err")" -eq 1 ]; then
    tap_ok "malformed line: 'pyprof-mem: FILE: line N: reason', exit 1"
else
    tap_not_ok "malformed line: 'pyprof-mem: FILE: line N: reason', exit 1 (exit $rc)"
    sed 's/^/# /' "$work/err"
fi
"$bin" plot "$work/run_python.dat" -o "$work/run_python.dat" > /dev/null 2>&1
rc=$?
tap_check "plot refuses to write over its input" test $rc -ne 0 -a "$(head -c 4 "$work/run_python.dat")" = "FUNC"
"$bin" frobnicate > /dev/null 2>&1
tap_check "unknown command: exit 2" test $? -eq 2
"$bin" plot "$work/run_python.dat" > /dev/null 2>&1
tap_check "plot without -o: exit 2" test $? -eq 2
"$bin" plot -w 5,1 "$work/run_python.dat" -o "$work/x.png" > /dev/null 2>&1
tap_check "bad window: exit 2" test $? -eq 2
"$bin" peak "$work/nonexistent.dat" > /dev/null 2>&1
tap_check "missing file: exit 1" test $? -eq 1
"$bin" --help > "$work/got" 2>&1
tap_check "--help: exit 0 with usage" grep -q '^Usage: pyprof-mem' "$work/got"
"$bin" --version > "$work/got" 2>&1
tap_check "--version: exit 0" test -s "$work/got"
rm -rf "$work"
tap_done
