#!/usr/bin/env python3
"""flame_corpus.py - pyprof-flame against flamegraph.pl on the corpus (TAP).

For every case of $PYPROF_CORPUS/collapsed and every flamegraph.pl reference
SVG in it (expected/commands.tsv), run pyprof-flame with the same options and
inputs and compare the frame sets (name, depth, x, width; fill with --hash):
see flame_frames.py.  Differential references (difffolded.pl A B |
flamegraph.pl) are compared twice: reading difffolded's two-count file, and
with pyprof-flame --diff A B (--negate for the swapped one).

Where flamegraph.pl draws the wrong graph or none, we check the right one:
  UTF-16 files (it fails)      -> the graph of the same stacks in UTF-8 (ss_simple)
  CRLF lines (it ignores them) -> the same
  austin metadata (drawn as frames "# key:") -> its graph without them
  empty input (it fails)       -> pyprof-flame exits 1, "no stacks"
"""
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flame_frames  # noqa: E402

count = 0
failed = 0
matched = 0
refs = 0


def tap(ok, name, diag=()):
    global count, failed
    count += 1
    print('%sok %d - %s' % ('' if ok else 'not ', count, name))
    if not ok:
        failed += 1
        for d in list(diag)[:12]:
            print('#   ' + d)
    sys.stdout.flush()


def run(tool, args, cwd, out):
    with open(out, 'wb') as f:
        p = subprocess.run([tool] + args, cwd=cwd, stdout=f, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode('utf-8', 'replace')


def compare(ours, ref, opts, drop_meta=False):
    inv = '--inverted' in opts
    o = flame_frames.parse(ours, inverted=inv)
    r = flame_frames.parse(ref, inverted=inv)
    if o is None or r is None:
        return ['unreadable SVG']
    rf = flame_frames.drop_meta(r[0], r[2], flame_frames.root_count(o[2])) if drop_meta else r[2]
    probs = flame_frames.compare(o[2], rf, fill='--hash' in opts)
    if not drop_meta and (o[0], o[1]) != (r[0], r[1]):
        probs.append('size %gx%g, want %gx%g' % (o[0], o[1], r[0], r[1]))
    return probs


def main():
    global matched, refs
    corpus = os.environ.get('PYPROF_CORPUS', '')
    tool = os.environ.get('PYPROF_FLAME', '')
    outdir = os.environ.get('FLAME_OUT', '.')
    base = os.path.join(corpus, 'collapsed')
    if not os.path.isdir(base):
        print('ok 1 # SKIP corpus absent')
        print('1..1')
        return 0
    for case in sorted(os.listdir(base)):
        cdir = os.path.join(base, case)
        tsv = os.path.join(cdir, 'expected', 'commands.tsv')
        if not os.path.exists(tsv):
            continue
        rows = [l.rstrip('\n').split('\t') for l in open(tsv, encoding='utf-8')][1:]
        for out, code, _cwd, cmd in rows:
            if not out.startswith('flamegraph') or not out.endswith('.svg'):
                continue
            ref = os.path.join(cdir, 'expected', out)
            if code == '0' and not os.path.exists(ref):
                tap(True, '%s/%s # SKIP reference omitted from this copy of the corpus' %
                    (case, out))
                continue
            fg = cmd[cmd.index('flamegraph.pl') + len('flamegraph.pl'):].split('>')[0]
            toks = shlex.split(fg)
            opts = [t for t in toks if t.startswith('--')]
            inputs = [t for t in toks if not t.startswith('--')]
            mine = os.path.join(outdir, 'flame-%s-%s' % (case, out))
            name = '%s/%s' % (case, out)
            if 'difffolded.pl' in cmd:  # difffolded.pl B A | flamegraph.pl --negate
                dargs = [t for t in shlex.split(cmd.split('|')[0].split('difffolded.pl')[1])
                         if not t.startswith('-')]
                inputs = ['--diff'] + dargs
            drop = False
            for i in inputs:
                try:
                    with open(os.path.join(cdir, i), 'rb') as fh:
                        drop = drop or fh.read(9) == b'# austin:'
                except OSError:
                    pass
            if code != '0':
                if case == 'inferno_empty':
                    rc, err = run(tool, opts + inputs, cdir, mine)
                    tap(rc == 1 and ('no stacks' in err or 'empty' in err),
                        name + ': flamegraph.pl fails on empty input; we exit 1',
                        ['exit %d: %s' % (rc, err.strip())])
                    continue
                if 'utf16' in case:
                    ref = os.path.join(base, 'ss_simple', 'expected', out)
                    rc, err = run(tool, opts + inputs, cdir, mine)
                    probs = compare(mine, ref, opts) if rc == 0 else ['exit %d %s' % (rc, err)]
                    tap(not probs, name + ': flamegraph.pl fails on UTF-16; we draw ss_simple\'s '
                        'graph', probs)
                    continue
                tap(False, name + ': unexpected failing reference')
                continue
            refs += 1
            rc, err = run(tool, opts + inputs, cdir, mine)
            if rc != 0:
                tap(False, name, ['pyprof-flame exit %d: %s' % (rc, err.strip())])
                continue
            if case == 'ss_simple_crlf':
                # flamegraph.pl drops CRLF lines; the right graph is the LF one
                probs = compare(mine, os.path.join(base, 'ss_simple', 'expected', out), opts)
                tap(not probs, name + ': CRLF lines read (flamegraph.pl ignores them): graph '
                    'equals ss_simple\'s', probs)
                matched += not probs
                continue
            probs = compare(mine, ref, opts, drop_meta=drop)
            what = ' (austin metadata kept out)' if drop else ''
            tap(not probs, name + what, probs)
            matched += not probs
            if inputs and inputs[0] == 'expected/difffolded.txt':
                # the same picture from our own difference of the two inputs
                dargs = [t for t in shlex.split(
                    [r for r in rows if r[0] == 'difffolded.txt'][0][3].split('difffolded.pl')[1]
                    .split('>')[0])]
                rc, err = run(tool, opts + ['--diff'] + dargs, cdir, mine + '.diff.svg')
                probs = compare(mine + '.diff.svg', ref, opts) if rc == 0 else ['exit %d' % rc]
                tap(not probs, name + ' via --diff ' + ' '.join(dargs), probs)
    print('# flamegraph.pl references matched: %d of %d' % (matched, refs))
    print('1..%d' % count)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
