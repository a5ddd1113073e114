/*
 * profile_series.c - the profile model's parts that are plain series, kept in
 * insertion order with no index: line timings (line_profiler) and the memory
 * timeline (memory_profiler's series, samples and function brackets).
 */
#include "config.h"

#include "profile_int.h"

/* ---- line timings ------------------------------------------------------------------ */

double
pyprof_profile_line_unit(const pyprof_profile *p)
{
    return p->line_unit;
}

void
pyprof_profile_set_line_unit(pyprof_profile *p, double seconds)
{
    p->line_unit = seconds;
}

int
pyprof_profile_line_add(pyprof_profile *p, pyprof_id func, int64_t line, int64_t hits, double time)
{
    if (func >= p->nfuncs)
        return PYPROF_EINVAL;
    if (PYPROF_GROW(p->lines, p->lines_cap, p->nlines + 1) < 0)
        return PYPROF_ENOMEM;
    p->lines[p->nlines++] = (pyprof_line_stat){func, line, hits, time};
    p->funcs[func].flags |= PYPROF_FUNC_LINES;
    return 0;
}

size_t
pyprof_profile_line_count(const pyprof_profile *p)
{
    return p->nlines;
}

const pyprof_line_stat *
pyprof_profile_line(const pyprof_profile *p, size_t i)
{
    return i < p->nlines ? &p->lines[i] : NULL;
}

pyprof_line_stat *
pyprof_profile_line_mut(pyprof_profile *p, size_t i)
{
    return i < p->nlines ? &p->lines[i] : NULL;
}

/* ---- memory timeline --------------------------------------------------------------- */

int
pyprof_profile_mem_series_add(pyprof_profile *p, pyprof_id *out, pyprof_id label, int64_t child,
                              pyprof_id source)
{
    if (PYPROF_GROW(p->mem_series, p->mem_series_cap, p->nmem_series + 1) < 0)
        return PYPROF_ENOMEM;
    p->mem_series[p->nmem_series] = (pyprof_mem_series){label, child, source};
    *out = (pyprof_id)p->nmem_series++;
    return 0;
}

size_t
pyprof_profile_mem_series_count(const pyprof_profile *p)
{
    return p->nmem_series;
}

const pyprof_mem_series *
pyprof_profile_mem_series(const pyprof_profile *p, pyprof_id id)
{
    return id < p->nmem_series ? &p->mem_series[id] : NULL;
}

pyprof_mem_series *
pyprof_profile_mem_series_mut(pyprof_profile *p, pyprof_id id)
{
    return id < p->nmem_series ? &p->mem_series[id] : NULL;
}

int
pyprof_profile_mem_sample_add(pyprof_profile *p, pyprof_id series, double t, double mib)
{
    if (series >= p->nmem_series)
        return PYPROF_EINVAL;
    if (PYPROF_GROW(p->mem_samples, p->mem_samples_cap, p->nmem_samples + 1) < 0)
        return PYPROF_ENOMEM;
    p->mem_samples[p->nmem_samples++] = (pyprof_mem_sample){series, t, mib};
    p->mem_summary_valid = false;
    return 0;
}

pyprof_mem_sample *
pyprof__profile_mem_samples_reserve(pyprof_profile *p, size_t n)
{
    size_t need;
    p->mem_summary_valid = false; /* the caller writes samples */
    if (pyprof__add_overflows(p->nmem_samples, n, &need) ||
        PYPROF_GROW(p->mem_samples, p->mem_samples_cap, need) < 0)
        return NULL;
    return p->mem_samples + p->nmem_samples;
}

void
pyprof__profile_mem_samples_commit(pyprof_profile *p, size_t n)
{
    p->nmem_samples += n;
    p->mem_summary_valid = p->mem_summary_valid && n == 0;
}

void
pyprof__profile_mem_summary_set(pyprof_profile *p, pyprof__mem_summary *s)
{
    pyprof__mem_summary_free(&p->mem_summary);
    p->mem_summary = *s;
    p->mem_summary_valid = s->n == p->nmem_samples;
    pyprof__mem_summary_init(s, NULL, NULL, 0); /* the profile owns the arrays now */
}

const pyprof__mem_summary *
pyprof__profile_mem_summary(const pyprof_profile *p)
{
    return p->mem_summary_valid && p->mem_summary.n == p->nmem_samples ? &p->mem_summary : NULL;
}

size_t
pyprof_profile_mem_sample_count(const pyprof_profile *p)
{
    return p->nmem_samples;
}

const pyprof_mem_sample *
pyprof_profile_mem_sample(const pyprof_profile *p, size_t i)
{
    return i < p->nmem_samples ? &p->mem_samples[i] : NULL;
}

int
pyprof_profile_mem_bracket_add(pyprof_profile *p, const pyprof_mem_bracket *b)
{
    if (b->series >= p->nmem_series)
        return PYPROF_EINVAL;
    if (PYPROF_GROW(p->mem_brackets, p->mem_brackets_cap, p->nmem_brackets + 1) < 0)
        return PYPROF_ENOMEM;
    p->mem_brackets[p->nmem_brackets++] = *b;
    return 0;
}

size_t
pyprof_profile_mem_bracket_count(const pyprof_profile *p)
{
    return p->nmem_brackets;
}

const pyprof_mem_bracket *
pyprof_profile_mem_bracket(const pyprof_profile *p, size_t i)
{
    return i < p->nmem_brackets ? &p->mem_brackets[i] : NULL;
}
