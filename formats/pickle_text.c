/*
 * pickle_text.c - the text arguments of pickle protocol 0 (formats/pickle.h).
 *
 * INT/LONG/PUT/GET carry decimal text, UNICODE carries raw-unicode-escape
 * (\uXXXX escapes, other bytes Latin-1) and STRING a quoted Python 2 str
 * literal with backslash escapes (codecs.escape_decode).  Decoded strings
 * go to the machine's string pool.
 */
#include "config.h"

#include "pickle_int.h"

/* Decimal text as Python's int() takes it from INT/LONG/PUT/GET: optional
 * blanks and sign, digits, for LONG an optional trailing 'L'. */
int
pyprof__pk_parse_decimal(pyprof__pickle *pk, const char *s, size_t n, bool allow_l, int64_t *out)
{
    size_t i = 0, end = n;
    bool neg = false;
    uint64_t v = 0, lim;
    while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
        end--;
    if (allow_l && end > 0 && s[end - 1] == 'L')
        end--;
    while (i < end && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < end && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == end)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "'%.*s' is not a decimal integer",
                               (int)(n > 40 ? 40 : n), s);
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < end; i++) {
        if (s[i] < '0' || s[i] > '9')
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "'%.*s' is not a decimal integer",
                                   (int)(n > 40 ? 40 : n), s);
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "integer does not fit in 64 bits");
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int
pool_put(pyprof__pickle *pk, const void *s, size_t n)
{
    if (PYPROF_GROW(pk->pool, pk->pool_cap, pk->npool + n) < 0)
        return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
    if (n)
        memcpy(pk->pool + pk->npool, s, n);
    pk->npool += n;
    return 0;
}

static int
pool_put_utf8(pyprof__pickle *pk, uint32_t cp)
{
    unsigned char b[4];
    size_t n;
    if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 0xfffd; /* a lone surrogate has no UTF-8 form */
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xc0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return pool_put(pk, b, n);
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int
push_pooled(pyprof__pickle *pk, int type, size_t start)
{
    pyprof__pk_id id = 0;
    size_t n = pk->npool - start;
    if (n > UINT32_MAX)
        return pyprof__pk_fail(pk, PYPROF_ELIMIT, "string of %zu bytes is too long", n);
    int rc = pyprof__pk_new_node(pk, &id, type);
    if (rc < 0)
        return rc;
    pk->nodes[id].sub = PK_IN_POOL;
    pk->nodes[id].len = (uint32_t)n;
    pk->nodes[id].u.at = start;
    return pyprof__pk_push(pk, id);
}

/* UNICODE (protocol 0): raw-unicode-escape.  A backslash run of odd length
 * followed by u/U starts an escape of 4/8 hex digits; every other byte is a
 * Latin-1 code point.  Surrogate pairs (narrow Python 2 builds) are joined. */
int
pyprof__pk_push_raw_unicode(pyprof__pickle *pk, const char *s, size_t n)
{
    size_t start = pk->npool;
    uint32_t high = 0; /* a pending high surrogate */
    int rc;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        if (s[i] == '\\') {
            size_t run = 0;
            while (i + run < n && s[i + run] == '\\')
                run++;
            bool escape = (run & 1) && i + run < n && (s[i + run] == 'u' || s[i + run] == 'U');
            size_t plain = escape ? run - 1 : run;
            if (plain && high) {
                if ((rc = pool_put_utf8(pk, high)) < 0)
                    return rc;
                high = 0;
            }
            for (size_t k = 0; k < plain; k++)
                if ((rc = pool_put(pk, "\\", 1)) < 0)
                    return rc;
            i += run;
            if (!escape)
                continue;
            size_t digits = s[i] == 'u' ? 4 : 8;
            i++;
            if (n - i < digits)
                return pyprof__pk_fail(pk, PYPROF_EFORMAT, "truncated \\u escape in the text");
            cp = 0;
            for (size_t k = 0; k < digits; k++) {
                int h = hexval((unsigned char)s[i + k]);
                if (h < 0)
                    return pyprof__pk_fail(pk, PYPROF_EFORMAT, "bad \\u escape in the text");
                cp = cp << 4 | (uint32_t)h;
            }
            i += digits;
            if (cp > 0x10ffff)
                return pyprof__pk_fail(pk, PYPROF_EFORMAT, "\\U escape beyond U+10FFFF");
        } else {
            cp = (unsigned char)s[i++];
        }
        if (high) {
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                cp = 0x10000 + ((high - 0xd800) << 10) + (cp - 0xdc00);
                high = 0;
            } else {
                if ((rc = pool_put_utf8(pk, high)) < 0)
                    return rc;
                high = 0;
            }
        }
        if (cp >= 0xd800 && cp <= 0xdbff) {
            high = cp;
            continue;
        }
        if ((rc = pool_put_utf8(pk, cp)) < 0)
            return rc;
    }
    if (high && (rc = pool_put_utf8(pk, high)) < 0)
        return rc;
    return push_pooled(pk, PYPROF__PK_STR, start);
}

/* STRING (protocol 0): a quoted Python 2 str literal, decoded as Python's
 * codecs.escape_decode does. */
int
pyprof__pk_push_quoted(pyprof__pickle *pk, const char *s, size_t n)
{
    size_t start = pk->npool;
    int rc;
    if (n < 2 || s[0] != s[n - 1] || (s[0] != '\'' && s[0] != '"'))
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "the argument must be a quoted string");
    s++;
    n -= 2;
    for (size_t i = 0; i < n;) {
        char c = s[i++];
        if (c != '\\') {
            if ((rc = pool_put(pk, &c, 1)) < 0)
                return rc;
            continue;
        }
        if (i == n)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "trailing \\ in the string");
        c = s[i++];
        char out;
        switch (c) {
        case '\n':
            continue; /* line continuation */
        case '\\':
            out = '\\';
            break;
        case '\'':
            out = '\'';
            break;
        case '"':
            out = '"';
            break;
        case 'a':
            out = '\a';
            break;
        case 'b':
            out = '\b';
            break;
        case 'f':
            out = '\f';
            break;
        case 'n':
            out = '\n';
            break;
        case 'r':
            out = '\r';
            break;
        case 't':
            out = '\t';
            break;
        case 'v':
            out = '\v';
            break;
        case 'x': {
            int h1 = i < n ? hexval((unsigned char)s[i]) : -1;
            int h2 = i + 1 < n ? hexval((unsigned char)s[i + 1]) : -1;
            if (h1 < 0 || h2 < 0)
                return pyprof__pk_fail(pk, PYPROF_EFORMAT, "invalid \\x escape in the string");
            out = (char)(h1 << 4 | h2);
            i += 2;
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                unsigned v = (unsigned)(c - '0');
                for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
                    v = v * 8 + (unsigned)(s[i++] - '0');
                out = (char)(v & 0xff);
            } else {
                /* unknown escapes keep their backslash */
                if ((rc = pool_put(pk, "\\", 1)) < 0)
                    return rc;
                out = c;
            }
        }
        if ((rc = pool_put(pk, &out, 1)) < 0)
            return rc;
    }
    return push_pooled(pk, PYPROF__PK_BYTES, start);
}
