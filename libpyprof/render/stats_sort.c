/*
 * stats_sort.c - the pstats view's sort keys, with the abbreviations
 * pstats accepts, and sorting (formats.md section 4.5: Python's stable sort
 * over the entry order, so ties keep it).
 */
#include "config.h"

#include "stats_int.h"

static int
oom(pyprof_error *err)
{
    return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
}

/* ---- sort keys -------------------------------------------------------------------------- */

/* pstats' sort_arg_dict_default, in its order: fields of the sort tuple,
 * direction (-1 descending) and the text after "Ordered by:". */
static const struct sort_key {
    const char *name;
    signed char fields[3];
    signed char dirs[3];
    const char *desc;
} sort_keys[] = {
    {"calls", {PYPROF__SF_NC, -1, -1}, {-1}, "call count"},
    {"ncalls", {PYPROF__SF_NC, -1, -1}, {-1}, "call count"},
    {"cumtime", {PYPROF__SF_CT, -1, -1}, {-1}, "cumulative time"},
    {"cumulative", {PYPROF__SF_CT, -1, -1}, {-1}, "cumulative time"},
    {"filename", {PYPROF__SF_FILE, -1, -1}, {1}, "file name"},
    {"line", {PYPROF__SF_LINE, -1, -1}, {1}, "line number"},
    {"module", {PYPROF__SF_FILE, -1, -1}, {1}, "file name"},
    {"name", {PYPROF__SF_NAME, -1, -1}, {1}, "function name"},
    {"nfl", {PYPROF__SF_NAME, PYPROF__SF_FILE, PYPROF__SF_LINE}, {1, 1, 1}, "name/file/line"},
    {"pcalls", {PYPROF__SF_CC, -1, -1}, {-1}, "primitive call count"},
    {"stdname", {PYPROF__SF_STD, -1, -1}, {1}, "standard name"},
    {"time", {PYPROF__SF_TT, -1, -1}, {-1}, "internal time"},
    {"tottime", {PYPROF__SF_TT, -1, -1}, {-1}, "internal time"},
};
#define NKEYS (sizeof sort_keys / sizeof sort_keys[0])

size_t
pyprof_stats_sort_key_count(void)
{
    return NKEYS;
}

const char *
pyprof_stats_sort_key_name(size_t i)
{
    return i < NKEYS ? sort_keys[i].name : NULL;
}

const char *
pyprof_stats_sort_key_description(size_t i)
{
    return i < NKEYS ? sort_keys[i].desc : NULL;
}

/* Which key `word` stands for, by pstats' rule: walk the keys in table
 * order, each claiming its own name and then ever shorter prefixes until
 * it meets a fragment already in the table; that fragment becomes
 * ambiguous, and shortening stops there.  So "cu" belongs to cumtime while
 * "cum" (claimed by cumtime, met again by cumulative) and "c" are
 * ambiguous.  The table is small (under 100 fragments): rebuild it per call
 * rather than keep global state. */
static int
key_index(const char *word)
{
    struct {
        const char *s;
        size_t len;
        int owner;
        bool bad;
    } frag[128];
    size_t nfrag = 0;
    for (size_t k = 0; k < NKEYS; k++) {
        const char *name = sort_keys[k].name;
        for (size_t len = strlen(name); len >= 1; len--) {
            size_t i;
            for (i = 0; i < nfrag; i++)
                if (frag[i].len == len && memcmp(frag[i].s, name, len) == 0)
                    break;
            if (i < nfrag) {
                frag[i].bad = true;
                break;
            }
            frag[nfrag].s = name;
            frag[nfrag].len = len;
            frag[nfrag].owner = (int)k;
            frag[nfrag].bad = false;
            nfrag++;
        }
    }
    size_t wlen = strlen(word);
    for (size_t i = 0; i < nfrag; i++)
        if (frag[i].len == wlen && memcmp(frag[i].s, word, wlen) == 0)
            return frag[i].bad ? -1 : frag[i].owner;
    return -1;
}

const char *
pyprof_stats_sort_key_lookup(const char *word)
{
    int k = word ? key_index(word) : -1;
    return k < 0 ? NULL : sort_keys[k].name;
}

/* ---- sorting ------------------------------------------------------------------------------ */

struct sort_ctx {
    pyprof_stats *st;
    const signed char *fields;
    const signed char *dirs;
    size_t n;
    /* The primary field copied out by function id when it is a number:
     * the comparisons of a large sort then read one flat array instead of
     * going through the profile (only ties look further). */
    const double *key_d;
    const int64_t *key_i;
};

static int
cmp_num(double l, double r)
{
    /* as Python: "<" then ">", so NaN compares equal to everything */
    return l < r ? -1 : l > r ? 1 : 0;
}

static int
cmp_i64(int64_t l, int64_t r)
{
    return l < r ? -1 : l > r ? 1 : 0;
}

static int
cmp_field(const struct sort_ctx *c, int field, pyprof_id a, pyprof_id b)
{
    const pyprof_profile *p = c->st->p;
    const pyprof_func *fa = pyprof_profile_func(p, a), *fb = pyprof_profile_func(p, b);
    switch (field) {
    case PYPROF__SF_CC:
        return cmp_i64(fa->counts.primcalls, fb->counts.primcalls);
    case PYPROF__SF_NC:
        return cmp_i64(fa->counts.ncalls, fb->counts.ncalls);
    case PYPROF__SF_TT:
        return cmp_num(fa->counts.tottime, fb->counts.tottime);
    case PYPROF__SF_CT:
        return cmp_num(fa->counts.cumtime, fb->counts.cumtime);
    case PYPROF__SF_FILE:
        /* UTF-8 byte order is code point order, which is Python's */
        return fa->file == fb->file
                   ? 0
                   : strcmp(pyprof_profile_string(p, fa->file), pyprof_profile_string(p, fb->file));
    case PYPROF__SF_LINE:
        return cmp_i64(fa->line, fb->line);
    case PYPROF__SF_NAME:
        /* pstats raises TypeError comparing a code-object name; compare text */
        return fa->name == fb->name
                   ? 0
                   : strcmp(pyprof_profile_string(p, fa->name), pyprof_profile_string(p, fb->name));
    default:
        return strcmp(c->st->labels.data + c->st->label_off[a],
                      c->st->labels.data + c->st->label_off[b]);
    }
}

static int
cmp_rows(const void *ctx, pyprof_id a, pyprof_id b)
{
    const struct sort_ctx *c = ctx;
    size_t i = 0;
    if (c->key_d) {
        int r = cmp_num(c->key_d[a], c->key_d[b]);
        if (r)
            return r * c->dirs[0];
        i = 1;
    } else if (c->key_i) {
        int r = cmp_i64(c->key_i[a], c->key_i[b]);
        if (r)
            return r * c->dirs[0];
        i = 1;
    }
    for (; i < c->n; i++) {
        int r = cmp_field(c, c->fields[i], a, b);
        if (r)
            return r * c->dirs[i];
    }
    return 0;
}

/* Stable merge sort of ids by cmp: Python's list.sort is stable, and
 * every tie must keep the entry order for the output to match.  tmp holds
 * n / 2 ids. */
static void
stable_sort(pyprof_id *a, pyprof_id *tmp, size_t n,
            int (*cmp)(const void *ctx, pyprof_id a, pyprof_id b), const void *ctx)
{
    if (n < 2)
        return;
    if (n <= 12) { /* insertion sort, stable */
        for (size_t i = 1; i < n; i++) {
            pyprof_id x = a[i];
            size_t j = i;
            while (j > 0 && cmp(ctx, a[j - 1], x) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    stable_sort(a, tmp, h, cmp, ctx);
    stable_sort(a + h, tmp, n - h, cmp, ctx);
    if (cmp(ctx, a[h - 1], a[h]) <= 0)
        return;
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = cmp(ctx, tmp[i], a[j]) <= 0 ? tmp[i++] : a[j++];
    while (i < h)
        a[k++] = tmp[i++];
}

static int
sort_by(pyprof_stats *st, const int *keys, size_t n, pyprof_error *err)
{
    int rc = 0;
    signed char *fields = NULL, *dirs = NULL;
    pyprof_id *tmp = NULL, *order = NULL;
    double *key_d = NULL;
    int64_t *key_i = NULL;
    pyprof__sbuf desc = {0};

    fields = pyprof__malloc(3 * n);
    dirs = pyprof__malloc(3 * n);
    if (!fields || !dirs)
        goto nomem;
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        const struct sort_key *k = &sort_keys[keys[i]];
        for (int j = 0; j < 3 && k->fields[j] >= 0; j++) {
            fields[nf] = k->fields[j];
            dirs[nf++] = k->dirs[j];
        }
        if ((i && pyprof__sbuf_add(&desc, ", ", 2) < 0) ||
            pyprof__sbuf_add(&desc, k->desc, strlen(k->desc)) < 0)
            goto nomem;
    }
    for (size_t i = 0; i < nf; i++)
        if (fields[i] == PYPROF__SF_STD && pyprof__stats_labels(st) < 0)
            goto nomem;
    size_t m = st->nentries;
    order = pyprof__reallocarray(NULL, m ? m : 1, sizeof *order);
    tmp = pyprof__reallocarray(NULL, m ? m : 1, sizeof *tmp);
    if (!order || !tmp)
        goto nomem;
    /* ties keep the entry order, whatever the previous sort was (a view
     * with no rows may have no entries array: memcpy must not see NULL) */
    if (m)
        memcpy(order, st->entries, m * sizeof *order);
    struct sort_ctx c = {st, fields, dirs, nf, NULL, NULL};
    size_t nfunc = pyprof_profile_func_count(st->p);
    if (nf && (fields[0] == PYPROF__SF_TT || fields[0] == PYPROF__SF_CT)) {
        if (!(key_d = pyprof__reallocarray(NULL, nfunc ? nfunc : 1, sizeof *key_d)))
            goto nomem;
        for (size_t i = 0; i < m; i++) {
            const pyprof_counts *k = &pyprof_profile_func(st->p, order[i])->counts;
            key_d[order[i]] = fields[0] == PYPROF__SF_TT ? k->tottime : k->cumtime;
        }
        c.key_d = key_d;
    } else if (nf && (fields[0] == PYPROF__SF_CC || fields[0] == PYPROF__SF_NC ||
                      fields[0] == PYPROF__SF_LINE)) {
        if (!(key_i = pyprof__reallocarray(NULL, nfunc ? nfunc : 1, sizeof *key_i)))
            goto nomem;
        for (size_t i = 0; i < m; i++) {
            const pyprof_func *f = pyprof_profile_func(st->p, order[i]);
            key_i[order[i]] = fields[0] == PYPROF__SF_CC   ? f->counts.primcalls
                              : fields[0] == PYPROF__SF_NC ? f->counts.ncalls
                                                           : f->line;
        }
        c.key_i = key_i;
    }
    stable_sort(order, tmp, m, cmp_rows, &c);

    pyprof__free(st->order);
    st->order = order;
    order = NULL;
    pyprof__free(st->sort_desc);
    st->sort_desc = desc.data;
    desc.data = NULL;
    st->sorted = true;
    goto out;
nomem:
    rc = oom(err);
out:
    pyprof__free(fields);
    pyprof__free(dirs);
    pyprof__free(tmp);
    pyprof__free(order);
    pyprof__free(key_d);
    pyprof__free(key_i);
    pyprof__sbuf_free(&desc);
    return rc;
}

int
pyprof_stats_sort(pyprof_stats *st, const char *const *keys, size_t n, pyprof_error *err)
{
    if (n == 0) {
        st->sorted = false;
        return 0;
    }
    int *idx = pyprof__reallocarray(NULL, n, sizeof *idx);
    if (!idx)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        idx[i] = keys[i] ? key_index(keys[i]) : -1;
        if (idx[i] < 0) {
            int rc = pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                      "unknown or ambiguous sort key '%s'",
                                      keys[i] ? keys[i] : "(null)");
            pyprof__free(idx);
            return rc;
        }
    }
    int rc = sort_by(st, idx, n, err);
    pyprof__free(idx);
    return rc;
}

int
pyprof_stats_sort_legacy(pyprof_stats *st, int code, pyprof_error *err)
{
    static const char *const legacy[] = {"stdname", "calls", "time", "cumulative"};
    if (code < -1 || code > 2)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "unknown legacy sort key %d (use -1, 0, 1 or 2)", code);
    return pyprof_stats_sort(st, &legacy[code + 1], 1, err);
}

void
pyprof_stats_reverse(pyprof_stats *st)
{
    if (!st->sorted)
        return;
    for (size_t i = 0, j = st->nentries; i + 1 < j; i++, j--) {
        pyprof_id t = st->order[i];
        st->order[i] = st->order[j - 1];
        st->order[j - 1] = t;
    }
}

/* Sort ids by the key tuple (file, line, name). */
static int
cmp_key(const void *ctx, pyprof_id a, pyprof_id b)
{
    const pyprof_profile *p = ctx;
    const pyprof_func *fa = pyprof_profile_func(p, a), *fb = pyprof_profile_func(p, b);
    int r = fa->file == fb->file
                ? 0
                : strcmp(pyprof_profile_string(p, fa->file), pyprof_profile_string(p, fb->file));
    if (!r)
        r = cmp_i64(fa->line, fb->line);
    if (!r && fa->name != fb->name)
        r = strcmp(pyprof_profile_string(p, fa->name), pyprof_profile_string(p, fb->name));
    return r;
}

void
pyprof__stats_sort_keys(const pyprof_profile *p, pyprof_id *ids, size_t n, pyprof_id *tmp)
{
    stable_sort(ids, tmp, n, cmp_key, p);
}
