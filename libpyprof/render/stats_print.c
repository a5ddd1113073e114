/*
 * stats_print.c - restrictions and the three pstats printers, byte for
 * byte as CPython 3.11's print_stats, print_callers and print_callees.
 * Reference: formats.md 4.2-4.6 and 4.8 (the browser's argument rules).
 *
 * Restrictions are Python regular expressions, searched (unanchored) in
 * each function's label; PCRE2 with UTF and UCP is the closest engine to
 * Python's `re` for str patterns (\w, \d and \b are Unicode-aware there).
 * The messages quote arguments with Python's repr(), which is reproduced
 * here for the three types a restriction can have.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "stats_int.h"

/* ---- parsing command words (Python's int() and float()) ---------------------------- */

/* Digits with single underscores between them, as Python literals allow. */
static const char *
scan_digits(const char *s, pyprof__sbuf *clean)
{
    if (!(*s >= '0' && *s <= '9'))
        return NULL;
    while (1) {
        pyprof__sbuf_add(clean, s, 1);
        s++;
        if (*s == '_' && s[1] >= '0' && s[1] <= '9')
            s++;
        else if (!(*s >= '0' && *s <= '9'))
            return s;
    }
}

static bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* int(word): saturates far outside int64 (such counts are ignored anyway). */
static bool
parse_py_int(const char *w, int64_t *out)
{
    while (is_space(*w))
        w++;
    bool neg = *w == '-';
    if (*w == '+' || *w == '-')
        w++;
    pyprof__sbuf d = {0};
    const char *e = scan_digits(w, &d);
    bool ok = e != NULL;
    if (ok) {
        while (is_space(*e))
            e++;
        ok = *e == '\0' && d.data;
    }
    if (ok) {
        int64_t v = 0;
        for (const char *c = d.data; *c; c++)
            v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (*c - '0');
        *out = neg ? -v : v;
    }
    pyprof__sbuf_free(&d);
    return ok;
}

static bool
ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];
        if (c != b[i])
            return false;
    }
    return true;
}

/* float(word): [sign] (digits [. [digits]] | . digits) [e [sign] digits],
 * or inf, infinity, nan in any case; surrounding white space allowed. */
static bool
parse_py_float(const char *w, double *out)
{
    while (is_space(*w))
        w++;
    const char *end = w + strlen(w);
    while (end > w && is_space(end[-1]))
        end--;
    pyprof__sbuf c = {0};
    const char *s = w;
    bool ok = false;
    if (*s == '+' || *s == '-')
        pyprof__sbuf_add(&c, s++, 1);
    size_t rest = (size_t)(end - s);
    if ((rest == 3 && (ieq(s, "inf", 3) || ieq(s, "nan", 3))) ||
        (rest == 8 && ieq(s, "infinity", 8))) {
        pyprof__sbuf_add(&c, s, rest);
        ok = true;
    } else {
        const char *p = s;
        bool digits = false;
        if (*p >= '0' && *p <= '9') {
            p = scan_digits(p, &c);
            digits = true;
        }
        if (*p == '.') {
            pyprof__sbuf_add(&c, ".", 1);
            p++;
            if (*p >= '0' && *p <= '9') {
                p = scan_digits(p, &c);
                digits = true;
            }
        }
        if (digits && (*p == 'e' || *p == 'E')) {
            pyprof__sbuf_add(&c, "e", 1);
            p++;
            if (*p == '+' || *p == '-')
                pyprof__sbuf_add(&c, p++, 1);
            p = scan_digits(p, &c);
            digits = p != NULL;
        }
        ok = digits && p == end;
    }
    if (ok && c.data) {
        char *e;
        *out = pyprof__strtod_c(c.data, &e);
        ok = *e == '\0';
    }
    pyprof__sbuf_free(&c);
    return ok;
}

int
pyprof_stats_restriction_parse(pyprof_stats_restriction *out, const char *word, pyprof_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t n = 0;
    double f = 0;
    if (parse_py_int(word, &n)) {
        out->kind = PYPROF_RESTRICT_COUNT;
        out->count = n;
    } else if (parse_py_float(word, &f)) {
        if (f > 1 || f < 0)
            return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0,
                                    "Fraction argument must be in [0, 1]");
        out->kind = PYPROF_RESTRICT_FRACTION;
        out->fraction = f;
    } else {
        out->kind = PYPROF_RESTRICT_REGEX;
        out->pattern = word;
    }
    return 0;
}

/* ---- Python repr() ------------------------------------------------------------------- */

/* Code points str.isprintable() rejects beyond the ASCII controls: the
 * common separators, format characters and private use areas. */
static bool
unprintable(uint32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0xa0) || c == 0xad || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
           (c >= 0x205f && c <= 0x2064) || c == 0x3000 || (c >= 0xd800 && c <= 0xf8ff) ||
           c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb);
}

static int
repr_str(pyprof__sbuf *b, const char *s)
{
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    int rc = pyprof__sbuf_add(b, &q, 1);
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s);
    for (size_t i = 0; i < len && rc == 0;) {
        uint32_t c = u[i];
        size_t n = 1;
        if (c >= 0x80) {
            size_t valid = pyprof__utf8_valid_prefix(u + i, len - i < 4 ? len - i : 4);
            n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            if (valid < n) { /* not UTF-8: show the byte as Python's surrogateescape would */
                rc = pyprof__sbuf_printf(b, "\\udc%02x", c);
                i++;
                continue;
            }
            c = n == 2   ? (c & 0x1f) << 6 | (u[i + 1] & 0x3f)
                : n == 3 ? (c & 0x0f) << 12 | (u[i + 1] & 0x3f) << 6 | (u[i + 2] & 0x3f)
                         : (c & 0x07) << 18 | (u[i + 1] & 0x3f) << 12 | (u[i + 2] & 0x3f) << 6 |
                               (u[i + 3] & 0x3f);
        }
        if (c == '\\' || c == (uint32_t)q)
            rc = pyprof__sbuf_printf(b, "\\%c", (char)c);
        else if (c == '\t')
            rc = pyprof__sbuf_add(b, "\\t", 2);
        else if (c == '\n')
            rc = pyprof__sbuf_add(b, "\\n", 2);
        else if (c == '\r')
            rc = pyprof__sbuf_add(b, "\\r", 2);
        else if (unprintable(c))
            rc = c < 0x100     ? pyprof__sbuf_printf(b, "\\x%02x", c)
                 : c < 0x10000 ? pyprof__sbuf_printf(b, "\\u%04x", c)
                               : pyprof__sbuf_printf(b, "\\U%08x", c);
        else
            rc = pyprof__sbuf_add(b, s + i, n);
        i += n;
    }
    if (rc == 0)
        rc = pyprof__sbuf_add(b, &q, 1);
    return rc;
}

/* repr(float): the shortest text that reads back, with ".0" when it looks
 * like an integer.  Exponents here are small (restrictions are in [0, 1)),
 * where Python's choice of notation is that of %g. */
static int
repr_float(pyprof__sbuf *b, double x)
{
    char buf[40];
    if (isnan(x))
        return pyprof__sbuf_add(b, "nan", 3);
    if (isinf(x))
        return pyprof__sbuf_add(b, x < 0 ? "-inf" : "inf", x < 0 ? 4 : 3);
    for (int prec = 1; prec <= 17; prec++) {
        pyprof__snprintf_c(buf, sizeof buf, "%.*g", prec, x);
        if (pyprof__strtod_c(buf, NULL) == x)
            break;
    }
    if (!strpbrk(buf, ".e"))
        strcat(buf, ".0");
    return pyprof__sbuf_add(b, buf, strlen(buf));
}

static int
repr_restriction(pyprof__sbuf *b, const pyprof_stats_restriction *r)
{
    switch (r->kind) {
    case PYPROF_RESTRICT_COUNT:
        return pyprof__sbuf_printf(b, "%lld", (long long)r->count);
    case PYPROF_RESTRICT_FRACTION:
        return repr_float(b, r->fraction);
    default:
        return repr_str(b, r->pattern ? r->pattern : "");
    }
}

/* ---- selecting rows ------------------------------------------------------------------- */

static int
regex_filter(pyprof_stats *st, const char *pattern, pyprof_id *ids, size_t *count, bool *valid)
{
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP, &errcode, &erroff, NULL);
    *valid = re != NULL;
    if (!re)
        return 0;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    if (!md) {
        pcre2_code_free(re);
        return PYPROF_ENOMEM;
    }
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++) {
        const char *label = st->labels.data + st->label_off[ids[i]];
        if (pcre2_match(re, (PCRE2_SPTR)label, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0)
            ids[kept++] = ids[i];
    }
    *count = kept;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return 0;
}

int
pyprof__stats_select(pyprof_stats *st, const pyprof_stats_restriction *restr, size_t n,
                     pyprof_id **ids_out, size_t *count_out, pyprof__sbuf *msg, pyprof_error *err)
{
    int rc = 0;
    size_t count = st->nentries;
    pyprof_id *ids = NULL;

    *ids_out = NULL;
    *count_out = 0;
    for (size_t i = 0; i < n; i++)
        if (restr[i].kind == PYPROF_RESTRICT_REGEX && pyprof__stats_labels(st) < 0)
            goto nomem;
    ids = pyprof__reallocarray(NULL, count ? count : 1, sizeof *ids);
    if (!ids)
        goto nomem;
    memcpy(ids, pyprof__stats_list(st), count * sizeof *ids);
    if (st->sorted)
        rc = pyprof__sbuf_printf(msg, "   Ordered by: %s\n", st->sort_desc);
    else
        rc = pyprof__sbuf_printf(msg, "   Random listing order was used\n");
    for (size_t i = 0; i < n && rc == 0; i++) {
        const pyprof_stats_restriction *r = &restr[i];
        size_t before = count;
        if (r->kind == PYPROF_RESTRICT_REGEX) {
            bool valid;
            if ((rc = regex_filter(st, r->pattern ? r->pattern : "", ids, &count, &valid)) < 0)
                break;
            if (!valid) {
                rc = pyprof__sbuf_printf(msg, "   <Invalid regular expression ");
                if (rc == 0)
                    rc = repr_restriction(msg, r);
                if (rc == 0)
                    rc = pyprof__sbuf_add(msg, ">\n", 2);
                continue;
            }
        } else if (r->kind == PYPROF_RESTRICT_FRACTION) {
            if (r->fraction >= 0.0 && r->fraction < 1.0)
                count = (size_t)((double)count * r->fraction + 0.5);
        } else if (r->kind == PYPROF_RESTRICT_COUNT) {
            if (r->count >= 0 && (uint64_t)r->count < count)
                count = (size_t)r->count;
        }
        if (count != before) {
            rc = pyprof__sbuf_printf(msg, "   List reduced from %zu to %zu due to restriction <",
                                     before, count);
            if (rc == 0)
                rc = repr_restriction(msg, r);
            if (rc == 0)
                rc = pyprof__sbuf_add(msg, ">\n", 2);
        }
    }
    if (rc < 0)
        goto nomem;
    *ids_out = ids;
    *count_out = count;
    return 0;
nomem:
    pyprof__free(ids);
    return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
}

/* ---- printing --------------------------------------------------------------------------- */

/* "%8.3f", except that Python never prints a sign on NaN. */
static int
f8(char *buf, size_t size, double x)
{
    if (isnan(x))
        return pyprof__snprintf_c(buf, size, "%8s", "nan");
    return pyprof__snprintf_c(buf, size, "%8.3f", x);
}

/* time.ctime(): "%a %b %e %H:%M:%S %Y" in local time, English names. */
static void
py_ctime(char *buf, size_t size, int64_t t)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t tt = (time_t)t;
    struct tm tm;
    tzset();
    if (!localtime_r(&tt, &tm)) {
        pyprof__snprintf_c(buf, size, "%lld", (long long)t);
        return;
    }
    pyprof__snprintf_c(buf, size, "%s %s %2d %02d:%02d:%02d %d", days[tm.tm_wday % 7],
                       months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                       tm.tm_year + 1900);
}

static void
pad(pyprof_output *out, size_t n)
{
    static const char spaces[] = "                                                                ";
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        pyprof_output_write(out, spaces, k);
        n -= k;
    }
}

static int
print_row(pyprof_stats *st, pyprof_output *out, pyprof_id id)
{
    const char *label = pyprof__stats_label(st, id);
    if (!label)
        return PYPROF_ENOMEM;
    const pyprof_func *f = pyprof_profile_func(st->p, id);
    const pyprof_counts *c = &f->counts;
    char calls[48], tt[40], ttp[40], ct[40], ctp[40];
    if (c->ncalls == c->primcalls)
        pyprof__snprintf_c(calls, sizeof calls, "%lld", (long long)c->ncalls);
    else
        pyprof__snprintf_c(calls, sizeof calls, "%lld/%lld", (long long)c->ncalls,
                           (long long)c->primcalls);
    f8(tt, sizeof tt, c->tottime);
    if (c->ncalls == 0)
        strcpy(ttp, "        ");
    else
        f8(ttp, sizeof ttp, c->tottime / (double)c->ncalls);
    f8(ct, sizeof ct, c->cumtime);
    if (c->primcalls == 0)
        strcpy(ctp, "        ");
    else
        f8(ctp, sizeof ctp, c->cumtime / (double)c->primcalls);
    pyprof_output_printf(out, "%9s %s %s %s %s %s\n", calls, tt, ttp, ct, ctp, label);
    return 0;
}

/* pstats' top_level: entries called by the old "jprofile" profiler's root. */
static void
print_top_level(pyprof_stats *st, pyprof_output *out)
{
    pyprof_profile *p = st->p;
    size_t n = pyprof_profile_func_count(p);
    for (size_t i = 0; i < n; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (f->line == 0 && strcmp(pyprof_profile_string(p, f->file), "jprofile") == 0 &&
            strcmp(pyprof_profile_string(p, f->name), "profiler") == 0) {
            const pyprof_id *edges;
            size_t ne;
            if (pyprof_profile_callees(p, (pyprof_id)i, &edges, &ne) < 0)
                return;
            for (size_t k = 0; k < ne; k++) {
                pyprof_id callee = pyprof_profile_edge(p, edges[k])->callee;
                if (callee < st->is_entry_len && st->is_entry[callee])
                    pyprof_output_printf(
                        out, "         %s\n",
                        pyprof_profile_string(p, pyprof_profile_func(p, callee)->name));
            }
        }
    }
}

int
pyprof_stats_print(pyprof_stats *st, pyprof_output *out, const pyprof_stats_restriction *restr,
                   size_t n, pyprof_error *err)
{
    pyprof_profile *p = st->p;
    size_t nsrc = pyprof_profile_source_count(p);
    for (size_t i = 0; i < nsrc; i++) {
        const pyprof_source *s = pyprof_profile_source(p, i);
        if (s->mtime >= 0) {
            char when[64];
            py_ctime(when, sizeof when, s->mtime);
            pyprof_output_printf(out, "%s    %s\n", when, pyprof_profile_string(p, s->name));
        } else {
            pyprof_output_printf(out, "%s\n", pyprof_profile_string(p, s->name));
        }
    }
    if (nsrc)
        pyprof_output_puts(out, "\n");
    print_top_level(st, out);
    pyprof_output_printf(out, "         %lld function calls", (long long)st->totals.ncalls);
    if (st->totals.ncalls != st->totals.primcalls)
        pyprof_output_printf(out, " (%lld primitive calls)", (long long)st->totals.primcalls);
    if (isnan(st->totals.tottime))
        pyprof_output_puts(out, " in nan seconds\n\n");
    else
        pyprof_output_printf(out, " in %.3f seconds\n\n", st->totals.tottime);

    pyprof__sbuf msg = {0};
    pyprof_id *ids;
    size_t count;
    int rc = pyprof__stats_select(st, restr, n, &ids, &count, &msg, err);
    if (rc < 0) {
        pyprof__sbuf_free(&msg);
        return rc;
    }
    if (count) {
        pyprof_output_write(out, msg.data, msg.len);
        pyprof_output_puts(out, "\n");
        pyprof_output_puts(out, "   ncalls  tottime  percall  cumtime  percall "
                                "filename:lineno(function)\n");
        for (size_t i = 0; i < count && rc == 0; i++)
            rc = print_row(st, out, ids[i]);
        pyprof_output_puts(out, "\n\n");
    }
    pyprof__free(ids);
    pyprof__sbuf_free(&msg);
    if (rc < 0)
        return pyprof_error_set(err, rc, NULL, NULL, -1, 0, "out of memory");
    return pyprof_output_status(out, err);
}

/* One partner line of print_callers/print_callees. */
static int
print_partner(pyprof_stats *st, pyprof_output *out, size_t width, bool first, const pyprof_edge *e,
              pyprof_id partner)
{
    const char *label = pyprof__stats_label(st, partner);
    if (!label)
        return PYPROF_ENOMEM;
    char a[40], b[40];
    if (e->flags & PYPROF_EDGE_COUNT_ONLY) {
        /* profile module: name(count) and the partner's own cumulative time */
        if (!first)
            pad(out, width + 3);
        f8(a, sizeof a, pyprof_profile_func(st->p, partner)->counts.cumtime);
        pyprof_output_printf(out, "%s(%lld) %s\n", label, (long long)e->counts.ncalls, a);
        return 0;
    }
    char calls[48];
    if (e->counts.ncalls != e->counts.primcalls)
        pyprof__snprintf_c(calls, sizeof calls, "%lld/%lld", (long long)e->counts.ncalls,
                           (long long)e->counts.primcalls);
    else
        pyprof__snprintf_c(calls, sizeof calls, "%lld", (long long)e->counts.ncalls);
    if (!first)
        pad(out, width + 1);
    f8(a, sizeof a, e->counts.tottime);
    f8(b, sizeof b, e->counts.cumtime);
    pyprof_output_printf(out, "%*s %s %s  %s\n", first ? 7 : 9, calls, a, b, label);
    return 0;
}

static int
print_calls(pyprof_stats *st, pyprof_output *out, const pyprof_stats_restriction *restr, size_t n,
            bool callers, pyprof_error *err)
{
    pyprof_profile *p = st->p;
    pyprof__sbuf msg = {0};
    pyprof_id *ids = NULL, *partners = NULL, *tmp = NULL;
    size_t count, cap = 0;
    int rc = pyprof__stats_select(st, restr, n, &ids, &count, &msg, err);
    if (rc < 0) {
        pyprof__sbuf_free(&msg);
        return rc;
    }
    if (!count)
        goto out;
    pyprof_output_write(out, msg.data, msg.len);
    pyprof_output_puts(out, "\n");

    /* column width: every entry's label, or only the listed ones' when the
     * restrictions dropped some */
    size_t width = 0;
    const pyprof_id *over = count < st->nentries ? ids : st->entries;
    size_t nover = count < st->nentries ? count : st->nentries;
    for (size_t i = 0; i < nover; i++)
        if (!pyprof__stats_label(st, over[i]))
            goto nomem;
    for (size_t i = 0; i < nover; i++)
        if (st->label_width[over[i]] > width)
            width = st->label_width[over[i]];
    width += 2;

    pyprof_output_puts(out, "Function ");
    if (width > 9)
        pad(out, width - 9);
    pyprof_output_puts(out, callers ? "was called by...\n" : "called...\n");
    /* the column titles only for cProfile-style (tuple) caller values,
     * judged by the first caller of the first entry that has one */
    for (size_t i = 0; i < st->nentries; i++) {
        const pyprof_id *edges;
        size_t ne;
        if ((rc = pyprof_profile_callers(p, st->entries[i], &edges, &ne)) < 0)
            goto nomem;
        if (ne) {
            if (!(pyprof_profile_edge(p, edges[0])->flags & PYPROF_EDGE_COUNT_ONLY)) {
                pad(out, width);
                pyprof_output_puts(out, "    ncalls  tottime  cumtime\n");
            }
            break;
        }
    }

    for (size_t i = 0; i < count; i++) {
        pyprof_id f = ids[i];
        const pyprof_id *edges;
        size_t ne;
        rc = callers ? pyprof_profile_callers(p, f, &edges, &ne)
                     : pyprof_profile_callees(p, f, &edges, &ne);
        if (rc < 0)
            goto nomem;
        const char *label = pyprof__stats_label(st, f);
        if (!label)
            goto nomem;
        pyprof_output_puts(out, label);
        if (width > st->label_width[f])
            pad(out, width - st->label_width[f]);
        pyprof_output_puts(out, callers ? "<- " : "-> ");
        if (ne == 0) {
            pyprof_output_puts(out, "\n");
            continue;
        }
        if (ne > cap) {
            pyprof__free(partners);
            pyprof__free(tmp);
            partners = pyprof__reallocarray(NULL, ne, sizeof *partners);
            tmp = pyprof__reallocarray(NULL, ne, sizeof *tmp);
            cap = ne;
            if (!partners || !tmp) {
                cap = 0;
                goto nomem;
            }
        }
        for (size_t k = 0; k < ne; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, edges[k]);
            partners[k] = callers ? e->caller : e->callee;
        }
        pyprof__stats_sort_keys(p, partners, ne, tmp);
        for (size_t k = 0; k < ne; k++) {
            pyprof_id eid = callers ? pyprof_profile_edge_find(p, partners[k], f)
                                    : pyprof_profile_edge_find(p, f, partners[k]);
            if (eid == PYPROF_NONE) /* cannot happen: the partner came from an edge */
                continue;
            if (print_partner(st, out, width, k == 0, pyprof_profile_edge(p, eid), partners[k]) < 0)
                goto nomem;
        }
    }
    pyprof_output_puts(out, "\n\n");
    goto out;
nomem:
    rc = pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
out:
    pyprof__free(ids);
    pyprof__free(partners);
    pyprof__free(tmp);
    pyprof__sbuf_free(&msg);
    if (rc < 0)
        return rc;
    return pyprof_output_status(out, err);
}

int
pyprof_stats_print_callers(pyprof_stats *st, pyprof_output *out,
                           const pyprof_stats_restriction *restr, size_t n, pyprof_error *err)
{
    return print_calls(st, out, restr, n, true, err);
}

int
pyprof_stats_print_callees(pyprof_stats *st, pyprof_output *out,
                           const pyprof_stats_restriction *restr, size_t n, pyprof_error *err)
{
    return print_calls(st, out, restr, n, false, err);
}
