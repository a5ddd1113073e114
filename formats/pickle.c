/*
 * pickle.c - a pickle machine that builds data and never runs code.
 *
 * Spec: ../shared/docs/formats.md section 5.3 (opcode subset, allowlist,
 * limits).  The machine follows CPython's Unpickler: a value stack, a stack
 * of MARK positions ("metastack") and a memo.  What it does differently is
 * what makes it safe:
 *   - a global is a name, compared with a fixed allowlist, never imported;
 *   - REDUCE and NEWOBJ only accept the two spellings of "make an empty
 *     LineStats" and produce an inert INSTANCE node;
 *   - APPEND/SETITEM/BUILD only act on the node types we made, never on an
 *     object's methods (Python would call obj.append, __setitem__, __setstate__).
 * Everything else, including opcodes Python knows but line_profiler never
 * writes (INST, OBJ, NEWOBJ_EX, EXT*, PERSID, out-of-band buffers), is refused.
 *
 * Not supported, on purpose: integers beyond 64 bits (no profiler writes
 * them; refused with a clear message), protocol-5 out-of-band buffers.
 *
 * This file is the machine: values, the stack and marks, the memo, errors
 * and the run loop.  pickle_ops.c runs each opcode; pickle_text.c decodes
 * the text arguments of protocol 0.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "pickle_int.h"

/* ---- opcode names, for messages ------------------------------------------------ */

/* Opcode names, for messages; NULL = not a pickle opcode.  The last group
 * is known to Python but refused here. */
static const char *const op_names[256] = {
    [0x80] = "PROTO",
    [0x95] = "FRAME",
    ['.'] = "STOP",
    ['('] = "MARK",
    ['0'] = "POP",
    ['1'] = "POP_MARK",
    ['2'] = "DUP",
    ['N'] = "NONE",
    [0x88] = "NEWTRUE",
    [0x89] = "NEWFALSE",
    ['I'] = "INT",
    ['J'] = "BININT",
    ['K'] = "BININT1",
    ['M'] = "BININT2",
    ['L'] = "LONG",
    [0x8a] = "LONG1",
    [0x8b] = "LONG4",
    ['F'] = "FLOAT",
    ['G'] = "BINFLOAT",
    ['S'] = "STRING",
    ['T'] = "BINSTRING",
    ['U'] = "SHORT_BINSTRING",
    ['B'] = "BINBYTES",
    ['C'] = "SHORT_BINBYTES",
    [0x8e] = "BINBYTES8",
    ['V'] = "UNICODE",
    ['X'] = "BINUNICODE",
    [0x8c] = "SHORT_BINUNICODE",
    [0x8d] = "BINUNICODE8",
    [')'] = "EMPTY_TUPLE",
    ['t'] = "TUPLE",
    [0x85] = "TUPLE1",
    [0x86] = "TUPLE2",
    [0x87] = "TUPLE3",
    [']'] = "EMPTY_LIST",
    ['l'] = "LIST",
    ['a'] = "APPEND",
    ['e'] = "APPENDS",
    ['}'] = "EMPTY_DICT",
    ['d'] = "DICT",
    ['s'] = "SETITEM",
    ['u'] = "SETITEMS",
    [0x8f] = "EMPTY_SET",
    [0x90] = "ADDITEMS",
    [0x91] = "FROZENSET",
    ['p'] = "PUT",
    ['q'] = "BINPUT",
    ['r'] = "LONG_BINPUT",
    [0x94] = "MEMOIZE",
    ['g'] = "GET",
    ['h'] = "BINGET",
    ['j'] = "LONG_BINGET",
    ['c'] = "GLOBAL",
    [0x93] = "STACK_GLOBAL",
    ['R'] = "REDUCE",
    [0x81] = "NEWOBJ",
    ['b'] = "BUILD",
    /* refused */
    ['i'] = "INST",
    ['o'] = "OBJ",
    [0x92] = "NEWOBJ_EX",
    [0x82] = "EXT1",
    [0x83] = "EXT2",
    [0x84] = "EXT4",
    ['P'] = "PERSID",
    ['Q'] = "BINPERSID",
    [0x96] = "BYTEARRAY8",
    [0x97] = "NEXT_BUFFER",
    [0x98] = "READONLY_BUFFER",
};

const char *
pyprof__pk_op_name(unsigned char op)
{
    return op_names[op];
}

const char *
pyprof__pickle_type_name(int type)
{
    static const char *const names[] = {"None",  "bool", "int",  "float", "str",   "bytes",
                                        "tuple", "list", "dict", "set",   "class", "LineStats"};
    return type >= 0 && (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

/* ---- errors -------------------------------------------------------------------- */

/* Every error names the opcode being run and is positioned at its offset. */
int
pyprof__pk_fail(pyprof__pickle *pk, int code, const char *fmt, ...)
{
    char msg[PYPROF_ERROR_MESSAGE_MAX];
    const char *name = pyprof__pk_op_name(pk->op);
    va_list ap;
    va_start(ap, fmt);
    pyprof__vsnprintf_c(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (code == PYPROF_ENOMEM)
        return pyprof_error_set(pk->err, code, pk->source, pk->format, (int64_t)pk->op_at, 0,
                                "out of memory");
    if (name)
        return pyprof_error_set(pk->err, code, pk->source, pk->format, (int64_t)pk->op_at, 0,
                                "pickle opcode %s (0x%02x): %s", name, pk->op, msg);
    return pyprof_error_set(pk->err, code, pk->source, pk->format, (int64_t)pk->op_at, 0,
                            "pickle opcode 0x%02x: %s", pk->op, msg);
}

int
pyprof__pk_truncated(pyprof__pickle *pk)
{
    return pyprof__pk_fail(pk, PYPROF_EFORMAT, "truncated: the data ends inside its argument");
}

/* ---- lifecycle ------------------------------------------------------------------- */

int
pyprof__pickle_new(pyprof__pickle **out, const pyprof__pickle_limits *limits)
{
    pyprof__pickle *pk = pyprof__calloc(1, sizeof(*pk));
    *out = NULL;
    if (!pk)
        return PYPROF_ENOMEM;
    if (limits)
        pk->lim = *limits;
    if (!pk->lim.max_stack)
        pk->lim.max_stack = PK_DEFAULT_MAX_STACK;
    if (!pk->lim.max_marks)
        pk->lim.max_marks = PYPROF__DEFAULT_MAX_DEPTH;
    if (!pk->lim.max_memo)
        pk->lim.max_memo = PK_DEFAULT_MAX_MEMO;
    *out = pk;
    return 0;
}

void
pyprof__pickle_free(pyprof__pickle *pk)
{
    if (!pk)
        return;
    for (size_t i = 0; i < pk->nvecs; i++)
        pyprof__free(pk->vecs[i].ids);
    pyprof__free(pk->vecs);
    pyprof__free(pk->nodes);
    pyprof__free(pk->items);
    pyprof__free(pk->pool);
    pyprof__free(pk->stack);
    pyprof__free(pk->marks);
    pyprof__free(pk->memo);
    pyprof__free(pk);
}

/* ---- accessors ------------------------------------------------------------------- */

const pyprof__pk_node *
pyprof__pickle_node(const pyprof__pickle *pk, pyprof__pk_id id)
{
    return &pk->nodes[id];
}

pyprof__pk_id
pyprof__pickle_item(const pyprof__pickle *pk, pyprof__pk_id id, size_t i)
{
    const pyprof__pk_node *n = &pk->nodes[id];
    if (n->type == PYPROF__PK_TUPLE)
        return pk->items[n->u.at + i];
    return pk->vecs[n->u.at].ids[i];
}

const char *
pyprof__pickle_bytes(const pyprof__pickle *pk, pyprof__pk_id id, size_t *len)
{
    const pyprof__pk_node *n = &pk->nodes[id];
    if (n->type != PYPROF__PK_STR && n->type != PYPROF__PK_BYTES)
        return NULL;
    *len = n->len;
    if (n->sub == PK_IN_POOL) /* (an empty text decoded before anything else has no pool) */
        return pk->pool ? pk->pool + n->u.at : "";
    return (const char *)pk->data + n->u.at;
}

/* ---- building values ------------------------------------------------------------- */

/* A new node; every opcode makes at most one, so the count stays below the
 * input length (and ids below 2^32, checked for inputs that large). */
int
pyprof__pk_new_node(pyprof__pickle *pk, pyprof__pk_id *out, int type)
{
    if (pk->nnodes >= UINT32_MAX - 1)
        return pyprof__pk_fail(pk, PYPROF_ELIMIT, "too many values");
    if (PYPROF_GROW(pk->nodes, pk->nodes_cap, pk->nnodes + 1) < 0)
        return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
    pyprof__pk_node *n = &pk->nodes[pk->nnodes];
    memset(n, 0, sizeof(*n));
    n->type = (uint8_t)type;
    n->offset = pk->op_at;
    *out = (pyprof__pk_id)pk->nnodes++;
    return 0;
}

int
pyprof__pk_new_vec(pyprof__pickle *pk, pyprof__pk_id *out, int type)
{
    int rc = pyprof__pk_new_node(pk, out, type);
    if (rc < 0)
        return rc;
    if (PYPROF_GROW(pk->vecs, pk->vecs_cap, pk->nvecs + 1) < 0)
        return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
    pk->vecs[pk->nvecs] = (struct pk_vec){0};
    pk->nodes[*out].u.at = pk->nvecs++;
    return 0;
}

int
pyprof__pk_vec_append(pyprof__pickle *pk, pyprof__pk_id container, const pyprof__pk_id *ids,
                      size_t n)
{
    pyprof__pk_node *node = &pk->nodes[container];
    struct pk_vec *v = &pk->vecs[node->u.at];
    if (v->n + n > UINT32_MAX)
        return pyprof__pk_fail(pk, PYPROF_ELIMIT, "container too large");
    if (PYPROF_GROW(v->ids, v->cap, v->n + n) < 0)
        return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
    if (n) /* ids may be NULL then */
        memcpy(v->ids + v->n, ids, n * sizeof(*ids));
    v->n += n;
    node->len = (uint32_t)(node->type == PYPROF__PK_DICT ? v->n / 2 : v->n);
    return 0;
}

int
pyprof__pk_push(pyprof__pickle *pk, pyprof__pk_id id)
{
    if (pk->nstack >= pk->lim.max_stack)
        return pyprof__pk_fail(pk, PYPROF_ELIMIT, "more than %zu values on the stack",
                               pk->lim.max_stack);
    if (PYPROF_GROW(pk->stack, pk->stack_cap, pk->nstack + 1) < 0)
        return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
    pk->stack[pk->nstack++] = id;
    return 0;
}

int
pyprof__pk_push_new(pyprof__pickle *pk, int type, int64_t i)
{
    pyprof__pk_id id = 0;
    int rc = pyprof__pk_new_node(pk, &id, type);
    if (rc < 0)
        return rc;
    pk->nodes[id].u.i = i;
    return pyprof__pk_push(pk, id);
}

int
pyprof__pk_push_float(pyprof__pickle *pk, double f)
{
    pyprof__pk_id id = 0;
    int rc = pyprof__pk_new_node(pk, &id, PYPROF__PK_FLOAT);
    if (rc < 0)
        return rc;
    pk->nodes[id].u.f = f;
    return pyprof__pk_push(pk, id);
}

/* A string whose bytes are used as they are in the input. */
int
pyprof__pk_push_raw_string(pyprof__pickle *pk, int type, size_t at, size_t len)
{
    pyprof__pk_id id = 0;
    if (len > UINT32_MAX)
        return pyprof__pk_fail(pk, PYPROF_ELIMIT, "string of %zu bytes is too long", len);
    int rc = pyprof__pk_new_node(pk, &id, type);
    if (rc < 0)
        return rc;
    pk->nodes[id].sub = PK_IN_INPUT;
    pk->nodes[id].len = (uint32_t)len;
    pk->nodes[id].u.at = at;
    return pyprof__pk_push(pk, id);
}

/* The first index of the innermost mark's items, or an error. */
int
pyprof__pk_mark_start(pyprof__pickle *pk, size_t *start)
{
    if (!pk->nmarks)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "no MARK before it");
    *start = pk->marks[pk->nmarks - 1];
    return 0;
}

int
pyprof__pk_pop_mark(pyprof__pickle *pk, size_t *start)
{
    int rc = pyprof__pk_mark_start(pk, start);
    if (rc < 0)
        return rc;
    pk->nmarks--;
    return 0;
}

/* Pop the top value, which must exist above the innermost mark. */
int
pyprof__pk_pop(pyprof__pickle *pk, pyprof__pk_id *out)
{
    size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
    if (pk->nstack <= floor)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "the stack is empty");
    *out = pk->stack[--pk->nstack];
    return 0;
}

int
pyprof__pk_top(pyprof__pickle *pk, pyprof__pk_id *out)
{
    size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
    if (pk->nstack <= floor)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "the stack is empty");
    *out = pk->stack[pk->nstack - 1];
    return 0;
}

/* Make a tuple of stack[start..nstack) and replace them by it. */
int
pyprof__pk_make_tuple(pyprof__pickle *pk, size_t start)
{
    pyprof__pk_id id = 0;
    size_t n = pk->nstack - start;
    int rc = pyprof__pk_new_node(pk, &id, PYPROF__PK_TUPLE);
    if (rc < 0)
        return rc;
    if (PYPROF_GROW(pk->items, pk->items_cap, pk->nitems + n) < 0)
        return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
    if (n)
        memcpy(pk->items + pk->nitems, pk->stack + start, n * sizeof(*pk->stack));
    pk->nodes[id].u.at = pk->nitems;
    pk->nodes[id].len = (uint32_t)n;
    pk->nitems += n;
    pk->nstack = start;
    return pyprof__pk_push(pk, id);
}

/* Make a list, dict or set of stack[start..nstack) and replace them by it. */
int
pyprof__pk_make_vec(pyprof__pickle *pk, int type, size_t start)
{
    pyprof__pk_id id = 0;
    size_t n = pk->nstack - start;
    if (type == PYPROF__PK_DICT && n % 2)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "odd number of items for a dict");
    int rc = pyprof__pk_new_vec(pk, &id, type);
    if (rc < 0)
        return rc;
    /* an empty stack may not be allocated yet: no arithmetic on NULL */
    if (n && (rc = pyprof__pk_vec_append(pk, id, pk->stack + start, n)) < 0)
        return rc;
    pk->nstack = start;
    return pyprof__pk_push(pk, id);
}

/* APPENDS, SETITEMS, ADDITEMS: move stack[mark..] into the container below the mark. */
int
pyprof__pk_extend_from_mark(pyprof__pickle *pk, int type)
{
    size_t start = 0;
    int rc = pyprof__pk_pop_mark(pk, &start);
    if (rc < 0)
        return rc;
    size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
    if (start <= floor)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "no %s below the MARK",
                               pyprof__pickle_type_name(type));
    pyprof__pk_id target = pk->stack[start - 1];
    if (pk->nodes[target].type != type)
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "refused: the target is a %s, not a %s",
                               pyprof__pickle_type_name(pk->nodes[target].type),
                               pyprof__pickle_type_name(type));
    size_t n = pk->nstack - start;
    if (type == PYPROF__PK_DICT && n % 2)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "odd number of items for a dict");
    if ((rc = pyprof__pk_vec_append(pk, target, pk->stack + start, n)) < 0)
        return rc;
    pk->nstack = start;
    return 0;
}

/* ---- memo ------------------------------------------------------------------------ */

int
pyprof__pk_memo_put(pyprof__pickle *pk, uint64_t idx)
{
    pyprof__pk_id id = 0;
    int rc = pyprof__pk_top(pk, &id);
    if (rc < 0)
        return rc;
    /* Python numbers memo slots densely, so an index can never exceed the
     * bytes of input: a larger one only asks for memory. */
    if (idx >= pk->lim.max_memo || idx >= pk->len)
        return pyprof__pk_fail(pk, PYPROF_ELIMIT, "memo index %llu is beyond the limit",
                               (unsigned long long)idx);
    if (idx >= pk->memo_cap) {
        size_t old = pk->memo_cap;
        if (PYPROF_GROW(pk->memo, pk->memo_cap, (size_t)idx + 1) < 0)
            return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
        memset(pk->memo + old, 0, (pk->memo_cap - old) * sizeof(*pk->memo));
    }
    if (!pk->memo[idx])
        pk->memo_count++;
    pk->memo[idx] = id + 1;
    return 0;
}

int
pyprof__pk_memo_get(pyprof__pickle *pk, uint64_t idx)
{
    if (idx >= pk->memo_cap || !pk->memo[idx])
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "memo index %llu was never stored",
                               (unsigned long long)idx);
    return pyprof__pk_push(pk, pk->memo[idx] - 1);
}

/* ---- the machine ------------------------------------------------------------------ */

int
pyprof__pickle_run(pyprof__pickle *pk, pyprof__pk_id *result, const unsigned char *data, size_t len,
                   const char *source, const char *format, pyprof_error *err)
{
    bool stop = false;
    int rc;
    *result = 0;
    pk->source = source;
    pk->format = format;
    pk->err = err;
    if (pk->ran)
        return pyprof_error_set(err, PYPROF_EINVAL, source, format, -1, 0,
                                "a pickle machine runs one pickle");
    pk->ran = true;
    pk->data = data;
    pk->len = len;
    pk->pos = 0;
    while (!stop) {
        pk->op_at = pk->pos;
        if (pk->pos >= pk->len) {
            pk->op = 0;
            return pyprof_error_set(err, PYPROF_EFORMAT, source, format, (int64_t)pk->pos, 0,
                                    "truncated pickle: the data ends before STOP");
        }
        pk->op = data[pk->pos++];
        if ((rc = pyprof__pk_step(pk, &stop)) < 0)
            return rc;
    }
    *result = pk->stack[0];
    return 0;
}
