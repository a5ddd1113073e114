#!/bin/sh
# Replay the saved writer fuzz inputs, the fixtures of every format and the
# examples through the writers and renderers (see replay.sh, fuzz_write.c).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_write tests/fixtures examples
