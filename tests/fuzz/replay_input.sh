#!/bin/sh
# Replay the saved input fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_input tests/fixtures/pstats tests/fixtures/collapsed
