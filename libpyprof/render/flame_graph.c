/*
 * flame_graph.c - the pyprof_flame object around a layout (flame_layout.c):
 * its options with flamegraph.pl's defaults and the marks of an estimate,
 * the frames' geometry in pixels as flamegraph.pl computes it (§9.3), and
 * the public accessors.
 */
#include "config.h"

#include <math.h>

#include "flame_int.h"

/* ---- strings -------------------------------------------------------------------------------- */

int
pyprof__flame_intern(pyprof_flame *f, uint32_t *out, const char *s, size_t len)
{
    return pyprof_profile_intern_lossy(f->strs, out, s, len, 0);
}

const char *
pyprof__flame_str(const pyprof_flame *f, uint32_t id)
{
    return pyprof_profile_string(f->strs, id);
}

/* ---- geometry -------------------------------------------------------------------------------- */

/* flamegraph.pl writes x and width with "%0.1f": v as strtod reads that
 * back.  "%.1f" prints n / 10 for the n of pyprof__tenths, and strtod's
 * correctly rounded n / 10 is the division's. */
static double
round1(double v)
{
    uint64_t n;
    if (pyprof__tenths(v, &n))
        return copysign((double)n / 10, v);
    char b[400]; /* "%.1f" of DBL_MAX: 309 digits and ".0" */
    pyprof__snprintf_c(b, sizeof b, "%.1f", v);
    return pyprof__strtod_c(b, NULL);
}

void
pyprof__flame_geometry(pyprof_flame *f)
{
    const pyprof_flame_options *o = &f->o;
    uint32_t depthmax = 0;
    for (size_t i = 0; i < f->nframes; i++)
        if (f->frames[i].depth > depthmax)
            depthmax = f->frames[i].depth;
    f->ypad1 = o->fontsize * 3;
    f->ypad2 = o->fontsize * 2 + 10;
    f->ypad3 = o->fontsize * 2;
    f->width = o->width;
    f->height = (depthmax + 1) * o->height + f->ypad1 + f->ypad2;
    if (f->subtitle)
        f->height += f->ypad3;
    double ppu = (o->width - 2 * FLAME_XPAD) / f->total;
    for (size_t i = 0; i < f->nframes; i++) {
        pyprof_flame_frame *fr = &f->frames[i];
        double x1 = FLAME_XPAD + fr->start * ppu, x2 = FLAME_XPAD + fr->end * ppu, y1, y2;
        if (o->inverted) {
            double top = f->ypad1 + (f->subtitle ? f->ypad3 : 0);
            y1 = top + fr->depth * o->height;
            y2 = top + (fr->depth + 1) * o->height - FLAME_FRAMEPAD;
        } else {
            y1 = f->height - f->ypad2 - (fr->depth + 1) * o->height + FLAME_FRAMEPAD;
            y2 = f->height - f->ypad2 - fr->depth * o->height;
        }
        fr->x = round1(x1);
        fr->w = round1(round1(x2) - fr->x);
        fr->y = y1;
        fr->h = y2 - y1;
    }
}

/* ---- options --------------------------------------------------------------------------------- */

static int
copy_opt(pyprof_flame *f, const char **dst, const char *src)
{
    if (!src) {
        *dst = NULL;
        return 0;
    }
    uint32_t id;
    int rc = pyprof__flame_intern(f, &id, src, strlen(src));
    if (rc == 0)
        *dst = pyprof__flame_str(f, id);
    return rc;
}

int
pyprof__flame_setup(pyprof_flame *f, const pyprof_profile *p, const pyprof_flame_options *opts)
{
    int rc;
    pyprof_flame_options def = PYPROF_FLAME_OPTIONS_INIT;
    f->o = opts ? *opts : def;
    pyprof_flame_options *o = &f->o;
    if (!(o->width > 2 * FLAME_XPAD) || !(o->height > 0) || !(o->fontsize > 0) ||
        !(o->fontwidth > 0) || !(o->factor != 0) || !(o->minwidth >= 0))
        return PYPROF_EINVAL;
    const char **strs[] = {&o->title,  &o->subtitle, &o->fonttype, &o->countname, &o->nametype,
                           &o->colors, &o->bgcolors, &o->cp_file,  &o->notes};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if ((rc = copy_opt(f, strs[i], *strs[i])) < 0)
            return rc;
    if (!o->fonttype)
        o->fonttype = "Verdana";
    if (!o->countname)
        o->countname = "samples";
    if (!o->nametype)
        o->nametype = "Function:";
    if (!o->colors)
        o->colors = "hot";
    const char *sm = pyprof_profile_meta_get(p, "stack_metrics");
    f->differential = pyprof_profile_stack_metrics(p) >= 2 && sm && strcmp(sm, "before,after") == 0;
    const char *est = pyprof_profile_meta_get(p, "stacks_estimated");
    f->estimated = est && strcmp(est, "1") == 0;
    f->title = o->title        ? o->title
               : o->inverted   ? "Icicle Graph"
               : o->flamechart ? "Flame Chart"
                               : "Flame Graph";
    f->subtitle = o->subtitle && o->subtitle[0] ? o->subtitle : NULL;
    f->notes = o->notes;
    if (f->estimated) {
        /* never present an estimate as a measurement */
        char buf[1024];
        uint32_t id;
        snprintf(buf, sizeof buf, "%s (estimated)", f->title);
        if ((rc = pyprof__flame_intern(f, &id, buf, strlen(buf))) < 0)
            return rc;
        f->title = pyprof__flame_str(f, id);
        if (!f->subtitle)
            f->subtitle = "Estimated from call-graph ratios: the profile has no sampled stacks";
        snprintf(buf, sizeof buf,
                 "%s%sstacks estimated from caller ratios of a call graph "
                 "(no sampled stacks)",
                 o->notes ? o->notes : "", o->notes ? "; " : "");
        if ((rc = pyprof__flame_intern(f, &id, buf, strlen(buf))) < 0)
            return rc;
        f->notes = pyprof__flame_str(f, id);
    }
    return 0;
}

double
pyprof_flame_elide_fraction(const pyprof_flame_options *opts)
{
    pyprof_flame_options def = PYPROF_FLAME_OPTIONS_INIT;
    if (!opts)
        opts = &def;
    if (opts->reverse || !(opts->minwidth > 0) || !(opts->width > 2 * FLAME_XPAD))
        return 0;
    /* the layout's minimum width in samples is minwidth percent of the
     * total, or minwidth px at (width - 2 * xpad) px for the total */
    double f = opts->minwidth_percent ? opts->minwidth / 100
                                      : opts->minwidth / (opts->width - 2 * FLAME_XPAD);
    return f < INFINITY ? f : 0;
}

void
pyprof_flame_free(pyprof_flame *f)
{
    if (!f)
        return;
    pyprof_profile_free(f->strs);
    pyprof__free(f->frames);
    pyprof__free(f);
}

size_t
pyprof_flame_frame_count(const pyprof_flame *f)
{
    return f->nframes;
}

const pyprof_flame_frame *
pyprof_flame_frame_at(const pyprof_flame *f, size_t i)
{
    return i < f->nframes ? &f->frames[i] : NULL;
}

void
pyprof_flame_size(const pyprof_flame *f, double *width, double *height)
{
    *width = f->width;
    *height = f->height;
}

double
pyprof_flame_total(const pyprof_flame *f)
{
    return f->total;
}
