#!/bin/sh
# The mprofile corpus cases, run as their commands.tsv says with pyprof-mem
# in place of python3-mprof, in a writable copy of each case in the build
# directory: `peak` and `list` must print byte-identical text; `plot` must
# succeed (its geometry is checked against matplotlib's in t_mem); the
# @profile report must be read and summarised.
set -u
. "$top_srcdir/tests/tap.sh"
bin="$top_builddir/tools/pyprof-mem"
corpus="${PYPROF_CORPUS:-}"
if [ -z "$corpus" ] || [ ! -d "$corpus/mprofile" ]; then
    tap_skip "mprofile corpus" "corpus absent"
    tap_done
fi
work="$top_builddir/tests/tmp-mem-corpus"
rm -rf "$work"
mkdir -p "$work"
tab=$(printf '\t')
same=0 total=0
export TZ=UTC LC_ALL=C.UTF-8
for case_dir in "$corpus"/mprofile/*/; do
    case_name=$(basename "$case_dir")
    [ -f "$case_dir/expected/commands.tsv" ] || continue
    cp -R "$case_dir" "$work/$case_name"
    chmod -R u+w "$work/$case_name"
    copy="$work/$case_name"
    tail -n +2 "$case_dir/expected/commands.tsv" > "$work/cmds"
    while IFS="$tab" read -r out code cwd cmd; do
        case "$cmd" in
        */python3-mprof\ *) ;;
        *) continue ;;
        esac
        args=${cmd#*/python3-mprof }
        args=${args%% > *}
        case "$args" in
        peak*|list*)
            total=$((total + 1))
            got="$work/$case_name.$out"
            (cd "$copy" && eval "\"\$bin\" $args") > "$got" 2> "$got.err"
            rc=$?
            if [ "$rc" -eq "$code" ] && cmp -s "$got" "$case_dir/expected/$out"; then
                same=$((same + 1))
                tap_ok "$case_name: pyprof-mem $args = expected/$out"
            else
                tap_not_ok "$case_name: pyprof-mem $args = expected/$out (exit $rc)"
                diff -u "$case_dir/expected/$out" "$got" 2>&1 | head -10 | sed 's/^/# /'
            fi
            ;;
        plot*)
            (cd "$copy" && eval "\"\$bin\" $args") > /dev/null 2> "$work/plot.err"
            rc=$?
            png="$copy/expected/$out"
            if [ "$rc" -eq 0 ] && [ "$(head -c 4 "$png" | od -An -c | tr -d ' ')" = "211PNG" ]; then
                tap_ok "$case_name: pyprof-mem $args writes a PNG"
            else
                tap_not_ok "$case_name: pyprof-mem $args writes a PNG (exit $rc)"
                sed 's/^/# /' "$work/plot.err"
            fi
            ;;
        esac
    done < "$work/cmds"
done
echo "# $same of $total peak/list outputs byte-identical"
report="$corpus/mprofile/memory_profiler_line_report/expected/line_report.txt"
if [ -f "$report" ]; then
    "$bin" report "$report" > "$work/report.txt" 2>&1
    if grep -q '150.395        29       1   big_buffers' "$work/report.txt"; then
        tap_ok "report: big_buffers peaks at 150.395 MiB on line 29"
    else
        tap_not_ok "report: big_buffers peaks at 150.395 MiB on line 29"
        sed 's/^/# /' "$work/report.txt"
    fi
fi
[ "$total" -gt 0 ] && tap_ok "corpus cases found ($total)" || tap_not_ok "corpus cases found"
rm -rf "$work"
tap_done
