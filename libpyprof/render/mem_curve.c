/*
 * mem_curve.c - the curves of a memory plot: points gathered from the
 * model and sorted by time, trend lines, the summed children curve, the
 * labels mprof gives functions, and the two steps that keep large curves
 * cheap and correct to draw: clipping to a window and decimation by
 * min/max per pixel column (see mem_plot.c for why it loses nothing).
 */
#include "config.h"

#include <math.h>

#include "pyprof_int.h"

#include "mem_plot.h"

/* ---- points -------------------------------------------------------------------- */

typedef struct pt {
    double t, m;
    size_t order; /* tie-break: a stable sort by time */
} pt;

static int
cmp_pt(const void *a, const void *b)
{
    const pt *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Points of `series`, plus its brackets' entry and exit points when
 * `with_funcs` (mprof merges those into the main curve), sorted by time,
 * as arrays x (epoch s) and y (MiB) in the layout's arena.  MEM lines are
 * time-ordered in practice, so a 10^6-sample curve is never sorted, and
 * when its samples are also one stretch of the model's array (one file, no
 * CHLD lines in between) and no brackets join them, it is not even copied:
 * *run points at the stretch.  Brackets (or a shuffled file) take a stable
 * sort. */
int
pyprof__mem_series_points(pyprof__mem_layout *l, const pyprof_profile *p, pyprof_id series,
                          bool with_funcs, double **xo, double **yo, const pyprof_mem_sample **run,
                          pyprof__mem_bounds *bounds, size_t *n)
{
    size_t ns = pyprof_profile_mem_sample_count(p), nb = pyprof_profile_mem_bracket_count(p);
    /* samples are one dense array (profile.h): index it directly rather
     * than through an accessor call per sample */
    const pyprof_mem_sample *sm = ns ? pyprof_profile_mem_sample(p, 0) : NULL;
    size_t nfunc = 0;
    if (with_funcs)
        for (size_t i = 0; i < nb; i++)
            nfunc += 2 * (pyprof_profile_mem_bracket(p, i)->series == series);
    if (run) {
        *run = NULL;
        bounds->known = false;
    }
    if (run && nfunc == 0 && ns > 0 && pyprof_profile_mem_series_count(p) == 1 &&
        sm[0].series == series) {
        /* one file, no CHLD lines: every sample is this series'.  Check
         * the order and find the bounds in the same pass, unless the
         * reader did (core/mem_summary.c).  With a NaN its bounds are
         * not used: the plot's own pass gives them as it always did. */
        const pyprof__mem_summary *sum = pyprof__profile_mem_summary(p);
        bool scanned = false;
        if (sum && !sum->nan && sum->n == ns) {
            scanned = sum->ordered;
            if (scanned)
                *bounds = (pyprof__mem_bounds){true,
                                               sm[0].t - sm[0].t,
                                               sm[ns - 1].t - sm[0].t,
                                               sum->lo,
                                               sum->hi,
                                               sum->peak,
                                               sum->chunks ? sum->chunk_lo : NULL,
                                               sum->chunks ? sum->chunk_hi : NULL,
                                               sum->split};
        } else {
            scanned = pyprof__mem_scan_run(&l->arena, sm, ns, bounds);
        }
        if (scanned) {
            *run = sm;
            *xo = *yo = NULL;
            *n = ns;
            return 0;
        }
    }
    size_t cnt = 0, first = 0, last = 0;
    bool in_order = true;
    for (size_t i = 0; i < ns; i++) {
        if (sm[i].series != series)
            continue;
        if (cnt == 0)
            first = i;
        else
            in_order = in_order && sm[last].t <= sm[i].t;
        last = i;
        cnt++;
    }
    if (run && cnt > 0 && nfunc == 0 && in_order && last - first + 1 == cnt) {
        *run = sm + first;
        *xo = *yo = NULL;
        *n = cnt;
        return 0;
    }
    cnt += nfunc;
    size_t bytes;
    if (pyprof__mul_overflows(cnt ? cnt : 1, sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    double *x = pyprof__arena_alloc(&l->arena, bytes), *y = pyprof__arena_alloc(&l->arena, bytes);
    if (!x || !y)
        return PYPROF_ENOMEM;
    size_t k = 0;
    bool sorted = nfunc == 0;
    for (size_t i = 0; i < ns; i++) {
        if (sm[i].series != series)
            continue;
        x[k] = sm[i].t;
        y[k] = sm[i].mib;
        sorted = sorted && (k == 0 || x[k - 1] <= x[k]);
        k++;
    }
    if (!sorted) {
        pt *v = pyprof__reallocarray(NULL, cnt, sizeof(pt));
        if (!v)
            return PYPROF_ENOMEM;
        for (size_t i = 0; i < k; i++)
            v[i] = (pt){x[i], y[i], i};
        for (size_t i = 0; i < nb && nfunc; i++) {
            const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, i);
            if (b->series != series)
                continue;
            v[k] = (pt){b->t0, b->m0, k};
            k++;
            v[k] = (pt){b->t1, b->m1, k};
            k++;
        }
        qsort(v, k, sizeof(pt), cmp_pt);
        for (size_t i = 0; i < k; i++) {
            x[i] = v[i].t;
            y[i] = v[i].m;
        }
        pyprof__free(v);
    }
    *xo = x;
    *yo = y;
    *n = k;
    return 0;
}

bool
pyprof__mem_scan_run(pyprof__arena *a, const pyprof_mem_sample *run, size_t n,
                     pyprof__mem_bounds *out)
{
    const size_t ch = PYPROF__MEM_CHUNK;
    size_t nch = (n + ch - 1) / ch, bytes = 0;
    uint32_t *clo = NULL, *chi = NULL;
    /* indices are stored in 32 bits; a bigger run simply goes without */
    if (n <= UINT32_MAX && !pyprof__mul_overflows(nch ? nch : 1, sizeof(uint32_t), &bytes)) {
        clo = pyprof__arena_alloc(a, bytes);
        chi = clo ? pyprof__arena_alloc(a, bytes) : NULL;
    }
    pyprof__mem_summary s;
    pyprof__mem_summary_init(&s, clo, chi, nch);
    pyprof__mem_summary_feed(&s, run, n);
    pyprof__mem_summary_finish(&s);
    if (!s.ordered)
        return false;
    /* sorted: x runs from 0 to the last time */
    *out = (pyprof__mem_bounds){
        true, run[0].t - run[0].t, run[n - 1].t - run[0].t, s.lo, s.hi, s.peak, NULL, NULL, 0};
    if (s.chunks && !s.nan) { /* NaN compares false both ways: no shortcuts */
        out->chunk_lo = clo;
        out->chunk_hi = chi;
    }
    return true;
}

/* One pass over 10^6 points with the bounds in locals: through a struct
 * pointer they would be stored and reloaded per point, as the compiler
 * cannot tell them from the points. */
size_t
pyprof__mem_extent(const pyprof__mem_curve *c, double *x0, double *x1, double *y0, double *y1)
{
    if (c->bounds.known) {
        *x0 = c->bounds.x0;
        *x1 = c->bounds.x1;
        *y0 = c->bounds.y0;
        *y1 = c->bounds.y1;
        return c->bounds.peak;
    }
    size_t n = c->n, peak = 0;
    double lx = pyprof__mem_cx(c, 0), hx = lx, ly = pyprof__mem_cy(c, 0), hy = ly;
    if (c->run) {
        const pyprof_mem_sample *r = c->run;
        double start = c->start;
        for (size_t i = 1; i < n; i++) {
            double x = r[i].t - start, y = r[i].mib;
            lx = x < lx ? x : lx;
            hx = x > hx ? x : hx;
            ly = y < ly ? y : ly;
            if (y > hy) {
                hy = y;
                peak = i;
            }
        }
    } else {
        const double *xs = c->x, *ys = c->y;
        for (size_t i = 1; i < n; i++) {
            double x = xs[i], y = ys[i];
            lx = x < lx ? x : lx;
            hx = x > hx ? x : hx;
            ly = y < ly ? y : ly;
            if (y > hy) {
                hy = y;
                peak = i;
            }
        }
    }
    *x0 = lx;
    *x1 = hx;
    *y0 = ly;
    *y1 = hy;
    return peak;
}

/* np.polyfit(x, y, 1), centred for accuracy with epoch-sized values. */
void
pyprof__mem_fit_line(const double *x, const double *y, size_t n, double *slope, double *icept)
{
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    *slope = sxx > 0 ? sxy / sxx : 0;
    *icept = my - *slope * mx;
}

/* Make a curve of points (x in epoch s, made relative to `start` here),
 * with its trend if asked. */
int
pyprof__mem_set_points(pyprof__mem_layout *l, pyprof__mem_curve *c, double *x, double *y,
                       const pyprof_mem_sample *run, size_t n, double start, bool trend)
{
    if (!run)
        for (size_t i = 0; i < n; i++)
            x[i] -= start;
    c->x = run ? NULL : x;
    c->y = run ? NULL : y;
    c->run = run;
    c->n = c->nraw = n;
    c->start = start;
    if (trend && n > 0) {
        int rc = pyprof__mem_materialize(&l->arena, c);
        if (rc < 0)
            return rc;
        c->trend = true;
        pyprof__mem_fit_line(c->x, c->y, n, &c->slope, &c->intercept);
    }
    return 0;
}

/* The same subtraction as pyprof__mem_set_points' on a copy, so a view
 * and a copy of the same samples give the same doubles. */
int
pyprof__mem_materialize(pyprof__arena *a, pyprof__mem_curve *c)
{
    if (!c->run)
        return 0;
    size_t bytes;
    if (pyprof__mul_overflows(c->n ? c->n : 1, sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    double *x = pyprof__arena_alloc(a, bytes), *y = pyprof__arena_alloc(a, bytes);
    if (!x || !y)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        x[i] = c->run[i].t - c->start;
        y[i] = c->run[i].mib;
    }
    c->x = x;
    c->y = y;
    c->run = NULL;
    return 0;
}

/* main + children: each child holds its latest sample from its first to
 * its last one, and counts as exited (0) outside that span. */
int
pyprof__mem_sum_curve(pyprof__mem_layout *l, pyprof__mem_curve *sum, const pyprof__mem_curve *main,
                      const pyprof__mem_curve *const *kids, size_t nkids)
{
    size_t bytes;
    if (pyprof__mul_overflows(main->n ? main->n : 1, sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    sum->x = pyprof__arena_alloc(&l->arena, bytes);
    sum->y = pyprof__arena_alloc(&l->arena, bytes);
    size_t *pos = pyprof__calloc(nkids ? nkids : 1, sizeof(size_t));
    if (!sum->x || !sum->y || !pos) {
        pyprof__free(pos);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < main->n; i++) {
        double t = main->x[i], m = main->y[i];
        for (size_t k = 0; k < nkids; k++) {
            const pyprof__mem_curve *c = kids[k];
            while (pos[k] < c->n && c->x[pos[k]] <= t)
                pos[k]++;
            if (pos[k] > 0 && t <= c->x[c->n - 1])
                m += c->y[pos[k] - 1];
        }
        sum->x[i] = t;
        sum->y[i] = m;
    }
    pyprof__free(pos);
    sum->n = sum->nraw = main->n;
    return 0;
}

/* ---- function labels ----------------------------------------------------------- */

/* The last `k` dotted components of `name` (all of it if it has fewer). */
static const char *
suffix_k(const char *name, int k)
{
    const char *s = name + strlen(name);
    int seen = 0;
    while (s > name) {
        if (s[-1] == '.' && ++seen == k)
            return s;
        s--;
    }
    return name;
}

/* mprof's function_labels(): the shortest dotted suffix that no other
 * function shares.  `names` are distinct string ids. */
const char *
pyprof__mem_short_label(const pyprof_profile *p, const pyprof_id *names, size_t n, size_t which)
{
    const char *me = pyprof_profile_string(p, names[which]);
    for (int k = 1; k < 64; k++) {
        const char *mine = suffix_k(me, k);
        bool unique = true;
        for (size_t j = 0; j < n && unique; j++)
            if (j != which && strcmp(suffix_k(pyprof_profile_string(p, names[j]), k), mine) == 0)
                unique = false;
        if (unique)
            return mine;
        if (mine == me)
            break; /* nothing longer to try */
    }
    return me;
}

/* ---- decimation and clipping ------------------------------------------------- */

/* Keep the points inside [x0, x1], with the line cut exactly at the edges
 * (the scene has no clipping).  x is non-decreasing, so a segment crosses
 * x0 before x1. */
int
pyprof__mem_clip(pyprof__arena *a, pyprof__mem_curve *c, double x0, double x1)
{
    size_t bytes;
    if (pyprof__mul_overflows(c->n + 2, sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    double *nx = pyprof__arena_alloc(a, bytes), *ny = pyprof__arena_alloc(a, bytes);
    if (!nx || !ny)
        return PYPROF_ENOMEM;
    size_t k = 0, inside = 0;
    for (size_t i = 0; i < c->n; i++) {
        double x = c->x[i], y = c->y[i];
        if (i > 0) {
            double px = c->x[i - 1], py = c->y[i - 1];
            if (px < x0 && x > x0 && k < c->n + 2) {
                nx[k] = x0;
                ny[k++] = py + (y - py) * (x0 - px) / (x - px);
                c->cut[0] = true; /* only ever the first point */
            }
            if (px < x1 && x > x1 && k < c->n + 2) {
                nx[k] = x1;
                ny[k++] = py + (y - py) * (x1 - px) / (x - px);
                c->cut[1] = true; /* only ever the last point */
            }
        }
        if (x >= x0 && x <= x1 && k < c->n + 2) {
            nx[k] = x;
            ny[k++] = y;
            inside++;
        }
    }
    c->x = nx;
    c->y = ny;
    c->n = k;
    c->bounds.known = false;
    c->nraw = inside;
    return 0;
}

/* Min/max per pixel column of the points [0, n) of `c` into (ox, oy), at
 * most `cap` points; returns how many, or SIZE_MAX if `cap` was too small.
 * ox/oy may be c's own arrays (with `cap` SIZE_MAX): output never
 * overtakes input. */
static size_t
decimate_into(const pyprof__mem_curve *c, double *ox, double *oy, size_t cap, double xmin,
              double scale)
{
    /* locals, not c->...: the stores to ox/oy could alias them */
    const pyprof_mem_sample *run = c->run;
    const double *xs = c->x, *ys = c->y;
    double start = c->start;
    size_t n = c->n, k = 0, i = 0;
    /* chunk summaries describe the view as it is */
    const uint32_t *clo = run ? c->bounds.chunk_lo : NULL, *chi = run ? c->bounds.chunk_hi : NULL;
    const size_t ch = PYPROF__MEM_CHUNK;
    /* a second grid of chunks from `split` on (pyprof__mem_summary) */
    const size_t split = c->bounds.chunk_split, qsplit = (split + ch - 1) / ch;
#define X(i)   (run ? run[i].t - start : xs[i])
#define Y(i)   (run ? run[i].mib : ys[i])
#define COL(i) ((long)((X(i) - xmin) * scale))
    /* x >= xmin here (the view holds the data, or the curve was clipped),
     * so truncation is floor */
    while (i < n) {
        long col = COL(i);
        size_t j = i + 1, lo = i, hi = i;
        double ylo = Y(i), yhi = ylo;
        for (;;) {
            /* A whole chunk in this column: its first lowest and highest
             * points stand for it.  COL never decreases (x is sorted, and
             * each step of it is monotonic), so a chunk whose last point
             * is in the column lies in it entirely; merging the chunks in
             * order with strict comparisons keeps the first extremes, as
             * the point-by-point loop below does. */
            size_t base = j < split ? 0 : split;
            if (clo && (j - base) % ch == 0 && j < n) {
                size_t gend = j < split ? split : n; /* the end of this grid */
                size_t e = gend - j < ch ? gend - 1 : j + ch - 1;
                size_t q = (base ? qsplit : 0) + (j - base) / ch;
                if (COL(e) == col) {
                    if (Y(clo[q]) < ylo) {
                        lo = clo[q];
                        ylo = Y(lo);
                    }
                    if (Y(chi[q]) > yhi) {
                        hi = chi[q];
                        yhi = Y(hi);
                    }
                    j = e + 1;
                    continue;
                }
            }
            if (j >= n || COL(j) != col)
                break;
            double y = Y(j);
            if (y < ylo) {
                lo = j;
                ylo = y;
            }
            if (y > yhi) {
                hi = j;
                yhi = y;
            }
            j++;
        }
        size_t idx[4] = {i, lo < hi ? lo : hi, lo < hi ? hi : lo, j - 1};
        if (cap - k < 4)
            return SIZE_MAX;
        for (int q = 0; q < 4; q++) {
            if (q > 0 && idx[q] == idx[q - 1])
                continue;
            ox[k] = X(idx[q]);
            oy[k] = Y(idx[q]);
            k++;
        }
        i = j;
    }
#undef X
#undef Y
#undef COL
    return k;
}

/* First, lowest, highest and last point of each pixel column, in time
 * order.  x must be non-decreasing.  A view is read in place and only the
 * thinned points are stored. */
int
pyprof__mem_decimate(pyprof__arena *a, pyprof__mem_curve *c, double xmin, double xmax,
                     double columns)
{
    if (c->n <= 2 * (size_t)columns || !(xmax > xmin))
        return pyprof__mem_materialize(a, c);
    double scale = columns / (xmax - xmin);
    if (c->run) {
        /* every x lies in [xmin, xmax] (a view is never clipped), so the
         * columns are 0 ... columns: at most 4 points each */
        size_t cap = 4 * ((size_t)columns + 2), bytes;
        if (pyprof__mul_overflows(cap, sizeof(double), &bytes))
            return PYPROF_ENOMEM;
        double *x = pyprof__arena_alloc(a, bytes), *y = pyprof__arena_alloc(a, bytes);
        if (!x || !y)
            return PYPROF_ENOMEM;
        size_t k = decimate_into(c, x, y, cap, xmin, scale);
        if (k != SIZE_MAX) {
            c->x = x;
            c->y = y;
            c->run = NULL;
            c->n = k;
            c->bounds.known = false;
            return 0;
        }
        /* not reached while the view holds the data; stay correct anyway */
        int rc = pyprof__mem_materialize(a, c);
        if (rc < 0)
            return rc;
    }
    c->n = decimate_into(c, c->x, c->y, SIZE_MAX, xmin, scale);
    c->bounds.known = false;
    return 0;
}

/* The FUNC brackets of the main series `ms`, in mprof's order: functions by
 * first appearance, then their executions in file order. */
int
pyprof__mem_function_order(const pyprof_profile *p, pyprof_id ms, pyprof_id **names, size_t *nnames,
                           size_t **order, size_t *norder)
{
    size_t nb = pyprof_profile_mem_bracket_count(p);
    pyprof_id *nm = pyprof__reallocarray(NULL, nb ? nb : 1, sizeof(pyprof_id));
    size_t *ord = pyprof__reallocarray(NULL, nb ? nb : 1, sizeof(size_t));
    size_t *first = pyprof__reallocarray(NULL, nb ? nb : 1, sizeof(size_t));
    if (!nm || !ord || !first) {
        pyprof__free(nm);
        pyprof__free(ord);
        pyprof__free(first);
        return PYPROF_ENOMEM;
    }
    size_t nn = 0, no = 0;
    /* function index per bracket by first appearance; a quadratic scan is
     * fine for the few distinct @profile functions a run has, but a file
     * could hold many: names are small ids, so mark them in a map. */
    for (size_t i = 0; i < nb; i++) {
        const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, i);
        if (b->series != ms)
            continue;
        size_t f = 0;
        while (f < nn && nm[f] != b->name)
            f++;
        if (f == nn)
            nm[nn++] = b->name;
        first[no] = f;
        ord[no++] = i;
    }
    /* stable counting sort of executions by function index */
    size_t *tmp = pyprof__reallocarray(NULL, no ? no : 1, sizeof(size_t));
    if (!tmp) {
        pyprof__free(nm);
        pyprof__free(ord);
        pyprof__free(first);
        return PYPROF_ENOMEM;
    }
    size_t k = 0;
    for (size_t f = 0; f < nn; f++)
        for (size_t i = 0; i < no; i++)
            if (first[i] == f)
                tmp[k++] = ord[i];
    memcpy(ord, tmp, no * sizeof(size_t));
    pyprof__free(tmp);
    pyprof__free(first);
    *names = nm;
    *nnames = nn;
    *order = ord;
    *norder = no;
    return 0;
}
