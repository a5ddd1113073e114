/*
 * collapsed.c - reader for collapsed ("folded") stacks: flamegraph.pl and
 * stackcollapse-*.pl output, py-spy raw, austin 1.x-4.x, pyflame (formats.md
 * §8).  One sample aggregate per line: "frame;frame;...;leaf COUNT".
 *
 * The line grammar is flamegraph.pl's (§8.1): the count is the number at the
 * very end (digits, optionally "." and digits) after exactly one whitespace
 * character, and if what is left again ends in whitespace + number, the line
 * is differential ("stack BEFORE AFTER", §8.6).  On top of that we accept
 * what flamegraph.pl does not: CRLF line ends, UTF-16 with a BOM (transcoded),
 * austin's "# key: value" metadata (kept as profile metadata instead of
 * being drawn as frames), austin's signed and "time,idle,memory" metrics,
 * and pyflame's timestamp mode (a bare timestamp line, then a stack line
 * with a trailing ";" and no count: one sample).  Blank lines are counted;
 * any other line that does not parse is counted as malformed, with the
 * first line numbers kept in metadata ("malformed_lines",
 * "malformed_line_numbers") for the tools to warn about - it is never
 * folded into a frame.
 *
 * Model: frames become functions (see collapsed.h for how py-spy/austin
 * frames are split into name, file and line without losing their text), and
 * stacks go into the profile's stack tree: node->self[0] gets the count (the
 * BEFORE count of a differential line), node->self[1] the AFTER count (the
 * same count for ordinary lines; austin's memory delta in "full" mode).
 * Metadata "stack_metrics" says what two metrics mean ("before,after" or
 * "time,memory").  Functions keep zero counters: the call graph implied by
 * the stacks is derived by the consumer that wants one
 * (pyprof_profile_derive_callgraph, when a profile has stacks but no
 * edges: pyprof-dot and pyprof-convert do).  Deriving adds
 * to the counters, so exactly one party may do it, and a flame graph, which
 * needs only the stacks, should not pay for it on a 1 GB file.
 *
 * Speed and memory: lines are never kept; memory grows with distinct
 * frames and stack-tree nodes, never with the file size.  The per-stack
 * work is in collapsed_stack.c.
 */
#include "config.h"

#include <math.h>

#include <pyprof/flame.h>

#include "collapsed.h"

#define FORMAT "collapsed"
/* pyflame timestamps are microseconds since the epoch: 16 digits today; 13
 * digits would still be 1970-01-06, so shorter numbers are not timestamps. */
#define PYFLAME_TS_MIN_DIGITS 13

/* ---- line grammar ------------------------------------------------------------------------ */

static inline bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Perl's \s */
static inline bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t
pyprof__folded_count_start(const char *s, size_t len)
{
    size_t k = len;
    while (k > 0 && is_digit(s[k - 1]))
        k--;
    size_t num = k;
    if (k > 0 && s[k - 1] == '.') {
        size_t j = k - 1;
        while (j > 0 && is_digit(s[j - 1]))
            j--;
        if (j == k - 1)
            return 0; /* ".5" */
        num = j;
    } else if (k == len) {
        return 0; /* no digits */
    }
    return num > 0 && is_space(s[num - 1]) ? num : 0;
}

/*
 * Split "STACK<ws>NUMBER" at the end of s[0..len) (see
 * pyprof__folded_count_start).  On success sets *stack_len and *value and
 * returns true.
 */
static bool
split_count(const char *s, size_t len, size_t *stack_len, double *value)
{
    size_t num = pyprof__folded_count_start(s, len);
    if (num == 0)
        return false;
    size_t k = num;
    while (k < len && is_digit(s[k]))
        k++;
    /* digits only (no "."): the common case, parsed without strtod */
    if (k == len && len - num <= 15) {
        uint64_t v = 0;
        for (size_t i = num; i < len; i++)
            v = v * 10 + (uint64_t)(s[i] - '0');
        *value = (double)v;
    } else {
        /* a NUL-ended copy for strtod, of every digit: a count cut short
         * would be a silently wrong number */
        char small[64], *buf = small;
        size_t n = len - num;
        if (n >= sizeof small && !(buf = pyprof__malloc(n + 1)))
            return false; /* reported as a malformed line, never misread */
        memcpy(buf, s + num, n);
        buf[n] = '\0';
        *value = pyprof__strtod_c(buf, NULL);
        if (buf != small)
            pyprof__free(buf);
    }
    *stack_len = num - 1;
    return true;
}

/* austin's metrics: a signed integer, or "time,idle,memory" (3.x full mode). */
static bool
split_austin_metrics(const char *s, size_t len, size_t *stack_len, double v[3], int *nv)
{
    const char *sp = memrchr(s, ' ', len);
    if (!sp)
        return false;
    const char *q = sp + 1, *end = s + len;
    *nv = 0;
    while (q < end && *nv < 3) {
        bool neg = false;
        if (*q == '-') {
            neg = true;
            q++;
        }
        if (q == end || !is_digit(*q))
            return false;
        double x = 0;
        while (q < end && is_digit(*q))
            x = x * 10 + (*q++ - '0');
        v[(*nv)++] = neg ? -x : x;
        if (q < end && *q == ',')
            q++;
        else
            break;
    }
    if (q != end || (*nv != 1 && *nv != 3))
        return false;
    *stack_len = (size_t)(sp - s);
    return true;
}

/* ---- lines ----------------------------------------------------------------------------------- */

static void
note_bad(reader *r)
{
    if (r->bad < MAX_BAD_LINES_KEPT)
        r->bad_lines[r->bad] = pyprof_input_line(r->in);
    r->bad++;
}

/* "# key: value" (austin metadata) */
static int
meta_line(reader *r, const char *s, size_t len, bool *taken)
{
    *taken = false;
    if (len < 4 || s[0] != '#' || s[1] != ' ')
        return 0;
    const char *colon = memchr(s + 2, ':', len - 2);
    if (!colon || colon == s + 2)
        return 0;
    for (const char *q = s + 2; q < colon; q++)
        if (!(is_digit(*q) || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
              *q == ' ' || *q == '-'))
            return 0;
    char key[96], value[512];
    size_t kl = (size_t)(colon - (s + 2));
    const char *v = colon + 1;
    while (v < s + len && *v == ' ')
        v++;
    size_t vl = (size_t)(s + len - v);
    if (kl + 7 >= sizeof key || vl >= sizeof value)
        return 0;
    memcpy(key, "austin.", 7);
    memcpy(key + 7, s + 2, kl);
    key[7 + kl] = '\0';
    memcpy(value, v, vl);
    value[vl] = '\0';
    if (pyprof__utf8_valid_prefix((const unsigned char *)value, vl) != vl)
        return 0;
    *taken = true;
    int rc = pyprof_profile_meta_set(r->p, key, value);
    if (rc == 0 && strcmp(key, "austin.austin") == 0) {
        char prod[600];
        snprintf(prod, sizeof prod, "austin %s", value);
        rc = pyprof_profile_meta_set(r->p, "producer", prod);
    }
    return rc;
}

static bool
all_digits(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!is_digit(s[i]))
            return false;
    return len > 0;
}

static int
do_line(reader *r, const char *s, size_t len)
{
    int rc;
    if (len > 0 && s[len - 1] == '\r') {
        len--;
        r->crlf++;
    }
    size_t blank = 0;
    while (blank < len && is_space(s[blank]))
        blank++;
    if (blank == len) {
        r->blank++;
        return 0;
    }
    if (r->dialect == D_AUSTIN && s[0] == '#') {
        /* austin writes no stack that starts with '#': a comment that is
         * not "# key: value" is damaged metadata, not a frame */
        bool taken;
        if ((rc = meta_line(r, s, len, &taken)) < 0 || taken)
            return rc;
        note_bad(r);
        return 0;
    }
    if (r->dialect == D_PYFLAME_TS) {
        if (all_digits(s, len) && len >= PYFLAME_TS_MIN_DIGITS) {
            r->pending_ts = true;
            return 0;
        }
        if (r->pending_ts) {
            r->pending_ts = false;
            r->good++;
            return pyprof__collapsed_add_stack(r, s, len, 1, 1);
        }
    }
    size_t sl;
    double after;
    if (split_count(s, len, &sl, &after)) {
        size_t sl2;
        double before;
        if (split_count(s, sl, &sl2, &before)) {
            r->two_counts = true;
            r->good++;
            return pyprof__collapsed_add_stack(r, s, sl2, before, after);
        }
        r->good++;
        return pyprof__collapsed_add_stack(r, s, sl, after, after);
    }
    if (r->dialect == D_AUSTIN) {
        double v[3];
        int nv;
        if (split_austin_metrics(s, len, &sl, v, &nv)) {
            r->good++;
            if (nv == 3) { /* time, idle, memory */
                r->full_metrics = true;
                return pyprof__collapsed_add_stack(r, s, sl, v[0], v[2]);
            }
            return pyprof__collapsed_add_stack(r, s, sl, v[0], v[0]);
        }
    }
    note_bad(r);
    return 0;
}

/* ---- dialect detection (shared by the probe and the reader) -----------------------------------
 */

struct sniff {
    int lines, blank, valid, with_semi, austin, pyflame_ts;
    bool long_first; /* the first line is longer than the window */
};

static void
sniff_lines(const char *h, size_t n, bool at_eof, struct sniff *sn)
{
    memset(sn, 0, sizeof(*sn));
    size_t pos = 0;
    while (pos < n && sn->lines < 64) {
        const char *nl = memchr(h + pos, '\n', n - pos);
        if (!nl && !at_eof) {
            /* a partial last line proves nothing, unless it is the only
             * one: deep stacks make lines longer than the probe window */
            if (sn->lines == 0) {
                const char *s = h + pos;
                size_t len = n - pos;
                sn->long_first = memchr(s, ';', len) != NULL;
                if ((len > 9 && memcmp(s, "# austin:", 9) == 0) ||
                    (len > 7 && memcmp(s, "Thread ", 7) == 0 && sn->long_first) ||
                    (s[0] == 'P' && len > 3 && is_digit(s[1]) &&
                     memmem(s, len < 24 ? len : 24, ";T", 2) != NULL))
                    sn->austin++;
            }
            break;
        }
        size_t e = nl ? (size_t)(nl - h) : n, len = e - pos;
        const char *s = h + pos;
        if (len && s[len - 1] == '\r')
            len--;
        int idx = sn->lines++;
        size_t sl;
        double v[3];
        int nv;
        if (len == 0) {
            sn->blank++;
        } else if (len > 9 && memcmp(s, "# austin:", 9) == 0) {
            sn->austin++;
        } else if (s[0] == 'P' && len > 3 && is_digit(s[1]) &&
                   (memmem(s, len < 24 ? len : 24, ";T", 2) != NULL)) {
            sn->austin++;
            sn->valid += split_austin_metrics(s, len, &sl, v, &nv);
            sn->with_semi++;
        } else if (len > 7 && memcmp(s, "Thread ", 7) == 0 && memchr(s, ';', len)) {
            sn->austin++;
            sn->valid += split_austin_metrics(s, len, &sl, v, &nv);
            sn->with_semi++;
        } else if (idx == 0 && all_digits(s, len) && len >= PYFLAME_TS_MIN_DIGITS) {
            sn->pyflame_ts++;
        } else {
            double x;
            if (split_count(s, len, &sl, &x)) {
                sn->valid++;
                if (memchr(s, ';', sl))
                    sn->with_semi++;
            } else if (sn->pyflame_ts && (s[len - 1] == ';' || strncmp(s, "(idle)", 6) == 0)) {
                sn->pyflame_ts++;
            }
        }
        if (!nl)
            break;
        pos = e + 1;
    }
}

/* UTF-16 text with a BOM: 1 = little-endian, 2 = big-endian, 0 = not. */
static int
utf16_bom(const unsigned char *h, size_t n)
{
    if (n >= 2 && h[0] == 0xFF && h[1] == 0xFE)
        return 1;
    if (n >= 2 && h[0] == 0xFE && h[1] == 0xFF)
        return 2;
    return 0;
}

static int
collapsed_probe(const unsigned char *head, size_t len, bool at_eof)
{
    char tmp[PYPROF_PROBE_BYTES];
    const char *h = (const char *)head;
    int bom = utf16_bom(head, len);
    if (bom) {
        /* a rough narrowing of the ASCII subset is enough to look at lines */
        size_t o = 0;
        for (size_t i = 2; i + 1 < len; i += 2) {
            unsigned lo = bom == 1 ? head[i] : head[i + 1], hi = bom == 1 ? head[i + 1] : head[i];
            tmp[o++] = hi ? '?' : (char)lo;
        }
        h = tmp;
        len = o;
    } else if (len >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0) {
        h += 3;
        len -= 3;
    }
    struct sniff sn;
    sniff_lines(h, len, at_eof, &sn);
    int nonblank = sn.lines - sn.blank;
    if (sn.austin)
        return 60;
    if (sn.pyflame_ts >= 2)
        return 50;
    if (sn.valid && sn.with_semi && sn.valid * 2 >= nonblank)
        return 40;
    if (sn.valid && sn.valid * 2 >= nonblank)
        return 15; /* single-frame stacks: plausible, but other text formats end in numbers */
    if (sn.long_first)
        return 25; /* one stack longer than the window: its count is out of sight */
    return 0;
}

/* ---- UTF-16 ---------------------------------------------------------------------------------- */

static void
put_utf8(char *o, size_t *k, uint32_t c)
{
    if (c < 0x80) {
        o[(*k)++] = (char)c;
    } else if (c < 0x800) {
        o[(*k)++] = (char)(0xC0 | (c >> 6));
        o[(*k)++] = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        o[(*k)++] = (char)(0xE0 | (c >> 12));
        o[(*k)++] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (c & 0x3F));
    } else {
        o[(*k)++] = (char)(0xF0 | (c >> 18));
        o[(*k)++] = (char)(0x80 | ((c >> 12) & 0x3F));
        o[(*k)++] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (c & 0x3F));
    }
}

/* Decode UTF-16 (after the BOM) into new UTF-8; unpaired surrogates become U+FFFD. */
static int
utf16_to_utf8(const unsigned char *d, size_t n, int bom, char **out, size_t *outlen)
{
    size_t cap;
    if (pyprof__mul_overflows(n / 2, 3, &cap))
        return PYPROF_ELIMIT;
    char *o = pyprof__malloc(cap + 1);
    if (!o)
        return PYPROF_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        uint32_t u = bom == 1 ? (uint32_t)(d[i] | d[i + 1] << 8) : (uint32_t)(d[i] << 8 | d[i + 1]);
        if (u >= 0xD800 && u < 0xDC00 && i + 3 < n) {
            uint32_t u2 = bom == 1 ? (uint32_t)(d[i + 2] | d[i + 3] << 8)
                                   : (uint32_t)(d[i + 2] << 8 | d[i + 3]);
            if (u2 >= 0xDC00 && u2 < 0xE000) {
                put_utf8(o, &k, 0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00));
                i += 2;
                continue;
            }
        }
        if (u >= 0xD800 && u < 0xE000)
            u = 0xFFFD;
        put_utf8(o, &k, u);
    }
    *out = o;
    *outlen = k;
    return 0;
}

/* ---- reader ------------------------------------------------------------------------------------
 */

static int
finish(reader *r)
{
    int rc;
    char buf[64 + MAX_BAD_LINES_KEPT * 21];
    if (r->two_counts || r->full_metrics) {
        pyprof_profile_set_stack_metrics(r->p, 2);
        rc = pyprof_profile_meta_set(r->p, "stack_metrics",
                                     r->full_metrics ? "time,memory" : "before,after");
        if (rc < 0)
            return rc;
    }
    if (r->dialect == D_AUSTIN && !pyprof_profile_meta_get(r->p, "producer") &&
        (rc = pyprof_profile_meta_set(r->p, "producer", "austin")) < 0)
        return rc;
    if (r->dialect == D_PYFLAME_TS &&
        (rc = pyprof_profile_meta_set(r->p, "producer", "pyflame")) < 0)
        return rc;
    if (r->root_self != 0) {
        pyprof__snprintf_c(buf, sizeof buf, "%.17g", r->root_self);
        if ((rc = pyprof_profile_meta_set(r->p, "stack_root_weight", buf)) < 0)
            return rc;
    }
    if (r->blank) {
        pyprof__snprintf_c(buf, sizeof buf, "%llu", (unsigned long long)r->blank);
        if ((rc = pyprof_profile_meta_set(r->p, "blank_lines", buf)) < 0)
            return rc;
    }
    if (r->crlf) {
        pyprof__snprintf_c(buf, sizeof buf, "%llu", (unsigned long long)r->crlf);
        if ((rc = pyprof_profile_meta_set(r->p, "crlf_lines", buf)) < 0)
            return rc;
    }
    if (r->bad) {
        pyprof__snprintf_c(buf, sizeof buf, "%llu", (unsigned long long)r->bad);
        if ((rc = pyprof_profile_meta_set(r->p, "malformed_lines", buf)) < 0)
            return rc;
        size_t o = 0;
        for (uint64_t i = 0; i < r->bad && i < MAX_BAD_LINES_KEPT; i++)
            o += (size_t)pyprof__snprintf_c(buf + o, sizeof buf - o, "%s%llu", i ? "," : "",
                                            (unsigned long long)r->bad_lines[i]);
        if ((rc = pyprof_profile_meta_set(r->p, "malformed_line_numbers", buf)) < 0)
            return rc;
    }
    if (!pyprof_profile_meta_get(r->p, "sampled") &&
        (rc = pyprof_profile_meta_set(r->p, "sampled", "1")) < 0)
        return rc;
    return 0;
}

/* The collapsed writer's first line for estimated stacks (CRLF too). */
static bool
is_estimate_line(const char *s, size_t len)
{
    const size_t n = sizeof(PYPROF__FOLDED_ESTIMATE_LINE) - 1;
    if (len == n + 1 && s[n] == '\r')
        len = n;
    return len == n && memcmp(s, PYPROF__FOLDED_ESTIMATE_LINE, n) == 0;
}

/* A file the writer estimated is marked as the estimate was: a flame
 * graph of it must say so as one drawn from the call graph does. */
static int
mark_estimated(reader *r)
{
    int rc = pyprof_profile_meta_set(r->p, "stacks_estimated", "1");
    return rc < 0 ? rc : pyprof_profile_meta_set(r->p, "stack_unit", "microseconds");
}

int
pyprof__collapsed_read_lines(reader *r, bool at_start)
{
    int rc;
    const char *line;
    size_t len;
    bool first = at_start;
    while ((rc = pyprof_input_read_line(r->in, &line, &len, 0, r->err)) > 0) {
        if (first && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3;
            len -= 3;
        }
        if (first && r->dialect == D_FOLDED && is_estimate_line(line, len))
            rc = mark_estimated(r);
        else if ((rc = do_line(r, line, len)) < 0 && rc == PYPROF_EIO)
            return rc; /* reading a tail's text again failed: the input said where */
        first = false;
        if (rc < 0)
            return pyprof_input_error_line(r->in, r->err, rc, FORMAT, pyprof_input_line(r->in),
                                           "%s", pyprof_status_string(rc));
    }
    return rc;
}

/* rc, unless text was read again and the file has changed since it was
 * opened: that text is trusted only now, and the change explains any other
 * error the text may have caused. */
static int
reread_checked(reader *r, int rc)
{
    int crc = pyprof__input_reread_check(r->in, r->err);
    return crc < 0 ? crc : rc;
}

static int
collapsed_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts,
               pyprof_error *err)
{
    reader r = {.p = p, .in = in, .err = err};
    pyprof_input *u16 = NULL;
    char *u16buf = NULL;
    const unsigned char *h;
    size_t n;
    int rc = pyprof_input_peek(in, PYPROF_PROBE_BYTES, &h, &n, err);
    if (rc < 0)
        return rc;
    int bom = utf16_bom(h, n);
    if (bom) {
        /* UTF-16 folded files are small (Windows tools): transcode whole */
        const unsigned char *all;
        size_t alen, ulen;
        if ((rc = pyprof_input_slurp(in, &all, &alen, err)) < 0)
            return rc;
        if ((rc = utf16_to_utf8(all + 2, alen - 2, bom, &u16buf, &ulen)) < 0)
            return pyprof_input_error(in, err, rc, FORMAT, 0, "%s", pyprof_status_string(rc));
        if ((rc = pyprof_input_open_memory(&u16, u16buf, ulen, pyprof_input_name(in), err)) < 0)
            goto out;
        r.in = u16;
        if ((rc = pyprof_input_peek(u16, PYPROF_PROBE_BYTES, &h, &n, err)) < 0)
            goto out;
        if ((rc = pyprof_profile_meta_set(p, "encoding", bom == 1 ? "UTF-16LE" : "UTF-16BE")) < 0) {
            pyprof_input_error(in, err, rc, FORMAT, 0, "%s", pyprof_status_string(rc));
            goto out;
        }
    }
    struct sniff sn;
    sniff_lines((const char *)h, n, n < PYPROF_PROBE_BYTES, &sn);
    r.dialect = sn.austin ? D_AUSTIN : sn.pyflame_ts >= 2 ? D_PYFLAME_TS : D_FOLDED;

    bool done = false;
    bool one_thread = opts && opts->version >= 2 && opts->threads == 1;
    double elide = opts && opts->version >= 3 ? opts->stack_elide_below : 0;
    r.lazy = elide > 0 && elide < INFINITY && r.dialect == D_FOLDED;
    r.elide = elide;
    r.start_at = pyprof_input_offset(r.in);
    r.text_tails = r.lazy && pyprof__input_rereadable(r.in);
    if (!u16 && !one_thread && (rc = pyprof__collapsed_read_split(&r, &done)) < 0)
        goto out;
    if (!done && (rc = pyprof__collapsed_read_lines(&r, true)) < 0)
        goto out;
    if (((r.lazy && (rc = pyprof__collapsed_tails_finish(&r, elide)) < 0) ||
         (rc = pyprof__collapsed_names_flush(&r)) < 0 || (rc = finish(&r)) < 0) &&
        rc != PYPROF_EIO) /* (reading a tail's text again failed: the input said where) */
        pyprof_input_error(r.in, err, rc, FORMAT, pyprof_input_offset(r.in), "%s",
                           pyprof_status_string(rc));
out:
    rc = reread_checked(&r, rc);
    pyprof_input_close(u16);
    pyprof__free(u16buf);
    pyprof__collapsed_reader_free(&r);
    return rc;
}

const pyprof__format pyprof__format_collapsed = {
    .name = "collapsed",
    .aliases = "collapse folded",
    .description = "collapsed (folded) stacks: flamegraph.pl, py-spy, austin, pyflame",
    .probe = collapsed_probe,
    .read = collapsed_read,
};
