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

int
pyprof__collapsed_merge(reader *a, reader *b)
{
    int rc = 0;
    struct findable_set later = {NULL, 0};
    const pyprof_profile *pb = b->p;
    size_t nf = pyprof_profile_func_count(pb), nn;
    const pyprof_stack_node *bn = pyprof_profile_stack_nodes(pb, &nn);
    pyprof_id *fmap = pyprof__malloc((nf ? nf : 1) * sizeof(*fmap));
    pyprof_id *nmap = pyprof__malloc((nn ? nn : 1) * sizeof(*nmap));
    uint64_t *path = pyprof__malloc((nn ? nn : 1) * sizeof(*path));
    if (!fmap || !nmap || !path) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    /* Functions in b's order of first appearance, through a's frame_func:
     * new ones get the ids (and strings, and frame shape) that one pass
     * would have given them.  b's frames were all plain ASCII. */
    for (size_t f = 0; f < nf; f++) {
        pyprof_id sid = f < b->sof_cap ? b->str_of_func[f] : PYPROF_NONE;
        if (sid == PYPROF_NONE) {
            rc = PYPROF_EINVAL; /* every function of b came from a frame */
            goto out;
        }
        const char *t = pyprof_profile_string(pb, sid);
        size_t n = pyprof_profile_string_len(pb, sid);
        if ((rc = pyprof__collapsed_frame_func(a, &fmap[f], t, n, 0, true,
                                               pyprof__frame_hash(t, n))) < 0)
            goto out;
    }
    /* Nodes in b's id order (= order of first appearance): found in a's
     * tree, or appended in the order one pass would have appended them.
     * Only a node whose parent is one of a's can already be in a's tree;
     * the others are appended without a lookup.  Nothing is looked up after
     * a merge (b read the end of the file), and no two nodes of b map to
     * the same (parent, function), so the new nodes need no path slots.
     * Nodes are light (keep tails) by the weight of the whole file from
     * here on: a's estimate came from its half alone, and on the 100 MB
     * benchmark file it was half the weight, so that the merge pushed
     * 27,000 tails one level down where it now pushes 9,000. */
    a->defer_sum += b->defer_sum;
    pyprof__collapsed_light_limit_final(a);
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
    /* b's tails: one under a node new to a can stay as it is (nothing is
     * below that node); one under a node a had must be walked, as its
     * stack would have been in one pass */
    for (size_t i = 0; i < b->ntails; i++) {
        struct tail *t = &b->tails[i];
        if (t->node == PYPROF_NONE)
            continue;
        pyprof_id v = nmap[t->node];
        for (uint32_t j = 0; j < t->n; j++) /* b's function ids to a's (its text is a's) */
            t->funcs[j] = fmap[t->funcs[j]];
        if (v >= old && !findable(&later, old, v))
            rc = pyprof__tail_new(a, v, t->funcs, t->n, t->text_at, t->text_len, t->w,
                                  path[t->node], false);
        else
            rc = pyprof__collapsed_walk_tail(a, *t, v, path[t->node]);
        if (rc < 0)
            goto out;
    }
    pyprof__tails_adopt(a, b);
    a->good += b->good;
    a->blank += b->blank;
    a->crlf += b->crlf;
    a->two_counts |= b->two_counts;
    a->root_self += b->root_self;
    a->weight_sum += b->weight_sum;
out:
    pyprof__free(fmap);
    pyprof__free(nmap);
    pyprof__free(path);
    pyprof__free(later.bits);
    return rc;
}
