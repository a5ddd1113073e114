/*
 * stats.c - the pstats view: loading and adding files, the order of
 * entries, and the labels of functions (func_std_string).
 *
 * Reference: formats.md sections 3.4-3.6 and 4.1-4.5 (CPython's
 * Lib/pstats.py behaviour).  Sorting is in stats_sort.c, strip_dirs in
 * stats_strip.c, the printers in stats_print.c.
 *
 * Two orders matter and are kept apart:
 *  - the entry order ("dict order"): where a function first appeared as an
 *    entry.  Unsorted listings follow it, and so do ties of every sort,
 *    because Python's sort is stable;
 *  - the profile's id order, which differs after adding files: a function
 *    first met as someone's caller gets an id early but its row only when a
 *    later file has an entry for it.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "stats_int.h"

/* ---- small buffer --------------------------------------------------------------- */

int
pyprof__sbuf_add(pyprof__sbuf *b, const char *s, size_t len)
{
    size_t need;
    if (pyprof__add_overflows(b->len, len + 1, &need))
        return PYPROF_ENOMEM;
    if (PYPROF_GROW(b->data, b->cap, need) < 0)
        return PYPROF_ENOMEM;
    memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int
pyprof__sbuf_printf(pyprof__sbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = pyprof__vsnprintf_c(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return PYPROF_EINVAL;
    if ((size_t)n < sizeof small)
        return pyprof__sbuf_add(b, small, (size_t)n);
    char *big = pyprof__malloc((size_t)n + 1);
    if (!big)
        return PYPROF_ENOMEM;
    va_start(ap, fmt);
    pyprof__vsnprintf_c(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = pyprof__sbuf_add(b, big, (size_t)n);
    pyprof__free(big);
    return rc;
}

void
pyprof__sbuf_free(pyprof__sbuf *b)
{
    pyprof__free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ---- the view -------------------------------------------------------------------- */

static int
oom(pyprof_error *err)
{
    return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
}

/* Make is_entry cover every function id of the profile. */
static int
entry_flags_fit(pyprof_stats *st)
{
    size_t n = pyprof_profile_func_count(st->p);
    if (n <= st->is_entry_len)
        return 0;
    unsigned char *f = pyprof__realloc(st->is_entry, n ? n : 1);
    if (!f)
        return PYPROF_ENOMEM;
    memset(f + st->is_entry_len, 0, n - st->is_entry_len);
    st->is_entry = f;
    st->is_entry_len = n;
    return 0;
}

static int
entry_append(pyprof_stats *st, pyprof_id id)
{
    if (st->is_entry[id])
        return 0;
    if (PYPROF_GROW(st->entries, st->entries_cap, st->nentries + 1) < 0)
        return PYPROF_ENOMEM;
    st->entries[st->nentries++] = id;
    st->is_entry[id] = 1;
    return 0;
}

/* Totals of a bare profile, summed over its entries in id order (the order
 * pstats' get_top_level_stats walks a freshly loaded dict). */
static void
profile_totals(const pyprof_profile *p, pyprof_stats_totals *t)
{
    t->ncalls = t->primcalls = 0;
    t->tottime = 0;
    size_t n = pyprof_profile_func_count(p);
    for (size_t i = 0; i < n; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (f->flags & PYPROF_FUNC_CALLER_ONLY)
            continue;
        t->ncalls += f->counts.ncalls;
        t->primcalls += f->counts.primcalls;
        t->tottime += f->counts.tottime;
    }
}

static void
forget_sort(pyprof_stats *st)
{
    st->sorted = false;
}

static void
forget_labels(pyprof_stats *st)
{
    st->nlabels = 0;
    st->labels.len = 0;
}

/* Rebuild the entry list from the profile's id order. */
static int
entries_from_ids(pyprof_stats *st)
{
    st->nentries = 0;
    st->is_entry_len = 0;
    pyprof__free(st->is_entry);
    st->is_entry = NULL;
    if (entry_flags_fit(st) < 0)
        return PYPROF_ENOMEM;
    size_t n = pyprof_profile_func_count(st->p);
    for (size_t i = 0; i < n; i++) {
        if (pyprof_profile_func(st->p, (pyprof_id)i)->flags & PYPROF_FUNC_CALLER_ONLY)
            continue;
        if (entry_append(st, (pyprof_id)i) < 0)
            return PYPROF_ENOMEM;
    }
    return 0;
}

int
pyprof_stats_new(pyprof_stats **out, pyprof_profile *profile, pyprof_error *err)
{
    *out = NULL;
    if (!profile)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "no profile given");
    pyprof_stats *st = pyprof__calloc(1, sizeof *st);
    if (!st)
        return oom(err);
    st->p = profile;
    if (entries_from_ids(st) < 0) {
        st->p = NULL; /* the caller keeps the profile on failure */
        pyprof_stats_free(st);
        return oom(err);
    }
    profile_totals(profile, &st->totals);
    *out = st;
    return 0;
}

void
pyprof_stats_free(pyprof_stats *st)
{
    if (!st)
        return;
    pyprof_profile_free(st->p);
    pyprof__free(st->entries);
    pyprof__free(st->is_entry);
    pyprof__free(st->order);
    pyprof__free(st->sort_desc);
    pyprof__sbuf_free(&st->labels);
    pyprof__free(st->label_off);
    pyprof__free(st->label_width);
    pyprof__free(st);
}

pyprof_profile *
pyprof_stats_profile(const pyprof_stats *st)
{
    return st->p;
}

void
pyprof_stats_get_totals(const pyprof_stats *st, pyprof_stats_totals *out)
{
    *out = st->totals;
}

size_t
pyprof_stats_count(const pyprof_stats *st)
{
    return st->nentries;
}

pyprof_id
pyprof_stats_row(const pyprof_stats *st, size_t i)
{
    if (i >= st->nentries)
        return PYPROF_NONE;
    return pyprof__stats_list(st)[i];
}

/* Load one file for the view: formats of sampled stacks get their call
 * graph derived; formats without functions' counters (line timings,
 * memory) are refused, naming what they are. */
static int
load_one(pyprof_profile **out, const char *path, const pyprof_read_options *opts, pyprof_error *err)
{
    pyprof_profile *p;
    int rc = pyprof_profile_load(&p, path, opts, err);
    if (rc < 0)
        return rc;
    unsigned caps = pyprof_profile_caps(p);
    if ((caps & PYPROF_CAP_STACKS) && !(caps & PYPROF_CAP_EDGES))
        rc = pyprof_profile_derive_callgraph(p, err);
    const char *format = pyprof_profile_source_count(p)
                             ? pyprof_profile_string(p, pyprof_profile_source(p, 0)->format)
                             : "";
    if (rc == 0 && !(pyprof_profile_caps(p) & PYPROF_CAP_STACKS) &&
        ((caps & (PYPROF_CAP_LINES | PYPROF_CAP_MEMORY)) || !(caps & PYPROF_CAP_FUNCS)) &&
        strcmp(format, "pstats") != 0)
        rc = pyprof_error_set(err, PYPROF_ECAPS, path, format, -1, 0,
                              "this is %s data, which has no function table to print", format);
    if (rc < 0) {
        pyprof_profile_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int
pyprof_stats_add(pyprof_stats *st, const pyprof_profile *other, pyprof_error *err)
{
    pyprof_stats_totals t;
    profile_totals(other, &t);
    int rc = pyprof_profile_merge(st->p, other, err);
    forget_sort(st);
    forget_labels(st);
    if (rc < 0)
        return rc;
    if (entry_flags_fit(st) < 0)
        return oom(err);
    /* Append the functions that are entries only now, in other's order.
     * Interning finds the strings that the merge has just copied. */
    size_t n = pyprof_profile_func_count(other);
    for (size_t i = 0; i < n; i++) {
        const pyprof_func *f = pyprof_profile_func(other, (pyprof_id)i);
        if (f->flags & PYPROF_FUNC_CALLER_ONLY)
            continue;
        const char *file = pyprof_profile_string(other, f->file);
        const char *name = pyprof_profile_string(other, f->name);
        pyprof_id sf, sn;
        if (pyprof_profile_intern(st->p, &sf, file, strlen(file)) < 0 ||
            pyprof_profile_intern(st->p, &sn, name, strlen(name)) < 0)
            return oom(err);
        pyprof_id id = pyprof_profile_func_find(st->p, sf, f->line, sn, f->flags);
        if (id == PYPROF_NONE)
            return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                    "merged function %s not found", name);
        if (entry_append(st, id) < 0)
            return oom(err);
    }
    st->totals.ncalls += t.ncalls;
    st->totals.primcalls += t.primcalls;
    st->totals.tottime += t.tottime;
    return 0;
}

int
pyprof_stats_add_file(pyprof_stats *st, const char *path, const pyprof_read_options *opts,
                      pyprof_error *err)
{
    pyprof_profile *p;
    int rc = load_one(&p, path, opts, err);
    if (rc < 0)
        return rc;
    rc = pyprof_stats_add(st, p, err);
    pyprof_profile_free(p);
    return rc;
}

int
pyprof_stats_load(pyprof_stats **out, const char *const *paths, size_t n,
                  const pyprof_read_options *opts, pyprof_error *err)
{
    *out = NULL;
    if (n == 0)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "no input files");
    pyprof_profile *p;
    int rc = load_one(&p, paths[0], opts, err);
    if (rc < 0)
        return rc;
    pyprof_stats *st;
    if ((rc = pyprof_stats_new(&st, p, err)) < 0) {
        pyprof_profile_free(p);
        return rc;
    }
    /* Stats(f1, f2, f3) is f1 then add(f2, f3), and add walks its
     * arguments backwards: f3, then f2. */
    for (size_t i = n - 1; i >= 1; i--) {
        if ((rc = pyprof_stats_add_file(st, paths[i], opts, err)) < 0) {
            pyprof_stats_free(st);
            return rc;
        }
    }
    *out = st;
    return 0;
}

/* ---- labels (func_std_string) ------------------------------------------------------ */

/* Size the label index to the profile, all labels absent (SIZE_MAX). */
static int
labels_fit(pyprof_stats *st)
{
    size_t n = pyprof_profile_func_count(st->p);
    if (st->nlabels == n && st->label_off)
        return 0;
    size_t *off = pyprof__reallocarray(st->label_off, n ? n : 1, sizeof *off);
    if (!off)
        return PYPROF_ENOMEM;
    st->label_off = off;
    uint32_t *w = pyprof__reallocarray(st->label_width, n ? n : 1, sizeof *w);
    if (!w)
        return PYPROF_ENOMEM;
    st->label_width = w;
    for (size_t i = 0; i < n; i++)
        off[i] = SIZE_MAX;
    st->labels.len = 0;
    const char *ks = pyprof_profile_meta_get(st->p, "key_strings");
    st->bytes_keys = ks && strcmp(ks, "bytes") == 0;
    st->nlabels = n;
    return 0;
}

/* repr() of a bytes object holding `s`: b'...' with Python's escapes. */
static int
bytes_repr(pyprof__sbuf *b, const char *s, size_t len)
{
    char q = memchr(s, '\'', len) && !memchr(s, '"', len) ? '"' : '\'';
    int rc = pyprof__sbuf_add(b, "b", 1);
    if (rc == 0)
        rc = pyprof__sbuf_add(b, &q, 1);
    for (size_t i = 0; i < len && rc == 0; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c == (unsigned char)q)
            rc = pyprof__sbuf_printf(b, "\\%c", c);
        else if (c == '\t' || c == '\n' || c == '\r')
            rc = pyprof__sbuf_add(b, c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r", 2);
        else if (c < 0x20 || c >= 0x7f)
            rc = pyprof__sbuf_printf(b, "\\x%02x", c);
        else
            rc = pyprof__sbuf_add(b, s + i, 1);
    }
    if (rc == 0)
        rc = pyprof__sbuf_add(b, &q, 1);
    return rc;
}

/* A Python 2 file whose strings Python 3 loads as bytes: pstats formats
 * the key with "%s:%d(%s)", which shows each bytes object's repr, and the
 * built-in test ('~', 0) never holds (b'~' is not '~'). */
static int
label_bytes(pyprof_stats *st, const pyprof_func *f)
{
    char num[24];
    int k = pyprof__snprintf_c(num, sizeof num, ":%lld(", (long long)f->line);
    int rc = bytes_repr(&st->labels, pyprof_profile_string(st->p, f->file),
                        pyprof_profile_string_len(st->p, f->file));
    if (rc == 0)
        rc = pyprof__sbuf_add(&st->labels, num, (size_t)k);
    if (rc == 0)
        rc = bytes_repr(&st->labels, pyprof_profile_string(st->p, f->name),
                        pyprof_profile_string_len(st->p, f->name));
    if (rc == 0)
        rc = pyprof__sbuf_add(&st->labels, ")", 1);
    return rc;
}

/* Build the label of `id` (known absent) at the end of the buffer. */
static int
label_build(pyprof_stats *st, pyprof_id id)
{
    const pyprof_func *f = pyprof_profile_func(st->p, id);
    const char *file = pyprof_profile_string(st->p, f->file);
    const char *name = pyprof_profile_string(st->p, f->name);
    size_t nlen = pyprof_profile_string_len(st->p, f->name);
    size_t start = st->labels.len;
    int rc;
    if (st->bytes_keys && !(f->flags & PYPROF_FUNC_CODEOBJ)) {
        rc = label_bytes(st, f);
    } else if (strcmp(file, "~") == 0 && f->line == 0) {
        /* C built-ins: "<built-in method len>" prints as "{built-in method len}" */
        if (nlen >= 1 && name[0] == '<' && name[nlen - 1] == '>') {
            rc = pyprof__sbuf_add(&st->labels, "{", 1);
            if (rc == 0 && nlen >= 2)
                rc = pyprof__sbuf_add(&st->labels, name + 1, nlen - 2);
            if (rc == 0)
                rc = pyprof__sbuf_add(&st->labels, "}", 1);
        } else {
            rc = pyprof__sbuf_add(&st->labels, name, nlen);
        }
    } else {
        char num[24];
        int k = pyprof__snprintf_c(num, sizeof num, ":%lld(", (long long)f->line);
        rc = pyprof__sbuf_add(&st->labels, file, pyprof_profile_string_len(st->p, f->file));
        if (rc == 0)
            rc = pyprof__sbuf_add(&st->labels, num, (size_t)k);
        if (rc == 0)
            rc = pyprof__sbuf_add(&st->labels, name, nlen);
        if (rc == 0)
            rc = pyprof__sbuf_add(&st->labels, ")", 1);
    }
    /* the terminating NUL stays in the buffer, between labels */
    if (rc == 0)
        rc = pyprof__sbuf_add(&st->labels, "", 1);
    if (rc < 0) {
        st->labels.len = start;
        return rc;
    }
    st->label_off[id] = start;
    st->label_width[id] =
        (uint32_t)pyprof__utf8_length(st->labels.data + start, st->labels.len - start - 1);
    return 0;
}

const char *
pyprof__stats_label(pyprof_stats *st, pyprof_id id)
{
    if (labels_fit(st) < 0)
        return NULL;
    if (st->label_off[id] == SIZE_MAX && label_build(st, id) < 0)
        return NULL;
    return st->labels.data + st->label_off[id];
}

int
pyprof__stats_labels(pyprof_stats *st)
{
    if (labels_fit(st) < 0)
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < st->nlabels; i++)
        if (st->label_off[i] == SIZE_MAX && label_build(st, (pyprof_id)i) < 0)
            return PYPROF_ENOMEM;
    return 0;
}

const char *
pyprof_stats_label(pyprof_stats *st, pyprof_id func)
{
    if (func >= pyprof_profile_func_count(st->p))
        return NULL;
    return pyprof__stats_label(st, func);
}
