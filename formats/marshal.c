/*
 * marshal.c - decode one Python marshal object from memory into a document
 * of indexed objects (see marshal.h).
 *
 * Spec: docs/formats.md section 2 (type codes of every version 0-5, FLAG_REF
 * and 'r', Python 2 interning with 't'/'R', longs, text and binary floats,
 * the four code-object layouts).  What is not supported: version 6 (3.15's
 * frozendict, whose code is not pinned yet) and '?' (a failed dump) are
 * "unknown type code" errors.
 *
 * Structure: an iterative reader.  Open containers wait on an explicit
 * stack (the frames), so a deep input costs heap, bounded by max_depth
 * (2000, as CPython), never C stack; only code objects (marshal_code.c),
 * read field by field with trial and error, recurse, and their nesting has
 * its own small bound.
 * The document is built as it goes: an object is allocated when its type byte
 * is read, which is also when a FLAG_REF slot is numbered (CPython's
 * pre-order numbering), so a back-reference is just the index of an earlier
 * object.  Counted containers reserve their children's slots in doc->kids
 * up front, so each container's children are contiguous without a copy;
 * dicts, whose size is not written, collect pairs on a scratch stack.
 *
 * Bounds: a count or length is checked against the bytes left before
 * anything is reserved (every element takes at least one byte), so memory
 * stays within a small multiple of the input size, whatever the counts say.
 */
#include "config.h"

#include "marshal_int.h"

#include <stdarg.h>
#include <stdio.h>

#include "pyprof_int.h"

#define FLAG_REF 0x80

const char *
pyprof__marshal_kind_name(int kind)
{
    static const char *const names[] = {
        "None",     "a bool",        "StopIteration",
        "Ellipsis", "an int",        "an int beyond 64 bits",
        "a float",  "a complex",     "a str",
        "bytes",    "a tuple",       "a list",
        "a dict",   "a set",         "a frozenset",
        "a slice",  "a code object",
    };
    if (kind < 0 || (size_t)kind >= sizeof(names) / sizeof(names[0]))
        return "an object";
    return names[kind];
}

/* Record the error (the first one wins until a trial parse resets it). */
int
pyprof__marshal_fail(reader *r, int code, size_t pos, const char *fmt, ...)
{
    pyprof__marshal_doc *d = r->doc;
    va_list ap;
    d->err_code = code;
    d->err_pos = pos;
    va_start(ap, fmt);
    vsnprintf(d->err_msg, sizeof(d->err_msg), fmt, ap);
    va_end(ap);
    return code;
}

static __attribute__((cold, noinline)) int
oom(reader *r)
{
    return pyprof__marshal_fail(r, PYPROF_ENOMEM, r->pos, "out of memory");
}

__attribute__((cold, noinline)) int
pyprof__marshal_truncated(reader *r, const char *what)
{
    return pyprof__marshal_fail(r, PYPROF_EFORMAT, r->doc->size, "unexpected end of data in %s",
                                what);
}

/* Little-endian, as get_u32 (marshal_int.h). */
static inline uint64_t
get_u64(const unsigned char *b)
{
    uint64_t u;
    memcpy(&u, b, sizeof u);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    u = __builtin_bswap64(u);
#endif
    return u;
}

/* A size or count: 0 <= n <= 0x7FFFFFFF, and no more than the bytes left
 * (every element or character takes at least one). */
static int
read_size(reader *r, uint32_t *out, const char *what)
{
    size_t at = r->pos;
    int32_t n;
    int rc = pyprof__marshal_read_i32(r, &n, what);
    if (rc < 0)
        return rc;
    if (n < 0)
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "negative size %ld in %s", (long)n,
                                    what);
    if ((size_t)n > pyprof__marshal_left(r))
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at,
                                    "%s of size %ld, more than the %zu bytes left", what, (long)n,
                                    pyprof__marshal_left(r));
    *out = (uint32_t)n;
    return 0;
}

static inline double
get_f64(const unsigned char *b)
{
    uint64_t u = get_u64(b);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Append a new object; its slot index is its identity.  This runs once
 * per object, millions of times for big profiles: the capacity test is
 * inline and the growth out of line. */
static int
grow_objs(reader *r, size_t pos)
{
    pyprof__marshal_doc *d = r->doc;
    if (d->nobjs >= UINT32_MAX - 1)
        return pyprof__marshal_fail(r, PYPROF_ELIMIT, pos, "more than 4 billion objects");
    if (PYPROF_GROW(d->objs, d->objs_cap, d->nobjs + 1) < 0)
        return oom(r);
    return 0;
}

static inline int
new_obj(reader *r, uint32_t *out, uint8_t kind, uint8_t code, size_t pos)
{
    pyprof__marshal_doc *d = r->doc;
    int rc;
    if (d->nobjs == d->objs_cap && (rc = grow_objs(r, pos)) < 0)
        return rc;
    pyprof__mobj *o = &d->objs[d->nobjs];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->code = code;
    o->pos = (uint32_t)pos;
    *out = (uint32_t)d->nobjs++;
    return 0;
}

/* Reserve n contiguous child slots; returns the index of the first. */
int
pyprof__marshal_reserve_kids(reader *r, uint32_t *first, size_t n)
{
    pyprof__marshal_doc *d = r->doc;
    if (d->nkids + n > d->kids_cap) {
        if (d->nkids + n >= UINT32_MAX)
            return pyprof__marshal_fail(r, PYPROF_ELIMIT, r->pos,
                                        "more than 4 billion container elements");
        if (PYPROF_GROW(d->kids, d->kids_cap, d->nkids + n) < 0)
            return oom(r);
    }
    *first = (uint32_t)d->nkids;
    d->nkids += n;
    return 0;
}

static inline int
push_u32(reader *r, uint32_t **arr, size_t *n, size_t *cap, uint32_t v)
{
    if (*n == *cap && PYPROF_GROW(*arr, *cap, *n + 1) < 0)
        return oom(r);
    (*arr)[(*n)++] = v;
    return 0;
}

/* Is object `o` a container whose children are still being read? */
static inline bool
being_read(const reader *r, uint32_t o)
{
    size_t lo = 0, hi = r->nframes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->frames[mid].self == o)
            return true;
        if (r->frames[mid].self < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The type byte's dialect consequence: Python 2 streams have no FLAG_REF
 * and name things with 's'/'t'; decide at the first string (spec 2.6). */
static void
note_string(reader *r, unsigned char code)
{
    pyprof__marshal_doc *d = r->doc;
    if (d->dialect != PYPROF__MDIALECT_UNKNOWN || code == 'u')
        return; /* 'u' (unicode) is written by both: it decides nothing */
    d->dialect = (!d->flag_ref_seen && (code == 's' || code == 't')) ? PYPROF__MDIALECT_PY2
                                                                     : PYPROF__MDIALECT_PY3;
}

/* ---- scalars ------------------------------------------------------------- */

/* 'l': |n| base-2^15 digits, least significant first. */
static int
read_long(reader *r, pyprof__mobj *o)
{
    size_t at = r->pos;
    int32_t n;
    int rc = pyprof__marshal_read_i32(r, &n, "a long integer");
    if (rc < 0)
        return rc;
    if (n == INT32_MIN)
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "long integer size out of range");
    uint32_t ndigits = (uint32_t)(n < 0 ? -n : n);
    if (ndigits > pyprof__marshal_left(r) / 2)
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at,
                                    "long integer of %lu digits, more than the bytes left",
                                    (unsigned long)ndigits);
    const unsigned char *b = r->doc->buf + r->pos;
    uint64_t mag = 0;
    bool big = false;
    for (uint32_t k = 0; k < ndigits; k++) {
        unsigned dig = (unsigned)b[2 * k] | (unsigned)b[2 * k + 1] << 8;
        if (dig > 0x7FFF)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, r->pos + 2 * k,
                                        "long integer digit out of range");
        if (k == ndigits - 1 && dig == 0)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, r->pos + 2 * k,
                                        "unnormalized long integer");
        /* digit k is worth 2^(15k): beyond 2^63 the value stops fitting */
        if (dig == 0 || big)
            continue;
        if (k >= 5 || (k == 4 && dig > 15)) {
            big = true;
            continue;
        }
        mag |= (uint64_t)dig << (15 * k);
    }
    r->pos += 2 * (size_t)ndigits;
    /* int64 holds -2^63 .. 2^63-1 */
    if (big || (n > 0 && mag > (uint64_t)INT64_MAX) || (n < 0 && mag > (uint64_t)INT64_MAX + 1)) {
        o->kind = PYPROF__M_BIGINT;
        return 0;
    }
    o->u.i = n < 0 ? (int64_t)(0 - mag) : (int64_t)mag;
    return 0;
}

/* 'f' (and half of 'x'): u8 length + the repr text of a float. */
static int
read_text_float(reader *r, double *out)
{
    if (pyprof__marshal_left(r) < 1)
        return pyprof__marshal_truncated(r, "a text float");
    size_t at = r->pos;
    size_t n = r->doc->buf[r->pos++];
    if (n > pyprof__marshal_left(r))
        return pyprof__marshal_truncated(r, "a text float");
    char text[256];
    memcpy(text, r->doc->buf + r->pos, n);
    text[n] = '\0';
    char *end;
    double v = pyprof__strtod_c(text, &end);
    if (n == 0 || end != text + n)
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "bad text float");
    r->pos += n;
    *out = v;
    return 0;
}

static int
read_string(reader *r, pyprof__mobj *o, unsigned char code)
{
    uint32_t n;
    int rc;
    if (code == 'z' || code == 'Z') {
        if (pyprof__marshal_left(r) < 1)
            return pyprof__marshal_truncated(r, "a string");
        n = r->doc->buf[r->pos++];
        if (n > pyprof__marshal_left(r))
            return pyprof__marshal_truncated(r, "a string");
    } else if ((rc = read_size(r, &n, "a string")) < 0) {
        return rc;
    }
    o->len = n;
    o->u.str = (uint32_t)r->pos;
    r->pos += n;
    return 0;
}

/* ---- containers ---------------------------------------------------------- */

static int
push_frame(reader *r, uint32_t self, uint8_t kind, uint32_t n, uint32_t first, bool code_ok)
{
    if (r->nframes == r->frames_cap && PYPROF_GROW(r->frames, r->frames_cap, r->nframes + 1) < 0)
        return oom(r);
    r->frames[r->nframes++] = (frame){self, n, 0, first, kind, code_ok};
    return 0;
}

/* Tuples, lists, sets, frozensets, slices: n then n objects.  Reserve the
 * children's slots and open a frame, or finish at once when n is 0. */
static int
open_sequence(reader *r, uint32_t self, uint32_t n, bool code_ok, bool *done)
{
    uint32_t first = 0;
    int rc = pyprof__marshal_reserve_kids(r, &first, n);
    if (rc < 0)
        return rc;
    r->doc->objs[self].len = n;
    r->doc->objs[self].u.kids = first;
    *done = n == 0;
    return n ? push_frame(r, self, FRAME_SEQUENCE, n, first, code_ok) : 0;
}

/* Dict: key/value pairs until a NULL ('0') where a key would start; the
 * pairs collect on the scratch stack, as the count is not written. */
static int
open_dict(reader *r, uint32_t self, bool code_ok, bool *done)
{
    if (pyprof__marshal_left(r) < 1)
        return pyprof__marshal_truncated(r, "a dict");
    *done = r->doc->buf[r->pos] == '0';
    if (*done) {
        r->pos++;
        r->doc->objs[self].u.kids = (uint32_t)r->doc->nkids; /* no children */
        return 0;
    }
    return push_frame(r, self, FRAME_DICT, 0, (uint32_t)r->nscratch, code_ok);
}

static int
close_dict(reader *r, const frame *f)
{
    pyprof__marshal_doc *d = r->doc;
    size_t n = r->nscratch - f->first;
    uint32_t first = 0;
    int rc = pyprof__marshal_reserve_kids(r, &first, n);
    if (rc < 0)
        return rc;
    memcpy(d->kids + first, r->scratch + f->first, n * sizeof(uint32_t));
    r->nscratch = f->first;
    d->objs[f->self].len = (uint32_t)(n / 2);
    d->objs[f->self].u.kids = first;
    return 0;
}

/* May the next child of `f` be a code object?  Inside one, yes (its
 * consts); else only as the third element of a pstats key, a 3-tuple
 * (string, int, X). */
static bool
child_code_ok(const reader *r, const frame *f)
{
    if (f->code_ok)
        return true;
    if (!r->code_in_keys || f->kind != FRAME_SEQUENCE || f->n != 3 || f->k != 2)
        return false;
    const pyprof__marshal_doc *d = r->doc;
    if (d->objs[f->self].kind != PYPROF__M_TUPLE)
        return false;
    return pyprof__marshal_is_string(&d->objs[d->kids[f->first]]) &&
           d->objs[d->kids[f->first + 1]].kind == PYPROF__M_INT;
}

/* ---- the parser ------------------------------------------------------------ */

/*
 * Start the object whose type byte is next, at nesting `depth`.  Scalars,
 * strings, references and code objects are read whole (*done = true);
 * a container with children is created and its frame pushed (*done =
 * false): read_value then reads its children.
 */
static int
open_object(reader *r, uint32_t *out, bool *done, uint32_t depth, bool code_ok)
{
    pyprof__marshal_doc *d = r->doc;
    size_t at = r->pos;
    int rc;
    if (depth > r->max_depth)
        return pyprof__marshal_fail(
            r, PYPROF_ELIMIT, at,
            "objects nested deeper than %lu levels (raise the limit with --max-depth)",
            (unsigned long)r->max_depth);
    if (pyprof__marshal_left(r) < 1)
        return pyprof__marshal_truncated(r, "an object");
    *done = true;
    unsigned char byte = d->buf[r->pos++];
    unsigned char code = byte & 0x7F;
    bool flag = byte & FLAG_REF;

    /* codes that produce no new object */
    switch (code) {
    case '0':
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at,
                                    "NULL object where a value was expected");
    case 'r': {
        size_t rat = r->pos;
        int32_t idx;
        if (flag)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "FLAG_REF on a back-reference");
        if ((rc = pyprof__marshal_read_i32(r, &idx, "a back-reference")) < 0)
            return rc;
        if (idx < 0 || (size_t)idx >= r->nrefs)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, rat,
                                        "back-reference %ld out of range (%zu objects)", (long)idx,
                                        r->nrefs);
        uint32_t o = r->refs[idx];
        if (being_read(r, o))
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, rat,
                                        "back-reference to a container still being read");
        if (r->ncode && d->objs[o].kind == PYPROF__M_CODE && !code_ok)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, at,
                                        "code object outside the name slot of a key");
        *out = o;
        return 0;
    }
    case 'R': {
        size_t rat = r->pos;
        int32_t idx;
        if (d->dialect == PYPROF__MDIALECT_PY3)
            return pyprof__marshal_fail(
                r, PYPROF_EFORMAT, at,
                "Python 2 interned-string reference 'R' in a Python 3 stream");
        if ((rc = pyprof__marshal_read_i32(r, &idx, "an interned-string reference")) < 0)
            return rc;
        if (idx < 0 || (size_t)idx >= r->ninterned)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, rat,
                                        "interned-string reference %ld out of range (%zu strings)",
                                        (long)idx, r->ninterned);
        *out = r->interned[idx];
        return 0;
    }
    default:
        break;
    }

    uint32_t self = 0;
    if ((rc = new_obj(r, &self, PYPROF__M_NONE, code, at)) < 0)
        return rc;
    if (flag) {
        d->flag_ref_seen = true;
        if ((rc = push_u32(r, &r->refs, &r->nrefs, &r->refs_cap, self)) < 0)
            return rc;
    }
    *out = self;
    pyprof__mobj *o = &d->objs[self]; /* valid until the next new_obj */
    uint32_t n;
    switch (code) {
    case 'N':
        return 0;
    case 'F':
    case 'T':
        o->kind = PYPROF__M_BOOL;
        o->u.i = code == 'T';
        return 0;
    case 'S':
        o->kind = PYPROF__M_STOPITER;
        return 0;
    case '.':
        o->kind = PYPROF__M_ELLIPSIS;
        return 0;
    case 'i': {
        int32_t v;
        if ((rc = pyprof__marshal_read_i32(r, &v, "an int")) < 0)
            return rc;
        o->kind = PYPROF__M_INT;
        o->u.i = v;
        return 0;
    }
    case 'I': {
        if (pyprof__marshal_left(r) < 8)
            return pyprof__marshal_truncated(r, "a 64-bit int");
        const unsigned char *b = d->buf + r->pos;
        uint64_t u = get_u64(b);
        o->kind = PYPROF__M_INT;
        o->u.i = (int64_t)u;
        r->pos += 8;
        return 0;
    }
    case 'l':
        o->kind = PYPROF__M_INT;
        return read_long(r, o);
    case 'g':
        if (pyprof__marshal_left(r) < 8)
            return pyprof__marshal_truncated(r, "a binary float");
        o->kind = PYPROF__M_FLOAT;
        o->u.d = get_f64(d->buf + r->pos);
        r->pos += 8;
        return 0;
    case 'f':
        o->kind = PYPROF__M_FLOAT;
        return read_text_float(r, &o->u.d);
    case 'y':
        if (pyprof__marshal_left(r) < 16)
            return pyprof__marshal_truncated(r, "a binary complex");
        o->kind = PYPROF__M_COMPLEX;
        r->pos += 16;
        return 0;
    case 'x': {
        double re, im;
        o->kind = PYPROF__M_COMPLEX;
        if ((rc = read_text_float(r, &re)) < 0 || (rc = read_text_float(r, &im)) < 0)
            return rc;
        return 0;
    }
    case 's':
    case 't':
    case 'u':
    case 'a':
    case 'A':
    case 'z':
    case 'Z':
        note_string(r, code);
        o->kind = (code == 's' || (code == 't' && d->dialect == PYPROF__MDIALECT_PY2))
                      ? PYPROF__M_BYTES
                      : PYPROF__M_STR;
        if ((rc = read_string(r, o, code)) < 0)
            return rc;
        if (code == 't' && d->dialect == PYPROF__MDIALECT_PY2) {
            d->py2_interned_seen = true;
            return push_u32(r, &r->interned, &r->ninterned, &r->interned_cap, self);
        }
        return 0;
    case '(':
    case ')':
    case '[':
    case '<':
    case '>':
        o->kind = code == '['   ? PYPROF__M_LIST
                  : code == '<' ? PYPROF__M_SET
                  : code == '>' ? PYPROF__M_FROZENSET
                                : PYPROF__M_TUPLE;
        if (code == ')') {
            if (pyprof__marshal_left(r) < 1)
                return pyprof__marshal_truncated(r, "a tuple");
            n = d->buf[r->pos++];
            if (n > pyprof__marshal_left(r))
                return pyprof__marshal_truncated(r, "a tuple");
        } else if ((rc = read_size(r, &n, "a container")) < 0) {
            return rc;
        }
        return open_sequence(r, self, n, code_ok, done);
    case '{':
        o->kind = PYPROF__M_DICT;
        return open_dict(r, self, code_ok, done);
    case ':':
        o->kind = PYPROF__M_SLICE;
        return open_sequence(r, self, 3, code_ok, done);
    case 'c':
        if (!code_ok)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, at,
                                        "code object outside the name slot of a key");
        if (r->code_depth >= MAX_CODE_DEPTH)
            return pyprof__marshal_fail(
                r, PYPROF_ELIMIT, at, "code objects nested deeper than %d levels", MAX_CODE_DEPTH);
        o->kind = PYPROF__M_CODE;
        r->ncode++;
        /* a frame only so that references see it is open; the fields are
         * read by nested read_value calls above it */
        if ((rc = push_frame(r, self, FRAME_CODE, 0, 0, true)) < 0)
            return rc;
        r->code_depth++;
        rc = pyprof__marshal_read_code(r, self, depth);
        r->code_depth--;
        if (rc < 0)
            return rc;
        r->nframes--;
        return 0;
    default:
        return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "unknown type code 0x%02x", byte);
    }
}

/*
 * Read one whole object at nesting `depth`, iteratively: open containers
 * wait on r->frames, each finished object is handed to the innermost one,
 * and full containers close in turn.  Frames below the entry level belong
 * to callers (a code object's fields are read by nested calls).
 */
int
pyprof__marshal_read_value(reader *r, uint32_t *out, uint32_t depth, bool code_ok)
{
    pyprof__marshal_doc *d = r->doc;
    size_t base = r->nframes;
    int rc;
    for (;;) {
        /* the value itself, or the next child of the innermost container */
        bool kid_code_ok = code_ok, done;
        size_t open = r->nframes - base;
        if (open)
            kid_code_ok = child_code_ok(r, &r->frames[r->nframes - 1]);
        uint32_t obj = 0;
        if ((rc = open_object(r, &obj, &done, depth + (uint32_t)open, kid_code_ok)) < 0)
            return rc;
        while (done) {
            if (r->nframes == base) {
                *out = obj;
                return 0;
            }
            frame *f = &r->frames[r->nframes - 1];
            if (f->kind == FRAME_SEQUENCE) {
                d->kids[f->first + f->k++] = obj;
                done = f->k == f->n;
            } else { /* FRAME_DICT */
                if ((rc = push_u32(r, &r->scratch, &r->nscratch, &r->scratch_cap, obj)) < 0)
                    return rc;
                bool was_key = (f->k++ & 1) == 0;
                if (pyprof__marshal_left(r) < 1)
                    return pyprof__marshal_truncated(r, "a dict");
                if (d->buf[r->pos] != '0')
                    done = false; /* a value, or the next key, follows */
                else if (was_key)
                    return pyprof__marshal_fail(r, PYPROF_EFORMAT, r->pos,
                                                "dict key without a value");
                else if ((rc = close_dict(r, f)) < 0)
                    return rc;
                else
                    r->pos++; /* the '0' that ends the dict */
            }
            if (done) {
                obj = f->self;
                r->nframes--;
            }
        }
    }
}

int
pyprof__marshal_load(pyprof__marshal_doc *doc, const unsigned char *buf, size_t size,
                     const pyprof__marshal_options *opts)
{
    memset(doc, 0, sizeof *doc);
    doc->buf = buf;
    doc->size = size;
    reader r = {.doc = doc};
    if (size >= PYPROF__MARSHAL_MAX_SIZE)
        return pyprof__marshal_fail(&r, PYPROF_ELIMIT, 0, "marshal data of 4 GiB or more");
    r.max_depth = opts && opts->max_depth ? opts->max_depth : PYPROF__DEFAULT_MAX_DEPTH;
    r.code_in_keys = opts ? opts->code_in_keys : false;
    /* Size hints that make regrowth rare: pstats files average ~10 bytes
     * per object and ~5 per child slot.  Pages of the arrays that are never
     * written are never made resident, so erring large costs little. */
    if (PYPROF_GROW(doc->objs, doc->objs_cap, size / 8 + 16) < 0 ||
        PYPROF_GROW(doc->kids, doc->kids_cap, size / 4 + 16) < 0) {
        pyprof__marshal_fail(&r, PYPROF_ENOMEM, 0, "out of memory");
        return PYPROF_ENOMEM;
    }
    uint32_t top;
    int rc = pyprof__marshal_read_value(&r, &top, 0, false);
    pyprof__free(r.refs);
    pyprof__free(r.interned);
    pyprof__free(r.scratch);
    pyprof__free(r.frames);
    if (rc < 0)
        return rc;
    doc->top = top;
    doc->end = r.pos;
    return 0;
}

void
pyprof__marshal_free(pyprof__marshal_doc *doc)
{
    pyprof__free(doc->objs);
    pyprof__free(doc->kids);
    doc->objs = NULL;
    doc->kids = NULL;
    doc->nobjs = doc->objs_cap = doc->nkids = doc->kids_cap = 0;
}
