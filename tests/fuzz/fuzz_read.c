/*
 * fuzz_read.c - libFuzzer target: read the input as format FUZZ_FORMAT
 * (a string macro; "" means probe and read whatever it looks like), with
 * small limits so that a slow or greedy input is found quickly.
 *
 * One binary per format is built from this file (see tests/fuzz/local.mk).
 * The same code runs under tests/fuzz/driver.c in plain `make check`, so a
 * saved crash input stays fixed.
 */
#include "config.h"

#include <pyprof/pyprof.h>

#ifndef FUZZ_FORMAT
#error "define FUZZ_FORMAT"
#endif

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options opts = PYPROF_READ_OPTIONS_INIT;
    opts.format = FUZZ_FORMAT[0] ? FUZZ_FORMAT : NULL;
    opts.max_bytes = 64u << 20; /* libFuzzer's RSS limit is 2 GB */
    opts.max_depth = 200;
    if (pyprof_input_open_memory(&in, data, size, "fuzz", &err) < 0)
        return 0;
    if (pyprof_profile_read(&p, in, &opts, &err) == 0) {
        /* exercise the model a little: derivation walks every stack */
        pyprof_profile_caps(p);
        if (pyprof_profile_stack_count(p) < 100000)
            pyprof_profile_derive_callgraph(p, &err);
    } else if (err.code == 0 || err.message[0] == '\0') {
        __builtin_trap(); /* a failure must always say why */
    }
    pyprof_profile_free(p);
    pyprof_input_close(in);
    return 0;
}
