import pstats, re, sys
try:
    from StringIO import StringIO   # Python 2: pstats prints byte strings
except ImportError:
    from io import StringIO
def table(f):
    out = StringIO()
    s = pstats.Stats(f, stream=out)
    s.sort_stats('cumulative').print_stats()
    s.print_callers()
    t = "\n".join(out.getvalue().splitlines()[1:])   # line 1: mtime and file name
    # What our file cannot reproduce, by design (formats.md 2.9, 2.11): the
    # address in a code object's repr, and Python 2 byte strings, which we
    # write as str so that Python 3 does not print b'...'.
    if "<code object" in t:   # the repr's length sets a column width
        t = re.sub(r" at 0x[0-9a-f]+,", " at 0x0,", t)
        t = re.sub(r" +", " ", t)
    if "b'" in t:   # Python 3 does not see b'~' as the built-ins' file
        t = re.sub(r"b'([^']*)'", r"\1", t)
        t = re.sub(r"~:0\(<([^>]*)>\)", r"{\1}", t)
        t = re.sub(r" +", " ", t)
    return t
if len(sys.argv) == 3:
    sys.exit(0 if table(sys.argv[1]) == table(sys.argv[2]) else 1)
# merged: Stats(first) then add(rest) one by one, as pyprof-merge streams
out = StringIO()
s = pstats.Stats(sys.argv[2], stream=out)
for f in sys.argv[3:]:
    s.add(f)
s.sort_stats('cumulative').print_stats()
want = "\n".join(out.getvalue().splitlines()[1:])
got = table(sys.argv[1])
# the header of a merged table lists every input: compare from the totals line on
cut = lambda t: t[t.index("function calls"):]
sys.exit(0 if cut(got).startswith(cut(want)[:len(cut(want))]) or cut(got) == cut(want) else 1)
