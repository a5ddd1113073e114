#!/bin/sh
# valgrind-tools.sh BUILDDIR SUPPRESSIONS OUTDIR - write OUTDIR/pyprof-*, one
# small script per tool that runs the built tool under valgrind memcheck.
# `make check-valgrind` points the CLI tests at OUTDIR (PYPROF_TOOLS), so the
# same assertions run again with every invocation checked for invalid reads
# and writes, uses of uninitialised memory and definite leaks.  Any report
# makes the tool exit 97, which no test accepts.  libtool's execute mode runs
# the real program, not the wrapper script a shared build puts in tools/.
set -eu
build=$1
supp=$2
out=$3
mkdir -p "$out"
for t in "$build"/tools/pyprof-*; do
    name=${t##*/}
    case $name in *.1 | *.c | *.o) continue ;; esac
    [ -x "$t" ] || continue
    cat > "$out/$name" <<SCRIPT
#!/bin/sh
exec "$build/libtool" --mode=execute valgrind -q --error-exitcode=97 \\
    --leak-check=full --errors-for-leak-kinds=definite --track-origins=yes \\
    --num-callers=30 --suppressions="$supp" "$t" "\$@"
SCRIPT
    chmod +x "$out/$name"
done
