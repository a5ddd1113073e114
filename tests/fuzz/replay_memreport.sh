#!/bin/sh
# Replay the saved memreport fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_memreport tests/fixtures/mprofile
