#!/bin/sh
# Replay the saved probe fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_probe tests/fixtures examples
