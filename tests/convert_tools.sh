#!/bin/sh
# convert_tools.sh - the conversion tools against the reference tools:
#  - our pstats output, loaded by Python's pstats (python3, and Python 2.7
#    when pyenv has it), prints the same table as the original file;
#  - callgrind_annotate (valgrind) reads our callgrind output, totals checked;
#  - our speedscope output passes the checks of speedscope's importer
#    (formats.md 11.2), written out in Python;
#  - pyprof-merge of N files prints the same table as pstats.Stats.add;
#  - usage errors exit 2, bad data exits 1 with a one-line message.
# Works in the build directory only.
set -u
B=${PYPROF_TOOLS:-${top_builddir:-.}/tools}
FX=${top_srcdir:-..}/tests/fixtures
PY=${PYTHON3:-python3}
PY27=$HOME/.pyenv/versions/2.7.18/bin/python
T=convert_tools.tmp
rm -rf $T && mkdir -p $T
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

cat > $T/table.py <<'PYEOF'
import pstats, re, sys
try:
    from StringIO import StringIO   # Python 2: pstats prints byte strings
except ImportError:
    from io import StringIO
def table(f):
    out = StringIO()
    s = pstats.Stats(f, stream=out)
    s.sort_stats('cumulative').print_stats()
    s.print_callers()
    t = "\n".join(out.getvalue().splitlines()[1:])   # line 1: mtime and file name
    # What our file cannot reproduce, by design (formats.md 2.9, 2.11): the
    # address in a code object's repr, and Python 2 byte strings, which we
    # write as str so that Python 3 does not print b'...'.
    if "<code object" in t:   # the repr's length sets a column width
        t = re.sub(r" at 0x[0-9a-f]+,", " at 0x0,", t)
        t = re.sub(r" +", " ", t)
    if "b'" in t:   # Python 3 does not see b'~' as the built-ins' file
        t = re.sub(r"b'([^']*)'", r"\1", t)
        t = re.sub(r"~:0\(<([^>]*)>\)", r"{\1}", t)
        t = re.sub(r" +", " ", t)
    return t
if len(sys.argv) == 3:
    sys.exit(0 if table(sys.argv[1]) == table(sys.argv[2]) else 1)
# merged: Stats(first) then add(rest) one by one, as pyprof-merge streams
out = StringIO()
s = pstats.Stats(sys.argv[2], stream=out)
for f in sys.argv[3:]:
    s.add(f)
s.sort_stats('cumulative').print_stats()
want = "\n".join(out.getvalue().splitlines()[1:])
got = table(sys.argv[1])
# the header of a merged table lists every input: compare from the totals line on
cut = lambda t: t[t.index("function calls"):]
sys.exit(0 if cut(got).startswith(cut(want)[:len(cut(want))]) or cut(got) == cut(want) else 1)
PYEOF

# --- pstats: Python prints the same table from our file -------------------------------
inputs=""
for f in $FX/pstats/*.pstats $FX/pstats/*.prof "${PYPROF_CORPUS:-/nonexistent}"/pstats/*/*.pstats; do
    [ -f "$f" ] || continue
    # Python 2 byte-string files print as b'...' in Python 3, which our str
    # output deliberately does not reproduce: those are compared under 2.7
    $PY -c "import pstats,sys; sys.exit(any(isinstance(k[0], bytes) for k in pstats.Stats(sys.argv[1]).stats))" "$f" 2>/dev/null || continue
    inputs="$inputs $f"
done
if [ -z "$inputs" ]; then
    skip "no pstats input Python 3 can load"
else
    same=0 total=0
    for f in $inputs; do
        total=$((total + 1))
        if ! $B/pyprof-convert -q "$f" -o $T/o.pstats 2>$T/err; then
            echo "# cannot convert $f: $(cat $T/err)"
        elif $PY $T/table.py "$f" $T/o.pstats 2>$T/err; then
            same=$((same + 1))
        else
            echo "# differs: $f $(head -c 300 $T/err)"
        fi
    done
    echo "# pstats: $same of $total inputs print the same table from our file"
    check "python3 pstats prints the same table from our pstats ($same/$total)" "[ $same = $total ]"
fi
if [ -x "$PY27" ] && [ -f $FX/pstats/cprofile_py27.pstats ]; then
    f=$FX/pstats/cprofile_py27.pstats
    $B/pyprof-convert -q $f -o $T/o27.pstats
    check "Python 2.7 pstats prints the same table from our pstats" \
        "$PY27 $T/table.py $f $T/o27.pstats"
else
    skip "Python 2.7 absent"
fi

# every other CPython that pyenv has (3.6-3.13): our file prints as the original
F311=$FX/pstats/cprofile_py311.pstats
if [ -f $F311 ] && ls $HOME/.pyenv/versions/3.*/bin/python >/dev/null 2>&1; then
    $B/pyprof-convert -q $F311 -o $T/v.pstats
    good=0 all=0
    for py in $HOME/.pyenv/versions/3.*/bin/python; do
        all=$((all + 1))
        if $py $T/table.py $F311 $T/v.pstats 2>/dev/null; then
            good=$((good + 1))
        else
            echo "# $py prints a different table"
        fi
    done
    check "pyenv's Python 3.x ($good/$all) print the same table from our pstats" "[ $good = $all ]"
else
    skip "pyenv Python 3.x absent"
fi

# --- estimated stacks of a cProfile file whose exec sits in an import cycle ----------------
EX=${top_srcdir:-..}/examples/example.pstats
if [ -f $EX ]; then
    $B/pyprof-convert -q $EX -o $T/ex.folded && $B/pyprof-convert -q $EX -o $T/ex.json
    check "estimated folded stacks hold the total self time (within 1%)" "$PY -c '
import json, sys
tot = sum(f[\"tottime\"] for f in json.load(open(\"$T/ex.json\"))[\"functions\"]) * 1e6
got = sum(int(l.rsplit(None, 1)[1]) for l in open(\"$T/ex.folded\") if not l.startswith(\"#\"))
sys.exit(abs(got - tot) > 0.01 * tot)'"
    check "estimated folded stacks are marked in a # line" "head -1 $T/ex.folded | grep -q '^# stacks estimated'"
    # the mark is read back: the file's flame graph says it is an estimate,
    # the line is not reported as malformed, and writing it again keeps it
    $B/pyprof-flame $T/ex.folded -o $T/ex.svg 2> $T/ex.err
    check "a flame graph of estimated folded stacks is titled an estimate" \
        "grep -q 'Flame Graph (estimated)' $T/ex.svg"
    check "the estimate's mark line is not called malformed" "! grep -q 'invalid' $T/ex.err"
    $B/pyprof-convert -q $T/ex.folded -o $T/ex2.folded
    check "estimated folded stacks written again: the same file" "cmp -s $T/ex.folded $T/ex2.folded"
    # speedscope has no such line: the profile's name says it, once
    $B/pyprof-convert -q $EX -o $T/ex.speedscope.json
    $B/pyprof-convert -q $T/ex.speedscope.json -o $T/ex2.speedscope.json
    $B/pyprof-flame $T/ex2.speedscope.json -o $T/ex2.svg 2> /dev/null
    check "estimated speedscope: the name says so once, written again too" "$PY -c '
import json, sys
for f in (\"$T/ex.speedscope.json\", \"$T/ex2.speedscope.json\"):
    n = json.load(open(f))[\"profiles\"][0][\"name\"]
    sys.exit(not n.endswith(\" (stacks estimated from caller ratios)\") or n.count(\"estimated\") != 1)'"
    check "a flame graph of estimated speedscope is titled an estimate" \
        "grep -q 'Flame Graph (estimated)' $T/ex2.svg"
fi

# --- callgrind_annotate reads our callgrind ---------------------------------------------
if command -v callgrind_annotate >/dev/null 2>&1; then
    $B/pyprof-convert -q $FX/convert/p2c.callgrind -o $T/o.callgrind
    tot=$(callgrind_annotate $T/o.callgrind 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
    check "callgrind_annotate: PROGRAM TOTALS is the sum of self ns (got '$tot')" \
        "[ '$tot' = 3185606 ]"
    fib=$(callgrind_annotate --inclusive=yes $T/o.callgrind 2>/dev/null | grep 'prog.py:fib$' | sed 's/^ *\([0-9,]*\) .*/\1/' | tr -d ,)
    check "callgrind_annotate --inclusive: fib = self + calls (got '$fib')" "[ '$fib' = 3356838 ]"
    $B/pyprof-convert -q $FX/convert/yappi.callgrind -o $T/y.callgrind
    check "callgrind_annotate reads the conversion of a yappi file" \
        "callgrind_annotate $T/y.callgrind >/dev/null 2>&1"
else
    skip "callgrind_annotate absent"; skip "callgrind_annotate absent"; skip "callgrind_annotate absent"
fi

# --- speedscope: the importer's checks ----------------------------------------------------
cat > $T/ss.py <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = d["shared"]["frames"]
for f in frames:
    assert isinstance(f["name"], str)
    assert isinstance(f.get("file", ""), str) and isinstance(f.get("line", 0), int)
assert d["profiles"]
units = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}
for p in d["profiles"]:
    assert p["unit"] in units and isinstance(p["name"], str)
    if p["type"] == "sampled":
        assert len(p["samples"]) == len(p["weights"])
        assert all(w >= 0 for w in p["weights"])
        assert all(0 <= i < len(frames) for s in p["samples"] for i in s)
        assert abs(p["endValue"] - p["startValue"] - sum(p["weights"])) <= 1e-9 * max(1, sum(p["weights"]))
    else:
        assert p["type"] == "evented"
        stack, last = [], p["startValue"]
        for e in p["events"]:
            assert e["at"] >= last; last = e["at"]
            if e["type"] == "O": stack.append(e["frame"])
            else: assert stack and stack.pop() == e["frame"]
        assert not stack
PYEOF
for f in $FX/convert/p2c.callgrind $FX/convert/evented.speedscope.json \
    "${PYPROF_CORPUS:-/nonexistent}"/collapsed/austin101_py38_default/austin.txt; do
    [ -f "$f" ] || { skip "$f absent"; continue; }
    $B/pyprof-convert -q "$f" -o $T/o.speedscope.json
    check "speedscope output of $(basename $f) passes the importer's checks" \
        "$PY $T/ss.py $T/o.speedscope.json"
done

# --- merge equals Stats.add -----------------------------------------------------------------
set -- $inputs
if [ $# -ge 3 ]; then
    $B/pyprof-merge -q "$1" "$2" "$3" -o $T/m.pstats
    check "pyprof-merge of 3 files prints the table of Stats.add" \
        "$PY $T/table.py $T/m.pstats '$1' '$2' '$3'"
    printf '%s\n%s\n' "$1" "$2" > $T/list
    $B/pyprof-merge @$T/list --ranks-type csv --ranks-output $T/r.csv
    check "--ranks with an @listfile writes one row per function" \
        "[ \$(wc -l < $T/r.csv) -gt 1 ]"
else
    skip "fewer than 3 pstats inputs"; skip "fewer than 3 pstats inputs"
fi

# --- pyprof-diff --flame equals difffolded.pl (as sets: difffolded.pl prints in hash order) ---
pairs=0
for d in "${PYPROF_CORPUS:-/nonexistent}"/collapsed/diffpair_*; do
    [ -f "$d/expected/difffolded.txt" ] || continue
    set -- $(sed -n 's/.*difffolded\.pl \([^ -][^ ]*\) \([^ ]*\) > expected\/difffolded\.txt$/\1 \2/p' \
        $d/expected/commands.tsv)
    [ $# = 2 ] || continue
    pairs=$((pairs + 1))
    name=$(basename $d)
    $B/pyprof-diff "$d/$1" "$d/$2" --flame $T/d.folded >/dev/null &&
        sort $T/d.folded > $T/got && sort $d/expected/difffolded.txt > $T/want
    check "$name: pyprof-diff --flame .folded = difffolded.pl" "cmp -s $T/got $T/want"
    $B/pyprof-diff --normalize "$d/$1" "$d/$2" --flame $T/dn.folded >/dev/null &&
        sort $T/dn.folded > $T/got && sort $d/expected/difffolded_n.txt > $T/want
    check "$name: --normalize = difffolded.pl -n" "cmp -s $T/got $T/want"
    $B/pyprof-diff "$d/$1" "$d/$2" --flame $T/d.svg >/dev/null
    check "$name: differential flame graph SVG" "grep -q '<svg' $T/d.svg"
done
[ $pairs -gt 0 ] || skip "corpus absent: no difffolded.pl references"
set -- $inputs
if [ $# -ge 2 ]; then
    $B/pyprof-diff "$1" "$2" --flame $T/p.svg >/dev/null
    check "pstats vs pstats: --flame draws estimated stacks" "grep -q '<svg' $T/p.svg"
fi

# --- pyprof-diff -T dot: the graph of gprof2dot --compare (labels compared after dot -Tcanon) --
cmp_cases=0
for d in "${PYPROF_CORPUS:-/nonexistent}"/pstats/*; do
    [ -f "$d/expected/gprof2dot_compare.dot" ] || continue
    command -v dot >/dev/null 2>&1 || break
    set -- $(sed -n 's/.*--compare -o expected\/gprof2dot_compare\.dot \([^ ]*\) \([^ ]*\)$/\1 \2/p' \
        $d/expected/commands.tsv)
    [ $# = 2 ] || continue
    cmp_cases=$((cmp_cases + 1))
    $B/pyprof-diff -T dot "$d/$1" "$d/$2" -o $T/c.dot
    dot -Tcanon $T/c.dot | grep -o 'label="[^"]*"' | sort > $T/got
    dot -Tcanon $d/expected/gprof2dot_compare.dot | grep -o 'label="[^"]*"' | sort > $T/want
    check "$(basename $d): -T dot has the labels of gprof2dot --compare" \
        "[ -s $T/want ] && cmp -s $T/got $T/want"
    $B/pyprof-diff "$d/$1" "$d/$2" -o $T/c.svg
    check "$(basename $d): -o x.svg draws the compare graph" "grep -q '<svg' $T/c.svg"
done
[ $cmp_cases -gt 0 ] || skip "corpus absent: no gprof2dot --compare reference"

# --- merged folded stacks = the stacks of the concatenated files (flamegraph.pl sums them) ---
d="${PYPROF_CORPUS:-/nonexistent}"/collapsed/diffpair_perf_py313
if [ -f "$d/before.folded" ]; then
    $B/pyprof-merge -q "$d/before.folded" "$d/after.folded" -o $T/m.folded
    cat "$d/before.folded" "$d/after.folded" > $T/cat.folded
    $B/pyprof-convert -q $T/cat.folded -o $T/c.folded
    sort $T/m.folded > $T/got && sort $T/c.folded > $T/want
    check "pyprof-merge of two folded files = their concatenation" "cmp -s $T/got $T/want"
else
    skip "corpus absent: no folded pair"
fi

# --- two metrics: only before/after counts become a second column ---------------------------
# (a second column makes a folded line differential for flamegraph.pl)
$B/pyprof-convert $FX/collapsed/austin_full.austin -o $T/full.folded 2> $T/full.err
check "austin full mode to folded: one count a line, the time" \
    "[ \"\$(awk '{print NF}' $T/full.folded | sort -u)\" = 2 ] && grep -qx 'P1;T2;a.py:main:3 10' $T/full.folded"
check "austin full mode to folded: a warning names the dropped metric" "grep -q 'time,memory' $T/full.err"
$B/pyprof-convert -q $FX/collapsed/diff.folded -o $T/diff.folded
check "differential folded stays two counts a line" \
    "[ \"\$(awk '{print NF}' $T/diff.folded | sort -u)\" = 3 ]"

# --- lprof: line times reconciled to one unit; mprofile: series overlaid ------------------
L1=$FX/lprof/kernprof_py311.lprof L2=$FX/lprof/py27_p1.lprof
if [ -f $L1 ] && [ -f $L2 ]; then
    $B/pyprof-convert -q $L1 -o $T/l1.json && $B/pyprof-convert -q $L2 -o $T/l2.json &&
        $B/pyprof-merge -q $L1 $L2 -o $T/l12.json
    check "merged lprof: total line time in seconds is the sum of the inputs'" "$PY -c '
import json, sys
t = lambda f: (lambda d: sum(l[\"time\"] for l in d[\"lines\"]) * d[\"line_unit\"])(json.load(open(f)))
a, b, m = t(\"$T/l1.json\"), t(\"$T/l2.json\"), t(\"$T/l12.json\")
sys.exit(abs(m - a - b) > 1e-12 * max(1, m))'"
else
    skip "lprof fixtures absent"
fi
set -- $FX/mprofile/mprofile_*.dat
if [ $# -ge 2 ] && [ -f "$1" ]; then
    $B/pyprof-merge -q "$1" "$2" -o $T/m.json
    s1=$($B/pyprof-convert -q "$1" -o - -t json | $PY -c 'import json,sys; print(len(json.load(sys.stdin)["memory"]))')
    s2=$($B/pyprof-convert -q "$2" -o - -t json | $PY -c 'import json,sys; print(len(json.load(sys.stdin)["memory"]))')
    sm=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["memory"]))' $T/m.json)
    check "merged mprofile overlays every series ($s1 + $s2 = $sm)" "[ \$(($s1 + $s2)) = '$sm' ]"
else
    skip "mprofile fixtures absent"
fi
$B/pyprof-merge $L1 $FX/convert/p2c.callgrind -o $T/mixed.json 2>$T/err; rc=$?
check "merging profiles of different kinds is refused (exit 1)" "[ $rc = 1 ] && grep -q 'one kind' $T/err"

# --- errors ----------------------------------------------------------------------------------
$B/pyprof-convert $FX/convert/p2c.callgrind -o $T/x.unknown 2>$T/err; rc=$?
check "unknown output type is a usage error (exit 2)" "[ $rc = 2 ]"
printf 'events: ns\nfn=(9)\n' > $T/bad.callgrind
$B/pyprof-convert $T/bad.callgrind -o $T/x.json 2>$T/err; rc=$?
check "bad callgrind: exit 1, one line with the line number" \
    "[ $rc = 1 ] && [ \$(wc -l < $T/err) = 1 ] && grep -q 'line 2' $T/err"
$B/pyprof-convert $FX/convert/p2c.callgrind -o $FX/convert/p2c.callgrind -t callgrind 2>/dev/null; rc=$?
check "refuses to write over its input" "[ $rc = 2 ]"
$B/pyprof-diff $FX/convert/p2c.callgrind $FX/convert/p2c.callgrind >$T/d.txt; rc=$?
check "pyprof-diff of a file with itself: exit 0, no new or vanished rows" \
    "[ $rc = 0 ] && [ \$(sed -n '/^New/,\$p' $T/d.txt | wc -l) = 7 ] && grep -q '^6 unchanged' $T/d.txt"
# --json and --csv are -T json and -T csv, as on the other table-printing tools (cli.md)
$B/pyprof-diff -T json $FX/convert/p2c.callgrind $FX/convert/yappi.callgrind >$T/dj1.json
$B/pyprof-diff --json $FX/convert/p2c.callgrind $FX/convert/yappi.callgrind >$T/dj2.json
check "pyprof-diff --json = -T json, JSON with rows" \
    "cmp -s $T/dj1.json $T/dj2.json && python3 -c 'import json,sys; sys.exit(not json.load(open(\"$T/dj2.json\"))[\"rows\"])'"
$B/pyprof-diff -T csv $FX/convert/p2c.callgrind $FX/convert/yappi.callgrind >$T/dc1.csv
$B/pyprof-diff --csv $FX/convert/p2c.callgrind $FX/convert/yappi.callgrind >$T/dc2.csv
check "pyprof-diff --csv = -T csv, with its header" \
    "cmp -s $T/dc1.csv $T/dc2.csv && head -1 $T/dc2.csv | grep -q '^status,file,line,name,'"
for t in pyprof-convert pyprof-merge pyprof-diff; do
    check "$t --help and --version" "$B/$t --help | grep -q Example && $B/$t --version | grep -q libpyprof"
done
echo "1..$n"
