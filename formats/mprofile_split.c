/*
 * mprofile_split.c - reading a big mprofile file on two threads.
 *
 * A 10^6-sample file (30 MB) took ~40 ms to read on one core, nearly all of
 * it the plain "MEM <MiB> <time>" lines: splitting them into numbers and
 * storing them.  Such lines are independent of each other, so a plain file
 * is cut at the line boundary nearest its middle: this thread reads the
 * first half by the general rules while a second thread reads the second
 * half, and the second half's samples then follow the first half's.
 *
 * No copy, no extra memory: the samples array is reserved for the whole
 * file (its size foreseen from the lines per byte of the first window, with
 * a margin for each half), and the second thread writes its samples into
 * that array from `half_guard` on, the index the first half is foreseen
 * not to reach.  When both are done, the second half's samples are moved
 * down to follow the first half's (a memmove within memory that is already
 * faulted in, see presize in mprofile.c).  Should the first half need more
 * samples than foreseen, the second thread is stopped before the first
 * half writes where it writes (pyprof__mprofile_will_hold), and its work is
 * dropped; should the second half need more, it gives up itself.
 *
 * "The same as one pass" is kept by doing little on the second thread: it
 * takes only plain MEM lines ("MEM ", two plain decimals, '\n'), which add
 * one sample each to the main series and nothing else.  At the first line
 * of any other kind (FUNC, CHLD, CMDLINE, a blank line, "\r\n", a number
 * strtod would be needed for, a malformed line, a last line without a
 * newline) it stops, its work is dropped, and this thread reads on past
 * the middle as if it had never stopped: slower, never different.  Errors
 * are those of one pass too: an error in the first half is reported before
 * anything else, and one in the second half is found again, with its line
 * number, when this thread reads that half itself.
 *
 * Not split: small files (threads cost more than they save), pipes, zstd
 * (a stream cannot be entered in the middle), and one-CPU machines.
 */
#include "config.h"

#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif
#include <stdatomic.h>

#include "mprofile.h"

/* Below this a file is read in a few milliseconds, and the thread would
 * take a good part of what it saves. */
static pyprof__split_gate gate = PYPROF__SPLIT_GATE((uint64_t)4 << 20);

uint64_t
pyprof__mprofile_split_min(uint64_t bytes)
{
    return pyprof__split_gate_set_min(&gate, bytes);
}

uint64_t
pyprof__mprofile_merges(void)
{
    return pyprof__split_gate_count(&gate);
}

#if defined(HAVE_PTHREAD)

/* The second half, read on the second thread. */
struct pyprof__mprofile_half {
    pthread_t thread;
    pyprof_input *in; /* [middle, end of file) */
    pyprof_error err;
    pyprof_mem_sample *out; /* room for cap samples in the model's array */
    size_t cap, n;
    pyprof__mem_shape shape; /* of its last plain line (mprofile_line.h) */
    atomic_bool stop;        /* set by this thread: drop what you are doing */
    bool stopped;            /* joined early: its work does not count */
    bool plain;              /* every line was a plain MEM line: out[0, n) is the half */
    int rc;
    /* out[0, n) summarized for the plot, as the first half's are
     * (mprofile.c); the two are joined without another pass over them */
    pyprof__mem_summary sum;
    bool sum_ok;
};

static void *
read_plain(void *arg)
{
    struct pyprof__mprofile_half *h = arg;
    while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
        const unsigned char *data;
        size_t avail;
        const size_t want = PYPROF__MPROFILE_WINDOW;
        if ((h->rc = pyprof_input_peek(h->in, want, &data, &avail, &h->err)) < 0)
            return NULL;
        bool eof = avail < want; /* peek stops short only at the end */
        const char *s = (const char *)data, *end = s + avail;
        while (s < end && h->n < h->cap) {
            double mib, t;
            const char *next = pyprof__mprofile_plain_mem(&h->shape, s, end, &mib, &t);
            if (!next)
                break;
            h->out[h->n++] = (pyprof_mem_sample){0, t, mib};
            s = next;
        }
        /* while the window's samples are in cache */
        if (h->sum_ok && pyprof__mem_summary_reserve(&h->sum, h->n) < 0)
            h->sum_ok = false;
        if (h->sum_ok)
            pyprof__mem_summary_feed(&h->sum, h->out, h->n);
        pyprof_input_consume(h->in, (size_t)(s - (const char *)data));
        if (s == end && eof) {
            h->plain = true;
            return NULL;
        }
        /* another kind of line, one longer than the window, or more
         * samples than foreseen: give up */
        if (eof || h->n == h->cap || s == (const char *)data || memchr(s, '\n', (size_t)(end - s)))
            return NULL;
        /* else the window ends inside a line: read on */
    }
    return NULL;
}

/* Wait for the second thread; `stop`: tell it to stop first, and drop its
 * work. */
static void
half_join(reader *r, bool stop)
{
    struct pyprof__mprofile_half *h = r->half;
    if (!h)
        return;
    if (stop)
        atomic_store_explicit(&h->stop, true, memory_order_relaxed);
    pthread_join(h->thread, NULL);
    h->stopped = stop;
    r->half = NULL;
}

void
pyprof__mprofile_half_stop(reader *r)
{
    half_join(r, true);
}

int
pyprof__mprofile_read_split(reader *r, pyprof__mprofile_lines_fn lines, bool *done)
{
    *done = false;
    int64_t size = pyprof_input_file_size(r->in);
    if (!pyprof__split_gate_open(&gate, size) || pyprof_input_is_compressed(r->in) ||
        pyprof_input_offset(r->in) != 0)
        return 0;
    uint64_t mid;
    pyprof_error ignored = PYPROF_ERROR_INIT;
    /* the first line that starts at or after the middle */
    if (pyprof__input_line_start(r->in, (uint64_t)size / 2 - 1, &mid, &ignored) < 0 ||
        mid >= (uint64_t)size)
        return 0;

    /* room for each half: foreseen as presize foresaw the whole (lines per
     * byte, or at most one per 8 bytes when the file was too small to
     * look at), so that the reserve is already there for a big file */
    double per_byte = r->per_byte > 0 ? r->per_byte : 1.0 / 8;
    size_t have = pyprof_profile_mem_sample_count(r->p);
    size_t na = (size_t)((double)mid * per_byte * PYPROF__MPROFILE_MARGIN) + PYPROF__MPROFILE_SLOTS;
    size_t nb = (size_t)((double)((uint64_t)size - mid) * per_byte * PYPROF__MPROFILE_MARGIN) +
                PYPROF__MPROFILE_SLOTS;
    pyprof__mprofile_will_hold(r, have + na + nb);
    pyprof_mem_sample *room = pyprof__profile_mem_samples_reserve(r->p, na + nb);
    if (!room)
        return 0; /* one pass will report the lack of memory where it comes */

    struct pyprof__mprofile_half h = {
        .err = PYPROF_ERROR_INIT, .out = room + na, .cap = nb, .sum_ok = r->sum_on};
    pyprof__mem_summary_init(&h.sum, NULL, NULL, 0);
    atomic_init(&h.stop, false);
    if (pyprof__input_open_range(&h.in, r->in, mid, UINT64_MAX, &h.err) < 0) {
        pyprof_error_clear(&h.err);
        return 0;
    }
    if (pyprof__input_set_end(r->in, mid) < 0) {
        pyprof_input_close(h.in);
        pyprof_error_clear(&h.err);
        return 0;
    }
    int rc;
    if (pthread_create(&h.thread, NULL, read_plain, &h) != 0) {
        pyprof_input_close(h.in);
        pyprof_error_clear(&h.err);
        pyprof__mem_summary_free(&h.sum);
        if ((rc = pyprof__input_set_end(r->in, UINT64_MAX)) < 0)
            return pyprof_input_error(r->in, r->err, rc, "mprofile", 0,
                                      "cannot read past the middle of the file");
        return 0;
    }
    *done = true;
    r->half = &h;
    r->half_guard = have + na;
    rc = lines(r); /* the first half; stops the second thread if it needs its room */
    half_join(r, rc < 0);
    if (rc == 0 && !h.stopped && h.rc == 0 && h.plain) {
        /* the array did not move: nothing was added past half_guard */
        pyprof__mprofile_summarize(r); /* all of the first half */
        size_t na_got = pyprof_profile_mem_sample_count(r->p);
        pyprof_mem_sample *at = pyprof__profile_mem_samples_reserve(r->p, h.n);
        memmove(at, h.out, h.n * sizeof *at);
        pyprof__profile_mem_samples_commit(r->p, h.n);
        /* the halves' summaries joined (else mprofile_read goes on with
         * the first half's over the second half's samples) */
        if (r->sum_on && h.sum_ok && r->sum.n == na_got) {
            pyprof__mem_summary_finish(&h.sum);
            pyprof__mem_summary_finish(&r->sum);
            if (pyprof__mem_summary_reserve(&r->sum, na_got + h.n) == 0)
                pyprof__mem_summary_append(&r->sum, &h.sum, pyprof_profile_mem_sample(r->p, 0));
            else
                r->sum_on = false;
        }
        r->line += h.n;
        r->records += (unsigned)h.n;
        pyprof__split_gate_joined(&gate);
        pyprof__input_report_done(r->in);
    } else if (rc == 0) {
        /* the second half's work cannot stand in for one pass: read it here */
        if ((rc = pyprof__input_set_end(r->in, UINT64_MAX)) == 0)
            rc = lines(r);
        else
            rc = pyprof_input_error(r->in, r->err, rc, "mprofile", pyprof_input_offset(r->in),
                                    "cannot read past the middle of the file");
    }
    pyprof_input_close(h.in);
    pyprof_error_clear(&h.err);
    pyprof__mem_summary_free(&h.sum);
    return rc;
}

#else /* no threads: always one pass */

void
pyprof__mprofile_half_stop(reader *r)
{
    (void)r;
}

int
pyprof__mprofile_read_split(reader *r, pyprof__mprofile_lines_fn lines, bool *done)
{
    (void)r;
    (void)lines;
    *done = false;
    return 0;
}

#endif
