/*
 * lprof.c - reader for line_profiler results (kernprof -l, LineProfiler.dump_stats).
 *
 * Spec: ../shared/docs/formats.md section 5.  An .lprof file is a pickle of one
 * LineStats instance whose state holds
 *     timings: {(filename, first_lineno, func_name): [(lineno, nhits, time), ...]}
 *     unit:    seconds per time unit (1e-9 for 4.0+ on Linux, 1e-6 before)
 * Every other viewer opens it with pickle.load, which runs whatever code the
 * file names; here the pickle runs on pickle.c's data-only machine, which
 * accepts nothing but LineStats (protocols 0-5, line_profiler 2.x-5.x).
 *
 * Into the model: each timings key becomes a function flagged
 * PYPROF_FUNC_LINES (also when its list is empty: registered but never run),
 * in dict order; its entries become line records in list order, times in
 * the file's unit (pyprof_profile_line_unit).  A key that occurs twice
 * behaves as in a Python dict: the first position, the last value.
 *
 * Function totals, so that pyprof-stats can rank lprof functions too:
 * line_profiler measures wall time per line, including the time of what the
 * line calls, so the sum over a function's lines is its inclusive time; it
 * has no way to tell self time from it, so tottime and cumtime both get that
 * sum.  It does not count calls either (the hits of the first line are calls
 * for a plain function, but iterations for a loop header and resumptions for
 * a generator), so ncalls and primcalls stay 0, which pstats-style printers
 * show as "unknown" (no per-call columns).
 */
#include "config.h"

#include <stdarg.h>

#include "pickle.h"

#define LPROF "lprof"

/* ---- probe -------------------------------------------------------------------------- */

static bool
contains(const unsigned char *h, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (h[i] == (unsigned char)needle[0] && memcmp(h + i, needle, k) == 0)
            return true;
    return false;
}

static int
lprof_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)at_eof;
    /* The class path sits within the first ~100 bytes in every protocol
     * (formats.md section 13); 256 leaves room for a long memo prefix. */
    size_t window = len < 256 ? len : 256;
    bool named = contains(head, window, "LineStats") &&
                 (contains(head, window, "_line_profiler") ||
                  contains(head, window, "line_profiler.line_profiler"));
    if (len >= 2 && head[0] == 0x80 && head[1] <= 5)
        return named ? 100 : 0; /* PROTO n: a pickle; ours if it names LineStats */
    if (len >= 1 && head[0] == 'c' && contains(head, window, "_reconstructor\n"))
        return named ? 90 : 0; /* protocols 0/1: copy_reg._reconstructor first */
    return 0;
}

/* ---- reader ------------------------------------------------------------------------- */

struct reader {
    pyprof_profile *p;
    pyprof__pickle *pk;
    pyprof_input *in;
    pyprof_error *err;
    uint64_t base; /* input offset of the pickle's first byte */
};

__attribute__((format(printf, 4, 5))) static int
bad(struct reader *r, pyprof__pk_id at, int code, const char *fmt, ...)
{
    char msg[PYPROF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    pyprof__vsnprintf_c(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pyprof_input_error(r->in, r->err, code, LPROF,
                              r->base + pyprof__pickle_node(r->pk, at)->offset, "%s", msg);
}

static bool
is_text(const pyprof__pk_node *n)
{
    return n->type == PYPROF__PK_STR || n->type == PYPROF__PK_BYTES;
}

static bool
is_int(const pyprof__pk_node *n)
{
    return n->type == PYPROF__PK_INT || n->type == PYPROF__PK_BOOL;
}

static bool
text_is(struct reader *r, pyprof__pk_id id, const char *s)
{
    size_t n;
    const char *b = pyprof__pickle_bytes(r->pk, id, &n);
    return b && n == strlen(s) && memcmp(b, s, n) == 0;
}

/* Python 3 str is UTF-8 here; Python 2 str (bytes) is whatever the file
 * system used, usually UTF-8, else taken as Latin-1. */
static int
intern_text(struct reader *r, pyprof__pk_id id, pyprof_id *out)
{
    size_t n;
    const char *b = pyprof__pickle_bytes(r->pk, id, &n);
    int latin1 = pyprof__pickle_node(r->pk, id)->type == PYPROF__PK_BYTES;
    int rc = pyprof_profile_intern_lossy(r->p, out, b, n, latin1);
    return rc < 0 ? bad(r, id, rc, "out of memory") : 0;
}

/* One (lineno, nhits, time) entry. */
static int
read_entry(struct reader *r, pyprof_id func, pyprof__pk_id e, double *total)
{
    const pyprof__pk_node *t = pyprof__pickle_node(r->pk, e);
    if (t->type != PYPROF__PK_TUPLE || t->len != 3)
        return bad(r, e, PYPROF_EFORMAT, "a line entry is a %s, not a (lineno, hits, time) tuple",
                   pyprof__pickle_type_name(t->type));
    const pyprof__pk_node *line = pyprof__pickle_node(r->pk, pyprof__pickle_item(r->pk, e, 0));
    const pyprof__pk_node *hits = pyprof__pickle_node(r->pk, pyprof__pickle_item(r->pk, e, 1));
    const pyprof__pk_node *time = pyprof__pickle_node(r->pk, pyprof__pickle_item(r->pk, e, 2));
    if (!is_int(line) || !is_int(hits))
        return bad(r, e, PYPROF_EFORMAT, "a line entry's lineno and hits must be integers");
    double tv;
    if (is_int(time))
        tv = (double)time->u.i;
    else if (time->type == PYPROF__PK_FLOAT)
        tv = time->u.f; /* merged 5.x stats may carry rescaled times */
    else
        return bad(r, e, PYPROF_EFORMAT, "a line entry's time is a %s, not a number",
                   pyprof__pickle_type_name(time->type));
    *total += tv;
    int rc = pyprof_profile_line_add(r->p, func, line->u.i, hits->u.i, tv);
    return rc < 0 ? bad(r, e, rc, "out of memory") : 0;
}

static int
read_timings(struct reader *r, pyprof__pk_id timings, double unit)
{
    const pyprof__pk_node *d = pyprof__pickle_node(r->pk, timings);
    size_t npairs = d->len;
    pyprof_id *fid = NULL;
    size_t *last = NULL;
    int rc = 0;

    if (d->type != PYPROF__PK_DICT)
        return bad(r, timings, PYPROF_EFORMAT, "LineStats.timings is a %s, not a dict",
                   pyprof__pickle_type_name(d->type));
    fid = pyprof__calloc(npairs ? npairs : 1, sizeof(*fid));
    last = pyprof__calloc(npairs ? npairs : 1, sizeof(*last));
    if (!fid || !last) {
        rc = bad(r, timings, PYPROF_ENOMEM, "out of memory");
        goto out;
    }

    /* pass 1: keys -> functions, in dict order; remember each one's last pair */
    for (size_t i = 0; i < npairs; i++) {
        pyprof__pk_id key = pyprof__pickle_item(r->pk, timings, 2 * i);
        const pyprof__pk_node *k = pyprof__pickle_node(r->pk, key);
        if (k->type != PYPROF__PK_TUPLE || k->len != 3) {
            rc = bad(r, key, PYPROF_EFORMAT,
                     "a timings key is a %s, not a (filename, lineno, name) tuple",
                     pyprof__pickle_type_name(k->type));
            goto out;
        }
        pyprof__pk_id kf = pyprof__pickle_item(r->pk, key, 0);
        pyprof__pk_id kl = pyprof__pickle_item(r->pk, key, 1);
        pyprof__pk_id kn = pyprof__pickle_item(r->pk, key, 2);
        if (!is_text(pyprof__pickle_node(r->pk, kf)) || !is_int(pyprof__pickle_node(r->pk, kl)) ||
            !is_text(pyprof__pickle_node(r->pk, kn))) {
            rc = bad(r, key, PYPROF_EFORMAT,
                     "a timings key must be (str filename, int lineno, str name)");
            goto out;
        }
        pyprof_id file, name;
        int created;
        PYPROF_TRY(intern_text(r, kf, &file));
        PYPROF_TRY(intern_text(r, kn, &name));
        rc = pyprof_profile_func_intern(r->p, &fid[i], file, pyprof__pickle_node(r->pk, kl)->u.i,
                                        name, PYPROF_FUNC_LINES, &created);
        if (rc < 0) {
            rc = bad(r, key, rc, "out of memory");
            goto out;
        }
        pyprof_profile_func_mut(r->p, fid[i])->flags |= PYPROF_FUNC_LINES;
        if (fid[i] >= npairs) { /* cannot happen: the reader starts from an empty profile */
            rc = bad(r, key, PYPROF_EINVAL, "the profile to read into is not empty");
            goto out;
        }
        last[fid[i]] = i; /* ids are 0..n-1, one per distinct key */
    }

    /* pass 2: each function's entries, from its last value */
    for (size_t i = 0; i < npairs; i++) {
        if (last[fid[i]] != i)
            continue;
        pyprof__pk_id list = pyprof__pickle_item(r->pk, timings, 2 * i + 1);
        const pyprof__pk_node *l = pyprof__pickle_node(r->pk, list);
        if (l->type != PYPROF__PK_LIST && l->type != PYPROF__PK_TUPLE) {
            rc = bad(r, list, PYPROF_EFORMAT, "a timings value is a %s, not a list",
                     pyprof__pickle_type_name(l->type));
            goto out;
        }
        double total = 0;
        for (size_t j = 0; j < l->len; j++)
            PYPROF_TRY(read_entry(r, fid[i], pyprof__pickle_item(r->pk, list, j), &total));
        pyprof_func *f = pyprof_profile_func_mut(r->p, fid[i]);
        f->counts.tottime = f->counts.cumtime = total * unit;
    }
    rc = 0;
out:
    pyprof__free(fid);
    pyprof__free(last);
    return rc;
}

static int
lprof_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    struct reader r = {p, NULL, in, err, pyprof_input_offset(in)};
    pyprof__pickle_limits lim = {0};
    const unsigned char *data;
    size_t len;
    pyprof__pk_id root, timings = 0, unit = 0;
    bool have_timings = false, have_unit = false;
    int rc;

    if ((rc = pyprof_input_slurp(in, &data, &len, err)) < 0)
        return rc;
    lim.max_marks = opts && opts->max_depth ? opts->max_depth : 0;
    if ((rc = pyprof__pickle_new(&r.pk, &lim)) < 0)
        return pyprof_input_error(in, err, rc, LPROF, r.base, "out of memory");
    rc = pyprof__pickle_run(r.pk, &root, data, len, pyprof_input_name(in), LPROF, err);
    if (rc < 0) {
        if (err && err->offset >= 0)
            err->offset += (int64_t)r.base;
        goto out;
    }

    const pyprof__pk_node *obj = pyprof__pickle_node(r.pk, root);
    if (obj->type != PYPROF__PK_INSTANCE) {
        rc = bad(&r, root, PYPROF_EFORMAT, "the pickle holds a %s, not a LineStats",
                 pyprof__pickle_type_name(obj->type));
        goto out;
    }
    /* attributes from every BUILD state, later ones win (setattr order) */
    for (size_t s = 0; s < obj->len; s++) {
        pyprof__pk_id state = pyprof__pickle_item(r.pk, root, s);
        const pyprof__pk_node *d = pyprof__pickle_node(r.pk, state);
        for (size_t i = 0; i < d->len; i++) {
            pyprof__pk_id k = pyprof__pickle_item(r.pk, state, 2 * i);
            pyprof__pk_id v = pyprof__pickle_item(r.pk, state, 2 * i + 1);
            if (text_is(&r, k, "timings")) {
                timings = v;
                have_timings = true;
            } else if (text_is(&r, k, "unit")) {
                unit = v;
                have_unit = true;
            }
        }
    }
    if (!have_timings || !have_unit) {
        rc = bad(&r, root, PYPROF_EFORMAT, "LineStats has no '%s' attribute",
                 have_timings ? "unit" : "timings");
        goto out;
    }
    const pyprof__pk_node *u = pyprof__pickle_node(r.pk, unit);
    double seconds = u->type == PYPROF__PK_FLOAT ? u->u.f : is_int(u) ? (double)u->u.i : -1;
    if (!(seconds > 0) || seconds > 1e9) {
        rc = bad(&r, unit, PYPROF_EFORMAT, "LineStats.unit is not a positive number of seconds");
        goto out;
    }
    pyprof_profile_set_line_unit(p, seconds);
    PYPROF_TRY(read_timings(&r, timings, seconds));
    if ((rc = pyprof_profile_meta_set(p, "producer", "line_profiler")) < 0 ||
        (rc = pyprof_profile_meta_set(p, "lprof_class", pyprof__pickle_global_name(obj->sub))) <
            0) {
        rc = pyprof_input_error(in, err, rc, LPROF, r.base, "out of memory");
        goto out;
    }
out:
    pyprof__pickle_free(r.pk);
    return rc;
}

const pyprof__format pyprof__format_lprof = {
    .name = "lprof",
    .aliases = NULL,
    .description = "line_profiler results (kernprof -l): a pickled LineStats, read without "
                   "running pickle",
    .probe = lprof_probe,
    .read = lprof_read,
};
