"""A small, deterministic workload whose cProfile output ships as
examples/example.pstats (regenerate with examples/make-example.sh).

It has what makes profiles interesting to read: recursion (fib, a tree walk),
mutual recursion, builtins, a class with methods, a generator, the json and
re modules of the standard library, and one clearly dominant hot spot.
"""
import json
import re


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


class Tree:
    def __init__(self, depth):
        self.children = [Tree(depth - 1) for _ in range(2)] if depth else []

    def size(self):
        return 1 + sum(child.size() for child in self.children)


def words(text):
    for match in re.finditer(r"[a-z]+", text):
        yield match.group(0)


def word_counts(text):
    counts = {}
    for w in words(text):
        counts[w] = counts.get(w, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def round_trip(obj, times):
    for _ in range(times):
        obj = json.loads(json.dumps(obj))
    return obj


def main():
    text = "the quick brown fox jumps over the lazy dog " * 400
    top = word_counts(text)[:3]
    data = round_trip({"top": top, "fib": fib(20)}, 200)
    size = Tree(10).size()
    parity = [is_even(n) for n in range(200)]
    return data, size, parity.count(True)


if __name__ == "__main__":
    main()
