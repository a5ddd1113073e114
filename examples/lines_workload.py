"""Workload for the bundled line_profiler example (example.lprof): kernprof -l
profiles the functions decorated with @profile, line by line."""


@profile  # noqa: F821 (kernprof provides it)
def primes(limit):
    sieve = [True] * (limit + 1)
    sieve[0:2] = [False, False]
    for n in range(2, int(limit ** 0.5) + 1):
        if sieve[n]:
            for multiple in range(n * n, limit + 1, n):
                sieve[multiple] = False
    return [n for n, is_prime in enumerate(sieve) if is_prime]


@profile  # noqa: F821
def checksum(values):
    total = 0
    for v in values:
        total = (total * 31 + v) % 1000003
    return total


if __name__ == "__main__":
    for _ in range(20):
        checksum(primes(20000))
