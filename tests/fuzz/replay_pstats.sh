#!/bin/sh
# Replay the saved pstats fuzz inputs and fixtures (see replay.sh).
exec "$top_srcdir/tests/fuzz/replay.sh" fuzz_pstats tests/fixtures/pstats
