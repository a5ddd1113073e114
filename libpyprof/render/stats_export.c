/*
 * stats_export.c - the pstats table as data: JSON or CSV with stable field
 * names (documented in stats.h and pyprof-stats(1)).  The rows are exactly
 * those print_stats would list for the same restrictions, in the same
 * order.  Numbers use the shortest text that reads back to the same double,
 * in the C locale; JSON has no NaN or infinity, so those become null.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "stats_int.h"
#include "render/emit.h"

static void
json_edges(pyprof_stats *st, pyprof_output *out, pyprof_id f, bool callers)
{
    pyprof_profile *p = st->p;
    const pyprof_id *edges;
    size_t ne = 0;
    if ((callers ? pyprof_profile_callers(p, f, &edges, &ne)
                 : pyprof_profile_callees(p, f, &edges, &ne)) < 0)
        ne = 0;
    pyprof_output_puts(out, callers ? ", \"callers\": [" : ", \"callees\": [");
    for (size_t k = 0; k < ne; k++) {
        const pyprof_edge *e = pyprof_profile_edge(p, edges[k]);
        pyprof_id partner = callers ? e->caller : e->callee;
        pyprof_output_puts(out, k ? ", {\"label\": " : "{\"label\": ");
        const char *label = pyprof__stats_label(st, partner);
        pyprof__json_string(out, label ? label : "");
        pyprof_output_printf(out, ", \"ncalls\": %lld", (long long)e->counts.ncalls);
        if (!(e->flags & PYPROF_EDGE_COUNT_ONLY)) {
            pyprof_output_printf(
                out, ", \"primcalls\": %lld, \"tottime\": ", (long long)e->counts.primcalls);
            pyprof__json_exact(out, e->counts.tottime);
            pyprof_output_puts(out, ", \"cumtime\": ");
            pyprof__json_exact(out, e->counts.cumtime);
        }
        pyprof_output_puts(out, "}");
    }
    pyprof_output_puts(out, "]");
}

int
pyprof_stats_export(pyprof_stats *st, pyprof_output *out, int format, int with_edges,
                    const pyprof_stats_restriction *restr, size_t n, pyprof_error *err)
{
    pyprof_profile *p = st->p;
    pyprof__sbuf msg = {0};
    pyprof_id *ids;
    size_t count;
    if (format != PYPROF_STATS_JSON && format != PYPROF_STATS_CSV)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "unknown export format");
    int rc = pyprof__stats_select(st, restr, n, &ids, &count, &msg, err);
    pyprof__sbuf_free(&msg);
    if (rc < 0)
        return rc;

    bool json = format == PYPROF_STATS_JSON;
    if (json) {
        pyprof_output_puts(out, "{\"files\": [");
        for (size_t i = 0; i < pyprof_profile_source_count(p); i++) {
            if (i)
                pyprof_output_puts(out, ", ");
            pyprof__json_string(out, pyprof_profile_string(p, pyprof_profile_source(p, i)->name));
        }
        pyprof_output_printf(out, "], \"total_calls\": %lld, \"primitive_calls\": %lld",
                             (long long)st->totals.ncalls, (long long)st->totals.primcalls);
        pyprof_output_puts(out, ", \"total_time\": ");
        pyprof__json_exact(out, st->totals.tottime);
        pyprof_output_puts(out, ", \"order\": ");
        if (st->sorted)
            pyprof__json_string(out, st->sort_desc);
        else
            pyprof_output_puts(out, "null");
        pyprof_output_puts(out, ", \"rows\": [");
    } else {
        pyprof_output_puts(out, "file,line,function,label,ncalls,primcalls,tottime,"
                                "tottime_percall,cumtime,cumtime_percall\r\n");
    }
    for (size_t i = 0; i < count; i++) {
        const pyprof_func *f = pyprof_profile_func(p, ids[i]);
        const pyprof_counts *c = &f->counts;
        const char *label = pyprof__stats_label(st, ids[i]);
        if (!label) {
            pyprof__free(ids);
            return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
        }
        if (json) {
            pyprof_output_puts(out, i ? ",\n  {\"file\": " : "\n  {\"file\": ");
            pyprof__json_string(out, pyprof_profile_string(p, f->file));
            pyprof_output_printf(out, ", \"line\": %lld, \"function\": ", (long long)f->line);
            pyprof__json_string(out, pyprof_profile_string(p, f->name));
            pyprof_output_puts(out, ", \"label\": ");
            pyprof__json_string(out, label);
            pyprof_output_printf(out, ", \"ncalls\": %lld, \"primcalls\": %lld, \"tottime\": ",
                                 (long long)c->ncalls, (long long)c->primcalls);
        } else {
            pyprof__csv_field(out, pyprof_profile_string(p, f->file));
            pyprof_output_printf(out, ",%lld,", (long long)f->line);
            pyprof__csv_field(out, pyprof_profile_string(p, f->name));
            pyprof_output_puts(out, ",");
            pyprof__csv_field(out, label);
            pyprof_output_printf(out, ",%lld,%lld,", (long long)c->ncalls, (long long)c->primcalls);
        }
        const char *sep = json ? ", \"tottime_percall\": " : ",";
        pyprof__json_exact(out, c->tottime);
        pyprof_output_puts(out, sep);
        if (c->ncalls)
            pyprof__json_exact(out, c->tottime / (double)c->ncalls);
        else if (json)
            pyprof_output_puts(out, "null");
        pyprof_output_puts(out, json ? ", \"cumtime\": " : ",");
        pyprof__json_exact(out, c->cumtime);
        pyprof_output_puts(out, json ? ", \"cumtime_percall\": " : ",");
        if (c->primcalls)
            pyprof__json_exact(out, c->cumtime / (double)c->primcalls);
        else if (json)
            pyprof_output_puts(out, "null");
        if (json) {
            if (with_edges) {
                json_edges(st, out, ids[i], true);
                json_edges(st, out, ids[i], false);
            }
            pyprof_output_puts(out, "}");
        } else {
            pyprof_output_puts(out, "\r\n");
        }
    }
    if (json)
        pyprof_output_puts(out, count ? "\n]}\n" : "]}\n");
    pyprof__free(ids);
    return pyprof_output_status(out, err);
}
