#!/bin/sh
# Replay every saved fuzz input, crash reproducer and project fixture of one
# format through its fuzz target (built with tests/fuzz/driver.c under gcc).
#   replay.sh TARGET DIR...        (DIRs relative to $top_srcdir)
set -u
target=$1
shift
dirs="$top_srcdir/tests/fuzz/corpus/$target"
for d in "$@"; do
    dirs="$dirs $top_srcdir/$d"
done
# shellcheck disable=SC2086
exec "$top_builddir/tests/fuzz/$target" $dirs
