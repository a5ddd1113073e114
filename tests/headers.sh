#!/bin/sh
# Every public header compiles on its own, as strict C99 and as C++ (each
# declares what it uses and has its extern "C" guard), as style.md asks;
# and every public function has a comment right above its declaration.
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
# A declaration starts a line with its return type; the line above it (not
# blank) must end a comment.  Prints FILE:LINE: NAME for each one that does
# not, and the number of declarations seen to $tmp/seen.
awk -v seen="$tmp/seen" '
FNR == 1 { prev = "" }
/^[A-Za-z_][A-Za-z0-9_ *]*[ *]pyprof_[a-z0-9_]+\(/ && !/^typedef/ {
    n++
    if (prev !~ /\*\/[ \t]*$/) {
        name = $0
        sub(/\(.*/, "", name)
        sub(/.*[ *]/, "", name)
        print FILENAME ":" FNR ": " name
    }
}
/[^ \t]/ { prev = $0 }
END { print n + 0 > seen }' "$inc"/pyprof/*.h > "$tmp/undocumented"
: > "$tmp/none"
tap_diff "every public function has a comment above its declaration" "$tmp/undocumented" "$tmp/none"
if [ "$(cat "$tmp/seen")" -ge 100 ]; then
    tap_ok "the comment check saw the declarations ($(cat "$tmp/seen"))"
else
    tap_not_ok "the comment check saw only $(cat "$tmp/seen") declarations"
fi
rm -rf "$tmp"
tap_done
