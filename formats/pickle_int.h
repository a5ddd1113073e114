/*
 * pickle_int.h - what the files of the pickle machine share (formats/pickle*.c).
 * Not a public or cross-module interface: formats/pickle.h is.
 */
#ifndef PYPROF_PICKLE_INT_H
#define PYPROF_PICKLE_INT_H

#include "pickle.h"

/* Defaults: a real lprof pickle keeps at most ~1000 values on the stack
 * (pickle batches APPENDS/SETITEMS by 1000) and nests marks 4 deep, so these
 * only stop hostile input.  The memo default allows 64 Mi shared objects,
 * more than a 1 GiB pickle can name with its shortest opcodes. */
#define PK_DEFAULT_MAX_STACK ((size_t)1 << 20)
#define PK_DEFAULT_MAX_MEMO  ((size_t)1 << 26)

/* Where a STR/BYTES node's bytes live. */
enum { PK_IN_INPUT = 0, PK_IN_POOL = 1 };

struct pk_vec {
    pyprof__pk_id *ids;
    size_t n, cap;
};

struct pyprof__pickle {
    pyprof__pickle_limits lim;

    pyprof__pk_node *nodes;
    size_t nnodes, nodes_cap;
    pyprof__pk_id *items; /* tuple items, append-only */
    size_t nitems, items_cap;
    struct pk_vec *vecs; /* mutable containers: list, dict, set, instance */
    size_t nvecs, vecs_cap;
    char *pool; /* strings that needed decoding */
    size_t npool, pool_cap;

    pyprof__pk_id *stack;
    size_t nstack, stack_cap;
    size_t *marks;
    size_t nmarks, marks_cap;
    pyprof__pk_id *memo; /* id + 1; 0 = empty slot */
    size_t memo_cap;
    size_t memo_count; /* MEMOIZE's next index: Python uses len(memo) */

    const unsigned char *data;
    size_t len, pos;
    size_t op_at;     /* offset of the opcode being run */
    unsigned char op; /* that opcode */
    int instances;    /* LineStats instances made (at most one) */
    bool ran;
    const char *source, *format;
    pyprof_error *err;
};

/* ---- pickle.c: errors, values, stack, memo ---------------------------------------- */

/* The name of opcode `op` ("GLOBAL"), or NULL for a byte that is none. */
const char *pyprof__pk_op_name(unsigned char op);
/* Fail with `code`, naming the current opcode; positioned at its offset. */
int pyprof__pk_fail(pyprof__pickle *pk, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "truncated" for an argument that runs past the end. */
int pyprof__pk_truncated(pyprof__pickle *pk);

int pyprof__pk_new_node(pyprof__pickle *pk, pyprof__pk_id *out, int type);
int pyprof__pk_new_vec(pyprof__pickle *pk, pyprof__pk_id *out, int type);
int pyprof__pk_vec_append(pyprof__pickle *pk, pyprof__pk_id container, const pyprof__pk_id *ids,
                          size_t n);
int pyprof__pk_push(pyprof__pickle *pk, pyprof__pk_id id);
int pyprof__pk_push_new(pyprof__pickle *pk, int type, int64_t i);
int pyprof__pk_push_float(pyprof__pickle *pk, double f);
int pyprof__pk_push_raw_string(pyprof__pickle *pk, int type, size_t at, size_t len);
int pyprof__pk_mark_start(pyprof__pickle *pk, size_t *start);
int pyprof__pk_pop_mark(pyprof__pickle *pk, size_t *start);
int pyprof__pk_pop(pyprof__pickle *pk, pyprof__pk_id *out);
int pyprof__pk_top(pyprof__pickle *pk, pyprof__pk_id *out);
int pyprof__pk_make_tuple(pyprof__pickle *pk, size_t start);
int pyprof__pk_make_vec(pyprof__pickle *pk, int type, size_t start);
int pyprof__pk_extend_from_mark(pyprof__pickle *pk, int type);
int pyprof__pk_memo_put(pyprof__pickle *pk, uint64_t idx);
int pyprof__pk_memo_get(pyprof__pickle *pk, uint64_t idx);

/* ---- pickle_text.c: protocol 0's text arguments ------------------------------------ */

/* Decimal text of INT/LONG/PUT/GET (LONG: allow_l, a trailing 'L'). */
int pyprof__pk_parse_decimal(pyprof__pickle *pk, const char *s, size_t n, bool allow_l,
                             int64_t *out);
/* Push the str of a UNICODE argument (raw-unicode-escape). */
int pyprof__pk_push_raw_unicode(pyprof__pickle *pk, const char *s, size_t n);
/* Push the bytes of a STRING argument (a quoted Python 2 literal). */
int pyprof__pk_push_quoted(pyprof__pickle *pk, const char *s, size_t n);

/* ---- pickle_ops.c ------------------------------------------------------------------- */

/* Run opcode pk->op (already consumed); *stop is set by STOP. */
int pyprof__pk_step(pyprof__pickle *pk, bool *stop);

#endif
