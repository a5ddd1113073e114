/*
 * lines_source.c - profiled source files, read the way line_profiler reads them.
 *
 * line_profiler 4.0.2 prints a function's lines from the file as it is on
 * disk at print time (formats.md section 6.4):
 *   - the file "exists" for os.path.exists (directories too) or is a
 *     notebook cell; then linecache reads it: PEP 263 decoding (BOM, coding
 *     cookie on line 1 or 2), universal newlines; any failure (unreadable,
 *     undecodable, unknown encoding) gives no lines at all;
 *   - inspect.getblock() picks the block starting at the first line: the
 *     decorators, the def line and the body, ending where the tokenizer's
 *     DEDENT returns to the starting level, plus comment lines indented at
 *     least as deep as the body.
 * getblock is a state machine over Python tokens, so this file has a small
 * tokenizer that produces exactly the tokens that machine looks at (NEWLINE,
 * NL, INDENT with its width, DEDENT, COMMENT with its column, '@', the names
 * def/class/lambda) and treats everything else as "some other token".  It
 * follows Python 3.11's tokenize.py: brackets and backslashes continue a
 * line, strings (with prefixes, triple quotes, backslash continuation) are
 * skipped whole, tabs advance the indentation to the next multiple of 8.
 *
 * Beyond line_profiler: a path that does not exist is also looked for under
 * the source roots, longest suffix of the recorded path first.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "lines_int.h"

/* Python source files beyond this are not read (treated as unreadable). */
#define SRC_MAX_BYTES ((size_t)256 << 20)

struct pyprof__src_cache {
    const char *const *roots;
    size_t nroots;
    pyprof__src **by_id; /* string id -> source, NULL = not looked up yet */
    size_t cap;
};

int
pyprof__src_cache_new(pyprof__src_cache **out, const char *const *roots, size_t nroots)
{
    pyprof__src_cache *c = pyprof__calloc(1, sizeof(*c));
    *out = c;
    if (!c)
        return PYPROF_ENOMEM;
    c->roots = roots;
    c->nroots = nroots;
    return 0;
}

static void
src_free(pyprof__src *s)
{
    if (!s)
        return;
    pyprof__free(s->text);
    pyprof__free(s->line_start);
    pyprof__free(s);
}

void
pyprof__src_cache_free(pyprof__src_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++)
        src_free(c->by_id[i]);
    pyprof__free(c->by_id);
    pyprof__free(c);
}

/* ---- finding the file --------------------------------------------------------------- */

static bool
exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool
is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* line_profiler's is_ipython_kernel_cell(); tempfile.gettempdir() is
 * approximated by $TMPDIR/$TEMP/$TMP, else /tmp. */
static bool
is_notebook_cell(const char *path)
{
    static const char *const vars[] = {"TMPDIR", "TEMP", "TMP"};
    const char *tmp = "/tmp";
    char prefix[4096];
    if (strncmp(path, "<ipython-input-", 15) == 0)
        return true;
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            tmp = v;
            break;
        }
    }
    size_t k = strlen(tmp);
    while (k > 1 && tmp[k - 1] == '/')
        k--;
    static const char *const kinds[] = {"ipykernel_", "xpython_"};
    for (size_t i = 0; i < 2; i++) {
        int n = snprintf(prefix, sizeof(prefix), "%.*s/%s", (int)k, tmp, kinds[i]);
        if (n > 0 && (size_t)n < sizeof(prefix) && strncmp(path, prefix, (size_t)n) == 0)
            return true;
    }
    return false;
}

/* ROOT/<suffix of path>, longest suffix first; the first regular file wins.
 * Returns a malloc'd path or NULL (none found; *rc < 0 on ENOMEM). */
static char *
search_roots(const pyprof__src_cache *c, const char *path, int *rc)
{
    *rc = 0;
    for (size_t r = 0; r < c->nroots; r++) {
        const char *root = c->roots[r];
        size_t rootlen = strlen(root);
        for (const char *suffix = path; suffix && *suffix;) {
            while (*suffix == '/')
                suffix++;
            if (!*suffix)
                break;
            size_t n = rootlen + 1 + strlen(suffix) + 1;
            char *cand = pyprof__malloc(n);
            if (!cand) {
                *rc = PYPROF_ENOMEM;
                return NULL;
            }
            snprintf(cand, n, "%s/%s", root, suffix);
            if (is_regular(cand))
                return cand;
            pyprof__free(cand);
            suffix = strchr(suffix, '/');
        }
    }
    return NULL;
}

/* ---- reading and decoding ------------------------------------------------------------ */

static int
slurp_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    *data = NULL;
    *len = 0;
    if (!f)
        return 1; /* unreadable: no lines, as linecache */
    for (;;) {
        if (n + 65536 + 1 > cap) {
            if (cap > SRC_MAX_BYTES) {
                pyprof__free(buf);
                fclose(f);
                return 1;
            }
            size_t ncap = cap ? cap * 2 : 65536 * 2;
            char *nb = pyprof__realloc(buf, ncap);
            if (!nb) {
                pyprof__free(buf);
                fclose(f);
                return PYPROF_ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        pyprof__free(buf);
        return 1;
    }
    *data = buf;
    *len = n;
    return 0;
}

enum enc { ENC_UTF8, ENC_LATIN1, ENC_ASCII, ENC_OTHER, ENC_BAD };

/* The bytes of line `i` (0 or 1) of raw data, with its terminator. */
static size_t
raw_line(const char *d, size_t n, size_t from)
{
    size_t i = from;
    while (i < n && d[i] != '\n' && d[i] != '\r')
        i++;
    if (i < n && d[i] == '\r' && i + 1 < n && d[i + 1] == '\n')
        return i + 2 - from;
    return i < n ? i + 1 - from : i - from;
}

/* tokenize's cookie_re: ^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+) (ASCII). */
static bool
find_cookie(const char *s, size_t n, char *name, size_t size)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'))
        i++;
    if (i == n || s[i] != '#')
        return false;
    for (; i + 7 < n; i++) {
        if (memcmp(s + i, "coding", 6) != 0 || (s[i + 6] != ':' && s[i + 6] != '='))
            continue;
        size_t j = i + 7, k = 0;
        while (j < n && (s[j] == ' ' || s[j] == '\t'))
            j++;
        while (j < n && k + 1 < size &&
               ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') ||
                (s[j] >= '0' && s[j] <= '9') || s[j] == '-' || s[j] == '_' || s[j] == '.'))
            name[k++] = s[j++];
        name[k] = '\0';
        if (k)
            return true;
    }
    return false;
}

/* tokenize's _get_normal_name, then the codecs we carry.  *exact is set
 * when the name normalises to "utf-8" itself, the only name a BOM allows. */
static enum enc
normal_encoding(const char *orig, bool *exact)
{
    char e[13];
    size_t k = 0;
    for (; orig[k] && k < 12; k++) {
        char c = orig[k];
        e[k] = c == '_' ? '-' : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    e[k] = '\0';
    *exact = strcmp(e, "utf-8") == 0 || strncmp(e, "utf-8-", 6) == 0;
    if (*exact || strcmp(e, "utf8") == 0 || strcmp(e, "u8") == 0)
        return ENC_UTF8;
    static const char *const latin[] = {"latin-1",   "iso-8859-1", "iso-latin-1", "latin1",
                                        "iso8859-1", "l1",         "latin"};
    for (size_t i = 0; i < sizeof(latin) / sizeof(latin[0]); i++) {
        size_t m = strlen(latin[i]);
        if (strcmp(e, latin[i]) == 0 || (strncmp(e, latin[i], m) == 0 && e[m] == '-'))
            return ENC_LATIN1;
    }
    if (strcmp(e, "ascii") == 0 || strcmp(e, "us-ascii") == 0)
        return ENC_ASCII;
    return ENC_OTHER;
}

static bool
blank_or_comment(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f'))
        i++;
    return i == n || s[i] == '#' || s[i] == '\r' || s[i] == '\n';
}

/* tokenize.detect_encoding; *skip is the BOM's length. */
static enum enc
detect_encoding(const char *d, size_t n, size_t *skip)
{
    char name[64];
    bool bom = n >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0;
    *skip = bom ? 3 : 0;
    d += *skip;
    n -= *skip;
    size_t l1 = raw_line(d, n, 0);
    for (int line = 0; line < 2 && n; line++) {
        size_t from = line ? l1 : 0, len = line ? raw_line(d, n, l1) : l1;
        if (!len)
            break;
        if (pyprof__utf8_valid_prefix((const unsigned char *)d + from, len) != len)
            return ENC_BAD; /* a cookie line must be UTF-8 */
        if (find_cookie(d + from, len, name, sizeof(name))) {
            bool exact;
            enum enc e = normal_encoding(name, &exact);
            if (bom && !exact)
                return ENC_BAD;
            return e;
        }
        if (!blank_or_comment(d, l1))
            break;
    }
    return ENC_UTF8;
}

/* Decode into UTF-8 with universal newlines; each line ends in NUL. */
static int
decode(pyprof__src *s, const char *d, size_t n)
{
    size_t skip;
    enum enc e = detect_encoding(d, n, &skip);
    if (e == ENC_BAD)
        return 1;
    d += skip;
    n -= skip;
    if (e == ENC_OTHER) /* an encoding we do not carry: UTF-8 if it is, else Latin-1 */
        e = pyprof__utf8_valid_prefix((const unsigned char *)d, n) == n ? ENC_UTF8 : ENC_LATIN1;
    if (e == ENC_UTF8 && pyprof__utf8_valid_prefix((const unsigned char *)d, n) != n)
        return 1;
    if (e == ENC_ASCII)
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)d[i] >= 0x80)
                return 1;

    size_t cap, nl = 0, lines_cap = 0;
    if (pyprof__mul_overflows(n, e == ENC_LATIN1 ? 2 : 1, &cap) ||
        pyprof__add_overflows(cap, 2, &cap))
        return 1;
    s->text = pyprof__malloc(cap);
    if (!s->text)
        return PYPROF_ENOMEM;
    size_t o = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)d[i];
        if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < n && d[i + 1] == '\n')
                i++;
            if (PYPROF_GROW(s->line_start, lines_cap, nl + 1) < 0)
                return PYPROF_ENOMEM;
            s->line_start[nl++] = start;
            s->text[o++] = '\0';
            start = o;
            continue;
        }
        if (e == ENC_LATIN1 && c >= 0x80) {
            s->text[o++] = (char)(0xc0 | c >> 6);
            s->text[o++] = (char)(0x80 | (c & 0x3f));
        } else {
            s->text[o++] = (char)c;
        }
    }
    if (o > start) { /* a last line without a newline */
        if (PYPROF_GROW(s->line_start, lines_cap, nl + 1) < 0)
            return PYPROF_ENOMEM;
        s->line_start[nl++] = start;
        s->text[o++] = '\0';
    }
    s->nlines = nl;
    s->state = PYPROF__SRC_LINES;
    return 0;
}

static int
load(pyprof__src_cache *c, const char *path, pyprof__src *s)
{
    char *data = NULL, *found = NULL;
    size_t n;
    int rc;
    const char *open_path = path;

    if (!exists(path)) {
        if (is_notebook_cell(path)) {
            s->state = PYPROF__SRC_EMPTY;
            return 0;
        }
        found = search_roots(c, path, &rc);
        if (!found) {
            s->state = PYPROF__SRC_MISSING;
            return rc;
        }
        open_path = found;
    }
    s->state = PYPROF__SRC_EMPTY;
    /* linecache refuses names like "<string>" even when such a file exists */
    size_t k = strlen(path);
    if (k && path[0] == '<' && path[k - 1] == '>') {
        pyprof__free(found);
        return 0;
    }
    rc = is_regular(open_path) ? slurp_file(open_path, &data, &n) : 1;
    pyprof__free(found);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    rc = decode(s, data, n);
    pyprof__free(data);
    if (rc > 0) { /* undecodable: no lines */
        pyprof__free(s->text);
        pyprof__free(s->line_start);
        s->text = NULL;
        s->line_start = NULL;
        s->nlines = 0;
        s->state = PYPROF__SRC_EMPTY;
        rc = 0;
    }
    return rc;
}

int
pyprof__src_get(pyprof__src_cache *c, pyprof_id file, const char *path, const pyprof__src **out)
{
    *out = NULL;
    if (file >= c->cap) {
        size_t old = c->cap;
        if (PYPROF_GROW(c->by_id, c->cap, (size_t)file + 1) < 0)
            return PYPROF_ENOMEM;
        memset(c->by_id + old, 0, (c->cap - old) * sizeof(*c->by_id));
    }
    if (!c->by_id[file]) {
        pyprof__src *s = pyprof__calloc(1, sizeof(*s));
        if (!s)
            return PYPROF_ENOMEM;
        int rc = load(c, path, s);
        if (rc < 0) {
            src_free(s);
            return rc;
        }
        c->by_id[file] = s;
    }
    *out = c->by_id[file];
    return 0;
}

/* ---- inspect.getblock ------------------------------------------------------------------ */

enum tok {
    T_OTHER,   /* NAME (other than below), NUMBER, STRING, OP, ERRORTOKEN */
    T_AT,      /* OP '@' */
    T_DEFLIKE, /* NAME def / class */
    T_LAMBDA,  /* NAME lambda */
    T_COMMENT,
    T_NL,
    T_NEWLINE,
    T_INDENT,
    T_DEDENT
};

/* inspect.BlockFinder */
struct finder {
    int indent;
    bool islambda, started, passline, indecorator;
    size_t last;    /* 1-based row of the block's last line */
    long body_col0; /* -1 = None */
};

/* Feed one token; returns true at EndOfBlock. */
static bool
eat(struct finder *f, enum tok t, size_t row, long col)
{
    if (!f->started && !f->indecorator) {
        if (t == T_AT) {
            f->indecorator = true;
        } else if (t == T_DEFLIKE || t == T_LAMBDA) {
            if (t == T_LAMBDA)
                f->islambda = true;
            f->started = true;
        }
        f->passline = true;
    } else if (t == T_NEWLINE) {
        f->passline = false;
        f->last = row;
        if (f->islambda)
            return true;
        if (f->indecorator)
            f->indecorator = false;
    } else if (f->passline) {
    } else if (t == T_INDENT) {
        if (f->body_col0 < 0 && f->started)
            f->body_col0 = col; /* the INDENT's end column */
        f->indent++;
        f->passline = true;
    } else if (t == T_DEDENT) {
        f->indent--;
        if (f->indent <= 0)
            return true;
    } else if (t == T_COMMENT) {
        if (f->body_col0 >= 0 && col >= f->body_col0)
            f->last = row;
    } else if (f->indent == 0 && t != T_NL) {
        return true;
    }
    return false;
}

static bool
is_word(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80; /* non-ASCII: Python's \w, near enough */
}

/* Length of a string prefix (r, b, u, f, br, rb, fr, rf in any case) at s
 * that is directly followed by a quote; 0 for a bare quote, -1 if s does
 * not start a string here (s is NUL-terminated). */
static int
string_prefix(const char *s)
{
    size_t k = 0;
    while (k < 2 && s[k] && strchr("rRbBuUfF", s[k]))
        k++;
    if (s[k] != '\'' && s[k] != '"')
        return -1;
    if (k == 2) {
        char a = (char)(s[0] | 0x20), b = (char)(s[1] | 0x20);
        if (!((a == 'r' && (b == 'b' || b == 'f')) || (b == 'r' && (a == 'b' || a == 'f'))))
            return -1;
    }
    return (int)k;
}

struct tokenizer {
    const pyprof__src *src;
    size_t first, row; /* row: 1-based within the block's view */
    const char *line;  /* current line, without its newline */
    size_t len;
    int parenlev;
    bool continued;
    /* a string that runs over several lines */
    char quote;  /* 0 = none */
    bool triple; /* else a 'string' continued by a final backslash */
    long *indents;
    size_t nindents, indents_cap;
};

/* Skip the body of a string from s[i] (just after the opening quote(s));
 * returns the index after the closing quote, or `len` with *open set, and
 * *cont when the line ends in a backslash inside the string. */
static size_t
scan_string(const char *s, size_t i, size_t len, char q, bool triple, bool *open, bool *cont)
{
    *open = true;
    *cont = false;
    while (i < len) {
        if (s[i] == '\\') {
            if (i + 1 == len)
                *cont = true;
            i += 2;
            continue;
        }
        if (s[i] == q && (!triple || (i + 2 < len && s[i + 1] == q && s[i + 2] == q))) {
            *open = false;
            return i + (triple ? 3 : 1);
        }
        i++;
    }
    return len;
}

size_t
pyprof__src_block(const pyprof__src *src, size_t first)
{
    struct finder f = {0, false, false, false, false, 1, -1};
    struct tokenizer t = {0};
    long indents_buf[256];
    size_t avail;

    if (src->state != PYPROF__SRC_LINES || first >= src->nlines)
        return 0;
    avail = src->nlines - first;
    t.indents = indents_buf;
    t.indents_cap = sizeof(indents_buf) / sizeof(indents_buf[0]);
    t.indents[t.nindents++] = 0;

    for (t.row = 1; t.row <= avail; t.row++) {
        const char *s = src->text + src->line_start[first + t.row - 1];
        size_t len = strlen(s), pos = 0;
        size_t row = t.row;

        if (t.quote) { /* inside a string from an earlier line */
            bool open, cont;
            size_t e = scan_string(s, 0, len, t.quote, t.triple, &open, &cont);
            if (open) {
                if (t.triple || cont)
                    continue; /* still inside */
                /* a continued 'string' that neither ends nor continues: an
                 * error token, and tokenize skips the rest of the line */
                t.quote = 0;
                if (eat(&f, T_OTHER, row, 0))
                    break;
                continue;
            }
            pos = e;
            t.quote = 0;
            if (eat(&f, T_OTHER, row, 0))
                break;
        } else if (t.parenlev == 0 && !t.continued) {
            /* a new statement: indentation */
            long column = 0;
            while (pos < len) {
                if (s[pos] == ' ')
                    column++;
                else if (s[pos] == '\t')
                    column = (column / 8 + 1) * 8;
                else if (s[pos] == '\f')
                    column = 0;
                else
                    break;
                pos++;
            }
            if (pos == len || s[pos] == '#') { /* blank or comment line */
                if (pos < len && eat(&f, T_COMMENT, row, (long)pyprof__utf8_length(s, pos)))
                    break;
                if (eat(&f, T_NL, row, 0))
                    break;
                continue;
            }
            if (column > t.indents[t.nindents - 1]) {
                if (t.nindents == t.indents_cap)
                    break; /* absurdly deep: stop, as at an error */
                t.indents[t.nindents++] = column;
                if (eat(&f, T_INDENT, row, (long)pos))
                    break;
            }
            bool stop = false;
            while (column < t.indents[t.nindents - 1]) {
                bool known = false;
                for (size_t k = 0; k < t.nindents; k++)
                    known |= t.indents[k] == column;
                if (!known) { /* IndentationError: getblock keeps what it has */
                    stop = true;
                    break;
                }
                t.nindents--;
                if ((stop = eat(&f, T_DEDENT, row, (long)pos)))
                    break;
            }
            if (stop)
                break;
        } else {
            t.continued = false;
        }

        /* the tokens of the rest of the line */
        bool stop = false;
        while (pos <= len && !stop) {
            while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\f'))
                pos++;
            if (pos == len) { /* the line's end: NEWLINE or NL */
                stop = eat(&f, t.parenlev > 0 ? T_NL : T_NEWLINE, row, (long)pos);
                break;
            }
            unsigned char c = (unsigned char)s[pos];
            if (c == '#') {
                stop = eat(&f, T_COMMENT, row, (long)pyprof__utf8_length(s, pos));
                pos = len; /* then the NEWLINE/NL */
                continue;
            }
            if (c == '\\' && pos + 1 == len) {
                t.continued = true;
                break;
            }
            int pre = is_word(c) || c == '\'' || c == '"' ? string_prefix(s + pos) : -1;
            if (pre >= 0) {
                size_t q = pos + (size_t)pre;
                char quote = s[q];
                bool triple = q + 2 < len && s[q + 1] == quote && s[q + 2] == quote;
                bool open, cont;
                size_t e = scan_string(s, q + (triple ? 3 : 1), len, quote, triple, &open, &cont);
                if (!open) { /* STRING */
                    stop = eat(&f, T_OTHER, row, (long)pos);
                    pos = e;
                    continue;
                }
                if (triple || cont) { /* the string goes on over the next lines */
                    t.quote = quote;
                    t.triple = triple;
                    break;
                }
                /* unterminated 'string': prefix NAME and ERRORTOKEN quote */
                stop = eat(&f, T_OTHER, row, (long)pos);
                pos = q + 1;
                continue;
            }
            if (is_word(c)) {
                size_t e = pos;
                while (e < len && is_word((unsigned char)s[e]))
                    e++;
                enum tok kind = T_OTHER;
                if (!(c >= '0' && c <= '9')) {
                    size_t n = e - pos;
                    if ((n == 3 && memcmp(s + pos, "def", 3) == 0) ||
                        (n == 5 && memcmp(s + pos, "class", 5) == 0))
                        kind = T_DEFLIKE;
                    else if (n == 6 && memcmp(s + pos, "lambda", 6) == 0)
                        kind = T_LAMBDA;
                }
                stop = eat(&f, kind, row, (long)pos);
                pos = e;
                continue;
            }
            if (c == '(' || c == '[' || c == '{')
                t.parenlev++;
            else if (c == ')' || c == ']' || c == '}')
                t.parenlev--;
            enum tok kind = (c == '@' && (pos + 1 >= len || s[pos + 1] != '=')) ? T_AT : T_OTHER;
            stop = eat(&f, kind, row, (long)pos);
            pos++;
            if (kind == T_OTHER && c == '@')
                pos++; /* "@=" */
        }
        if (stop)
            break;
    }
    return f.last <= avail ? f.last : avail;
}
