#!/usr/bin/env python3
"""flame_frames.py - read the frames of a flame graph SVG (flamegraph.pl's or
pyprof-flame's) and compare two such frame sets.

A frame is one <g> holding a <title> "NAME (N UNIT, P%)" and a <rect>.  We
compare SETS of frames (flamegraph.pl writes them in Perl hash order) by
name, depth (from y), start and width, in pixels with a tolerance for the
0.1 px rounding of x and width, and optionally the fill colour.

Used by tests/flame_corpus.sh; run alone:
    flame_frames.py OURS.svg REF.svg [--fill] [--inverted] [--drop-meta]
"""
import html
import re
import sys

G_RE = re.compile(
    r'<g\b[^>]*>\s*<title>(.*?)</title>\s*<rect\b([^>]*)/?>', re.S)
ATTR_RE = re.compile(r'([\w:-]+)="([^"]*)"')
SIZE_RE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"', re.S)
COUNT_RE = re.compile(r'^(.*) \(([\d,]+) [^,()]*, [-\d.]+%(?:; [-+\d.]+%)?\)$', re.S)


def parse(path, fontsize=12.0, frameheight=16.0, inverted=False):
    """Return (width, height, frames); frame = dict(name, count, depth, x, w, fill)."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    m = SIZE_RE.search(text)
    if not m:
        return None
    width, height = float(m.group(1)), float(m.group(2))
    ypad1, ypad2 = fontsize * 3, fontsize * 2 + 10
    frames = []
    for title, attrs in G_RE.findall(text):
        a = dict(ATTR_RE.findall(attrs))
        title = html.unescape(title)
        cm = COUNT_RE.match(title)
        if not cm:
            continue
        name, count = cm.group(1), int(cm.group(2).replace(',', ''))
        y = float(a['y'])
        if inverted:
            depth = round((y - ypad1) / frameheight)
        else:
            depth = round((height - ypad2 + 1 - y) / frameheight) - 1
        frames.append(dict(name=name, count=count, depth=depth, x=float(a['x']),
                           w=float(a['width']), fill=a.get('fill', '')))
    return width, height, frames


def drop_meta(width, frames, ours_total=None):
    """The right graph of an austin file drawn by flamegraph.pl: without the
    '# key: value' metadata lines it drew as frames '# key:' at depth 1.
    They sort before every stack, so removing them shifts the rest left;
    returns frames rescaled to the corrected total."""
    root = [f for f in frames if f['depth'] == 0]
    if not root:
        return frames
    total = root[0]['count']
    ppu = (width - 20) / total
    meta = [f for f in frames if f['depth'] == 1 and re.match(r'^# [\w -]+:$', f['name'])]
    mw = sum(f['count'] for f in meta)
    if not meta:
        return frames
    if ours_total is not None and 0 <= total - mw - ours_total <= 0.1 / ppu:
        # metadata frames narrower than minwidth were pruned from the
        # reference, but still took their place in its total
        mw = total - ours_total
    newtotal = total - mw
    nppu = (width - 20) / newtotal
    out = []
    for f in frames:
        if f in meta:
            continue
        g = dict(f)
        if f['depth'] == 0:
            g['count'] = newtotal
            g['x'], g['w'] = 10.0, width - 20
        else:
            start = (f['x'] - 10) / ppu - mw
            g['x'] = 10 + start * nppu
            g['w'] = f['w'] / ppu * nppu
        # compared in count units: the reference's 0.05 px rounding is
        # 0.05 / ppu units, which may be several of our pixels
        g['u0'] = (f['x'] - 10) / ppu - (mw if f['depth'] else 0)
        g['uw'] = f['w'] / ppu if f['depth'] else newtotal
        g['utol'] = 0.11 / ppu  # x and width are each rounded to 0.1 px
        g['ppu'] = ppu
        g['rescaled'] = True
        out.append(g)
    return out


def root_count(frames):
    root = [f for f in frames if f['depth'] == 0]
    return root[0]['count'] if root else None


def compare(ours, ref, fill=False, tol=0.11):
    """Match every reference frame to one of ours; return a list of problems."""
    pool = {}
    for f in ours:
        pool.setdefault((f['name'], f['depth']), []).append(f)
    root = [f for f in ours if f['depth'] == 0]
    oppu = root[0]['w'] / root[0]['count'] if root and root[0]['count'] else 1
    rescaled = any(r.get('rescaled') for r in ref)
    problems = []
    for r in ref:
        cands = pool.get((r['name'], r['depth']), [])
        best = None
        for c in cands:
            if r.get('rescaled'):
                t = r['utol'] + 0.11 / oppu
                ok = abs((c['x'] - 10) / oppu - r['u0']) <= t and \
                    abs(c['w'] / oppu - r['uw']) <= t and c['count'] == r['count']
            else:
                ok = abs(c['x'] - r['x']) <= tol and abs(c['w'] - r['w']) <= tol and \
                    c['count'] == r['count']
            if ok:
                best = c
                break
        if best is None:
            if rescaled and r['w'] < 0.15:
                continue  # at the pruning edge after rescaling
            problems.append('missing: %r depth %d x %.1f w %.1f n %d' %
                            (r['name'], r['depth'], r['x'], r['w'], r['count']))
            continue
        cands.remove(best)
        if fill and best['fill'] != r['fill']:
            problems.append('fill of %r: %s, want %s' % (r['name'], best['fill'], r['fill']))
    refppu = min([r['ppu'] for r in ref if 'ppu' in r] or [0])
    for cands in pool.values():
        for c in cands:
            if rescaled and (c['w'] < 0.15 or c['count'] * refppu < 0.1 + 1e-9):
                continue  # too narrow for flamegraph.pl's larger total
            problems.append('extra: %r depth %d x %.1f w %.1f' %
                            (c['name'], c['depth'], c['x'], c['w']))
    return problems


def main(argv):
    args = [a for a in argv[1:] if not a.startswith('--')]
    inv = '--inverted' in argv
    o = parse(args[0], inverted=inv)
    r = parse(args[1], inverted=inv)
    rf = r[2]
    if '--drop-meta' in argv:
        rf = drop_meta(r[0], rf, root_count(o[2]))
    probs = compare(o[2], rf, fill='--fill' in argv)
    for p in probs[:20]:
        print(p)
    print('%d frames ours, %d reference, %d problems' % (len(o[2]), len(rf), len(probs)))
    return 1 if probs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
