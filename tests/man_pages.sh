#!/bin/sh
# man_pages.sh - every tool's man page: it is clean roff (no groff
# warnings: a text line that starts with "." is taken for a macro and
# vanishes from the page), its title names the tool and this version, and
# it documents every long option the tool's --help lists.
. "$top_srcdir/tests/tap.sh"

TOOLS="${PYPROF_TOOLS:-$top_builddir/tools}"
work="$top_builddir/tests/man_pages.out"
rm -rf "$work"
mkdir -p "$work"

for tool in convert diff dot flame lines mem merge stats; do
    page="$top_srcdir/tools/pyprof-$tool.1"
    bin="$TOOLS/pyprof-$tool"
    if ! test -s "$page"; then
        tap_not_ok "pyprof-$tool.1 exists"
        continue
    fi
    if command -v groff >/dev/null 2>&1; then
        groff -man -ww -z "$page" > "$work/warnings" 2>&1
        tap_diff "pyprof-$tool.1: groff gives no warnings" "$work/warnings" /dev/null
    else
        tap_skip "pyprof-$tool.1: groff gives no warnings" "no groff"
    fi

    # .TH PYPROF-TOOL 1 "date" "libpyprof VERSION" ...
    version=$("$bin" --version 2>/dev/null | sed -n '1s/.* //p')
    title=$(sed -n '1p' "$page")
    upper=$(echo "$tool" | tr 'a-z' 'A-Z')
    case "$title" in
    ".TH PYPROF-$upper 1 "*"\"libpyprof $version\""*) tap_ok "pyprof-$tool.1: title names the tool and libpyprof $version" ;;
    *) tap_not_ok "pyprof-$tool.1: title names the tool and libpyprof $version (got: $title)" ;;
    esac

    # long options: --help's, less the man page's (roff writes \- and fonts)
    "$bin" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u > "$work/help"
    sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' "$page" | grep -oE -- '--[a-z][a-z0-9-]*' |
        sort -u > "$work/man"
    comm -23 "$work/help" "$work/man" > "$work/missing"
    if [ "$(wc -l < "$work/help")" -ge 2 ]; then
        tap_diff "pyprof-$tool.1 documents the $(wc -l < "$work/help" | tr -d ' ') long options of --help" \
            "$work/missing" /dev/null
    else
        tap_not_ok "pyprof-$tool --help lists its long options"
    fi
done
rm -rf "$work"
tap_done
