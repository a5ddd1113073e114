/*
 * stats_strip.c - pstats' strip_dirs(): every key (file, line, name)
 * becomes (basename(file), line, name).  Reference: formats.md 3.6.
 *
 * Two different things happen when keys collapse, and both are kept:
 *  - two *entries* that collapse are added together (counters summed,
 *    callers merged with summation), as Stats.add would;
 *  - within *one* entry's callers, pstats builds a new dict by assignment,
 *    so a caller that collapses onto an earlier caller replaces it: the
 *    value of the last one stays, at the position of the first.  That
 *    loses data, and is reproduced on purpose so that the output matches.
 *
 * basename is POSIX's os.path.basename: the text after the last '/'; a
 * Windows path with '\' separators is left whole, as on Python/Linux.
 */
#include "config.h"

#include "stats_int.h"

static const char *
base_name(const char *path, size_t len, size_t *blen)
{
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            slash = path + i;
    const char *b = slash ? slash + 1 : path;
    *blen = len - (size_t)(b - path);
    return b;
}

/* The stripped twin of `f` in `q` (created with `flags` when new). */
static int
stripped_func(pyprof_profile *q, const pyprof_profile *p, const pyprof_func *f, uint32_t flags,
              pyprof_id *out, int *created)
{
    size_t blen;
    const char *b =
        base_name(pyprof_profile_string(p, f->file), pyprof_profile_string_len(p, f->file), &blen);
    pyprof_id file, name;
    int rc = pyprof_profile_intern(q, &file, b, blen);
    if (rc == 0)
        rc = pyprof_profile_intern(q, &name, pyprof_profile_string(p, f->name),
                                   pyprof_profile_string_len(p, f->name));
    if (rc == 0)
        rc = pyprof_profile_func_intern(q, out, file, f->line, name, flags, created);
    return rc;
}

/* Strip `p`, walking its entries in `entries` order.  The new profile's
 * entries are its first functions, in the order they were first met. */
static int
strip(pyprof_profile **out, const pyprof_profile *p, const pyprof_id *entries, size_t nentries,
      pyprof_error *err)
{
    int rc = 0;
    pyprof_profile *q = NULL;
    size_t nf = pyprof_profile_func_count(p), ne = pyprof_profile_edge_count(p);
    pyprof_id *map = NULL, *bucket = NULL;
    size_t *start = NULL;
    int32_t *slot = NULL;
    struct pick {
        pyprof_id caller;
        pyprof_id edge; /* old edge whose value wins */
    } *picks = NULL;
    size_t npicks_cap = 0;

    *out = NULL;
    PYPROF_TRY(pyprof_profile_new(&q));
    for (size_t i = 0; i < pyprof_profile_source_count(p); i++) {
        const pyprof_source *s = pyprof_profile_source(p, i);
        PYPROF_TRY(pyprof_profile_add_source(q, pyprof_profile_string(p, s->name),
                                             pyprof_profile_string(p, s->format), s->mtime));
    }
    for (size_t i = 0; i < pyprof_profile_meta_count(p); i++) {
        const char *k, *v;
        pyprof_profile_meta_at(p, i, &k, &v);
        PYPROF_TRY(pyprof_profile_meta_set(q, k, v));
    }

    map = pyprof__reallocarray(NULL, nf ? nf : 1, sizeof *map);
    slot = pyprof__reallocarray(NULL, nf ? nf : 1, sizeof *slot);
    start = pyprof__calloc(nf + 1, sizeof *start);
    bucket = pyprof__reallocarray(NULL, ne ? ne : 1, sizeof *bucket);
    if (!map || !slot || !start || !bucket) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nf; i++) {
        map[i] = PYPROF_NONE;
        slot[i] = -1;
    }
    /* callers of each function in edge order (= each callers dict's order) */
    for (size_t e = 0; e < ne; e++)
        start[pyprof_profile_edge(p, (pyprof_id)e)->callee + 1]++;
    for (size_t i = 0; i < nf; i++)
        start[i + 1] += start[i];
    {
        size_t *fill = pyprof__calloc(nf ? nf : 1, sizeof *fill);
        if (!fill) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        for (size_t e = 0; e < ne; e++) {
            pyprof_id c = pyprof_profile_edge(p, (pyprof_id)e)->callee;
            bucket[start[c] + fill[c]++] = (pyprof_id)e;
        }
        pyprof__free(fill);
    }

    /* pass 1: the entries, so that they take the first ids in dict order */
    for (size_t i = 0; i < nentries; i++) {
        const pyprof_func *f = pyprof_profile_func(p, entries[i]);
        PYPROF_TRY(stripped_func(q, p, f, f->flags & ~(uint32_t)PYPROF_FUNC_CALLER_ONLY,
                                 &map[entries[i]], NULL));
        pyprof__counts_add(&pyprof_profile_func_mut(q, map[entries[i]])->counts, &f->counts);
    }

    /* pass 2: each entry's callers, re-keyed by assignment, then added */
    for (size_t i = 0; i < nentries; i++) {
        pyprof_id old = entries[i], callee = map[old];
        size_t npicks = 0;
        for (size_t k = start[old]; k < start[old + 1]; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, bucket[k]);
            if (map[e->caller] == PYPROF_NONE) {
                const pyprof_func *cf = pyprof_profile_func(p, e->caller);
                PYPROF_TRY(stripped_func(
                    q, p, cf, (cf->flags & PYPROF_FUNC_CODEOBJ) | PYPROF_FUNC_CALLER_ONLY,
                    &map[e->caller], NULL));
            }
            pyprof_id nc = map[e->caller];
            if (slot[nc] >= 0) {
                picks[slot[nc]].edge = bucket[k]; /* the later caller replaces */
                continue;
            }
            if (PYPROF_GROW(picks, npicks_cap, npicks + 1) < 0) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            slot[nc] = (int32_t)npicks;
            picks[npicks].caller = nc;
            picks[npicks++].edge = bucket[k];
        }
        for (size_t k = 0; k < npicks; k++) {
            const pyprof_edge *oe = pyprof_profile_edge(p, picks[k].edge);
            pyprof_id id;
            int created;
            slot[picks[k].caller] = -1;
            PYPROF_TRY(pyprof_profile_edge_intern(q, &id, picks[k].caller, callee, &created));
            pyprof_edge *ne2 = pyprof_profile_edge_mut(q, id);
            if (created) {
                ne2->flags = oe->flags;
            } else if ((ne2->flags ^ oe->flags) & PYPROF_EDGE_COUNT_ONLY) {
                for (size_t r = k + 1; r < npicks; r++)
                    slot[picks[r].caller] = -1;
                rc = pyprof_error_set(err, PYPROF_EFORMAT, NULL, NULL, -1, 0,
                                      "strip_dirs cannot add a profile-module call count to a "
                                      "cProfile caller record");
                goto out;
            }
            pyprof__counts_add(&ne2->counts, &oe->counts);
        }
    }
    *out = q;
    q = NULL;

out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory in strip_dirs");
    pyprof_profile_free(q);
    pyprof__free(map);
    pyprof__free(slot);
    pyprof__free(start);
    pyprof__free(bucket);
    pyprof__free(picks);
    return rc;
}

int
pyprof_profile_strip_dirs(pyprof_profile **out, const pyprof_profile *p, pyprof_error *err)
{
    size_t nf = pyprof_profile_func_count(p), n = 0;
    pyprof_id *entries = pyprof__reallocarray(NULL, nf ? nf : 1, sizeof *entries);
    if (!entries) {
        *out = NULL;
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
    }
    for (size_t i = 0; i < nf; i++)
        if (!(pyprof_profile_func(p, (pyprof_id)i)->flags & PYPROF_FUNC_CALLER_ONLY))
            entries[n++] = (pyprof_id)i;
    int rc = strip(out, p, entries, n, err);
    pyprof__free(entries);
    return rc;
}

int
pyprof_stats_strip_dirs(pyprof_stats *st, pyprof_error *err)
{
    pyprof_profile *q;
    int rc = strip(&q, st->p, st->entries, st->nentries, err);
    if (rc < 0)
        return rc;
    /* the stripped profile's entries are its leading ids, in dict order */
    size_t n = 0, nf = pyprof_profile_func_count(q);
    while (n < nf && !(pyprof_profile_func(q, (pyprof_id)n)->flags & PYPROF_FUNC_CALLER_ONLY))
        n++;
    unsigned char *flags = pyprof__calloc(nf ? nf : 1, 1);
    if (!flags) {
        pyprof_profile_free(q);
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        st->entries[i] = (pyprof_id)i; /* n <= old nentries: collapsing only shrinks */
        flags[i] = 1;
    }
    pyprof_profile_free(st->p);
    st->p = q;
    st->nentries = n;
    pyprof__free(st->is_entry);
    st->is_entry = flags;
    st->is_entry_len = nf;
    st->sorted = false;
    st->nlabels = 0;
    st->labels.len = 0;
    return 0;
}
