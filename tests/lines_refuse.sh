#!/bin/sh
# lines_refuse.sh - pickles that run a command under Python's pickle.load are
# refused by pyprof-lines, which names the opcode and offset, and the command
# never runs.  Python (when present) first proves each payload is live: its
# pickle.load really creates the marker file.
: "${top_builddir:=..}"
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
LINES="$top_builddir/tools/pyprof-lines"
DIR="$top_builddir/tests/lines_refuse.out"
PY=${PYTHON3:-python3}
rm -rf "$DIR"
mkdir -p "$DIR" || exit 1
marker="$DIR/pwned"

if ! "$PY" -c 'import pickle' 2> /dev/null; then
    echo "1..1"
    echo "ok 1 # SKIP no python3 to make the payloads"
    exit 0
fi

# Each payload's __reduce__ makes pickle.load call a function with the
# command; the class names mention LineStats so that the lprof probe takes
# them (as a hostile .lprof would), and -f lprof forces the reader anyway.
"$PY" - "$DIR" "$marker" <<'PYEOF'
import os, pickle, sys
d, marker = sys.argv[1], sys.argv[2]
cmd = 'touch ' + marker

class SystemCall:                      # GLOBAL os.system + REDUCE (protocols 0-3)
    def __reduce__(self):
        return (os.system, (cmd,))

class EvalCall:                        # STACK_GLOBAL builtins.eval + REDUCE (4-5)
    def __reduce__(self):
        return (eval, ("__import__('os').system(%r)" % cmd,))

def wrap(obj):
    # a real-looking LineStats state around the payload
    return {'timings': {('line_profiler._line_profiler', 1, 'LineStats'): obj}, 'unit': 1e-9}

for proto in range(6):
    with open(os.path.join(d, 'system_p%d.lprof' % proto), 'wb') as f:
        pickle.dump(wrap(SystemCall()), f, proto)
with open(os.path.join(d, 'eval_p4.lprof'), 'wb') as f:
    pickle.dump(wrap(EvalCall()), f, 4)
# INST (protocol 0 only): (S'cmd'\n ios\nsystem\n
with open(os.path.join(d, 'inst_p0.lprof'), 'wb') as f:
    f.write(b"(S'line_profiler._line_profiler LineStats'\n0(S'" + cmd.encode() + b"'\nios\nsystem\n.")
PYEOF

set -- "$DIR"/*.lprof
echo "1..$(($# * 3))"
for f in "$@"; do
    name=$(basename "$f")
    rm -f "$marker"
    "$PY" -c 'import pickle, sys; pickle.load(open(sys.argv[1], "rb"))' "$f" > /dev/null 2>&1
    if [ -e "$marker" ]; then
        echo "ok - $name: python3's pickle.load runs the payload"
    else
        echo "not ok - $name: python3's pickle.load did not run the payload"
    fi
    rm -f "$marker"
    "$LINES" -f lprof "$f" > "$DIR/out" 2> "$DIR/err"
    rc=$?
    msg=$(cat "$DIR/err")
    case $msg in
    *"offset "*": pickle opcode "*"refused"*)
        if [ "$rc" = 1 ]; then echo "ok - $name refused: $msg"; else echo "not ok - $name: exit $rc"; fi ;;
    *) echo "not ok - $name: exit $rc, message: $msg" ;;
    esac
    if [ -e "$marker" ]; then
        echo "not ok - $name: the payload ran"
    else
        echo "ok - $name: nothing ran"
    fi
done
rm -rf "$DIR"
