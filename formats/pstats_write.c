/*
 * pstats_write.c - writer of pstats files: the marshal version-2 subset
 * that every CPython from 2.5 to 3.14 loads (formats.md §2.11).
 *
 *   dict   '{' (key value)* '0'
 *   tuple  '(' i32le n, n objects
 *   str    'u' i32le len, UTF-8   (never 's': Python 3 would load bytes and
 *                                   pstats would print b'prog.py')
 *   int    'i' i32le, or 'l' with base-2^15 digits beyond 32 bits
 *   float  'g' f64le
 * No FLAG_REF and no back-references: they only save space.
 *
 * The dict follows function id order, which readers keep equal to the input's
 * dict order, so pstats' stable sorts break ties exactly as for the original.
 * Functions known only as callers have no entry of their own in the original
 * and get none here.  Code-object names (pure-Python profile) go back as
 * their text: the code object itself is not in the model, and a function
 * whose key then equals another's shares its entry (see "functions that
 * share a key" below).
 */
#include "config.h"

#include "render/convert_int.h"

static void
put_u8(pyprof_output *o, unsigned char c)
{
    pyprof_output_write(o, &c, 1);
}

static void
put_i32(pyprof_output *o, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    pyprof_output_write(o, b, 4);
}

static void
put_int(pyprof_output *o, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) {
        put_u8(o, 'i');
        put_i32(o, (uint32_t)(int32_t)v);
        return;
    }
    /* 'l': signed digit count, then 15-bit digits, least significant first */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint16_t digits[5];
    int n = 0;
    while (mag) {
        digits[n++] = (uint16_t)(mag & 0x7fff);
        mag >>= 15;
    }
    put_u8(o, 'l');
    put_i32(o, (uint32_t)(int32_t)(v < 0 ? -n : n));
    for (int i = 0; i < n; i++) {
        unsigned char b[2] = {(unsigned char)digits[i], (unsigned char)(digits[i] >> 8)};
        pyprof_output_write(o, b, 2);
    }
}

static void
put_float(pyprof_output *o, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(bits >> (8 * i));
    put_u8(o, 'g');
    pyprof_output_write(o, b, 8);
}

static void
put_str(pyprof_output *o, const pyprof_profile *p, pyprof_id s)
{
    size_t n = pyprof_profile_string_len(p, s);
    put_u8(o, 'u');
    put_i32(o, (uint32_t)n);
    pyprof_output_write(o, pyprof_profile_string(p, s), n);
}

static void
put_tuple_head(pyprof_output *o, uint32_t n)
{
    put_u8(o, '(');
    put_i32(o, n);
}

static void
put_key(pyprof_output *o, const pyprof_profile *p, const pyprof_func *f)
{
    put_tuple_head(o, 3);
    put_str(o, p, f->file);
    put_int(o, f->line);
    put_str(o, p, f->name);
}

/* ---- functions that share a key --------------------------------------------
 * A pstats dict has one entry per (file, line, name); the model can hold
 * two functions with one key (a code-object name equal to a string name in
 * a profile-module file; frames of two shapes that split alike), and
 * Python would keep only the later entry.  Such functions are written as
 * one entry, their counts and callers added as pstats.Stats.add adds them.
 * Each function's group is led by its lowest id, so the dict keeps the
 * order of first appearance and a profile without shared keys is written
 * as before, byte for byte. */

struct groups {
    pyprof_id *lead; /* function -> the lowest id with its key */
    pyprof_id *next; /* function -> the next function of its group, or NONE */
    size_t shared;   /* functions folded into another's entry */
};

static int
cmp_key(const void *a, const void *b, void *profile)
{
    const pyprof_func *x = pyprof_profile_func(profile, *(const pyprof_id *)a);
    const pyprof_func *y = pyprof_profile_func(profile, *(const pyprof_id *)b);
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return *(const pyprof_id *)a < *(const pyprof_id *)b ? -1 : 1;
}

static int
groups_build(struct groups *g, pyprof_profile *p)
{
    size_t n = pyprof_profile_func_count(p);
    pyprof_id *ids = pyprof__malloc((n ? n : 1) * sizeof(*ids));
    g->lead = pyprof__malloc((n ? n : 1) * sizeof(*g->lead));
    g->next = pyprof__malloc((n ? n : 1) * sizeof(*g->next));
    g->shared = 0;
    if (!ids || !g->lead || !g->next) {
        pyprof__free(ids);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        ids[i] = (pyprof_id)i;
        g->lead[i] = (pyprof_id)i;
        g->next[i] = PYPROF_NONE;
    }
    /* strings are interned: equal keys have equal ids */
    qsort_r(ids, n, sizeof(*ids), cmp_key, p);
    for (size_t i = 1; i < n; i++) {
        const pyprof_func *a = pyprof_profile_func(p, ids[i - 1]);
        const pyprof_func *b = pyprof_profile_func(p, ids[i]);
        if (a->file == b->file && a->line == b->line && a->name == b->name) {
            g->lead[ids[i]] = g->lead[ids[i - 1]];
            g->next[ids[i - 1]] = ids[i]; /* ascending ids within a group */
            g->shared++;
        }
    }
    pyprof__free(ids);
    return 0;
}

static void
groups_free(struct groups *g)
{
    pyprof__free(g->lead);
    pyprof__free(g->next);
}

/* One caller entry of the function being written, keyed by the caller's
 * group lead; slot_of[lead] finds it while that function is written. */
struct caller {
    pyprof_id lead;
    bool count_only;
    pyprof_counts c;
};

/* The callers of every function of `lead`'s group, added per caller group,
 * in order of first appearance, into *out (n of them). */
static int
group_callers(pyprof_profile *p, const struct groups *g, pyprof_id lead, uint32_t *slot_of,
              struct caller **out, size_t *cap, size_t *n)
{
    *n = 0;
    for (pyprof_id m = lead; m != PYPROF_NONE; m = g->next[m]) {
        const pyprof_id *es;
        size_t ne;
        int rc = pyprof_profile_callers(p, m, &es, &ne);
        if (rc < 0)
            return rc;
        for (size_t k = 0; k < ne; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, es[k]);
            pyprof_id cl = g->lead[e->caller];
            bool count_only = (e->flags & PYPROF_EDGE_COUNT_ONLY) != 0;
            if (slot_of[cl] == UINT32_MAX) {
                /* the first edge's counts as they are (a -0.0 stays -0.0) */
                if (PYPROF_GROW(*out, *cap, *n + 1) < 0)
                    return PYPROF_ENOMEM;
                slot_of[cl] = (uint32_t)*n;
                (*out)[(*n)++] = (struct caller){cl, count_only, e->counts};
                continue;
            }
            struct caller *c = &(*out)[slot_of[cl]];
            c->count_only &= count_only;
            pyprof__counts_add(&c->c, &e->counts);
        }
    }
    for (size_t k = 0; k < *n; k++)
        slot_of[(*out)[k].lead] = UINT32_MAX;
    return 0;
}

static int
pstats_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
             pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int rc = pyprof__callgraph_view(in, &p, &owned, opts, err);
    if (rc < 0)
        return rc;
    unsigned caps = pyprof_profile_caps(in);
    if (caps & PYPROF_CAP_STACKS)
        pyprof__note(opts->notes, "pstats has no stacks: only per-function and per-caller "
                                  "totals are kept");
    if (caps & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "pstats has no line timings: they are dropped");
    if (caps & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "pstats has no memory timeline: it is dropped");
    if (!pyprof__unit_is_seconds(p))
        pyprof__note(opts->notes, "times are sample counts, written where pstats expects "
                                  "seconds");

    size_t nf = pyprof_profile_func_count(p), entries = 0, ncallers = 0, callers_cap = 0;
    struct groups g = {NULL, NULL, 0};
    struct caller *callers = NULL;
    uint32_t *slot_of = pyprof__malloc((nf ? nf : 1) * sizeof(*slot_of));
    if (!slot_of || (rc = groups_build(&g, p)) < 0) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nf; i++)
        slot_of[i] = UINT32_MAX;
    put_u8(o, '{');
    for (size_t i = 0; i < nf; i++) {
        if (g.lead[i] != (pyprof_id)i)
            continue; /* written with its group's lead */
        pyprof_counts c = pyprof_profile_func(p, (pyprof_id)i)->counts;
        bool listed = false; /* a caller-only group has no entry */
        for (pyprof_id m = (pyprof_id)i; m != PYPROF_NONE; m = g.next[m]) {
            const pyprof_func *f = pyprof_profile_func(p, m);
            listed |= !(f->flags & PYPROF_FUNC_CALLER_ONLY);
            if (m != (pyprof_id)i)
                pyprof__counts_add(&c, &f->counts);
        }
        if (!listed)
            continue;
        if ((rc = group_callers(p, &g, (pyprof_id)i, slot_of, &callers, &callers_cap, &ncallers)) <
            0)
            goto out;
        entries++;
        put_key(o, p, pyprof_profile_func(p, (pyprof_id)i));
        put_tuple_head(o, 5);
        put_int(o, c.primcalls);
        put_int(o, c.ncalls);
        put_float(o, c.tottime);
        put_float(o, c.cumtime);
        put_u8(o, '{');
        for (size_t k = 0; k < ncallers; k++) {
            const struct caller *e = &callers[k];
            put_key(o, p, pyprof_profile_func(p, e->lead));
            if (e->count_only) {
                put_int(o, e->c.ncalls); /* profile module: a bare count */
            } else {
                /* callers keep (nc, cc, tt, ct): total calls first */
                put_tuple_head(o, 4);
                put_int(o, e->c.ncalls);
                put_int(o, e->c.primcalls);
                put_float(o, e->c.tottime);
                put_float(o, e->c.cumtime);
            }
        }
        put_u8(o, '0');
    }
    put_u8(o, '0');
    if (g.shared)
        pyprof__note(opts->notes,
                     "%zu function(s) shared a pstats key (file, line, name) with another "
                     "and were added into one entry, as pstats.Stats.add adds them",
                     g.shared);
    if (entries == 0)
        pyprof__note(opts->notes, "the profile has no functions: Python's pstats refuses to load "
                                  "an empty dict");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "pstats", -1, 0, "cannot write pstats: %s",
                         pyprof_status_string(rc));
    groups_free(&g);
    pyprof__free(callers);
    pyprof__free(slot_of);
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_pstats = {
    .name = "pstats",
    .aliases = "prof cprofile",
    .description = "Python pstats (marshal v2 subset, loadable by Python 2.5-3.14)",
    .write = pstats_write,
};
