/*
 * pstats.c - reader for Python pstats files: one marshalled dict, written by
 * cProfile, the pure-Python profile module, hotshot's converter, yappi,
 * austin-python, pstats itself (merged or stripped dumps), and the sampling
 * profiler of Python 3.15.
 *
 * Spec: docs/formats.md section 3 (the object graph and the producers'
 * dialects) on top of marshal.c (section 2).  The file is
 *
 *     {(file, line, name): (cc, nc, tt, ct, {caller_key: caller_value})}
 *
 * where caller_value is a 4-tuple (nc, cc, tt, ct) - note the order, unlike
 * the function's own (cc, nc, ...) - or, from the profile module and
 * hotshot, a bare call count.
 *
 * Order is part of the data: pstats prints "Random listing order" in dict
 * order and sorts stably, so a reproduction of its output needs functions
 * and edges in file order.  The reader therefore interns every top-level key
 * first (functions get ids in file order), then adds each function's
 * counters and caller edges; callers that have no entry of their own come
 * after all entries, flagged PYPROF_FUNC_CALLER_ONLY.  A key that appears
 * twice keeps its first position and its last value, as a Python dict does.
 *
 * Metadata, where the data gives it away (docs/formats.md 3.3): "producer"
 * (cProfile, profile, hotshot, yappi, austin-python, profiling.sampling);
 * "sampled" = "1" for the ("__sampled__",): True marker of Python 3.15's
 * sampling profiler (a key that is not a function); "python" = "2" for
 * Python 2 marshal.  yappi's swapped (ncall, nactualcall) are kept as
 * written, since pstats prints them that way.
 *
 * Two paths: pstats_scan.c reads the common shape (cProfile under Python 3)
 * in one pass without a document, and build_scanned() makes the model from
 * it; anything else, errors included, is left to the marshal document and
 * build(), which define the behaviour (tests/t_pstats_scan.c holds the two
 * to the same results, mutations included).
 *
 * Not reproduced: the address in the repr of a code object used as a name
 * (profile module, "python -m profile -o"), which is process specific; the
 * reader writes 0x0 there.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "marshal.h"
#include "pstats_scan.h"
#include "pyprof_int.h"

#define FMT "pstats"

/* ---- probe --------------------------------------------------------------- */

/* A string type code (with or without FLAG_REF) as a key's first element. */
static bool
string_code(unsigned char c)
{
    c &= 0x7F;
    return c == 's' || c == 't' || c == 'u' || c == 'a' || c == 'A' || c == 'z' || c == 'Z';
}

/*
 * Marshal has no magic number, but a pstats file is very recognisable: a
 * dict code ('{', 0xFB with FLAG_REF) followed by a tuple of 3 ('(' + i32 3
 * up to marshal version 3, ')' + u8 3 from version 4) whose first element is
 * a string.  That is 6-7 fixed bytes: as good as a magic number.
 */
static int
pstats_probe(const unsigned char *h, size_t n, bool at_eof)
{
    (void)at_eof;
    if (n < 2 || (h[0] & 0x7F) != '{')
        return 0;
    unsigned char t = h[1] & 0x7F;
    if (h[1] == '0')
        return n == 2 ? 40 : 0; /* "{0": an empty dict, which read() explains */
    size_t first;               /* offset of the key's first element */
    uint32_t count;
    if (t == '(' && n >= 6) {
        count = (uint32_t)h[2] | (uint32_t)h[3] << 8 | (uint32_t)h[4] << 16 | (uint32_t)h[5] << 24;
        first = 6;
    } else if (t == ')' && n >= 3) {
        count = h[2];
        first = 3;
    } else {
        return 0;
    }
    if (count != 3)
        return count == 1 ? 30 : 0; /* maybe the ("__sampled__",) marker first */
    if (first >= n)
        return 60;
    return string_code(h[first]) ? 95 : 0;
}

/* ---- reading ------------------------------------------------------------- */

/* An int to Python: bool is a subclass of int (True == 1), and both hold
 * their value in u.i. */
static bool
is_int(const pyprof__mobj *o)
{
    return o->kind == PYPROF__M_INT || o->kind == PYPROF__M_BOOL;
}

typedef struct builder {
    pyprof_profile *p;
    pyprof_input *in;
    pyprof_error *err;
    uint64_t base; /* input offset of the marshal data */
    pyprof__marshal_doc doc;
    /* per function id: the value object of its (last) entry, or NONE */
    uint32_t *value_of;
    size_t nvalues;
    /* per caller function id: the callee whose callers dict last named it,
     * and that edge, so a caller named twice in one dict (last value wins)
     * is found without a hash lookup per edge */
    pyprof_id *seen_callee, *seen_edge;
    size_t nseen, seen_cap, seen_edge_cap;
    /* what the data says about its producer */
    bool seen_tilde, seen_bare_builtin, seen_int_caller, seen_profiler_key;
    bool seen_builtins_key, seen_dotted_name, seen_cc_gt_nc, seen_float_time;
    bool seen_nonempty_callers;
    bool sampled;
} builder;

static int bad(builder *b, const pyprof__mobj *o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
bad(builder *b, const pyprof__mobj *o, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pyprof_input_error(b->in, b->err, PYPROF_EFORMAT, FMT, b->base + o->pos, "%s", msg);
}

static int
oom_at(builder *b, uint64_t pos, int rc)
{
    return pyprof_input_error(b->in, b->err, rc, FMT, b->base + pos,
                              rc == PYPROF_ENOMEM ? "out of memory" : "too many functions");
}

static int
oom(builder *b, const pyprof__mobj *o, int rc)
{
    return oom_at(b, o ? o->pos : 0, rc);
}

static const pyprof__mobj *
obj(const builder *b, uint32_t i)
{
    return pyprof__marshal_obj(&b->doc, i);
}

static uint32_t
kid(const builder *b, const pyprof__mobj *o, size_t k)
{
    return pyprof__marshal_kid(&b->doc, o, k);
}

/* A string object as an interned string; Python 2 byte strings are decoded
 * as UTF-8 when they are, else as Latin-1. */
/* Objects remember (in their memo field, as id + 1) the string or function
 * made from them: keys and names are shared by reference, and Python 2
 * files repeat interned strings, so most lookups end here. */
static int
string_id(builder *b, uint32_t i, pyprof_id *out)
{
    pyprof__mobj *o = pyprof__marshal_obj_mut(&b->doc, i);
    if (o->memo) {
        *out = o->memo - 1;
        return 0;
    }
    int rc = pyprof_profile_intern_lossy(b->p, out, pyprof__marshal_str(&b->doc, o), o->len,
                                         o->kind == PYPROF__M_BYTES);
    if (rc < 0)
        return oom(b, o, rc);
    o->memo = *out + 1;
    return 0;
}

/*
 * The name of a code-object key, as pstats prints it: the repr of the code
 * object, e.g. <code object <module> at 0x0, file "prog.py", line 1> (the
 * real address is unknowable and differs every run anyway).
 */
static int
code_name(builder *b, const pyprof__mobj *code, pyprof_id *out)
{
    pyprof_id file, name;
    int rc;
    if ((rc = string_id(b, kid(b, code, 0), &file)) < 0 ||
        (rc = string_id(b, kid(b, code, 1), &name)) < 0)
        return rc;
    const char *fs = pyprof_profile_string(b->p, file), *ns = pyprof_profile_string(b->p, name);
    size_t need = strlen(fs) + strlen(ns) + 64;
    char *buf = pyprof__malloc(need);
    if (!buf)
        return oom(b, code, PYPROF_ENOMEM);
    int k = snprintf(buf, need, "<code object %s at 0x0, file \"%s\", line %ld>", ns, fs,
                     (long)code->u.code.line);
    rc = pyprof_profile_intern(b->p, out, buf, (size_t)k);
    pyprof__free(buf);
    return rc < 0 ? oom(b, code, rc) : 0;
}

static bool
is_marker(const builder *b, const pyprof__mobj *key)
{
    if (key->kind != PYPROF__M_TUPLE || key->len != 1)
        return false;
    const pyprof__mobj *s = obj(b, kid(b, key, 0));
    return s->kind == PYPROF__M_STR && s->len == 11 &&
           memcmp(pyprof__marshal_str(&b->doc, s), "__sampled__", 11) == 0;
}

/* A qualified name such as 'Counter.add': yappi writes them, while cProfile
 * and profile use co_name, which has no dots (<lambda> and friends aside). */
static bool
name_is_qualified(const char *name)
{
    return name[0] != '<' && strchr(name, '.') != NULL;
}

/* What a new function key says about the producer. */
static void
key_evidence(builder *b, pyprof_id file, int64_t line, pyprof_id name)
{
    const char *fs = pyprof_profile_string(b->p, file);
    if (line == 0 && strcmp(fs, "~") == 0)
        b->seen_tilde = true;
    else if (line == 0 && fs[0] == '\0')
        b->seen_bare_builtin = true; /* the profile module's ('', 0, 'len') */
    else if (line == 0 && strcmp(fs, "builtins") == 0)
        b->seen_builtins_key = true;
    else if (line > 0 && name_is_qualified(pyprof_profile_string(b->p, name)))
        b->seen_dotted_name = true;
    else if (line == 0 && strcmp(fs, "profile") == 0 &&
             strcmp(pyprof_profile_string(b->p, name), "profiler") == 0)
        b->seen_profiler_key = true;
}

/* Key object -> function id: (file, line, name) with name a string or a
 * code object.  `flags` is PYPROF_FUNC_CALLER_ONLY for callers' keys. */
static int
key_func(builder *b, uint32_t ki, uint32_t flags, pyprof_id *out)
{
    pyprof__mobj *key = pyprof__marshal_obj_mut(&b->doc, ki);
    /* The kind is checked before the memo: strings keep their string ids in
     * the same field, and a shared (FLAG_REF or Python 2 'R') string can turn
     * up where a key belongs. */
    if (key->kind != PYPROF__M_TUPLE || key->len != 3)
        return bad(b, key, "function key is %s, not a (file, line, name) tuple",
                   key->kind == PYPROF__M_TUPLE ? "a tuple of another size"
                                                : pyprof__marshal_kind_name(key->kind));
    if (key->memo) {
        *out = key->memo - 1;
        return 0;
    }
    const pyprof__mobj *fo = obj(b, kid(b, key, 0));
    const pyprof__mobj *lo = obj(b, kid(b, key, 1));
    const pyprof__mobj *no = obj(b, kid(b, key, 2));
    if (fo->kind != PYPROF__M_STR && fo->kind != PYPROF__M_BYTES)
        return bad(b, fo, "file name in a key is %s", pyprof__marshal_kind_name(fo->kind));
    if (!is_int(lo))
        return bad(b, lo, "line number in a key is %s", pyprof__marshal_kind_name(lo->kind));
    pyprof_id file, name;
    int rc;
    if ((rc = string_id(b, kid(b, key, 0), &file)) < 0)
        return rc;
    if (no->kind == PYPROF__M_CODE) {
        flags |= PYPROF_FUNC_CODEOBJ;
        if ((rc = code_name(b, no, &name)) < 0)
            return rc;
    } else if (no->kind == PYPROF__M_STR || no->kind == PYPROF__M_BYTES) {
        if ((rc = string_id(b, kid(b, key, 2), &name)) < 0)
            return rc;
    } else {
        return bad(b, no, "function name in a key is %s", pyprof__marshal_kind_name(no->kind));
    }
    if ((rc = pyprof_profile_func_intern(b->p, out, file, lo->u.i, name, flags, NULL)) < 0)
        return oom(b, key, rc);
    key->memo = *out + 1;
    key_evidence(b, file, lo->u.i, name);
    return 0;
}

/* A call count: an int that fits in 64 bits. */
static int
count_of(builder *b, uint32_t i, const char *what, int64_t *out)
{
    const pyprof__mobj *o = obj(b, i);
    if (is_int(o)) {
        *out = o->u.i;
        return 0;
    }
    if (o->kind == PYPROF__M_BIGINT)
        return pyprof_input_error(b->in, b->err, PYPROF_ELIMIT, FMT, b->base + o->pos,
                                  "%s does not fit in 64 bits", what);
    return bad(b, o, "%s is %s, not an int", what, pyprof__marshal_kind_name(o->kind));
}

/* A time: a float, or an int (austin-python writes microsecond counts, the
 * profile module integer zeros). */
static int
time_of(builder *b, uint32_t i, const char *what, double *out)
{
    const pyprof__mobj *o = obj(b, i);
    if (o->kind == PYPROF__M_FLOAT) {
        *out = o->u.d;
        b->seen_float_time = true;
        return 0;
    }
    if (is_int(o)) {
        *out = (double)o->u.i;
        return 0;
    }
    if (o->kind == PYPROF__M_BIGINT)
        return pyprof_input_error(b->in, b->err, PYPROF_ELIMIT, FMT, b->base + o->pos,
                                  "%s does not fit in 64 bits", what);
    return bad(b, o, "%s is %s, not a number", what, pyprof__marshal_kind_name(o->kind));
}

/* (cc, nc, tt, ct, callers) -> counters of `f`; returns the callers dict. */
static int
entry_counts(builder *b, pyprof_id f, uint32_t vi, const pyprof__mobj **callers)
{
    const pyprof__mobj *v = obj(b, vi);
    if (v->kind != PYPROF__M_TUPLE || v->len != 5)
        return bad(b, v, "function value is %s, not a (cc, nc, tt, ct, callers) tuple",
                   v->kind == PYPROF__M_TUPLE ? "a tuple of another size"
                                              : pyprof__marshal_kind_name(v->kind));
    pyprof_counts c;
    int rc;
    if ((rc = count_of(b, kid(b, v, 0), "primitive call count", &c.primcalls)) < 0 ||
        (rc = count_of(b, kid(b, v, 1), "call count", &c.ncalls)) < 0 ||
        (rc = time_of(b, kid(b, v, 2), "total time", &c.tottime)) < 0 ||
        (rc = time_of(b, kid(b, v, 3), "cumulative time", &c.cumtime)) < 0)
        return rc;
    *callers = obj(b, kid(b, v, 4));
    if ((*callers)->kind != PYPROF__M_DICT)
        return bad(b, *callers, "callers of a function is %s, not a dict",
                   pyprof__marshal_kind_name((*callers)->kind));
    if (c.primcalls > c.ncalls)
        b->seen_cc_gt_nc = true;
    pyprof_profile_func_mut(b->p, f)->counts = c;
    return 0;
}

/* The edge caller -> callee gets counts `c`; `pos` is where its value is,
 * for errors. */
static int
set_edge(builder *b, pyprof_id caller, pyprof_id callee, const pyprof_counts *c, uint32_t flags,
         uint32_t pos)
{
    pyprof_id e;
    int rc;
    if (caller >= b->nseen) {
        size_t n = pyprof_profile_func_count(b->p);
        if (PYPROF_GROW(b->seen_callee, b->seen_cap, n) < 0 ||
            PYPROF_GROW(b->seen_edge, b->seen_edge_cap, n) < 0)
            return oom_at(b, pos, PYPROF_ENOMEM);
        for (size_t j = b->nseen; j < n; j++)
            b->seen_callee[j] = PYPROF_NONE;
        b->nseen = n;
    }
    if (b->seen_callee[caller] == callee) {
        e = b->seen_edge[caller];
    } else {
        if ((rc = pyprof__profile_edge_append(b->p, &e, caller, callee)) < 0)
            return oom_at(b, pos, rc);
        b->seen_callee[caller] = callee;
        b->seen_edge[caller] = e;
    }
    pyprof_edge *edge = pyprof_profile_edge_mut(b->p, e);
    edge->counts = *c; /* a repeated caller key: the last value wins */
    edge->flags = flags;
    return 0;
}

/* One callers-dict item: caller key -> (nc, cc, tt, ct) or a bare count. */
static int
add_edge(builder *b, pyprof_id callee, uint32_t ki, uint32_t vi)
{
    pyprof_id caller;
    int rc;
    if ((rc = key_func(b, ki, PYPROF_FUNC_CALLER_ONLY, &caller)) < 0)
        return rc;
    const pyprof__mobj *v = obj(b, vi);
    pyprof_counts c = {0, 0, 0.0, 0.0};
    uint32_t flags = 0;
    if (is_int(v) || v->kind == PYPROF__M_BIGINT) {
        if ((rc = count_of(b, vi, "caller's call count", &c.ncalls)) < 0)
            return rc;
        c.primcalls = c.ncalls;
        flags = PYPROF_EDGE_COUNT_ONLY;
        b->seen_int_caller = true;
    } else if (v->kind == PYPROF__M_TUPLE && v->len == 4) {
        /* NOTE: (nc, cc, ...) here, the reverse of the function's tuple */
        if ((rc = count_of(b, kid(b, v, 0), "caller's call count", &c.ncalls)) < 0 ||
            (rc = count_of(b, kid(b, v, 1), "caller's primitive call count", &c.primcalls)) < 0 ||
            (rc = time_of(b, kid(b, v, 2), "caller's total time", &c.tottime)) < 0 ||
            (rc = time_of(b, kid(b, v, 3), "caller's cumulative time", &c.cumtime)) < 0)
            return rc;
    } else {
        return bad(b, v, "caller value is %s, not an int or a (nc, cc, tt, ct) tuple",
                   v->kind == PYPROF__M_TUPLE ? "a tuple of another size"
                                              : pyprof__marshal_kind_name(v->kind));
    }
    return set_edge(b, caller, callee, &c, flags, v->pos);
}

/* Name the producer from the evidence (docs/formats.md 3.3). */
static int
note_producer(builder *b)
{
    const char *producer = NULL;
    int rc;
    if (b->sampled)
        producer = "profiling.sampling";
    else if (b->seen_tilde)
        producer = "cProfile";
    else if (b->seen_int_caller || b->seen_profiler_key)
        /* both write int callers and ('profile', 0, 'profiler'); hotshot
         * records no C built-ins */
        producer = b->seen_bare_builtin ? "profile" : "hotshot";
    else if (b->seen_cc_gt_nc || b->seen_builtins_key || b->seen_dotted_name)
        producer = "yappi"; /* its (ncall, nactualcall) are kept as written */
    else if (!b->seen_float_time && !b->seen_nonempty_callers)
        producer = "austin-python";
    if (producer && (rc = pyprof_profile_meta_set(b->p, "producer", producer)) < 0)
        return oom(b, NULL, rc);
    if (b->sampled && (rc = pyprof_profile_meta_set(b->p, "sampled", "1")) < 0)
        return oom(b, NULL, rc);
    if (b->doc.dialect == PYPROF__MDIALECT_PY2 &&
        (rc = pyprof_profile_meta_set(b->p, "python", "2")) < 0)
        return oom(b, NULL, rc);
    /* A Python 2 stream without interned strings (marshal version 0) holds
     * only 's' byte strings, which Python 3 loads as bytes: its pstats then
     * prints keys as b'file':1(b'name'), and the view can do the same. */
    if (b->doc.dialect == PYPROF__MDIALECT_PY2 && !b->doc.py2_interned_seen &&
        (rc = pyprof_profile_meta_set(b->p, "key_strings", "bytes")) < 0)
        return oom(b, NULL, rc);
    return 0;
}

static int
build(builder *b)
{
    const pyprof__mobj *top = obj(b, b->doc.top);
    int rc;
    if (top->kind != PYPROF__M_DICT)
        return bad(b, top, "the top-level object is %s, not a dict of functions",
                   pyprof__marshal_kind_name(top->kind));
    if (top->len == 0)
        return bad(b, top, "an empty profile: the dict has no entries");
    b->value_of = pyprof__malloc((size_t)top->len * sizeof(uint32_t));
    if (!b->value_of)
        return oom(b, top, PYPROF_ENOMEM);
    /* The sizes are known: one function per entry, one edge per caller.
     * Reserving them spares the model its regrowth and rehashing (close to
     * a tenth of the time on a 100,000-function file). */
    size_t nedges = 0;
    for (uint32_t k = 0; k < top->len; k++) {
        const pyprof__mobj *v = obj(b, kid(b, top, 2 * k + 1));
        if (v->kind == PYPROF__M_TUPLE && v->len == 5 &&
            obj(b, kid(b, v, 4))->kind == PYPROF__M_DICT)
            nedges += obj(b, kid(b, v, 4))->len;
    }
    if ((rc = pyprof_profile_reserve(b->p, top->len, nedges)) < 0)
        return oom(b, top, rc);

    /* pass 1: every entry's function, in file order (its first position) */
    for (uint32_t k = 0; k < top->len; k++) {
        uint32_t ki = kid(b, top, 2 * k), vi = kid(b, top, 2 * k + 1);
        if (is_marker(b, obj(b, ki))) {
            b->sampled = true;
            continue;
        }
        pyprof_id f;
        if ((rc = key_func(b, ki, 0, &f)) < 0)
            return rc;
        if (f >= b->nvalues) {
            for (size_t j = b->nvalues; j <= f; j++)
                b->value_of[j] = PYPROF_NONE;
            b->nvalues = (size_t)f + 1;
        }
        b->value_of[f] = vi; /* a repeated key: the last value wins */
    }
    if (b->nvalues == 0)
        return bad(b, top, "an empty profile: the dict has no function entries");

    /* pass 2: counters and callers; unknown callers are created after all
     * entries, so entries keep their file order */
    for (pyprof_id f = 0; f < b->nvalues; f++) {
        const pyprof__mobj *callers = NULL;
        if ((rc = entry_counts(b, f, b->value_of[f], &callers)) < 0)
            return rc;
        if (callers->len)
            b->seen_nonempty_callers = true;
        for (uint32_t k = 0; k < callers->len; k++)
            if ((rc = add_edge(b, f, kid(b, callers, 2 * k), kid(b, callers, 2 * k + 1))) < 0)
                return rc;
    }
    return note_producer(b);
}

/* ---- the fast path (pstats_scan.h) ---------------------------------------
 * The same build as above, over what the scan kept instead of a document;
 * the scan has checked every kind and size, so only the model can fail.
 * Ids, order, evidence and the offsets of memory errors are the same. */

/* A string of a scanned key, interned once per string object. */
static int
scan_string(builder *b, pyprof__pscan *s, uint32_t off, uint32_t ref, pyprof_id *out)
{
    if (ref && s->ref_memo[ref - 1]) {
        *out = s->ref_memo[ref - 1] - 1;
        return 0;
    }
    size_t len;
    const char *str = pyprof__pscan_string(s, off, &len);
    int rc = pyprof_profile_intern_lossy(b->p, out, str, len, false);
    if (rc < 0)
        return oom_at(b, off, rc);
    if (ref)
        s->ref_memo[ref - 1] = *out + 1;
    return 0;
}

static int
scan_key_func(builder *b, pyprof__pscan *s, uint32_t ki, uint32_t flags, pyprof_id *out)
{
    if (s->key_memo[ki]) {
        *out = s->key_memo[ki] - 1;
        return 0;
    }
    const pyprof__pscan_key *k = &s->keys[ki];
    pyprof_id file, name;
    int rc;
    if ((rc = scan_string(b, s, k->file, k->file_ref, &file)) < 0 ||
        (rc = scan_string(b, s, k->name, k->name_ref, &name)) < 0)
        return rc;
    if ((rc = pyprof_profile_func_intern(b->p, out, file, k->line, name, flags, NULL)) < 0)
        return oom_at(b, k->pos, rc);
    s->key_memo[ki] = *out + 1;
    key_evidence(b, file, k->line, name);
    return 0;
}

/* The next scalar of a tuple as a count or a time (time_of's evidence). */
static int64_t
scan_count(const pyprof__pscan *s, size_t *pos)
{
    int64_t i = 0;
    double d;
    (void)pyprof__pscan_number(s, pos, &i, &d);
    return i;
}

static double
scan_time(builder *b, const pyprof__pscan *s, size_t *pos)
{
    int64_t i;
    double d = 0.0;
    if (pyprof__pscan_number(s, pos, &i, &d))
        return (double)i;
    b->seen_float_time = true;
    return d;
}

static int
scan_edge(builder *b, pyprof__pscan *s, pyprof_id callee, const pyprof__pscan_edge *se)
{
    pyprof_id caller;
    int rc;
    if ((rc = scan_key_func(b, s, se->key, PYPROF_FUNC_CALLER_ONLY, &caller)) < 0)
        return rc;
    pyprof_counts c = {0, 0, 0.0, 0.0};
    uint32_t flags = 0;
    size_t pos = se->value;
    if (pyprof__pscan_code(s, pos) == 'i') {
        c.ncalls = scan_count(s, &pos);
        c.primcalls = c.ncalls;
        flags = PYPROF_EDGE_COUNT_ONLY;
        b->seen_int_caller = true;
    } else {
        pos = pyprof__pscan_tuple(s, pos);
        c.ncalls = scan_count(s, &pos); /* (nc, cc, ...), as in add_edge */
        c.primcalls = scan_count(s, &pos);
        c.tottime = scan_time(b, s, &pos);
        c.cumtime = scan_time(b, s, &pos);
    }
    return set_edge(b, caller, callee, &c, flags, (uint32_t)pyprof__pscan_resolve(s, se->value));
}

static int
build_scanned(builder *b, pyprof__pscan *s)
{
    int rc;
    b->value_of = pyprof__malloc(s->nentries * sizeof(uint32_t));
    s->key_memo = pyprof__calloc(s->nkeys, sizeof(uint32_t));
    s->ref_memo = pyprof__calloc(s->nrefs, sizeof(uint32_t));
    if (!b->value_of || !s->key_memo || !s->ref_memo)
        return oom_at(b, 0, PYPROF_ENOMEM);
    if ((rc = pyprof_profile_reserve(b->p, s->nentries, s->nedges)) < 0)
        return oom_at(b, 0, rc);
    /* The edges go into fresh memory in pass 2, whose page faults cost as
     * much as filling it: a helper thread takes them during pass 1, which
     * does not touch that memory. */
    size_t spare;
    void *edges = pyprof__profile_edges_spare(b->p, &spare);
    size_t need = s->nedges * sizeof(pyprof_edge);
    pyprof__prefault *pf = pyprof__prefault_start(edges, need < spare ? need : spare);
    /* pass 1: every entry's function, in file order */
    for (uint32_t k = 0; k < s->nentries; k++) {
        pyprof_id f;
        if ((rc = scan_key_func(b, s, s->entries[k].key, 0, &f)) < 0) {
            pyprof__prefault_finish(pf);
            return rc;
        }
        if (f >= b->nvalues) {
            for (size_t j = b->nvalues; j <= f; j++)
                b->value_of[j] = PYPROF_NONE;
            b->nvalues = (size_t)f + 1;
        }
        b->value_of[f] = k; /* a repeated key: the last value wins */
    }
    pyprof__prefault_finish(pf);
    /* pass 2: counters and callers */
    for (pyprof_id f = 0; f < b->nvalues; f++) {
        const pyprof__pscan_entry *e = &s->entries[b->value_of[f]];
        size_t pos = pyprof__pscan_tuple(s, e->value);
        pyprof_counts c;
        c.primcalls = scan_count(s, &pos);
        c.ncalls = scan_count(s, &pos);
        c.tottime = scan_time(b, s, &pos);
        c.cumtime = scan_time(b, s, &pos);
        if (c.primcalls > c.ncalls)
            b->seen_cc_gt_nc = true;
        pyprof_profile_func_mut(b->p, f)->counts = c;
        if (e->nedges)
            b->seen_nonempty_callers = true;
        for (uint32_t k = 0; k < e->nedges; k++)
            if ((rc = scan_edge(b, s, f, &s->edges[e->first_edge + k])) < 0)
                return rc;
    }
    return note_producer(b);
}

static int
pstats_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts, pyprof_error *err)
{
    builder b = {.p = p, .in = in, .err = err};
    const unsigned char *data;
    size_t len;
    int rc;

    if (pyprof_profile_func_count(p) != 0)
        return pyprof_input_error(in, err, PYPROF_EINVAL, FMT, 0,
                                  "the reader needs an empty profile");
    b.base = pyprof_input_offset(in);
    if ((rc = pyprof_input_slurp(in, &data, &len, err)) < 0)
        return rc;
    if (len == 0)
        return pyprof_input_error(in, err, PYPROF_EFORMAT, FMT, b.base, "empty file");

    uint32_t max_depth = opts ? opts->max_depth : 0;
    pyprof__pscan scan;
    size_t stop = 0;
    rc = pyprof__pscan_run(&scan, data, len, max_depth, &stop);
    if (rc != 0) {
        rc = rc < 0 ? oom_at(&b, stop, rc) : build_scanned(&b, &scan);
        pyprof__pscan_free(&scan);
        goto out;
    }
    pyprof__pscan_free(&scan);

    pyprof__marshal_options mo = {.max_depth = max_depth, .code_in_keys = true};
    rc = pyprof__marshal_load(&b.doc, data, len, &mo);
    if (rc < 0) {
        rc = pyprof_input_error(in, err, rc, FMT, b.base + b.doc.err_pos, "%s", b.doc.err_msg);
        goto out;
    }
    if (b.doc.end != len) {
        rc = pyprof_input_error(in, err, PYPROF_EFORMAT, FMT, b.base + b.doc.end,
                                "%zu bytes of trailing data after the stats dict", len - b.doc.end);
        goto out;
    }
    rc = build(&b);
out:
    pyprof__free(b.value_of);
    pyprof__free(b.seen_callee);
    pyprof__free(b.seen_edge);
    pyprof__marshal_free(&b.doc);
    return rc;
}

const pyprof__format pyprof__format_pstats = {
    .name = "pstats",
    .aliases = "prof cprofile",
    .description = "Python pstats (cProfile, profile, yappi, austin-python): a marshalled dict",
    .probe = pstats_probe,
    .read = pstats_read,
};
