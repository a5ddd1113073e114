#!/bin/sh
# Replay the saved collapsed fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_collapsed tests/fixtures/collapsed
