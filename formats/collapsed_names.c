/*
 * collapsed_names.c - making a split read's functions off the path that
 * waits for them.
 *
 * A new frame text costs its function: the text split into name, file and
 * line, two strings interned, the function interned.  On the 100 MB
 * benchmark file each of the two threads that read it made 14,000 of
 * those, and the merge 5,300 more, about half a microsecond each: a tenth
 * of the read, all of it on the threads everything else waits for.  Yet
 * while a file is read only the function's id is needed (the tree, the
 * tails and the frame cache hold ids), and its fields only once the graph
 * is drawn.
 *
 * So the readers of a split read give a new plain text the next id and
 * keep a copy of the text (names_later, collapsed_frame.c).  Once the
 * merge has given ids to the second half's new texts, all the functions
 * given ids so far are made on a helper thread, on the core whose reader
 * has finished, while the merge adds the second half's nodes and tails
 * (which touch no string or function); the few that the merge's walks
 * and the end of the read give after that are made at the end.  They are
 * made in id order, which is the order of first appearance: the same ids,
 * strings and frame shape as one pass gives.  Text that is not plain is
 * interned as it is met (its repair may make two texts one string), so it
 * first makes every function that waits, and the reader makes its
 * functions at once from then on.
 */
#include "config.h"

#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif

#include "collapsed.h"

/* Make the functions whose texts are texts[0..n), ids from `first` on. */
static int
make_range(reader *r, const struct func_text *texts, size_t first, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc =
            pyprof__collapsed_func_make(r, (pyprof_id)(first + i), texts[i].text, texts[i].len);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Make every function given an id and not made yet, here. */
static int
make_rest(reader *r)
{
    size_t made = pyprof_profile_func_count(r->p);
    return r->nfunc > made ? make_range(r, r->ftext + made, made, r->nfunc - made) : 0;
}

#if defined(HAVE_PTHREAD)

/* The helper's work: ids [first, first + n), with their texts copied out
 * of r->ftext (which the reader may grow meanwhile; the texts themselves
 * never move). */
struct pyprof__names_job {
    reader *r;
    struct func_text *texts;
    size_t first, n;
    int rc;
    pthread_t thread;
};

static void *
make_job(void *arg)
{
    struct pyprof__names_job *j = arg;
    j->rc = make_range(j->r, j->texts, j->first, j->n);
    return NULL;
}

int
pyprof__collapsed_names_start(reader *r)
{
    size_t made = pyprof_profile_func_count(r->p);
    if (r->names_job || r->nfunc <= made)
        return 0;
    struct pyprof__names_job *j = pyprof__malloc(sizeof(*j));
    struct func_text *texts = pyprof__malloc((r->nfunc - made) * sizeof(*texts));
    if (!j || !texts) {
        pyprof__free(j);
        pyprof__free(texts);
        return make_rest(r);
    }
    memcpy(texts, r->ftext + made, (r->nfunc - made) * sizeof(*texts));
    *j = (struct pyprof__names_job){.r = r, .texts = texts, .first = made, .n = r->nfunc - made};
    if (pthread_create(&j->thread, NULL, make_job, j) != 0) {
        pyprof__free(j);
        pyprof__free(texts);
        return make_rest(r);
    }
    r->names_job = j;
    return 0;
}

int
pyprof__collapsed_names_join(reader *r)
{
    struct pyprof__names_job *j = r->names_job;
    if (!j)
        return 0;
    pthread_join(j->thread, NULL);
    int rc = j->rc;
    pyprof__free(j->texts);
    pyprof__free(j);
    r->names_job = NULL;
    return rc;
}

#else /* no threads: made where they are asked for */

int
pyprof__collapsed_names_start(reader *r)
{
    return make_rest(r);
}

int
pyprof__collapsed_names_join(reader *r)
{
    (void)r;
    return 0;
}

#endif

int
pyprof__collapsed_names_flush(reader *r)
{
    int rc = pyprof__collapsed_names_join(r);
    r->names_later = false;
    return rc < 0 ? rc : make_rest(r);
}
