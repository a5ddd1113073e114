#!/bin/sh
# Replay the saved lprof fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_lprof tests/fixtures/lprof
