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

#include "render/convert_int.h"

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

/* The document is streamed as it is made (see render/emit.c). */
static void
put_counts(pyprof_output *o, const pyprof_counts *c)
{
    pyprof__json_member_number(o, false, "primcalls", (double)c->primcalls);
    pyprof__json_member_number(o, false, "ncalls", (double)c->ncalls);
    pyprof__json_member_number(o, false, "tottime", c->tottime);
    pyprof__json_member_number(o, false, "cumtime", c->cumtime);
}

/* Line timings (lprof): "line_unit" (seconds per time unit) and one
 * record per line, "func" being an id of "functions". */
static void
put_lines(pyprof_output *o, pyprof_profile *p)
{
    size_t n = pyprof_profile_line_count(p);
    if (!n)
        return;
    pyprof__json_member_number(o, false, "line_unit", pyprof_profile_line_unit(p));
    pyprof__json_key(o, false, "lines");
    pyprof_output_write(o, "[", 1);
    for (size_t i = 0; i < n; i++) {
        const pyprof_line_stat *l = pyprof_profile_line(p, i);
        pyprof_output_write(o, i ? ",{" : "{", i ? 2 : 1);
        pyprof__json_member_number(o, true, "func", (double)l->func);
        pyprof__json_member_number(o, false, "line", (double)l->line);
        pyprof__json_member_number(o, false, "hits", (double)l->hits);
        pyprof__json_member_number(o, false, "time", l->time);
        pyprof_output_write(o, "}", 1);
    }
    pyprof_output_write(o, "]", 1);
}

/* Indices 0..n-1 grouped by key (key_of(i) < nkeys), in index order within
 * a key: by[start[k] .. start[k + 1]) are key k's.  A counting sort, so
 * that each memory series can be written whole although the profile
 * keeps samples of all series interleaved in time order. */
static int
group_by(size_t n, size_t nkeys, pyprof_id (*key_of)(const pyprof_profile *, size_t),
         const pyprof_profile *p, size_t **by, size_t **start)
{
    *by = pyprof__malloc((n ? n : 1) * sizeof(**by));
    *start = pyprof__calloc(nkeys + 1, sizeof(**start));
    if (!*by || !*start)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < n; i++)
        (*start)[key_of(p, i) + 1]++;
    for (size_t k = 0; k < nkeys; k++)
        (*start)[k + 1] += (*start)[k];
    size_t *at = pyprof__malloc((nkeys ? nkeys : 1) * sizeof(*at));
    if (!at)
        return PYPROF_ENOMEM;
    memcpy(at, *start, nkeys * sizeof(*at));
    for (size_t i = 0; i < n; i++)
        (*by)[at[key_of(p, i)]++] = i;
    pyprof__free(at);
    return 0;
}

static pyprof_id
sample_series(const pyprof_profile *p, size_t i)
{
    return pyprof_profile_mem_sample(p, i)->series;
}

static pyprof_id
bracket_series(const pyprof_profile *p, size_t i)
{
    return pyprof_profile_mem_bracket(p, i)->series;
}

/* Memory timelines (mprofile): every series, merged ones overlaid, with
 * its samples as [t, MiB] pairs and its function brackets. */
static int
put_memory(pyprof_output *o, pyprof_profile *p)
{
    size_t ns = pyprof_profile_mem_series_count(p);
    if (!ns)
        return 0;
    size_t *sby = NULL, *sat = NULL, *bby = NULL, *bat = NULL;
    int rc;
    size_t nsamples = pyprof_profile_mem_sample_count(p);
    size_t nbrackets = pyprof_profile_mem_bracket_count(p);
    if ((rc = group_by(nsamples, ns, sample_series, p, &sby, &sat)) < 0 ||
        (rc = group_by(nbrackets, ns, bracket_series, p, &bby, &bat)) < 0)
        goto out;
    pyprof__json_key(o, false, "memory");
    pyprof_output_write(o, "[", 1);
    for (size_t i = 0; i < ns; i++) {
        const pyprof_mem_series *ms = pyprof_profile_mem_series(p, (pyprof_id)i);
        const pyprof_source *src = pyprof_profile_source(p, ms->source);
        pyprof_output_write(o, i ? ",{" : "{", i ? 2 : 1);
        pyprof__json_member_string(o, true, "label", pyprof_profile_string(p, ms->label));
        pyprof__json_member_number(o, false, "child", (double)ms->child);
        pyprof__json_member_string(o, false, "source",
                                   src ? pyprof_profile_string(p, src->name) : "");
        pyprof__json_key(o, false, "samples");
        pyprof_output_write(o, "[", 1);
        for (size_t k = sat[i]; k < sat[i + 1]; k++) {
            const pyprof_mem_sample *m = pyprof_profile_mem_sample(p, sby[k]);
            pyprof_output_write(o, k > sat[i] ? ",[" : "[", k > sat[i] ? 2 : 1);
            pyprof__json_number(o, m->t);
            pyprof_output_write(o, ",", 1);
            pyprof__json_number(o, m->mib);
            pyprof_output_write(o, "]", 1);
        }
        pyprof_output_write(o, "]", 1);
        pyprof__json_key(o, false, "functions");
        pyprof_output_write(o, "[", 1);
        for (size_t k = bat[i]; k < bat[i + 1]; k++) {
            const pyprof_mem_bracket *b = pyprof_profile_mem_bracket(p, bby[k]);
            pyprof_output_write(o, k > bat[i] ? ",{" : "{", k > bat[i] ? 2 : 1);
            pyprof__json_member_string(o, true, "name", pyprof_profile_string(p, b->name));
            pyprof__json_member_number(o, false, "t0", b->t0);
            pyprof__json_member_number(o, false, "t1", b->t1);
            pyprof__json_member_number(o, false, "m0", b->m0);
            pyprof__json_member_number(o, false, "m1", b->m1);
            pyprof__json_member_number(o, false, "level", b->level);
            pyprof_output_write(o, "}", 1);
        }
        pyprof_output_write(o, "]}", 2);
    }
    pyprof_output_write(o, "]", 1);
out:
    pyprof__free(sby);
    pyprof__free(sat);
    pyprof__free(bby);
    pyprof__free(bat);
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
    pyprof_output_write(o, "{", 1);
    pyprof__json_member_string(o, true, "format", "pyprof-functions");
    pyprof__json_member_number(o, false, "version", 1);
    pyprof__json_member_string(o, false, "time_unit",
                               pyprof__unit_is_seconds(p) ? "seconds" : "samples");
    pyprof__json_key(o, false, "functions");
    pyprof_output_write(o, "[", 1);
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        pyprof_output_write(o, i ? ",{" : "{", i ? 2 : 1);
        pyprof__json_member_number(o, true, "id", (double)i);
        pyprof__json_member_string(o, false, "file", pyprof_profile_string(p, f->file));
        pyprof__json_member_number(o, false, "line", (double)f->line);
        pyprof__json_member_string(o, false, "name", pyprof_profile_string(p, f->name));
        put_counts(o, &f->counts);
        pyprof__json_key(o, false, "caller_only");
        pyprof_output_puts(o, f->flags & PYPROF_FUNC_CALLER_ONLY ? "true" : "false");
        pyprof__json_key(o, false, "callers");
        pyprof_output_write(o, "[", 1);
        const pyprof_id *es;
        size_t ne;
        if ((rc = pyprof_profile_callers(p, (pyprof_id)i, &es, &ne)) < 0)
            goto out;
        for (size_t k = 0; k < ne; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, es[k]);
            pyprof_output_write(o, k ? ",{" : "{", k ? 2 : 1);
            pyprof__json_member_number(o, true, "id", (double)e->caller);
            put_counts(o, &e->counts);
            pyprof_output_write(o, "}", 1);
        }
        pyprof_output_write(o, "]}", 2);
    }
    pyprof_output_write(o, "]", 1);
    put_lines(o, in);
    if ((rc = put_memory(o, in)) < 0)
        goto out;
    pyprof_output_write(o, "}\n", 2);
    if (pyprof_profile_caps(in) & PYPROF_CAP_STACKS)
        pyprof__note(opts->notes, "the function table has no stacks: only totals are kept");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "json", -1, 0, "cannot write JSON: %s",
                         pyprof_status_string(rc));
    pyprof_profile_free(owned);
    return rc;
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
        pyprof__csv_field(o, pyprof_profile_string(p, f->file));
        pyprof_output_printf(o, ",%lld,", (long long)f->line);
        pyprof__csv_field(o, pyprof_profile_string(p, f->name));
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
