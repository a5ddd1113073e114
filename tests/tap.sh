# tests/tap.sh - TAP helpers for the shell tests (sourced).
#   tap_ok NAME / tap_not_ok NAME        record a result
#   tap_check NAME CMD...                run CMD; ok if it exits 0
#   tap_skip NAME REASON                 a skipped check
#   tap_diff NAME GOT WANT               ok if the files are equal, else show a diff
#   tap_done                             print the plan and exit (1 if any failed)
_tap_n=0
_tap_failed=0
tap_ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
tap_not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $1"; }
tap_check() {
    _name=$1; shift
    if "$@" >/dev/null 2>&1; then tap_ok "$_name"; else tap_not_ok "$_name"; fi
}
tap_skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
tap_diff() {
    if cmp -s "$2" "$3"; then
        tap_ok "$1"
    else
        tap_not_ok "$1"
        diff -u "$3" "$2" 2>&1 | head -20 | sed 's/^/# /'
    fi
}
tap_done() { echo "1..$_tap_n"; [ "$_tap_failed" -eq 0 ] && exit 0; exit 1; }

# tap_comma_locale DIR: set TAP_COMMA to a locale whose decimal point is ','
# (for LC_ALL), building de_DE.UTF-8 into DIR with localedef, and exporting
# LOCPATH=DIR, when none is installed.  Returns 1 if there is none at all.
tap_comma_locale() {
    TAP_COMMA=$(locale -a 2>/dev/null | grep -i -m1 '^\(de_DE\|fr_FR\|nl_NL\)\.utf-\?8$')
    if [ -z "$TAP_COMMA" ] && command -v localedef >/dev/null 2>&1; then
        mkdir -p "$1"
        # localedef exits 1 for mere warnings: the check below decides
        localedef -i de_DE -f UTF-8 "$1/de_DE.UTF-8" >/dev/null 2>&1
        LOCPATH=$1 && export LOCPATH && TAP_COMMA=de_DE.UTF-8
    fi
    [ -n "$TAP_COMMA" ] && [ "$(LC_ALL=$TAP_COMMA locale decimal_point 2>/dev/null)" = "," ]
}
