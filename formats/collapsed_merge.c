/*
 * collapsed_merge.c - joining what two threads read of one collapsed file
 * (collapsed_split.c): the second half's functions, nodes and tails are added
 * to the first half's profile as one pass over the whole file would have
 * added them, so that the profile read is the same whatever the threads.
 */
#include "config.h"

#include "collapsed.h"

/* How many nodes ahead pyprof__collapsed_merge prefetches: enough for the
 * misses of a few dozen lookups to be in flight at once. */
#define MERGE_AHEAD 32
/* The merge starts a function's first lookup miss 2 * FUNC_AHEAD
 * functions ahead of it, and the second FUNC_AHEAD ahead. */
#define FUNC_AHEAD 8

/* Prefetch the path slot of b's node j, if it will be looked up and its
 * parent's mapping is known (nodes before k are merged). */
static inline void
merge_prefetch(const reader *a, const pyprof_stack_node *bn, const pyprof_id *fmap,
               const pyprof_id *nmap, const uint64_t *path, size_t k, size_t j, size_t old)
{
    pyprof_id up = bn[j].parent;
    if (up != PYPROF_NONE && (up >= k || nmap[up] >= old))
        return;
    uint64_t h =
        pyprof__path_hash(up == PYPROF_NONE ? PYPROF__PATH_ROOT_HASH : path[up], fmap[bn[j].func]);
    __builtin_prefetch(&a->path_tab[pyprof__path_tag(h) & a->path_mask]);
}

bool
pyprof__collapsed_halves_mergeable(const reader *a, const reader *b)
{
    /* b's line numbers would be relative to its half: with malformed lines
     * (reported by number) the second half is read again in one pass; so
     * it is with text that needed repair (counted per profile), and with
     * weights whose sums could round differently in two parts */
    return a->dialect == D_FOLDED && b->dialect == D_FOLDED && !b->bad && !b->nonplain &&
           !a->inexact && !b->inexact && a->weight_sum + b->weight_sum < 9007199254740992.0;
}

/* Nodes a merge adds with a path slot (pushed-down tails of a), which may
 * have children to look up: one byte per node added since `old`. */
struct findable_set {
    uint8_t *bits;
    size_t cap;
};

static bool
findable(const struct findable_set *s, size_t old, pyprof_id node)
{
    return node >= old && node - old < s->cap && s->bits[node - old];
}

static int
mark_findable(struct findable_set *s, size_t old, size_t from, size_t to)
{
    if (to <= from)
        return 0;
    size_t ocap = s->cap;
    if (PYPROF_GROW(s->bits, s->cap, to - old) < 0)
        return PYPROF_ENOMEM;
    memset(s->bits + ocap, 0, s->cap - ocap);
    memset(s->bits + (from - old), 1, to - from);
    return 0;
}

/*
 * b's tails, after b's nodes (nmap: b's node -> a's; path: the path hash
 * of each, in a's functions; nodes from `old` on are new to a, unless
 * `later` holds them).  A tail under a node new to a stays as it is
 * (nothing is below that node); so does one under a node of a that keeps
 * tails, whatever their weight in all.  Nothing is read after a merge: the
 * end of the read (pyprof__collapsed_tails_finish) opens every node whose
 * tails are heavy enough to draw, and elides the others, whoever hung
 * them there.  Pushing a's tails down here as soon as b's made a node
 * heavier than the light limit (half the weight the end of the read
 * draws) did that end's work before it, and pushed down tails that it
 * then elided one level lower: on the 100 MB benchmark file the merge
 * walked 11,300 of b's tails and pushed 17,500 of a's one level down;
 * now it walks 4,700 (those under nodes of a with children) and pushes
 * none.  The walks took 4.8 ms and now 1.4, the end of the read 1.3 ms
 * and now 0.9, and the graph is the same.
 * No tail of b but those of one node of b reaches the node of a it maps
 * to (a node with tails has no children, so no other tail of b passes
 * it), so they all stay or all walk, and a list that stays, as b linked
 * it (newest first), goes in front of a's in one step.  Taken one by one,
 * each cost a cache miss on its node's entry: on the 1 GB benchmark file
 * this part of the merge went from 51-54 ms to 41-50.  The tails of the
 * other lists walk, in b's order.
 */
static int
merge_tails(reader *a, reader *b, const pyprof_id *nmap, const uint64_t *path, size_t old,
            const struct findable_set *later)
{
    size_t nn = pyprof_profile_stack_count(b->p), off = a->ntails;
    enum { UNSEEN, STAY, WALK };
    uint8_t *fate = pyprof__zalloc(nn ? nn : 1, 1);
    uint32_t *oldest = pyprof__malloc((nn ? nn : 1) * sizeof(*oldest));
    int rc = 0;
    if (!fate || !oldest) { /* (a's array has room for b's tails: see the merge) */
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < b->ntails; i++) {
        struct tail *t = &b->tails[i], *d = &a->tails[off + i];
        pyprof_id x = t->node;
        a->tnext[off + i] = 0;
        *d = *t;
        /* (a tail in b's tree already is a record that no list holds) */
        if (x == PYPROF_NONE)
            continue;
        pyprof_id v = nmap[x];
        if (fate[x] == UNSEEN) {
            bool stay = (v >= old && !findable(later, old, v)) || pyprof__tail_at(a, v);
            fate[x] = stay ? STAY : WALK;
        }
        if (fate[x] == WALK) {
            d->node = PYPROF_NONE; /* (walked below, from b's record) */
            continue;
        }
        d->node = v;
        d->path = path[x];
        if (b->tnext[i])
            a->tnext[off + i] = (uint32_t)off + b->tnext[i];
        else
            oldest[x] = (uint32_t)(off + i);
    }
    a->ntails = off + b->ntails;
    for (size_t x = 0; x < nn && x < b->tail_of_cap; x++)
        if (fate[x] == STAY &&
            (rc = pyprof__tails_splice(a, nmap[x], (uint32_t)off + b->tail_of[x] - 1, oldest[x],
                                       b->tail_w[x])) < 0)
            goto out;
    for (size_t i = 0; i < b->ntails; i++) {
        const struct tail *t = &b->tails[i];
        if (t->node != PYPROF_NONE && fate[t->node] == WALK &&
            (rc = pyprof__collapsed_walk_tail(a, *t, nmap[t->node], path[t->node])) < 0)
            goto out;
    }
out:
    pyprof__free(fate);
    pyprof__free(oldest);
    return rc;
}

int
pyprof__collapsed_merge(reader *a, reader *b)
{
    int rc = 0;
    struct findable_set later = {NULL, 0};
    pyprof__prefault *pf = NULL;
    const pyprof_profile *pb = b->p;
    size_t nf = b->nfunc, nn;
    const pyprof_stack_node *bn = pyprof_profile_stack_nodes(pb, &nn);
    pyprof_id *fmap = pyprof__malloc((nf ? nf : 1) * sizeof(*fmap));
    pyprof_id *nmap = pyprof__malloc((nn ? nn : 1) * sizeof(*nmap));
    uint64_t *path = pyprof__malloc((nn ? nn : 1) * sizeof(*path));
    if (!fmap || !nmap || !path) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    /* b's tails are copied to a's array after a's own (merge_tails): room
     * for them first, and its pages mapped on a helper while the functions
     * and nodes are merged.  The copy touched them for the first time, a
     * page fault each: 320 pages and about a third of the copy's time on
     * the 100 MB benchmark file. */
    if ((rc = pyprof__tails_reserve(a, b->ntails)) < 0)
        goto out;
    a->fc_dense = true; /* (nothing is read after the merge: see collapsed_frame.c) */
    if (b->ntails) /* (else a may have no array: no pointer into it) */
        pf = pyprof__prefault_start(a->tails + a->ntails, b->ntails * sizeof(*a->tails));
    /* Functions in b's order of first appearance, through a's frame_func:
     * new ones get the ids (and strings, and frame shape) that one pass
     * would have given them.  b's frames were all plain ASCII.  b's
     * functions were given ids only (collapsed_names.c): its texts are
     * what is merged, by the hashes b noted with them.  Each lookup is two
     * cache misses, a's frame-cache slot and then the text it points to,
     * so those of functions a little ahead are started first: on the
     * 100 MB benchmark file this loop (13,600 functions) went from 2.2 to
     * 1.75 ms. */
    if (nf > b->ftext_cap) {
        rc = PYPROF_EINVAL; /* every function of b came from a frame */
        goto out;
    }
    const struct func_text *bt = b->ftext;
    for (size_t f = 0; f < nf; f++) {
        if (a->fc && f + 2 * FUNC_AHEAD < nf)
            __builtin_prefetch(&a->fc[bt[f + 2 * FUNC_AHEAD].hash & a->fc_mask]);
        if (a->fc && f + FUNC_AHEAD < nf) {
            const struct frame_cache *e = &a->fc[bt[f + FUNC_AHEAD].hash & a->fc_mask];
            if (e->hash == bt[f + FUNC_AHEAD].hash)
                __builtin_prefetch(e->text);
        }
        if (!bt[f].text) {
            rc = PYPROF_EINVAL;
            goto out;
        }
        /* (0 reads as "not noted": a text that hashes to 0 is hashed again) */
        uint64_t h = bt[f].hash ? bt[f].hash : pyprof__frame_hash(bt[f].text, bt[f].len);
        if ((rc = pyprof__collapsed_frame_func(a, &fmap[f], bt[f].text, bt[f].len, 0, true, h)) <
            0)
            goto out;
    }
    /* a's functions are made on a helper while the nodes and tails are
     * merged (collapsed_names.c) */
    if (a->names_later && (rc = pyprof__collapsed_names_start(a)) < 0)
        goto out;
    /* Nodes in b's id order (= order of first appearance): found in a's
     * tree, or appended in the order one pass would have appended them.
     * Only a node whose parent is one of a's can already be in a's tree;
     * the others are appended without a lookup.  Nothing is looked up after
     * a merge (b read the end of the file), and no two nodes of b map to
     * the same (parent, function), so the new nodes need no path slots.
     * (The end of the read weighs tails against both halves' weight.) */
    a->defer_sum += b->defer_sum;
    size_t old = pyprof_profile_stack_count(a->p);
    for (size_t k = 0; k < nn; k++) {
        /* the lookups are cache misses: start those of nodes a little ahead */
        if (a->path_tab && k + MERGE_AHEAD < nn)
            merge_prefetch(a, bn, fmap, nmap, path, k, k + MERGE_AHEAD, old);
        const pyprof_stack_node *s = &bn[k];
        pyprof_id parent = s->parent == PYPROF_NONE ? PYPROF_NONE : nmap[s->parent];
        pyprof_id func = fmap[s->func], node = PYPROF_NONE;
        path[k] = pyprof__path_hash(
            s->parent == PYPROF_NONE ? PYPROF__PATH_ROOT_HASH : path[s->parent], func);
        if (parent == PYPROF_NONE || parent < old || findable(&later, old, parent)) {
            /* a's tail under parent comes first (its stack was read first) */
            if (parent != PYPROF_NONE && pyprof__tail_at(a, parent)) {
                size_t from = pyprof_profile_stack_count(a->p);
                if ((rc = pyprof__collapsed_tails_push(a, parent)) < 0 ||
                    (rc = mark_findable(&later, old, from, pyprof_profile_stack_count(a->p))) < 0)
                    goto out;
            }
            size_t na;
            node =
                pyprof__path_find(a, pyprof_profile_stack_nodes(a->p, &na), path[k], parent, func);
        }
        if (node == PYPROF_NONE &&
            (rc = pyprof__profile_stack_append(a->p, &node, parent, func)) < 0)
            goto out;
        nmap[k] = node;
        pyprof_stack_node *d = pyprof_profile_stack_node_mut(a->p, node);
        d->self[0] += s->self[0];
        d->self[1] += s->self[1];
    }
    pyprof__prefault_finish(pf);
    pf = NULL;
    /* b's tails hold b's function ids: a's from here on (their texts are
     * a's, b having read the end of the file).  One pass over b's chunks
     * in memory order: rewriting each tail's list as it was copied below
     * (a cache miss a tail) took 30 of the merge's 100 ms on the 1 GB
     * benchmark file, the pass takes 1. */
    if ((rc = pyprof__tails_map_funcs(b, fmap, nf)) < 0 ||
        (rc = merge_tails(a, b, nmap, path, old, &later)) < 0)
        goto out;
    pyprof__tails_adopt(a, b);
    a->good += b->good;
    a->blank += b->blank;
    a->crlf += b->crlf;
    a->two_counts |= b->two_counts;
    a->root_self += b->root_self;
    a->weight_sum += b->weight_sum;
out:;
    pyprof__prefault_finish(pf);
    int jrc = pyprof__collapsed_names_join(a);
    pyprof__free(fmap);
    pyprof__free(nmap);
    pyprof__free(path);
    pyprof__free(later.bits);
    return rc < 0 ? rc : jrc;
}
