#!/bin/sh
# cli_options.sh - every tool refuses a bad option the family's way
# (../shared/docs/cli.md): exit status 2, nothing on stdout, and on stderr
# one line "TOOL: reason" that names the option, then the --help hint.
# (getopt's own messages would name the program by its path, in a build
# tree libtool's, and come on a line of their own before ours.)
. "$top_srcdir/tests/tap.sh"

TOOLS="${PYPROF_TOOLS:-$top_builddir/tools}"
work="$top_builddir/tests/cli_options.out"
rm -rf "$work"
mkdir -p "$work"

# refused NAME WANT ARGS...: the tool's stderr is WANT and the hint, exactly
refused() {
    _name=$1 _want=$2
    shift 2
    "$bin" "$@" > "$work/out" 2> "$work/err"
    _rc=$?
    printf '%s: %s\nTry '\''%s --help'\'' for more information.\n' "pyprof-$tool" "$_want" \
        "pyprof-$tool" > "$work/want"
    if [ "$_rc" -eq 2 ] && ! test -s "$work/out" && cmp -s "$work/err" "$work/want"; then
        tap_ok "pyprof-$tool $_name: exit 2, \"$_want\""
    else
        tap_not_ok "pyprof-$tool $_name: exit 2, \"$_want\" (exit $_rc)"
        diff -u "$work/want" "$work/err" | head -8 | sed 's/^/# /'
    fi
}

for tool in convert diff dot flame lines mem merge stats; do
    bin="$TOOLS/pyprof-$tool"
    set --
    [ "$tool" = mem ] && set -- plot # (options follow pyprof-mem's command)
    refused "--bogus" "unknown option '--bogus'" "$@" --bogus
    refused "-Z" "unknown option '-Z'" "$@" -Z
    refused "-Zh (a bundle)" "unknown option '-Z'" "$@" -Zh
    refused "-o at the end" "option '-o' needs an argument" "$@" -o
    refused "--max-bytes at the end" "option '--max-bytes' needs an argument" "$@" --max-bytes
    refused "--max-b (abbreviated) at the end" "option '--max-b' needs an argument" "$@" --max-b
    maxes="--max-bytes, --max-depth, --max-ratio"
    [ "$tool" = dot ] && maxes="--max-nodes, $maxes" # (in the order of the tool's table)
    refused "--max" "option '--max' is ambiguous ($maxes)" "$@" --max 1
    refused "--help=x" "option '--help' takes no argument" "$@" --help=x
done
rm -rf "$work"
tap_done
