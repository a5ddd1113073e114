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
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

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

/* ---- opcode names, for messages ------------------------------------------------ */

static const char *
op_name(unsigned char op)
{
    switch (op) {
    case 0x80:
        return "PROTO";
    case 0x95:
        return "FRAME";
    case '.':
        return "STOP";
    case '(':
        return "MARK";
    case '0':
        return "POP";
    case '1':
        return "POP_MARK";
    case '2':
        return "DUP";
    case 'N':
        return "NONE";
    case 0x88:
        return "NEWTRUE";
    case 0x89:
        return "NEWFALSE";
    case 'I':
        return "INT";
    case 'J':
        return "BININT";
    case 'K':
        return "BININT1";
    case 'M':
        return "BININT2";
    case 'L':
        return "LONG";
    case 0x8a:
        return "LONG1";
    case 0x8b:
        return "LONG4";
    case 'F':
        return "FLOAT";
    case 'G':
        return "BINFLOAT";
    case 'S':
        return "STRING";
    case 'T':
        return "BINSTRING";
    case 'U':
        return "SHORT_BINSTRING";
    case 'B':
        return "BINBYTES";
    case 'C':
        return "SHORT_BINBYTES";
    case 0x8e:
        return "BINBYTES8";
    case 'V':
        return "UNICODE";
    case 'X':
        return "BINUNICODE";
    case 0x8c:
        return "SHORT_BINUNICODE";
    case 0x8d:
        return "BINUNICODE8";
    case ')':
        return "EMPTY_TUPLE";
    case 't':
        return "TUPLE";
    case 0x85:
        return "TUPLE1";
    case 0x86:
        return "TUPLE2";
    case 0x87:
        return "TUPLE3";
    case ']':
        return "EMPTY_LIST";
    case 'l':
        return "LIST";
    case 'a':
        return "APPEND";
    case 'e':
        return "APPENDS";
    case '}':
        return "EMPTY_DICT";
    case 'd':
        return "DICT";
    case 's':
        return "SETITEM";
    case 'u':
        return "SETITEMS";
    case 0x8f:
        return "EMPTY_SET";
    case 0x90:
        return "ADDITEMS";
    case 0x91:
        return "FROZENSET";
    case 'p':
        return "PUT";
    case 'q':
        return "BINPUT";
    case 'r':
        return "LONG_BINPUT";
    case 0x94:
        return "MEMOIZE";
    case 'g':
        return "GET";
    case 'h':
        return "BINGET";
    case 'j':
        return "LONG_BINGET";
    case 'c':
        return "GLOBAL";
    case 0x93:
        return "STACK_GLOBAL";
    case 'R':
        return "REDUCE";
    case 0x81:
        return "NEWOBJ";
    case 'b':
        return "BUILD";
    /* known to Python, refused here */
    case 'i':
        return "INST";
    case 'o':
        return "OBJ";
    case 0x92:
        return "NEWOBJ_EX";
    case 0x82:
        return "EXT1";
    case 0x83:
        return "EXT2";
    case 0x84:
        return "EXT4";
    case 'P':
        return "PERSID";
    case 'Q':
        return "BINPERSID";
    case 0x96:
        return "BYTEARRAY8";
    case 0x97:
        return "NEXT_BUFFER";
    case 0x98:
        return "READONLY_BUFFER";
    default:
        return NULL;
    }
}

const char *
pyprof__pickle_type_name(int type)
{
    static const char *const names[] = {"None",  "bool", "int",  "float", "str",   "bytes",
                                        "tuple", "list", "dict", "set",   "class", "LineStats"};
    return type >= 0 && (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

static const struct {
    const char *module, *name;
    pyprof__pk_global g;
} allowlist[] = {
    {"_line_profiler", "LineStats", PYPROF__PK_G_LINESTATS_2X},
    {"line_profiler._line_profiler", "LineStats", PYPROF__PK_G_LINESTATS_3X},
    {"line_profiler.line_profiler", "LineStats", PYPROF__PK_G_LINESTATS_501},
    /* protocols 0 and 1 build the instance with copy_reg._reconstructor;
     * Python 3 writes the Python 2 module names there (fix_imports) */
    {"copy_reg", "_reconstructor", PYPROF__PK_G_RECONSTRUCTOR},
    {"copyreg", "_reconstructor", PYPROF__PK_G_RECONSTRUCTOR},
    {"__builtin__", "object", PYPROF__PK_G_OBJECT},
    {"builtins", "object", PYPROF__PK_G_OBJECT},
};

const char *
pyprof__pickle_global_name(int global)
{
    static const char *const names[] = {
        "_line_profiler.LineStats", "line_profiler._line_profiler.LineStats",
        "line_profiler.line_profiler.LineStats", "copyreg._reconstructor", "builtins.object"};
    return global >= 0 && (size_t)global < sizeof(names) / sizeof(names[0]) ? names[global] : "?";
}

static bool
is_linestats(int g)
{
    return g == PYPROF__PK_G_LINESTATS_2X || g == PYPROF__PK_G_LINESTATS_3X ||
           g == PYPROF__PK_G_LINESTATS_501;
}

/* ---- errors -------------------------------------------------------------------- */

/* Every error names the opcode being run and is positioned at its offset. */
__attribute__((format(printf, 3, 4))) static int
fail(pyprof__pickle *pk, int code, const char *fmt, ...)
{
    char msg[PYPROF_ERROR_MESSAGE_MAX];
    const char *name = op_name(pk->op);
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

static int
truncated(pyprof__pickle *pk)
{
    return fail(pk, PYPROF_EFORMAT, "truncated: the data ends inside its argument");
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
    if (n->sub == PK_IN_POOL)
        return pk->pool + n->u.at;
    return (const char *)pk->data + n->u.at;
}

/* ---- building values ------------------------------------------------------------- */

/* A new node; every opcode makes at most one, so the count stays below the
 * input length (and ids below 2^32, checked for inputs that large). */
static int
new_node(pyprof__pickle *pk, pyprof__pk_id *out, int type)
{
    if (pk->nnodes >= UINT32_MAX - 1)
        return fail(pk, PYPROF_ELIMIT, "too many values");
    if (PYPROF_GROW(pk->nodes, pk->nodes_cap, pk->nnodes + 1) < 0)
        return fail(pk, PYPROF_ENOMEM, "-");
    pyprof__pk_node *n = &pk->nodes[pk->nnodes];
    memset(n, 0, sizeof(*n));
    n->type = (uint8_t)type;
    n->offset = pk->op_at;
    *out = (pyprof__pk_id)pk->nnodes++;
    return 0;
}

static int
new_vec(pyprof__pickle *pk, pyprof__pk_id *out, int type)
{
    int rc = new_node(pk, out, type);
    if (rc < 0)
        return rc;
    if (PYPROF_GROW(pk->vecs, pk->vecs_cap, pk->nvecs + 1) < 0)
        return fail(pk, PYPROF_ENOMEM, "-");
    pk->vecs[pk->nvecs] = (struct pk_vec){0};
    pk->nodes[*out].u.at = pk->nvecs++;
    return 0;
}

static int
vec_append(pyprof__pickle *pk, pyprof__pk_id container, const pyprof__pk_id *ids, size_t n)
{
    pyprof__pk_node *node = &pk->nodes[container];
    struct pk_vec *v = &pk->vecs[node->u.at];
    if (v->n + n > UINT32_MAX)
        return fail(pk, PYPROF_ELIMIT, "container too large");
    if (PYPROF_GROW(v->ids, v->cap, v->n + n) < 0)
        return fail(pk, PYPROF_ENOMEM, "-");
    memcpy(v->ids + v->n, ids, n * sizeof(*ids));
    v->n += n;
    node->len = (uint32_t)(node->type == PYPROF__PK_DICT ? v->n / 2 : v->n);
    return 0;
}

static int
push(pyprof__pickle *pk, pyprof__pk_id id)
{
    if (pk->nstack >= pk->lim.max_stack)
        return fail(pk, PYPROF_ELIMIT, "more than %zu values on the stack", pk->lim.max_stack);
    if (PYPROF_GROW(pk->stack, pk->stack_cap, pk->nstack + 1) < 0)
        return fail(pk, PYPROF_ENOMEM, "-");
    pk->stack[pk->nstack++] = id;
    return 0;
}

static int
push_new(pyprof__pickle *pk, int type, int64_t i)
{
    pyprof__pk_id id = 0;
    int rc = new_node(pk, &id, type);
    if (rc < 0)
        return rc;
    pk->nodes[id].u.i = i;
    return push(pk, id);
}

static int
push_float(pyprof__pickle *pk, double f)
{
    pyprof__pk_id id = 0;
    int rc = new_node(pk, &id, PYPROF__PK_FLOAT);
    if (rc < 0)
        return rc;
    pk->nodes[id].u.f = f;
    return push(pk, id);
}

/* A string whose bytes are used as they are in the input. */
static int
push_raw_string(pyprof__pickle *pk, int type, size_t at, size_t len)
{
    pyprof__pk_id id = 0;
    if (len > UINT32_MAX)
        return fail(pk, PYPROF_ELIMIT, "string of %zu bytes is too long", len);
    int rc = new_node(pk, &id, type);
    if (rc < 0)
        return rc;
    pk->nodes[id].sub = PK_IN_INPUT;
    pk->nodes[id].len = (uint32_t)len;
    pk->nodes[id].u.at = at;
    return push(pk, id);
}

/* The first index of the innermost mark's items, or an error. */
static int
mark_start(pyprof__pickle *pk, size_t *start)
{
    if (!pk->nmarks)
        return fail(pk, PYPROF_EFORMAT, "no MARK before it");
    *start = pk->marks[pk->nmarks - 1];
    return 0;
}

static int
pop_mark(pyprof__pickle *pk, size_t *start)
{
    int rc = mark_start(pk, start);
    if (rc < 0)
        return rc;
    pk->nmarks--;
    return 0;
}

/* Pop the top value, which must exist above the innermost mark. */
static int
pop(pyprof__pickle *pk, pyprof__pk_id *out)
{
    size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
    if (pk->nstack <= floor)
        return fail(pk, PYPROF_EFORMAT, "the stack is empty");
    *out = pk->stack[--pk->nstack];
    return 0;
}

static int
top(pyprof__pickle *pk, pyprof__pk_id *out)
{
    size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
    if (pk->nstack <= floor)
        return fail(pk, PYPROF_EFORMAT, "the stack is empty");
    *out = pk->stack[pk->nstack - 1];
    return 0;
}

/* Make a tuple of stack[start..nstack) and replace them by it. */
static int
make_tuple(pyprof__pickle *pk, size_t start)
{
    pyprof__pk_id id = 0;
    size_t n = pk->nstack - start;
    int rc = new_node(pk, &id, PYPROF__PK_TUPLE);
    if (rc < 0)
        return rc;
    if (PYPROF_GROW(pk->items, pk->items_cap, pk->nitems + n) < 0)
        return fail(pk, PYPROF_ENOMEM, "-");
    memcpy(pk->items + pk->nitems, pk->stack + start, n * sizeof(*pk->stack));
    pk->nodes[id].u.at = pk->nitems;
    pk->nodes[id].len = (uint32_t)n;
    pk->nitems += n;
    pk->nstack = start;
    return push(pk, id);
}

/* Make a list, dict or set of stack[start..nstack) and replace them by it. */
static int
make_vec(pyprof__pickle *pk, int type, size_t start)
{
    pyprof__pk_id id = 0;
    size_t n = pk->nstack - start;
    if (type == PYPROF__PK_DICT && n % 2)
        return fail(pk, PYPROF_EFORMAT, "odd number of items for a dict");
    int rc = new_vec(pk, &id, type);
    if (rc < 0)
        return rc;
    if ((rc = vec_append(pk, id, pk->stack + start, n)) < 0)
        return rc;
    pk->nstack = start;
    return push(pk, id);
}

/* APPENDS, SETITEMS, ADDITEMS: move stack[mark..] into the container below the mark. */
static int
extend_from_mark(pyprof__pickle *pk, int type)
{
    size_t start = 0;
    int rc = pop_mark(pk, &start);
    if (rc < 0)
        return rc;
    size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
    if (start <= floor)
        return fail(pk, PYPROF_EFORMAT, "no %s below the MARK", pyprof__pickle_type_name(type));
    pyprof__pk_id target = pk->stack[start - 1];
    if (pk->nodes[target].type != type)
        return fail(pk, PYPROF_EUNSUPPORTED, "refused: the target is a %s, not a %s",
                    pyprof__pickle_type_name(pk->nodes[target].type),
                    pyprof__pickle_type_name(type));
    size_t n = pk->nstack - start;
    if (type == PYPROF__PK_DICT && n % 2)
        return fail(pk, PYPROF_EFORMAT, "odd number of items for a dict");
    if ((rc = vec_append(pk, target, pk->stack + start, n)) < 0)
        return rc;
    pk->nstack = start;
    return 0;
}

/* ---- reading arguments --------------------------------------------------------- */

static int
need(pyprof__pickle *pk, size_t n)
{
    return pk->len - pk->pos >= n ? 0 : truncated(pk);
}

static uint64_t
read_le(pyprof__pickle *pk, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)pk->data[pk->pos + i] << (8 * i);
    pk->pos += n;
    return v;
}

/* A text argument: the bytes up to '\n', which is consumed. */
static int
read_line(pyprof__pickle *pk, const char **s, size_t *n)
{
    const unsigned char *p = pk->data + pk->pos;
    const unsigned char *nl = memchr(p, '\n', pk->len - pk->pos);
    if (!nl)
        return truncated(pk);
    *s = (const char *)p;
    *n = (size_t)(nl - p);
    pk->pos += *n + 1;
    return 0;
}

/* Decimal text as Python's int() takes it from INT/LONG/PUT/GET: optional
 * blanks and sign, digits, for LONG an optional trailing 'L'. */
static int
parse_decimal(pyprof__pickle *pk, const char *s, size_t n, bool allow_l, int64_t *out)
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
        return fail(pk, PYPROF_EFORMAT, "'%.*s' is not a decimal integer", (int)(n > 40 ? 40 : n),
                    s);
    lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < end; i++) {
        if (s[i] < '0' || s[i] > '9')
            return fail(pk, PYPROF_EFORMAT, "'%.*s' is not a decimal integer",
                        (int)(n > 40 ? 40 : n), s);
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return fail(pk, PYPROF_EUNSUPPORTED, "integer does not fit in 64 bits");
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* LONG1/LONG4: little-endian two's complement of n bytes. */
static int
long_bytes(pyprof__pickle *pk, size_t n)
{
    const unsigned char *b = pk->data + pk->pos;
    int64_t v = 0;
    if (n > 0) {
        bool neg = b[n - 1] & 0x80;
        /* bytes beyond the 8th must be pure sign extension */
        for (size_t i = 8; i < n; i++)
            if (b[i] != (neg ? 0xff : 0x00))
                return fail(pk, PYPROF_EUNSUPPORTED, "integer does not fit in 64 bits");
        size_t k = n < 8 ? n : 8;
        uint64_t u = neg ? ~(uint64_t)0 : 0;
        for (size_t i = 0; i < k; i++) {
            u &= ~((uint64_t)0xff << (8 * i));
            u |= (uint64_t)b[i] << (8 * i);
        }
        if (n > 8 && (bool)(u >> 63) != neg)
            return fail(pk, PYPROF_EUNSUPPORTED, "integer does not fit in 64 bits");
        memcpy(&v, &u, sizeof(v));
    }
    pk->pos += n;
    return push_new(pk, PYPROF__PK_INT, v);
}

/* ---- decoded strings -------------------------------------------------------------- */

static int
pool_put(pyprof__pickle *pk, const void *s, size_t n)
{
    if (PYPROF_GROW(pk->pool, pk->pool_cap, pk->npool + n) < 0)
        return fail(pk, PYPROF_ENOMEM, "-");
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
        return fail(pk, PYPROF_ELIMIT, "string of %zu bytes is too long", n);
    int rc = new_node(pk, &id, type);
    if (rc < 0)
        return rc;
    pk->nodes[id].sub = PK_IN_POOL;
    pk->nodes[id].len = (uint32_t)n;
    pk->nodes[id].u.at = start;
    return push(pk, id);
}

/* UNICODE (protocol 0): raw-unicode-escape.  A backslash run of odd length
 * followed by u/U starts an escape of 4/8 hex digits; every other byte is a
 * Latin-1 code point.  Surrogate pairs (narrow Python 2 builds) are joined. */
static int
decode_raw_unicode(pyprof__pickle *pk, const char *s, size_t n)
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
                return fail(pk, PYPROF_EFORMAT, "truncated \\u escape in the text");
            cp = 0;
            for (size_t k = 0; k < digits; k++) {
                int h = hexval((unsigned char)s[i + k]);
                if (h < 0)
                    return fail(pk, PYPROF_EFORMAT, "bad \\u escape in the text");
                cp = cp << 4 | (uint32_t)h;
            }
            i += digits;
            if (cp > 0x10ffff)
                return fail(pk, PYPROF_EFORMAT, "\\U escape beyond U+10FFFF");
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
static int
decode_quoted(pyprof__pickle *pk, const char *s, size_t n)
{
    size_t start = pk->npool;
    int rc;
    if (n < 2 || s[0] != s[n - 1] || (s[0] != '\'' && s[0] != '"'))
        return fail(pk, PYPROF_EFORMAT, "the argument must be a quoted string");
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
            return fail(pk, PYPROF_EFORMAT, "trailing \\ in the string");
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
                return fail(pk, PYPROF_EFORMAT, "invalid \\x escape in the string");
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

/* ---- memo ------------------------------------------------------------------------ */

static int
memo_put(pyprof__pickle *pk, uint64_t idx)
{
    pyprof__pk_id id = 0;
    int rc = top(pk, &id);
    if (rc < 0)
        return rc;
    /* Python numbers memo slots densely, so an index can never exceed the
     * bytes of input: a larger one only asks for memory. */
    if (idx >= pk->lim.max_memo || idx >= pk->len)
        return fail(pk, PYPROF_ELIMIT, "memo index %llu is beyond the limit",
                    (unsigned long long)idx);
    if (idx >= pk->memo_cap) {
        size_t old = pk->memo_cap;
        if (PYPROF_GROW(pk->memo, pk->memo_cap, (size_t)idx + 1) < 0)
            return fail(pk, PYPROF_ENOMEM, "-");
        memset(pk->memo + old, 0, (pk->memo_cap - old) * sizeof(*pk->memo));
    }
    if (!pk->memo[idx])
        pk->memo_count++;
    pk->memo[idx] = id + 1;
    return 0;
}

static int
memo_get(pyprof__pickle *pk, uint64_t idx)
{
    if (idx >= pk->memo_cap || !pk->memo[idx])
        return fail(pk, PYPROF_EFORMAT, "memo index %llu was never stored",
                    (unsigned long long)idx);
    return push(pk, pk->memo[idx] - 1);
}

static int
memo_text(pyprof__pickle *pk, uint64_t *idx)
{
    const char *s = NULL;
    size_t n = 0;
    int64_t v;
    int rc = read_line(pk, &s, &n);
    if (rc < 0 || (rc = parse_decimal(pk, s, n, false, &v)) < 0)
        return rc;
    if (v < 0)
        return fail(pk, PYPROF_EFORMAT, "negative memo index");
    *idx = (uint64_t)v;
    return 0;
}

/* ---- globals and object construction ---------------------------------------------- */

/* Copy at most 60 printable ASCII bytes of a name for a message. */
static void
printable(char *dst, size_t size, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < size && i < 60; i++)
        dst[k++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (n > 60 && k + 4 < size) {
        memcpy(dst + k, "...", 3);
        k += 3;
    }
    dst[k] = '\0';
}

static int
push_global(pyprof__pickle *pk, const char *mod, size_t modn, const char *name, size_t namen)
{
    for (size_t i = 0; i < sizeof(allowlist) / sizeof(allowlist[0]); i++) {
        if (strlen(allowlist[i].module) == modn && memcmp(allowlist[i].module, mod, modn) == 0 &&
            strlen(allowlist[i].name) == namen && memcmp(allowlist[i].name, name, namen) == 0) {
            pyprof__pk_id id = 0;
            int rc = new_node(pk, &id, PYPROF__PK_GLOBAL);
            if (rc < 0)
                return rc;
            pk->nodes[id].sub = (uint8_t)allowlist[i].g;
            return push(pk, id);
        }
    }
    char m[72], nm[72];
    printable(m, sizeof(m), mod, modn);
    printable(nm, sizeof(nm), name, namen);
    return fail(pk, PYPROF_EUNSUPPORTED,
                "refused global %s.%s: only line_profiler's LineStats can be loaded", m, nm);
}

static int
new_instance(pyprof__pickle *pk, int cls)
{
    pyprof__pk_id id = 0;
    if (pk->instances)
        return fail(pk, PYPROF_EUNSUPPORTED, "refused: a second LineStats instance");
    int rc = new_vec(pk, &id, PYPROF__PK_INSTANCE);
    if (rc < 0)
        return rc;
    pk->instances++;
    pk->nodes[id].sub = (uint8_t)cls;
    return push(pk, id);
}

static int
op_reduce(pyprof__pickle *pk)
{
    pyprof__pk_id args, fn;
    int rc;
    if ((rc = pop(pk, &args)) < 0 || (rc = pop(pk, &fn)) < 0)
        return rc;
    const pyprof__pk_node *f = &pk->nodes[fn], *a = &pk->nodes[args];
    if (f->type != PYPROF__PK_GLOBAL || f->sub != PYPROF__PK_G_RECONSTRUCTOR)
        return fail(pk, PYPROF_EUNSUPPORTED,
                    "refused call of a %s: only copy_reg._reconstructor(LineStats, object, "
                    "None) is allowed",
                    f->type == PYPROF__PK_GLOBAL ? pyprof__pickle_global_name(f->sub)
                                                 : pyprof__pickle_type_name(f->type));
    if (a->type != PYPROF__PK_TUPLE || a->len != 3)
        return fail(pk, PYPROF_EUNSUPPORTED, "refused _reconstructor arguments: not a 3-tuple");
    const pyprof__pk_node *cls = &pk->nodes[pyprof__pickle_item(pk, args, 0)];
    const pyprof__pk_node *base = &pk->nodes[pyprof__pickle_item(pk, args, 1)];
    const pyprof__pk_node *state = &pk->nodes[pyprof__pickle_item(pk, args, 2)];
    if (cls->type != PYPROF__PK_GLOBAL || !is_linestats(cls->sub) ||
        base->type != PYPROF__PK_GLOBAL || base->sub != PYPROF__PK_G_OBJECT ||
        state->type != PYPROF__PK_NONE)
        return fail(pk, PYPROF_EUNSUPPORTED,
                    "refused _reconstructor arguments: only (LineStats, object, None)");
    return new_instance(pk, cls->sub);
}

static int
op_newobj(pyprof__pickle *pk)
{
    pyprof__pk_id args, cls;
    int rc;
    if ((rc = pop(pk, &args)) < 0 || (rc = pop(pk, &cls)) < 0)
        return rc;
    const pyprof__pk_node *c = &pk->nodes[cls], *a = &pk->nodes[args];
    if (c->type != PYPROF__PK_GLOBAL || !is_linestats(c->sub))
        return fail(pk, PYPROF_EUNSUPPORTED,
                    "refused: only LineStats may be instantiated, not a %s",
                    c->type == PYPROF__PK_GLOBAL ? pyprof__pickle_global_name(c->sub)
                                                 : pyprof__pickle_type_name(c->type));
    if (a->type != PYPROF__PK_TUPLE || a->len != 0)
        return fail(pk, PYPROF_EUNSUPPORTED, "refused: LineStats takes no arguments here");
    return new_instance(pk, c->sub);
}

/* BUILD: the state is a dict of attributes, or (dict-or-None, slots-dict-or-None). */
static int
op_build(pyprof__pickle *pk)
{
    pyprof__pk_id state, inst;
    pyprof__pk_id parts[2];
    size_t nparts = 0;
    int rc;
    if ((rc = pop(pk, &state)) < 0 || (rc = top(pk, &inst)) < 0)
        return rc;
    if (pk->nodes[inst].type != PYPROF__PK_INSTANCE)
        return fail(pk, PYPROF_EUNSUPPORTED, "refused: BUILD on a %s, not on a LineStats",
                    pyprof__pickle_type_name(pk->nodes[inst].type));
    const pyprof__pk_node *s = &pk->nodes[state];
    if (s->type == PYPROF__PK_DICT) {
        parts[nparts++] = state;
    } else if (s->type == PYPROF__PK_TUPLE && s->len == 2) {
        for (size_t i = 0; i < 2; i++) {
            pyprof__pk_id part = pyprof__pickle_item(pk, state, i);
            int t = pk->nodes[part].type;
            if (t == PYPROF__PK_DICT)
                parts[nparts++] = part;
            else if (t != PYPROF__PK_NONE)
                return fail(pk, PYPROF_EUNSUPPORTED, "refused LineStats state: a %s",
                            pyprof__pickle_type_name(t));
        }
    } else {
        return fail(pk, PYPROF_EUNSUPPORTED, "refused LineStats state: a %s, not a dict",
                    pyprof__pickle_type_name(s->type));
    }
    return vec_append(pk, inst, parts, nparts);
}

/* ---- the machine ------------------------------------------------------------------ */

static int
step(pyprof__pickle *pk, bool *stop)
{
    const char *s = NULL;
    size_t n = 0, start = 0;
    pyprof__pk_id a = 0, b = 0;
    int rc;
    unsigned char op = pk->op;

    switch (op) {
    case 0x80: /* PROTO */
        if ((rc = need(pk, 1)) < 0)
            return rc;
        if (pk->data[pk->pos] > 5)
            return fail(pk, PYPROF_EUNSUPPORTED, "protocol %d is newer than 5", pk->data[pk->pos]);
        pk->pos++;
        return 0;
    case 0x95: { /* FRAME: a length hint; only checked */
        if ((rc = need(pk, 8)) < 0)
            return rc;
        uint64_t flen = read_le(pk, 8);
        if (flen > pk->len - pk->pos)
            return fail(pk, PYPROF_EFORMAT, "truncated: frame of %llu bytes, %zu left",
                        (unsigned long long)flen, pk->len - pk->pos);
        return 0;
    }
    case '.': /* STOP */
        if (pk->nmarks)
            return fail(pk, PYPROF_EFORMAT, "a MARK is still open");
        if (pk->nstack != 1)
            return fail(pk, PYPROF_EFORMAT, "%zu values on the stack, expected 1", pk->nstack);
        *stop = true;
        return 0;
    case '(': /* MARK */
        if (pk->nmarks >= pk->lim.max_marks)
            return fail(pk, PYPROF_ELIMIT, "MARKs nested deeper than %zu", pk->lim.max_marks);
        if (PYPROF_GROW(pk->marks, pk->marks_cap, pk->nmarks + 1) < 0)
            return fail(pk, PYPROF_ENOMEM, "-");
        pk->marks[pk->nmarks++] = pk->nstack;
        return 0;
    case '0': /* POP: a value, or the mark itself when none is above it */
        if (pk->nmarks && pk->nstack == pk->marks[pk->nmarks - 1]) {
            pk->nmarks--;
            return 0;
        }
        return pop(pk, &a);
    case '1': /* POP_MARK */
        if ((rc = pop_mark(pk, &start)) < 0)
            return rc;
        pk->nstack = start;
        return 0;
    case '2': /* DUP */
        if ((rc = top(pk, &a)) < 0)
            return rc;
        return push(pk, a);
    case 'N':
        return push_new(pk, PYPROF__PK_NONE, 0);
    case 0x88:
        return push_new(pk, PYPROF__PK_BOOL, 1);
    case 0x89:
        return push_new(pk, PYPROF__PK_BOOL, 0);
    case 'I': { /* INT: "01"/"00" are Python 2's True/False */
        int64_t v;
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        if (n == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1'))
            return push_new(pk, PYPROF__PK_BOOL, s[1] == '1');
        if ((rc = parse_decimal(pk, s, n, false, &v)) < 0)
            return rc;
        return push_new(pk, PYPROF__PK_INT, v);
    }
    case 'L': {
        int64_t v;
        if ((rc = read_line(pk, &s, &n)) < 0 || (rc = parse_decimal(pk, s, n, true, &v)) < 0)
            return rc;
        return push_new(pk, PYPROF__PK_INT, v);
    }
    case 'J': {
        if ((rc = need(pk, 4)) < 0)
            return rc;
        uint32_t u = (uint32_t)read_le(pk, 4);
        int32_t v;
        memcpy(&v, &u, sizeof(v));
        return push_new(pk, PYPROF__PK_INT, v);
    }
    case 'K':
        if ((rc = need(pk, 1)) < 0)
            return rc;
        return push_new(pk, PYPROF__PK_INT, (int64_t)read_le(pk, 1));
    case 'M':
        if ((rc = need(pk, 2)) < 0)
            return rc;
        return push_new(pk, PYPROF__PK_INT, (int64_t)read_le(pk, 2));
    case 0x8a: /* LONG1 */
        if ((rc = need(pk, 1)) < 0)
            return rc;
        n = (size_t)read_le(pk, 1);
        if ((rc = need(pk, n)) < 0)
            return rc;
        return long_bytes(pk, n);
    case 0x8b: { /* LONG4 */
        if ((rc = need(pk, 4)) < 0)
            return rc;
        uint32_t u = (uint32_t)read_le(pk, 4);
        if (u & 0x80000000u)
            return fail(pk, PYPROF_EFORMAT, "negative byte count");
        if ((rc = need(pk, u)) < 0)
            return rc;
        return long_bytes(pk, u);
    }
    case 'F': {
        char buf[64], *end;
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        if (n == 0 || n >= sizeof(buf))
            return fail(pk, PYPROF_EFORMAT, "not a float");
        memcpy(buf, s, n);
        buf[n] = '\0';
        double f = pyprof__strtod_c(buf, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == buf || *end)
            return fail(pk, PYPROF_EFORMAT, "'%s' is not a float", buf);
        return push_float(pk, f);
    }
    case 'G': { /* BINFLOAT: big-endian, unlike marshal */
        if ((rc = need(pk, 8)) < 0)
            return rc;
        uint64_t u = 0;
        for (int i = 0; i < 8; i++)
            u = u << 8 | pk->data[pk->pos + i];
        pk->pos += 8;
        double f;
        memcpy(&f, &u, sizeof(f));
        return push_float(pk, f);
    }
    case 'S':
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        while (n && s[n - 1] == '\r')
            n--;
        return decode_quoted(pk, s, n);
    case 'V':
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        return decode_raw_unicode(pk, s, n);
    case 'T': { /* BINSTRING: signed length */
        if ((rc = need(pk, 4)) < 0)
            return rc;
        uint32_t u = (uint32_t)read_le(pk, 4);
        if (u & 0x80000000u)
            return fail(pk, PYPROF_EFORMAT, "negative byte count");
        n = u;
        goto sized_bytes;
    }
    case 'B': /* BINBYTES */
        if ((rc = need(pk, 4)) < 0)
            return rc;
        n = (size_t)read_le(pk, 4);
        goto sized_bytes;
    case 'U':
    case 'C': /* SHORT_BINSTRING, SHORT_BINBYTES */
        if ((rc = need(pk, 1)) < 0)
            return rc;
        n = (size_t)read_le(pk, 1);
        goto sized_bytes;
    case 0x8e: { /* BINBYTES8 */
        if ((rc = need(pk, 8)) < 0)
            return rc;
        uint64_t u = read_le(pk, 8);
        if (u > pk->len - pk->pos)
            return truncated(pk);
        n = (size_t)u;
        goto sized_bytes;
    }
    sized_bytes:
        if ((rc = need(pk, n)) < 0)
            return rc;
        pk->pos += n;
        return push_raw_string(pk, PYPROF__PK_BYTES, pk->pos - n, n);
    case 'X':
        if ((rc = need(pk, 4)) < 0)
            return rc;
        n = (size_t)read_le(pk, 4);
        goto sized_text;
    case 0x8c:
        if ((rc = need(pk, 1)) < 0)
            return rc;
        n = (size_t)read_le(pk, 1);
        goto sized_text;
    case 0x8d: {
        if ((rc = need(pk, 8)) < 0)
            return rc;
        uint64_t u = read_le(pk, 8);
        if (u > pk->len - pk->pos)
            return truncated(pk);
        n = (size_t)u;
        goto sized_text;
    }
    sized_text:
        if ((rc = need(pk, n)) < 0)
            return rc;
        pk->pos += n;
        return push_raw_string(pk, PYPROF__PK_STR, pk->pos - n, n);
    case ')':
        return make_tuple(pk, pk->nstack);
    case 't':
        if ((rc = pop_mark(pk, &start)) < 0)
            return rc;
        return make_tuple(pk, start);
    case 0x85:
    case 0x86:
    case 0x87: { /* TUPLE1..3 */
        size_t k = (size_t)(op - 0x84);
        size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
        if (pk->nstack - floor < k)
            return fail(pk, PYPROF_EFORMAT, "fewer than %zu values on the stack", k);
        return make_tuple(pk, pk->nstack - k);
    }
    case ']':
        return make_vec(pk, PYPROF__PK_LIST, pk->nstack);
    case '}':
        return make_vec(pk, PYPROF__PK_DICT, pk->nstack);
    case 0x8f:
        return make_vec(pk, PYPROF__PK_SET, pk->nstack);
    case 'l':
        if ((rc = pop_mark(pk, &start)) < 0)
            return rc;
        return make_vec(pk, PYPROF__PK_LIST, start);
    case 'd':
        if ((rc = pop_mark(pk, &start)) < 0)
            return rc;
        return make_vec(pk, PYPROF__PK_DICT, start);
    case 0x91:
        if ((rc = pop_mark(pk, &start)) < 0)
            return rc;
        return make_vec(pk, PYPROF__PK_SET, start);
    case 'a': /* APPEND */
        if ((rc = pop(pk, &a)) < 0 || (rc = top(pk, &b)) < 0)
            return rc;
        if (pk->nodes[b].type != PYPROF__PK_LIST)
            return fail(pk, PYPROF_EUNSUPPORTED, "refused: the target is a %s, not a list",
                        pyprof__pickle_type_name(pk->nodes[b].type));
        return vec_append(pk, b, &a, 1);
    case 'e':
        return extend_from_mark(pk, PYPROF__PK_LIST);
    case 'u':
        return extend_from_mark(pk, PYPROF__PK_DICT);
    case 0x90:
        return extend_from_mark(pk, PYPROF__PK_SET);
    case 's': { /* SETITEM */
        pyprof__pk_id kv[2], d;
        if ((rc = pop(pk, &kv[1])) < 0 || (rc = pop(pk, &kv[0])) < 0 || (rc = top(pk, &d)) < 0)
            return rc;
        if (pk->nodes[d].type != PYPROF__PK_DICT)
            return fail(pk, PYPROF_EUNSUPPORTED, "refused: the target is a %s, not a dict",
                        pyprof__pickle_type_name(pk->nodes[d].type));
        return vec_append(pk, d, kv, 2);
    }
    case 'p': {
        uint64_t idx;
        if ((rc = memo_text(pk, &idx)) < 0)
            return rc;
        return memo_put(pk, idx);
    }
    case 'q':
        if ((rc = need(pk, 1)) < 0)
            return rc;
        return memo_put(pk, read_le(pk, 1));
    case 'r':
        if ((rc = need(pk, 4)) < 0)
            return rc;
        return memo_put(pk, read_le(pk, 4));
    case 0x94:
        return memo_put(pk, pk->memo_count);
    case 'g': {
        uint64_t idx;
        if ((rc = memo_text(pk, &idx)) < 0)
            return rc;
        return memo_get(pk, idx);
    }
    case 'h':
        if ((rc = need(pk, 1)) < 0)
            return rc;
        return memo_get(pk, read_le(pk, 1));
    case 'j':
        if ((rc = need(pk, 4)) < 0)
            return rc;
        return memo_get(pk, read_le(pk, 4));
    case 'c': { /* GLOBAL "module\nname\n" */
        const char *mod;
        size_t modn;
        if ((rc = read_line(pk, &mod, &modn)) < 0 || (rc = read_line(pk, &s, &n)) < 0)
            return rc;
        return push_global(pk, mod, modn, s, n);
    }
    case 0x93: { /* STACK_GLOBAL: pops name, then module */
        size_t mn, nn;
        if ((rc = pop(pk, &b)) < 0 || (rc = pop(pk, &a)) < 0)
            return rc;
        if (pk->nodes[a].type != PYPROF__PK_STR || pk->nodes[b].type != PYPROF__PK_STR)
            return fail(pk, PYPROF_EFORMAT, "module and name must be str");
        const char *mod = pyprof__pickle_bytes(pk, a, &mn);
        const char *name = pyprof__pickle_bytes(pk, b, &nn);
        return push_global(pk, mod, mn, name, nn);
    }
    case 'R':
        return op_reduce(pk);
    case 0x81:
        return op_newobj(pk);
    case 'b':
        return op_build(pk);
    default:
        if (op_name(op))
            return fail(pk, PYPROF_EUNSUPPORTED,
                        "refused: line_profiler files never use it, and it can run code or "
                        "reach outside the file");
        return fail(pk, PYPROF_EFORMAT, "unknown opcode");
    }
}

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
        if ((rc = step(pk, &stop)) < 0)
            return rc;
    }
    *result = pk->stack[0];
    return 0;
}
