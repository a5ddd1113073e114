/*
 * mem_report.c - a summary of a memory_profiler line-by-line report (read
 * by formats/memreport.c): the peak of each function and the lines that
 * allocated the most.  See memreport.c for where the report's numbers live
 * in the model (line records: time = Increment MiB, hits = Occurrences;
 * one series per block: samples at t = line number, MiB = Mem usage).
 */
#include "config.h"

#include <math.h>

#include "pyprof_int.h"
#include "render/emit.h"

typedef struct peak_row {
    pyprof_id func;
    double mib;
    int64_t line;
} peak_row;

static bool
has_line(const pyprof_profile *p, pyprof_id func, int64_t line)
{
    size_t nl = pyprof_profile_line_count(p);
    for (size_t i = 0; i < nl; i++) {
        const pyprof_line_stat *ls = pyprof_profile_line(p, i);
        if (ls->func == func && ls->line == line)
            return true;
    }
    return false;
}

static int
cmp_inc(const void *a, const void *b)
{
    const pyprof_line_stat *x = *(const pyprof_line_stat *const *)a;
    const pyprof_line_stat *y = *(const pyprof_line_stat *const *)b;
    if (x->time != y->time)
        return x->time > y->time ? -1 : 1;
    /* ties in file order: records are stored in it */
    return (x > y) - (x < y);
}

int
pyprof_mem_write_report(pyprof_output *o, const pyprof_profile *p, const char *type, size_t top,
                        pyprof_error *err)
{
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_LINES))
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), NULL, -1, 0,
                                "the profile has no line records (read an @profile report)");
    if (!type)
        type = "txt";
    bool json = strcmp(type, "json") == 0, csv = strcmp(type, "csv") == 0;
    if (!json && !csv && strcmp(type, "txt") != 0)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "a report summary is written as txt, json or csv, not %s", type);
    if (top == 0)
        top = 10;

    /* peaks: per function, the largest Mem usage of its series and where */
    size_t nf = pyprof_profile_func_count(p), nser = pyprof_profile_mem_series_count(p);
    size_t ns = pyprof_profile_mem_sample_count(p), nl = pyprof_profile_line_count(p);
    peak_row *peaks = pyprof__calloc(nf ? nf : 1, sizeof(peak_row));
    const pyprof_line_stat **lines = pyprof__calloc(nl ? nl : 1, sizeof(*lines));
    if (!peaks || !lines) {
        pyprof__free(peaks);
        pyprof__free(lines);
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
    }
    for (size_t f = 0; f < nf; f++)
        peaks[f] = (peak_row){(pyprof_id)f, NAN, 0};
    for (size_t i = 0; i < ns; i++) {
        const pyprof_mem_sample *s = pyprof_profile_mem_sample(p, i);
        if (s->series >= nser)
            continue;
        /* the series of a block is labelled with its function's name; the
         * function is the one whose lines include this line number */
        pyprof_id label = pyprof_profile_mem_series(p, s->series)->label;
        for (size_t f = 0; f < nf; f++) {
            const pyprof_func *fn = pyprof_profile_func(p, (pyprof_id)f);
            if (fn->name != label || !has_line(p, (pyprof_id)f, (int64_t)s->t))
                continue;
            if (isnan(peaks[f].mib) || s->mib > peaks[f].mib) {
                peaks[f].mib = s->mib;
                peaks[f].line = (int64_t)s->t;
            }
            break;
        }
    }
    /* increments: the allocating lines, not the decorator row (its figure
     * is the memory at entry, counted over all calls) */
    size_t ninc = 0;
    for (size_t i = 0; i < nl; i++) {
        const pyprof_line_stat *ls = pyprof_profile_line(p, i);
        if (ls->time > 0 && ls->line != pyprof_profile_func(p, ls->func)->line)
            lines[ninc++] = ls;
    }
    nl = ninc;
    qsort(lines, nl, sizeof(*lines), cmp_inc);
    size_t nshow = nl < top ? nl : top;

    if (json) {
        pyprof_output_puts(o, "{\"functions\": [");
        for (size_t f = 0; f < nf; f++) {
            const pyprof_func *fn = pyprof_profile_func(p, (pyprof_id)f);
            pyprof_output_puts(o, f ? ", {\"function\": " : "{\"function\": ");
            pyprof__json_string(o, pyprof_profile_string(p, fn->name));
            pyprof_output_puts(o, ", \"file\": ");
            pyprof__json_string(o, pyprof_profile_string(p, fn->file));
            pyprof_output_printf(o, ", \"line\": %lld, \"calls\": %lld, ", (long long)fn->line,
                                 (long long)fn->counts.ncalls);
            if (isnan(peaks[f].mib))
                pyprof_output_puts(o, "\"peak_mib\": null, \"peak_line\": null}");
            else
                pyprof_output_printf(o, "\"peak_mib\": %.3f, \"peak_line\": %lld}", peaks[f].mib,
                                     (long long)peaks[f].line);
        }
        pyprof_output_puts(o, "], \"increments\": [");
        for (size_t i = 0; i < nshow; i++) {
            const pyprof_func *fn = pyprof_profile_func(p, lines[i]->func);
            pyprof_output_printf(o,
                                 "%s{\"increment_mib\": %.3f, \"occurrences\": %lld, \"line\": "
                                 "%lld, \"function\": ",
                                 i ? ", " : "", lines[i]->time, (long long)lines[i]->hits,
                                 (long long)lines[i]->line);
            pyprof__json_string(o, pyprof_profile_string(p, fn->name));
            pyprof_output_puts(o, "}");
        }
        pyprof_output_puts(o, "]}\n");
    } else if (csv) {
        pyprof_output_puts(o, "kind,function,file,line,mib,occurrences\n");
        for (size_t f = 0; f < nf; f++) {
            const pyprof_func *fn = pyprof_profile_func(p, (pyprof_id)f);
            pyprof_output_puts(o, "peak,");
            pyprof__csv_field(o, pyprof_profile_string(p, fn->name));
            pyprof_output_puts(o, ",");
            pyprof__csv_field(o, pyprof_profile_string(p, fn->file));
            if (isnan(peaks[f].mib))
                pyprof_output_printf(o, ",,,%lld\n", (long long)fn->counts.ncalls);
            else
                pyprof_output_printf(o, ",%lld,%.3f,%lld\n", (long long)peaks[f].line, peaks[f].mib,
                                     (long long)fn->counts.ncalls);
        }
        for (size_t i = 0; i < nshow; i++) {
            const pyprof_func *fn = pyprof_profile_func(p, lines[i]->func);
            pyprof_output_puts(o, "increment,");
            pyprof__csv_field(o, pyprof_profile_string(p, fn->name));
            pyprof_output_puts(o, ",");
            pyprof__csv_field(o, pyprof_profile_string(p, fn->file));
            pyprof_output_printf(o, ",%lld,%.3f,%lld\n", (long long)lines[i]->line, lines[i]->time,
                                 (long long)lines[i]->hits);
        }
    } else {
        pyprof_output_puts(o, "Peak memory per function\n\n"
                              "    Peak (MiB)   at line   calls   function\n");
        for (size_t f = 0; f < nf; f++) {
            const pyprof_func *fn = pyprof_profile_func(p, (pyprof_id)f);
            if (isnan(peaks[f].mib))
                pyprof_output_printf(o, "  %12s  %8s", "-", "-");
            else
                pyprof_output_printf(o, "  %12.3f  %8lld", peaks[f].mib, (long long)peaks[f].line);
            pyprof_output_printf(o, "  %6lld   %s (%s:%lld)\n", (long long)fn->counts.ncalls,
                                 pyprof_profile_string(p, fn->name),
                                 pyprof_profile_string(p, fn->file), (long long)fn->line);
        }
        pyprof_output_printf(o,
                             "\nLargest increments (top %zu)\n\n"
                             "  Increment (MiB)   Occurrences   line   function\n",
                             nshow);
        for (size_t i = 0; i < nshow; i++) {
            const pyprof_func *fn = pyprof_profile_func(p, lines[i]->func);
            pyprof_output_printf(o, "  %15.3f   %11lld   %4lld   %s\n", lines[i]->time,
                                 (long long)lines[i]->hits, (long long)lines[i]->line,
                                 pyprof_profile_string(p, fn->name));
        }
    }
    pyprof__free(peaks);
    pyprof__free(lines);
    return pyprof_output_status(o, err);
}
