/*
 * fuzz_write.c - libFuzzer target for the writers and renderers: read the
 * input as whatever it looks like (as fuzz_probe does), then write the
 * profile in every format pyprof-convert offers, and draw it as a flame
 * graph and a call graph, all into memory.
 *
 * Reading only finds what the readers do wrong; the writers meet the odd
 * names, huge or fractional weights and deep stacks that the readers let
 * through, and were rewritten for speed (buffers, caches, streamed JSON).
 * Besides "no crash", each writer with a reader of its own must write what
 * that reader takes back, and writing what was read back must give the
 * same bytes again: a writer that loses or changes something on the way
 * shows up as a second text that differs from the first.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pyprof/convert.h>
#include <pyprof/dot.h>
#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

/* The profile of what a writer wrote, read back as that format; traps if
 * the reader refuses it. */
static pyprof_profile *
read_back(const unsigned char *text, size_t len, const char *format)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options opts = PYPROF_READ_OPTIONS_INIT;
    opts.format = format;
    if (pyprof_input_open_memory(&in, text, len, "fuzz", &err) < 0)
        __builtin_trap();
    if (pyprof_profile_read(&p, in, &opts, &err) < 0) {
        fprintf(stderr, "fuzz_write: %s output refused: %s\n", format, err.message);
        __builtin_trap(); /* our own output, refused by our own reader */
    }
    if (pyprof_profile_meta_get(p, "malformed_lines")) {
        fprintf(stderr, "fuzz_write: %s output has lines its reader skips\n", format);
        __builtin_trap();
    }
    pyprof_input_close(in);
    return p;
}

/* `p` written as `format` into memory, or NULL if the writer declines
 * (the profile has nothing the format holds, or it is too big for it). */
static pyprof_output *
write_as(pyprof_profile *p, const char *format)
{
    pyprof_output *o;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_output_open_memory(&o, &err) < 0)
        return NULL;
    if (pyprof_profile_write(p, o, format, NULL, &err) < 0 || pyprof_output_status(o, &err) < 0) {
        if (err.message[0] == '\0')
            __builtin_trap(); /* a failure must always say why */
        pyprof_output_abort(o);
        return NULL;
    }
    return o;
}

/* The writers whose reader is in the library, and how many times their
 * text must be read back and written before it stops changing: once for
 * the exact formats; twice for speedscope, whose numbers are cJSON's text
 * (15 digits where they read back within one unit in the last place), so
 * that sums of weights read back may differ in their last digit once. */
static int
rounds_to_settle(const char *format)
{
    static const struct {
        const char *name;
        int rounds;
    } readable[] = {{"pstats", 1}, {"collapsed", 1}, {"callgrind", 1}, {"speedscope", 2}};
    for (size_t i = 0; i < sizeof readable / sizeof *readable; i++)
        if (strcmp(format, readable[i].name) == 0)
            return readable[i].rounds;
    return 0;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True if folded text cannot tell p's functions apart: in a folded file a
 * frame's text is its identity, so two functions with one label (two
 * built-ins that differ only by line, which labels omit) come back as
 * one; and a line whose only frame is empty (" 5") is, for flamegraph.pl
 * and us, weight on the root. */
static int
labels_ambiguous(const pyprof_profile *p)
{
    size_t n = pyprof_profile_func_count(p);
    char **labels = calloc(n ? n : 1, sizeof(*labels));
    int ambiguous = labels == NULL;
    for (size_t i = 0; !ambiguous && i < n; i++) {
        size_t k = pyprof_flame_frame_label(p, (pyprof_id)i, NULL, 0);
        if (k == 0 || !(labels[i] = malloc(k + 1)))
            ambiguous = 1;
        else
            pyprof_flame_frame_label(p, (pyprof_id)i, labels[i], k + 1);
    }
    if (!ambiguous) {
        qsort(labels, n, sizeof(*labels), cmp_str);
        for (size_t i = 1; i < n && !ambiguous; i++)
            ambiguous = strcmp(labels[i - 1], labels[i]) == 0;
    }
    for (size_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
    return ambiguous;
}

static void
check_writer(pyprof_profile *p, const char *format)
{
    pyprof_output *prev = write_as(p, format);
    int rounds = rounds_to_settle(format);
    if (strcmp(format, "collapsed") == 0 && labels_ambiguous(p))
        rounds = 0;
    for (int k = 1; prev && k <= rounds; k++) {
        size_t n1, n2;
        const unsigned char *t1 = pyprof_output_data(prev, &n1);
        pyprof_profile *back = read_back(t1, n1, format);
        if (!(pyprof_profile_caps(back) & (PYPROF_CAP_STACKS | PYPROF_CAP_EDGES)) &&
            pyprof_profile_stack_count(back) == 0 && pyprof_profile_edge_count(back) == 0) {
            /* an empty document (a call graph with no time to estimate
             * stacks from, stacks all of negative weight, which neither
             * folded nor speedscope holds): nothing is left to write again */
            pyprof_profile_free(back);
            break;
        }
        pyprof_output *next = write_as(back, format);
        if (!next) {
            fprintf(stderr, "fuzz_write: %s output read back cannot be written again\n", format);
            __builtin_trap(); /* wrote it once, so it can write it again */
        }
        const unsigned char *t2 = pyprof_output_data(next, &n2);
        if (k == rounds && (n1 != n2 || memcmp(t1, t2, n1) != 0)) {
            fprintf(stderr, "fuzz_write: %s output read back and written again differs\n", format);
            __builtin_trap();
        }
        pyprof_profile_free(back);
        pyprof_output_abort(prev);
        prev = next;
    }
    pyprof_output_abort(prev);
}

/* Flame graph and call graph into memory: failures are allowed (no
 * stacks, no call graph), crashes and silent failures are not. */
static void
check_renderers(pyprof_profile *p)
{
    pyprof_output *o;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_output_open_memory(&o, &err) < 0)
        return;
    if (pyprof_profile_stack_count(p) < 20000 && pyprof_render_flame(p, NULL, "svg", o, &err) < 0 &&
        err.message[0] == '\0')
        __builtin_trap();
    pyprof_output_abort(o);
    pyprof_error derr = PYPROF_ERROR_INIT;
    pyprof_dot_options dopts = PYPROF_DOT_OPTIONS_INIT;
    dopts.type = "dot";
    if (pyprof_output_open_memory(&o, &derr) < 0)
        return;
    if (pyprof_profile_func_count(p) < 2000 && pyprof_dot_render(p, &dopts, o, &derr) < 0 &&
        derr.message[0] == '\0')
        __builtin_trap();
    pyprof_output_abort(o);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options opts = PYPROF_READ_OPTIONS_INIT;
    opts.max_bytes = 64u << 20; /* libFuzzer's RSS limit is 2 GB */
    opts.max_depth = 200;
    if (pyprof_input_open_memory(&in, data, size, "fuzz", &err) < 0)
        return 0;
    if (pyprof_profile_read(&p, in, &opts, &err) == 0 && pyprof_profile_stack_count(p) < 100000) {
        for (size_t i = 0; i < pyprof_writer_count(); i++)
            check_writer(p, pyprof_writer_name(i));
        check_renderers(p);
    }
    pyprof_profile_free(p);
    pyprof_input_close(in);
    return 0;
}
