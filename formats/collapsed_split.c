/*
 * collapsed_split.c - reading a big collapsed file on two threads.
 *
 * A 1 GB folded file is read at a few hundred MB/s on one core, nearly all
 * of it spent mapping frames to functions and finding tree nodes.  Lines are
 * independent, so a plain file is cut at the line boundary nearest its
 * middle: this thread reads the first half into the profile while a second
 * thread reads the second half into a profile of its own, and then the
 * second tree is added to the first in its order of first appearance
 * (pyprof__collapsed_merge), which gives the functions, strings, node ids
 * and weights that one pass over the file gives.
 *
 * "The same as one pass" is checked, not assumed.  When the second half had
 * malformed lines (reported by line number), frames that needed UTF-8
 * repair, or weights whose sums might round differently when summed in two
 * parts, its work is thrown away and this thread reads on past the middle
 * as if it had never stopped: slower, never different.  Errors are those of
 * one pass too: this half's errors come first in the file, and an error in
 * the other half is found again when this thread reads that half itself.
 *
 * Not split: small files (threads cost more than they save), pipes, zstd
 * (a stream cannot be entered in the middle), UTF-16, and austin and pyflame
 * files, whose lines depend on earlier ones.
 */
#include "config.h"

#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif

#include "collapsed.h"

/* Below this a file is read in well under a tenth of a second, and a
 * thread and the merge would take a good part of what they save. */
static pyprof__split_gate gate = PYPROF__SPLIT_GATE((uint64_t)32 << 20);

uint64_t
pyprof__collapsed_split_min(uint64_t bytes)
{
    return pyprof__split_gate_set_min(&gate, bytes);
}

uint64_t
pyprof__collapsed_merges(void)
{
    return pyprof__split_gate_count(&gate);
}

#if defined(HAVE_PTHREAD)

static void *
read_half(void *arg)
{
    reader *b = arg;
    int rc = pyprof__collapsed_read_lines(b, false);
    atomic_store_explicit(&b->gauge->slot[b->gauge_slot].done, true, memory_order_relaxed);
    return rc < 0 ? (void *)b : NULL; /* non-NULL: it failed */
}

/* This half has been read and the other is still being read: make room
 * now for what the merge may add, which the merge (pyprof__collapsed_merge)
 * would otherwise make while the other thread waits.  Every function and
 * node of the other half may be new here; their counts are what it last
 * told the gauge, and a little more.  On the 100 MB benchmark file the
 * frame cache doubled in the merge (16,400 entries rehashed into 65,536
 * slots, 0.75-1 ms), and the node array and the per-node tail arrays
 * were copied to bigger blocks. */
static void
make_room_while_waiting(reader *a, pyprof__collapsed_gauge *g)
{
    if (atomic_load_explicit(&g->slot[1].done, memory_order_relaxed))
        return;
    uint64_t f = atomic_load_explicit(&g->slot[1].funcs, memory_order_relaxed);
    uint64_t n = atomic_load_explicit(&g->slot[1].nodes, memory_order_relaxed);
    /* (hints: a failure leaves the room to be made as before) */
    if (f < SIZE_MAX / 2)
        (void)pyprof__collapsed_frames_reserve(a, (size_t)(f + f / 8));
    if (n < UINT32_MAX / 2)
        (void)pyprof__collapsed_nodes_reserve(a, (size_t)(n + n / 8));
}

/* Read [0, mid) here and [mid, end) on a second thread; merge, or else
 * read [mid, end) here too.  Nothing was read if this fails before the
 * thread starts. */
static int
read_halves(reader *a, uint64_t mid, bool *done)
{
    int rc;
    pyprof_error berr = PYPROF_ERROR_INIT;
    reader b = {.err = &berr,
                .dialect = a->dialect,
                .lazy = a->lazy,
                .text_tails = a->text_tails,
                .elide = a->elide,
                .names_later = true};
    pthread_t th;
    void *failed = NULL;
    pyprof__collapsed_gauge gauge = {0}; /* (see light_limit in collapsed_stack.c) */
    if ((rc = pyprof_profile_new(&b.p)) < 0)
        return 0; /* read in one pass instead */
    if (pyprof__input_open_range(&b.in, a->in, mid, UINT64_MAX, &berr) < 0 ||
        pyprof__input_set_end(a->in, mid) < 0)
        goto one_pass;
    b.start_at = pyprof_input_offset(b.in);
    b.gauge = &gauge;
    b.gauge_slot = 1;
    if (pthread_create(&th, NULL, read_half, &b) != 0) {
        pyprof__input_set_end(a->in, UINT64_MAX);
        goto one_pass;
    }
    a->gauge = &gauge;
    a->names_later = true; /* (collapsed_names.c) */
    *done = true;
    rc = pyprof__collapsed_read_lines(a, true);
    if (rc == 0)
        make_room_while_waiting(a, &gauge);
    pthread_join(th, &failed);
    pyprof__collapsed_gauge_leave(a);
    pyprof__input_reread_adopt(a->in, b.in); /* (checked once, at the end of the read) */
    if (rc < 0)
        goto out;
    if (!failed && pyprof__collapsed_halves_mergeable(a, &b)) {
        pyprof__collapsed_reader_drop_lookups(&b); /* before a grows */
        if ((rc = pyprof__collapsed_merge(a, &b)) < 0 && rc != PYPROF_EIO)
            rc = pyprof_input_error(a->in, a->err, rc, "collapsed", pyprof_input_offset(a->in),
                                    "%s", pyprof_status_string(rc));
        else {
            pyprof__split_gate_joined(&gate);
            pyprof__input_report_done(a->in);
        }
        goto out;
    }
    /* the second half's work cannot stand in for one pass: read it here */
    if ((rc = pyprof__input_set_end(a->in, UINT64_MAX)) == 0)
        rc = pyprof__collapsed_read_lines(a, false);
    else
        rc = pyprof_input_error(a->in, a->err, rc, "collapsed", pyprof_input_offset(a->in),
                                "cannot read past the middle of the file");
    goto out;
one_pass:
    rc = 0;
    *done = false;
out:
    pyprof_input_close(b.in);
    pyprof__collapsed_reader_free(&b);
    pyprof_profile_free(b.p);
    return rc;
}

int
pyprof__collapsed_read_split(reader *r, bool *done)
{
    *done = false;
    int64_t size = pyprof_input_file_size(r->in);
    if (!pyprof__split_gate_open(&gate, size) || r->dialect != D_FOLDED ||
        pyprof_input_is_compressed(r->in) || pyprof_input_offset(r->in) != 0)
        return 0;
    uint64_t mid;
    pyprof_error ignored = PYPROF_ERROR_INIT;
    /* the first line that starts at or after the middle */
    if (pyprof__input_line_start(r->in, (uint64_t)size / 2 - 1, &mid, &ignored) < 0 ||
        mid >= (uint64_t)size)
        return 0; /* no line starts after the middle: one pass */
    return read_halves(r, mid, done);
}

#else /* no threads: always one pass */

int
pyprof__collapsed_read_split(reader *r, bool *done)
{
    (void)r;
    *done = false;
    return 0;
}

#endif
