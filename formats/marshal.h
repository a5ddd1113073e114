/*
 * marshal.h - a decoder for Python's marshal serialization (versions 0-5),
 * the container format of pstats files.  Semi-private (pyprof__marshal_*):
 * used by formats/pstats.c and tested directly by tests/t_marshal.c.
 *
 * The decoder turns one marshalled object held in memory into a small
 * document: an array of objects (pyprof__mobj) referring to each other by
 * index.  Strings are not copied: they point into the caller's buffer, which
 * must outlive the document.  Back-references (FLAG_REF + 'r', Python 2's
 * interned 't' + 'R') simply yield the index of the object referred to, so a
 * key tuple shared between the stats dict and a callers dict is one object.
 *
 * What it accepts is the union of every version's type codes (the format
 * has no version field; see docs/formats.md section 2).  Python 2 and 3
 * streams give 't' different meanings; the dialect is decided by the first
 * string code met (2.6 of the spec).  Code objects are parsed by trial over
 * the four known layouts, but only where the caller allows them (the name
 * slot of a pstats key): elsewhere they are an error.
 *
 * Safety: the parse is iterative (nesting costs heap, not C stack) and
 * bounded by a depth limit; every length is checked against the bytes that
 * remain, so no count can make it allocate more than a small multiple of
 * the input size.
 */
#ifndef PYPROF_MARSHAL_H
#define PYPROF_MARSHAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Object kinds.  Type codes that map to one kind are told apart by `code`. */
typedef enum pyprof__mkind {
    PYPROF__M_NONE,      /* N */
    PYPROF__M_BOOL,      /* F T (value in u.i) */
    PYPROF__M_STOPITER,  /* S */
    PYPROF__M_ELLIPSIS,  /* . */
    PYPROF__M_INT,       /* i I l that fit in int64 (u.i) */
    PYPROF__M_BIGINT,    /* l beyond int64: kept, but unusable as a number */
    PYPROF__M_FLOAT,     /* g f (u.d) */
    PYPROF__M_COMPLEX,   /* y x (value not kept: never in profile data) */
    PYPROF__M_STR,       /* text: u a A z Z, and t in Python 3 streams */
    PYPROF__M_BYTES,     /* s, and t/R in Python 2 streams */
    PYPROF__M_TUPLE,     /* ( ) */
    PYPROF__M_LIST,      /* [ */
    PYPROF__M_DICT,      /* { : len = number of pairs, kids = k0 v0 k1 v1 ... */
    PYPROF__M_SET,       /* < */
    PYPROF__M_FROZENSET, /* > */
    PYPROF__M_SLICE,     /* : (3 kids) */
    PYPROF__M_CODE       /* c : kids = filename, name; u.code.line */
} pyprof__mkind;

/* One decoded object.  24 bytes, because documents of big profiles hold
 * millions of them: that is why offsets are 32-bit (loads refuse inputs of
 * 4 GiB or more) and why `memo` is here rather than in a side array. */
typedef struct pyprof__mobj {
    union {
        int64_t i;     /* INT, BOOL */
        double d;      /* FLOAT */
        uint32_t str;  /* STR/BYTES: offset of the bytes in the buffer */
        uint32_t kids; /* containers: index of the first child in doc->kids */
        struct {
            uint32_t kids; /* filename, name */
            int32_t line;  /* co_firstlineno */
        } code;
    } u;
    uint32_t len;     /* STR/BYTES: byte length; containers: elements (DICT: pairs) */
    uint32_t pos;     /* offset of the type byte in the buffer */
    uint32_t memo;    /* free for the consumer (0 after a load): pstats.c caches ids here */
    uint8_t kind;     /* pyprof__mkind */
    uint8_t code;     /* the type code as read, without FLAG_REF ('z', ')', ...) */
    uint8_t reserved; /* 0 */
    uint8_t layout;   /* CODE: which layout matched (pyprof__mcode_layout) */
} pyprof__mobj;

/* Inputs this long or longer are refused (offsets are 32-bit). */
#define PYPROF__MARSHAL_MAX_SIZE ((size_t)UINT32_MAX)

/* Code-object layouts (docs/formats.md 2.9). */
typedef enum pyprof__mcode_layout {
    PYPROF__MCODE_PY27 = 1,
    PYPROF__MCODE_PY30,  /* 3.0-3.7 */
    PYPROF__MCODE_PY38,  /* 3.8-3.10 */
    PYPROF__MCODE_PY311, /* 3.11+ */
} pyprof__mcode_layout;

/* Which meaning 't' has in this stream. */
typedef enum pyprof__mdialect {
    PYPROF__MDIALECT_UNKNOWN = 0, /* no string seen yet */
    PYPROF__MDIALECT_PY2,         /* t = interned bytes feeding the R list */
    PYPROF__MDIALECT_PY3          /* t = interned text; FLAG_REF and r */
} pyprof__mdialect;

typedef struct pyprof__marshal_doc {
    const unsigned char *buf; /* the caller's bytes */
    size_t size;
    pyprof__mobj *objs; /* objs[0] is the top-level object after a load */
    size_t nobjs, objs_cap;
    uint32_t *kids; /* children of every container, each container's contiguous */
    size_t nkids, kids_cap;
    size_t end;               /* offset just past the top-level object */
    pyprof__mdialect dialect; /* as decided while reading */
    bool flag_ref_seen;       /* some type byte had FLAG_REF */
    bool py2_interned_seen;   /* a Python 2 stream used 't' (marshal version 1 or 2) */
    uint8_t code_layout;      /* layout of the first code object, 0 if none */
    uint32_t top;             /* index of the top-level object */
    /* the error of a failed load: status, offset in buf, reason */
    int err_code;
    uint64_t err_pos;
    char err_msg[200];
} pyprof__marshal_doc;

typedef struct pyprof__marshal_options {
    uint32_t max_depth; /* nesting bound; 0 = PYPROF__DEFAULT_MAX_DEPTH */
    /* Accept a code object as the last element of a 3-tuple whose first two
     * elements are a string and an int (the name slot of a pstats key).
     * Anywhere else a code object is an error. */
    bool code_in_keys;
} pyprof__marshal_options;

/*
 * Decode the one object at the start of buf[0..size).  On success returns 0,
 * doc->top is the object and doc->end is where it ended (trailing bytes are
 * the caller's business).  On failure returns a negative pyprof_status with
 * doc->err_pos/err_msg set.  Either way release with pyprof__marshal_free.
 */
int pyprof__marshal_load(pyprof__marshal_doc *doc, const unsigned char *buf, size_t size,
                         const pyprof__marshal_options *opts);

/* Release what a load allocated; the doc may then be reused. */
void pyprof__marshal_free(pyprof__marshal_doc *doc);

/* Object `i`, and the `k`-th child of container `o` (no bounds checks:
 * the decoder guarantees len children exist; DICT has 2*len). */
static inline const pyprof__mobj *
pyprof__marshal_obj(const pyprof__marshal_doc *doc, uint32_t i)
{
    return &doc->objs[i];
}
/* The same, writable (for the memo field). */
static inline pyprof__mobj *
pyprof__marshal_obj_mut(pyprof__marshal_doc *doc, uint32_t i)
{
    return &doc->objs[i];
}
static inline uint32_t
pyprof__marshal_kid(const pyprof__marshal_doc *doc, const pyprof__mobj *o, size_t k)
{
    return doc->kids[(o->kind == PYPROF__M_CODE ? o->u.code.kids : o->u.kids) + k];
}
/* The bytes of a STR/BYTES object. */
static inline const char *
pyprof__marshal_str(const pyprof__marshal_doc *doc, const pyprof__mobj *o)
{
    return (const char *)doc->buf + o->u.str;
}

/* A short English name for an object kind, with its article ("a tuple", "None"). */
const char *pyprof__marshal_kind_name(int kind);

#endif
