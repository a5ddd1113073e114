# bench/local.mk - benchmarks are run by hand (bench/run), never by make check.
