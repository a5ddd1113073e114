/*
 * flame_layout.c - the flame graph layout of flamegraph.pl (formats.md §9.2-9.3),
 * computed from a stack tree instead of from text lines.
 *
 * flamegraph.pl sorts its input lines as strings and then walks them once,
 * closing the frames a line does not share with the previous one and
 * opening the new ones.  Sorting whole lines has a visible quirk: in
 * "a;foo 1", "a;foo.bar 2", "a;foo;x 3" the frame foo is split in two,
 * because "." sorts between " " (end of a stack) and ";" (a deeper frame).
 * To give the same frames we replay that walk on the tree: the lines under
 * one node are exactly a node's "self" line (key "NAME COUNT") and its
 * subtree (key "NAME;..."), and sorting those keys among siblings and
 * visiting them depth first yields the lines in flamegraph.pl's order.  The
 * open/close walk over that sequence then follows flamegraph.pl's rules,
 * including the loss of a frame to a zero-count line (see put_frame).
 *
 * Known differences, all in corner cases: stacks that repeat on several
 * lines were summed by the reader, so a line's own count text (which is part
 * of flamegraph.pl's sort key) is rebuilt from the sum; and two sibling
 * functions whose frames print alike are merged only where they are
 * adjacent, not re-sorted together.
 *
 * Speed: a subtree narrower than the minimum width can hold no visible frame,
 * so it is replayed as a single line ending at its top frame; only the
 * visible part of a huge tree is ever sorted and walked.
 */
#include "config.h"

#include <math.h>

#include "flame_int.h"
#include "svg_markup.h"

/* The walk reads the profile's own stack tree: local node 0 is the root
 * ("all"), local node k > 0 is profile node k - 1.  Per node it keeps only
 * the subtree width, two flags and where its children are listed: 13 bytes
 * a node.  Child lists are made only for the nodes the walk can open (see
 * list_children): a big file's tree has millions of nodes, and arrays that
 * size cost more in page faults than in any work done with them. */
typedef struct item {
    uint32_t node;
    uint32_t is_sub;    /* 0: the node's own line, 1: its subtree */
    size_t key, keylen; /* offset into the key buffer */
} item;

typedef struct level {
    uint32_t node;
    size_t items, nitems, next, keys;
} level;

typedef struct open_frame {
    uint32_t label;
    pyprof_id func;
    double start, delta;
    bool has_delta;
} open_frame;

typedef struct walk {
    pyprof_flame *f;
    pyprof_profile *p;
    const pyprof_stack_node *nodes; /* p's nodes: the walk adds none */
    const uint32_t *lab;            /* label of each function */
    unsigned metric;                /* the metric that gives widths */
    bool vanished;                  /* differential: widths max(before, after) */
    uint32_t root_label;
    size_t nt;       /* local nodes: profile nodes + the root */
    double *total_w; /* subtree width */
    uint8_t *flags;  /* NODE_* */
    uint32_t *kids;  /* children of the nodes the walk can open, by parent */
    uint32_t *kid_at; /* node k's are kids[kid_at[k] .. kid_at[k + 1]) */
    size_t nkids;
    item *items;
    size_t nitems, items_cap;
    char *keys;
    size_t nkeys, keys_cap;
    level *lv;
    size_t nlv, lv_cap;
    open_frame *open; /* open[d] for depth d >= 1; open[0] unused */
    size_t nopen, open_cap;
    uint32_t *path; /* labels of the line being emitted, path[1..depth] */
    pyprof_id *path_func;
    size_t path_cap, path_func_cap;
    /* open[d].label == path[d] for 1 <= d <= path_ok: where emit_line's
     * comparison of the two can start.  Comparing from the top cost each
     * line its depth, and the lines of a deep stack whose every frame has
     * self time (a speedscope trace) number as many as its frames. */
    size_t path_ok;
    double time, min_units;
    /* frames closed at `closed_at` (flamegraph.pl keys nodes by name,
     * depth and end time, so a later one with the same key replaces an
     * earlier one: see put_frame) */
    double closed_at;
    struct closed {
        uint32_t label, depth;
        size_t frame; /* index in f->frames, or SIZE_MAX if it was too narrow */
    } * closed;
    size_t nclosed, closed_cap;
    /* ... found by label and depth: a stack a million frames deep closes
     * them all at one instant, and a scan of the list per frame took hours.
     * A slot is current when its generation is closed_gen, which moves on
     * with closed_at, so that the table empties in one step. */
    struct closed_slot {
        uint32_t gen, index; /* index in closed */
    } * cix;
    size_t cix_mask;
    uint32_t closed_gen;
    item *sort_tmp; /* (sort_items) */
    size_t sort_tmp_cap;
} walk;

/* ---- strings -------------------------------------------------------------------------------- */

/* Labels, as string ids of f->strs, of the functions of the nodes the walk
 * may visit: the children of the nodes it can open (w->kids).  A big tree
 * has hundreds of thousands of functions; a graph draws a few thousand. */
static int
func_labels(pyprof_flame *f, const pyprof_profile *p, const uint32_t *kids, size_t nkids,
            const pyprof_stack_node *nodes, uint32_t **out)
{
    size_t n = pyprof_profile_func_count(p), cap = 256;
    uint32_t *lab = pyprof__malloc((n ? n : 1) * sizeof(*lab));
    char *buf = pyprof__malloc(cap);
    int rc = 0;
    if (!lab || !buf) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    memset(lab, 0xff, n * sizeof(*lab)); /* UINT32_MAX: not needed */
    for (size_t k = 0; k < nkids; k++) {
        pyprof_id i = nodes[kids[k] - 1].func;
        if (lab[i] != UINT32_MAX)
            continue;
        size_t len = pyprof_flame_frame_label(p, i, buf, cap);
        if (len >= cap) {
            char *nb = pyprof__realloc(buf, len + 1);
            if (!nb) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            buf = nb;
            cap = len + 1;
            pyprof_flame_frame_label(p, i, buf, cap);
        }
        if ((rc = pyprof__flame_intern(f, &lab[i], buf, len)) < 0)
            goto out;
    }
out:
    pyprof__free(buf);
    if (rc < 0) {
        pyprof__free(lab);
        lab = NULL;
    }
    *out = lab;
    return rc;
}

/* ---- the tree ------------------------------------------------------------------------------ */

static inline const pyprof_stack_node *
pnode(const walk *w, uint32_t k)
{
    return &w->nodes[k - 1];
}

static uint32_t
node_label(const walk *w, uint32_t k)
{
    return k ? w->lab[pnode(w, k)->func] : w->root_label;
}

static pyprof_id
node_func(const walk *w, uint32_t k)
{
    return k ? pnode(w, k)->func : PYPROF_NONE;
}

static double
self_w(const walk *w, uint32_t k)
{
    if (!k)
        return 0;
    const pyprof_stack_node *s = pnode(w, k);
    if (w->vanished && s->self[0] > s->self[1])
        return s->self[0]; /* a stack that shrank or vanished keeps its old width */
    return s->self[w->metric];
}

static double
self_b(const walk *w, uint32_t k)
{
    return k ? pnode(w, k)->self[0] : 0;
}

/* after - before: the change a differential frame is coloured by */
static double
delta_of(const walk *w, uint32_t k)
{
    return k ? pnode(w, k)->self[w->metric] - pnode(w, k)->self[0] : 0;
}

static bool
has_self(const walk *w, uint32_t k)
{
    return k && (pnode(w, k)->self[0] != 0 || pnode(w, k)->self[w->metric] != 0);
}

#define NODE_ZERO_BELOW 1 /* a zero-count line ends somewhere below (see walk_lines) */
#define NODE_HAS_KIDS   2

static inline uint32_t
up_of(const walk *w, uint32_t k)
{
    pyprof_id parent = pnode(w, k)->parent;
    return parent == PYPROF_NONE ? 0 : parent + 1;
}

/* Subtree widths and flags, bottom-up: a node's id is always greater than
 * its parent's. */
static int
sum_totals(walk *w)
{
    size_t n;
    w->nodes = pyprof_profile_stack_nodes(w->p, &n);
    w->nt = n + 1;
    /* written zeros: the pass below adds into slots before it stores */
    w->total_w = pyprof__zalloc(w->nt, sizeof(*w->total_w));
    w->flags = pyprof__zalloc(w->nt, 1);
    if (!w->total_w || !w->flags)
        return PYPROF_ENOMEM;
    /* stacks the reader cut short: their weight is below the node, as the
     * cut frames' would be (they could not be drawn: see
     * pyprof_flame_elide_fraction) */
    const pyprof_stack_elided *el;
    size_t ne = pyprof_profile_stack_elided(w->p, &el);
    for (size_t i = 0; i < ne; i++) {
        w->total_w[el[i].node + 1] += el[i].weight > 0 ? el[i].weight : 0;
        w->flags[el[i].node + 1] |= NODE_HAS_KIDS;
    }
    for (size_t k = w->nt; k-- > 1;) {
        uint32_t up = up_of(w, (uint32_t)k);
        double sw = self_w(w, (uint32_t)k), own = sw > 0 ? sw : 0; /* negatives draw nothing */
        w->total_w[k] += own;
        w->total_w[up] += w->total_w[k];
        w->flags[up] |= NODE_HAS_KIDS;
        if ((w->flags[k] & NODE_ZERO_BELOW) || (has_self(w, (uint32_t)k) && !(sw > 0)))
            w->flags[up] |= NODE_ZERO_BELOW;
    }
    return 0;
}

/* Whether walk_lines opens node k (instead of standing in for it with one
 * line): the root, and nodes with enough width, or zero-count lines, below
 * their own line. */
static bool
opens(const walk *w, uint32_t k)
{
    if (!k)
        return true;
    if (w->total_w[k] < w->min_units && !(w->flags[k] & NODE_ZERO_BELOW))
        return false; /* most nodes: decided without reading the node */
    double sw = self_w(w, k), own = sw > 0 ? sw : 0;
    return !(w->total_w[k] - own < w->min_units) || (w->flags[k] & NODE_ZERO_BELOW);
}

/* The children of every node the walk can open, grouped by parent in id
 * order, and within a parent by id (= insertion order): a counting sort by
 * parent, which keeps the order the children come in.  Node k's range is
 * found at kid_at[k]; the binary search over (parent, child) pairs that it
 * replaced was half of walking the lines of a 100 MB file's graph. */
static int
list_children(walk *w)
{
    /* kid_at[k + 1] counts node k's children, then the sums make
     * kid_at[k] where they start */
    w->kid_at = pyprof__zalloc(w->nt + 1, sizeof(*w->kid_at));
    if (!w->kid_at)
        return PYPROF_ENOMEM;
    for (uint32_t k = 1; k < w->nt; k++) {
        uint32_t up = up_of(w, k);
        if (opens(w, up))
            w->kid_at[up + 1]++;
    }
    for (size_t k = 1; k <= w->nt; k++)
        w->kid_at[k] += w->kid_at[k - 1];
    w->nkids = w->kid_at[w->nt];
    w->kids = pyprof__malloc((w->nkids ? w->nkids : 1) * sizeof(*w->kids));
    if (!w->kids)
        return PYPROF_ENOMEM;
    /* each parent's next free place: kid_at[up] moves to its end, which
     * is where the next parent starts, and the shift below restores it */
    for (uint32_t k = 1; k < w->nt; k++) {
        uint32_t up = up_of(w, k);
        if (opens(w, up))
            w->kids[w->kid_at[up]++] = k;
    }
    memmove(w->kid_at + 1, w->kid_at, w->nt * sizeof(*w->kid_at));
    w->kid_at[0] = 0;
    return 0;
}

/* --reverse: a profile of the same functions whose stacks run leaf first. */
static int
reversed(const pyprof_profile *p, pyprof_profile **out)
{
    int rc;
    pyprof_profile *r = NULL;
    pyprof_id *chain = NULL;
    size_t chain_cap = 0;
    PYPROF_TRY(pyprof_profile_new(&r));
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        pyprof_id file, name, id;
        const char *fs = pyprof_profile_string(p, f->file), *ns = pyprof_profile_string(p, f->name);
        PYPROF_TRY(pyprof_profile_intern(r, &file, fs, strlen(fs)));
        PYPROF_TRY(pyprof_profile_intern(r, &name, ns, strlen(ns)));
        /* a fresh profile numbers the (distinct) functions alike */
        PYPROF_TRY(pyprof_profile_func_intern(r, &id, file, f->line, name, f->flags, NULL));
    }
    for (size_t i = 0; i < pyprof_profile_meta_count(p); i++) {
        const char *k, *v;
        pyprof_profile_meta_at(p, i, &k, &v);
        PYPROF_TRY(pyprof_profile_meta_set(r, k, v));
    }
    pyprof_profile_set_stack_metrics(r, pyprof_profile_stack_metrics(p));
    for (size_t i = 0; i < pyprof_profile_stack_count(p); i++) {
        const pyprof_stack_node *s = pyprof_profile_stack_node(p, (pyprof_id)i);
        if (s->self[0] == 0 && s->self[1] == 0)
            continue;
        size_t len = 0;
        for (pyprof_id q = (pyprof_id)i; q != PYPROF_NONE;
             q = pyprof_profile_stack_node(p, q)->parent) {
            if (PYPROF_GROW(chain, chain_cap, len + 1) < 0) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            chain[len++] = pyprof_profile_stack_node(p, q)->func;
        }
        pyprof_id at = PYPROF_NONE;
        for (size_t k = 0; k < len; k++) /* leaf first */
            PYPROF_TRY(pyprof_profile_stack_child(r, &at, at, chain[k]));
        pyprof_stack_node *d = pyprof_profile_stack_node_mut(r, at);
        d->self[0] += s->self[0];
        d->self[1] += s->self[1];
    }
out:
    pyprof__free(chain);
    if (rc < 0) {
        pyprof_profile_free(r);
        r = NULL;
    }
    *out = r;
    return rc;
}

/* ---- walking lines in flamegraph.pl's order -------------------------------------------------- */

static size_t
closed_home(const walk *w, uint32_t label, uint32_t depth)
{
    return pyprof__hash_mix(label, depth) & w->cix_mask;
}

/* Room in the index for one more closed frame (rebuilt from w->closed). */
static int
closed_index_room(walk *w)
{
    size_t cap = w->cix ? w->cix_mask + 1 : 0;
    if ((w->nclosed + 1) * 2 <= cap)
        return 0;
    size_t ncap = cap ? cap * 2 : 64;
    struct closed_slot *t = pyprof__zalloc(ncap, sizeof(*t));
    if (!t)
        return PYPROF_ENOMEM;
    pyprof__free(w->cix);
    w->cix = t;
    w->cix_mask = ncap - 1;
    w->closed_gen = 1;
    for (size_t i = 0; i < w->nclosed; i++) {
        size_t j = closed_home(w, w->closed[i].label, w->closed[i].depth);
        while (t[j].gen == w->closed_gen)
            j = (j + 1) & w->cix_mask;
        t[j] = (struct closed_slot){w->closed_gen, (uint32_t)i};
    }
    return 0;
}

static int
put_frame(walk *w, uint32_t label, pyprof_id func, uint32_t depth, double start, double end,
          double delta, bool has_delta)
{
    pyprof_flame *f = w->f;
    int rc;
    if (end != w->closed_at) {
        w->closed_at = end;
        w->nclosed = 0;
        if (++w->closed_gen == 0 && w->cix) { /* (wrapped: old stamps could look current) */
            memset(w->cix, 0, (w->cix_mask + 1) * sizeof(*w->cix));
            w->closed_gen = 1;
        }
    }
    if (w->nclosed >= UINT32_MAX)
        return PYPROF_ELIMIT;
    if ((rc = closed_index_room(w)) < 0)
        return rc;
    /* flamegraph.pl's quirk, reproduced: its nodes are keyed by "name;
     * depth;end", so when a zero-count line opens and closes a frame with
     * the same name and depth at the moment an earlier frame of that name
     * closed, the later node overwrites the earlier one, whose width is
     * lost.  This happens with the zero counts of difffolded.pl output. */
    size_t j = closed_home(w, label, depth);
    for (; w->cix[j].gen == w->closed_gen; j = (j + 1) & w->cix_mask) {
        struct closed *c = &w->closed[w->cix[j].index];
        if (c->label != label || c->depth != depth)
            continue;
        if (c->frame != SIZE_MAX) {
            pyprof_flame_frame *fr = &f->frames[c->frame];
            fr->start = start;
            fr->delta = delta;
            fr->has_delta = has_delta;
            if (depth > 0 && end - start < w->min_units) {
                fr->depth = UINT32_MAX; /* removed when the walk ends */
                c->frame = SIZE_MAX;
            }
        }
        return 0;
    }
    if (PYPROF_GROW(w->closed, w->closed_cap, w->nclosed + 1) < 0)
        return PYPROF_ENOMEM;
    w->cix[j] = (struct closed_slot){w->closed_gen, (uint32_t)w->nclosed};
    struct closed *c = &w->closed[w->nclosed++];
    *c = (struct closed){label, depth, SIZE_MAX};
    if (depth > 0 && end - start < w->min_units)
        return 0; /* narrower than minwidth: flamegraph.pl drops it */
    if (PYPROF_GROW(f->frames, f->frames_cap, f->nframes + 1) < 0)
        return PYPROF_ENOMEM;
    c->frame = f->nframes;
    f->frames[f->nframes++] = (pyprof_flame_frame){.name = NULL,
                                                   .func = func,
                                                   .depth = depth,
                                                   .start = start,
                                                   .end = end,
                                                   .delta = delta,
                                                   .has_delta = has_delta,
                                                   .x = label}; /* label id, until finished */
    return 0;
}

/* One line: path[1..depth] with `count`; the leaf carries `delta`. */
static int
emit_line(walk *w, size_t depth, double count, double delta, bool diff)
{
    int rc;
    size_t j = w->path_ok;
    if (j > w->nopen)
        j = w->nopen;
    if (j > depth)
        j = depth;
    while (j < w->nopen && j < depth && w->open[j + 1].label == w->path[j + 1])
        j++;
    for (size_t d = w->nopen; d > j; d--) {
        open_frame *o = &w->open[d];
        if ((rc = put_frame(w, o->label, o->func, (uint32_t)d, o->start, w->time, o->delta,
                            o->has_delta)) < 0)
            return rc;
    }
    if (PYPROF_GROW(w->open, w->open_cap, depth + 1) < 0)
        return PYPROF_ENOMEM;
    for (size_t d = j + 1; d <= depth; d++)
        w->open[d] = (open_frame){.label = w->path[d],
                                  .func = w->path_func[d],
                                  .start = w->time,
                                  .delta = d == depth ? delta : 0,
                                  .has_delta = diff};
    w->nopen = depth;
    w->path_ok = depth;
    w->time += count;
    return 0;
}

/* A count as flamegraph.pl's line would print it; its length.  Whole
 * counts (nearly all) are formatted without printf: a big graph has a
 * sort key for each of tens of thousands of lines. */
static size_t
count_str(char *buf, size_t size, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return pyprof__fmt_fixed0(buf, size, v);
    pyprof__snprintf_c(buf, size, "%.17g", v);
    return strlen(buf);
}

/* Items by key text; `keys` is the walk's key buffer (an argument, not a
 * file-scope variable: layouts of distinct profiles may run on several
 * threads at once, profile.h) */
static int
item_cmp(const item *x, const item *y, const char *keys)
{
    size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
    int c = memcmp(keys + x->key, keys + y->key, n);
    if (c)
        return c;
    return x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
}

/* Items in key order, equal keys in the order they came (two siblings
 * whose labels and counts print alike), on every platform: insertion
 * sorts of runs of 8, merged pairwise through `tmp` (n items).  Most
 * levels have a few items (four on average in a 100 MB file's graph),
 * where the set-up of qsort_r took longer than the compares; and qsort_r,
 * used before, keeps equal keys in order only where it merge sorts (glibc
 * up to 2.36, not musl or later glibc). */
static void
sort_items(item *it, size_t n, const char *keys, item *tmp)
{
    enum { RUN = 8 };
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            item x = it[i];
            size_t j = i;
            for (; j > lo && item_cmp(&it[j - 1], &x, keys) > 0; j--)
                it[j] = it[j - 1];
            it[j] = x;
        }
    }
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) /* (the left one first on a tie) */
                tmp[o++] = item_cmp(&it[b], &it[a], keys) < 0 ? it[b++] : it[a++];
            while (a < mid)
                tmp[o++] = it[a++];
            while (b < hi)
                tmp[o++] = it[b++];
        }
        memcpy(it, tmp, n * sizeof(*it));
    }
}

/* Push a level for `node`: its children's items, in line order. */
static int
push_level(walk *w, uint32_t node)
{
    pyprof_flame *f = w->f;
    if (PYPROF_GROW(w->lv, w->lv_cap, w->nlv + 1) < 0)
        return PYPROF_ENOMEM;
    level *L = &w->lv[w->nlv++];
    *L = (level){.node = node, .items = w->nitems, .keys = w->nkeys};
    for (size_t i = w->kid_at[node]; i < w->kid_at[node + 1]; i++) {
        uint32_t c = w->kids[i];
        uint32_t label = node_label(w, c);
        const char *name = pyprof__flame_str(f, label);
        size_t nl = pyprof_profile_string_len(f->strs, label);
        double sw = self_w(w, c);
        bool has_kids = (w->flags[c] & NODE_HAS_KIDS) != 0;
        for (int sub = 0; sub < 2; sub++) {
            if (sub ? !has_kids : !has_self(w, c))
                continue;
            char num[80];
            size_t numl = 0;
            if (!sub && !f->o.flamechart) {
                if (f->differential) {
                    char a[40], b[40];
                    count_str(a, sizeof a, self_b(w, c));
                    count_str(b, sizeof b, sw);
                    numl = (size_t)snprintf(num, sizeof num, "%s %s", a, b);
                } else {
                    numl = count_str(num, sizeof num, sw);
                }
            }
            size_t kl = f->o.flamechart ? 0 : nl + 1 + numl;
            if (PYPROF_GROW(w->keys, w->keys_cap, w->nkeys + kl + 1) < 0 ||
                PYPROF_GROW(w->items, w->items_cap, w->nitems + 1) < 0)
                return PYPROF_ENOMEM;
            if (kl) {
                memcpy(w->keys + w->nkeys, name, nl);
                w->keys[w->nkeys + nl] = sub ? ';' : ' ';
                memcpy(w->keys + w->nkeys + nl + 1, num, kl - nl - 1);
            }
            w->items[w->nitems++] = (item){c, (uint32_t)sub, w->nkeys, kl};
            w->nkeys += kl;
        }
    }
    L = &w->lv[w->nlv - 1];
    L->nitems = w->nitems - L->items;
    if (!f->o.flamechart && L->nitems > 1) { /* (none: items may still be NULL) */
        if (L->nitems > 8 && PYPROF_GROW(w->sort_tmp, w->sort_tmp_cap, L->nitems) < 0)
            return PYPROF_ENOMEM;
        sort_items(w->items + L->items, L->nitems, w->keys, w->sort_tmp);
    }
    return 0;
}

static int
walk_lines(walk *w)
{
    int rc;
    pyprof_flame *f = w->f;
    if ((rc = push_level(w, 0)) < 0)
        return rc;
    while (w->nlv > 0) {
        level *L = &w->lv[w->nlv - 1];
        if (L->next == L->nitems) {
            w->nitems = L->items;
            w->nkeys = L->keys;
            w->nlv--;
            continue;
        }
        item it = w->items[L->items + L->next++];
        uint32_t c = it.node;
        size_t depth = w->nlv; /* the item's frame depth: level 0 is the root */
        if (PYPROF_GROW(w->path, w->path_cap, depth + 1) < 0 ||
            PYPROF_GROW(w->path_func, w->path_func_cap, depth + 1) < 0)
            return PYPROF_ENOMEM;
        /* path[1 .. depth - 1] are the frames of the open levels: each was
         * written here when its level was pushed, and only deeper entries
         * changed since (rewriting them per item made a deep stack cost
         * its depth squared) */
        w->path[depth] = node_label(w, c);
        if (w->path_ok >= depth)
            w->path_ok = depth - 1;
        w->path_func[depth] = node_func(w, c);
        double sw = self_w(w, c), own = sw > 0 ? sw : 0;
        if (!it.is_sub) {
            if ((rc = emit_line(w, depth, own, delta_of(w, c), f->differential)) < 0)
                return rc;
            continue;
        }
        double below = w->total_w[c] - own;
        if (below < w->min_units && !(w->flags[c] & NODE_ZERO_BELOW)) {
            /* nothing under here is wide enough to draw: one line stands for
             * the subtree, keeping the frames above it open as it would.
             * (Not when zero-count lines are inside: their frames open and
             * close at one instant and can erase others, see put_frame.) */
            if ((rc = emit_line(w, depth, below, 0, f->differential)) < 0)
                return rc;
            continue;
        }
        if ((rc = push_level(w, c)) < 0)
            return rc;
    }
    /* close everything */
    return emit_line(w, 0, 0, 0, false);
}

/* frames by depth, then left to right */
static int
frame_cmp(const void *a, const void *b)
{
    const pyprof_flame_frame *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort the frames as frame_cmp does.  The walk closes the frames of one
 * depth from left to right, so a stable counting sort by depth nearly
 * always leaves nothing more to do; a depth whose frames are not in order
 * (put_frame moved one's start) is sorted on its own.  The frames move in
 * place, along the cycles of the permutation: a second array of them (or
 * qsort's) is fresh memory, and its page faults cost more than sorting
 * 15,000 frames. */
static int
sort_frames(pyprof_flame *f)
{
    size_t n = f->nframes, maxd = 0;
    for (size_t i = 0; i < n; i++)
        maxd = f->frames[i].depth > maxd ? f->frames[i].depth : maxd;
    size_t *at = pyprof__zalloc(maxd + 2, sizeof(*at));
    size_t *dest = pyprof__malloc((n ? n : 1) * sizeof(*dest));
    if (!at || !dest) {
        pyprof__free(at);
        pyprof__free(dest);
        return PYPROF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        at[f->frames[i].depth + 1]++;
    for (size_t d = 1; d <= maxd + 1; d++)
        at[d] += at[d - 1]; /* at[d]: where depth d starts */
    for (size_t i = 0; i < n; i++)
        dest[i] = at[f->frames[i].depth]++; /* now at[d]: where d + 1 starts */
    for (size_t i = 0; i < n; i++) {
        /* frames[i] goes to dest[i], whose frame goes on in turn, until
         * the place of the one that belongs at i */
        while (dest[i] != i) {
            size_t j = dest[i];
            pyprof_flame_frame t = f->frames[j];
            f->frames[j] = f->frames[i];
            f->frames[i] = t;
            dest[i] = dest[j];
            dest[j] = j;
        }
    }
    for (size_t d = 0, from = 0; d <= maxd; from = at[d++]) {
        for (size_t i = from + 1; i < at[d]; i++)
            if (frame_cmp(&f->frames[i - 1], &f->frames[i]) > 0) {
                qsort(f->frames + from, at[d] - from, sizeof(*f->frames), frame_cmp);
                break;
            }
    }
    pyprof__free(at);
    pyprof__free(dest);
    return 0;
}

/* ---- public -------------------------------------------------------------------------------- */

int
pyprof_flame_layout(pyprof_flame **out, pyprof_profile *p, const pyprof_flame_options *opts,
                    pyprof_error *err)
{
    int rc;
    walk w = {0};
    uint32_t *lab = NULL;
    pyprof_profile *rev = NULL;
    const char *source = pyprof__profile_name(p); /* before p may become its reversal */
    *out = NULL;
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_STACKS) &&
        !pyprof_profile_meta_get(p, "stack_root_weight"))
        return pyprof_error_set(err, PYPROF_ECAPS, pyprof__profile_name(p), "flame", -1, 0,
                                "the profile has no stacks (estimate them from the call "
                                "graph first)");
    pyprof_flame *f = pyprof__calloc(1, sizeof(*f));
    if (!f)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, "flame", -1, 0, "out of memory");
    w.f = f;
    if ((rc = pyprof_profile_new(&f->strs)) < 0)
        goto out;
    if ((rc = pyprof__flame_setup(f, p, opts)) < 0)
        goto out;
    if (f->o.reverse) {
        if ((rc = pyprof__profile_whole_stacks(p, err, "a reversed flame graph")) < 0 ||
            (rc = reversed(p, &rev)) < 0)
            goto out;
        p = rev;
    }
    w.p = p;
    if ((rc = pyprof__flame_intern(f, &w.root_label, "", 0)) < 0)
        goto out;
    w.metric = f->differential ? 1 : 0;
    w.vanished = f->differential && f->o.diff_vanished;
    if ((rc = sum_totals(&w)) < 0)
        goto out;

    const char *rw = pyprof_profile_meta_get(p, "stack_root_weight");
    double root_weight = rw ? pyprof__strtod_c(rw, NULL) : 0;
    if (!(root_weight > 0))
        root_weight = 0;
    double sum = root_weight + w.total_w[0];
    f->total = f->o.total > sum ? f->o.total : sum;
    if (!(f->total > 0)) {
        rc = pyprof_error_set(err, PYPROF_EFORMAT, source, "flame", -1, 0,
                              "no samples to draw (the counts add up to zero or less)");
        goto out;
    }
    f->maxdelta = 1;
    for (uint32_t k = 1; f->differential && k < w.nt; k++) /* colours only differences */
        if (has_self(&w, k) && fabs(delta_of(&w, k)) > f->maxdelta)
            f->maxdelta = fabs(delta_of(&w, k));
    double ppu = (f->o.width - 2 * FLAME_XPAD) / f->total;
    w.min_units = f->o.minwidth_percent ? f->total * f->o.minwidth / 100 : f->o.minwidth / ppu;
    if ((rc = list_children(&w)) < 0 ||
        (rc = func_labels(f, p, w.kids, w.nkids, w.nodes, &lab)) < 0)
        goto out;
    w.lab = lab;
    w.time = root_weight; /* empty stacks sort first */
    w.closed_at = -1;
    if ((rc = walk_lines(&w)) < 0)
        goto out;
    /* the root spans the total */
    if ((rc = put_frame(&w, w.root_label, PYPROF_NONE, 0, 0, f->total, 0, false)) < 0)
        goto out;
    size_t kept = 0;
    for (size_t i = 0; i < f->nframes; i++) {
        pyprof_flame_frame *fr = &f->frames[i];
        if (fr->depth == UINT32_MAX)
            continue;
        fr->name = fr->depth == 0 ? "all" : pyprof__flame_str(f, (uint32_t)fr->x);
        f->frames[kept++] = *fr;
    }
    f->nframes = kept;
    if ((rc = sort_frames(f)) < 0)
        goto out;
    pyprof__flame_geometry(f);
    rc = pyprof__flame_colour(f, err);
out:
    pyprof__free(lab);
    pyprof__free(w.total_w);
    pyprof__free(w.flags);
    pyprof__free(w.kids);
    pyprof__free(w.kid_at);
    pyprof__free(w.items);
    pyprof__free(w.keys);
    pyprof__free(w.lv);
    pyprof__free(w.open);
    pyprof__free(w.path);
    pyprof__free(w.path_func);
    pyprof__free(w.closed);
    pyprof__free(w.cix);
    pyprof__free(w.sort_tmp);
    pyprof_profile_free(rev);
    if (rc < 0) {
        if (err && err->code == 0)
            pyprof_error_set(err, rc, NULL, "flame", -1, 0, "flame graph layout failed: %s",
                             pyprof_status_string(rc));
        pyprof_flame_free(f);
        return rc;
    }
    *out = f;
    return 0;
}
