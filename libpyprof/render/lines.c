/*
 * lines.c - line_profiler's text report, and JSON/CSV exports of line timings.
 *
 * Spec: ../shared/docs/formats.md section 6, line_profiler 4.0.2's
 * show_text/show_func (the CLI `python -m line_profiler`):
 *   "Timer unit: %g s" (the output unit), a blank line, then per function
 *   in (filename, first_lineno, name) order:
 *     "Total time: %g s"  (sum of the function's times x unit)
 *     "File: F" / "Function: NAME at line N", or, when F does not exist,
 *     a blank line and the four "Could not find file" lines;
 *     a blank line, the header, a rule of '=' as long as the header, one
 *     row per line of the function's source block, a blank line.
 *   Rows: template "%6s %9s %12s %8s %8s  %-s" of (lineno, hits, time,
 *   per hit, % time, text); time and per hit are "%5.1f" of time x
 *   (unit / output unit) (/ hits), % time "%5.1f" of 100 x time / total or
 *   empty when the total is 0; lines without timings get empty fields.
 * Options of later versions: -t sorts by ascending total time (stable over
 * file order, 4.1+), -m appends "%6.2f seconds - F:N - NAME" lines (4.1+).
 *
 * Arithmetic follows Python's: times are summed as doubles in list order,
 * an integer time is converted to a double once, and 100 * time is formed
 * exactly before the division, so the rounding of "%5.1f" agrees.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include <pyprof/lines.h>

#include "lines_int.h"
#include "render/emit.h"

/* One (line, hits, time) row of a function, after summing duplicates. */
struct row {
    int64_t line;
    int64_t hits;
    double time;
};

/* A function with a line table and its rows, sorted by line. */
struct fn {
    pyprof_id id;
    const pyprof_func *f;
    const char *file, *name; /* for sorting without the profile */
    size_t file_len, name_len;
    struct row *rows; /* into view.rows */
    size_t nrows;     /* after merging duplicate lines */
    size_t nrecords;  /* records as stored (line_profiler's list length) */
    int64_t min_line, max_line;
    double total; /* sum of times in the profile's unit, record order */
};

struct view {
    struct fn *fns;
    size_t nfns;
    struct row *rows;
    double unit;
};

static void
view_free(struct view *v)
{
    pyprof__free(v->fns);
    pyprof__free(v->rows);
}

static int
cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

/* Gather the functions with line tables and their records: one counting
 * pass, one placing pass (record order kept), then per function a sort by
 * line that sums records of the same line (a merge of several profiles
 * leaves one record per input). */
static int
view_build(struct view *v, const pyprof_profile *p, pyprof_error *err)
{
    size_t nfuncs = pyprof_profile_func_count(p), nlines = pyprof_profile_line_count(p);
    size_t *slot = NULL, *fill = NULL;
    int rc = 0;

    memset(v, 0, sizeof(*v));
    v->unit = pyprof_profile_line_unit(p);
    slot = pyprof__calloc(nfuncs + 1, sizeof(*slot)); /* func id -> index in fns, +1 */
    v->fns = pyprof__calloc(nfuncs + 1, sizeof(*v->fns));
    v->rows = pyprof__calloc(nlines + 1, sizeof(*v->rows));
    fill = pyprof__calloc(nfuncs + 1, sizeof(*fill));
    if (!slot || !v->fns || !v->rows || !fill) {
        rc = pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nfuncs; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (!(f->flags & PYPROF_FUNC_LINES))
            continue;
        slot[i] = v->nfns + 1;
        v->fns[v->nfns++] = (struct fn){.id = (pyprof_id)i,
                                        .f = f,
                                        .file = pyprof_profile_string(p, f->file),
                                        .file_len = pyprof_profile_string_len(p, f->file),
                                        .name = pyprof_profile_string(p, f->name),
                                        .name_len = pyprof_profile_string_len(p, f->name)};
    }
    for (size_t i = 0; i < nlines; i++) {
        const pyprof_line_stat *l = pyprof_profile_line(p, i);
        if (l->func < nfuncs && slot[l->func])
            v->fns[slot[l->func] - 1].nrecords++;
    }
    size_t at = 0;
    for (size_t k = 0; k < v->nfns; k++) {
        v->fns[k].rows = v->rows + at;
        fill[k] = at;
        at += v->fns[k].nrecords;
    }
    for (size_t i = 0; i < nlines; i++) {
        const pyprof_line_stat *l = pyprof_profile_line(p, i);
        if (l->func >= nfuncs || !slot[l->func])
            continue;
        struct fn *fn = &v->fns[slot[l->func] - 1];
        if (fill[slot[l->func] - 1] == (size_t)(fn->rows - v->rows)) {
            fn->min_line = fn->max_line = l->line;
        } else {
            fn->min_line = l->line < fn->min_line ? l->line : fn->min_line;
            fn->max_line = l->line > fn->max_line ? l->line : fn->max_line;
        }
        fn->total += l->time;
        v->rows[fill[slot[l->func] - 1]++] = (struct row){l->line, l->hits, l->time};
    }
    for (size_t k = 0; k < v->nfns; k++) {
        struct fn *fn = &v->fns[k];
        size_t n = fn->nrecords, w = 0;
        qsort(fn->rows, n, sizeof(*fn->rows), cmp_row);
        for (size_t i = 0; i < n; i++) {
            if (w && fn->rows[w - 1].line == fn->rows[i].line) {
                fn->rows[w - 1].hits += fn->rows[i].hits;
                fn->rows[w - 1].time += fn->rows[i].time;
            } else {
                fn->rows[w++] = fn->rows[i];
            }
        }
        fn->nrows = w;
    }
out:
    pyprof__free(slot);
    pyprof__free(fill);
    if (rc < 0)
        view_free(v);
    return rc;
}

/* ---- ordering ----------------------------------------------------------------------- */

/* Python orders the keys (filename, first_lineno, name): strings by code
 * point, which for UTF-8 is byte order. */
static int
cmp_str(const char *a, size_t la, const char *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

static int
cmp_key(const void *a, const void *b)
{
    const struct fn *x = a, *y = b;
    int c = cmp_str(x->file, x->file_len, y->file, y->file_len);
    if (c)
        return c;
    if (x->f->line != y->f->line)
        return x->f->line < y->f->line ? -1 : 1;
    c = cmp_str(x->name, x->name_len, y->name, y->name_len);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Ascending total time; ties keep file order (Python's sort is stable). */
static int
cmp_time(const void *a, const void *b)
{
    const struct fn *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* ---- the text report ---------------------------------------------------------------- */

static const struct row *
find_row(const struct fn *fn, int64_t line)
{
    size_t lo = 0, hi = fn->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fn->rows[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < fn->nrows && fn->rows[lo].line == line ? &fn->rows[lo] : NULL;
}

/* 100 * time / total as Python computes it for an int time: the product is
 * exact, then converted to float once. */
static double
percent(double time, double total)
{
    if (time == floor(time) && fabs(time) < 9e15)
        return (double)((int64_t)time * 100) / total;
    return 100 * time / total;
}

/* Append `s` (n bytes) right-aligned in `width` columns, as Python's %Ns
 * (wider text is not cut: the row just shifts, as in line_profiler). */
static char *
put_right(char *p, const char *s, size_t n, size_t width)
{
    for (size_t i = n; i < width; i++)
        *p++ = ' ';
    memcpy(p, s, n);
    return p + n;
}

/* One row of the template "%6s %9s %12s %8s %8s  %s\n".  Rows are most of
 * the output, so they are assembled here and written once.  "%5.1f" is
 * pyprof__fmt_f1's "%.1f" right-aligned: every column is wider than 5. */
static void
print_row(pyprof_output *o, int64_t lineno, const struct row *r, double scalar, double total,
          const char *text)
{
    char ln[24], hits[24], t[64], per[64], pct[64];
    size_t nl = (size_t)(pyprof__fmt_i64(ln, lineno) - ln), nh = 0, nt = 0, np = 0, nc = 0;
    char row[6 + 1 + 9 + 1 + 12 + 1 + 8 + 1 + 8 + 2 + 24 + 3 * 64], *p = row;
    if (r) {
        nh = (size_t)(pyprof__fmt_i64(hits, r->hits) - hits);
        nt = pyprof__fmt_f1(t, sizeof(t), r->time * scalar);
        if (r->hits != 0) /* line_profiler divides by zero here; we leave it blank */
            np = pyprof__fmt_f1(per, sizeof(per), r->time * scalar / (double)r->hits);
        if (total != 0)
            nc = pyprof__fmt_f1(pct, sizeof(pct), percent(r->time, total));
        nt = nt < sizeof(t) ? nt : sizeof(t) - 1;
        np = np < sizeof(per) ? np : sizeof(per) - 1;
        nc = nc < sizeof(pct) ? nc : sizeof(pct) - 1;
    }
    p = put_right(p, ln, nl, 6);
    *p++ = ' ';
    p = put_right(p, hits, nh, 9);
    *p++ = ' ';
    p = put_right(p, t, nt, 12);
    *p++ = ' ';
    p = put_right(p, per, np, 8);
    *p++ = ' ';
    p = put_right(p, pct, nc, 8);
    *p++ = ' ';
    *p++ = ' ';
    pyprof_output_write(o, row, (size_t)(p - row));
    pyprof_output_puts(o, text);
    pyprof_output_write(o, "\n", 1);
}

static int
print_function(pyprof_output *o, const pyprof_profile *p, const struct fn *fn, double unit,
               double output_unit, pyprof__src_cache *cache)
{
    const char *file = pyprof_profile_string(p, fn->f->file);
    const pyprof__src *src;
    int64_t start = fn->f->line;
    size_t first = 0, nsub;
    int rc;

    pyprof_output_printf(o, "Total time: %g s\n", fn->total * unit);
    if ((rc = pyprof__src_get(cache, fn->f->file, file, &src)) < 0)
        return rc;
    if (src->state == PYPROF__SRC_MISSING) {
        pyprof_output_printf(o,
                             "\nCould not find file %s\n"
                             "Are you sure you are running this program from the same directory\n"
                             "that you ran the profiler from?\n"
                             "Continuing without the function's contents.\n",
                             file);
        /* fake empty lines: enough to show every timed line */
        if (!fn->nrecords) {
            nsub = 1;
        } else {
            int64_t lo = fn->min_line < start ? fn->min_line : start;
            int64_t n = fn->max_line - lo + 1;
            nsub = n > 0 ? (size_t)n : 0;
        }
    } else {
        pyprof_output_printf(o, "File: %s\nFunction: %s at line %lld\n", file,
                             pyprof_profile_string(p, fn->f->name), (long long)start);
        /* all_lines[start - 1:], with Python's negative-index slicing */
        int64_t idx = start - 1;
        if (idx < 0)
            idx = (int64_t)src->nlines + idx < 0 ? 0 : (int64_t)src->nlines + idx;
        first = (size_t)idx;
        nsub = pyprof__src_block(src, first);
    }

    static const char header[] = "Line #      Hits         Time  Per Hit   % Time  Line Contents";
    pyprof_output_printf(o, "\n%s\n", header);
    for (size_t i = 0; i < sizeof(header) - 1; i++)
        pyprof_output_write(o, "=", 1);
    pyprof_output_write(o, "\n", 1);
    double scalar = unit / output_unit;
    for (size_t i = 0; i < nsub; i++) {
        int64_t lineno = start + (int64_t)i;
        const char *text =
            src->state == PYPROF__SRC_LINES ? src->text + src->line_start[first + i] : "";
        print_row(o, lineno, find_row(fn, lineno), scalar, fn->total, text);
    }
    pyprof_output_write(o, "\n", 1);
    return 0;
}

static int
check_caps(const pyprof_profile *p, const struct view *v, pyprof_error *err)
{
    if (!v->nfns && pyprof_profile_line_unit(p) <= 0)
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has no line timings (only .lprof files have them)");
    return 0;
}

int
pyprof_render_lines(const pyprof_profile *p, pyprof_output *out, const pyprof_lines_options *opts,
                    pyprof_error *err)
{
    pyprof_lines_options def = PYPROF_LINES_OPTIONS_INIT;
    pyprof__src_cache *cache = NULL;
    struct view v;
    int rc;

    if (!opts)
        opts = &def;
    if (opts->version != PYPROF_LINES_OPTIONS_VERSION)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "pyprof_lines_options version %u is not %u", opts->version,
                                PYPROF_LINES_OPTIONS_VERSION);
    if (opts->output_unit < 0 || isnan(opts->output_unit))
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "the output unit must be a positive number of seconds");
    if ((rc = view_build(&v, p, err)) < 0)
        return rc;
    if ((rc = check_caps(p, &v, err)) < 0)
        goto out;
    double unit = v.unit;
    double output_unit = opts->output_unit > 0 ? opts->output_unit : unit;

    qsort(v.fns, v.nfns, sizeof(*v.fns), opts->sort_by_time ? cmp_time : cmp_key);

    if ((rc = pyprof__src_cache_new(&cache, opts->source_roots, opts->nsource_roots)) < 0) {
        rc = pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
        goto out;
    }
    pyprof_output_printf(out, "Timer unit: %g s\n\n", output_unit);
    for (size_t k = 0; k < v.nfns; k++) {
        if (opts->skip_zero && v.fns[k].total == 0)
            continue;
        if ((rc = print_function(out, p, &v.fns[k], unit, output_unit, cache)) < 0) {
            rc = pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
            goto out;
        }
    }
    if (opts->summarize) {
        for (size_t k = 0; k < v.nfns; k++) {
            const struct fn *fn = &v.fns[k];
            if (opts->skip_zero && fn->total == 0)
                continue;
            pyprof_output_printf(out, "%6.2f seconds - %s:%lld - %s\n", fn->total * unit,
                                 pyprof_profile_string(p, fn->f->file), (long long)fn->f->line,
                                 pyprof_profile_string(p, fn->f->name));
        }
    }
    rc = pyprof_output_status(out, err);
out:
    pyprof__src_cache_free(cache);
    view_free(&v);
    return rc;
}

/* ---- JSON and CSV --------------------------------------------------------------------- */

int
pyprof_lines_write_json(const pyprof_profile *p, pyprof_output *out, pyprof_error *err)
{
    struct view v;
    int rc = view_build(&v, p, err);
    if (rc < 0)
        return rc;
    if ((rc = check_caps(p, &v, err)) < 0)
        goto out;
    pyprof_output_puts(out, "{\"unit\": ");
    pyprof__json_exact(out, v.unit);
    pyprof_output_puts(out, ", \"functions\": [");
    for (size_t k = 0; k < v.nfns; k++) {
        const struct fn *fn = &v.fns[k];
        pyprof_output_puts(out, k ? ",\n  {\"file\": " : "\n  {\"file\": ");
        pyprof__json_string(out, pyprof_profile_string(p, fn->f->file));
        pyprof_output_printf(out, ", \"line\": %lld, \"name\": ", (long long)fn->f->line);
        pyprof__json_string(out, pyprof_profile_string(p, fn->f->name));
        pyprof_output_puts(out, ", \"total_time\": ");
        pyprof__json_exact(out, fn->total * v.unit);
        pyprof_output_puts(out, ", \"lines\": [");
        for (size_t i = 0; i < fn->nrows; i++) {
            const struct row *r = &fn->rows[i];
            pyprof_output_printf(out,
                                 "%s{\"line\": %lld, \"hits\": %lld, \"time\": ", i ? ", " : "",
                                 (long long)r->line, (long long)r->hits);
            pyprof__json_exact(out, r->time * v.unit);
            pyprof_output_puts(out, "}");
        }
        pyprof_output_puts(out, "]}");
    }
    pyprof_output_puts(out, v.nfns ? "\n]}\n" : "]}\n");
    rc = pyprof_output_status(out, err);
out:
    view_free(&v);
    return rc;
}

int
pyprof_lines_write_csv(const pyprof_profile *p, pyprof_output *out, pyprof_error *err)
{
    struct view v;
    int rc = view_build(&v, p, err);
    if (rc < 0)
        return rc;
    if ((rc = check_caps(p, &v, err)) < 0)
        goto out;
    pyprof_output_puts(out, "file,function,first_line,line,hits,time_s,time_per_hit_s\n");
    for (size_t k = 0; k < v.nfns; k++) {
        const struct fn *fn = &v.fns[k];
        for (size_t i = 0; i < fn->nrows; i++) {
            const struct row *r = &fn->rows[i];
            pyprof__csv_field(out, pyprof_profile_string(p, fn->f->file));
            pyprof_output_write(out, ",", 1);
            pyprof__csv_field(out, pyprof_profile_string(p, fn->f->name));
            pyprof_output_printf(out, ",%lld,%lld,%lld,", (long long)fn->f->line,
                                 (long long)r->line, (long long)r->hits);
            pyprof__json_exact(out, r->time * v.unit);
            pyprof_output_write(out, ",", 1);
            if (r->hits)
                pyprof__json_exact(out, r->time * v.unit / (double)r->hits);
            pyprof_output_puts(out, "\n");
        }
    }
    rc = pyprof_output_status(out, err);
out:
    view_free(&v);
    return rc;
}
