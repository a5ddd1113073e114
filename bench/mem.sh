#!/bin/sh
# bench/mem.sh - pyprof-mem against mprof (memory_profiler 0.61, matplotlib
# with the Agg backend), in one run on the same machine:
#   plot to PNG and to SVG of mem-60s.dat (a real 60 s mprof run with FUNC
#   lines) and of mem-synth-1m.dat (1,000,000 MEM samples), and `peak` of
#   both.  mprof plot writes PNG only; our SVG is compared with its PNG.
#
# Usage: bench/mem.sh [BUILDDIR [DATADIR]]
#   MPROF=python3-mprof     the peer command (Debian python3-memory-profiler)
#   RUNS=5                  runs per case
#   PEER_RUNS=$RUNS         runs of the peer (it takes seconds per run)
#   ORDER=blocks            each command gets an untimed warm-up run and then
#                           its runs back to back, as hyperfine does;
#                           ORDER=alternate runs ours and the peer's in turn,
#                           which spreads load changes evenly but times each of
#                           our runs right after a second-long Python process
#                           has evicted our libraries from the CPU caches
#                           (about 8 ms more a run here)
#
# Each run is a whole process (posix_spawn + wait4): wall seconds, CPU
# seconds (user + system) and peak RSS.  The table shows the median and the
# best wall time, the median CPU time and the largest RSS; ratios are
# peer / ours (median wall, median CPU), so bigger is better for us.  Ours
# runs as tools/.libs/pyprof-mem with LD_LIBRARY_PATH, not through libtool's
# wrapper script, which alone costs milliseconds.  A loaded machine inflates
# short runs more than long ones: the load average is printed before and
# after, and CPU ratios are the steadier figure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$here/../build}
[ -d "$BUILD/tools" ] || BUILD=$here/.. # an in-tree build
DATA=${2:-$here/../../bench-data}
RUNS=${RUNS:-5}
PEER_RUNS=${PEER_RUNS:-$RUNS}
MPROF=${MPROF:-python3-mprof}
export MPLBACKEND=Agg TZ=UTC

if [ -x "$BUILD/tools/.libs/pyprof-mem" ]; then
    MEM="$BUILD/tools/.libs/pyprof-mem"
    LD_LIBRARY_PATH="$BUILD/libpyprof/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
else
    MEM="$BUILD/tools/pyprof-mem"
fi
[ -x "$MEM" ] || { echo "bench/mem.sh: $MEM not built" >&2; exit 2; }
MPROF_PATH=$(command -v "$MPROF") || { echo "bench/mem.sh: $MPROF not found" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "bench/mem.sh: python3 needed" >&2; exit 2; }
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"' EXIT INT TERM

# bench CASE -- OURS... -- PEER...: RUNS runs of ours, PEER_RUNS of the peer (ORDER)
# prints one table row.
bench() {
    python3 - "$RUNS" "$PEER_RUNS" "$@" <<'EOF'
import os, statistics, sys, time
runs, peer_runs, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
args = sys.argv[4:]
sep = args.index("--", 1)
cmds = {"ours": args[1:sep], "peer": args[sep + 1:]}
res = {"ours": [], "peer": []}
null = os.open(os.devnull, os.O_WRONLY)
quiet = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
def run(argv):
    # posix_spawn (vfork + exec), as hyperfine starts commands: a fork of
    # this Python process would add ~0.9 ms of page-table copying to every
    # run, a few percent of ours and nothing of the peer's
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=quiet)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit("bench/mem.sh: failed (%d): %s" % (status, " ".join(argv)))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0
peer = cmds["peer"] if peer_runs else []
if os.environ.get("ORDER", "blocks") == "alternate":
    for i in range(max(runs, peer_runs)):
        if i < runs:
            res["ours"].append(run(cmds["ours"]))
        if i < peer_runs and peer:
            res["peer"].append(run(peer))
else:
    # hyperfine's way: an untimed warm-up run, then the runs back to back
    run(cmds["ours"])
    res["ours"] = [run(cmds["ours"]) for _ in range(runs)]
    if peer:
        run(peer)
        res["peer"] = [run(peer) for _ in range(peer_runs)]
def stats(v):
    if not v:
        return None
    return (statistics.median(x[0] for x in v), min(x[0] for x in v),
            statistics.median(x[1] for x in v), max(x[2] for x in v))
o, p = stats(res["ours"]), stats(res["peer"])
last = os.path.join(os.environ["TMP"], "peer_last")
line = "%-30s %8.3f %8.3f %8.3f %7.1f" % (name, o[0], o[1], o[2], o[3])
if p:
    line += " | %8.3f %8.3f %7.1f | %6.1f %6.1f" % (p[0], p[2], p[3], p[0] / o[0], p[2] / o[2])
    with open(last, "w") as f:
        f.write("%r %r\n" % (p[0], p[2]))
elif os.environ.get("VS_LAST") and os.path.exists(last):
    pw, pc = map(float, open(last).read().split())
    line += " | %26s | %6.1f %6.1f" % ("(mprof's PNG, row above)", pw / o[0], pc / o[2])
print(line, flush=True)
EOF
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)   ($(nproc) CPUs, $RUNS runs, peer $PEER_RUNS, order ${ORDER:-blocks})"
printf '%-30s %8s %8s %8s %7s | %8s %8s %7s | %6s %6s\n' "" "ours" "" "" "" "mprof" "" "" "ratio" ""
printf '%-30s %8s %8s %8s %7s | %8s %8s %7s | %6s %6s\n' case "wall s" "best s" "CPU s" "MiB" \
    "wall s" "CPU s" "MiB" "wall" "CPU"
for f in mem-60s.dat mem-synth-1m.dat; do
    in="$DATA/$f"
    [ -f "$in" ] || { echo "bench/mem.sh: $in missing (run shared/bench/gen/gen.sh)" >&2; continue; }
    bench "plot $f (PNG)" -- "$MEM" plot "$in" -o "$TMP/ours.png" -- \
        "$MPROF_PATH" plot -o "$TMP/peer.png" "$in" || exit 1
    PEER_RUNS=0 VS_LAST=1 bench "plot $f (SVG)" -- "$MEM" plot "$in" -o "$TMP/ours.svg" -- || exit 1
    bench "peak $f" -- "$MEM" peak "$in" -- "$MPROF_PATH" peak "$in" || exit 1
    "$MEM" peak "$in" >"$TMP/a" 2>&1
    "$MPROF_PATH" peak "$in" >"$TMP/b" 2>&1
    cmp -s "$TMP/a" "$TMP/b" || echo "  (peak text differs from mprof's!)"
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
