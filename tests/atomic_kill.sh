#!/bin/sh
# atomic_kill.sh - nothing lost when a run is killed: each tool that writes
# with -o is started on a large input over an existing output file and sent
# SIGKILL, SIGTERM or SIGHUP at a random moment (seeded, spread over the
# whole run: reading, laying out, writing).  Afterwards the output must be
# either the old file, byte for byte, or the complete new one (equal to an
# uninterrupted run); never missing, empty or cut short.  Outputs go to a
# temporary file in the same directory that is renamed over the target only
# when complete; a run stopped by a signal it can catch removes that file
# too (only SIGKILL may leave one behind).
set -u
: "${top_srcdir:=..}" "${top_builddir:=..}"
. "$top_srcdir/tests/tap.sh"
TOOLS=${PYPROF_TOOLS:-$top_builddir/tools}
# the programs themselves, not libtool's wrappers: a kill must hit the tool
[ -x "$TOOLS/.libs/pyprof-flame" ] && {
    LD_LIBRARY_PATH="$top_builddir/libpyprof/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
    TOOLS=$TOOLS/.libs
}
KILLS=${PYPROF_KILLS:-12}
W="$top_builddir/tests/atomic_kill.d"
rm -rf "$W"
mkdir -p "$W"

# 4,000 random stacks (seeded): 1 MB in, up to 10 MB out.  Frames are
# drawn per depth, so the call graph has no cycles (gprof2dot's cycle
# integration, which pyprof-dot follows, is quadratic in a cycle's size).
awk 'BEGIN { srand(7)
    for (i = 0; i < 4000; i++) {
        d = 5 + int(rand() * 15); s = "main (app.py:1)"
        for (j = 0; j < d; j++)
            s = s ";f" j "_" int(rand() * rand() * 300) " (mod" j ".py:" int(rand() * 9) * 7 + 1 ")"
        print s, 1 + int(rand() * 5)
    } }' > "$W/in.folded"

now() { date +%s.%N; }

# try NAME EXT TOOL ARGS... (OUT stands for the output path)
try() {
    name=$1 ext=$2 tool=$3
    shift 3
    out="$W/$name.$ext"
    for a; do # OUT -> the output path, in place in "$@"
        shift
        [ "$a" = OUT ] && a=$out
        set -- "$@" "$a"
    done
    rm -f "$out"
    t0=$(now)
    "$TOOLS/$tool" "$@" 2>/dev/null
    rc=$?
    t1=$(now)
    if [ $rc != 0 ] || [ ! -s "$out" ]; then
        tap_not_ok "$name: an uninterrupted run writes the output (exit $rc)"
        return
    fi
    mv "$out" "$W/$name.ref"
    span=$(echo "$t0 $t1" | awk '{ print $2 - $1 }')
    i=0 old=0 new=0 bad=0 partial=0 stray=0
    while [ $i -lt "$KILLS" ]; do
        case $((i % 3)) in 0) sig=KILL ;; 1) sig=TERM ;; *) sig=HUP ;; esac
        printf 'OLD CONTENTS\n' > "$out"
        # a delay in [0, the uninterrupted run's time): most runs die
        # part-way, a few just after the rename
        delay=$(awk -v s="$span" -v i="$i" -v n="$name" 'BEGIN { srand(i * 7919 + length(n)); printf "%.3f", rand() * s }')
        # a simple command, so $! is the tool itself and not a subshell
        "$TOOLS/$tool" "$@" 2>/dev/null &
        pid=$!
        sleep "$delay"
        kill -s $sig $pid 2>/dev/null
        wait $pid 2>/dev/null
        if cmp -s "$out" "$W/$name.ref"; then
            new=$((new + 1))
        elif [ "$(cat "$out" 2>/dev/null)" = "OLD CONTENTS" ]; then
            old=$((old + 1))
        else
            bad=$((bad + 1))
            echo "# $name: SIG$sig after ${delay}s: output is neither the old file nor the new one ($(wc -c < "$out" 2>/dev/null || echo missing) bytes)"
        fi
        # the temporary file (".NAME.XXXXXX") of a run stopped while writing
        left=$(find "$W" -name ".$name.$ext.*" | wc -l)
        if [ $sig = KILL ]; then
            partial=$((partial + $(find "$W" -name ".$name.$ext.*" -size +0 | wc -l)))
        elif [ "$left" != 0 ]; then
            stray=$((stray + 1))
            echo "# $name: SIG$sig after ${delay}s left a temporary file"
        fi
        rm -f "$W/.$name.$ext".*
        i=$((i + 1))
    done
    if [ $bad = 0 ]; then
        tap_ok "$name: $KILLS runs killed at random over ${span}s: $old left the old file ($partial killed by SIGKILL while writing), $new the complete new one"
    else
        tap_not_ok "$name: $bad of $KILLS killed runs left a partial or missing output"
    fi
    if [ $stray = 0 ]; then
        tap_ok "$name: runs stopped by SIGTERM or SIGHUP left no temporary file"
    else
        tap_not_ok "$name: $stray runs stopped by SIGTERM or SIGHUP left a temporary file"
    fi
    # SIGKILL's half-written temporaries may stay; they are never the output
}

try flame-svg svg pyprof-flame --minwidth 0 "$W/in.folded" -o OUT
try flame-png png pyprof-flame "$W/in.folded" -o OUT
try convert-json json pyprof-convert -q "$W/in.folded" -o OUT
try stats-txt txt pyprof-stats -o OUT "$W/in.folded" sort tottime stats
try dot dot pyprof-dot -n 0 -e 0 "$W/in.folded" -o OUT
# the input is still whole
[ "$(wc -l < "$W/in.folded")" = 4000 ] && tap_ok "the input is intact after the kills" || tap_not_ok "the input is intact after the kills"
[ "$_tap_failed" = 0 ] && rm -rf "$W"
tap_done
