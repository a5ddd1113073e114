/*
 * pickle.h - a pickle machine that only builds data (semi-private).
 *
 * Python's pickle.load() runs a small stack program whose GLOBAL and REDUCE
 * opcodes import and call anything the file names: loading an untrusted
 * .lprof with it runs the author's code.  This machine executes the same
 * opcodes but only ever builds plain values (None, bool, int, float, str,
 * bytes, tuple, list, dict, set).  Class references are recorded by name and
 * never resolved, and only line_profiler's LineStats construction is
 * accepted:
 *
 *   GLOBAL / STACK_GLOBAL   only the (module, name) pairs of pyprof__pk_global;
 *   NEWOBJ                  only LineStats with an empty argument tuple;
 *   REDUCE                  only copy_reg._reconstructor(LineStats, object, None);
 *   BUILD                   only on that instance, with a dict state.
 *
 * Any other global, call or opcode (INST, OBJ, NEWOBJ_EX, EXT*, PERSID,
 * protocol-5 buffers, unknown bytes) is refused with an error that names the
 * opcode and its byte offset.  The subset is the one of formats.md section
 * 5.3: protocols 0-5 as CPython 2.7-3.14 write them.
 *
 * Values are nodes in one dense array, named by 32-bit id, so that the memo
 * can share them (GET pushes the same list that a later APPENDS extends, as
 * in Python).  Containers hold child ids.  A dict is its (key, value) pairs
 * in insertion order, duplicates included: callers apply Python's "last
 * value wins, first position kept" rule where it matters.
 *
 * Bounds: every length is checked against the bytes that remain, the stack,
 * the mark nesting and the memo are capped (pyprof__pickle_limits), a memo
 * index may not exceed the input length, and each opcode creates at most one
 * node, so memory is linear in the input.
 *
 * Ownership: a pyprof__pickle owns its nodes and decoded strings; strings
 * that were stored verbatim point into the caller's input buffer, which must
 * outlive it.  All memory comes from pyprof__malloc and friends.
 */
#ifndef PYPROF_PICKLE_H
#define PYPROF_PICKLE_H

#include "pyprof_int.h"

typedef uint32_t pyprof__pk_id;

/** Value types. */
typedef enum pyprof__pk_type {
    PYPROF__PK_NONE,
    PYPROF__PK_BOOL,    /* u.i is 0 or 1 */
    PYPROF__PK_INT,     /* u.i; integers that do not fit in int64 are refused */
    PYPROF__PK_FLOAT,   /* u.f */
    PYPROF__PK_STR,     /* text: UTF-8 as stored (not validated) */
    PYPROF__PK_BYTES,   /* Python 2 str, or bytes */
    PYPROF__PK_TUPLE,   /* len items */
    PYPROF__PK_LIST,    /* len items */
    PYPROF__PK_DICT,    /* len (key, value) pairs */
    PYPROF__PK_SET,     /* set or frozenset: len items */
    PYPROF__PK_GLOBAL,  /* an allowlisted class reference: sub = pyprof__pk_global */
    PYPROF__PK_INSTANCE /* the LineStats instance: sub = its class; len BUILD states */
} pyprof__pk_type;

/** The allowlisted globals. */
typedef enum pyprof__pk_global {
    PYPROF__PK_G_LINESTATS_2X,  /* _line_profiler.LineStats (2.x) */
    PYPROF__PK_G_LINESTATS_3X,  /* line_profiler._line_profiler.LineStats (3.0-5.0.0) */
    PYPROF__PK_G_LINESTATS_501, /* line_profiler.line_profiler.LineStats (5.0.1+) */
    PYPROF__PK_G_RECONSTRUCTOR, /* copy_reg._reconstructor / copyreg._reconstructor */
    PYPROF__PK_G_OBJECT         /* __builtin__.object / builtins.object */
} pyprof__pk_global;

typedef struct pyprof__pk_node {
    uint8_t type;    /* pyprof__pk_type */
    uint8_t sub;     /* GLOBAL/INSTANCE: pyprof__pk_global; STR/BYTES: storage (private) */
    uint32_t len;    /* byte length of STR/BYTES, item count of containers */
    uint64_t offset; /* input offset of the opcode that made it (for messages) */
    union {
        int64_t i;   /* BOOL, INT */
        double f;    /* FLOAT */
        uint64_t at; /* STR/BYTES: where the bytes are; containers: where the ids are */
    } u;
} pyprof__pk_node;

/** Safety limits; 0 in a field means its default. */
typedef struct pyprof__pickle_limits {
    size_t max_stack; /* values on the stack (default 1 << 20) */
    size_t max_marks; /* MARK nesting (default PYPROF__DEFAULT_MAX_DEPTH) */
    size_t max_memo;  /* memo slots (default 1 << 26) */
} pyprof__pickle_limits;

typedef struct pyprof__pickle pyprof__pickle;

/** A new, empty machine; limits may be NULL.  Returns 0 or PYPROF_ENOMEM. */
int pyprof__pickle_new(pyprof__pickle **out, const pyprof__pickle_limits *limits);

/** Free the machine and every value it built; NULL is allowed. */
void pyprof__pickle_free(pyprof__pickle *pk);

/**
 * Run the pickle in data[0..len) up to its STOP opcode (bytes after STOP are
 * ignored, as pickle.load ignores them).  On success *result is the value
 * STOP returned.  On failure `err` gets the offset of the offending opcode,
 * `source` and `format` (either may be NULL), and a message naming the opcode;
 * the status is PYPROF_EFORMAT (malformed), PYPROF_EUNSUPPORTED (refused
 * global, call or opcode), PYPROF_ELIMIT or PYPROF_ENOMEM.
 * A machine runs one pickle.
 */
int pyprof__pickle_run(pyprof__pickle *pk, pyprof__pk_id *result, const unsigned char *data,
                       size_t len, const char *source, const char *format, pyprof_error *err);

/** The node `id` (borrowed; valid until the machine is freed). */
const pyprof__pk_node *pyprof__pickle_node(const pyprof__pickle *pk, pyprof__pk_id id);

/**
 * Item `i` of a TUPLE, LIST or SET; for a DICT, 2*i is the key and 2*i+1 the
 * value of pair i; for an INSTANCE, the state given to its i-th BUILD.
 * The caller keeps i below the item count (len, or 2*len for a dict).
 */
pyprof__pk_id pyprof__pickle_item(const pyprof__pickle *pk, pyprof__pk_id id, size_t i);

/** The bytes of a STR or BYTES node (not NUL-terminated); NULL for other types. */
const char *pyprof__pickle_bytes(const pyprof__pickle *pk, pyprof__pk_id id, size_t *len);

/** "NONE", "INT", "STR", ... for messages. */
const char *pyprof__pickle_type_name(int type);

/** The (module, name) text of an allowlisted global, e.g. "line_profiler._line_profiler.LineStats".
 */
const char *pyprof__pickle_global_name(int global);

#endif
