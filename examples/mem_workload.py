"""Workload for the bundled memory_profiler example (example.dat): grows and
frees memory in steps, inside two @profile functions that mprof brackets."""
import time


@profile  # noqa: F821 (mprof run provides it)
def build(n):
    rows = [list(range(1000)) for _ in range(n)]
    time.sleep(0.3)
    return rows


@profile  # noqa: F821
def work():
    kept = []
    for step in range(4):
        kept.append(build(2000 * (step + 1)))
        time.sleep(0.2)
    del kept[:2]
    time.sleep(0.3)
    return len(kept)


if __name__ == "__main__":
    work()
