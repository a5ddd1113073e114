#!/bin/sh
# Replay the saved callgrind fuzz inputs and the conversion fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_callgrind tests/fixtures/convert
