#!/bin/sh
# dot_corpus.sh - pyprof-dot against gprof2dot's real output on the corpus.
#
# For every pstats case with gprof2dot_*.dot references (default options,
# "-n 0 -e 0", "--colour-nodes-by-selftime", and "--compare"), our DOT must
# describe the same graph: the same node ids, labels, colours, sizes and
# tooltips, and the same edges.  Our DOT is written by Graphviz's agwrite,
# gprof2dot prints its own, so the two texts differ in layout (attribute
# order, line breaks, quoting of numbers); dot_canon.py parses both and
# compares the graphs, and also accepts a graph equal after renumbering.
#
# Where gprof2dot failed (exit code != 0 in commands.tsv: Python 2 marshal,
# int caller counts, ...), pyprof-dot must still draw a real graph.
. "$top_srcdir/tests/tap.sh"

DOT="$top_builddir/tools/pyprof-dot"
CANON="$top_srcdir/tests/dot_canon.py"
OUT="$top_builddir/tests/dot_corpus.out"
CORPUS="$PYPROF_CORPUS/pstats"

if [ ! -d "$CORPUS" ]; then
    tap_skip "pstats corpus" "corpus absent"
    tap_done
fi
if [ -z "$PYTHON3" ]; then
    tap_skip "pstats corpus" "python3 absent"
    tap_done
fi
rm -rf "$OUT"
mkdir -p "$OUT"

matched=0
total=0
for case_dir in "$CORPUS"/*/; do
    case_dir=${case_dir%/}
    c=$(basename "$case_dir")
    tsv="$case_dir/expected/commands.tsv"
    [ -f "$tsv" ] || continue
    # output, exit code, cwd, command; the input is the last word(s) of the command
    grep '^gprof2dot_[a-z0-9_]*\.dot	' "$tsv" >"$OUT/cmds"
    while IFS='	' read -r ref code cwd cmd; do
        name=${ref%.dot}
        case $name in
        gprof2dot_default) opts="" ;;
        gprof2dot_n0_e0) opts="-n 0 -e 0" ;;
        gprof2dot_selftime) opts="--colour-nodes-by-selftime" ;;
        gprof2dot_compare) opts="--compare" ;;
        *) continue ;;
        esac
        # the input files: what follows the "-o expected/X.dot" of the command
        inputs=$(printf '%s\n' "$cmd" | sed 's/.* -o expected\/[^ ]* //')
        args=""
        for f in $inputs; do args="$args $case_dir/$f"; done
        got="$OUT/$c-$name.dot"
        # shellcheck disable=SC2086
        "$DOT" -f pstats $opts -o "$got" $args 2>"$got.err"
        rc=$?
        if [ "$code" != 0 ]; then
            # gprof2dot failed here; we must draw the graph anyway
            # agwrite puts "ID<TAB>[" for nodes, "A -> B<TAB>[" for edges
            nodes=$(grep -c '^	[0-9]*	\[' "$got" 2>/dev/null)
            edges=$(grep -c '^	[0-9]* -> [0-9]*	\[' "$got" 2>/dev/null)
            # pystone's main loop must be there, with percentages and counts
            named=$(grep -c 'label="pystone:[0-9]*:Proc[0-9]\\n[0-9.]*%\\n([0-9.]*%)\\n[0-9]*×"' "$got" 2>/dev/null)
            if [ $rc -eq 0 ] && [ "${nodes:-0}" -ge 5 ] && [ "${edges:-0}" -ge 3 ] && [ "${named:-0}" -ge 3 ]; then
                tap_ok "$c $name: gprof2dot failed (exit $code), we draw $nodes nodes ($named pystone ProcN), $edges edges"
            else
                tap_not_ok "$c $name: gprof2dot failed (exit $code), and so do we (exit $rc)"
                sed 's/^/# /' "$got.err"
            fi
            continue
        fi
        if [ ! -s "$case_dir/expected/$ref" ]; then
            tap_skip "$c $name" "reference omitted from this copy of the corpus"
            continue
        fi
        total=$((total + 1))
        if [ $rc -ne 0 ]; then
            tap_not_ok "$c $name: pyprof-dot exit $rc"
            sed 's/^/# /' "$got.err"
            continue
        fi
        if "$PYTHON3" "$CANON" "$got" "$case_dir/expected/$ref" >"$got.cmp" 2>&1; then
            if cmp -s "$got" "$case_dir/expected/$ref"; then
                how="byte-identical"
            else
                how=$(head -1 "$got.cmp")
            fi
            tap_ok "$c $name: $how"
            matched=$((matched + 1))
        else
            tap_not_ok "$c $name: graphs differ"
            head -12 "$got.cmp" | sed 's/^/# /'
        fi
    done <"$OUT/cmds"
done
# the summary the project reports
echo "# corpus: $matched of $total gprof2dot DOT references matched"
tap_done
