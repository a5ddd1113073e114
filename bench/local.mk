# bench/local.mk - benchmarks are run by hand (bench/run runs them all),
# never by make check.  Each feature's fragment ships its own script.
EXTRA_DIST += bench/run
