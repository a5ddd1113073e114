#!/bin/sh
# stats_corpus.sh - conformance of pyprof-stats with Python 3.11's pstats on
# every case of $PYPROF_CORPUS/pstats: each reference output made by a
# `python -c "import pstats; pstats.Stats(F...)[.strip_dirs()][.sort_stats(K)].print_X(N)"`
# command is remade with the equivalent pyprof-stats command line, in a copy
# of the case whose inputs carry the references' mtime, and compared byte
# for byte.  One TAP line per output file.
#
# Where the reference tool failed (Python 3 cannot read Python 2 files) we
# read the file anyway, and compare with the reference that the file's own
# Python (expected/native-py2.*) printed, after the two differences
# formats.md 4.9 documents for Python 2: no space after a bare arrow, and
# hash-ordered dicts (so unsorted listings and ties are compared as sets of
# lines).
set -u
: "${top_builddir:=..}"
TOOL="$(cd "$top_builddir" && pwd)/tools/pyprof-stats"

# numbers are left out (TAP allows it): the loops below run in subshells
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }

# translate CODE: the pyprof-stats arguments for a pstats call chain such as
# pstats.Stats('a', 'b').strip_dirs().sort_stats('time', 'name').print_callers(20, 'fib'),
# one per line.  With Python at hand its parser reads the chain; else sed
# handles the simple shapes (one file list, one key, plain amounts).
translate() {
    if [ -n "${PYTHON3:-}" ]; then
        "$PYTHON3" - "$1" <<'PY'
import ast, sys
call = ast.parse(sys.argv[1].split(";", 1)[1].strip(), mode="eval").body
chain = []
while (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
       and call.func.attr != "Stats"):
    chain.append((call.func.attr, call.args))
    call = call.func.value
if not (isinstance(call, ast.Call) and getattr(call.func, "attr", None) == "Stats"):
    sys.exit(1)
def lit(a):
    if isinstance(a, ast.Attribute):  # SortKey.CUMULATIVE
        return a.attr.lower()
    return ast.literal_eval(a)
out = [lit(a) for a in call.args]
verbs = {"strip_dirs": "strip", "reverse_order": "reverse", "print_stats": "stats",
         "print_callers": "callers", "print_callees": "callees", "sort_stats": "sort",
         "add": "add"}
for name, args in reversed(chain):
    if name not in verbs:
        sys.exit(1)
    out.append(verbs[name])
    out += [lit(a) for a in args]
print("\n".join(repr(x) if isinstance(x, float) else str(x) for x in out))
PY
        return
    fi
    files=$(printf '%s\n' "$1" | sed -n 's/.*Stats(\([^)]*\)).*/\1/p' | tr -d "'," | tr ' ' '\n')
    key=$(printf '%s\n' "$1" | sed -n "s/.*sort_stats('\([a-z]*\)').*/\1/p")
    printer=$(printf '%s\n' "$1" | sed -n 's/.*\.print_\([a-z]*\)(.*/\1/p')
    amount=$(printf '%s\n' "$1" | sed -n 's/.*\.print_[a-z]*(\([0-9.]*\)).*/\1/p')
    printf '%s\n' "$files"
    case "$1" in *strip_dirs*) echo strip ;; esac
    [ -n "$key" ] && printf 'sort\n%s\n' "$key"
    echo "$printer"
    [ -n "$amount" ] && echo "$amount"
    return 0
}

# Everything up to the column titles: file header, totals, order and
# restriction messages.
head_part() { sed -n '1,/ncalls  tottime\|^Function /p' "$1"; }

if [ ! -d "${PYPROF_CORPUS:-/nonexistent}/pstats" ]; then
    echo "ok 1 # SKIP corpus absent"
    echo "1..1"
    exit 0
fi

work="$top_builddir/tests/stats_corpus.d"
rm -rf "$work"
mkdir -p "$work"
tab=$(printf '\t')

for case_dir in "$PYPROF_CORPUS"/pstats/*/; do
    case_name=$(basename "$case_dir")
    tsv="$case_dir/expected/commands.tsv"
    [ -f "$tsv" ] || continue
    run="$work/$case_name"
    mkdir -p "$run"
    for f in "$case_dir"/*; do
        b=$(basename "$f")
        case "$b" in case.json | expected | source) continue ;; esac
        cp "$f" "$run/$b"
        TZ=UTC touch -d @1704067200 "$run/$b"
    done
    tail -n +2 "$tsv" | while IFS="$tab" read -r output status cwd command; do
        case "$command" in *"import pstats; pstats.Stats("*) ;; *) continue ;; esac
        case "$output" in */*) continue ;; esac # other Pythons' references
        code=$(printf '%s\n' "$command" | sed -n 's/.*-c "\(.*\)" >.*/\1/p')
        # the pstats calls, as pyprof-stats arguments (one per line)
        args=$(translate "$code") || {
            echo "ok - $case_name/$output # SKIP cannot translate: $code"
            continue
        }
        old_ifs=$IFS
        IFS='
'
        set -f # a regular expression is not a file pattern
        # shellcheck disable=SC2086 # one argument per line
        set -- $args
        set +f
        IFS=$old_ifs
        if [ "$status" = 0 ] && [ ! -f "$case_dir/expected/$output" ]; then
            echo "ok - $case_name/$output # SKIP reference omitted from this copy of the corpus"
            continue
        fi
        got="$run/$output.got"
        (cd "$run" && TZ=UTC "$TOOL" "$@") >"$got" 2>"$got.err"
        rc=$?
        if [ "$status" = 0 ]; then
            if [ $rc = 0 ] && cmp -s "$got" "$case_dir/expected/$output"; then
                ok "$case_name/$output"
            else
                not_ok "$case_name/$output (pyprof-stats $*: exit $rc)"
                diff "$case_dir/expected/$output" "$got" | head -n 10 | sed 's/^/# /'
            fi
            continue
        fi
        # The reference failed: compare with the file's own Python, if any.
        native=$(ls -d "$case_dir"/expected/native-py*/ 2>/dev/null | head -n 1)
        if [ $rc != 0 ]; then
            not_ok "$case_name/$output: pstats failed here (exit $status), and so did we"
            sed 's/^/# /' "$got.err"
        elif [ -n "$native" ] && [ -f "$native/$output" ]; then
            want="$run/$output.native"
            sed 's/\(<-\|->\)$/\1 /' "$native/$output" >"$want"
            if cmp -s "$got" "$want"; then
                ok "$case_name/$output: pstats fails, we match $(basename "$native")"
            elif [ "$(sort "$got" | md5sum)" = "$(sort "$want" | md5sum)" ]; then
                ok "$case_name/$output: pstats fails, we match $(basename "$native") up to Python 2's hash order"
            elif [ "$(wc -l <"$got")" = "$(wc -l <"$want")" ] &&
                [ "$(head_part "$got")" = "$(head_part "$want")" ]; then
                # ties of a sort picked other rows: Python 2 ordered them by hash
                ok "$case_name/$output: pstats fails; same header, totals, messages and row count as $(basename "$native") (tied rows in Python 2 hash order)"
            else
                not_ok "$case_name/$output: differs from $(basename "$native")"
                diff "$want" "$got" | head -n 10 | sed 's/^/# /'
            fi
        else
            if [ -s "$got" ]; then
                ok "$case_name/$output: pstats fails (exit $status), we print a table"
            else
                not_ok "$case_name/$output: empty output"
            fi
        fi
    done
done >"$work/tap.out"
cat "$work/tap.out"
total=$(grep -c '^\(not \)\{0,1\}ok ' "$work/tap.out")
echo "1..$total"
grep -q '^not ok' "$work/tap.out" && exit 1
# keep the work directory only when something failed (distclean must find none)
rm -rf "$work"
exit 0
