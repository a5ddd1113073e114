/*
 * t_collapsed_lazy.c - the lazy collapsed reader (formats/collapsed_tail.c):
 * a file read with stack_elide_below must draw the flame graph that the
 * whole tree draws, frame for frame, and with a fraction too small to cut
 * anything it must hold the whole tree: the same stacks with the same
 * weights (node ids may differ: tails are put in the tree late).
 *
 * Random files mix what makes tails move: stacks that share prefixes of
 * every length, stacks that end inside another's tail, repeats, heavy and
 * light counts, and lines the reader must not defer (zero, negative,
 * fractional and two-count lines, non-ASCII frames, empty frames).  Each is
 * read in one pass and in two halves merged (the split threshold lowered),
 * and drawn with several widths and minimum widths; and with tails kept in
 * three ways: as the reader does, as text read again at every push, and as
 * functions only (what an input that cannot be read again gets).
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

#include "collapsed.h"
#include "tap.h"

#define TMP "t_collapsed_lazy.tmp"

static unsigned long long seed = 20261125;

static uint32_t
rnd(uint32_t n)
{
    return tap_rand(&seed) % n;
}

/* Stacks over a few names, deep enough to fan out: shared prefixes,
 * prefixes of other stacks, repeats.  `odd`: also lines that are not
 * deferred (see the file comment). */
static void
random_file(tap_buf *b, int lines, int fan, bool odd)
{
    static const char *names[] = {"main", "run (app.py:3)", "loop", "work (w.py:10)", "parse",
                                  "emit",  "f",              "g",    "h (x.py:1)",     "io"};
    char prev[4096] = "";
    for (int i = 0; i < lines; i++) {
        char st[4096];
        size_t n = 0;
        if (prev[0] && rnd(3) == 0) { /* continue or cut short the previous stack */
            n = strlen(prev);
            if (rnd(2))
                n = (size_t)rnd((uint32_t)n + 1);
            memcpy(st, prev, n);
            st[n] = '\0';
        } else {
            st[0] = '\0';
        }
        int more = (int)rnd(14);
        for (int d = 0; d < more && n < 3500; d++) {
            const char *nm = names[rnd((uint32_t)fan)];
            if (odd && rnd(300) == 0)
                nm = rnd(2) ? "caf\xc3\xa9" : "";
            n += (size_t)snprintf(st + n, sizeof st - n, "%s%s", n ? ";" : "", nm);
        }
        if (!n)
            continue;
        char cnt[64];
        uint32_t k = rnd(100);
        if (!odd || k < 90)
            snprintf(cnt, sizeof cnt, " %u\n", k < 80 ? 1 : 1 + rnd(k < 88 ? 50 : 5000));
        else if (k < 93)
            snprintf(cnt, sizeof cnt, " 0\n");
        else if (k < 95)
            snprintf(cnt, sizeof cnt, " -%u\n", 1 + rnd(3));
        else if (k < 97)
            snprintf(cnt, sizeof cnt, " %u.25\n", rnd(9));
        else
            snprintf(cnt, sizeof cnt, " %u %u\n", rnd(9), rnd(9));
        tap_buf_puts(b, st);
        tap_buf_puts(b, cnt);
        memcpy(prev, st, n + 1);
    }
}

static bool merged; /* the last load read two halves and merged them */

static pyprof_profile *
load(double elide, bool split)
{
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *p = NULL;
    ro.format = "collapsed";
    ro.stack_elide_below = elide;
    uint64_t old = pyprof__collapsed_split_min(split ? 1 : UINT64_MAX);
    uint64_t merges = pyprof__collapsed_merges();
    if (pyprof_profile_load(&p, TMP, &ro, &err) < 0)
        tap_diag("load: %s", err.message);
    merged = pyprof__collapsed_merges() != merges;
    pyprof__collapsed_split_min(old);
    return p;
}

/* The text of frame `node`'s path, "a;b;c". */
static void
path_text(const pyprof_profile *p, pyprof_id node, tap_buf *out)
{
    pyprof_id chain[512];
    size_t n = 0;
    for (pyprof_id q = node; q != PYPROF_NONE && n < 512; q = pyprof_profile_stack_node(p, q)->parent)
        chain[n++] = q;
    out->len = 0;
    tap_buf_puts(out, "");
    while (n--) {
        char lab[1024];
        pyprof_flame_frame_label(p, pyprof_profile_stack_node(p, chain[n])->func, lab, sizeof lab);
        tap_buf_puts(out, lab);
        tap_buf_puts(out, n ? ";" : "");
    }
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every node as "path self0 self1", sorted: the tree without its ids. */
static char **
canonical(const pyprof_profile *p, size_t *n)
{
    *n = pyprof_profile_stack_count(p);
    char **v = calloc(*n ? *n : 1, sizeof(*v));
    tap_buf b = {0};
    for (size_t i = 0; i < *n; i++) {
        const pyprof_stack_node *s = pyprof_profile_stack_node(p, (pyprof_id)i);
        char w[96];
        path_text(p, (pyprof_id)i, &b);
        snprintf(w, sizeof w, " %.17g %.17g", s->self[0], s->self[1]);
        tap_buf_puts(&b, w);
        v[i] = strdup(b.s);
    }
    free(b.s);
    qsort(v, *n, sizeof(*v), cmp_str);
    return v;
}

static bool
same_tree(const pyprof_profile *p, const pyprof_profile *q)
{
    size_t n, m;
    char **a = canonical(p, &n), **b = canonical(q, &m);
    bool same = n == m;
    for (size_t i = 0; same && i < n; i++)
        if (strcmp(a[i], b[i])) {
            tap_diag("first difference: %s | %s", a[i], b[i]);
            same = false;
        }
    for (size_t i = 0; i < n; i++)
        free(a[i]);
    for (size_t i = 0; i < m; i++)
        free(b[i]);
    free(a);
    free(b);
    return same;
}

/* Empty when the two layouts are the same frames, else what differs. */
static const char *
layout_difference(pyprof_profile *p, pyprof_profile *q, const pyprof_flame_options *fo, char *why,
                  size_t size)
{
    pyprof_flame *a = NULL, *b = NULL;
    pyprof_error e1 = PYPROF_ERROR_INIT, e2 = PYPROF_ERROR_INIT;
    int r1 = pyprof_flame_layout(&a, p, fo, &e1), r2 = pyprof_flame_layout(&b, q, fo, &e2);
    snprintf(why, size, "%s", "");
    if (r1 != r2 || (r1 < 0 && strcmp(e1.message, e2.message)))
        snprintf(why, size, "layout status %d (%.200s) vs %d (%.200s)", r1, e1.message, r2, e2.message);
    else if (r1 == 0 && pyprof_flame_frame_count(a) != pyprof_flame_frame_count(b))
        snprintf(why, size, "%zu frames vs %zu", pyprof_flame_frame_count(a),
                 pyprof_flame_frame_count(b));
    else if (r1 == 0 && pyprof_flame_total(a) != pyprof_flame_total(b))
        snprintf(why, size, "total %.17g vs %.17g", pyprof_flame_total(a), pyprof_flame_total(b));
    for (size_t i = 0; r1 == 0 && !why[0] && i < pyprof_flame_frame_count(a); i++) {
        const pyprof_flame_frame *x = pyprof_flame_frame_at(a, i), *y = pyprof_flame_frame_at(b, i);
        if (strcmp(x->name, y->name) || x->depth != y->depth || x->start != y->start ||
            x->end != y->end || x->x != y->x || x->y != y->y || x->w != y->w || x->h != y->h ||
            x->r != y->r || x->g != y->g || x->b != y->b || x->delta != y->delta)
            snprintf(why, size, "frame %zu: %.100s %u %.17g-%.17g vs %.100s %u %.17g-%.17g", i, x->name,
                     x->depth, x->start, x->end, y->name, y->depth, y->start, y->end);
    }
    pyprof_flame_free(a);
    pyprof_flame_free(b);
    return why;
}

static const struct look {
    const char *name;
    double width, minwidth;
    int percent, flamechart, inverted;
} looks[] = {
    {"default", 1200, 0.1, 0, 0, 0}, {"minwidth 3 px", 1200, 3, 0, 0, 0},
    {"narrow", 120, 1, 0, 0, 0},     {"minwidth 2%", 1200, 2, 1, 0, 0},
    {"flamechart", 600, 1, 0, 1, 0}, {"icicle", 1200, 0.5, 0, 0, 1},
};

/* How the lazy reader keeps tails (pyprof__collapsed_tail_text,
 * pyprof__collapsed_heavy_whole) and the size of the windows its walk
 * jumps over (pyprof__collapsed_jump_bytes). */
static const struct keep {
    const char *name;
    size_t known, fill, jump;
    bool heavy;
} keeps[] = {
    {"", 6, 8, 256, true},                                 /* the defaults */
    {", text read at every push", 0, 1, 256, false},       /* every push reads the file again */
    {", tails as functions only", SIZE_MAX, 8, 256, true}, /* as from a pipe or zstd */
    {", no jumps", 6, 8, 0, true},                         /* the previous stack's frames instead */
    {", windows of 1-3 frames", 6, 8, 16, true},
    {", windows of 2-6 frames, text read at every push", 0, 1, 40, false},
    {", heavy stacks kept as text", 6, 8, 256, false},
};

/* Read as keeps[k] says. */
static void
keep(size_t k)
{
    pyprof__collapsed_tail_text(keeps[k].known, keeps[k].fill);
    pyprof__collapsed_jump_bytes(keeps[k].jump);
    pyprof__collapsed_heavy_whole(keeps[k].heavy);
}

/* `halves`: the split read must merge two halves (plain files do);
 * `light`: the file is big enough for stacks to wait below nodes still too
 * light to draw; `shared`: its stacks share runs of frames long enough for
 * the walks to jump over */
static void
check_file(const char *name0, const tap_buf *b, bool halves, bool light, bool shared)
{
    tap_write_file(TMP, b->s, b->len);
    pyprof_profile *whole = load(0, false);
    if (!TAP_OK(whole, "%s: read whole", name0))
        return;
    /* each way of keeping tails, in one pass and in two halves */
    for (size_t run = 0; run < 2 * (sizeof keeps / sizeof *keeps); run++) {
        size_t k = run / 2;
        int split = (int)(run % 2);
        char name[256];
        snprintf(name, sizeof name, "%s%s", name0, keeps[k].name);
        keep(k);
        uint64_t jumps = pyprof__collapsed_jumps();
        /* nothing cut: the whole tree, with tails put in late */
        pyprof_profile *lazy = load(1e-300, split);
        if (split && halves)
            TAP_OK(merged, "%s: the two halves were merged (tails of both)", name);
        const pyprof_stack_elided *el;
        TAP_OK(lazy && pyprof_profile_stack_elided(lazy, &el) == 0 && same_tree(whole, lazy),
               "%s%s: a lazy read that cuts nothing has the whole tree", name,
               split ? ", two halves" : "");
        pyprof_profile_free(lazy);

        uint64_t stops = pyprof__collapsed_light_stops();
        for (size_t l = 0; l < sizeof looks / sizeof *looks; l++) {
            pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
            fo.width = looks[l].width;
            fo.minwidth = looks[l].minwidth;
            fo.minwidth_percent = looks[l].percent;
            fo.flamechart = looks[l].flamechart;
            fo.inverted = looks[l].inverted;
            double f = pyprof_flame_elide_fraction(&fo);
            pyprof_profile *cut = load(f, split);
            char why[512];
            const char *d = cut ? layout_difference(whole, cut, &fo, why, sizeof why) : "no profile";
            size_t ne = cut ? pyprof_profile_stack_elided(cut, &el) : 0;
            if (!TAP_OK(!d[0], "%s%s, %s: the same frames as the whole tree (%zu stacks cut)",
                        name, split ? ", two halves" : "", looks[l].name, ne))
                tap_diag("%s", d);
            pyprof_profile_free(cut);
        }
        /* (the graphs above are worth checking only if stacks did stop
         * below light nodes, to be pushed on or elided later) */
        stops = pyprof__collapsed_light_stops() - stops;
        if (light)
            TAP_OK(stops > 0,
                   "%s%s: stacks waited below nodes still too light to draw (%llu times)", name,
                   split ? ", two halves" : "", (unsigned long long)stops);
        /* (and if the walks jumped, where they could) */
        jumps = pyprof__collapsed_jumps() - jumps;
        if (keeps[k].jump && shared)
            TAP_OK(jumps > 0, "%s%s: walks jumped over windows of frames (%llu times)", name,
                   split ? ", two halves" : "", (unsigned long long)jumps);
        else if (!keeps[k].jump)
            TAP_OK(jumps == 0, "%s%s: no jumps (%llu)", name, split ? ", two halves" : "",
                   (unsigned long long)jumps);
    }
    keep(0);
    pyprof_profile_free(whole);
}

/* Called when the read reaches the end of the file: change the file. */
static void
append_to_file(void *payload, const char *name, uint64_t done, int64_t total)
{
    (void)name;
    if (done != (uint64_t)total || *(int *)payload)
        return;
    int fd = open(TMP, O_WRONLY | O_APPEND);
    if (fd >= 0) {
        *(int *)payload = (int)write(fd, "a 1\n", 4) == 4;
        close(fd);
    }
}

/* A stack whose tail is text read again: a walk looks 8 frames ahead,
 * and the frames after those are kept as text, here "f8;f9;fa;fb" at
 * offset 24 (tails keep no functions of their own: see the callers). */
static const char tail_text[] = "f0;f1;f2;f3;f4;f5;f6;f7;f8;f9;fa;fb 100\n";

/* Read tail_text from TMP with `change` as the progress callback (NULL:
 * none), which sets *changed once it has changed the file.  The status;
 * the profile in *out (NULL if out is). */
static int
load_changing(pyprof_progress_fn change, int *changed, pyprof_error *err, pyprof_profile **out)
{
    tap_write_file(TMP, tail_text, strlen(tail_text));
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    pyprof_profile *p = NULL;
    ro.format = "collapsed";
    ro.stack_elide_below = 1e-3;
    ro.progress = change;
    ro.progress_payload = changed;
    int rc = pyprof_profile_load(&p, TMP, &ro, err);
    if (out)
        *out = p;
    else
        pyprof_profile_free(p);
    return rc;
}

/* err is the one-line error of a changed file, naming offset 24. */
static void
is_changed_error(const pyprof_error *err, const char *what)
{
    char msg[512];
    pyprof_error_format(err, msg, sizeof msg);
    TAP_IS_STR(msg,
               TMP ": offset 24: the file changed while it was being read (read a copy, or pipe "
                   "it in)",
               what);
}

/* A tail's text read again after the file changed would be other frames:
 * the read stops with an error that says so, where. */
static void
test_changed_file(void)
{
    keep(1);
    pyprof_error err = PYPROF_ERROR_INIT;
    int appended = 0;
    int rc = load_changing(append_to_file, &appended, &err, NULL);
    TAP_OK(appended, "the file was changed at the end of the read");
    TAP_IS_INT(rc, PYPROF_EIO, "reading a tail again from a changed file fails");
    is_changed_error(&err, "the error names the file, the offset and why");

    /* unchanged, the same file reads */
    pyprof_profile *p = NULL;
    TAP_IS_INT(load_changing(NULL, NULL, &err, &p), 0, "the unchanged file reads");
    size_t n = p ? pyprof_profile_stack_count(p) : 0;
    TAP_IS_INT((long long)n, 12, "with its 12 frames in the tree");
    pyprof_profile_free(p);
    keep(0);
}

/* Called when the read reaches the end of the file: rewrite it with other
 * frames of the same length, dated a second later (a clock too coarse to
 * tell the two writes apart would hide the change). */
static void
rewrite_file(void *payload, const char *name, uint64_t done, int64_t total)
{
    (void)name;
    if (done != (uint64_t)total || *(int *)payload)
        return;
    struct stat st;
    if (stat(TMP, &st) != 0)
        return;
    static const char other[] = "f0;f1;f2;f3;f4;f5;f6;f7;g8;g9;ga;gb 100\n";
    tap_write_file(TMP, other, strlen(other));
    struct timespec t[2] = {st.st_atim, st.st_mtim};
    t[1].tv_sec += 1;
    *(int *)payload = utimensat(AT_FDCWD, TMP, t, 0) == 0;
}

/* Text read again is checked once, at the end of the read: a file that
 * changed in between still fails, also where the text read again parsed
 * into other frames, and also when only the second half of a split read
 * read text again. */
static void
test_changed_file_late(void)
{
    keep(1);
    pyprof_error err = PYPROF_ERROR_INIT;
    int rewritten = 0;
    int rc = load_changing(rewrite_file, &rewritten, &err, NULL);
    TAP_OK(rewritten, "the file was rewritten, same size, at the end of the read");
    TAP_IS_INT(rc, PYPROF_EIO, "the frames read again from it are not used");
    is_changed_error(&err, "the error names the lowest offset read again");

    /* Two halves.  The first has two light stacks, whose tails are dropped
     * at the end (never read again); the second has one heavy stack twice,
     * and the second line walks the first's tail down to its end, reading
     * its text again: only the second half's input read again. */
    static const char halves[] = "a0;a1;a2;a3;a4;a5;a6;a7;a8;a9;aa;ab 1\n"
                                 "c0;c1;c2;c3;c4;c5;c6;c7;c8;c9;ca;cb 1\n"
                                 "b0;b1;b2;b3;b4;b5;b6;b7;b8;b9 1000\n"
                                 "b0;b1;b2;b3;b4;b5;b6;b7;b8;b9 1000\n";
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "collapsed";
    ro.stack_elide_below = 0.01;
    int appended = 0;
    for (int change = 0; change < 2; change++) {
        tap_write_file(TMP, halves, strlen(halves));
        ro.progress = change ? append_to_file : NULL;
        ro.progress_payload = &appended;
        uint64_t old = pyprof__collapsed_split_min(1), merges = pyprof__collapsed_merges();
        uint64_t reread = pyprof__collapsed_reread_bytes();
        pyprof_profile *p = NULL;
        rc = pyprof_profile_load(&p, TMP, &ro, &err);
        TAP_OK(pyprof__collapsed_merges() != merges, "two halves were read and merged");
        TAP_OK(pyprof__collapsed_reread_bytes() > reread, "text was read again");
        pyprof__collapsed_split_min(old);
        if (!change) {
            TAP_IS_INT(rc, 0, "unchanged, the file reads");
        } else {
            TAP_OK(appended, "the file was changed at the end of the read");
            TAP_IS_INT(rc, PYPROF_EIO, "changed, the second half's reading again fails it");
        }
        pyprof_profile_free(p);
    }
    keep(0);
}

/* A stack `depth` frames deep ("f0<pad>;f1<pad>;..."; pad: a long name)
 * is one tail after its first frames.  Alone (copies = 1) it is put in the
 * tree at the end, all at once: its text is read again once.  Twice
 * (copies = 2), the second line pushes the first's tail down a frame at a
 * time as it walks, and the tail's text is read again a few frames at a
 * time.  Each such read takes a piece of the text that holds the frames
 * needed (pieces double until they do), not the whole rest of it: that
 * read the text's length squared / 16 bytes, hours for a stack of ten
 * million frames.  (Alone, such a stack is as heavy as the whole file:
 * for its text to be read again at all, heavy stacks must keep their text
 * as the others do.  By default they are looked up whole as they are read,
 * and nothing is read again.) */
static void
test_deep_tail(int depth, const char *pad, int copies, bool heavy, const char *what)
{
    tap_buf b = {0};
    char name[512];
    for (int c = 0; c < copies; c++) {
        for (int i = 0; i < depth; i++) {
            snprintf(name, sizeof name, "%sf%d%s", i ? ";" : "", i, pad);
            tap_buf_puts(&b, name);
        }
        tap_buf_puts(&b, " 7\n");
    }
    tap_write_file(TMP, b.s, b.len);
    uint64_t before = pyprof__collapsed_reread_bytes();
    bool old = pyprof__collapsed_heavy_whole(heavy);
    pyprof_profile *p = load(1e-3, false);
    pyprof__collapsed_heavy_whole(old);
    uint64_t reread = pyprof__collapsed_reread_bytes() - before;
    size_t n = p ? pyprof_profile_stack_count(p) : 0;
    char title[128];
    snprintf(title, sizeof title, "%s: a node a frame", what);
    TAP_IS_INT(n, depth, title);
    size_t bad = n == (size_t)depth ? 0 : SIZE_MAX;
    for (size_t k = 0; !bad && k < n; k++) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)k);
        char lab[512], want[512];
        pyprof_flame_frame_label(p, nd->func, lab, sizeof lab);
        snprintf(want, sizeof want, "f%zu%s", k, pad);
        if (nd->parent != (k ? (pyprof_id)(k - 1) : PYPROF_NONE) || strcmp(lab, want) != 0 ||
            nd->self[0] != (k + 1 == n ? 7 * copies : 0))
            bad = k;
    }
    TAP_OK(!bad, "%s: the frames in order, the weight at the leaf (first wrong: %zu)", what, bad);
    /* short names: pieces of 512 bytes for 8 frames of 7, about 10 times
     * the text; the whole rest each time was about 6,000 times */
    if (heavy)
        TAP_OK(reread == 0, "%s: looked up as it was read, no text read again (%llu bytes)", what,
               (unsigned long long)reread);
    else if (copies == 1)
        TAP_OK(reread > 0 && reread < b.len,
               "%s: the text after the first frames read again once (%llu of %zu bytes)", what,
               (unsigned long long)reread, b.len);
    else
        TAP_OK(reread > 0 && reread <= 16 * b.len,
               "%s: the text read again in pieces, at most 16 times its size (%llu of %zu bytes)",
               what, (unsigned long long)reread, b.len);
    pyprof_profile_free(p);
    free(b.s);
}

static void
test_random(void)
{
    tap_buf b = {0};
    random_file(&b, 4000, 10, false);
    check_file("random stacks", &b, true, true, true);
    b.len = 0;
    random_file(&b, 4000, 4, false);
    check_file("random stacks, few names", &b, true, true, true);
    b.len = 0;
    random_file(&b, 6000, 10, true);
    check_file("random stacks with odd lines", &b, false, true, true);
    b.len = 0;
    tap_buf_puts(&b, "a;b;c;d 1\na;b 1\na;b;c 5\na;b;c;d;e 2\nx;y;z 1\nx;y;z;w 1\nx 1\n");
    check_file("stacks ending inside tails", &b, true, false, false);
    free(b.s);
}

/* Lines that repeat (collapsed_line.c): a repeat adds its weight where
 * the first walk of its text did, to the node or to the tail, which may
 * have moved down or been put in the tree since.  `distinct` stacks, each
 * line one of them with a count; and first `first` lines that never come
 * again, so many that the reader gives up looking lines up. */
static void
check_repeats(const char *name, int distinct, int lines, int first, bool light)
{
    tap_buf pool = {0}, b = {0};
    random_file(&pool, distinct, 10, false);
    size_t *at = malloc((size_t)(distinct + 1) * sizeof(*at));
    int n = 0;
    for (size_t i = 0; i < pool.len && n <= distinct; i++)
        if (i == 0 || pool.s[i - 1] == '\n')
            at[n++] = i;
    for (int i = 0; i < first; i++) {
        char line[64];
        snprintf(line, sizeof line, "main;once%d;x 1\n", i);
        tap_buf_puts(&b, line);
    }
    for (int i = 0; i < lines && n > 0; i++) {
        size_t k = rnd((uint32_t)n), from = at[k];
        const char *end = memchr(pool.s + from, ' ', pool.len - from); /* (the count's space) */
        const char *nl = memchr(pool.s + from, '\n', pool.len - from);
        while (end && nl && memchr(end + 1, ' ', (size_t)(nl - end - 1)))
            end = memchr(end + 1, ' ', (size_t)(nl - end - 1));
        if (!end || !nl)
            continue;
        char cnt[32];
        snprintf(cnt, sizeof cnt, " %u\n", rnd(8) ? 1 : 1 + rnd(40));
        tap_buf_put(&b, pool.s + from, (size_t)(end - (pool.s + from)));
        tap_buf_puts(&b, cnt);
    }
    uint64_t again = pyprof__collapsed_lines_again();
    check_file(name, &b, true, light, true);
    TAP_OK(first ? true : pyprof__collapsed_lines_again() > again,
           "%s: repeated lines were added where their text went before (%llu)", name,
           (unsigned long long)(pyprof__collapsed_lines_again() - again));
    free(at);
    free(pool.s);
    free(b.s);
}

static void
test_repeats(void)
{
    check_repeats("repeated stacks", 300, 6000, 0, true);
    check_repeats("repeated stacks, few", 20, 3000, 0, true);
    check_repeats("repeated stacks after 10,000 distinct ones", 300, 6000, 10000, true);
}

/* Text that is not plain ASCII deep in the stacks (UTF-8, and a byte that
 * must be repaired): a read looks at the text of the frames it looks up,
 * and the rest waits in tails, to be looked at when it is read again.  So
 * the second half may hold such text unread and still be merged, and the
 * graphs must be the ones the whole tree draws. */
static void
test_deep_odd_text(void)
{
    static const char *names[] = {"main", "run (app.py:3)", "loop", "work (w.py:10)", "parse"};
    tap_buf b = {0};
    for (int i = 0; i < 4000; i++) {
        int depth = 1 + (int)rnd(6);
        for (int d = 0; d < depth; d++) {
            tap_buf_puts(&b, d ? ";" : "");
            tap_buf_puts(&b, names[rnd(5)]);
        }
        for (int d = 0; d < 20; d++) { /* (each stack its own: light) */
            char pad[64];
            snprintf(pad, sizeof pad, d % 2 ? ";pad%u" : ";pad (p.py:%u)", 1 + rnd(100000));
            tap_buf_puts(&b, pad);
        }
        tap_buf_puts(&b, ";caf\xc3\xa9;bad\xff");
        tap_buf_puts(&b, rnd(10) ? " 1\n" : " 7\n");
    }
    check_file("deep non-ASCII text", &b, false, true, false);
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    fo.minwidth = 1; /* 1%: the padding's nodes are too light to open */
    fo.minwidth_percent = 1;
    pyprof_profile *whole = load(0, false), *two = load(pyprof_flame_elide_fraction(&fo), true);
    char why[512];
    const char *d =
        whole && two ? layout_difference(whole, two, &fo, why, sizeof why) : "no profile";
    TAP_OK(merged, "deep non-ASCII text: the halves were merged (it waited in tails)");
    if (!TAP_OK(!d[0], "deep non-ASCII text: and draw the frames of the whole tree"))
        tap_diag("%s", d);
    pyprof_profile_free(whole);
    pyprof_profile_free(two);
    free(b.s);
}

/* The first half's own estimate of the file's weight can be far too
 * small: here the second half ends with one stack ten times as heavy as
 * all the others together.  Merging by that estimate opened nodes that one
 * pass leaves light (it has read the heavy stack by then): 1,392 nodes
 * where one pass has 1,336.  The merge now leaves a node's tails for the
 * end of the read to weigh, by the whole file's weight, and so opens no
 * node that one pass does not (1,018 nodes where one pass has 1,198: one
 * pass also pushes down tails that the end of its read then elides). */
static void
test_merge_weight(void)
{
    tap_buf b = {0};
    random_file(&b, 3000, 10, false);
    tap_buf_puts(&b, "main;heavy 30000\n");
    tap_write_file(TMP, b.s, b.len);
    free(b.s);
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    fo.minwidth = 1; /* 1%: light below 30 samples for the first half, 330 for the whole */
    fo.minwidth_percent = 1;
    double f = pyprof_flame_elide_fraction(&fo);
    pyprof_profile *one = load(f, false), *two = load(f, true);
    size_t n1 = one ? pyprof_profile_stack_count(one) : 0;
    size_t n2 = two ? pyprof_profile_stack_count(two) : 0;
    TAP_OK(merged && n2 > 0 && n2 <= n1,
           "two halves merged build no more of the tree than one pass (%zu nodes, %zu)", n2, n1);
    char why[512];
    const char *d = one && two ? layout_difference(one, two, &fo, why, sizeof why) : "no profile";
    if (!TAP_OK(!d[0], "and draw the same frames"))
        tap_diag("%s", d);
    pyprof_profile_free(one);
    pyprof_profile_free(two);
}

/* Each half of a split read that has read a megabyte grows its tails
 * array to what its tails should come to, the first half's to the whole
 * file's so that the merge need not move it (collapsed_tail.c): a file big
 * enough for that, read in two halves and in one pass, draws the same
 * frames as its whole tree. */
static void
test_big_halves(void)
{
    tap_buf b = {0};
    while (b.len < ((size_t)12 << 20))
        random_file(&b, 20000, 10, false);
    tap_write_file(TMP, b.s, b.len);
    free(b.s);
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    double f = pyprof_flame_elide_fraction(&fo);
    uint64_t sized = pyprof__collapsed_tails_sized();
    pyprof_profile *whole = load(0, false), *one = load(f, false), *two = load(f, true);
    TAP_OK(merged && pyprof__collapsed_tails_sized() - sized == 2,
           "a 12 MB file: the halves were merged, each sized its tails array once (%llu)",
           (unsigned long long)(pyprof__collapsed_tails_sized() - sized));
    char why[512];
    const char *d = whole && one ? layout_difference(whole, one, &fo, why, sizeof why) : "no profile";
    if (!TAP_OK(!d[0], "a 12 MB file, one pass: the same frames as the whole tree"))
        tap_diag("%s", d);
    d = whole && two ? layout_difference(whole, two, &fo, why, sizeof why) : "no profile";
    if (!TAP_OK(!d[0], "a 12 MB file, two halves: the same frames as the whole tree"))
        tap_diag("%s", d);
    pyprof_profile_free(whole);
    pyprof_profile_free(one);
    pyprof_profile_free(two);
}

/* What needs every frame refuses a profile with cut stacks. */
static void
test_refusals(void)
{
    tap_buf b = {0};
    random_file(&b, 2000, 10, false);
    tap_write_file(TMP, b.s, b.len);
    free(b.s);
    pyprof_profile *cut = load(0.5, false), *whole = load(0, false);
    const pyprof_stack_elided *el;
    size_t ne = cut ? pyprof_profile_stack_elided(cut, &el) : 0;
    if (!TAP_OK(ne > 0, "a big fraction cuts stacks (%zu)", ne))
        return;
    double cut_sum = 0, whole_sum = 0;
    size_t n;
    const pyprof_stack_node *s = pyprof_profile_stack_nodes(cut, &n);
    for (size_t i = 0; i < n; i++)
        cut_sum += s[i].self[0];
    for (size_t i = 0; i < ne; i++)
        cut_sum += el[i].weight;
    s = pyprof_profile_stack_nodes(whole, &n);
    for (size_t i = 0; i < n; i++)
        whole_sum += s[i].self[0];
    TAP_IS_DBL(cut_sum, whole_sum, 0, "self weights and cut weights add up to the whole");
    TAP_OK(pyprof_profile_stack_count(cut) < pyprof_profile_stack_count(whole),
           "cutting keeps fewer nodes (%zu of %zu)", pyprof_profile_stack_count(cut),
           pyprof_profile_stack_count(whole));

    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_profile_derive_callgraph(cut, &err), PYPROF_ECAPS,
               "no call graph from cut stacks");
    TAP_OK(strstr(err.message, "stack_elide_below") != NULL, "the error says why: %s",
           err.message);
    err = (pyprof_error)PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_profile_merge(whole, cut, &err), PYPROF_ECAPS, "no merging cut stacks");
    pyprof_profile *d = NULL;
    TAP_IS_INT(pyprof_profile_diff_stacks(&d, whole, cut, 0, &err), PYPROF_ECAPS,
               "no differential graph of cut stacks");
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    fo.reverse = 1;
    TAP_IS_DBL(pyprof_flame_elide_fraction(&fo), 0, 0, "--reverse needs every frame");
    pyprof_flame *f = NULL;
    TAP_IS_INT(pyprof_flame_layout(&f, cut, &fo, &err), PYPROF_ECAPS, "no reversed graph of cut stacks");
    fo.reverse = 0;
    fo.minwidth = 0;
    TAP_IS_DBL(pyprof_flame_elide_fraction(&fo), 0, 0, "minwidth 0 needs every frame");
    TAP_IS_DBL(pyprof_flame_elide_fraction(NULL), 0.1 / 1180, 1e-18,
               "the defaults: 0.1 px of 1180 px");
    pyprof_profile_free(cut);
    pyprof_profile_free(whole);
}

/* A frame exactly as wide as the minimum width is drawn, and so is what
 * is below it: the reader's cut at the end of a read (collapsed_stack.c,
 * pyprof__collapsed_tails_finish) must stay under the layout's minimum
 * however each computes it.  2% of 1,000 samples: the heavy stack's last
 * frames are 20 wide, and wait in a tail until the end of the read. */
static void
test_minimum_width_edge(void)
{
    tap_buf b = {0};
    for (int i = 0; i < 98; i++) {
        char line[64];
        snprintf(line, sizeof line, "root;other;o%d 10\n", i);
        tap_buf_puts(&b, line);
    }
    tap_buf_puts(&b, "root;edge;deep;d2;d3 20\n");
    tap_write_file(TMP, b.s, b.len);
    free(b.s);
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    fo.minwidth = 2;
    fo.minwidth_percent = 1;
    pyprof_profile *whole = load(0, false);
    pyprof_flame *f = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    bool drawn = false;
    if (whole && pyprof_flame_layout(&f, whole, &fo, &err) == 0)
        for (size_t i = 0; i < pyprof_flame_frame_count(f); i++)
            drawn |= strcmp(pyprof_flame_frame_at(f, i)->name, "d3") == 0;
    pyprof_flame_free(f);
    TAP_OK(drawn, "minimum width edge: the whole tree draws the frame as wide as the minimum");
    for (int split = 0; split < 2; split++) {
        pyprof_profile *cut = load(pyprof_flame_elide_fraction(&fo), split);
        char why[512];
        const char *d =
            cut && whole ? layout_difference(whole, cut, &fo, why, sizeof why) : "no profile";
        if (!TAP_OK(!d[0], "minimum width edge%s: the lazy read draws it too",
                    split ? ", two halves" : ""))
            tap_diag("%s", d);
        pyprof_profile_free(cut);
    }
    pyprof_profile_free(whole);
}

int
main(void)
{
    test_random();
    test_merge_weight();
    test_big_halves();
    test_minimum_width_edge();
    test_deep_odd_text();
    test_refusals();
    test_changed_file();
    test_changed_file_late();
    test_deep_tail(100000, "", 1, false, "a stack 100,000 frames deep");
    test_deep_tail(100000, "", 2, false, "a stack 100,000 frames deep, twice");
    test_deep_tail(100000, "", 1, true, "a heavy stack 100,000 frames deep");
    test_deep_tail(100000, "", 2, true, "a heavy stack 100,000 frames deep, twice");
    /* 8 of these frames take 1,600 bytes: pieces of 512, 1,024, 2,048 */
    static const char pad[] =
        "_a_long_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    test_deep_tail(3000, pad, 1, false, "a stack 3,000 frames of 200 bytes deep");
    test_deep_tail(3000, pad, 2, false, "a stack 3,000 frames of 200 bytes deep, twice");
    test_repeats(); /* (last: the random files before it stay as they were) */
    unlink(TMP);
    return tap_done();
}
