# stats_lib.sh - shared by the pyprof-stats conformance tests (sourced).
#
# translate CODE: the pyprof-stats arguments for a pstats call chain such as
# pstats.Stats('a', 'b').strip_dirs().sort_stats('time', 'name').print_callers(20, 'fib'),
# one per line; "pstats.Stats(F) as s; s.CHAIN" is read as pstats.Stats(F).CHAIN.
# With Python at hand its parser reads the chain; else sed handles the
# simple shapes (one file list, one key, plain amounts).
translate() {
    if [ -n "${PYTHON3:-}" ]; then
        "$PYTHON3" - "$1" <<'PY'
import ast, re, sys
code = sys.argv[1]
code = re.sub(r"^import pstats;\s*", "", code)
code = re.sub(r"^(pstats\.Stats\(.*?\)) as s;\s*s\.", r"\1.", code)
call = ast.parse(code.strip(), mode="eval").body
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
    case "$1" in *reverse_order*) echo reverse ;; esac
    echo "$printer"
    [ -n "$amount" ] && echo "$amount"
    return 0
}

# Everything up to the column titles: file header, totals, order and
# restriction messages.
head_part() { sed -n '1,/ncalls  tottime\|^Function /p' "$1"; }

# same_text GOT WANT: byte-identical, or identical once a code object's
# address (process specific, printed as 0x0 by libpyprof) is set aside:
# the address is replaced and, as the name column's width depends on it,
# runs of spaces are squeezed.
same_text() {
    cmp -s "$1" "$2" && return 0
    grep -q '<code object .* at 0x' "$2" || return 1
    norm() { sed 's/\(<code object [^ ]* at \)0x[0-9a-f]*,/\10x0,/g' "$1" | tr -s ' '; }
    [ "$(norm "$1" | md5sum)" = "$(norm "$2" | md5sum)" ]
}

# check_run NAME WANT_DIR OUTPUT STATUS RUN_DIR ARGS...: run pyprof-stats
# ARGS in RUN_DIR and print one TAP line.  STATUS is the reference's exit
# code; when it failed (Python 3 cannot read Python 2 files; a code-object
# name cannot be sorted) we compare with WANT_DIR/native-py*/OUTPUT, the
# reference of the file's own Python, up to the two differences formats.md
# 4.9 documents for Python 2: no space after a bare arrow, and hash-ordered
# dicts (so unsorted listings and ties compare as sets of lines, or when
# ties picked other rows, by header, totals, messages and row count).
check_run() {
    cr_name=$1 cr_want=$2 cr_out=$3 cr_status=$4 cr_run=$5
    shift 5
    if [ "$cr_status" = 0 ] && [ ! -f "$cr_want/$cr_out" ]; then
        echo "ok - $cr_name # SKIP reference omitted from this copy"
        return
    fi
    cr_got="$cr_run/$(echo "$cr_name" | tr '/' '_').got"
    (cd "$cr_run" && TZ=UTC "$TOOL" "$@") >"$cr_got" 2>"$cr_got.err"
    cr_rc=$?
    if [ "$cr_status" = 0 ]; then
        if [ $cr_rc = 0 ] && same_text "$cr_got" "$cr_want/$cr_out"; then
            echo "ok - $cr_name"
        else
            echo "not ok - $cr_name (pyprof-stats $*: exit $cr_rc)"
            diff "$cr_want/$cr_out" "$cr_got" | head -n 10 | sed 's/^/# /'
        fi
        return
    fi
    cr_native=$(ls -d "$cr_want"/native-py*/ 2>/dev/null | head -n 1)
    if [ $cr_rc != 0 ]; then
        echo "not ok - $cr_name: pstats failed here (exit $cr_status), and so did we"
        sed 's/^/# /' "$cr_got.err"
    elif [ -n "$cr_native" ] && [ -f "$cr_native/$cr_out" ]; then
        cr_n=$(basename "$cr_native")
        sed 's/\(<-\|->\)$/\1 /' "$cr_native/$cr_out" >"$cr_got.native"
        if same_text "$cr_got" "$cr_got.native"; then
            echo "ok - $cr_name: pstats fails, we match $cr_n"
        elif [ "$(sort "$cr_got" | md5sum)" = "$(sort "$cr_got.native" | md5sum)" ] ||
            [ "$(sed 's/\(<code object [^ ]* at \)0x[0-9a-f]*,/\10x0,/g' "$cr_got.native" |
                tr -s ' ' | sort | md5sum)" = "$(tr -s ' ' <"$cr_got" | sort | md5sum)" ]; then
            echo "ok - $cr_name: pstats fails, we match $cr_n up to Python 2's hash order"
        elif [ "$(wc -l <"$cr_got")" = "$(wc -l <"$cr_got.native")" ] &&
            [ "$(head_part "$cr_got")" = "$(head_part "$cr_got.native")" ]; then
            echo "ok - $cr_name: pstats fails; same header, totals, messages and row count as $cr_n (tied rows in Python 2 hash order)"
        else
            echo "not ok - $cr_name: differs from $cr_n"
            diff "$cr_got.native" "$cr_got" | head -n 10 | sed 's/^/# /'
        fi
    elif [ -s "$cr_got" ]; then
        echo "ok - $cr_name: pstats fails (exit $cr_status), we print a table"
    else
        echo "not ok - $cr_name: empty output"
    fi
}
