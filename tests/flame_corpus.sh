#!/bin/sh
# flame_corpus.sh - pyprof-flame's frames against flamegraph.pl's reference SVGs
# on every case of $PYPROF_CORPUS/collapsed (see tests/flame_corpus.py).
: "${top_srcdir:=..}" "${top_builddir:=..}" "${PYTHON3:=python3}"
if [ ! -d "${PYPROF_CORPUS:-/nonexistent}/collapsed" ]; then
    echo "ok 1 # SKIP corpus absent"
    echo "1..1"
    exit 0
fi
mkdir -p flame-corpus-out
PYPROF_FLAME="$top_builddir/tools/pyprof-flame" FLAME_OUT="$PWD/flame-corpus-out" \
    exec "$PYTHON3" "$top_srcdir/tests/flame_corpus.py"
