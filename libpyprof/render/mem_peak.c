/*
 * mem_peak.c - `mprof peak` and `mprof list`, byte for byte
 * (../shared/docs/formats.md section 7.4; memory_profiler 0.61 mprof.py).
 *
 * peak: the maximum over MEM samples only (FUNC entry/exit points are not
 * samples), "%.3f" as Python's "{:.3f}"; children follow in order of first
 * appearance.  --func keeps the samples inside any execution of the
 * function; where mprof then crashes on an empty max(), we fall back to the
 * memory its FUNC lines recorded (see pyprof_mem_peak_basis).
 *
 * list: mprof globs "mprofile_??????????????.dat" and sorts the names; the
 * timestamp is the part of the stem after its last '_', sliced like a
 * Python string ([:4] year, [4:6] month, ...), so odd names print as mprof
 * prints them rather than failing.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>

#include "pyprof_int.h"

/* Intervals [t0, t1] sorted by t0, with t1 replaced by the running
 * maximum: t is inside some interval iff the last one starting at or
 * before t reaches t.  Keeps --func O(n log m) for many executions. */
static int
cmp_t0(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool
inside(const double *iv, size_t n, double t)
{
    size_t lo = 0, hi = n; /* first interval with t0 > t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (iv[2 * mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && iv[2 * (lo - 1) + 1] >= t;
}

/* The string id of `s` in p, or PYPROF_NONE: a name never interned cannot
 * be a bracket's name (the profile's table is read-only here). */
static pyprof_id
find_name(const pyprof_profile *p, pyprof_id main, const char *s)
{
    size_t nb = pyprof_profile_mem_bracket_count(p);
    for (size_t i = 0; i < nb; i++) {
        const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, i);
        if (b->series == main && strcmp(pyprof_profile_string(p, b->name), s) == 0)
            return b->name;
    }
    return PYPROF_NONE;
}

int
pyprof_mem_peak_of(pyprof_mem_peak *out, const pyprof_profile *p, pyprof_id series,
                   const char *func)
{
    *out = (pyprof_mem_peak){NAN, NAN, 0, PYPROF_MEM_PEAK_NONE};
    if (!pyprof_profile_mem_series(p, series))
        return PYPROF_EINVAL;
    pyprof_id name = PYPROF_NONE;
    if (func) {
        name = find_name(p, series, func);
        if (name == PYPROF_NONE)
            return 0;
    }
    /* Bracket intervals are few next to samples; when there are many of
     * both, index them so that the filter stays O(n log m). */
    size_t ns = pyprof_profile_mem_sample_count(p);
    double *iv = NULL;
    size_t niv = 0;
    if (func) {
        size_t nb = pyprof_profile_mem_bracket_count(p);
        iv = pyprof__reallocarray(NULL, nb ? 2 * nb : 1, sizeof(double));
        if (!iv)
            return PYPROF_ENOMEM;
        for (size_t i = 0; i < nb; i++) {
            const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, i);
            if (b->series == series && b->name == name) {
                iv[2 * niv] = b->t0;
                iv[2 * niv + 1] = b->t1;
                niv++;
            }
        }
    }
    if (func) {
        qsort(iv, niv, 2 * sizeof(double), cmp_t0);
        for (size_t k = 1; k < niv; k++)
            if (iv[2 * k + 1] < iv[2 * k - 1])
                iv[2 * k + 1] = iv[2 * k - 1];
    }
    for (size_t i = 0; i < ns; i++) {
        const pyprof_mem_sample *s = pyprof_profile_mem_sample(p, i);
        if (s->series != series || (func && !inside(iv, niv, s->t)))
            continue;
        if (out->nsamples == 0 || s->mib > out->mib) {
            out->mib = s->mib;
            out->t = s->t;
        }
        out->nsamples++;
    }
    if (out->nsamples > 0) {
        out->basis = PYPROF_MEM_PEAK_SAMPLES;
    } else if (func) {
        size_t nb = pyprof_profile_mem_bracket_count(p);
        for (size_t i = 0; i < nb; i++) {
            const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, i);
            if (b->series != series || b->name != name)
                continue;
            double m = b->m0 >= b->m1 ? b->m0 : b->m1, t = b->m0 >= b->m1 ? b->t0 : b->t1;
            if (out->basis == PYPROF_MEM_PEAK_NONE || m > out->mib) {
                out->mib = m;
                out->t = t;
                out->basis = PYPROF_MEM_PEAK_BRACKETS;
            }
        }
    }
    pyprof__free(iv);
    return 0;
}

static void
print_mib(pyprof_output *o, double mib)
{
    if (isnan(mib))
        pyprof_output_puts(o, "NaN MiB\n");
    else
        pyprof_output_printf(o, "%.3f MiB\n", mib);
}

int
pyprof_mem_write_peak(pyprof_output *o, const pyprof_profile *p, const char *func,
                      pyprof_error *err)
{
    size_t nseries = pyprof_profile_mem_series_count(p);
    size_t nsrc = pyprof_profile_source_count(p);
    for (size_t src = 0; src < nsrc; src++) {
        const char *fname = pyprof_profile_string(p, pyprof_profile_source(p, src)->name);
        for (pyprof_id s = 0; s < nseries; s++) {
            const pyprof_mem_series *ms = pyprof_profile_mem_series(p, s);
            if (ms->source != src || ms->child != -1)
                continue;
            pyprof_mem_peak pk;
            int rc = pyprof_mem_peak_of(&pk, p, s, func);
            if (rc < 0)
                return pyprof_error_set(err, rc, fname, "mprofile", -1, 0, "out of memory");
            pyprof_output_printf(o, "%s\t", fname);
            print_mib(o, pk.mib);
            if (func && pk.basis == PYPROF_MEM_PEAK_NONE)
                continue; /* mprof: unknown function, no children either */
            for (pyprof_id c = 0; c < nseries; c++) {
                const pyprof_mem_series *cs = pyprof_profile_mem_series(p, c);
                if (cs->source != src || cs->child == -1)
                    continue;
                pyprof_mem_peak cp;
                pyprof_mem_peak_of(&cp, p, c, NULL);
                pyprof_output_printf(o, "  Child %lld\t\t\t", (long long)cs->child);
                print_mib(o, cp.mib);
            }
        }
    }
    return pyprof_output_status(o, err);
}

/* ---- list -------------------------------------------------------------------- */

/* Does `name` match mprofile_??????????????.dat, '?' being one code point? */
static bool
is_mprofile_name(const char *name)
{
    size_t n = strlen(name);
    if (n < 9 + 4 || memcmp(name, "mprofile_", 9) != 0 || memcmp(name + n - 4, ".dat", 4) != 0)
        return false;
    const unsigned char *s = (const unsigned char *)name + 9;
    size_t len = n - 13;
    if (pyprof__utf8_valid_prefix(s, len) != len)
        return len == 14; /* undecodable bytes: one byte, one character */
    return pyprof__utf8_length((const char *)s, len) == 14;
}

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void
pyprof_mem_list_free(char **names)
{
    if (!names)
        return;
    for (char **q = names; *q; q++)
        pyprof__free(*q);
    pyprof__free(names);
}

int
pyprof_mem_list_files(char ***names, size_t *n, const char *dir, pyprof_error *err)
{
    *names = NULL;
    *n = 0;
    if (!dir)
        dir = ".";
    DIR *d = opendir(dir);
    if (!d)
        return pyprof_error_set(err, PYPROF_EIO, dir, NULL, -1, 0, "%s", strerror(errno));
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_mprofile_name(e->d_name))
            continue;
        if (PYPROF_GROW(v, cap, cnt + 2) < 0 || !(v[cnt] = pyprof__strdup(e->d_name))) {
            rc = pyprof_error_set(err, PYPROF_ENOMEM, dir, NULL, -1, 0, "out of memory");
            break;
        }
        v[++cnt] = NULL;
    }
    closedir(d);
    if (rc < 0) {
        if (v)
            v[cnt] = NULL;
        pyprof_mem_list_free(v);
        return rc;
    }
    if (!v) {
        v = pyprof__calloc(1, sizeof(*v));
        if (!v)
            return pyprof_error_set(err, PYPROF_ENOMEM, dir, NULL, -1, 0, "out of memory");
    }
    qsort(v, cnt, sizeof(*v), cmp_names);
    *names = v;
    *n = cnt;
    return 0;
}

/* Python's ts[a:b] on a UTF-8 string, by code points; writes it to `o`. */
static void
put_slice(pyprof_output *o, const char *ts, size_t a, size_t b)
{
    size_t cp = 0;
    for (const unsigned char *s = (const unsigned char *)ts; *s;) {
        size_t k = 1;
        while ((s[k] & 0xc0) == 0x80)
            k++;
        if (cp >= a && cp < b)
            pyprof_output_write(o, s, k);
        s += k;
        cp++;
    }
}

int
pyprof_mem_write_list(pyprof_output *o, char *const *names, size_t n, pyprof_error *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *name = names[i];
        /* osp.splitext(name)[0].split('_')[-1] */
        const char *dot = strrchr(name, '.');
        size_t stem = dot && dot != name ? (size_t)(dot - name) : strlen(name);
        size_t us = stem;
        while (us > 0 && name[us - 1] != '_')
            us--;
        char ts[256];
        size_t tl = stem - us < sizeof ts - 1 ? stem - us : sizeof ts - 1;
        memcpy(ts, name + us, tl);
        ts[tl] = '\0';
        pyprof_output_printf(o, "%zu %s ", i, name);
        put_slice(o, ts, 8, 10);
        pyprof_output_puts(o, ":");
        put_slice(o, ts, 10, 12);
        pyprof_output_puts(o, ":");
        put_slice(o, ts, 12, 14);
        pyprof_output_puts(o, " ");
        put_slice(o, ts, 6, 8);
        pyprof_output_puts(o, "/");
        put_slice(o, ts, 4, 6);
        pyprof_output_puts(o, "/");
        put_slice(o, ts, 0, 4);
        pyprof_output_puts(o, "\n");
    }
    return pyprof_output_status(o, err);
}
