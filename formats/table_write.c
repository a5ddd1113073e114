/*
 * table_write.c - the function table as JSON or CSV, for spreadsheets,
 * notebooks and scripts.  The field names are stable (documented in
 * pyprof-convert(1)); new fields may be added, none renamed.
 *
 * JSON:
 *   {"format": "pyprof-functions", "version": 1, "time_unit": "seconds",
 *    "functions": [{"id", "file", "line", "name", "primcalls", "ncalls",
 *                   "tottime", "cumtime", "caller_only",
 *                   "callers": [{"id", "ncalls", "primcalls", "tottime",
 *                                "cumtime"}]}],
 *    "line_unit", "lines": [{"func", "line", "hits", "time"}]      (lprof)
 *    "memory": [{"label", "child", "source", "samples": [[t, MiB]],
 *                "functions": [{"name", "t0", "t1", "m0", "m1", "level"}]}]}
 *                                                                 (mprofile)
 * CSV (RFC 4180, header line, "\r\n" free: "\n" line ends):
 *   id,file,line,name,primcalls,ncalls,tottime,cumtime
 * Rows in function id order (the input's order).
 */
#include "config.h"

#include <cjson/cJSON.h>

#include "render/convert_int.h"

#define ADD_OR_FAIL(expr)                                                                          \
    do {                                                                                           \
        if (!(expr)) {                                                                             \
            rc = PYPROF_ENOMEM;                                                                    \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static void
table_notes(pyprof_profile *in, const pyprof_write_options *opts)
{
    unsigned caps = pyprof_profile_caps(in);
    if (caps & PYPROF_CAP_STACKS)
        pyprof__note(opts->notes, "the function table has no stacks: only totals are kept");
    if (caps & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "the function table has no line timings: they are dropped");
    if (caps & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "the function table has no memory timeline: it is dropped");
}

static int
add_counts(cJSON *obj, const pyprof_counts *c)
{
    return cJSON_AddNumberToObject(obj, "primcalls", (double)c->primcalls) &&
           cJSON_AddNumberToObject(obj, "ncalls", (double)c->ncalls) &&
           cJSON_AddNumberToObject(obj, "tottime", c->tottime) &&
           cJSON_AddNumberToObject(obj, "cumtime", c->cumtime);
}

/* Line timings (lprof): "line_unit" (seconds per time unit) and one
 * record per line, "func" being an id of "functions". */
static int
add_lines(cJSON *root, pyprof_profile *p)
{
    size_t n = pyprof_profile_line_count(p);
    if (!n)
        return 0;
    cJSON *lines;
    if (!cJSON_AddNumberToObject(root, "line_unit", pyprof_profile_line_unit(p)) ||
        !(lines = cJSON_AddArrayToObject(root, "lines")))
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const pyprof_line_stat *l = pyprof_profile_line(p, i);
        cJSON *lo = cJSON_CreateObject();
        if (!lo)
            return PYPROF_ENOMEM;
        cJSON_AddItemToArray(lines, lo);
        if (!cJSON_AddNumberToObject(lo, "func", (double)l->func) ||
            !cJSON_AddNumberToObject(lo, "line", (double)l->line) ||
            !cJSON_AddNumberToObject(lo, "hits", (double)l->hits) ||
            !cJSON_AddNumberToObject(lo, "time", l->time))
            return PYPROF_ENOMEM;
    }
    return 0;
}

/* Memory timelines (mprofile): every series, merged ones overlaid, with
 * its samples as [t, MiB] pairs and its function brackets. */
static int
add_memory(cJSON *root, pyprof_profile *p)
{
    size_t ns = pyprof_profile_mem_series_count(p);
    if (!ns)
        return 0;
    cJSON *series = cJSON_AddArrayToObject(root, "memory");
    if (!series)
        return PYPROF_ENOMEM;
    cJSON **samples = pyprof__calloc(ns, sizeof(*samples));
    cJSON **brackets = pyprof__calloc(ns, sizeof(*brackets));
    int rc = 0;
    if (!samples || !brackets) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < ns; i++) {
        const pyprof_mem_series *ms = pyprof_profile_mem_series(p, (pyprof_id)i);
        cJSON *so = cJSON_CreateObject();
        ADD_OR_FAIL(so);
        cJSON_AddItemToArray(series, so);
        ADD_OR_FAIL(cJSON_AddStringToObject(so, "label", pyprof_profile_string(p, ms->label)));
        ADD_OR_FAIL(cJSON_AddNumberToObject(so, "child", (double)ms->child));
        const pyprof_source *src = pyprof_profile_source(p, ms->source);
        ADD_OR_FAIL(
            cJSON_AddStringToObject(so, "source", src ? pyprof_profile_string(p, src->name) : ""));
        ADD_OR_FAIL(samples[i] = cJSON_AddArrayToObject(so, "samples"));
        ADD_OR_FAIL(brackets[i] = cJSON_AddArrayToObject(so, "functions"));
    }
    for (size_t i = 0; i < pyprof_profile_mem_sample_count(p); i++) {
        const pyprof_mem_sample *m = pyprof_profile_mem_sample(p, i);
        double pair[2] = {m->t, m->mib};
        cJSON *a = cJSON_CreateDoubleArray(pair, 2);
        ADD_OR_FAIL(a);
        cJSON_AddItemToArray(samples[m->series], a);
    }
    for (size_t i = 0; i < pyprof_profile_mem_bracket_count(p); i++) {
        const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, i);
        cJSON *bo = cJSON_CreateObject();
        ADD_OR_FAIL(bo);
        cJSON_AddItemToArray(brackets[b->series], bo);
        ADD_OR_FAIL(cJSON_AddStringToObject(bo, "name", pyprof_profile_string(p, b->name)));
        ADD_OR_FAIL(cJSON_AddNumberToObject(bo, "t0", b->t0));
        ADD_OR_FAIL(cJSON_AddNumberToObject(bo, "t1", b->t1));
        ADD_OR_FAIL(cJSON_AddNumberToObject(bo, "m0", b->m0));
        ADD_OR_FAIL(cJSON_AddNumberToObject(bo, "m1", b->m1));
        ADD_OR_FAIL(cJSON_AddNumberToObject(bo, "level", b->level));
    }
out:
    pyprof__free(samples);
    pyprof__free(brackets);
    return rc;
}

static int
json_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
           pyprof_error *err)
{
    pyprof_profile *p, *owned;
    unsigned caps = pyprof_profile_caps(in);
    int rc = pyprof__callgraph_view(in, &p, &owned, opts, err);
    if (rc == PYPROF_ECAPS && (caps & (PYPROF_CAP_LINES | PYPROF_CAP_MEMORY))) {
        /* line timings or a memory timeline alone: the table lists the
         * functions they name, with no counters */
        pyprof_error_clear(err);
        p = in;
        owned = NULL;
        rc = 0;
    }
    if (rc < 0)
        return rc;
    cJSON *root = NULL, *funcs;
    char *text = NULL;
    ADD_OR_FAIL(root = cJSON_CreateObject());
    ADD_OR_FAIL(cJSON_AddStringToObject(root, "format", "pyprof-functions"));
    ADD_OR_FAIL(cJSON_AddNumberToObject(root, "version", 1));
    ADD_OR_FAIL(cJSON_AddStringToObject(root, "time_unit",
                                        pyprof__unit_is_seconds(p) ? "seconds" : "samples"));
    ADD_OR_FAIL(funcs = cJSON_AddArrayToObject(root, "functions"));
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        cJSON *fo, *callers;
        ADD_OR_FAIL(fo = cJSON_CreateObject());
        cJSON_AddItemToArray(funcs, fo);
        ADD_OR_FAIL(cJSON_AddNumberToObject(fo, "id", (double)i));
        ADD_OR_FAIL(cJSON_AddStringToObject(fo, "file", pyprof_profile_string(p, f->file)));
        ADD_OR_FAIL(cJSON_AddNumberToObject(fo, "line", (double)f->line));
        ADD_OR_FAIL(cJSON_AddStringToObject(fo, "name", pyprof_profile_string(p, f->name)));
        ADD_OR_FAIL(add_counts(fo, &f->counts));
        ADD_OR_FAIL(
            cJSON_AddBoolToObject(fo, "caller_only", (f->flags & PYPROF_FUNC_CALLER_ONLY) != 0));
        ADD_OR_FAIL(callers = cJSON_AddArrayToObject(fo, "callers"));
        const pyprof_id *es;
        size_t ne;
        if ((rc = pyprof_profile_callers(p, (pyprof_id)i, &es, &ne)) < 0)
            goto out;
        for (size_t k = 0; k < ne; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, es[k]);
            cJSON *eo;
            ADD_OR_FAIL(eo = cJSON_CreateObject());
            cJSON_AddItemToArray(callers, eo);
            ADD_OR_FAIL(cJSON_AddNumberToObject(eo, "id", (double)e->caller));
            ADD_OR_FAIL(add_counts(eo, &e->counts));
        }
    }
    PYPROF_TRY(add_lines(root, in));
    PYPROF_TRY(add_memory(root, in));
    ADD_OR_FAIL(text = cJSON_PrintUnformatted(root));
    pyprof_output_puts(o, text);
    pyprof_output_write(o, "\n", 1);
    if (pyprof_profile_caps(in) & PYPROF_CAP_STACKS)
        pyprof__note(opts->notes, "the function table has no stacks: only totals are kept");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "json", -1, 0, "cannot write JSON: %s",
                         pyprof_status_string(rc));
    if (text)
        cJSON_free(text);
    cJSON_Delete(root);
    pyprof_profile_free(owned);
    return rc;
}

/* RFC 4180: quote a field holding a comma, a quote or a line break. */
static void
put_csv_field(pyprof_output *o, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        pyprof_output_puts(o, s);
        return;
    }
    pyprof_output_write(o, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        pyprof_output_write(o, s, (size_t)(q - s));
        pyprof_output_write(o, "\"\"", 2);
    }
    pyprof_output_puts(o, s);
    pyprof_output_write(o, "\"", 1);
}

static int
csv_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts, pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int rc = pyprof__callgraph_view(in, &p, &owned, opts, err);
    if (rc < 0)
        return rc;
    char a[PYPROF__DBL_BUF], b[PYPROF__DBL_BUF];
    pyprof_output_puts(o, "id,file,line,name,primcalls,ncalls,tottime,cumtime\n");
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        pyprof_output_printf(o, "%zu,", i);
        put_csv_field(o, pyprof_profile_string(p, f->file));
        pyprof_output_printf(o, ",%lld,", (long long)f->line);
        put_csv_field(o, pyprof_profile_string(p, f->name));
        pyprof_output_printf(o, ",%lld,%lld,%s,%s\n", (long long)f->counts.primcalls,
                             (long long)f->counts.ncalls, pyprof__fmt_double(a, f->counts.tottime),
                             pyprof__fmt_double(b, f->counts.cumtime));
    }
    table_notes(in, opts);
    if (pyprof_profile_edge_count(p))
        pyprof__note(opts->notes, "CSV holds the function table only: caller edges are "
                                  "dropped (use json to keep them)");
    pyprof_profile_free(owned);
    return 0;
}

const pyprof__writer pyprof__writer_json = {
    .name = "json",
    .aliases = NULL,
    .description = "JSON function table with callers",
    .write = json_write,
};

const pyprof__writer pyprof__writer_csv = {
    .name = "csv",
    .aliases = NULL,
    .description = "CSV function table",
    .write = csv_write,
};
