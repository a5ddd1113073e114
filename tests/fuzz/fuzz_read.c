/*
 * fuzz_read.c - libFuzzer target: read the input as format FUZZ_FORMAT
 * (a string macro; "" means probe and read whatever it looks like), with
 * small limits so that a slow or greedy input is found quickly.
 *
 * One binary per format is built from this file (see tests/fuzz/local.mk).
 * The collapsed one (FUZZ_LAZY) also checks that a lazy read draws the
 * flame graph the whole tree draws; the readers that split big files
 * (FUZZ_SPLIT: the hook that sets their threshold) check that a file read
 * in two halves on two threads gives what one pass gives.
 * The same code runs under tests/fuzz/driver.c in plain `make check`, so a
 * saved crash input stays fixed.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

#ifndef FUZZ_FORMAT
#error "define FUZZ_FORMAT"
#endif

#if defined(FUZZ_SPLIT)
#include <stdlib.h>
#include <unistd.h>

#include FUZZ_SPLIT_H /* declares FUZZ_SPLIT */
#include "../profile_diff.h"
#endif

#if defined(FUZZ_LAZY)
#include "collapsed.h" /* the test hooks pyprof__collapsed_* */

/* True if every stack weight of p is an integer, so that sums do not
 * depend on the order of the additions (node ids differ between an eager
 * and a lazy read). */
static int
integer_weights(const pyprof_profile *p)
{
    size_t n;
    const pyprof_stack_node *s = pyprof_profile_stack_nodes(p, &n);
    for (size_t i = 0; i < n; i++)
        for (int m = 0; m < 2; m++)
            if (s[i].self[m] != floor(s[i].self[m]) || fabs(s[i].self[m]) > 1e12)
                return 0;
    return 1;
}

/* p and q must give the same flame graph with options fo: the same frames,
 * names, depths, extents and pixels (or the same failure). */
static void
same_flame(pyprof_profile *p, pyprof_profile *q, const pyprof_flame_options *fo)
{
    pyprof_flame *a = NULL, *b = NULL;
    pyprof_error e1 = PYPROF_ERROR_INIT, e2 = PYPROF_ERROR_INIT;
    int r1 = pyprof_flame_layout(&a, p, fo, &e1), r2 = pyprof_flame_layout(&b, q, fo, &e2);
    if (r1 != r2 || (r1 == 0 && pyprof_flame_frame_count(a) != pyprof_flame_frame_count(b)))
        __builtin_trap();
    for (size_t i = 0; r1 == 0 && i < pyprof_flame_frame_count(a); i++) {
        const pyprof_flame_frame *x = pyprof_flame_frame_at(a, i), *y = pyprof_flame_frame_at(b, i);
        if (strcmp(x->name, y->name) || x->depth != y->depth || x->start != y->start ||
            x->end != y->end || x->x != y->x || x->w != y->w)
            __builtin_trap();
    }
    pyprof_flame_free(a);
    pyprof_flame_free(b);
}

/* A lazy read (stack_elide_below) must draw the flame graph the whole tree
 * draws, frame for frame; the look comes from the input's first bytes, and
 * how tails are kept from its last (as text with the defaults, as text
 * read again at every push, as functions only), the size of the windows
 * the walk jumps over from the one before (the default, none, windows of a
 * frame or two), and whether heavy stacks are looked up whole from the one
 * before that. */
static void
check_lazy(const unsigned char *data, size_t size, pyprof_profile *whole,
           const pyprof_read_options *base)
{
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    fo.minwidth = size ? (data[0] % 32) / 4.0 : 0.1;
    fo.width = 100 + (size > 1 ? data[1] % 8 : 0) * 200;
    pyprof_read_options opts = *base;
    opts.stack_elide_below = pyprof_flame_elide_fraction(&fo);
    if (!(opts.stack_elide_below > 0) || !integer_weights(whole))
        return;
    pyprof_input *in;
    pyprof_profile *lazy = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_input_open_memory(&in, data, size, "fuzz", &err) < 0)
        return;
    static const size_t keep[3][2] = {{6, 8}, {0, 1}, {SIZE_MAX, 8}};
    unsigned k = size ? data[size - 1] % 3 : 0;
    static const size_t jump[4] = {256, 0, 5, 24};
    unsigned j = size > 1 ? data[size - 2] % 4 : 0;
    pyprof__collapsed_tail_text(keep[k][0], keep[k][1]);
    pyprof__collapsed_jump_bytes(jump[j]);
    pyprof__collapsed_heavy_whole(size > 2 ? data[size - 3] % 2 : 1);
    int rc = pyprof_profile_read(&lazy, in, &opts, &err);
    pyprof__collapsed_tail_text(keep[0][0], keep[0][1]);
    pyprof__collapsed_jump_bytes(jump[0]);
    pyprof__collapsed_heavy_whole(true);
    if (rc < 0)
        __builtin_trap(); /* the whole read worked */
    same_flame(whole, lazy, &fo);
    pyprof_profile_free(lazy);
    pyprof_input_close(in);
}

#endif

#if defined(FUZZ_SPLIT)
/* The input as a file, for the two-thread read (which needs one): written
 * again for every input, removed at exit. */
static char split_path[64];
static int split_fd = -1;

static void
remove_split_file(void)
{
    unlink(split_path);
}

static const char *
split_file(const unsigned char *data, size_t size)
{
    if (split_fd < 0) {
        snprintf(split_path, sizeof split_path, "/tmp/pyprof-fuzz-split-XXXXXX");
        if ((split_fd = mkstemp(split_path)) < 0)
            return NULL;
        atexit(remove_split_file);
    }
    if (ftruncate(split_fd, 0) < 0 || pwrite(split_fd, data, size, 0) != (ssize_t)size)
        return NULL;
    return split_path;
}

static int
load_file(pyprof_profile **out, const char *path, const pyprof_read_options *opts, bool halves,
          pyprof_error *err)
{
    uint64_t old = FUZZ_SPLIT(halves ? 1 : UINT64_MAX);
    int rc = pyprof_profile_load(out, path, opts, err);
    FUZZ_SPLIT(old);
    return rc;
}

/* Two halves read on two threads and merged must give what one pass gives:
 * the same profile, or the same error at the same place; read lazily, the
 * same flame graph (pyprof_read_options.threads: the ids of a lazy read,
 * and where it cuts stacks, may differ). */
static void
check_halves(const unsigned char *data, size_t size, const pyprof_read_options *base)
{
    const char *path = split_file(data, size);
    if (!path)
        return;
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    fo.minwidth = size > 2 ? (data[2] % 32) / 4.0 : 0.1;
#if defined(FUZZ_LAZY)
    const int ways = 2;
#else
    const int ways = 1;
#endif
    for (int lazy = 0; lazy < ways; lazy++) {
        pyprof_read_options opts = *base;
        opts.stack_elide_below = lazy ? pyprof_flame_elide_fraction(&fo) : 0;
        if (lazy && !(opts.stack_elide_below > 0))
            continue;
        pyprof_profile *one = NULL, *two = NULL;
        pyprof_error e1 = PYPROF_ERROR_INIT, e2 = PYPROF_ERROR_INIT;
        int r1 = load_file(&one, path, &opts, false, &e1);
        int r2 = load_file(&two, path, &opts, true, &e2);
        char buf[256];
        if (r1 != r2 || (r1 < 0 && (strcmp(e1.message, e2.message) || e1.line != e2.line ||
                                    e1.offset != e2.offset)))
            __builtin_trap();
        if (r1 == 0 && !lazy && profile_difference(one, two, buf, sizeof buf)[0])
            __builtin_trap();
#if defined(FUZZ_LAZY)
        if (r1 == 0 && lazy)
            same_flame(one, two, &fo);
#endif
        pyprof_profile_free(one);
        pyprof_profile_free(two);
    }
}
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
#if defined(FUZZ_LAZY)
        check_lazy(data, size, p, &opts);
#endif
        /* exercise the model a little: derivation walks every stack */
        pyprof_profile_caps(p);
        if (pyprof_profile_stack_count(p) < 100000)
            pyprof_profile_derive_callgraph(p, &err);
    } else if (err.code == 0 || err.message[0] == '\0') {
        __builtin_trap(); /* a failure must always say why */
    }
    pyprof_profile_free(p);
    pyprof_input_close(in);
#if defined(FUZZ_SPLIT)
    check_halves(data, size, &opts);
#endif
    return 0;
}
