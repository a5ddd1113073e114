#!/bin/sh
# Replay the saved mprofile fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_mprofile tests/fixtures/mprofile
