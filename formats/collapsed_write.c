/*
 * collapsed_write.c - writer of collapsed ("folded") stacks, formats.md §8.
 *
 * One line per stack with a non-zero self weight, root first, frames joined
 * by ';', one space, the count, '\n'.  That is the intersection every
 * consumer accepts (flamegraph.pl, inferno, speedscope, gprof2dot): so ';'
 * inside names becomes ':', line breaks become spaces, and counts are
 * integers whenever the data allows (sample counts always do; times in
 * seconds are written as integer microseconds).  Two-metric stack trees
 * (differential data) are written as "stack before after", as difffolded.pl.
 *
 * Frames read from folded stacks keep their text byte for byte; others are
 * "NAME (FILE:LINE)", the shape py-spy uses with --function, or the bare
 * NAME for built-ins.
 * Lines follow node id order, which is first-seen order of the stacks.
 */
#include "config.h"

#include <math.h>

#include <pyprof/flame.h>

#include "collapsed.h"
#include "render/convert_int.h"

/* Every function's frame text, made the first time a stack uses it: a big
 * profile's stacks name each function thousands of times, and making its
 * label (a snprintf) and cleaning it each time took most of the writer's
 * time.  The texts are kept back to back in one buffer. */
struct label {
    size_t at, n; /* n == SIZE_MAX: not made yet */
};

struct labels {
    char *text;
    size_t len, cap;
    struct label *of; /* by function id */
    bool sanitized;   /* a ';' or a line break was replaced */
};

/* Append s[0..n) to the label text, ';' as ':' and line breaks as spaces. */
static int
add_clean(struct labels *l, const char *s, size_t n)
{
    if (PYPROF_GROW(l->text, l->cap, l->len + n) < 0)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ';' || c == '\n' || c == '\r') {
            c = c == ';' ? ':' : ' ';
            l->sanitized = true;
        }
        l->text[l->len++] = c;
    }
    return 0;
}

/* The frame text of func: for frames read from folded stacks exactly the
 * original text (pyprof_flame_frame_label knows each dialect's shape),
 * otherwise "NAME (FILE:LINE)" or the bare name of a built-in. */
static int
label_of(struct labels *l, const pyprof_profile *p, pyprof_id func, const char **s, size_t *n)
{
    struct label *lb = &l->of[func];
    if (lb->n == SIZE_MAX) {
        char small[512];
        size_t k = pyprof_flame_frame_label(p, func, small, sizeof(small));
        size_t at = l->len;
        int rc;
        if (k < sizeof(small)) {
            rc = add_clean(l, small, k);
        } else {
            char *big = pyprof__malloc(k + 1);
            if (!big)
                return PYPROF_ENOMEM;
            pyprof_flame_frame_label(p, func, big, k + 1);
            rc = add_clean(l, big, k);
            pyprof__free(big);
        }
        if (rc < 0)
            return rc;
        *lb = (struct label){at, l->len - at};
    }
    *s = l->text ? l->text + lb->at : ""; /* (nothing stored yet: all labels empty) */
    *n = lb->n;
    return 0;
}

/* One output line, built in memory and written at once. */
struct line {
    char *b;
    size_t n, cap;
};

static int
line_add(struct line *ln, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (PYPROF_GROW(ln->b, ln->cap, ln->n + n) < 0)
        return PYPROF_ENOMEM;
    memcpy(ln->b + ln->n, s, n);
    ln->n += n;
    return 0;
}

/* Integers as integers, of any size; anything else in plain decimal
 * notation, because flamegraph.pl's grammar has no exponent. */
static int
add_count(struct line *ln, double v, bool *fractional)
{
    char buf[400]; /* "%.0f" of DBL_MAX: 309 digits */
    if (v == floor(v) && fabs(v) < 9.0e15)
        return line_add(ln, buf, (size_t)(pyprof__fmt_i64(buf, (int64_t)v) - buf));
    if (v == floor(v) && isfinite(v)) { /* every digit of the double, as written */
        int n = pyprof__snprintf_c(buf, sizeof(buf), "%.0f", v);
        return line_add(ln, buf, n > 0 ? (size_t)n : 0);
    }
    *fractional = true;
    for (int prec = 1; prec <= 20; prec++) {
        pyprof__snprintf_c(buf, sizeof(buf), "%.*f", prec, v);
        if (pyprof__strtod_c(buf, NULL) == v)
            break;
    }
    return line_add(ln, buf, strlen(buf));
}

static int
collapsed_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
                pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int estimated;
    int rc = pyprof__stack_view(in, &p, &owned, &estimated, opts, err);
    if (rc < 0)
        return rc;
    pyprof_id *path = NULL;
    size_t path_cap = 0;
    struct labels lab = {NULL, 0, 0, NULL, false};
    struct line ln = {NULL, 0, 0};
    bool fractional = false, joined = false, uncommented = false, negative = false;
    /* A second count column makes a folded line differential (before,
     * after) for flamegraph.pl and every reader: only before/after data
     * may be written so; austin's memory column is dropped instead. */
    const char *sm = pyprof_profile_meta_get(p, "stack_metrics");
    bool two = pyprof_profile_stack_metrics(p) >= 2;
    unsigned metrics = two && sm && strcmp(sm, "before,after") == 0 ? 2 : 1;
    if (two && metrics == 1)
        pyprof__note(opts->notes,
                     "folded stacks hold one count per stack: of the metrics \"%s\" "
                     "only the first is kept",
                     sm ? sm : "first,second");
    /* seconds become integer microseconds; sample counts stay as they are */
    double scale = pyprof__unit_is_seconds(p) ? 1e6 : 1.0;

    const char *est = pyprof_profile_meta_get(p, "stacks_estimated");
    if (estimated || (est && strcmp(est, "1") == 0))
        pyprof_output_puts(o, PYPROF__FOLDED_ESTIMATE_LINE "\n");
    else if (scale != 1.0)
        pyprof__note(opts->notes, "folded counts are integers: times are written in "
                                  "microseconds");
    if (pyprof_profile_caps(in) & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "folded stacks have no line timings: they are dropped");
    if (pyprof_profile_caps(in) & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "folded stacks have no memory timeline: it is dropped");

    size_t nf = pyprof_profile_func_count(p);
    if (!(lab.of = pyprof__malloc((nf ? nf : 1) * sizeof(*lab.of)))) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t f = 0; f < nf; f++)
        lab.of[f].n = SIZE_MAX;
    size_t nn = pyprof_profile_stack_count(p);
    for (size_t i = 0; i < nn; i++) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)i);
        double w[2] = {nd->self[0] * scale, nd->self[1] * scale};
        if (scale != 1.0) {
            w[0] = round(w[0]); /* (not llround: no overflow above 2^63) */
            w[1] = round(w[1]);
        }
        if (!(w[0] >= 0) || (metrics == 2 && !(w[1] >= 0))) {
            /* flamegraph.pl's counts have no sign (nor NaN): such a line
             * would be a malformed line to every reader */
            negative = true;
            continue;
        }
        if (w[0] == 0 && (metrics < 2 || w[1] == 0)) {
            /* a zero-weight leaf is still a stack that was seen (austin's
             * first samples): keep it, so that its functions survive */
            const pyprof_id *kids;
            size_t nkids;
            if ((rc = pyprof_profile_stack_children(p, (pyprof_id)i, &kids, &nkids)) < 0)
                goto out;
            if (nkids)
                continue;
        }
        size_t depth = 0;
        for (pyprof_id id = (pyprof_id)i; id != PYPROF_NONE;
             id = pyprof_profile_stack_node(p, id)->parent) {
            if ((rc = PYPROF_GROW(path, path_cap, depth + 1)) < 0)
                goto out;
            path[depth++] = id;
        }
        ln.n = 0;
        while (depth-- > 0) {
            pyprof_id func = pyprof_profile_stack_node(p, path[depth])->func;
            const char *t;
            size_t tn;
            if ((rc = label_of(&lab, p, func, &t, &tn)) < 0 || (rc = line_add(&ln, t, tn)) < 0 ||
                (rc = line_add(&ln, depth ? ";" : " ", 1)) < 0)
                goto out;
        }
        /* a line that starts with '#' is a comment to austin's readers and
         * could pass for our estimate mark: the frame starts with '_' */
        if (ln.n > 1 && ln.b[0] == '#') {
            ln.b[0] = '_';
            uncommented = true;
        }
        /* a stack that ends in "<space>NUMBER" itself would be read as the
         * first of two counts: join the number to its frame */
        size_t num = metrics == 1 ? pyprof__folded_count_start(ln.b, ln.n - 1) : 0;
        if (num) {
            ln.b[num - 1] = '_';
            joined = true;
        }
        if ((rc = add_count(&ln, w[0], &fractional)) < 0)
            goto out;
        if (metrics == 2 &&
            ((rc = line_add(&ln, " ", 1)) < 0 || (rc = add_count(&ln, w[1], &fractional)) < 0))
            goto out;
        if ((rc = line_add(&ln, "\n", 1)) < 0)
            goto out;
        pyprof_output_write(o, ln.b, ln.n);
    }
    if (lab.sanitized)
        pyprof__note(opts->notes, "';' and line breaks in frame names were replaced by ':' and "
                                  "spaces");
    if (negative)
        pyprof__note(opts->notes, "folded counts have no sign: stacks with a negative weight "
                                  "were left out");
    if (uncommented)
        pyprof__note(opts->notes, "a stack that started with '#' was written with '_' for it: "
                                  "austin's readers take such lines for comments");
    if (joined)
        pyprof__note(opts->notes, "a space before a number that ends a stack was written as '_', "
                                  "or the number would be read as a count");
    if (fractional)
        pyprof__note(opts->notes, "some counts are fractional: flamegraph.pl accepts them, "
                                  "speedscope and gprof2dot do not");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "collapsed", -1, 0, "cannot write folded stacks: %s",
                         pyprof_status_string(rc));
    pyprof__free(path);
    pyprof__free(lab.text);
    pyprof__free(lab.of);
    pyprof__free(ln.b);
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_collapsed = {
    .name = "collapsed",
    .aliases = "folded collapse",
    .description = "collapsed (folded) stacks, as flamegraph.pl reads them",
    .write = collapsed_write,
};
