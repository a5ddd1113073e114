/*
 * mem_ticks.c - axis ticks and their labels chosen as a plotting library
 * chooses them, so that pyprof-mem's axes read like mprof's matplotlib ones.
 *
 * The locator is matplotlib's MaxNLocator as AutoLocator configures it:
 * candidate steps 1, 2, 2.5, 5 and 10 times a power of ten; the largest
 * step that keeps at most `nbins` intervals is found, then smaller steps are
 * tried only if fewer than two ticks would fall inside the view.  An offset
 * is subtracted first when the values sit far from zero relative to their
 * range (so that steps are chosen on the significant digits), and edges are
 * compared with a tolerance so that 0.30000000000000004 counts as 0.3.
 */
#include "config.h"

#include <math.h>

#include "pyprof_int.h"

#include "mem_plot.h"

/* floor(log10(x)) done as matplotlib does it (x // 1 of the log). */
static double
pow10_floor(double x)
{
    return pow(10.0, floor(log10(x)));
}

/* Edge tests with the tolerance matplotlib uses for tick positions. */
static bool
close_to(double ms, double edge, double step, double offset)
{
    double tol = 1e-10;
    if (offset > 0) {
        double digits = log10(offset / step);
        tol = fmax(1e-10, pow(10.0, digits - 12));
        tol = fmin(0.4999, tol);
    }
    return fabs(ms - edge) < tol;
}

/* Python's divmod for floats: d = floor(x / step), m = x - d * step. */
static void
py_divmod(double x, double step, double *d, double *m)
{
    *m = fmod(x, step);
    if (*m != 0 && ((step < 0) != (*m < 0)))
        *m += step;
    *d = (x - *m) / step;
    *d = nearbyint(*d);
}

size_t
pyprof__mem_ticks(double vmin, double vmax, int nbins, double *ticks, size_t max)
{
    if (!(vmax > vmin) || !isfinite(vmin) || !isfinite(vmax) || max == 0)
        return 0;
    if (nbins < 1)
        nbins = 1;
    /* scale_range */
    double dv = vmax - vmin, meanv = (vmax + vmin) / 2, offset = 0;
    if (fabs(meanv) / dv >= 100)
        offset = copysign(pow10_floor(fabs(meanv)), meanv);
    double scale = pow10_floor(dv / nbins);
    double lo_v = vmin - offset, hi_v = vmax - offset;
    double raw_step = (hi_v - lo_v) / nbins;
    static const double ext[] = {0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20};
    size_t nsteps = sizeof(ext) / sizeof(ext[0]), istep = nsteps - 1;
    for (size_t i = 0; i < nsteps; i++) {
        if (ext[i] * scale >= raw_step) {
            istep = i;
            break;
        }
    }
    double best_min = 0, step = 0, low = 0, high = 0;
    for (size_t k = istep + 1; k-- > 0;) {
        step = ext[k] * scale;
        best_min = floor(lo_v / step) * step;
        double d, m;
        py_divmod(lo_v - best_min, step, &d, &m);
        low = close_to(m / step, 1, step, fabs(offset)) ? d + 1 : d;
        py_divmod(hi_v - best_min, step, &d, &m);
        high = close_to(m / step, 0, step, fabs(offset)) ? d : d + 1;
        int inside = 0;
        for (double i = low; i <= high; i++) {
            double t = i * step + best_min;
            if (t >= lo_v && t <= hi_v)
                inside++;
        }
        if (inside >= 2)
            break;
    }
    /* keep the ticks within the view, with matplotlib's relative slack */
    double slack = 1e-10 * dv;
    size_t n = 0;
    for (double i = low; i <= high && n < max; i++) {
        double t = i * step + best_min + offset;
        if (t >= vmin - slack && t <= vmax + slack)
            ticks[n++] = t;
    }
    return n;
}

void
pyprof__mem_tick_labels(const double *ticks, size_t n, char (*labels)[32])
{
    /* the fewest decimals (up to 10) at which every label reads back as
     * its tick to within a millionth of the spacing */
    double step = n > 1 ? fabs(ticks[1] - ticks[0]) : fabs(ticks[0]);
    int dec = 0;
    for (; dec < 10; dec++) {
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            char buf[64];
            pyprof__snprintf_c(buf, sizeof buf, "%.*f", dec, ticks[i]);
            ok = fabs(pyprof__strtod_c(buf, NULL) - ticks[i]) <= 1e-6 * (step > 0 ? step : 1);
        }
        if (ok)
            break;
    }
    for (size_t i = 0; i < n; i++) {
        double v = ticks[i];
        if (fabs(v) < 1e-12 * (step > 0 ? step : 1))
            v = 0; /* never "-0.0" */
        pyprof__snprintf_c(labels[i], 32, "%.*f", dec, v);
        /* matplotlib writes the minus sign as U+2212 */
        if (labels[i][0] == '-') {
            char tmp[32];
            pyprof__snprintf_c(tmp, sizeof tmp, "\xe2\x88\x92%s", labels[i] + 1);
            memcpy(labels[i], tmp, 32);
        }
    }
}
