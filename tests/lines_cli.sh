#!/bin/sh
# lines_cli.sh - pyprof-lines as a command: help, version, exit codes and
# messages, outputs (-o, --json, --csv), merging, refusing to overwrite inputs.
: "${top_srcdir:=..}" "${top_builddir:=..}"
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
top_srcdir=$(cd "$top_srcdir" && pwd) || exit 1
LINES="${PYPROF_TOOLS:-$top_builddir/tools}/pyprof-lines"
FIX="$top_srcdir/tests/fixtures/lprof"
DIR="$top_builddir/tests/lines_cli.out"
rm -rf "$DIR"
mkdir -p "$DIR" || exit 1
n=0
fails=0
check() { # check NAME COND...
    name=$1
    shift
    n=$((n + 1))
    if "$@"; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name"
        fails=$((fails + 1))
        sed 's/^/# /' "$DIR/err" 2> /dev/null | head -5
    fi
}
run() { # run ARGS... : exit status in $rc, output in out/err
    "$LINES" "$@" > "$DIR/out" 2> "$DIR/err"
    rc=$?
}
has() { grep -q -- "$2" "$DIR/$1"; }

run --help
check "--help exits 0 with usage, options and an example" \
    test $rc = 0 -a -n "$(grep '^Usage: pyprof-lines' "$DIR/out")" -a -n "$(grep -- '--source-root' "$DIR/out")" -a -n "$(grep '^Example' "$DIR/out")"
run --version
check "--version names the tool and the library" test $rc = 0 -a -n "$(grep '^library: libpyprof' "$DIR/out")"
run
check "no input is a usage error (2)" test $rc = 2
run -u 0 "$FIX/kernprof_py311.lprof"
check "-u 0 is a usage error (2)" test $rc = 2
run -u abc "$FIX/kernprof_py311.lprof"
check "-u abc is a usage error (2)" test $rc = 2
run --bogus "$FIX/kernprof_py311.lprof"
check "an unknown option is a usage error (2)" test $rc = 2
run "$DIR/missing.lprof"
check "a missing file is a data error (1), one line, named" \
    test $rc = 1 -a "$(wc -l < "$DIR/err")" = 1 -a -n "$(grep "^pyprof-lines: $DIR/missing.lprof: " "$DIR/err")"
head -c 100 "$FIX/kernprof_py311.lprof" > "$DIR/cut.lprof"
run "$DIR/cut.lprof"
check "a truncated file: 'TOOL: FILE: offset N: reason', exit 1" \
    test $rc = 1 -a -n "$(grep "^pyprof-lines: $DIR/cut.lprof: offset [0-9]*: .*truncated" "$DIR/err")"
printf 'not a profile\n' > "$DIR/text.lprof"
run "$DIR/text.lprof"
check "a text file is not taken for an lprof" test $rc = 1

cp "$FIX/kernprof_py311.lprof" "$DIR/in.lprof"
run -o "$DIR/in.lprof" "$DIR/in.lprof"
check "-o over an input is refused and the input kept" \
    cmp -s "$DIR/in.lprof" "$FIX/kernprof_py311.lprof"
check "  ... with exit 1" test $rc = 1

(cd "$FIX" && "$LINES" -o "$DIR/report.txt" kernprof_py311.lprof)
check "-o FILE writes the report" cmp -s "$DIR/report.txt" "$top_srcdir/tests/golden/lprof/kernprof_py311.txt"
run -o "$DIR/t.json" "$FIX/kernprof_py311.lprof"
check "-o X.json writes JSON" has t.json '"functions": \['
run --csv "$FIX/kernprof_py311.lprof"
check "--csv writes CSV" has out '^file,function,first_line,line,hits,time_s,time_per_hit_s$'
run -T json "$FIX/kernprof_py311.lprof"
check "-T json" has out '"unit": 1e-09'

# zstd-compressed input and standard input read like the file itself
if command -v zstd > /dev/null 2>&1; then
    zstd -q -c "$FIX/kernprof_py311.lprof" > "$DIR/k.lprof.zst"
    (cd "$FIX" && "$LINES" "$DIR/k.lprof.zst") > "$DIR/out" 2> "$DIR/err"
    check "a zstd-compressed lprof gives the same report" \
        cmp -s "$DIR/out" "$top_srcdir/tests/golden/lprof/kernprof_py311.txt"
fi
(cd "$FIX" && "$LINES" - < kernprof_py311.lprof) > "$DIR/out" 2> "$DIR/err"
check "standard input (-) gives the same report" \
    cmp -s "$DIR/out" "$top_srcdir/tests/golden/lprof/kernprof_py311.txt"

# two files: hits and times add up per line (here the same run twice)
run --csv "$FIX/kernprof_py311.lprof" "$FIX/py311_p0.lprof"
line=$(grep '^workload.py,loops,8,15,' "$DIR/out")
check "merging two files sums hits per line ($line)" test "$(echo "$line" | cut -d, -f5)" = 400

# JSON agrees with Python's own reading of the same pickle (trusted fixture)
PY=${PYTHON3:-python3}
if "$PY" -c 'import json, pickle' 2> /dev/null; then
    run --json "$FIX/py311_p0.lprof"
    "$PY" - "$DIR/out" "$FIX/py311_p0.lprof" > "$DIR/err" 2>&1 <<'PYEOF'
import json, pickle, sys, types
ours = json.load(open(sys.argv[1]))
class LineStats:  # the fixture's class, without importing line_profiler
    pass
class U(pickle.Unpickler):
    def find_class(self, mod, name):
        if name == 'LineStats':
            return LineStats
        return super().find_class(mod, name)
ref = U(open(sys.argv[2], 'rb')).load()
assert ours['unit'] == ref.unit, (ours['unit'], ref.unit)
funcs = ours['functions']
assert [(f['file'], f['line'], f['name']) for f in funcs] == list(ref.timings), 'keys'
for f, (key, rows) in zip(funcs, ref.timings.items()):
    got = [(l['line'], l['hits'], l['time']) for l in f['lines']]
    want = [(l, h, t * ref.unit) for l, h, t in rows]
    assert got == want, (key, got, want)
PYEOF
    check "JSON equals python3's pickle.load of the same file" test $? = 0
fi

echo "1..$n"
[ $fails = 0 ] && rm -rf "$DIR"
exit 0
