#!/bin/sh
# flame_browser.sh - the SVG's JavaScript in headless Chromium (Debian's
# chromium): hover, click to zoom, Reset Zoom, search with highlight and
# matched share, Ctrl-I / Ctrl-F.  flame_browser.html does the clicking and
# writes TAP into its DOM; we print it.  Skipped without chromium.
: "${top_srcdir:=..}" "${top_builddir:=..}"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$CHROMIUM" ]; then
    echo "ok 1 # SKIP chromium not installed"
    echo "1..1"
    exit 0
fi
dir="$PWD/flame-browser.$$"
rm -rf "$dir"
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
printf '%s\n' 'main;parse;read 3' 'main;parse 2' 'main;work;compute 8' 'main;work;io 2' \
    > "$dir/stacks.folded"
"$top_builddir/tools/pyprof-flame" "$dir/stacks.folded" -o "$dir/graph.svg" || {
    echo "not ok 1 - pyprof-flame failed"; echo "1..1"; exit 1; }
cp "$top_srcdir/tests/flame_browser.html" "$dir/check.html"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$dir/profile" --allow-file-access-from-files --virtual-time-budget=5000 \
    --dump-dom "file://$dir/check.html" 2>/dev/null > "$dir/dom.html"
# the TAP lines between <pre id="result"> and </pre>
sed -n '/<pre id="result">/,/<\/pre>/p' "$dir/dom.html" |
    sed -e 's/.*<pre id="result">//' -e 's/<\/pre>.*//' -e 's/&gt;/>/g' -e 's/&lt;/</g' \
        -e 's/&amp;/\&/g' > "$dir/tap.txt"
if grep -q '^1\.\.' "$dir/tap.txt"; then
    cat "$dir/tap.txt"
else
    echo "not ok 1 - no result from chromium"
    echo "1..1"
fi
