/*
 * marshal_int.h - what marshal.c (the parser) and marshal_code.c (code
 * objects) share (not installed): the reader's state and its helpers.
 */
#ifndef PYPROF_MARSHAL_INT_H
#define PYPROF_MARSHAL_INT_H

#include "marshal.h"

#include "pyprof_int.h"

/* A 3.11+ code object has 5 longs, 8 objects, 1 long, 2 objects; the
 * others 4-6 longs, 8 objects, 1 long, 1 object. */
#define CODE_FIELDS 8

/* Code objects recurse on the C stack (one nested parse per field), so
 * their nesting has its own, small bound.  Real code objects nest as deep
 * as the functions of a module (a handful of levels). */
#define MAX_CODE_DEPTH 64

/* An open container on the parser's explicit stack. */
enum frame_kind { FRAME_SEQUENCE, FRAME_DICT, FRAME_CODE };
typedef struct frame {
    uint32_t self;  /* the object being filled */
    uint32_t n;     /* SEQUENCE: children expected */
    uint32_t k;     /* children read so far (DICT: keys and values) */
    uint32_t first; /* SEQUENCE: first child slot; DICT: start on the scratch stack */
    uint8_t kind;   /* enum frame_kind */
    bool code_ok;   /* children may be code objects (inside a code object) */
} frame;

typedef struct reader {
    pyprof__marshal_doc *doc;
    size_t pos;
    uint32_t max_depth;
    bool code_in_keys;
    uint32_t *refs; /* FLAG_REF slots -> object index */
    size_t nrefs, refs_cap;
    uint32_t *interned; /* Python 2 't' strings, for 'R' */
    size_t ninterned, interned_cap;
    uint32_t *scratch; /* dict pairs being collected */
    size_t nscratch, scratch_cap;
    /* Containers being read, outermost first (code objects among them):
     * the parser's explicit stack, so that nesting costs heap, not C stack.
     * Their object indices increase, which makes "is this one still being
     * read?" a binary search here rather than a look at the object (a cache
     * miss in a big document). */
    frame *frames;
    size_t nframes, frames_cap;
    uint32_t code_depth; /* code objects open */
    size_t ncode;        /* code objects seen: until one is, no reference can be one */
    /* code objects: the layout being tried by the outermost one, which
     * nested code objects (in its consts) must share */
    uint8_t trial_layout;
} reader;

/* Record an error at byte `pos` (the first one wins until a trial parse
 * resets it); returns code. */
int pyprof__marshal_fail(reader *r, int code, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The error for input that ends inside `what`. */
int pyprof__marshal_truncated(reader *r, const char *what);
/* Reserve n contiguous child slots in doc->kids; the first in *first. */
int pyprof__marshal_reserve_kids(reader *r, uint32_t *first, size_t n);
/* Read one object at r->pos (nested `depth` deep; `code_ok`: it may be a
 * code object); its index in *out. */
int pyprof__marshal_read_value(reader *r, uint32_t *out, uint32_t depth, bool code_ok);
/* Read the fields of code object `self`, whose type byte was just read
 * (marshal_code.c). */
int pyprof__marshal_read_code(reader *r, uint32_t self, uint32_t depth);

/* Bytes not read yet. */
static inline size_t
pyprof__marshal_left(const reader *r)
{
    return r->doc->size - r->pos;
}

/* Little-endian fields.  memcpy is one load on the usual little-endian
 * hosts; others swap. */
static inline uint32_t
pyprof__marshal_get_u32(const unsigned char *b)
{
    uint32_t u;
    memcpy(&u, b, sizeof u);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    u = __builtin_bswap32(u);
#endif
    return u;
}

/* A signed 32-bit field, sign-extended as CPython's r_long does. */
static inline int
pyprof__marshal_read_i32(reader *r, int32_t *out, const char *what)
{
    if (pyprof__marshal_left(r) < 4) {
        *out = 0; /* defined, for compilers that cannot see that callers stop */
        return pyprof__marshal_truncated(r, what);
    }
    uint32_t u = pyprof__marshal_get_u32(r->doc->buf + r->pos);
    *out = (int32_t)u; /* two's complement, as every supported compiler does */
    r->pos += 4;
    return 0;
}

/* A str or bytes object. */
static inline bool
pyprof__marshal_is_string(const pyprof__mobj *o)
{
    return o->kind == PYPROF__M_STR || o->kind == PYPROF__M_BYTES;
}

#endif
