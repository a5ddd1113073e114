#!/usr/bin/env python3
"""dot_canon.py - compare two DOT call graphs the way a reader sees them.

Usage: dot_canon.py OURS.dot THEIRS.dot

gprof2dot prints its DOT by hand; pyprof-dot lets Graphviz's agwrite print
it.  The two spell the same graph differently (attribute order, line breaks,
quoting of numbers, defaults declared once or repeated), so this parses the
DOT subset both produce, applies the node/edge defaults to every object, and
compares the resulting attribute sets.

Nodes are compared by id first.  If the ids differ but the graph is the same
after renumbering (nodes matched by label and tooltip, which for call graphs
name the function uniquely), that is reported too.  Prints one line:
"identical ids", "same after renumbering", or the first differences; exits 0
on a match, 1 otherwise.
"""
import sys


def tokens(text):
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in ' \t\r\n':
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == '\\' and j + 1 < n:
                    if text[j + 1] == '"':
                        buf.append('"')
                    elif text[j + 1] == '\n':
                        pass  # line continuation inside a string
                    else:
                        buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            yield ('str', ''.join(buf))
            i = j + 1
        elif text.startswith('->', i):
            yield ('op', '->')
            i += 2
        elif c in '{}[]=;,':
            yield ('op', c)
            i += 1
        else:
            j = i
            while j < n and text[j] not in ' \t\r\n"{}[]=;,' and not text.startswith('->', j):
                j += 1
            yield ('id', text[i:j])
            i = j


def parse(path):
    with open(path, encoding='utf-8') as f:
        toks = list(tokens(f.read()))
    graph, ndef, edef = {}, {}, {}
    nodes, edges = {}, []
    pos = 0

    def attr_list():
        nonlocal pos
        attrs = {}
        while pos < len(toks) and toks[pos] == ('op', '['):
            pos += 1
            while toks[pos] != ('op', ']'):
                if toks[pos] == ('op', ','):
                    pos += 1
                    continue
                k = toks[pos][1]
                assert toks[pos + 1] == ('op', '='), toks[pos:pos + 3]
                attrs[k] = toks[pos + 2][1]
                pos += 3
            pos += 1
        return attrs

    while pos < len(toks) and toks[pos] != ('op', '{'):
        pos += 1
    pos += 1
    while pos < len(toks):
        t = toks[pos]
        if t == ('op', '}'):
            break
        if t == ('op', ';'):
            pos += 1
            continue
        if t[0] == 'id' and t[1] in ('graph', 'node', 'edge') and toks[pos + 1] == ('op', '['):
            pos += 1
            {'graph': graph, 'node': ndef, 'edge': edef}[t[1]].update(attr_list())
            continue
        if toks[pos + 1] == ('op', '='):
            graph[t[1]] = toks[pos + 2][1]
            pos += 3
            continue
        if toks[pos + 1] == ('op', '->'):
            src, dst = t[1], toks[pos + 2][1]
            pos += 3
            attrs = dict(edef)
            attrs.update(attr_list())
            edges.append((src, dst, attrs))
            nodes.setdefault(src, dict(ndef))
            nodes.setdefault(dst, dict(ndef))
            continue
        name = t[1]
        pos += 1
        attrs = dict(ndef)
        attrs.update(nodes.get(name, {}))
        attrs.update(attr_list())
        nodes[name] = attrs
    # Graphviz's own defaults say nothing: an empty value, or label "\N"
    def clean(a):
        return {k: v for k, v in a.items() if v != '' and not (k == 'label' and v == '\\N')}
    nodes = {k: clean(v) for k, v in nodes.items()}
    edges = [(s, d, clean(a)) for s, d, a in edges]
    return clean(graph), nodes, edges


def frozen(d):
    return tuple(sorted(d.items()))


def main():
    ours, theirs = parse(sys.argv[1]), parse(sys.argv[2])
    diffs = []
    if ours[0] != theirs[0]:
        diffs.append('graph attributes: %r != %r' % (ours[0], theirs[0]))
    if ours[1] == theirs[1] and sorted(map(lambda e: (e[0], e[1], frozen(e[2])), ours[2])) == \
            sorted(map(lambda e: (e[0], e[1], frozen(e[2])), theirs[2])) and not diffs:
        print('identical ids (%d nodes, %d edges)' % (len(ours[1]), len(ours[2])))
        return 0

    def keyed(g):
        _, nodes, edges = g
        key = {n: (a.get('label', n), a.get('tooltip', '')) for n, a in nodes.items()}
        ns = sorted(frozen(a) for a in nodes.values())
        es = sorted((key[s], key[d], frozen(a)) for s, d, a in edges)
        return ns, es, key

    on, oe, okey = keyed(ours)
    tn, te, tkey = keyed(theirs)
    if on == tn and oe == te and not diffs:
        print('same after renumbering (%d nodes, %d edges)' % (len(on), len(oe)))
        return 0
    so, st = set(on), set(tn)
    for x in sorted(so - st)[:5]:
        diffs.append('node only in ours: %r' % (x,))
    for x in sorted(st - so)[:5]:
        diffs.append('node only in theirs: %r' % (x,))
    so, st = set(oe), set(te)
    for x in sorted(so - st)[:5]:
        diffs.append('edge only in ours: %r' % (x,))
    for x in sorted(st - so)[:5]:
        diffs.append('edge only in theirs: %r' % (x,))
    diffs.append('ours %d nodes %d edges, theirs %d nodes %d edges' %
                 (len(on), len(oe), len(tn), len(te)))
    print('DIFFERENT:\n  ' + '\n  '.join(diffs))
    return 1


if __name__ == '__main__':
    sys.exit(main())
