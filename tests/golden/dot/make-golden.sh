#!/bin/sh
# make-golden.sh BUILDDIR - rewrite the golden DOT files from pyprof-dot's
# output (see tests/dot_golden.sh for why that is sound); read the diff
# before committing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=$(cd "$here/../../.." && pwd)
top_builddir=$(cd "${1:?usage: make-golden.sh BUILDDIR}" && pwd)
export top_srcdir top_builddir
DOT_GOLDEN_UPDATE=1 sh "$top_srcdir/tests/dot_golden.sh"
