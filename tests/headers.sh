#!/bin/sh
# Every public header compiles on its own, as strict C99 and as C++ (each
# declares what it uses and has its extern "C" guard), as style.md asks.
set -u
. "$top_srcdir/tests/tap.sh"
inc="$top_srcdir/libpyprof/include"
tmp="$top_builddir/tests/tmp-headers"
mkdir -p "$tmp"
for h in "$inc"/pyprof/*.h; do
    name=$(basename "$h")
    printf '#include <pyprof/%s>\nint pyprof_header_test_%s;\n' "$name" "$(echo "$name" | tr -c 'a-z0-9\n' _)" > "$tmp/h.c"
    tap_check "$name alone as C99 -pedantic" \
        ${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.c" -o "$tmp/h.o"
    cp "$tmp/h.c" "$tmp/h.cc"
    if command -v ${CXX:-c++} >/dev/null 2>&1; then
        tap_check "$name alone as C++" \
            ${CXX:-c++} -std=c++11 -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.cc" -o "$tmp/h.o"
    else
        tap_skip "$name alone as C++" "no C++ compiler"
    fi
done
rm -rf "$tmp"
tap_done
