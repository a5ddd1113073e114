/*
 * profile.c - the profile model: strings, sources, metadata, functions,
 * edges and the stack tree (line timings and the memory timeline are in
 * profile_series.c).
 *
 * Every part is a dense array in insertion order plus, where lookups are
 * needed, a pyprof__idtab keyed on the entity's identity.  Adjacency lists
 * (callers/callees, stack children) are built lazily on first use and thrown
 * away when the part changes.
 */
#include "config.h"

#include "profile_int.h"

int
pyprof_profile_new(pyprof_profile **out)
{
    *out = NULL;
    pyprof_profile *p = pyprof__calloc(1, sizeof(*p));
    if (!p)
        return PYPROF_ENOMEM;
    p->stack_metrics = 1;
    pyprof_id empty;
    if (pyprof_profile_intern(p, &empty, "", 0) < 0) {
        pyprof_profile_free(p);
        return PYPROF_ENOMEM;
    }
    *out = p;
    return 0;
}

static void
adj_free(struct pyprof__adj *a)
{
    pyprof__free(a->start);
    pyprof__free(a->ids);
    a->start = NULL;
    a->ids = NULL;
    a->valid = false;
}

void
pyprof_profile_free(pyprof_profile *p)
{
    if (!p)
        return;
    pyprof__arena_free(&p->arena);
    pyprof__free(p->str);
    pyprof__free(p->str_len);
    pyprof__idtab_free(&p->str_tab);
    pyprof__free(p->sources);
    pyprof__free(p->meta);
    pyprof__free(p->funcs);
    pyprof__idtab_free(&p->func_tab);
    pyprof__free(p->edges);
    pyprof__idtab_free(&p->edge_tab);
    adj_free(&p->callers);
    adj_free(&p->callees);
    pyprof__free(p->nodes);
    pyprof__free(p->elided);
    pyprof__idtab_free(&p->node_tab);
    adj_free(&p->children);
    pyprof__free(p->lines);
    pyprof__free(p->mem_series);
    pyprof__free(p->mem_samples);
    pyprof__mem_summary_free(&p->mem_summary);
    pyprof__free(p->mem_brackets);
    pyprof__free(p);
}

unsigned
pyprof_profile_caps(const pyprof_profile *p)
{
    unsigned c = 0;
    if (p->nfuncs)
        c |= PYPROF_CAP_FUNCS;
    if (p->nedges)
        c |= PYPROF_CAP_EDGES;
    if (p->nnodes)
        c |= PYPROF_CAP_STACKS;
    if (p->nlines)
        c |= PYPROF_CAP_LINES;
    else {
        for (size_t i = 0; i < p->nfuncs; i++) {
            if (p->funcs[i].flags & PYPROF_FUNC_LINES) {
                c |= PYPROF_CAP_LINES;
                break;
            }
        }
    }
    if (p->nmem_samples || p->nmem_brackets)
        c |= PYPROF_CAP_MEMORY;
    return c;
}

/* ---- strings ------------------------------------------------------------- */

struct str_key {
    const char *s;
    size_t len;
};

static bool
str_eq(const void *ctx, uint32_t id, const void *key)
{
    const pyprof_profile *p = ctx;
    const struct str_key *k = key;
    return p->str_len[id] == k->len && memcmp(p->str[id], k->s, k->len) == 0;
}

int
pyprof_profile_intern(pyprof_profile *p, pyprof_id *out, const char *s, size_t len)
{
    struct str_key k = {s, len};
    uint64_t h = pyprof__hash_bytes(s, len);
    uint32_t id = pyprof__idtab_find(&p->str_tab, h, str_eq, p, &k);
    if (id != PYPROF_NONE) {
        *out = id;
        return 0;
    }
    if (p->nstr >= UINT32_MAX - 1 || len > UINT32_MAX)
        return PYPROF_ELIMIT;
    if (PYPROF_GROW(p->str, p->str_cap, p->nstr + 1) < 0)
        return PYPROF_ENOMEM;
    if (p->str_len_cap < p->str_cap) {
        uint32_t *nl = pyprof__reallocarray(p->str_len, p->str_cap, sizeof(*nl));
        if (!nl)
            return PYPROF_ENOMEM;
        p->str_len = nl;
        p->str_len_cap = p->str_cap;
    }
    char *copy = pyprof__arena_alloc(&p->arena, len + 1);
    if (!copy)
        return PYPROF_ENOMEM;
    memcpy(copy, s, len);
    copy[len] = '\0';
    id = (uint32_t)p->nstr;
    p->str[id] = copy;
    p->str_len[id] = (uint32_t)len;
    if (pyprof__idtab_insert(&p->str_tab, h, id) < 0)
        return PYPROF_ENOMEM;
    p->nstr++;
    *out = id;
    return 0;
}

int
pyprof_profile_intern_lossy(pyprof_profile *p, pyprof_id *out, const char *s, size_t len,
                            int latin1_fallback)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t ok = pyprof__utf8_valid_prefix(u, len);
    if (ok == len)
        return pyprof_profile_intern(p, out, s, len);

    /* Worst case every byte becomes 3 bytes (U+FFFD, or 2 for Latin-1). */
    size_t cap;
    if (pyprof__mul_overflows(len, 3, &cap))
        return PYPROF_ELIMIT;
    char *buf = pyprof__malloc(cap + 1);
    if (!buf)
        return PYPROF_ENOMEM;
    size_t o = 0;
    bool latin1 = latin1_fallback && memchr(s, 0, len) == NULL;
    if (latin1) {
        for (size_t i = 0; i < len; i++) {
            if (u[i] < 0x80) {
                buf[o++] = (char)u[i];
            } else {
                buf[o++] = (char)(0xC0 | (u[i] >> 6));
                buf[o++] = (char)(0x80 | (u[i] & 0x3F));
            }
        }
        p->replacements++;
    } else {
        size_t i = 0;
        while (i < len) {
            size_t v = pyprof__utf8_valid_prefix(u + i, len - i);
            memcpy(buf + o, s + i, v);
            o += v;
            i += v;
            if (i < len) {
                /* one replacement per invalid byte, as Python's "replace" */
                buf[o++] = (char)0xEF;
                buf[o++] = (char)0xBF;
                buf[o++] = (char)0xBD;
                p->replacements++;
                i++;
            }
        }
    }
    int rc = pyprof_profile_intern(p, out, buf, o);
    pyprof__free(buf);
    return rc;
}

const char *
pyprof_profile_string(const pyprof_profile *p, pyprof_id id)
{
    if (id >= p->nstr)
        return "";
    return p->str[id];
}

size_t
pyprof_profile_string_len(const pyprof_profile *p, pyprof_id id)
{
    if (id >= p->nstr)
        return 0;
    return p->str_len[id];
}

uint64_t
pyprof_profile_replacements(const pyprof_profile *p)
{
    return p->replacements;
}

/* ---- sources and metadata --------------------------------------------------- */

int
pyprof_profile_add_source(pyprof_profile *p, const char *name, const char *format, int64_t mtime)
{
    pyprof_id n, f;
    int rc = pyprof_profile_intern_lossy(p, &n, name, strlen(name), 0);
    if (rc < 0)
        return rc;
    if ((rc = pyprof_profile_intern(p, &f, format ? format : "", format ? strlen(format) : 0)) < 0)
        return rc;
    if (PYPROF_GROW(p->sources, p->sources_cap, p->nsources + 1) < 0)
        return PYPROF_ENOMEM;
    p->sources[p->nsources++] = (pyprof_source){n, f, mtime};
    return 0;
}

size_t
pyprof_profile_source_count(const pyprof_profile *p)
{
    return p->nsources;
}

const pyprof_source *
pyprof_profile_source(const pyprof_profile *p, size_t i)
{
    return i < p->nsources ? &p->sources[i] : NULL;
}

const char *
pyprof__profile_name(const pyprof_profile *p)
{
    return p && p->nsources ? pyprof_profile_string(p, p->sources[0].name) : NULL;
}

int
pyprof_profile_meta_set(pyprof_profile *p, const char *key, const char *value)
{
    pyprof_id k, v;
    int rc = pyprof_profile_intern_lossy(p, &k, key, strlen(key), 0);
    if (rc < 0)
        return rc;
    if ((rc = pyprof_profile_intern_lossy(p, &v, value, strlen(value), 0)) < 0)
        return rc;
    for (size_t i = 0; i < p->nmeta; i++) {
        if (p->meta[i].key == k) {
            p->meta[i].value = v;
            return 0;
        }
    }
    if (PYPROF_GROW(p->meta, p->meta_cap, p->nmeta + 1) < 0)
        return PYPROF_ENOMEM;
    p->meta[p->nmeta].key = k;
    p->meta[p->nmeta].value = v;
    p->nmeta++;
    return 0;
}

const char *
pyprof_profile_meta_get(const pyprof_profile *p, const char *key)
{
    size_t len = strlen(key);
    for (size_t i = 0; i < p->nmeta; i++) {
        pyprof_id k = p->meta[i].key;
        if (p->str_len[k] == len && memcmp(p->str[k], key, len) == 0)
            return p->str[p->meta[i].value];
    }
    return NULL;
}

size_t
pyprof_profile_meta_count(const pyprof_profile *p)
{
    return p->nmeta;
}

void
pyprof_profile_meta_at(const pyprof_profile *p, size_t i, const char **key, const char **value)
{
    if (i >= p->nmeta) {
        *key = *value = NULL;
        return;
    }
    *key = p->str[p->meta[i].key];
    *value = p->str[p->meta[i].value];
}

/* ---- functions ------------------------------------------------------------------ */

struct func_key {
    pyprof_id file, name;
    int64_t line;
    uint32_t kind; /* flags & PYPROF_FUNC_CODEOBJ: part of the identity */
};

static uint64_t
func_hash(const struct func_key *k)
{
    uint64_t h = pyprof__hash_mix(k->file, k->name);
    h = pyprof__hash_mix(h, (uint64_t)k->line);
    return pyprof__hash_mix(h, k->kind);
}

static bool
func_eq(const void *ctx, uint32_t id, const void *key)
{
    const pyprof_func *f = &((const pyprof_profile *)ctx)->funcs[id];
    const struct func_key *k = key;
    return f->file == k->file && f->name == k->name && f->line == k->line &&
           (f->flags & PYPROF_FUNC_CODEOBJ) == k->kind;
}

pyprof_id
pyprof_profile_func_find(const pyprof_profile *p, pyprof_id file, int64_t line, pyprof_id name,
                         uint32_t flags)
{
    struct func_key k = {file, name, line, flags & PYPROF_FUNC_CODEOBJ};
    return pyprof__idtab_find(&p->func_tab, func_hash(&k), func_eq, p, &k);
}

int
pyprof_profile_func_intern(pyprof_profile *p, pyprof_id *out, pyprof_id file, int64_t line,
                           pyprof_id name, uint32_t flags, int *created)
{
    struct func_key k = {file, name, line, flags & PYPROF_FUNC_CODEOBJ};
    uint64_t h = func_hash(&k);
    uint32_t id = pyprof__idtab_find(&p->func_tab, h, func_eq, p, &k);
    if (created)
        *created = 0;
    if (id != PYPROF_NONE) {
        *out = id;
        return 0;
    }
    if (p->nfuncs >= UINT32_MAX - 1)
        return PYPROF_ELIMIT;
    if (PYPROF_GROW(p->funcs, p->funcs_cap, p->nfuncs + 1) < 0)
        return PYPROF_ENOMEM;
    id = (uint32_t)p->nfuncs;
    p->funcs[id] = (pyprof_func){.file = file, .name = name, .line = line, .flags = flags};
    if (pyprof__idtab_insert(&p->func_tab, h, id) < 0)
        return PYPROF_ENOMEM;
    p->nfuncs++;
    if (created)
        *created = 1;
    *out = id;
    return 0;
}

size_t
pyprof_profile_func_count(const pyprof_profile *p)
{
    return p->nfuncs;
}

const pyprof_func *
pyprof_profile_func(const pyprof_profile *p, pyprof_id id)
{
    return id < p->nfuncs ? &p->funcs[id] : NULL;
}

pyprof_func *
pyprof_profile_func_mut(pyprof_profile *p, pyprof_id id)
{
    return id < p->nfuncs ? &p->funcs[id] : NULL;
}

/* ---- edges ------------------------------------------------------------------------ */

static bool
edge_eq(const void *ctx, uint32_t id, const void *key)
{
    const pyprof_edge *e = &((const pyprof_profile *)ctx)->edges[id];
    const pyprof_id *k = key;
    return e->caller == k[0] && e->callee == k[1];
}

/* Index the edges appended since the last lookup.  Called by every lookup,
 * so the lazy index is invisible to callers. */
static int
edge_index_catch_up(pyprof_profile *p)
{
    if (p->nedges_indexed == p->nedges)
        return 0;
    if (pyprof__idtab_reserve(&p->edge_tab, p->nedges) < 0)
        return PYPROF_ENOMEM;
    for (size_t i = p->nedges_indexed; i < p->nedges; i++) {
        const pyprof_edge *e = &p->edges[i];
        if (pyprof__idtab_insert(&p->edge_tab, pyprof__hash_mix(e->caller, e->callee),
                                 (uint32_t)i) < 0)
            return PYPROF_ENOMEM;
        p->nedges_indexed = i + 1;
    }
    return 0;
}

pyprof_id
pyprof_profile_edge_find(const pyprof_profile *p, pyprof_id caller, pyprof_id callee)
{
    pyprof_id k[2] = {caller, callee};
    /* The lazy index is a cache: bringing it up to date changes no visible
     * state, which is why a const profile may do it.  If memory runs out,
     * the unindexed tail is searched linearly instead. */
    pyprof_profile *mp = (pyprof_profile *)p;
    if (edge_index_catch_up(mp) < 0) {
        for (size_t i = p->nedges_indexed; i < p->nedges; i++) {
            if (p->edges[i].caller == caller && p->edges[i].callee == callee)
                return (pyprof_id)i;
        }
    }
    return pyprof__idtab_find(&p->edge_tab, pyprof__hash_mix(caller, callee), edge_eq, p, k);
}

int
pyprof_profile_edge_intern(pyprof_profile *p, pyprof_id *out, pyprof_id caller, pyprof_id callee,
                           int *created)
{
    pyprof_id k[2] = {caller, callee};
    uint64_t h = pyprof__hash_mix(caller, callee);
    if (created)
        *created = 0;
    if (edge_index_catch_up(p) < 0)
        return PYPROF_ENOMEM;
    uint32_t id = pyprof__idtab_find(&p->edge_tab, h, edge_eq, p, k);
    if (id != PYPROF_NONE) {
        *out = id;
        return 0;
    }
    int rc = pyprof__profile_edge_append(p, &id, caller, callee);
    if (rc < 0)
        return rc;
    if (pyprof__idtab_insert(&p->edge_tab, h, id) < 0) {
        p->nedges--; /* keep the edge only if it can be found again */
        return PYPROF_ENOMEM;
    }
    p->nedges_indexed = p->nedges;
    if (created)
        *created = 1;
    *out = id;
    return 0;
}

int
pyprof__profile_edge_append(pyprof_profile *p, pyprof_id *out, pyprof_id caller, pyprof_id callee)
{
    if (caller >= p->nfuncs || callee >= p->nfuncs)
        return PYPROF_EINVAL;
    if (p->nedges >= UINT32_MAX - 1)
        return PYPROF_ELIMIT;
    if (PYPROF_GROW(p->edges, p->edges_cap, p->nedges + 1) < 0)
        return PYPROF_ENOMEM;
    pyprof_id id = (pyprof_id)p->nedges;
    p->edges[id] = (pyprof_edge){.caller = caller, .callee = callee};
    p->nedges++;
    p->callers.valid = p->callees.valid = false;
    *out = id;
    return 0;
}

int
pyprof_profile_reserve(pyprof_profile *p, size_t nfuncs, size_t nedges)
{
    size_t f, e;
    if (pyprof__add_overflows(p->nfuncs, nfuncs, &f) ||
        pyprof__add_overflows(p->nedges, nedges, &e))
        return PYPROF_ENOMEM;
    if (PYPROF_GROW(p->funcs, p->funcs_cap, f) < 0 || pyprof__idtab_reserve(&p->func_tab, f) < 0 ||
        PYPROF_GROW(p->edges, p->edges_cap, e) < 0)
        return PYPROF_ENOMEM;
    return 0;
}

size_t
pyprof_profile_edge_count(const pyprof_profile *p)
{
    return p->nedges;
}

const pyprof_edge *
pyprof_profile_edge(const pyprof_profile *p, pyprof_id id)
{
    return id < p->nedges ? &p->edges[id] : NULL;
}

const pyprof_edge *
pyprof__profile_edges(const pyprof_profile *p, size_t *n)
{
    *n = p->nedges;
    return p->edges;
}

void *
pyprof__profile_edges_spare(pyprof_profile *p, size_t *bytes)
{
    *bytes = (p->edges_cap - p->nedges) * sizeof *p->edges;
    return p->edges ? p->edges + p->nedges : NULL;
}

pyprof_edge *
pyprof_profile_edge_mut(pyprof_profile *p, pyprof_id id)
{
    return id < p->nedges ? &p->edges[id] : NULL;
}

/* Counting sort of `n` items into `nkeys` buckets, stable, so each bucket
 * keeps insertion order.  key(i) gives item i's bucket. */
static int
adj_build(struct pyprof__adj *a, size_t nkeys, size_t n, uint32_t (*key)(const void *, size_t),
          const void *ctx)
{
    adj_free(a);
    a->start = pyprof__calloc(nkeys + 2, sizeof(*a->start));
    a->ids = pyprof__calloc(n ? n : 1, sizeof(*a->ids));
    if (!a->start || !a->ids) {
        adj_free(a);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        a->start[key(ctx, i) + 2]++;
    for (size_t k = 2; k < nkeys + 2; k++)
        a->start[k] += a->start[k - 1];
    for (size_t i = 0; i < n; i++)
        a->ids[a->start[key(ctx, i) + 1]++] = (pyprof_id)i;
    a->nkeys = nkeys;
    a->valid = true;
    return 0;
}

static uint32_t
edge_callee_key(const void *ctx, size_t i)
{
    return ((const pyprof_profile *)ctx)->edges[i].callee;
}

static uint32_t
edge_caller_key(const void *ctx, size_t i)
{
    return ((const pyprof_profile *)ctx)->edges[i].caller;
}

static int
adj_get(struct pyprof__adj *a, size_t key, const pyprof_id **ids, size_t *n)
{
    if (key >= a->nkeys) {
        *ids = NULL;
        *n = 0;
        return PYPROF_EINVAL;
    }
    *ids = a->ids + a->start[key];
    *n = a->start[key + 1] - a->start[key];
    return 0;
}

int
pyprof_profile_callers(pyprof_profile *p, pyprof_id func, const pyprof_id **edges, size_t *n)
{
    if (!p->callers.valid || p->callers.nkeys != p->nfuncs) {
        int rc = adj_build(&p->callers, p->nfuncs, p->nedges, edge_callee_key, p);
        if (rc < 0)
            return rc;
    }
    return adj_get(&p->callers, func, edges, n);
}

int
pyprof_profile_callees(pyprof_profile *p, pyprof_id func, const pyprof_id **edges, size_t *n)
{
    if (!p->callees.valid || p->callees.nkeys != p->nfuncs) {
        int rc = adj_build(&p->callees, p->nfuncs, p->nedges, edge_caller_key, p);
        if (rc < 0)
            return rc;
    }
    return adj_get(&p->callees, func, edges, n);
}

/* ---- stack tree -------------------------------------------------------------------- */

static bool
node_eq(const void *ctx, uint32_t id, const void *key)
{
    const pyprof_stack_node *s = &((const pyprof_profile *)ctx)->nodes[id];
    const pyprof_id *k = key;
    return s->parent == k[0] && s->func == k[1];
}

static uint64_t
node_hash(const void *ctx, uint32_t id)
{
    const pyprof_stack_node *s = &((const pyprof_profile *)ctx)->nodes[id];
    return pyprof__hash_mix(s->parent, s->func);
}

/* Index the nodes that pyprof__profile_stack_append added without indexing. */
static int
node_tab_sync(pyprof_profile *p)
{
    for (; p->node_tab_upto < p->nnodes; p->node_tab_upto++) {
        uint32_t id = (uint32_t)p->node_tab_upto;
        if (pyprof__idtab_insert(&p->node_tab, node_hash(p, id), id) < 0)
            return PYPROF_ENOMEM;
    }
    return 0;
}

int
pyprof_profile_stack_child(pyprof_profile *p, pyprof_id *out, pyprof_id parent, pyprof_id func)
{
    if (func >= p->nfuncs)
        return PYPROF_EINVAL;
    if (node_tab_sync(p) < 0)
        return PYPROF_ENOMEM;
    pyprof_id k[2] = {parent, func};
    uint64_t h = pyprof__hash_mix(parent, func);
    uint32_t id = pyprof__idtab_find(&p->node_tab, h, node_eq, p, k);
    if (id != PYPROF_NONE) {
        *out = id;
        return 0;
    }
    int rc = pyprof__profile_stack_append(p, out, parent, func);
    if (rc == 0)
        rc = node_tab_sync(p);
    return rc;
}

int
pyprof__profile_stack_reserve(pyprof_profile *p, size_t n)
{
    if (n > UINT32_MAX - 1 - p->nnodes)
        return PYPROF_ELIMIT;
    return PYPROF_GROW(p->nodes, p->nodes_cap, p->nnodes + n) < 0 ? PYPROF_ENOMEM : 0;
}

int
pyprof__profile_stack_append(pyprof_profile *p, pyprof_id *out, pyprof_id parent, pyprof_id func)
{
    if (parent != PYPROF_NONE && parent >= p->nnodes)
        return PYPROF_EINVAL;
    if (p->nnodes >= UINT32_MAX - 1)
        return PYPROF_ELIMIT;
    if (PYPROF_GROW(p->nodes, p->nodes_cap, p->nnodes + 1) < 0)
        return PYPROF_ENOMEM;
    uint32_t id = (uint32_t)p->nnodes;
    p->nodes[id] = (pyprof_stack_node){.parent = parent, .func = func};
    p->nnodes++;
    p->children.valid = false;
    *out = id;
    return 0;
}

int
pyprof__profile_stack_elide(pyprof_profile *p, pyprof_id node, double weight)
{
    if (node >= p->nnodes)
        return PYPROF_EINVAL;
    if (PYPROF_GROW(p->elided, p->elided_cap, p->nelided + 1) < 0)
        return PYPROF_ENOMEM;
    p->elided[p->nelided++] = (pyprof_stack_elided){node, weight};
    return 0;
}

size_t
pyprof_profile_stack_elided(const pyprof_profile *p, const pyprof_stack_elided **out)
{
    *out = p->elided;
    return p->nelided;
}

int
pyprof__profile_whole_stacks(const pyprof_profile *p, pyprof_error *err, const char *what)
{
    if (!p->nelided)
        return 0;
    return pyprof_error_set(err, PYPROF_ECAPS, NULL, NULL, -1, 0,
                            "%s needs every frame, and this profile was read with the "
                            "lightest stacks cut short (stack_elide_below)",
                            what);
}

size_t
pyprof_profile_stack_count(const pyprof_profile *p)
{
    return p->nnodes;
}

const pyprof_stack_node *
pyprof_profile_stack_node(const pyprof_profile *p, pyprof_id id)
{
    return id < p->nnodes ? &p->nodes[id] : NULL;
}

pyprof_stack_node *
pyprof_profile_stack_node_mut(pyprof_profile *p, pyprof_id id)
{
    return id < p->nnodes ? &p->nodes[id] : NULL;
}

const pyprof_stack_node *
pyprof_profile_stack_nodes(const pyprof_profile *p, size_t *n)
{
    *n = p->nnodes;
    return p->nnodes ? p->nodes : NULL;
}

/* Roots are bucket 0, children of node n bucket n+1. */
static uint32_t
node_parent_key(const void *ctx, size_t i)
{
    pyprof_id parent = ((const pyprof_profile *)ctx)->nodes[i].parent;
    return parent == PYPROF_NONE ? 0 : parent + 1;
}

int
pyprof_profile_stack_children(pyprof_profile *p, pyprof_id node, const pyprof_id **ids, size_t *n)
{
    if (!p->children.valid || p->children.nkeys != p->nnodes + 1) {
        int rc = adj_build(&p->children, p->nnodes + 1, p->nnodes, node_parent_key, p);
        if (rc < 0)
            return rc;
    }
    return adj_get(&p->children, node == PYPROF_NONE ? 0 : (size_t)node + 1, ids, n);
}

unsigned
pyprof_profile_stack_metrics(const pyprof_profile *p)
{
    return p->stack_metrics;
}

void
pyprof_profile_set_stack_metrics(pyprof_profile *p, unsigned n)
{
    if (n >= 1 && n <= PYPROF_STACK_METRICS)
        p->stack_metrics = n;
}
