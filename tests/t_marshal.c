/*
 * t_marshal.c - the marshal decoder on hand-built byte strings: every type
 * code, FLAG_REF numbering and 'r', Python 2 't'/'R', longs (the 2^40
 * example of the spec, int64 edges, beyond 64 bits), text floats, the four
 * code-object layouts; and bad input: unknown codes, bad references, huge
 * counts, a depth bomb, every truncation and many corruptions of a real
 * fixture, each an error with an offset and never a crash.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>

#include "marshal.h"
#include "pyprof_int.h"
#include "tap.h"

/* ---- a byte builder -------------------------------------------------------- */

typedef struct buf {
    unsigned char b[4096];
    size_t n;
} buf;

static void
put(buf *b, const void *p, size_t n)
{
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void
put_u8(buf *b, unsigned v)
{
    b->b[b->n++] = (unsigned char)v;
}
static void
put_i32(buf *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        put_u8(b, (u >> (8 * i)) & 0xFF);
}
/* a string object: code + i32 or u8 length + bytes */
static void
put_str(buf *b, char code, const char *s)
{
    put_u8(b, (unsigned char)code);
    if (code == 'z' || code == 'Z')
        put_u8(b, (unsigned)strlen(s));
    else
        put_i32(b, (int32_t)strlen(s));
    put(b, s, strlen(s));
}

static int
load(pyprof__marshal_doc *d, const void *bytes, size_t n, bool keys)
{
    pyprof__marshal_options o = {0, keys};
    return pyprof__marshal_load(d, bytes, n, &o);
}

static const pyprof__mobj *
top(const pyprof__marshal_doc *d)
{
    return pyprof__marshal_obj(d, d->top);
}

static const pyprof__mobj *
kid(const pyprof__marshal_doc *d, const pyprof__mobj *o, size_t k)
{
    return pyprof__marshal_obj(d, pyprof__marshal_kid(d, o, k));
}

/* Decode `n` bytes expecting one object of `kind` that ends the input;
 * returns it (NULL after a failed check).  The caller frees the doc. */
static const pyprof__mobj *
load_one(pyprof__marshal_doc *d, const void *bytes, size_t n, int kind, const char *name)
{
    int rc = load(d, bytes, n, false);
    if (!TAP_OK(rc == 0 && top(d)->kind == kind && d->end == n, "%s", name)) {
        tap_diag("  rc %d kind %d end %zu: %s", rc, rc == 0 ? top(d)->kind : -1, d->end,
                 d->err_msg);
        return NULL;
    }
    return top(d);
}
#define LOAD_ONE(d, bytes, n, kind, name) load_one(&(d), bytes, n, kind, name)

static void
test_scalars(void)
{
    static const struct {
        const char *bytes;
        size_t n;
        int kind;
        long long i;
        const char *name;
    } cases[] = {
        {"N", 1, PYPROF__M_NONE, 0, "N is None"},
        {"F", 1, PYPROF__M_BOOL, 0, "F is False"},
        {"T", 1, PYPROF__M_BOOL, 1, "T is True"},
        {"S", 1, PYPROF__M_STOPITER, 0, "S is StopIteration"},
        {".", 1, PYPROF__M_ELLIPSIS, 0, ". is Ellipsis"},
        {"i\x05\x00\x00\x00", 5, PYPROF__M_INT, 5, "i 5"},
        {"i\xff\xff\xff\xff", 5, PYPROF__M_INT, -1, "i is sign-extended (-1)"},
        {"I\x00\x00\x00\x00\x00\x01\x00\x00", 9, PYPROF__M_INT, 1LL << 40, "I int64 2^40"},
        {"I\xff\xff\xff\xff\xff\xff\xff\xff", 9, PYPROF__M_INT, -1, "I int64 -1"},
        /* the spec's example: 2^40 = digits 0, 0, 1024 */
        {"l\x03\x00\x00\x00\x00\x00\x00\x00\x00\x04", 11, PYPROF__M_INT, 1LL << 40, "l long 2^40"},
        {"l\xfd\xff\xff\xff\x00\x00\x00\x00\x00\x04", 11, PYPROF__M_INT, -(1LL << 40),
         "l long -2^40 (negative digit count)"},
        {"l\x00\x00\x00\x00", 5, PYPROF__M_INT, 0, "l long 0 has no digits"},
        /* 2^63-1 = digits 0x7fff x4 + 7 */
        {"l\x05\x00\x00\x00\xff\x7f\xff\x7f\xff\x7f\xff\x7f\x07\x00", 15, PYPROF__M_INT, INT64_MAX,
         "l long 2^63-1 fits"},
        /* 2^63 does not */
        {"l\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00", 15, PYPROF__M_BIGINT, 0,
         "l long 2^63 is beyond int64"},
        {"l\xfb\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00", 15, PYPROF__M_INT, INT64_MIN,
         "l long -2^63 fits"},
        {"l\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00", 17, PYPROF__M_BIGINT,
         0, "l long 2^75 is kept as a big int"},
        {"y\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x00", 17, PYPROF__M_COMPLEX,
         0, "y binary complex"},
        {"x\x03"
         "1.5\x01"
         "0",
         7, PYPROF__M_COMPLEX, 0, "x text complex"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pyprof__marshal_doc d;
        const pyprof__mobj *o =
            LOAD_ONE(d, cases[k].bytes, cases[k].n, cases[k].kind, cases[k].name);
        if (o && (o->kind == PYPROF__M_INT || o->kind == PYPROF__M_BOOL) && o->u.i != cases[k].i)
            TAP_IS_INT(o->u.i, cases[k].i, "  and its value");
        pyprof__marshal_free(&d);
    }

    static const struct {
        const char *bytes;
        size_t n;
        double v;
        const char *name;
    } floats[] = {
        {"g\x00\x00\x00\x00\x00\x00\xf8\x3f", 9, 1.5, "g binary float 1.5 (little-endian)"},
        {"g\x00\x00\x00\x00\x00\x00\x00\x80", 9, -0.0, "g binary float -0.0"},
        {"f\x04"
         "0.25",
         6, 0.25, "f text float 0.25"},
        {"f\x13"
         "0.10000000000000001",
         21, 0.1, "f text float repr of 0.1"},
        {"f\x03inf", 5, HUGE_VAL, "f text float inf"},
        {"f\x04-inf", 6, -HUGE_VAL, "f text float -inf"},
        {"f\x02-0", 4, -0.0, "f text float -0"},
    };
    for (size_t k = 0; k < sizeof floats / sizeof floats[0]; k++) {
        pyprof__marshal_doc d;
        const pyprof__mobj *o =
            LOAD_ONE(d, floats[k].bytes, floats[k].n, PYPROF__M_FLOAT, floats[k].name);
        if (o && memcmp(&o->u.d, &floats[k].v, sizeof(double)) != 0)
            TAP_IS_DBL(o->u.d, floats[k].v, 0, "  and its value");
        pyprof__marshal_free(&d);
    }
    pyprof__marshal_doc d;
    const pyprof__mobj *o = LOAD_ONE(d, "f\x03nan", 5, PYPROF__M_FLOAT, "f text float nan");
    TAP_OK(o && isnan(o->u.d), "  is a NaN");
    pyprof__marshal_free(&d);
}

static void
test_strings(void)
{
    static const struct {
        const char *bytes;
        size_t n;
        int kind;
        const char *text;
    } cases[] = {
        {"s\x03\x00\x00\x00"
         "abc",
         8, PYPROF__M_BYTES, "abc"},
        {"u\x04\x00\x00\x00"
         "\xc3\xa9t\xc3",
         9, PYPROF__M_STR, "\xc3\xa9t\xc3"},
        {"a\x02\x00\x00\x00"
         "hi",
         7, PYPROF__M_STR, "hi"},
        {"A\x02\x00\x00\x00"
         "hi",
         7, PYPROF__M_STR, "hi"},
        {"z\x03"
         "fib",
         5, PYPROF__M_STR, "fib"},
        {"Z\x03"
         "fib",
         5, PYPROF__M_STR, "fib"},
        {"z\x00", 2, PYPROF__M_STR, ""},
        /* 't' as the first string and no FLAG_REF: a Python 2 stream */
        {"t\x03\x00\x00\x00"
         "fib",
         8, PYPROF__M_BYTES, "fib"},
        /* 't' after FLAG_REF: Python 3's interned text */
        {"\xf4\x03\x00\x00\x00"
         "fib",
         8, PYPROF__M_STR, "fib"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pyprof__marshal_doc d;
        char name[64];
        snprintf(name, sizeof name, "string code '%c'%s", cases[k].bytes[0] & 0x7F,
                 (cases[k].bytes[0] & 0x80) ? " with FLAG_REF" : "");
        const pyprof__mobj *o = LOAD_ONE(d, cases[k].bytes, cases[k].n, cases[k].kind, name);
        if (o)
            TAP_OK(o->len == strlen(cases[k].text) &&
                       memcmp(pyprof__marshal_str(&d, o), cases[k].text, o->len) == 0,
                   "  holds '%s'", cases[k].text);
        pyprof__marshal_free(&d);
    }
}

static void
test_containers(void)
{
    pyprof__marshal_doc d;
    const pyprof__mobj *o;

    o = LOAD_ONE(d, "(\x02\x00\x00\x00i\x01\x00\x00\x00N", 11, PYPROF__M_TUPLE, "( tuple");
    TAP_OK(o && o->len == 2 && kid(&d, o, 0)->u.i == 1 && kid(&d, o, 1)->kind == PYPROF__M_NONE,
           "  of (1, None)");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d,
                 ")\x02z\x01"
                 "az\x01"
                 "b",
                 8, PYPROF__M_TUPLE, ") small tuple");
    TAP_OK(o && o->len == 2, "  of two");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d, ")\x00", 2, PYPROF__M_TUPLE, "empty small tuple");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d, "[\x01\x00\x00\x00T", 6, PYPROF__M_LIST, "[ list");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d, "<\x01\x00\x00\x00i\x07\x00\x00\x00", 10, PYPROF__M_SET, "< set");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d, ">\x00\x00\x00\x00", 5, PYPROF__M_FROZENSET, "> frozenset");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d, ":NNi\x02\x00\x00\x00", 8, PYPROF__M_SLICE, ": slice (version 5)");
    TAP_OK(o && o->len == 3, "  has 3 parts");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d,
                 "{z\x01"
                 "ai\x01\x00\x00\x00z\x01"
                 "bi\x02\x00\x00\x00"
                 "0",
                 18, PYPROF__M_DICT, "{ dict until '0'");
    TAP_OK(o && o->len == 2 && kid(&d, o, 3)->u.i == 2, "  of 2 pairs, values in order");
    pyprof__marshal_free(&d);
    o = LOAD_ONE(d, "{0", 2, PYPROF__M_DICT, "empty dict");
    TAP_OK(o && o->len == 0, "  has no pairs");
    pyprof__marshal_free(&d);
}

static void
test_refs(void)
{
    pyprof__marshal_doc d;
    const pyprof__mobj *o;
    /* list (slot 0) of: int 5 (slot 1), a reference to slot 1, a string
     * without the flag, a flagged string (slot 2), a reference to slot 2 */
    static const char b1[] = "\xdb\x05\x00\x00\x00"
                             "\xe9\x05\x00\x00\x00"
                             "r\x01\x00\x00\x00"
                             "z\x01x"
                             "\xda\x01y"
                             "r\x02\x00\x00\x00";
    o = LOAD_ONE(d, b1, sizeof b1 - 1, PYPROF__M_LIST, "FLAG_REF list with references");
    if (o) {
        TAP_OK(pyprof__marshal_kid(&d, o, 0) == pyprof__marshal_kid(&d, o, 1),
               "r 1 is the flagged int (slots numbered pre-order, the list is 0)");
        TAP_OK(pyprof__marshal_kid(&d, o, 3) == pyprof__marshal_kid(&d, o, 4),
               "r 2 is the second flagged object, unflagged ones take no slot");
        TAP_OK(d.flag_ref_seen && d.dialect == PYPROF__MDIALECT_PY3, "stream is Python 3");
    }
    pyprof__marshal_free(&d);

    /* the same key tuple shared by reference, as cProfile dumps do */
    static const char b2[] = "\xfb\xa9\x03\xda\x01"
                             "a"
                             "\xe9\x01\x00\x00\x00\xda\x01"
                             "f"
                             "i\x00\x00\x00\x00"
                             "r\x01\x00\x00\x00"
                             "i\x01\x00\x00\x00"
                             "0";
    o = LOAD_ONE(d, b2, sizeof b2 - 1, PYPROF__M_DICT, "dict whose second key refers to the first");
    TAP_OK(o && o->len == 2 && pyprof__marshal_kid(&d, o, 0) == pyprof__marshal_kid(&d, o, 2),
           "  both keys are one object");
    pyprof__marshal_free(&d);

    /* Python 2: 't' appends to the interned list, 'R n' fetches from it */
    static const char b3[] = "(\x03\x00\x00\x00t\x03\x00\x00\x00"
                             "fibs\x01\x00\x00\x00"
                             "x"
                             "R\x00\x00\x00\x00";
    o = LOAD_ONE(d, b3, sizeof b3 - 1, PYPROF__M_TUPLE, "Python 2 t / R interning");
    if (o) {
        TAP_OK(d.dialect == PYPROF__MDIALECT_PY2, "  stream is Python 2");
        TAP_OK(pyprof__marshal_kid(&d, o, 0) == pyprof__marshal_kid(&d, o, 2),
               "  R 0 is the first t string");
        TAP_OK(kid(&d, o, 0)->kind == PYPROF__M_BYTES, "  Python 2 t strings are bytes");
    }
    pyprof__marshal_free(&d);

    /* a Python 2 unicode string first: 'u' decides nothing, 't' then does */
    static const char b4[] = "(\x03\x00\x00\x00u\x01\x00\x00\x00"
                             "at\x01\x00\x00\x00"
                             "b"
                             "R\x00\x00\x00\x00";
    o = LOAD_ONE(d, b4, sizeof b4 - 1, PYPROF__M_TUPLE, "Python 2 stream starting with 'u'");
    TAP_OK(o && d.dialect == PYPROF__MDIALECT_PY2 &&
               pyprof__marshal_kid(&d, o, 1) == pyprof__marshal_kid(&d, o, 2),
           "  is still Python 2, and R finds the t string");
    pyprof__marshal_free(&d);
}

/* ---- code objects --------------------------------------------------------- */

/* A minimal code object of `layout` named `name` in `file`, line `line`. */
static void
put_code(buf *b, int layout, const char *file, const char *name, int32_t line, bool py2)
{
    int longs = layout == PYPROF__MCODE_PY27 ? 4 : layout == PYPROF__MCODE_PY38 ? 6 : 5;
    char sc = py2 ? 's' : 'z';
    put_u8(b, py2 ? 'c' : 0xE3);
    for (int k = 0; k < longs; k++)
        put_i32(b, k == longs - 1 ? 0x40 : 0);
    put_str(b, 's', "d\x00S\x00");   /* code */
    put(b, "(\x01\x00\x00\x00N", 6); /* consts */
    put(b, "(\x00\x00\x00\x00", 5);  /* names */
    if (layout == PYPROF__MCODE_PY311) {
        put(b, "(\x00\x00\x00\x00", 5); /* localsplusnames */
        put_str(b, 's', "");            /* localspluskinds: bytes */
    } else {
        put(b, "(\x00\x00\x00\x00", 5); /* varnames */
        put(b, "(\x00\x00\x00\x00", 5); /* freevars */
        put(b, "(\x00\x00\x00\x00", 5); /* cellvars */
    }
    put_str(b, sc, file);
    put_str(b, sc, name);
    if (layout == PYPROF__MCODE_PY311)
        put_str(b, sc, name); /* qualname */
    put_i32(b, line);
    put_str(b, 's', "\x00\x01"); /* lnotab / linetable */
    if (layout == PYPROF__MCODE_PY311)
        put_str(b, 's', ""); /* exceptiontable */
}

static void
test_code(void)
{
    static const struct {
        int layout;
        bool py2;
        const char *name;
    } layouts[] = {
        {PYPROF__MCODE_PY27, true, "Python 2.7 layout"},
        {PYPROF__MCODE_PY30, false, "Python 3.0-3.7 layout"},
        {PYPROF__MCODE_PY38, false, "Python 3.8-3.10 layout"},
        {PYPROF__MCODE_PY311, false, "Python 3.11+ layout"},
    };
    for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        buf b = {.n = 0};
        /* key ('profile', 0, <code>) */
        put(&b, "(\x03\x00\x00\x00", 5);
        put_str(&b, layouts[k].py2 ? 's' : 'z', "profile");
        put(&b, "i\x00\x00\x00\x00", 5);
        size_t code_at = b.n;
        put_code(&b, layouts[k].layout, "prog.py", "<module>", 3, layouts[k].py2);
        pyprof__marshal_doc d;
        int rc = load(&d, b.b, b.n, true);
        TAP_OK(rc == 0 && d.end == b.n, "code object in a key, %s", layouts[k].name);
        if (rc == 0) {
            const pyprof__mobj *c = kid(&d, top(&d), 2);
            TAP_OK(c->kind == PYPROF__M_CODE && c->layout == layouts[k].layout &&
                       c->u.code.line == 3,
                   "  detected layout %d, line %d", c->layout, (int)c->u.code.line);
            const pyprof__mobj *f = kid(&d, c, 0), *n = kid(&d, c, 1);
            TAP_OK(f->len == 7 && !memcmp(pyprof__marshal_str(&d, f), "prog.py", 7) &&
                       n->len == 8 && !memcmp(pyprof__marshal_str(&d, n), "<module>", 8),
                   "  filename and name extracted");
        } else {
            tap_diag("  %s at %llu", d.err_msg, (unsigned long long)d.err_pos);
        }
        pyprof__marshal_free(&d);

        /* the same bytes where a key is not expected */
        rc = load(&d, b.b, b.n, false);
        TAP_OK(rc == PYPROF_EFORMAT && strstr(d.err_msg, "code object") && d.err_pos == code_at,
               "  refused outside a key: offset %llu: %s", (unsigned long long)d.err_pos,
               d.err_msg);
        pyprof__marshal_free(&d);
    }

    /* a code object as the value of a dict, not in a key */
    buf b = {.n = 0};
    put(&b,
        "{z\x01"
        "k",
        4);
    put_code(&b, PYPROF__MCODE_PY311, "a.py", "f", 1, false);
    put_u8(&b, '0');
    pyprof__marshal_doc d;
    TAP_IS_INT(load(&d, b.b, b.n, true), PYPROF_EFORMAT, "code object as a dict value refused");
    pyprof__marshal_free(&d);

    /* code objects nested in each other's consts: 64 levels are read, 65
     * are refused (they are the one part of the parse that recurses) */
    for (int levels = 64; levels <= 65; levels++) {
        static unsigned char deep[65 * 80 + 64];
        size_t n = 0;
        static const char key[] = "(\x03\x00\x00\x00z\x01"
                                  "ai\x00\x00\x00\x00";
        memcpy(deep, key, sizeof key - 1);
        n = sizeof key - 1;
        for (int l = 0; l < levels; l++) {
            deep[n++] = 0xE3;
            memset(deep + n, 0, 20); /* 5 longs */
            n += 20;
            memcpy(deep + n, "s\x00\x00\x00\x00", 5); /* code */
            n += 5;
            memcpy(deep + n, l + 1 < levels ? "(\x01\x00\x00\x00" : "(\x00\x00\x00\x00", 5);
            n += 5; /* consts: the next level, or nothing */
        }
        /* close every level, innermost first: names, localsplusnames,
         * localspluskinds, filename, name, qualname, line, two tables */
        static const char tail[] = "(\x00\x00\x00\x00(\x00\x00\x00\x00s\x00\x00\x00\x00"
                                   "z\x01"
                                   "fz\x01"
                                   "gz\x01"
                                   "g\x01\x00\x00\x00"
                                   "s\x00\x00\x00\x00s\x00\x00\x00\x00";
        unsigned char *big = malloc(n + levels * (sizeof tail - 1));
        memcpy(big, deep, n);
        for (int l = 0; l < levels; l++, n += sizeof tail - 1)
            memcpy(big + n, tail, sizeof tail - 1);
        int rc = load(&d, big, n, true);
        if (levels == 64)
            TAP_OK(rc == 0 && d.end == n, "64 nested code objects are read");
        else
            TAP_OK(rc == PYPROF_ELIMIT && strstr(d.err_msg, "code objects nested deeper"),
                   "65 nested code objects are refused: %s", d.err_msg);
        pyprof__marshal_free(&d);
        free(big);
    }

    /* a code object fitting no layout */
    b.n = 0;
    put(&b,
        ")\x03z\x01"
        "ai\x00\x00\x00\x00\xe3",
        12);
    for (int k = 0; k < 5; k++)
        put_i32(&b, 0);
    put(&b, "NNNNNNNNNNNNNNNNNNNNN", 21);
    int rc = load(&d, b.b, b.n, true);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(d.err_msg, "no known layout"), "garbage code object: %s",
           d.err_msg);
    pyprof__marshal_free(&d);
}

/* ---- bad input ------------------------------------------------------------ */

static void
expect_error(const void *bytes, size_t n, int code, uint64_t pos, const char *what,
             const char *name)
{
    pyprof__marshal_doc d;
    int rc = load(&d, bytes, n, true);
    if (!TAP_OK(rc == code && d.err_pos == pos && strstr(d.err_msg, what), "%s", name))
        tap_diag("  rc %d, offset %llu: %s", rc, (unsigned long long)d.err_pos, d.err_msg);
    pyprof__marshal_free(&d);
}

static void
test_bad(void)
{
    expect_error("", 0, PYPROF_EFORMAT, 0, "unexpected end", "empty input");
    expect_error("?", 1, PYPROF_EFORMAT, 0, "unknown type code 0x3f", "'?' (a failed dump)");
    expect_error("(\x01\x00\x00\x00q", 6, PYPROF_EFORMAT, 5, "unknown type code 0x71",
                 "unknown code inside a tuple, at its offset");
    expect_error("\x01", 1, PYPROF_EFORMAT, 0, "unknown type code", "control byte");
    expect_error("0", 1, PYPROF_EFORMAT, 0, "NULL", "NULL at the top");
    expect_error(")\x01"
                 "0",
                 3, PYPROF_EFORMAT, 2, "NULL", "NULL inside a tuple");
    expect_error("{z\x01"
                 "a0",
                 5, PYPROF_EFORMAT, 4, "without a value", "dict key with NULL value");
    expect_error("r\x00\x00\x00\x00", 5, PYPROF_EFORMAT, 1, "out of range", "r with no slots");
    expect_error(")\x02\xe9\x01\x00\x00\x00r\x01\x00\x00\x00", 12, PYPROF_EFORMAT, 8,
                 "out of range", "r one past the last slot");
    expect_error(")\x01r\xff\xff\xff\xff", 7, PYPROF_EFORMAT, 3, "out of range", "r negative");
    expect_error("\xdb\x01\x00\x00\x00r\x00\x00\x00\x00", 10, PYPROF_EFORMAT, 6, "still being read",
                 "r to the list that contains it");
    expect_error("\xf2\x00\x00\x00\x00", 5, PYPROF_EFORMAT, 0, "FLAG_REF on a back-reference",
                 "FLAG_REF on r");
    expect_error(")\x02z\x01"
                 "aR\x00\x00\x00\x00",
                 10, PYPROF_EFORMAT, 5, "Python 3 stream", "R in a Python 3 stream");
    expect_error("(\x01\x00\x00\x00R\x00\x00\x00\x00", 10, PYPROF_EFORMAT, 6, "out of range",
                 "R before any t");
    expect_error("(\xff\xff\xff\x7f", 5, PYPROF_EFORMAT, 1, "more than the 0 bytes left",
                 "tuple of 2^31-1 elements in 5 bytes");
    expect_error("[\xff\xff\xff\xff", 5, PYPROF_EFORMAT, 1, "negative size", "negative list size");
    expect_error("s\x00\x00\x00\x40xyz", 8, PYPROF_EFORMAT, 1, "more than the 3 bytes left",
                 "string of 1 GiB in 8 bytes");
    expect_error("z\x05"
                 "ab",
                 4, PYPROF_EFORMAT, 4, "unexpected end", "short string truncated");
    expect_error("l\xff\xff\xff\x7f", 5, PYPROF_EFORMAT, 1, "more than the bytes left",
                 "long of 2^31 digits");
    expect_error("l\x00\x00\x00\x80", 5, PYPROF_EFORMAT, 1, "out of range", "long size INT_MIN");
    expect_error("l\x01\x00\x00\x00\x00\x80", 7, PYPROF_EFORMAT, 5, "digit out of range",
                 "long digit >= 2^15");
    expect_error("l\x02\x00\x00\x00\x01\x00\x00\x00", 9, PYPROF_EFORMAT, 7, "unnormalized",
                 "long with a zero top digit");
    expect_error("f\x03"
                 "abc",
                 5, PYPROF_EFORMAT, 1, "bad text float", "text float 'abc'");
    expect_error("f\x00", 2, PYPROF_EFORMAT, 1, "bad text float", "empty text float");
    expect_error("f\x09"
                 "1.5",
                 5, PYPROF_EFORMAT, 5, "unexpected end", "text float truncated");
    expect_error("g\x00\x00", 3, PYPROF_EFORMAT, 3, "unexpected end", "binary float truncated");
    expect_error("{z\x01"
                 "aN",
                 5, PYPROF_EFORMAT, 5, "unexpected end", "dict without its '0'");

    /* nesting: 1 000 000 one-element tuples (CPython stops at 2000) */
    size_t depth = 1000000, n = 2 * depth + 1;
    unsigned char *bomb = malloc(n);
    for (size_t k = 0; k < depth; k++) {
        bomb[2 * k] = ')';
        bomb[2 * k + 1] = 1;
    }
    bomb[n - 1] = 'N';
    expect_error(bomb, n, PYPROF_ELIMIT, 2 * 2001, "deeper than 2000",
                 "depth bomb of a million tuples stops at 2000");
    pyprof__marshal_doc d;
    pyprof__marshal_options o = {10, false};
    TAP_IS_INT(pyprof__marshal_load(&d, bomb + 2 * (depth - 10), 21, &o), 0,
               "10 levels pass max_depth 10");
    pyprof__marshal_free(&d);
    TAP_IS_INT(pyprof__marshal_load(&d, bomb + 2 * (depth - 11), 23, &o), PYPROF_ELIMIT,
               "11 levels fail max_depth 10");
    pyprof__marshal_free(&d);
    /* a dict nesting bomb too: {'': {'': {...}}}, each level 3 bytes; the
     * key of the dict at depth 2000 is the first object too deep */
    for (size_t k = 0; k + 3 <= n; k += 3)
        memcpy(bomb + k, "{z\x00", 3);
    expect_error(bomb, 3000 * 3, PYPROF_ELIMIT, 3 * 2000 + 1, "deeper", "dict nesting bomb");
    free(bomb);
}

/* Nesting costs heap, not C stack: a million nested tuples, allowed by
 * max_depth, decode in a thread with a 128 KiB stack. */
struct deep_job {
    const unsigned char *bytes;
    size_t n;
    int rc;
};

static void *
deep_thread(void *arg)
{
    struct deep_job *job = arg;
    pyprof__marshal_doc d;
    pyprof__marshal_options o = {2000000, false};
    job->rc = pyprof__marshal_load(&d, job->bytes, job->n, &o);
    pyprof__marshal_free(&d);
    return NULL;
}

static void
test_small_stack(void)
{
    size_t depth = 1000000, n = 2 * depth + 1;
    unsigned char *bomb = malloc(n);
    for (size_t k = 0; k < depth; k++) {
        bomb[2 * k] = ')';
        bomb[2 * k + 1] = 1;
    }
    bomb[n - 1] = 'N';
    struct deep_job job = {bomb, n, -100};
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 128 * 1024);
    int started = pthread_create(&t, &attr, deep_thread, &job) == 0;
    if (started)
        pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    TAP_OK(started && job.rc == 0, "a million nested tuples decode on a 128 KiB thread stack");
    free(bomb);
}

/* Every prefix of a real file is an error (not a crash), with an offset
 * inside the input; and single-byte corruptions never crash. */
static void
test_fixture_damage(const char *rel)
{
    FILE *f = fopen(tap_fixture(rel), "rb");
    if (!TAP_OK(f != NULL, "open fixture %s", rel))
        return;
    unsigned char *data = malloc(1 << 20);
    size_t n = fread(data, 1, 1 << 20, f);
    fclose(f);
    pyprof__marshal_doc d;
    TAP_IS_INT(load(&d, data, n, true), 0, "whole fixture decodes");
    TAP_IS_INT(d.end, n, "  and ends at the end");
    pyprof__marshal_free(&d);

    size_t bad = 0;
    for (size_t cut = 0; cut < n; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
        memcpy(copy, data, cut);
        int rc = load(&d, copy, cut, true);
        if (rc != PYPROF_EFORMAT || d.err_pos > cut) {
            if (bad++ < 3)
                tap_diag("  cut %zu: rc %d offset %llu: %s", cut, rc, (unsigned long long)d.err_pos,
                         d.err_msg);
        }
        pyprof__marshal_free(&d);
        free(copy);
    }
    TAP_IS_INT(bad, 0, "every one of the truncations is a format error within the input");

    size_t crashes_would_show = 0, ok = 0;
    static const unsigned char subst[] = {0x00, 0xFF, 0x7F, 0x80, 'r', '(', '{', '0', 'c'};
    for (size_t pos = 0; pos < n; pos++) {
        for (size_t s = 0; s < sizeof subst; s++) {
            unsigned char *copy = malloc(n);
            memcpy(copy, data, n);
            copy[pos] = subst[s];
            int rc = load(&d, copy, n, true);
            if (rc == 0)
                ok++;
            else if (d.err_pos > n || d.err_msg[0] == '\0')
                crashes_would_show++;
            pyprof__marshal_free(&d);
            free(copy);
        }
    }
    TAP_OK(crashes_would_show == 0, "%zu one-byte corruptions: each decodes or errs in bounds",
           n * sizeof subst);
    free(data);
}

int
main(void)
{
    test_scalars();
    test_strings();
    test_containers();
    test_refs();
    test_code();
    test_bad();
    test_small_stack();
    test_fixture_damage("pstats/cprofile_py311.pstats");
    test_fixture_damage("pstats/profile_py311.pstats");
    test_fixture_damage("pstats/profile_py27.pstats");
    return tap_done();
}
