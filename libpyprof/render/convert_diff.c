/*
 * convert_diff.c - what changed between two profiles (pyprof-diff).
 *
 * Functions are matched by the text of (file, line, name), so the two sides
 * may come from different formats (pstats vs folded: a stack-only side gets
 * its call graph derived first, in a copy).  With normalisation BEFORE is
 * scaled so that its total self time equals AFTER's, which compares shares
 * rather than seconds (two runs of different length, or sample counts at
 * different rates), as difffolded.pl -n does.
 *
 * The table lists functions present on both sides sorted by the absolute
 * change of self (or total) time, largest first, ties in first-seen order;
 * changes below the threshold are hidden and counted.  Functions only in
 * AFTER ("new") and only in BEFORE ("vanished") are always listed.
 */
#include "config.h"

#include <math.h>

#include "render/convert_int.h"

struct side {
    pyprof_id func; /* in that side's profile, PYPROF_NONE if absent */
};

struct row {
    uint32_t key;
    struct side b, a;
    double sb, sa, tb, ta; /* self/total before (scaled) and after */
    int64_t cb, ca;        /* calls */
    double sort_delta;
};

static int
key_of(pyprof_profile *keys, const pyprof_profile *p, pyprof_id f, pyprof_id *out)
{
    const pyprof_func *fn = pyprof_profile_func(p, f);
    pyprof_id file, name;
    int rc = pyprof_profile_intern(keys, &file, pyprof_profile_string(p, fn->file),
                                   pyprof_profile_string_len(p, fn->file));
    if (rc < 0)
        return rc;
    rc = pyprof_profile_intern(keys, &name, pyprof_profile_string(p, fn->name),
                               pyprof_profile_string_len(p, fn->name));
    if (rc < 0)
        return rc;
    return pyprof_profile_func_intern(keys, out, file, fn->line, name, 0, NULL);
}

static double
total_self(const pyprof_profile *p)
{
    double t = 0;
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++)
        t += pyprof_profile_func(p, (pyprof_id)i)->counts.tottime;
    return t;
}

static int
cmp_rows(const void *x, const void *y)
{
    const struct row *a = x, *b = y;
    double da = fabs(a->sort_delta), db = fabs(b->sort_delta);
    if (da != db)
        return da > db ? -1 : 1;
    return a->key < b->key ? -1 : 1;
}

/* Seconds with microsecond digits, sample counts as integers. */
static void
num(char buf[48], double v, bool sign, bool seconds)
{
    pyprof__snprintf_c(buf, 48, seconds ? (sign ? "%+.6f" : "%.6f") : (sign ? "%+.0f" : "%.0f"), v);
}

static void
fmt_rel(char *buf, size_t n, double delta, double before)
{
    if (before != 0)
        pyprof__snprintf_c(buf, n, "%+.1f%%", 100.0 * delta / before);
    else
        snprintf(buf, n, "%s", delta == 0 ? "0.0%" : "n/a");
}

static const char *const status_name[] = {"changed", "new", "vanished"};

static int
row_status(const struct row *r)
{
    return r->b.func == PYPROF_NONE ? 1 : r->a.func == PYPROF_NONE ? 2 : 0;
}

static void
put_row_machine(pyprof_output *o, pyprof_profile *keys, const struct row *r, bool json)
{
    const pyprof_func *f = pyprof_profile_func(keys, r->key);
    char v[8][PYPROF__DBL_BUF];
    double sd = r->sa - r->sb, td = r->ta - r->tb;
    pyprof__fmt_double(v[0], r->sb);
    pyprof__fmt_double(v[1], r->sa);
    pyprof__fmt_double(v[2], sd);
    pyprof__fmt_double(v[3], r->sb != 0 ? sd / r->sb : 0);
    pyprof__fmt_double(v[4], r->tb);
    pyprof__fmt_double(v[5], r->ta);
    pyprof__fmt_double(v[6], td);
    pyprof__fmt_double(v[7], r->tb != 0 ? td / r->tb : 0);
    if (json) {
        pyprof_output_printf(o, "{\"status\":\"%s\",\"file\":", status_name[row_status(r)]);
        pyprof__json_string(o, pyprof_profile_string(keys, f->file));
        pyprof_output_printf(o, ",\"line\":%lld,\"name\":", (long long)f->line);
        pyprof__json_string(o, pyprof_profile_string(keys, f->name));
        pyprof_output_printf(o,
                             ",\"self_before\":%s,\"self_after\":%s,\"self_delta\":%s,"
                             "\"self_rel\":%s,\"total_before\":%s,\"total_after\":%s,"
                             "\"total_delta\":%s,\"total_rel\":%s,\"calls_before\":%lld,"
                             "\"calls_after\":%lld}",
                             v[0], v[1], v[2], r->sb != 0 ? v[3] : "null", v[4], v[5], v[6],
                             r->tb != 0 ? v[7] : "null", (long long)r->cb, (long long)r->ca);
    } else {
        pyprof_output_printf(o, "%s,", status_name[row_status(r)]);
        pyprof__csv_field(o, pyprof_profile_string(keys, f->file));
        pyprof_output_printf(o, ",%lld,", (long long)f->line);
        pyprof__csv_field(o, pyprof_profile_string(keys, f->name));
        pyprof_output_printf(o, ",%s,%s,%s,%s,%s,%s,%s,%s,%lld,%lld\n", v[0], v[1], v[2],
                             r->sb != 0 ? v[3] : "", v[4], v[5], v[6], r->tb != 0 ? v[7] : "",
                             (long long)r->cb, (long long)r->ca);
    }
}

int
pyprof_diff_write(pyprof_profile *before, pyprof_profile *after, pyprof_output *o,
                  const pyprof_diff_options *opts, pyprof_error *err)
{
    pyprof_diff_options def = PYPROF_DIFF_OPTIONS_INIT;
    pyprof_write_options wo = PYPROF_WRITE_OPTIONS_INIT;
    pyprof_profile *pb, *pa, *ob = NULL, *oa = NULL, *keys = NULL;
    struct row *rows = NULL;
    size_t nrows = 0, cap = 0;
    int rc;

    if (!opts)
        opts = &def;
    const char *type = opts->type ? opts->type : "txt";
    bool by_total = opts->sort && strcmp(opts->sort, "total") == 0;
    if (strcmp(type, "txt") && strcmp(type, "json") && strcmp(type, "csv"))
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                "unknown diff output type '%s' (txt, json, csv)", type);
    if ((rc = pyprof__callgraph_view(before, &pb, &ob, &wo, err)) < 0)
        return rc;
    if ((rc = pyprof__callgraph_view(after, &pa, &oa, &wo, err)) < 0)
        goto out;
    PYPROF_TRY(pyprof_profile_new(&keys));

    double totb = total_self(pb), tota = total_self(pa);
    double scale = opts->normalize && totb > 0 ? tota / totb : 1.0;
    /* one row per key; first-seen order: BEFORE's functions, then AFTER's new ones */
    for (int side = 0; side < 2; side++) {
        pyprof_profile *p = side ? pa : pb;
        for (size_t i = 0; i < pyprof_profile_func_count(p); i++) {
            const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
            if (f->flags & PYPROF_FUNC_CALLER_ONLY)
                continue;
            pyprof_id k;
            PYPROF_TRY(key_of(keys, p, (pyprof_id)i, &k));
            if (k >= nrows) {
                PYPROF_TRY(PYPROF_GROW(rows, cap, (size_t)k + 1));
                for (size_t j = nrows; j <= k; j++)
                    rows[j] =
                        (struct row){.key = (uint32_t)j, .b = {PYPROF_NONE}, .a = {PYPROF_NONE}};
                nrows = (size_t)k + 1;
            }
            struct row *r = &rows[k];
            if (side) {
                r->a.func = (pyprof_id)i;
                r->sa += f->counts.tottime;
                r->ta += f->counts.cumtime;
                r->ca += f->counts.ncalls;
            } else {
                r->b.func = (pyprof_id)i;
                r->sb += f->counts.tottime * scale;
                r->tb += f->counts.cumtime * scale;
                r->cb += f->counts.ncalls;
            }
        }
    }
    for (size_t i = 0; i < nrows; i++)
        rows[i].sort_delta = by_total ? rows[i].ta - rows[i].tb : rows[i].sa - rows[i].sb;
    qsort(rows, nrows, sizeof(*rows), cmp_rows);

    double ref = fmax(totb * scale, tota);
    double min_delta = opts->threshold > 0 ? opts->threshold * ref : 0;
    size_t hidden = 0, shown = 0;
    char name[4096];
    const char *lb = pyprof_profile_source_count(before)
                         ? pyprof_profile_string(before, pyprof_profile_source(before, 0)->name)
                         : "BEFORE";
    const char *la = pyprof_profile_source_count(after)
                         ? pyprof_profile_string(after, pyprof_profile_source(after, 0)->name)
                         : "AFTER";
    bool txt = strcmp(type, "txt") == 0, json = strcmp(type, "json") == 0;
    bool seconds = pyprof__unit_is_seconds(pa);

    if (json) {
        char b1[PYPROF__DBL_BUF], b2[PYPROF__DBL_BUF], b3[PYPROF__DBL_BUF];
        pyprof_output_puts(o, "{\"before\":");
        pyprof__json_string(o, lb);
        pyprof_output_puts(o, ",\"after\":");
        pyprof__json_string(o, la);
        pyprof_output_printf(o,
                             ",\"total_before\":%s,\"total_after\":%s,\"normalized\":%s,"
                             "\"scale\":%s,\"sort\":\"%s\",\"rows\":[",
                             pyprof__fmt_double(b1, totb), pyprof__fmt_double(b2, tota),
                             opts->normalize ? "true" : "false", pyprof__fmt_double(b3, scale),
                             by_total ? "total" : "self");
    } else if (!txt) {
        pyprof_output_puts(o, "status,file,line,name,self_before,self_after,self_delta,self_rel,"
                              "total_before,total_after,total_delta,total_rel,calls_before,"
                              "calls_after\n");
    } else {
        char t1[48], t2[48];
        num(t1, totb, false, seconds);
        num(t2, tota, false, seconds);
        pyprof_output_printf(o, "BEFORE: %s (total self %s)\nAFTER:  %s (total self %s)\n", lb, t1,
                             la, t2);
        if (opts->normalize)
            pyprof_output_printf(o, "BEFORE scaled by %.6f to AFTER's total\n", scale);
        pyprof_output_printf(o, "\nChanged functions, by |delta %s|:\n",
                             by_total ? "total" : "self");
        pyprof_output_puts(o, " self.before  self.after  self.delta  self.rel total.before "
                              "total.after total.delta total.rel  function\n");
    }
    /* three passes: changed, new, vanished */
    bool first = true;
    for (int st = 0; st < 3; st++) {
        if (txt && st > 0) {
            pyprof_output_printf(o, st == 1 ? "\nNew functions (only in AFTER):\n"
                                            : "\nVanished functions (only in BEFORE):\n");
            pyprof_output_puts(o, st == 1 ? " self.after total.after  function\n"
                                          : "self.before total.before function\n");
        }
        for (size_t i = 0; i < nrows; i++) {
            struct row *r = &rows[i];
            if (row_status(r) != st)
                continue;
            if (st == 0) {
                if (fabs(r->sort_delta) < min_delta || (r->sa == r->sb && r->ta == r->tb)) {
                    hidden++;
                    continue;
                }
                if (opts->limit && shown >= opts->limit) {
                    hidden++;
                    continue;
                }
                shown++;
            }
            if (!txt) {
                if (json)
                    pyprof_output_puts(o, first ? "\n" : ",\n");
                first = false;
                put_row_machine(o, keys, r, json);
                continue;
            }
            pyprof__func_display(keys, r->key, name, sizeof(name));
            char v[6][48];
            num(v[0], r->sb, false, seconds);
            num(v[1], r->sa, false, seconds);
            num(v[2], r->sa - r->sb, true, seconds);
            num(v[3], r->tb, false, seconds);
            num(v[4], r->ta, false, seconds);
            num(v[5], r->ta - r->tb, true, seconds);
            if (st == 0) {
                char rs[32], rt[32];
                fmt_rel(rs, sizeof(rs), r->sa - r->sb, r->sb);
                fmt_rel(rt, sizeof(rt), r->ta - r->tb, r->tb);
                pyprof_output_printf(o, "%12s %11s %11s %9s %12s %11s %11s %9s  %s\n", v[0], v[1],
                                     v[2], rs, v[3], v[4], v[5], rt, name);
            } else if (st == 1) {
                pyprof_output_printf(o, "%11s %11s  %s\n", v[1], v[4], name);
            } else {
                pyprof_output_printf(o, "%11s %11s  %s\n", v[0], v[3], name);
            }
        }
    }
    if (json)
        pyprof_output_printf(o, "],\"hidden\":%zu}\n", hidden);
    else if (txt && hidden)
        pyprof_output_printf(o, "\n%zu unchanged or below-threshold functions not shown\n", hidden);
out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
    pyprof__free(rows);
    pyprof_profile_free(keys);
    pyprof_profile_free(ob);
    pyprof_profile_free(oa);
    return rc;
}
