/*
 * callgrind.c - reader of the callgrind format (formats.md §10) as written
 * by pyprof2calltree, yappi (type='callgrind'), valgrind and this library.
 *
 * What is understood: header lines (events/positions/creator/cmd; the rest
 * is skipped), fl/fi/fe/fn and cfi/cfl/cfn with name compression "(ID) name"
 * / "(ID)" in the three ID spaces (files, functions, objects), cost lines
 * with sub-position compression (+N, -N, *) and hex numbers, calls= lines
 * with the inclusive cost line that follows, and our own "# pyprof-func:" /
 * "# pyprof-call:" comments that carry what callgrind cannot say.  jump= and
 * jcnd= lines and their cost lines are skipped.  Only the first event is
 * read: "ns" (pyprof2calltree, ours), "Ticks" (yappi, microseconds) and a
 * few unit names become seconds; any other event (valgrind's Ir) is kept as
 * a sample count (time_unit "samples").
 *
 * The model: a function is (file, name) as KCachegrind has it, with the line
 * of its first self-cost line (or the target line of a calls= to it).
 * Names that pyprof2calltree and our writer made unique with ":LINE" and
 * yappi's "NAME PATH:LINE" get the suffix taken off again.  Without our
 * comments, ncalls = primcalls = calls into the function and cumulative =
 * self + inclusive cost of its calls (KCachegrind's rule; self-calls
 * excluded).  Functions are created in the order of their blocks, edges in
 * the order of the calls= lines.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>

#include "pyprof_int.h"

#define FMT "callgrind"

/* ---- small maps ------------------------------------------------------------ */

/* compressed name number -> string id, for one of the three ID spaces */
struct num_entry {
    uint64_t key;
    pyprof_id val;
};
struct nummap {
    struct num_entry *e;
    size_t n, cap;
    pyprof__idtab tab;
};

static bool
nummap_eq(const void *ctx, uint32_t id, const void *key)
{
    return ((const struct nummap *)ctx)->e[id].key == *(const uint64_t *)key;
}

static pyprof_id
nummap_get(const struct nummap *m, uint64_t k)
{
    uint32_t i = pyprof__idtab_find(&m->tab, pyprof__hash_mix(0, k), nummap_eq, m, &k);
    return i == PYPROF_NONE ? PYPROF_NONE : m->e[i].val;
}

static int
nummap_set(struct nummap *m, uint64_t k, pyprof_id v)
{
    uint32_t i = pyprof__idtab_find(&m->tab, pyprof__hash_mix(0, k), nummap_eq, m, &k);
    if (i != PYPROF_NONE) {
        m->e[i].val = v; /* a redefinition wins, as in KCachegrind */
        return 0;
    }
    if (PYPROF_GROW(m->e, m->cap, m->n + 1) < 0)
        return PYPROF_ENOMEM;
    m->e[m->n] = (struct num_entry){k, v};
    int rc = pyprof__idtab_insert(&m->tab, pyprof__hash_mix(0, k), (uint32_t)m->n);
    if (rc < 0)
        return rc;
    m->n++;
    return 0;
}

static void
nummap_free(struct nummap *m)
{
    pyprof__free(m->e);
    pyprof__idtab_free(&m->tab);
}

/* ---- the reader's own function and call tables ------------------------------ */

struct cg_func {
    pyprof_id file, name;
    int64_t line, line_hint; /* -1 = not seen */
    double self, out_incl;
    int64_t calls_in;       /* calls into it, the call count of a file without ours */
    bool calls_in_overflow; /* ...which passed 2^63: an error only if it is needed */
    bool ext, caller_only;  /* "# pyprof-func:" seen */
    bool line_suffix;       /* ours: the writer added ":LINE" to the name */
    int64_t ncalls, primcalls;
    double cum;
    uint32_t block; /* 1-based order of the first fn= block, 0 = none */
};

struct cg_edge {
    uint32_t caller, callee;
    int64_t calls;
    double incl;
    bool ext, count_only;
    int64_t primcalls;
    double self;
};

struct cg {
    pyprof_profile *p;
    pyprof_input *in;
    pyprof_error *err;
    struct cg_func *funcs;
    size_t nfuncs, funcs_cap;
    pyprof__idtab func_tab;
    struct cg_edge *edges;
    size_t nedges, edges_cap;
    pyprof__idtab edge_tab;
    struct nummap files, fns, objs;
    uint32_t nblocks;

    double scale; /* cost units per second, or 0 for samples */
    bool events_seen;
    int npos, line_col; /* position columns, and which one is the line (-1 none) */
    int64_t last_pos[4];

    pyprof_id fl, cfi, cfn;
    pyprof_id fn_file, fn_name; /* the fn= context, PYPROF_NONE before any */
    uint32_t cur; /* its function index, created at its first cost line (UINT32_MAX) */
    bool in_call, skip_next;
    int64_t call_count, call_target;
    bool pend_ext, pend_count_only;
    int64_t pend_primcalls;
    double pend_self;
};

static bool
func_eq(const void *ctx, uint32_t id, const void *key)
{
    const struct cg_func *f = &((const struct cg *)ctx)->funcs[id];
    const pyprof_id *k = key;
    return f->file == k[0] && f->name == k[1];
}

static uint64_t
func_hash(pyprof_id file, pyprof_id name)
{
    return pyprof__hash_mix(pyprof__hash_mix(1, file), name);
}

static int
func_get(struct cg *c, uint32_t *out, pyprof_id file, pyprof_id name)
{
    pyprof_id key[2] = {file, name};
    uint64_t h = func_hash(file, name);
    *out = pyprof__idtab_find(&c->func_tab, h, func_eq, c, key);
    if (*out != PYPROF_NONE)
        return 0;
    if (PYPROF_GROW(c->funcs, c->funcs_cap, c->nfuncs + 1) < 0)
        return PYPROF_ENOMEM;
    c->funcs[c->nfuncs] = (struct cg_func){.file = file, .name = name, .line = -1, .line_hint = -1};
    int rc = pyprof__idtab_insert(&c->func_tab, h, (uint32_t)c->nfuncs);
    if (rc < 0)
        return rc;
    *out = (uint32_t)c->nfuncs++;
    return 0;
}

static bool
edge_eq(const void *ctx, uint32_t id, const void *key)
{
    const struct cg_edge *e = &((const struct cg *)ctx)->edges[id];
    const uint32_t *k = key;
    return e->caller == k[0] && e->callee == k[1];
}

static int
edge_get(struct cg *c, struct cg_edge **out, uint32_t caller, uint32_t callee)
{
    uint32_t key[2] = {caller, callee};
    uint64_t h = func_hash(caller, callee);
    uint32_t i = pyprof__idtab_find(&c->edge_tab, h, edge_eq, c, key);
    if (i == PYPROF_NONE) {
        if (PYPROF_GROW(c->edges, c->edges_cap, c->nedges + 1) < 0)
            return PYPROF_ENOMEM;
        c->edges[c->nedges] = (struct cg_edge){.caller = caller, .callee = callee};
        int rc = pyprof__idtab_insert(&c->edge_tab, h, (uint32_t)c->nedges);
        if (rc < 0)
            return rc;
        i = (uint32_t)c->nedges++;
    }
    *out = &c->edges[i];
    return 0;
}

/* ---- line parsing -------------------------------------------------------------- */

static int fail(struct cg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct cg *c, const char *fmt, ...)
{
    char msg[PYPROF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    pyprof__vsnprintf_c(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pyprof_input_error_line(c->in, c->err, PYPROF_EFORMAT, FMT, pyprof_input_line(c->in),
                                   "%s", msg);
}

/* Add a call count to a total.  Counts come from the file, so their sum can
 * pass 2^63; that is an error in the data, never a wrapped number. */
static int
add_count(struct cg *c, int64_t *total, int64_t n)
{
    if (__builtin_add_overflow(*total, n, total))
        return fail(c, "call counts add up to more than %lld", (long long)INT64_MAX);
    return 0;
}

/* An unsigned decimal or 0x-hex number; *s is advanced past it. */
static bool
parse_u64(const char **s, uint64_t *v)
{
    const char *q = *s;
    int base = 10;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
        base = 16;
        q += 2;
    }
    if (!isxdigit((unsigned char)*q) || (base == 10 && !isdigit((unsigned char)*q)))
        return false;
    char *end;
    errno = 0;
    *v = strtoull(q, &end, base);
    if (errno)
        return false;
    *s = end;
    return true;
}

static const char *
skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* One sub-position: absolute, "+N"/"-N" relative to the previous, or "*". */
static bool
parse_pos(const char **s, int64_t *last)
{
    const char *q = *s;
    uint64_t v;
    if (*q == '*') {
        *s = q + 1;
        return true;
    }
    if (*q == '+' || *q == '-') {
        int neg = *q == '-';
        q++;
        /* a file can step past either end of int64_t: an error, not a wrap */
        if (!parse_u64(&q, &v) || v > INT64_MAX ||
            __builtin_add_overflow(*last, neg ? -(int64_t)v : (int64_t)v, last))
            return false;
    } else {
        if (!parse_u64(&q, &v) || v > INT64_MAX)
            return false;
        *last = (int64_t)v;
    }
    *s = q;
    return true;
}

/* The value of fl=, fn=, cfn= ...: "(ID) name" defines, "(ID)" refers, and
 * anything else is a plain name. */
static int
resolve_name(struct cg *c, struct nummap *m, const char *v, pyprof_id *out)
{
    int rc;
    if (v[0] == '(' && isdigit((unsigned char)v[1])) {
        const char *q = v + 1;
        uint64_t num;
        if (!parse_u64(&q, &num) || *q != ')')
            return fail(c, "bad compressed name '%s'", v);
        q++;
        if (*q == ' ' || *q == '\t')
            q++; /* one blank separates; the name after it is kept verbatim */
        if (!*q) {
            /* "(ID)" refers; "(ID) " with nothing after defines the empty
             * name (our writer's file for frames without one), unless ID
             * is known already and the blank is only trailing noise */
            *out = nummap_get(m, num);
            if (*out != PYPROF_NONE)
                return 0;
            if (q[-1] == ')')
                return fail(c, "compressed name %s used before it is defined", v);
        }
        if ((rc = pyprof_profile_intern_lossy(c->p, out, q, strlen(q), 1)) < 0)
            return rc;
        return nummap_set(m, num, *out);
    }
    return pyprof_profile_intern_lossy(c->p, out, v, strlen(v), 1);
}

static void
set_events(struct cg *c, const char *v)
{
    char first[32];
    size_t k = strcspn(v, " \t");
    if (k >= sizeof(first))
        k = sizeof(first) - 1;
    memcpy(first, v, k);
    first[k] = '\0';
    static const struct {
        const char *name;
        double scale;
    } units[] = {{"ns", 1e9}, {"nsec", 1e9}, {"Ticks", 1e6}, {"us", 1e6}, {"usec", 1e6},
                 {"ms", 1e3}, {"msec", 1e3}, {"s", 1},       {"sec", 1}};
    c->scale = 0;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(first, units[i].name) == 0)
            c->scale = units[i].scale;
    }
    c->events_seen = true;
}

static void
set_positions(struct cg *c, const char *v)
{
    c->npos = 0;
    c->line_col = -1;
    while (*v && c->npos < 3) {
        size_t k = strcspn(v, " \t");
        if (k == 4 && memcmp(v, "line", 4) == 0)
            c->line_col = c->npos;
        c->npos++;
        v = skip_ws(v + k);
    }
    if (c->npos == 0) {
        c->npos = 1;
        c->line_col = 0;
    }
    memset(c->last_pos, 0, sizeof(c->last_pos));
}

/* Dividing by units per second (rather than multiplying by 1e-9) gives the
 * double nearest to the exact value, so our own files read back exactly. */
static double
to_seconds(const struct cg *c, double v)
{
    return c->scale > 0 ? v / c->scale : v;
}

static int
cost_line(struct cg *c, const char *s)
{
    int64_t line = 0;
    for (int i = 0; i < c->npos; i++) {
        s = skip_ws(s);
        if (!parse_pos(&s, &c->last_pos[i]))
            return fail(c, "bad position in cost line '%s'", s);
        if (i == c->line_col)
            line = c->last_pos[i];
    }
    s = skip_ws(s);
    uint64_t v = 0;
    if (*s && !parse_u64(&s, &v))
        return fail(c, "bad cost '%s'", s);
    /* later events are not read */
    if (c->skip_next) {
        c->skip_next = false;
        return 0;
    }
    if (c->fn_name == PYPROF_NONE)
        return fail(c, "cost line before any fn= line");
    int rc;
    if (c->cur == UINT32_MAX) {
        if ((rc = func_get(c, &c->cur, c->fn_file, c->fn_name)) < 0)
            return rc;
        if (!c->funcs[c->cur].block)
            c->funcs[c->cur].block = ++c->nblocks;
    }
    double cost = (double)v; /* in cost units until finish() */
    struct cg_func *f = &c->funcs[c->cur];
    if (c->in_call) {
        c->in_call = false;
        if (c->cfn == PYPROF_NONE)
            return fail(c, "calls= without a cfn= line");
        uint32_t callee;
        struct cg_edge *e;
        rc = func_get(c, &callee, c->cfi != PYPROF_NONE ? c->cfi : c->fl, c->cfn);
        if (rc < 0)
            return rc;
        if ((rc = edge_get(c, &e, c->cur, callee)) < 0)
            return rc;
        struct cg_func *g = &c->funcs[callee];
        f = &c->funcs[c->cur]; /* func_get may have moved the array */
        if ((rc = add_count(c, &e->calls, c->call_count)) < 0)
            return rc;
        e->incl += cost;
        if (c->pend_ext) {
            e->ext = true;
            if ((rc = add_count(c, &e->primcalls, c->pend_primcalls)) < 0)
                return rc;
            e->self += c->pend_self;
            e->count_only = c->pend_count_only;
        }
        c->pend_ext = false;
        /* our own files give the count in "# pyprof-func:" (maybe later in
         * the file), and it is the sum of saturated edges that may pass 2^63 */
        if (__builtin_add_overflow(g->calls_in, c->call_count, &g->calls_in)) {
            g->calls_in = INT64_MAX;
            g->calls_in_overflow = true;
        }
        if (callee != c->cur)
            f->out_incl += cost;
        if (g->line_hint < 0 && c->call_target > 0)
            g->line_hint = c->call_target;
        c->cfi = PYPROF_NONE;
        return 0;
    }
    f->self += cost;
    if (f->line < 0 && c->line_col >= 0)
        f->line = line;
    return 0;
}

/* The value text of "key=value key=value" of our comment lines, or NULL */
static const char *
ext_value(const char *s, const char *key)
{
    size_t k = strlen(key);
    for (const char *q = strstr(s, key); q; q = strstr(q + 1, key))
        if ((q == s || q[-1] == ' ') && q[k] == '=')
            return q + k + 1;
    return NULL;
}

/* A count field (signed, as the writer's counts are) */
static bool
ext_field(const char *s, const char *key, int64_t *v)
{
    const char *t = ext_value(s, key);
    if (t)
        *v = strtoll(t, NULL, 10);
    return t != NULL;
}

/* A cost field (unsigned 64-bit, as cost lines are): 0 if absent or
 * negative (strtoull would wrap "-1" to 2^64 - 1) */
static double
ext_cost(const char *s, const char *key)
{
    const char *t = ext_value(s, key);
    return t && *t != '-' ? (double)strtoull(t, NULL, 10) : 0;
}

static int
ext_comment(struct cg *c, const char *s)
{
    int64_t v;
    if (strncmp(s, "# pyprof-func:", 14) == 0 && c->fn_name != PYPROF_NONE) {
        if (c->cur == UINT32_MAX) {
            if (func_get(c, &c->cur, c->fn_file, c->fn_name) < 0)
                return PYPROF_ENOMEM;
            if (!c->funcs[c->cur].block)
                c->funcs[c->cur].block = ++c->nblocks;
        }
        struct cg_func *f = &c->funcs[c->cur];
        f->ext = true;
        f->ncalls = ext_field(s, "ncalls", &v) ? v : 0;
        f->primcalls = ext_field(s, "primcalls", &v) ? v : 0;
        f->cum = ext_cost(s, "cum");
        f->caller_only = ext_field(s, "caller_only", &v) && v;
        f->line_suffix = ext_field(s, "line_suffix", &v) && v;
    } else if (strncmp(s, "# pyprof-call:", 14) == 0) {
        c->pend_ext = true;
        c->pend_primcalls = ext_field(s, "primcalls", &v) ? v : 0;
        c->pend_self = ext_cost(s, "self");
        c->pend_count_only = ext_field(s, "count_only", &v) && v;
    }
    return 0;
}

static int
spec_line(struct cg *c, const char *key, size_t klen, const char *v)
{
    int rc;
    pyprof_id id;
#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
    if (IS("fl")) {
        if ((rc = resolve_name(c, &c->files, v, &c->fl)) < 0)
            return rc;
    } else if (IS("fi") || IS("fe")) {
        if ((rc = resolve_name(c, &c->files, v, &id)) < 0) /* inlined code: same function */
            return rc;
    } else if (IS("fn")) {
        if ((rc = resolve_name(c, &c->fns, v, &id)) < 0)
            return rc;
        if (c->fl == PYPROF_NONE && (rc = pyprof_profile_intern(c->p, &c->fl, "", 0)) < 0)
            return rc;
        /* yappi lists fl=/fn= definitions before any block: a function
         * exists only once a cost or calls= line is charged to it */
        c->fn_file = c->fl;
        c->fn_name = id;
        c->cur = UINT32_MAX;
        c->in_call = false;
    } else if (IS("cfi") || IS("cfl")) {
        if ((rc = resolve_name(c, &c->files, v, &c->cfi)) < 0)
            return rc;
    } else if (IS("cfn")) {
        if ((rc = resolve_name(c, &c->fns, v, &c->cfn)) < 0)
            return rc;
    } else if (IS("ob") || IS("cob")) {
        if ((rc = resolve_name(c, &c->objs, v, &id)) < 0)
            return rc;
    } else if (IS("calls")) {
        uint64_t n;
        const char *q = skip_ws(v);
        if (!parse_u64(&q, &n) || n > INT64_MAX)
            return fail(c, "bad call count in 'calls=%s'", v);
        int64_t target = 0;
        q = skip_ws(q);
        if (*q && *q != '*' && isdigit((unsigned char)*q)) {
            uint64_t t;
            if (parse_u64(&q, &t) && t <= INT64_MAX)
                target = (int64_t)t;
        }
        c->in_call = true;
        c->call_count = (int64_t)n;
        c->call_target = target;
    } else if (IS("jump") || IS("jcnd")) {
        c->skip_next = true;
    }
    /* unknown position keys are skipped: the format may grow */
    return 0;
#undef IS
}

static int
header_line(struct cg *c, const char *key, size_t klen, const char *v)
{
#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
    if (IS("events")) {
        set_events(c, v);
    } else if (IS("positions")) {
        set_positions(c, v);
    } else if (IS("creator")) {
        return pyprof_profile_meta_set(c->p, "producer", v);
    } else if (IS("cmd")) {
        return pyprof_profile_meta_set(c->p, "cmdline", v);
    }
    return 0;
#undef IS
}

/* ---- finishing: our tables into the model ---------------------------------------- */

static bool
all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
    }
    return true;
}

/* Undo the suffixes producers add to make names unique; may set *line. */
static int
clean_name(struct cg *c, const struct cg_func *f, pyprof_id *name, int64_t *line)
{
    /* our files say which names the writer suffixed, so that a name that
     * ends in ":N" itself stays whole */
    if (f->ext && !f->line_suffix)
        return 0;
    const char *s = pyprof_profile_string(c->p, f->name);
    size_t n = pyprof_profile_string_len(c->p, f->name);
    const char *colon = memrchr(s, ':', n);
    if (!colon || !all_digits(colon + 1, n - (size_t)(colon - s) - 1))
        return 0;
    int64_t ln = strtoll(colon + 1, NULL, 10);
    /* yappi: "NAME PATH:LINE" where PATH is the fl= file */
    const char *file = pyprof_profile_string(c->p, f->file);
    size_t fl = strlen(file);
    size_t head = (size_t)(colon - s);
    if (fl && head > fl + 1 && memcmp(colon - fl, file, fl) == 0 && colon[-(long)fl - 1] == ' ' &&
        (*line < 0 || *line == ln || *line == 0)) {
        *line = ln;
        return pyprof_profile_intern(c->p, name, s, head - fl - 1);
    }
    /* pyprof2calltree and ours: "NAME:FIRSTLINE" */
    if (*line >= 0 && ln == *line)
        return pyprof_profile_intern(c->p, name, s, head);
    return 0;
}

static int
cmp_block(const void *a, const void *b, void *ctx)
{
    const struct cg_func *fs = ctx;
    const struct cg_func *fa = &fs[*(const uint32_t *)a], *fb = &fs[*(const uint32_t *)b];
    uint32_t ka = fa->block ? fa->block : UINT32_MAX, kb = fb->block ? fb->block : UINT32_MAX;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int
finish(struct cg *c)
{
    int rc = 0;
    uint32_t *order = pyprof__calloc(c->nfuncs ? c->nfuncs : 1, sizeof(*order));
    pyprof_id *model = pyprof__calloc(c->nfuncs ? c->nfuncs : 1, sizeof(*model));
    if (!order || !model) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < c->nfuncs; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, c->nfuncs, sizeof(*order), cmp_block, c->funcs);
    for (size_t k = 0; k < c->nfuncs; k++) {
        const struct cg_func *f = &c->funcs[order[k]];
        int64_t line = f->line >= 0 ? f->line : f->line_hint >= 0 ? f->line_hint : -1;
        pyprof_id name = f->name;
        PYPROF_TRY(clean_name(c, f, &name, &line));
        if (line < 0)
            line = 0;
        /* a function named before any fl=/cfi= has no file: "", the same
         * string as an empty fl=, so that the two are one function */
        pyprof_id file = f->file;
        if (file == PYPROF_NONE)
            PYPROF_TRY(pyprof_profile_intern(c->p, &file, "", 0));
        pyprof_id id;
        PYPROF_TRY(pyprof_profile_func_intern(c->p, &id, file, line, name, 0, NULL));
        model[order[k]] = id;
        pyprof_func *m = pyprof_profile_func_mut(c->p, id);
        m->counts.tottime += to_seconds(c, f->self);
        /* two callgrind functions can become one (clean_name): their
         * counts add, and may overflow like any sum of file data */
        if (!f->ext && f->calls_in_overflow) {
            rc = pyprof_error_set(c->err, PYPROF_EFORMAT, pyprof_input_name(c->in), FMT, -1, 0,
                                  "calls into %s add up to more than %lld",
                                  pyprof_profile_string(c->p, f->name), (long long)INT64_MAX);
            goto out;
        }
        int64_t nc = f->ext ? f->ncalls : f->calls_in, pc = f->ext ? f->primcalls : f->calls_in;
        if (__builtin_add_overflow(m->counts.ncalls, nc, &m->counts.ncalls) ||
            __builtin_add_overflow(m->counts.primcalls, pc, &m->counts.primcalls)) {
            rc = pyprof_error_set(c->err, PYPROF_EFORMAT, pyprof_input_name(c->in), FMT, -1, 0,
                                  "call counts add up to more than %lld", (long long)INT64_MAX);
            goto out; /* (a return here leaked the order and map) */
        }
        if (f->ext) {
            m->counts.cumtime += to_seconds(c, f->cum);
            if (f->caller_only)
                m->flags |= PYPROF_FUNC_CALLER_ONLY;
        } else {
            m->counts.cumtime += to_seconds(c, f->self + f->out_incl);
        }
    }
    for (size_t i = 0; i < c->nedges; i++) {
        const struct cg_edge *e = &c->edges[i];
        pyprof_id id;
        PYPROF_TRY(pyprof_profile_edge_intern(c->p, &id, model[e->caller], model[e->callee], NULL));
        pyprof_edge *m = pyprof_profile_edge_mut(c->p, id);
        m->counts.ncalls += e->calls;
        m->counts.primcalls += e->ext ? e->primcalls : e->calls;
        m->counts.tottime += to_seconds(c, e->self);
        m->counts.cumtime += to_seconds(c, e->incl);
        if (e->count_only)
            m->flags |= PYPROF_EDGE_COUNT_ONLY;
    }
    PYPROF_TRY(pyprof_profile_meta_set(c->p, "time_unit", c->scale > 0 ? "seconds" : "samples"));
out:
    pyprof__free(order);
    pyprof__free(model);
    return rc;
}

/* ---- entry points -------------------------------------------------------------- */

/* ASCII letters, digits and '_' (not isalnum, which a host program's
 * LC_CTYPE widens: in a Latin-1 locale 0xE9 is a letter). */
static bool
is_key(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return n > 0;
}

static int
callgrind_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts,
               pyprof_error *err)
{
    (void)opts;
    struct cg c = {.p = p,
                   .in = in,
                   .err = err,
                   .cur = UINT32_MAX,
                   .fl = PYPROF_NONE,
                   .cfi = PYPROF_NONE,
                   .cfn = PYPROF_NONE,
                   .npos = 1,
                   .line_col = 0};
    const char *line;
    size_t len;
    int rc;
    char *buf = NULL;
    size_t buf_cap = 0;

    while ((rc = pyprof_input_read_line(in, &line, &len, 0, err)) > 0) {
        if (len && line[len - 1] == '\r')
            len--;
        /* a private NUL-terminated copy: the line is trimmed and parsed in
         * place, so a NUL inside would silently cut a name short */
        if (memchr(line, 0, len)) {
            rc = fail(&c, "a NUL byte in the line: this is not a text file");
            goto out;
        }
        if ((rc = PYPROF_GROW(buf, buf_cap, len + 1)) < 0)
            goto out;
        memcpy(buf, line, len);
        buf[len] = '\0';
        const char *s = buf;
        if (!*s)
            continue;
        if (*s == '#') {
            if ((rc = ext_comment(&c, s)) < 0)
                goto out;
            continue;
        }
        if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*') {
            if (!c.events_seen) {
                rc = fail(&c, "cost line before the events: line");
                goto out;
            }
            if ((rc = cost_line(&c, s)) < 0)
                goto out;
            continue;
        }
        size_t k = strcspn(s, "=:");
        if (s[k] && is_key(s, k)) {
            const char *v = skip_ws(s + k + 1);
            rc = s[k] == '=' ? spec_line(&c, s, k, v) : header_line(&c, s, k, v);
            if (rc < 0)
                goto out;
            continue;
        }
        rc = fail(&c, "not a callgrind line: '%.40s'", s);
        goto out;
    }
    if (rc < 0)
        goto out;
    if (!c.events_seen) {
        rc = pyprof_input_error(in, err, PYPROF_EFORMAT, FMT, pyprof_input_offset(in),
                                "no events: line, so this is not a callgrind file");
        goto out;
    }
    rc = finish(&c);
out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, pyprof_input_name(in), FMT, -1, 0, "out of memory");
    pyprof__free(buf);
    pyprof__free(c.funcs);
    pyprof__free(c.edges);
    pyprof__idtab_free(&c.func_tab);
    pyprof__idtab_free(&c.edge_tab);
    nummap_free(&c.files);
    nummap_free(&c.fns);
    nummap_free(&c.objs);
    return rc;
}

/* The first line "# callgrind format" is certain; otherwise an events:
 * line, or a creator:/version: header with fn= lines, in the first lines. */
static int
callgrind_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)at_eof;
    if (len >= 18 && memcmp(head, "# callgrind format", 18) == 0)
        return 100;
    bool header = false, fn = false;
    size_t i = 0;
    for (int lines = 0; i < len && lines < 64; lines++) {
        const unsigned char *l = head + i;
        const unsigned char *nl = memchr(l, '\n', len - i);
        size_t n = nl ? (size_t)(nl - l) : len - i;
        if (n >= 7 && memcmp(l, "events:", 7) == 0)
            return 90;
        if ((n >= 8 && memcmp(l, "creator:", 8) == 0) || (n >= 8 && memcmp(l, "version:", 8) == 0))
            header = true;
        if (n >= 3 && memcmp(l, "fn=", 3) == 0)
            fn = true;
        if (!nl)
            break;
        i += n + 1;
    }
    return header && fn ? 60 : 0;
}

const pyprof__format pyprof__format_callgrind = {
    .name = "callgrind",
    .aliases = "calltree kcachegrind",
    .description = "callgrind (pyprof2calltree, yappi, valgrind, libpyprof)",
    .probe = callgrind_probe,
    .read = callgrind_read,
};
