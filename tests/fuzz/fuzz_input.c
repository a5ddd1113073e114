/*
 * fuzz_input.c - libFuzzer target for the input layer alone: zstd frames
 * (the input is wrapped in a zstd magic when it lacks one, so the decoder is
 * always reached), line splitting and slurping, with a small memory bound.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <pyprof/pyprof.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    pyprof_input *in;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_input_open_memory(&in, data, size, "fuzz", &err) < 0)
        return 0;
    pyprof_input_set_max_bytes(in, 16u << 20);
    const char *line;
    size_t len, lines = 0;
    int rc;
    while ((rc = pyprof_input_read_line(in, &line, &len, 256u << 10, &err)) == 1) {
        if (strlen(line) > len)
            __builtin_trap(); /* the NUL must be where the length says */
        lines++;
        /* a few hundred bytes of zstd can legitimately decode to 64 MiB
         * before the ratio guard looks (RATIO_GRACE): stop after 1 MiB, so the
         * time goes to variety, not to splitting one huge output */
        if (pyprof_input_offset(in) > (1u << 20))
            break;
    }
    pyprof_input_close(in);

    if (pyprof_input_open_memory(&in, data, size, "fuzz", &err) < 0)
        return 0;
    const unsigned char *all;
    pyprof_input_set_max_bytes(in, 1u << 20);
    if (pyprof_input_slurp(in, &all, &len, &err) == 0 && rc == 0 && len == 0 && lines != 0)
        __builtin_trap(); /* lines were read from nothing */
    pyprof_input_close(in);
    return 0;
}
