/*
 * convert_ranks.c - per-function spread across many inputs (pyprof-merge
 * --ranks): min, median, max, mean, population standard deviation, the
 * imbalance max/mean, and which input holds the maximum.
 *
 * Functions are matched by (file, line, name) text, interned into a
 * private key profile; each keeps only the inputs it occurs in (sparse), and
 * an input where it is absent counts as 0 - a rank that never called a
 * function spent no time in it, which is exactly the imbalance to show.
 */
#include "config.h"

#include <math.h>

#include "render/convert_int.h"

struct rank_entry {
    uint32_t input;
    double self, total;
};

struct rank_func {
    struct rank_entry *e;
    size_t n, cap;
};

struct pyprof_ranks {
    pyprof_profile *keys;
    struct rank_func *f;
    size_t nf, fcap;
    char **labels;
    size_t ninputs, lcap;
    double *scratch; /* ninputs values while computing one statistic */
    size_t scratch_cap;
};

int
pyprof_ranks_new(pyprof_ranks **out)
{
    *out = pyprof__calloc(1, sizeof(**out));
    if (!*out)
        return PYPROF_ENOMEM;
    int rc = pyprof_profile_new(&(*out)->keys);
    if (rc < 0) {
        pyprof__free(*out);
        *out = NULL;
    }
    return rc;
}

void
pyprof_ranks_free(pyprof_ranks *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nf; i++)
        pyprof__free(r->f[i].e);
    pyprof__free(r->f);
    for (size_t i = 0; i < r->ninputs; i++)
        pyprof__free(r->labels[i]);
    pyprof__free(r->labels);
    pyprof__free(r->scratch);
    pyprof_profile_free(r->keys);
    pyprof__free(r);
}

int
pyprof_ranks_add(pyprof_ranks *r, pyprof_profile *input, const char *label, pyprof_error *err)
{
    pyprof_profile *p, *owned;
    pyprof_write_options wo = PYPROF_WRITE_OPTIONS_INIT;
    int rc = pyprof__callgraph_view(input, &p, &owned, &wo, err);
    if (rc < 0)
        return rc;
    uint32_t idx = (uint32_t)r->ninputs;
    char *copy = pyprof__strdup(label ? label : "");
    if (!copy || PYPROF_GROW(r->labels, r->lcap, r->ninputs + 1) < 0) {
        pyprof__free(copy);
        rc = PYPROF_ENOMEM;
        goto out;
    }
    r->labels[r->ninputs++] = copy;
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (f->flags & PYPROF_FUNC_CALLER_ONLY)
            continue;
        pyprof_id file, name, id;
        PYPROF_TRY(pyprof_profile_intern(r->keys, &file, pyprof_profile_string(p, f->file),
                                         pyprof_profile_string_len(p, f->file)));
        PYPROF_TRY(pyprof_profile_intern(r->keys, &name, pyprof_profile_string(p, f->name),
                                         pyprof_profile_string_len(p, f->name)));
        PYPROF_TRY(pyprof_profile_func_intern(r->keys, &id, file, f->line, name, 0, NULL));
        if (id >= r->nf) {
            PYPROF_TRY(PYPROF_GROW(r->f, r->fcap, (size_t)id + 1));
            memset(&r->f[r->nf], 0, ((size_t)id + 1 - r->nf) * sizeof(*r->f));
            r->nf = (size_t)id + 1;
        }
        struct rank_func *rf = &r->f[id];
        if (rf->n && rf->e[rf->n - 1].input == idx) {
            /* the same key twice in one input (a code-object twin): add up */
            rf->e[rf->n - 1].self += f->counts.tottime;
            rf->e[rf->n - 1].total += f->counts.cumtime;
            continue;
        }
        PYPROF_TRY(PYPROF_GROW(rf->e, rf->cap, rf->n + 1));
        rf->e[rf->n++] = (struct rank_entry){idx, f->counts.tottime, f->counts.cumtime};
    }
out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, label, NULL, -1, 0, "out of memory");
    pyprof_profile_free(owned);
    return rc;
}

size_t
pyprof_ranks_func_count(const pyprof_ranks *r)
{
    return r->nf;
}

size_t
pyprof_ranks_input_count(const pyprof_ranks *r)
{
    return r->ninputs;
}

const char *
pyprof_ranks_input_label(const pyprof_ranks *r, size_t i)
{
    return i < r->ninputs ? r->labels[i] : NULL;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void
compute(pyprof_ranks *r, const struct rank_func *rf, bool total, pyprof_rank_stat *st)
{
    size_t n = r->ninputs;
    double *v = r->scratch;
    memset(v, 0, n * sizeof(*v));
    for (size_t k = 0; k < rf->n; k++)
        v[rf->e[k].input] = total ? rf->e[k].total : rf->e[k].self;
    double sum = 0, max = v[0];
    size_t argmax = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] > max) {
            max = v[i];
            argmax = i;
        }
    }
    double mean = sum / (double)n, var = 0;
    for (size_t i = 0; i < n; i++)
        var += (v[i] - mean) * (v[i] - mean);
    qsort(v, n, sizeof(*v), cmp_double);
    st->min = v[0];
    st->max = max;
    st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    st->mean = mean;
    st->stddev = sqrt(var / (double)n);
    st->imbalance = mean > 0 ? max / mean : 0;
    st->argmax = argmax;
}

int
pyprof_ranks_stat(pyprof_ranks *r, size_t i, const char **name, pyprof_rank_stat *self,
                  pyprof_rank_stat *total)
{
    if (i >= r->nf || r->ninputs == 0)
        return PYPROF_EINVAL;
    if (r->scratch_cap < r->ninputs) {
        double *s = pyprof__reallocarray(r->scratch, r->ninputs, sizeof(*s));
        if (!s)
            return PYPROF_ENOMEM;
        r->scratch = s;
        r->scratch_cap = r->ninputs;
    }
    if (name)
        *name = pyprof_profile_string(r->keys, pyprof_profile_func(r->keys, (pyprof_id)i)->name);
    if (self)
        compute(r, &r->f[i], false, self);
    if (total)
        compute(r, &r->f[i], true, total);
    return 0;
}

struct ranked {
    pyprof_rank_stat self, total;
    uint32_t id;
};

static int
cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->total.max != y->total.max)
        return x->total.max > y->total.max ? -1 : 1;
    return x->id < y->id ? -1 : 1;
}

static void
put_stat_txt(pyprof_output *o, const pyprof_rank_stat *s)
{
    pyprof_output_printf(o, " %10.6f %10.6f %10.6f %10.6f %10.6f %6.2f", s->min, s->median, s->max,
                         s->mean, s->stddev, s->imbalance);
}

static void
put_stat_csv(pyprof_output *o, const pyprof_rank_stat *s)
{
    char b[6][PYPROF__DBL_BUF];
    pyprof_output_printf(o, ",%s,%s,%s,%s,%s,%s,%zu", pyprof__fmt_double(b[0], s->min),
                         pyprof__fmt_double(b[1], s->median), pyprof__fmt_double(b[2], s->max),
                         pyprof__fmt_double(b[3], s->mean), pyprof__fmt_double(b[4], s->stddev),
                         pyprof__fmt_double(b[5], s->imbalance), s->argmax);
}

static void
put_stat_json(pyprof_output *o, const pyprof_ranks *r, const pyprof_rank_stat *s)
{
    char b[6][PYPROF__DBL_BUF];
    pyprof_output_printf(o,
                         "{\"min\":%s,\"median\":%s,\"max\":%s,\"mean\":%s,\"stddev\":%s,"
                         "\"imbalance\":%s,\"argmax\":%zu,\"argmax_input\":",
                         pyprof__fmt_double(b[0], s->min), pyprof__fmt_double(b[1], s->median),
                         pyprof__fmt_double(b[2], s->max), pyprof__fmt_double(b[3], s->mean),
                         pyprof__fmt_double(b[4], s->stddev),
                         pyprof__fmt_double(b[5], s->imbalance), s->argmax);
    pyprof__json_string(o, r->labels[s->argmax]);
    pyprof_output_write(o, "}", 1);
}

int
pyprof_ranks_write(pyprof_ranks *r, pyprof_output *o, const char *type, size_t limit,
                   pyprof_error *err)
{
    if (!type)
        type = "txt";
    if (strcmp(type, "txt") && strcmp(type, "json") && strcmp(type, "csv"))
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "unknown report type '%s' (txt, json, csv)", type);
    if (r->ninputs == 0)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "no inputs");
    struct ranked *rows = pyprof__calloc(r->nf ? r->nf : 1, sizeof(*rows));
    if (!rows)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
    for (size_t i = 0; i < r->nf; i++) {
        rows[i].id = (uint32_t)i;
        int rc = pyprof_ranks_stat(r, i, NULL, &rows[i].self, &rows[i].total);
        if (rc < 0) {
            pyprof__free(rows);
            return pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
        }
    }
    qsort(rows, r->nf, sizeof(*rows), cmp_ranked);
    size_t n = limit && limit < r->nf ? limit : r->nf;
    char name[4096];

    if (strcmp(type, "txt") == 0) {
        pyprof_output_printf(o,
                             "%zu inputs, %zu functions; times in seconds; absent = 0; "
                             "imb = max / mean\n\n",
                             r->ninputs, r->nf);
        pyprof_output_puts(o, "   self.min   self.med   self.max  self.mean   self.std "
                              "self.imb  total.min  total.med  total.max total.mean  total.std "
                              "tot.imb  max.in  function\n");
        for (size_t i = 0; i < n; i++) {
            put_stat_txt(o, &rows[i].self);
            put_stat_txt(o, &rows[i].total);
            pyprof_output_printf(o, "  %6zu  %s\n", rows[i].total.argmax,
                                 pyprof__func_display(r->keys, rows[i].id, name, sizeof(name)));
        }
        pyprof_output_puts(o, "\nmax.in is the input holding the largest total time:\n");
        for (size_t i = 0; i < r->ninputs; i++)
            pyprof_output_printf(o, "%8zu  %s\n", i, r->labels[i]);
    } else if (strcmp(type, "csv") == 0) {
        pyprof_output_puts(o, "file,line,name,self_min,self_median,self_max,self_mean,"
                              "self_stddev,self_imbalance,self_argmax,total_min,total_median,"
                              "total_max,total_mean,total_stddev,total_imbalance,total_argmax\n");
        for (size_t i = 0; i < n; i++) {
            const pyprof_func *f = pyprof_profile_func(r->keys, rows[i].id);
            const char *fields[2] = {pyprof_profile_string(r->keys, f->file),
                                     pyprof_profile_string(r->keys, f->name)};
            for (int k = 0; k < 2; k++) {
                pyprof__csv_field(o, fields[k]);
                if (k == 0)
                    pyprof_output_printf(o, ",%lld,", (long long)f->line);
            }
            put_stat_csv(o, &rows[i].self);
            put_stat_csv(o, &rows[i].total);
            pyprof_output_write(o, "\n", 1);
        }
    } else {
        pyprof_output_puts(o, "{\"inputs\":[");
        for (size_t i = 0; i < r->ninputs; i++) {
            if (i)
                pyprof_output_write(o, ",", 1);
            pyprof__json_string(o, r->labels[i]);
        }
        pyprof_output_puts(o, "],\"functions\":[");
        for (size_t i = 0; i < n; i++) {
            const pyprof_func *f = pyprof_profile_func(r->keys, rows[i].id);
            pyprof_output_puts(o, i ? ",\n{\"file\":" : "\n{\"file\":");
            pyprof__json_string(o, pyprof_profile_string(r->keys, f->file));
            pyprof_output_printf(o, ",\"line\":%lld,\"name\":", (long long)f->line);
            pyprof__json_string(o, pyprof_profile_string(r->keys, f->name));
            pyprof_output_puts(o, ",\"self\":");
            put_stat_json(o, r, &rows[i].self);
            pyprof_output_puts(o, ",\"total\":");
            put_stat_json(o, r, &rows[i].total);
            pyprof_output_write(o, "}", 1);
        }
        pyprof_output_puts(o, "]}\n");
    }
    pyprof__free(rows);
    return 0;
}
