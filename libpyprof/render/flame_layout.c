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
 * open/close walk over that sequence is then flamegraph.pl's own.
 *
 * Speed: a subtree narrower than the minimum width can hold no visible frame,
 * so it is replayed as a single line ending at its top frame; only the
 * visible part of a huge tree is ever sorted and walked.
 */
#include "config.h"

#include <math.h>

#include "flame_int.h"

typedef struct tnode {
    uint32_t label;  /* string id in f->strs */
    pyprof_id func;  /* profile function (PYPROF_NONE for the root) */
    uint32_t first;  /* first child, 0 = none (0 is the root, never a child) */
    uint32_t next;   /* next sibling */
    uint32_t last;   /* last child, while building */
    bool has_self;   /* some line ends here */
    bool zero_below; /* a zero-count line ends somewhere below (see walk_lines) */
    double self_w;   /* width weight of lines ending here */
    double self_b;   /* "before" weight (differential) */
    double total_w;  /* subtree width */
} tnode;

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
    tnode *t;
    size_t nt, t_cap;
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
    /* reverse mode: (parent, label) -> child */
    uint64_t *hkeys;
    uint32_t *hvals;
    size_t hmask, hused;
} walk;

/* ---- strings -------------------------------------------------------------------------------- */

static int
intern(pyprof_flame *f, uint32_t *out, const char *s, size_t len)
{
    return pyprof_profile_intern_lossy(f->strs, out, s, len, 0);
}

static const char *
str(const pyprof_flame *f, uint32_t id)
{
    return pyprof_profile_string(f->strs, id);
}

/* Labels of every function, as string ids of f->strs. */
static int
func_labels(pyprof_flame *f, const pyprof_profile *p, uint32_t **out)
{
    size_t n = pyprof_profile_func_count(p), cap = 256;
    uint32_t *lab = pyprof__calloc(n ? n : 1, sizeof(*lab));
    char *buf = pyprof__malloc(cap);
    int rc = 0;
    if (!lab || !buf) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = pyprof_flame_frame_label(p, (pyprof_id)i, buf, cap);
        if (len >= cap) {
            char *nb = pyprof__realloc(buf, len + 1);
            if (!nb) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            buf = nb;
            cap = len + 1;
            pyprof_flame_frame_label(p, (pyprof_id)i, buf, cap);
        }
        if ((rc = intern(f, &lab[i], buf, len)) < 0)
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

static int
tree_add(walk *w, uint32_t parent, uint32_t label, pyprof_id func, uint32_t *out)
{
    if (PYPROF_GROW(w->t, w->t_cap, w->nt + 1) < 0)
        return PYPROF_ENOMEM;
    uint32_t id = (uint32_t)w->nt++;
    w->t[id] = (tnode){.label = label, .func = func};
    if (w->t[parent].first == 0)
        w->t[parent].first = id;
    else
        w->t[w->t[parent].last].next = id;
    w->t[parent].last = id;
    *out = id;
    return 0;
}

static uint64_t
hkey(uint32_t parent, uint32_t label)
{
    return ((uint64_t)parent << 32) | label;
}

/* Find or create the child of `parent` labelled `label` (reverse mode). */
static int
tree_child(walk *w, uint32_t parent, uint32_t label, pyprof_id func, uint32_t *out)
{
    if ((w->hused + 1) * 2 > (w->hkeys ? w->hmask + 1 : 0)) {
        size_t ncap = w->hkeys ? (w->hmask + 1) * 2 : 1024;
        uint64_t *nk = pyprof__calloc(ncap, sizeof(*nk));
        uint32_t *nv = pyprof__calloc(ncap, sizeof(*nv));
        if (!nk || !nv) {
            pyprof__free(nk);
            pyprof__free(nv);
            return PYPROF_ENOMEM;
        }
        for (size_t i = 0; w->hkeys && i <= w->hmask; i++) {
            if (!w->hvals[i])
                continue;
            size_t j = pyprof__hash_mix(w->hkeys[i], 0) & (ncap - 1);
            while (nv[j])
                j = (j + 1) & (ncap - 1);
            nk[j] = w->hkeys[i];
            nv[j] = w->hvals[i];
        }
        pyprof__free(w->hkeys);
        pyprof__free(w->hvals);
        w->hkeys = nk;
        w->hvals = nv;
        w->hmask = ncap - 1;
    }
    uint64_t k = hkey(parent, label);
    size_t j = pyprof__hash_mix(k, 0) & w->hmask;
    while (w->hvals[j]) {
        if (w->hkeys[j] == k) {
            *out = w->hvals[j];
            return 0;
        }
        j = (j + 1) & w->hmask;
    }
    int rc = tree_add(w, parent, label, func, out);
    if (rc < 0)
        return rc;
    w->hkeys[j] = k;
    w->hvals[j] = *out;
    w->hused++;
    return 0;
}

static int
build_tree(walk *w, const pyprof_profile *p, const uint32_t *lab, unsigned metric)
{
    int rc;
    size_t n = pyprof_profile_stack_count(p);
    uint32_t root_label;
    if ((rc = intern(w->f, &root_label, "", 0)) < 0)
        return rc;
    uint32_t root;
    w->nt = 0;
    if (PYPROF_GROW(w->t, w->t_cap, n + 1) < 0)
        return PYPROF_ENOMEM;
    w->t[0] = (tnode){.label = root_label, .func = PYPROF_NONE};
    w->nt = 1;
    root = 0;
    if (!w->f->o.reverse) {
        for (size_t i = 0; i < n; i++) {
            const pyprof_stack_node *s = pyprof_profile_stack_node(p, (pyprof_id)i);
            uint32_t parent = s->parent == PYPROF_NONE ? root : s->parent + 1, id;
            if ((rc = tree_add(w, parent, lab[s->func], s->func, &id)) < 0)
                return rc;
            w->t[id].self_w = s->self[metric];
            w->t[id].self_b = s->self[0];
            w->t[id].has_self = s->self[0] != 0 || s->self[metric] != 0;
        }
    } else {
        pyprof_id *chain = NULL;
        size_t chain_cap = 0;
        for (size_t i = 0; i < n; i++) {
            const pyprof_stack_node *s = pyprof_profile_stack_node(p, (pyprof_id)i);
            if (s->self[0] == 0 && s->self[metric] == 0)
                continue;
            size_t len = 0;
            for (pyprof_id q = (pyprof_id)i; q != PYPROF_NONE;
                 q = pyprof_profile_stack_node(p, q)->parent) {
                if (PYPROF_GROW(chain, chain_cap, len + 1) < 0) {
                    pyprof__free(chain);
                    return PYPROF_ENOMEM;
                }
                chain[len++] = pyprof_profile_stack_node(p, q)->func;
            }
            uint32_t at = root;
            for (size_t k = 0; k < len; k++) /* leaf first */
                if ((rc = tree_child(w, at, lab[chain[k]], chain[k], &at)) < 0) {
                    pyprof__free(chain);
                    return rc;
                }
            w->t[at].self_w += s->self[metric];
            w->t[at].self_b += s->self[0];
            w->t[at].has_self = true;
        }
        pyprof__free(chain);
    }
    /* own weights; sum_totals adds the children (negative weights draw nothing) */
    for (size_t i = 0; i < w->nt; i++)
        w->t[i].total_w = w->t[i].self_w > 0 ? w->t[i].self_w : 0;
    return 0;
}

/* Totals bottom-up through the child lists (children have larger ids). */
static void
sum_totals(walk *w)
{
    for (size_t i = w->nt; i-- > 0;)
        for (uint32_t c = w->t[i].first; c; c = w->t[c].next) {
            const tnode *k = &w->t[c];
            w->t[i].total_w += k->total_w;
            if (k->zero_below || (k->has_self && !(k->self_w > 0)))
                w->t[i].zero_below = true;
        }
}

/* ---- walking lines in flamegraph.pl's order -------------------------------------------------- */

static int
put_frame(walk *w, uint32_t label, pyprof_id func, uint32_t depth, double start, double end,
          double delta, bool has_delta)
{
    pyprof_flame *f = w->f;
    if (end != w->closed_at) {
        w->closed_at = end;
        w->nclosed = 0;
    }
    /* flamegraph.pl's quirk, reproduced: its nodes are keyed by "name;
     * depth;end", so when a zero-count line opens and closes a frame with
     * the same name and depth at the moment an earlier frame of that name
     * closed, the later node overwrites the earlier one, whose width is
     * lost.  This happens with the zero counts of difffolded.pl output. */
    for (size_t i = 0; i < w->nclosed; i++) {
        struct closed *c = &w->closed[i];
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
    size_t j = 0;
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
    w->time += count;
    return 0;
}

static void
count_str(char *buf, size_t size, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        pyprof__snprintf_c(buf, size, "%.0f", v);
    else
        pyprof__snprintf_c(buf, size, "%.17g", v);
}

static const char *sort_keys; /* qsort's comparator has no context argument */

static int
item_cmp(const void *a, const void *b)
{
    const item *x = a, *y = b;
    size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
    int c = memcmp(sort_keys + x->key, sort_keys + y->key, n);
    if (c)
        return c;
    return x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
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
    for (uint32_t c = w->t[node].first; c; c = w->t[c].next) {
        const tnode *t = &w->t[c];
        const char *name = str(f, t->label);
        size_t nl = pyprof_profile_string_len(f->strs, t->label);
        for (int sub = 0; sub < 2; sub++) {
            if (sub ? !t->first : !t->has_self)
                continue;
            char num[80] = "";
            if (!sub && !f->o.flamechart) {
                char a[40], b[40];
                count_str(b, sizeof b, t->self_w);
                if (f->differential) {
                    count_str(a, sizeof a, t->self_b);
                    snprintf(num, sizeof num, "%s %s", a, b);
                } else {
                    snprintf(num, sizeof num, "%s", b);
                }
            }
            size_t kl = f->o.flamechart ? 0 : nl + 1 + strlen(num);
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
    if (!f->o.flamechart) {
        sort_keys = w->keys;
        qsort(w->items + L->items, L->nitems, sizeof(item), item_cmp);
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
        const tnode *t = &w->t[it.node];
        size_t depth = w->nlv; /* the item's frame depth: level 0 is the root */
        if (PYPROF_GROW(w->path, w->path_cap, depth + 1) < 0)
            return PYPROF_ENOMEM;
        if (PYPROF_GROW(w->path_func, w->path_func_cap, depth + 1) < 0)
            return PYPROF_ENOMEM;
        for (size_t d = 1; d < depth; d++) {
            w->path[d] = w->t[w->lv[d].node].label;
            w->path_func[d] = w->t[w->lv[d].node].func;
        }
        w->path[depth] = t->label;
        w->path_func[depth] = t->func;
        if (!it.is_sub) {
            double w1 = t->self_w > 0 ? t->self_w : 0;
            if ((rc = emit_line(w, depth, w1, t->self_w - t->self_b, f->differential)) < 0)
                return rc;
            continue;
        }
        double own = t->self_w > 0 ? t->self_w : 0, below = t->total_w - own;
        if (below < w->min_units && !t->zero_below) {
            /* nothing under here is wide enough to draw: one line stands for
             * the subtree, keeping the frames above it open as it would.
             * (Not when zero-count lines are inside: their frames open and
             * close at one instant and can erase others, see put_frame.) */
            if ((rc = emit_line(w, depth, below, 0, f->differential)) < 0)
                return rc;
            continue;
        }
        if ((rc = push_level(w, it.node)) < 0)
            return rc;
    }
    /* close everything */
    return emit_line(w, 0, 0, 0, false);
}

/* ---- geometry -------------------------------------------------------------------------------- */

/* flamegraph.pl writes x and width with "%0.1f". */
static double
round1(double v)
{
    char b[64];
    pyprof__snprintf_c(b, sizeof b, "%.1f", v);
    return pyprof__strtod_c(b, NULL);
}

static int
frame_cmp(const void *a, const void *b)
{
    const pyprof_flame_frame *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void
geometry(pyprof_flame *f)
{
    const pyprof_flame_options *o = &f->o;
    uint32_t depthmax = 0;
    for (size_t i = 0; i < f->nframes; i++)
        if (f->frames[i].depth > depthmax)
            depthmax = f->frames[i].depth;
    f->ypad1 = o->fontsize * 3;
    f->ypad2 = o->fontsize * 2 + 10;
    f->ypad3 = o->fontsize * 2;
    f->width = o->width;
    f->height = (depthmax + 1) * o->height + f->ypad1 + f->ypad2;
    if (f->subtitle)
        f->height += f->ypad3;
    double ppu = (o->width - 2 * FLAME_XPAD) / f->total;
    for (size_t i = 0; i < f->nframes; i++) {
        pyprof_flame_frame *fr = &f->frames[i];
        double x1 = FLAME_XPAD + fr->start * ppu, x2 = FLAME_XPAD + fr->end * ppu, y1, y2;
        if (o->inverted) {
            double top = f->ypad1 + (f->subtitle ? f->ypad3 : 0);
            y1 = top + fr->depth * o->height;
            y2 = top + (fr->depth + 1) * o->height - FLAME_FRAMEPAD;
        } else {
            y1 = f->height - f->ypad2 - (fr->depth + 1) * o->height + FLAME_FRAMEPAD;
            y2 = f->height - f->ypad2 - fr->depth * o->height;
        }
        fr->x = round1(x1);
        fr->w = round1(round1(x2) - fr->x);
        fr->y = y1;
        fr->h = y2 - y1;
    }
}

/* ---- options --------------------------------------------------------------------------------- */

static int
copy_opt(pyprof_flame *f, const char **dst, const char *src)
{
    if (!src) {
        *dst = NULL;
        return 0;
    }
    uint32_t id;
    int rc = intern(f, &id, src, strlen(src));
    if (rc == 0)
        *dst = str(f, id);
    return rc;
}

static int
setup(pyprof_flame *f, const pyprof_profile *p, const pyprof_flame_options *opts)
{
    int rc;
    pyprof_flame_options def = PYPROF_FLAME_OPTIONS_INIT;
    f->o = opts ? *opts : def;
    pyprof_flame_options *o = &f->o;
    if (!(o->width > 2 * FLAME_XPAD) || !(o->height > 0) || !(o->fontsize > 0) ||
        !(o->fontwidth > 0) || !(o->factor != 0) || !(o->minwidth >= 0))
        return PYPROF_EINVAL;
    const char **strs[] = {&o->title,  &o->subtitle, &o->fonttype, &o->countname, &o->nametype,
                           &o->colors, &o->bgcolors, &o->cp_file,  &o->notes};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if ((rc = copy_opt(f, strs[i], *strs[i])) < 0)
            return rc;
    if (!o->fonttype)
        o->fonttype = "Verdana";
    if (!o->countname)
        o->countname = "samples";
    if (!o->nametype)
        o->nametype = "Function:";
    if (!o->colors)
        o->colors = "hot";
    const char *sm = pyprof_profile_meta_get(p, "stack_metrics");
    f->differential = pyprof_profile_stack_metrics(p) >= 2 && sm && strcmp(sm, "before,after") == 0;
    const char *est = pyprof_profile_meta_get(p, "stacks_estimated");
    f->estimated = est && strcmp(est, "1") == 0;
    f->title = o->title        ? o->title
               : o->inverted   ? "Icicle Graph"
               : o->flamechart ? "Flame Chart"
                               : "Flame Graph";
    f->subtitle = o->subtitle && o->subtitle[0] ? o->subtitle : NULL;
    f->notes = o->notes;
    if (f->estimated) {
        /* never present an estimate as a measurement */
        char buf[1024];
        uint32_t id;
        snprintf(buf, sizeof buf, "%s (estimated)", f->title);
        if ((rc = intern(f, &id, buf, strlen(buf))) < 0)
            return rc;
        f->title = str(f, id);
        if (!f->subtitle)
            f->subtitle = "Estimated from call-graph ratios: the profile has no sampled stacks";
        snprintf(buf, sizeof buf,
                 "%s%sstacks estimated from caller ratios of a call graph "
                 "(no sampled stacks)",
                 o->notes ? o->notes : "", o->notes ? "; " : "");
        if ((rc = intern(f, &id, buf, strlen(buf))) < 0)
            return rc;
        f->notes = str(f, id);
    }
    return 0;
}

/* ---- public -------------------------------------------------------------------------------- */

int
pyprof_flame_layout(pyprof_flame **out, const pyprof_profile *p, const pyprof_flame_options *opts,
                    pyprof_error *err)
{
    int rc;
    walk w = {0};
    uint32_t *lab = NULL;
    *out = NULL;
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_STACKS) &&
        !pyprof_profile_meta_get(p, "stack_root_weight"))
        return pyprof_error_set(err, PYPROF_ECAPS, NULL, "flame", -1, 0,
                                "the profile has no stacks (estimate them from the call "
                                "graph first)");
    pyprof_flame *f = pyprof__calloc(1, sizeof(*f));
    if (!f)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, "flame", -1, 0, "out of memory");
    w.f = f;
    if ((rc = pyprof_profile_new(&f->strs)) < 0)
        goto out;
    if ((rc = setup(f, p, opts)) < 0)
        goto out;
    if ((rc = func_labels(f, p, &lab)) < 0)
        goto out;
    unsigned metric = f->differential ? 1 : 0;
    if ((rc = build_tree(&w, p, lab, metric)) < 0)
        goto out;
    sum_totals(&w);

    const char *rw = pyprof_profile_meta_get(p, "stack_root_weight");
    double root_weight = rw ? pyprof__strtod_c(rw, NULL) : 0;
    if (!(root_weight > 0))
        root_weight = 0;
    double sum = root_weight + w.t[0].total_w;
    f->total = f->o.total > sum ? f->o.total : sum;
    if (!(f->total > 0)) {
        rc = pyprof_error_set(err, PYPROF_EFORMAT, NULL, "flame", -1, 0, "no samples to draw");
        goto out;
    }
    f->maxdelta = 1;
    for (size_t i = 1; i < w.nt; i++)
        if (w.t[i].has_self && fabs(w.t[i].self_w - w.t[i].self_b) > f->maxdelta)
            f->maxdelta = fabs(w.t[i].self_w - w.t[i].self_b);
    double ppu = (f->o.width - 2 * FLAME_XPAD) / f->total;
    w.min_units = f->o.minwidth_percent ? f->total * f->o.minwidth / 100 : f->o.minwidth / ppu;
    w.time = root_weight; /* empty stacks sort first */
    w.closed_at = -1;
    if ((rc = walk_lines(&w)) < 0)
        goto out;
    /* the root spans the total */
    uint32_t root_label = w.t[0].label;
    if ((rc = put_frame(&w, root_label, PYPROF_NONE, 0, 0, f->total, 0, false)) < 0)
        goto out;
    size_t kept = 0;
    for (size_t i = 0; i < f->nframes; i++) {
        pyprof_flame_frame *fr = &f->frames[i];
        if (fr->depth == UINT32_MAX)
            continue;
        fr->name = fr->depth == 0 ? "all" : str(f, (uint32_t)fr->x);
        f->frames[kept++] = *fr;
    }
    f->nframes = kept;
    qsort(f->frames, f->nframes, sizeof(*f->frames), frame_cmp);
    geometry(f);
    rc = pyprof__flame_colour(f, err);
out:
    pyprof__free(lab);
    pyprof__free(w.t);
    pyprof__free(w.items);
    pyprof__free(w.keys);
    pyprof__free(w.lv);
    pyprof__free(w.open);
    pyprof__free(w.path);
    pyprof__free(w.path_func);
    pyprof__free(w.hkeys);
    pyprof__free(w.hvals);
    pyprof__free(w.closed);
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

void
pyprof_flame_free(pyprof_flame *f)
{
    if (!f)
        return;
    pyprof_profile_free(f->strs);
    pyprof__free(f->frames);
    pyprof__free(f);
}

size_t
pyprof_flame_frame_count(const pyprof_flame *f)
{
    return f->nframes;
}

const pyprof_flame_frame *
pyprof_flame_frame_at(const pyprof_flame *f, size_t i)
{
    return i < f->nframes ? &f->frames[i] : NULL;
}

void
pyprof_flame_size(const pyprof_flame *f, double *width, double *height)
{
    *width = f->width;
    *height = f->height;
}

double
pyprof_flame_total(const pyprof_flame *f)
{
    return f->total;
}
