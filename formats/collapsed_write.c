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

#include "render/convert_int.h"

struct frame_text {
    bool sanitized;
};

static void
put_clean(pyprof_output *o, const char *s, size_t n, struct frame_text *ft)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ';' || c == '\n' || c == '\r') {
            pyprof_output_write(o, s + start, i - start);
            pyprof_output_write(o, c == ';' ? ":" : " ", 1);
            start = i + 1;
            ft->sanitized = true;
        }
    }
    pyprof_output_write(o, s + start, n - start);
}

/* The frame text: for frames read from folded stacks exactly the original
 * text (pyprof_flame_frame_label knows each dialect's shape), otherwise
 * "NAME (FILE:LINE)" or the bare name of a built-in. */
static int
put_frame(pyprof_output *o, const pyprof_profile *p, pyprof_id func, struct frame_text *ft)
{
    char small[512];
    size_t n = pyprof_flame_frame_label(p, func, small, sizeof(small));
    if (n < sizeof(small)) {
        put_clean(o, small, n, ft);
        return 0;
    }
    char *big = pyprof__malloc(n + 1);
    if (!big)
        return PYPROF_ENOMEM;
    pyprof_flame_frame_label(p, func, big, n + 1);
    put_clean(o, big, n, ft);
    pyprof__free(big);
    return 0;
}

/* Integers as integers; anything else in plain decimal notation, because
 * flamegraph.pl's grammar has no exponent. */
static void
put_count(pyprof_output *o, double v, bool *fractional)
{
    if (v == floor(v) && fabs(v) < 9.0e15) {
        pyprof_output_printf(o, "%lld", (long long)v);
        return;
    }
    *fractional = true;
    char buf[64];
    for (int prec = 1; prec <= 20; prec++) {
        pyprof__snprintf_c(buf, sizeof(buf), "%.*f", prec, v);
        if (pyprof__strtod_c(buf, NULL) == v)
            break;
    }
    pyprof_output_puts(o, buf);
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
    struct frame_text ft = {false};
    bool fractional = false;
    unsigned metrics = pyprof_profile_stack_metrics(p) >= 2 ? 2 : 1;
    /* seconds become integer microseconds; sample counts stay as they are */
    double scale = pyprof__unit_is_seconds(p) ? 1e6 : 1.0;

    if (estimated)
        pyprof_output_puts(o, "# stacks estimated from the call graph by caller ratios; "
                              "weights in microseconds\n");
    else if (scale != 1.0)
        pyprof__note(opts->notes, "folded counts are integers: times are written in "
                                  "microseconds");
    if (pyprof_profile_caps(in) & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "folded stacks have no line timings: they are dropped");
    if (pyprof_profile_caps(in) & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "folded stacks have no memory timeline: it is dropped");

    size_t nn = pyprof_profile_stack_count(p);
    for (size_t i = 0; i < nn; i++) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)i);
        double w[2] = {nd->self[0] * scale, nd->self[1] * scale};
        if (scale != 1.0) {
            w[0] = (double)llround(w[0]);
            w[1] = (double)llround(w[1]);
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
        while (depth-- > 0) {
            if ((rc = put_frame(o, p, pyprof_profile_stack_node(p, path[depth])->func, &ft)) < 0)
                goto out;
            if (depth)
                pyprof_output_write(o, ";", 1);
        }
        pyprof_output_write(o, " ", 1);
        put_count(o, w[0], &fractional);
        if (metrics == 2) {
            pyprof_output_write(o, " ", 1);
            put_count(o, w[1], &fractional);
        }
        pyprof_output_write(o, "\n", 1);
    }
    if (ft.sanitized)
        pyprof__note(opts->notes, "';' and line breaks in frame names were replaced by ':' and "
                                  "spaces");
    if (fractional)
        pyprof__note(opts->notes, "some counts are fractional: flamegraph.pl accepts them, "
                                  "speedscope and gprof2dot do not");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "collapsed", -1, 0, "cannot write folded stacks: %s",
                         pyprof_status_string(rc));
    pyprof__free(path);
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_collapsed = {
    .name = "collapsed",
    .aliases = "folded collapse",
    .description = "collapsed (folded) stacks, as flamegraph.pl reads them",
    .write = collapsed_write,
};
