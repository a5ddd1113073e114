#!/bin/sh
# Install the library into a scratch DESTDIR, build examples/topfuncs.c the
# way a user would (pkg-config --cflags --libs libpyprof), run it on a pstats
# fixture and compare its top ten with Python's pstats, when available.
# In a sanitizer build the program gets the same -fsanitize flags, as a user
# linking a sanitized library would need.
set -u
. "$top_srcdir/tests/tap.sh"

dest="$top_builddir/tests/tmp-install"
exe="$top_builddir/tests/tmp-topfuncs"
out="$top_builddir/tests/tmp-topfuncs.out"
trap 'rm -rf "$dest" "$exe" "$out" "$top_builddir/tests/tmp-install.log"' EXIT
rm -rf "$dest"
if ! make -C "$top_builddir" install DESTDIR="$dest" >"$top_builddir/tests/tmp-install.log" 2>&1; then
    tap_not_ok "make install into a DESTDIR"
    tap_done
fi
tap_ok "make install into a DESTDIR"

prefix=$(sed -n 's/^prefix=//p' "$top_builddir/libpyprof/libpyprof.pc")
pcdir=$(find "$dest" -name libpyprof.pc -printf '%h\n' | head -1)
tap_check "libpyprof.pc installed" test -n "$pcdir"
tap_check "pyprof/pyprof.h installed" test -f "$dest$prefix/include/pyprof/pyprof.h"

flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --define-variable=prefix="$dest$prefix" \
        --cflags --libs libpyprof 2>&1)
tap_check "pkg-config knows libpyprof" test $? -eq 0
# shellcheck disable=SC2086
tap_check "topfuncs builds with pkg-config flags" \
    ${CC:-cc} -std=c99 -Wall -Werror ${SAN_CFLAGS:-} "$top_srcdir/examples/topfuncs.c" $flags -o "$exe"
tap_check "only pyprof_* symbols are exported" \
    sh -c "nm -D --defined-only '$dest$prefix/lib/libpyprof.so' | awk '\$2 ~ /^[TDBR]\$/ {print \$3}' | grep -v '^pyprof_[a-z]' | grep -q . && exit 1 || exit 0"

fixture="$top_srcdir/tests/fixtures/pstats/cprofile_py311.pstats"
if [ ! -f "$fixture" ]; then
    fixture=$(ls "$top_srcdir"/tests/fixtures/pstats/*.pstats 2>/dev/null | head -1)
fi
if [ -z "${fixture:-}" ] || [ ! -f "$fixture" ]; then
    tap_skip "topfuncs on a pstats fixture" "no pstats fixture"
    tap_done
fi
LD_LIBRARY_PATH="$dest$prefix/lib" "$exe" "$fixture" >"$out" 2>&1
tap_check "topfuncs runs on $(basename "$fixture")" test $? -eq 0
tap_check "topfuncs prints a header and ten rows" test "$(wc -l <"$out")" -eq 11

if [ -n "${PYTHON3:-}" ] && "$PYTHON3" -c 'import pstats' 2>/dev/null; then
    # Python's view of the same top ten, in the same "file:line(name)" form
    want=$("$PYTHON3" - "$fixture" <<'PY'
import pstats, sys
s = pstats.Stats(sys.argv[1])
rows = sorted(s.stats.items(), key=lambda kv: -kv[1][3])  # stable, like ours
for (f, l, n), v in rows[:10]:
    print("%s:%d(%s)" % (f, l, n))
PY
)
    got=$(awk 'NR > 1 {sub(/^ *[^ ]+ +[^ ]+ +[^ ]+  /, ""); print}' "$out")
    if [ "$got" = "$want" ]; then
        tap_ok "the top ten equal Python's pstats ordering by cumtime"
    else
        tap_not_ok "the top ten equal Python's pstats ordering by cumtime"
        printf '%s\n' "# got:" "$got" "# want:" "$want" | sed 's/^/# /'
    fi
else
    tap_skip "compare with Python's pstats" "python3 not available"
fi
tap_done
