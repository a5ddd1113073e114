#!/bin/sh
# Replay the saved speedscope fuzz inputs and the conversion fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_speedscope tests/fixtures/convert
