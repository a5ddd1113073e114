/*
 * pickle_ops.c - each opcode of the pickle machine (formats/pickle.h).
 *
 * The subset of formats.md section 5.3: what CPython 2.7-3.14 write for a
 * LineStats with protocols 0-5, plus a few harmless data opcodes.  Globals
 * are checked against the allowlist below and never resolved; REDUCE,
 * NEWOBJ and BUILD only make and fill the one LineStats instance.
 */
#include "config.h"

#include "pickle_int.h"

/* ---- globals ------------------------------------------------------------------------ */

/* The only names GLOBAL/STACK_GLOBAL may push (module, name). */
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

/* ---- arguments ---------------------------------------------------------------------- */

static int
need(pyprof__pickle *pk, size_t n)
{
    return pk->len - pk->pos >= n ? 0 : pyprof__pk_truncated(pk);
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

/* The string of an opcode whose operand is its length (`width` bytes,
 * little-endian) followed by its bytes: pushed as `type` (PYPROF__PK_BYTES
 * or PYPROF__PK_STR) where it lies in the data. */
static int
push_sized(pyprof__pickle *pk, size_t width, int type)
{
    int rc;
    if ((rc = need(pk, width)) < 0)
        return rc;
    uint64_t n = read_le(pk, width);
    if (n > pk->len - pk->pos)
        return pyprof__pk_truncated(pk);
    size_t at = pk->pos;
    pk->pos += (size_t)n;
    return pyprof__pk_push_raw_string(pk, type, at, (size_t)n);
}

/* A text argument: the bytes up to '\n', which is consumed. */
static int
read_line(pyprof__pickle *pk, const char **s, size_t *n)
{
    const unsigned char *p = pk->data + pk->pos;
    const unsigned char *nl = memchr(p, '\n', pk->len - pk->pos);
    if (!nl)
        return pyprof__pk_truncated(pk);
    *s = (const char *)p;
    *n = (size_t)(nl - p);
    pk->pos += *n + 1;
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
                return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "integer does not fit in 64 bits");
        size_t k = n < 8 ? n : 8;
        uint64_t u = neg ? ~(uint64_t)0 : 0;
        for (size_t i = 0; i < k; i++) {
            u &= ~((uint64_t)0xff << (8 * i));
            u |= (uint64_t)b[i] << (8 * i);
        }
        if (n > 8 && (bool)(u >> 63) != neg)
            return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "integer does not fit in 64 bits");
        memcpy(&v, &u, sizeof(v));
    }
    pk->pos += n;
    return pyprof__pk_push_new(pk, PYPROF__PK_INT, v);
}

static int
memo_text(pyprof__pickle *pk, uint64_t *idx)
{
    const char *s = NULL;
    size_t n = 0;
    int64_t v;
    int rc = read_line(pk, &s, &n);
    if (rc < 0 || (rc = pyprof__pk_parse_decimal(pk, s, n, false, &v)) < 0)
        return rc;
    if (v < 0)
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "negative memo index");
    *idx = (uint64_t)v;
    return 0;
}

/* ---- globals and objects ----------------------------------------------------------- */

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
            int rc = pyprof__pk_new_node(pk, &id, PYPROF__PK_GLOBAL);
            if (rc < 0)
                return rc;
            pk->nodes[id].sub = (uint8_t)allowlist[i].g;
            return pyprof__pk_push(pk, id);
        }
    }
    char m[72], nm[72];
    printable(m, sizeof(m), mod, modn);
    printable(nm, sizeof(nm), name, namen);
    return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                           "refused global %s.%s: only line_profiler's LineStats can be loaded", m,
                           nm);
}

static int
new_instance(pyprof__pickle *pk, int cls)
{
    pyprof__pk_id id = 0;
    if (pk->instances)
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "refused: a second LineStats instance");
    int rc = pyprof__pk_new_vec(pk, &id, PYPROF__PK_INSTANCE);
    if (rc < 0)
        return rc;
    pk->instances++;
    pk->nodes[id].sub = (uint8_t)cls;
    return pyprof__pk_push(pk, id);
}

static int
op_reduce(pyprof__pickle *pk)
{
    pyprof__pk_id args, fn;
    int rc;
    if ((rc = pyprof__pk_pop(pk, &args)) < 0 || (rc = pyprof__pk_pop(pk, &fn)) < 0)
        return rc;
    const pyprof__pk_node *f = &pk->nodes[fn], *a = &pk->nodes[args];
    if (f->type != PYPROF__PK_GLOBAL || f->sub != PYPROF__PK_G_RECONSTRUCTOR)
        return pyprof__pk_fail(
            pk, PYPROF_EUNSUPPORTED,
            "refused call of a %s: only copy_reg._reconstructor(LineStats, object, "
            "None) is allowed",
            f->type == PYPROF__PK_GLOBAL ? pyprof__pickle_global_name(f->sub)
                                         : pyprof__pickle_type_name(f->type));
    if (a->type != PYPROF__PK_TUPLE || a->len != 3)
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                               "refused _reconstructor arguments: not a 3-tuple");
    const pyprof__pk_node *cls = &pk->nodes[pyprof__pickle_item(pk, args, 0)];
    const pyprof__pk_node *base = &pk->nodes[pyprof__pickle_item(pk, args, 1)];
    const pyprof__pk_node *state = &pk->nodes[pyprof__pickle_item(pk, args, 2)];
    if (cls->type != PYPROF__PK_GLOBAL || !is_linestats(cls->sub) ||
        base->type != PYPROF__PK_GLOBAL || base->sub != PYPROF__PK_G_OBJECT ||
        state->type != PYPROF__PK_NONE)
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                               "refused _reconstructor arguments: only (LineStats, object, None)");
    return new_instance(pk, cls->sub);
}

static int
op_newobj(pyprof__pickle *pk)
{
    pyprof__pk_id args, cls;
    int rc;
    if ((rc = pyprof__pk_pop(pk, &args)) < 0 || (rc = pyprof__pk_pop(pk, &cls)) < 0)
        return rc;
    const pyprof__pk_node *c = &pk->nodes[cls], *a = &pk->nodes[args];
    if (c->type != PYPROF__PK_GLOBAL || !is_linestats(c->sub))
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                               "refused: only LineStats may be instantiated, not a %s",
                               c->type == PYPROF__PK_GLOBAL ? pyprof__pickle_global_name(c->sub)
                                                            : pyprof__pickle_type_name(c->type));
    if (a->type != PYPROF__PK_TUPLE || a->len != 0)
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                               "refused: LineStats takes no arguments here");
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
    if ((rc = pyprof__pk_pop(pk, &state)) < 0 || (rc = pyprof__pk_top(pk, &inst)) < 0)
        return rc;
    if (pk->nodes[inst].type != PYPROF__PK_INSTANCE)
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                               "refused: BUILD on a %s, not on a LineStats",
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
                return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "refused LineStats state: a %s",
                                       pyprof__pickle_type_name(t));
        }
    } else {
        return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "refused LineStats state: a %s, not a dict",
                               pyprof__pickle_type_name(s->type));
    }
    return pyprof__pk_vec_append(pk, inst, parts, nparts);
}

/* ---- the opcodes --------------------------------------------------------------------- */

int
pyprof__pk_step(pyprof__pickle *pk, bool *stop)
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
            return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED, "protocol %d is newer than 5",
                                   pk->data[pk->pos]);
        pk->pos++;
        return 0;
    case 0x95: { /* FRAME: a length hint; only checked */
        if ((rc = need(pk, 8)) < 0)
            return rc;
        uint64_t flen = read_le(pk, 8);
        if (flen > pk->len - pk->pos)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "truncated: frame of %llu bytes, %zu left",
                                   (unsigned long long)flen, pk->len - pk->pos);
        return 0;
    }
    case '.': /* STOP */
        if (pk->nmarks)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "a MARK is still open");
        if (pk->nstack != 1)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "%zu values on the stack, expected 1",
                                   pk->nstack);
        *stop = true;
        return 0;
    case '(': /* MARK */
        if (pk->nmarks >= pk->lim.max_marks)
            return pyprof__pk_fail(
                pk, PYPROF_ELIMIT,
                "MARKs nested deeper than %zu (raise the limit with --max-depth)",
                pk->lim.max_marks);
        if (PYPROF_GROW(pk->marks, pk->marks_cap, pk->nmarks + 1) < 0)
            return pyprof__pk_fail(pk, PYPROF_ENOMEM, "-");
        pk->marks[pk->nmarks++] = pk->nstack;
        return 0;
    case '0': /* POP: a value, or the mark itself when none is above it */
        if (pk->nmarks && pk->nstack == pk->marks[pk->nmarks - 1]) {
            pk->nmarks--;
            return 0;
        }
        return pyprof__pk_pop(pk, &a);
    case '1': /* POP_MARK */
        if ((rc = pyprof__pk_pop_mark(pk, &start)) < 0)
            return rc;
        pk->nstack = start;
        return 0;
    case '2': /* DUP */
        if ((rc = pyprof__pk_top(pk, &a)) < 0)
            return rc;
        return pyprof__pk_push(pk, a);
    case 'N':
        return pyprof__pk_push_new(pk, PYPROF__PK_NONE, 0);
    case 0x88:
        return pyprof__pk_push_new(pk, PYPROF__PK_BOOL, 1);
    case 0x89:
        return pyprof__pk_push_new(pk, PYPROF__PK_BOOL, 0);
    case 'I': { /* INT: "01"/"00" are Python 2's True/False */
        int64_t v;
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        if (n == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1'))
            return pyprof__pk_push_new(pk, PYPROF__PK_BOOL, s[1] == '1');
        if ((rc = pyprof__pk_parse_decimal(pk, s, n, false, &v)) < 0)
            return rc;
        return pyprof__pk_push_new(pk, PYPROF__PK_INT, v);
    }
    case 'L': {
        int64_t v;
        if ((rc = read_line(pk, &s, &n)) < 0 ||
            (rc = pyprof__pk_parse_decimal(pk, s, n, true, &v)) < 0)
            return rc;
        return pyprof__pk_push_new(pk, PYPROF__PK_INT, v);
    }
    case 'J': {
        if ((rc = need(pk, 4)) < 0)
            return rc;
        uint32_t u = (uint32_t)read_le(pk, 4);
        int32_t v;
        memcpy(&v, &u, sizeof(v));
        return pyprof__pk_push_new(pk, PYPROF__PK_INT, v);
    }
    case 'K':
        if ((rc = need(pk, 1)) < 0)
            return rc;
        return pyprof__pk_push_new(pk, PYPROF__PK_INT, (int64_t)read_le(pk, 1));
    case 'M':
        if ((rc = need(pk, 2)) < 0)
            return rc;
        return pyprof__pk_push_new(pk, PYPROF__PK_INT, (int64_t)read_le(pk, 2));
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
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "negative byte count");
        if ((rc = need(pk, u)) < 0)
            return rc;
        return long_bytes(pk, u);
    }
    case 'F': {
        char buf[64], *end;
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        if (n == 0 || n >= sizeof(buf))
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "not a float");
        memcpy(buf, s, n);
        buf[n] = '\0';
        double f = pyprof__strtod_c(buf, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == buf || *end)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "'%s' is not a float", buf);
        return pyprof__pk_push_float(pk, f);
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
        return pyprof__pk_push_float(pk, f);
    }
    case 'S':
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        while (n && s[n - 1] == '\r')
            n--;
        return pyprof__pk_push_quoted(pk, s, n);
    case 'V':
        if ((rc = read_line(pk, &s, &n)) < 0)
            return rc;
        return pyprof__pk_push_raw_unicode(pk, s, n);
    case 'T': /* BINSTRING: a signed length */
        if ((rc = need(pk, 4)) < 0)
            return rc;
        if (pk->data[pk->pos + 3] & 0x80)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "negative byte count");
        return push_sized(pk, 4, PYPROF__PK_BYTES);
    case 'B': /* BINBYTES */
        return push_sized(pk, 4, PYPROF__PK_BYTES);
    case 'U':
    case 'C': /* SHORT_BINSTRING, SHORT_BINBYTES */
        return push_sized(pk, 1, PYPROF__PK_BYTES);
    case 0x8e: /* BINBYTES8 */
        return push_sized(pk, 8, PYPROF__PK_BYTES);
    case 'X': /* BINUNICODE */
        return push_sized(pk, 4, PYPROF__PK_STR);
    case 0x8c: /* SHORT_BINUNICODE */
        return push_sized(pk, 1, PYPROF__PK_STR);
    case 0x8d: /* BINUNICODE8 */
        return push_sized(pk, 8, PYPROF__PK_STR);
    case ')':
        return pyprof__pk_make_tuple(pk, pk->nstack);
    case 't':
        if ((rc = pyprof__pk_pop_mark(pk, &start)) < 0)
            return rc;
        return pyprof__pk_make_tuple(pk, start);
    case 0x85:
    case 0x86:
    case 0x87: { /* TUPLE1..3 */
        size_t k = (size_t)(op - 0x84);
        size_t floor = pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
        if (pk->nstack - floor < k)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "fewer than %zu values on the stack", k);
        return pyprof__pk_make_tuple(pk, pk->nstack - k);
    }
    case ']':
        return pyprof__pk_make_vec(pk, PYPROF__PK_LIST, pk->nstack);
    case '}':
        return pyprof__pk_make_vec(pk, PYPROF__PK_DICT, pk->nstack);
    case 0x8f:
        return pyprof__pk_make_vec(pk, PYPROF__PK_SET, pk->nstack);
    case 'l':
        if ((rc = pyprof__pk_pop_mark(pk, &start)) < 0)
            return rc;
        return pyprof__pk_make_vec(pk, PYPROF__PK_LIST, start);
    case 'd':
        if ((rc = pyprof__pk_pop_mark(pk, &start)) < 0)
            return rc;
        return pyprof__pk_make_vec(pk, PYPROF__PK_DICT, start);
    case 0x91:
        if ((rc = pyprof__pk_pop_mark(pk, &start)) < 0)
            return rc;
        return pyprof__pk_make_vec(pk, PYPROF__PK_SET, start);
    case 'a': /* APPEND */
        if ((rc = pyprof__pk_pop(pk, &a)) < 0 || (rc = pyprof__pk_top(pk, &b)) < 0)
            return rc;
        if (pk->nodes[b].type != PYPROF__PK_LIST)
            return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                                   "refused: the target is a %s, not a list",
                                   pyprof__pickle_type_name(pk->nodes[b].type));
        return pyprof__pk_vec_append(pk, b, &a, 1);
    case 'e':
        return pyprof__pk_extend_from_mark(pk, PYPROF__PK_LIST);
    case 'u':
        return pyprof__pk_extend_from_mark(pk, PYPROF__PK_DICT);
    case 0x90:
        return pyprof__pk_extend_from_mark(pk, PYPROF__PK_SET);
    case 's': { /* SETITEM */
        pyprof__pk_id kv[2], d;
        if ((rc = pyprof__pk_pop(pk, &kv[1])) < 0 || (rc = pyprof__pk_pop(pk, &kv[0])) < 0 ||
            (rc = pyprof__pk_top(pk, &d)) < 0)
            return rc;
        if (pk->nodes[d].type != PYPROF__PK_DICT)
            return pyprof__pk_fail(pk, PYPROF_EUNSUPPORTED,
                                   "refused: the target is a %s, not a dict",
                                   pyprof__pickle_type_name(pk->nodes[d].type));
        return pyprof__pk_vec_append(pk, d, kv, 2);
    }
    case 'p': {
        uint64_t idx;
        if ((rc = memo_text(pk, &idx)) < 0)
            return rc;
        return pyprof__pk_memo_put(pk, idx);
    }
    case 'q':
        if ((rc = need(pk, 1)) < 0)
            return rc;
        return pyprof__pk_memo_put(pk, read_le(pk, 1));
    case 'r':
        if ((rc = need(pk, 4)) < 0)
            return rc;
        return pyprof__pk_memo_put(pk, read_le(pk, 4));
    case 0x94:
        return pyprof__pk_memo_put(pk, pk->memo_count);
    case 'g': {
        uint64_t idx;
        if ((rc = memo_text(pk, &idx)) < 0)
            return rc;
        return pyprof__pk_memo_get(pk, idx);
    }
    case 'h':
        if ((rc = need(pk, 1)) < 0)
            return rc;
        return pyprof__pk_memo_get(pk, read_le(pk, 1));
    case 'j':
        if ((rc = need(pk, 4)) < 0)
            return rc;
        return pyprof__pk_memo_get(pk, read_le(pk, 4));
    case 'c': { /* GLOBAL "module\nname\n" */
        const char *mod = NULL;
        size_t modn = 0;
        if ((rc = read_line(pk, &mod, &modn)) < 0 || (rc = read_line(pk, &s, &n)) < 0)
            return rc;
        return push_global(pk, mod, modn, s, n);
    }
    case 0x93: { /* STACK_GLOBAL: pops name, then module */
        size_t mn, nn;
        if ((rc = pyprof__pk_pop(pk, &b)) < 0 || (rc = pyprof__pk_pop(pk, &a)) < 0)
            return rc;
        if (pk->nodes[a].type != PYPROF__PK_STR || pk->nodes[b].type != PYPROF__PK_STR)
            return pyprof__pk_fail(pk, PYPROF_EFORMAT, "module and name must be str");
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
        if (pyprof__pk_op_name(op))
            return pyprof__pk_fail(
                pk, PYPROF_EUNSUPPORTED,
                "refused: line_profiler files never use it, and it can run code or "
                "reach outside the file");
        return pyprof__pk_fail(pk, PYPROF_EFORMAT, "unknown opcode");
    }
}
