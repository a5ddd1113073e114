/*
 * pstats_scan.c - one pass over a cProfile-shaped pstats file (see
 * pstats_scan.h for why, and docs/formats.md sections 2-3 for the format).
 *
 * The grammar read is
 *
 *     top     = '{' (key value)+ '0'
 *     key     = ref | tuple3(string, int, string)
 *     value   = tuple5(int, int, num, num, callers)
 *     callers = '{' (key cvalue)* '0'
 *     cvalue  = int | tuple4(int, int, num, num)
 *     string  = u a A z Z, or t once a FLAG_REF has been seen
 *     int     = i         num = i | g
 *
 * where any type byte may carry FLAG_REF and any key, string or number may
 * be a back-reference 'r' to one read before.  Within it the scan agrees
 * with marshal.c: FLAG_REF slots are numbered when their type byte is read
 * (pre-order), and Python 3's string dialect is the only one possible (the
 * general reader takes 's', and 't' before any FLAG_REF).  Everything else
 * returns false, before the profile has been touched.
 */
#include "config.h"

#include "pstats_scan.h"

#include "pyprof_int.h"

#define FLAG_REF 0x80

/* The scan's steps run once per object, a few million times on a big file.
 * gcc -O2 keeps next() and friends out of line (they have many callers), so
 * their out-parameters go through memory; inlined, they stay in registers
 * and the scan takes a third less time. */
#define SCAN_STEP static inline __attribute__((always_inline))

static bool scan_enabled = true;

bool
pyprof__pscan_enable(bool on)
{
    bool was = scan_enabled;
    scan_enabled = on;
    return was;
}

typedef struct scanner {
    pyprof__pscan *s;
    size_t pos;
    bool flag_ref_seen;
    bool oom; /* the scan stopped for want of memory, not for the data */
} scanner;

static __attribute__((cold, noinline)) bool
out_of_memory(scanner *c)
{
    c->oom = true;
    return false;
}

static inline uint32_t
get_u32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline size_t
left(const scanner *c)
{
    return c->s->size - c->pos;
}

SCAN_STEP bool
is_string_code(const scanner *c, unsigned char code)
{
    switch (code) {
    case 'u':
    case 'a':
    case 'A':
    case 'z':
    case 'Z':
        return true;
    case 't':
        return c->flag_ref_seen; /* else a Python 2 stream may be starting */
    default:
        return false;
    }
}

/* Room for `need` FLAG_REF slots in each of the parallel arrays (they grow
 * alike from the same capacity). */
static bool
grow_refs(scanner *c, size_t need)
{
    pyprof__pscan *s = c->s;
    size_t c1 = s->refs_cap, c2 = c1, c3 = c1, c4 = c1;
    if (PYPROF_GROW(s->ref_off, c1, need) < 0 || PYPROF_GROW(s->ref_aux, c2, need) < 0 ||
        PYPROF_GROW(s->ref_num, c3, need) < 0 || PYPROF_GROW(s->ref_code, c4, need) < 0)
        return out_of_memory(c);
    s->refs_cap = c1;
    return true;
}

/*
 * The next object's type byte.  A back-reference is followed: *code is the
 * code of the object it names, *ref its slot + 1, and *fresh false.  A new object gets
 * its FLAG_REF slot here (*ref = slot + 1, else 0) and *fresh true: its
 * body, if any, is the caller's to read.
 */
SCAN_STEP bool
next(scanner *c, uint32_t *off, unsigned char *code, uint32_t *ref, bool *fresh)
{
    pyprof__pscan *s = c->s;
    if (left(c) < 1)
        return false;
    unsigned char byte = s->buf[c->pos];
    if (byte == 'r') {
        if (left(c) < 5)
            return false;
        uint32_t idx = get_u32(s->buf + c->pos + 1);
        if (idx >= s->nrefs)
            return false;  /* also a negative index */
        *off = UINT32_MAX; /* not looked up: string() does, if it needs it */
        *code = s->ref_code[idx];
        *ref = idx + 1;
        *fresh = false;
        c->pos += 5;
        return true;
    }
    *off = (uint32_t)c->pos;
    *code = byte & 0x7F;
    *fresh = true;
    *ref = 0;
    c->pos++;
    if (byte & FLAG_REF) {
        if (*code == 'r')
            return false;
        c->flag_ref_seen = true;
        if (s->nrefs == s->refs_cap && !grow_refs(c, s->nrefs + 1))
            return false;
        s->ref_off[s->nrefs] = *off;
        s->ref_aux[s->nrefs] = 0;
        s->ref_num[s->nrefs] = 0;
        s->ref_code[s->nrefs] = *code;
        *ref = (uint32_t)++s->nrefs;
    }
    return true;
}

/* The body of a new string whose type byte was just read. */
SCAN_STEP bool
string_body(scanner *c, unsigned char code)
{
    size_t n;
    if (code == 'z' || code == 'Z') {
        if (left(c) < 1)
            return false;
        n = c->s->buf[c->pos++];
    } else {
        if (left(c) < 4)
            return false;
        uint32_t u = get_u32(c->s->buf + c->pos);
        c->pos += 4;
        if (u > 0x7FFFFFFF)
            return false;
        n = u;
    }
    if (n > left(c))
        return false;
    c->pos += n;
    return true;
}

/* A string (new or referenced); its offset and slot + 1. */
SCAN_STEP bool
string(scanner *c, uint32_t *off, uint32_t *ref)
{
    unsigned char code;
    bool fresh;
    if (!next(c, off, &code, ref, &fresh) || !is_string_code(c, code))
        return false;
    if (!fresh)
        *off = c->s->ref_off[*ref - 1];
    return !fresh || string_body(c, code);
}

/* A number: 'i', or also 'g' when floats are allowed. */
SCAN_STEP bool
number(scanner *c, bool float_ok)
{
    uint32_t off, ref;
    unsigned char code;
    bool fresh;
    if (!next(c, &off, &code, &ref, &fresh))
        return false;
    size_t body = code == 'i' ? 4 : code == 'g' && float_ok ? 8 : 0;
    if (!body)
        return false;
    if (fresh) {
        if (left(c) < body)
            return false;
        if (ref) { /* kept, so that references cost no look in the buffer */
            size_t at = off;
            int64_t i;
            double d;
            if (pyprof__pscan_number(c->s, &at, &i, &d))
                c->s->ref_num[ref - 1] = (uint64_t)i;
            else
                memcpy(&c->s->ref_num[ref - 1], &d, sizeof d);
        }
        c->pos += body;
    }
    return true;
}

/* The header of a new tuple of exactly n elements. */
SCAN_STEP bool
tuple_header(scanner *c, unsigned char code, uint32_t n)
{
    uint32_t len;
    if (code == ')') {
        if (left(c) < 1)
            return false;
        len = c->s->buf[c->pos++];
    } else if (code == '(') {
        if (left(c) < 4)
            return false;
        len = get_u32(c->s->buf + c->pos);
        c->pos += 4;
    } else {
        return false;
    }
    return len == n;
}

/* What key() compares with the last key named by the same name object, kept
 * in the name's ref_num slot (strings have no number there): the file's slot
 * and the line.  That is a look in a small array per edge instead of one in
 * the key records; 0, which matches nothing, when there is no file slot or
 * the line does not fit. */
static inline uint64_t
last_tag(const pyprof__pscan_key *k)
{
    if (!k->file_ref || k->line < 0 || k->line > (int64_t)UINT32_MAX)
        return 0;
    return (uint64_t)k->file_ref << 32 | (uint64_t)k->line;
}

/* A function key: a new (file, line, name) tuple, or a reference to one. */
static bool
key(scanner *c, uint32_t *out)
{
    pyprof__pscan *s = c->s;
    uint32_t off, ref;
    unsigned char code;
    bool fresh;
    if (!next(c, &off, &code, &ref, &fresh))
        return false;
    if (!fresh) {
        /* aux is a key index only on tuples (strings keep their last key
         * there) */
        if ((code != '(' && code != ')') || s->ref_aux[ref - 1] == 0)
            return false; /* not a key tuple, or one still being read */
        *out = s->ref_aux[ref - 1] - 1;
        return true;
    }
    pyprof__pscan_key k = {.pos = off};
    if (!tuple_header(c, code, 3) || !string(c, &k.file, &k.file_ref))
        return false;
    size_t lpos = c->pos;
    double unused;
    if (!number(c, false))
        return false;
    (void)pyprof__pscan_number(s, &lpos, &k.line, &unused);
    if (!string(c, &k.name, &k.name_ref))
        return false;
    /* Callers' keys are new tuples of shared strings (cProfile makes one
     * per edge): one with the same file and name objects and line as the
     * last key named by that name object is the same function, so it gets
     * the same key.  That spares the model a lookup per edge, and the scan
     * a key record. */
    uint32_t *last = k.name_ref ? &s->ref_aux[k.name_ref - 1] : NULL;
    uint64_t tag = last_tag(&k);
    if (last && *last && tag && s->ref_num[k.name_ref - 1] == tag) {
        *out = *last - 1;
        if (ref)
            s->ref_aux[ref - 1] = *out + 1;
        return true;
    }
    if (s->nkeys == s->keys_cap && PYPROF_GROW(s->keys, s->keys_cap, s->nkeys + 1) < 0)
        return out_of_memory(c);
    if (s->nkeys >= UINT32_MAX - 1)
        return false;
    s->keys[s->nkeys] = k;
    *out = (uint32_t)s->nkeys++;
    if (ref)
        s->ref_aux[ref - 1] = *out + 1;
    if (last) {
        *last = *out + 1;
        s->ref_num[k.name_ref - 1] = tag;
    }
    return true;
}

/* A new dict's opening; whether a FLAG_REF slot was taken does not matter,
 * as a reference to a dict is not in the grammar. */
static bool
dict_open(scanner *c)
{
    uint32_t off, ref;
    unsigned char code;
    bool fresh;
    return next(c, &off, &code, &ref, &fresh) && fresh && code == '{';
}

/* The '0' that ends a dict, if it is next. */
SCAN_STEP bool
dict_end(scanner *c, bool *end)
{
    if (left(c) < 1)
        return false;
    *end = c->s->buf[c->pos] == '0';
    if (*end)
        c->pos++;
    return true;
}

/* A caller's value: an int, or a new (nc, cc, tt, ct) tuple. */
static bool
caller_value(scanner *c, uint32_t *out)
{
    uint32_t off, ref;
    unsigned char code;
    bool fresh;
    if (!next(c, &off, &code, &ref, &fresh))
        return false;
    *out = (uint32_t)(fresh ? off : c->pos - 5); /* where pyprof__pscan_number starts */
    if (code == 'i') {
        if (fresh) {
            if (left(c) < 4)
                return false;
            if (ref)
                c->s->ref_num[ref - 1] = (uint64_t)(int64_t)(int32_t)get_u32(c->s->buf + c->pos);
            c->pos += 4;
        }
        return true;
    }
    return fresh && tuple_header(c, code, 4) && number(c, false) && number(c, false) &&
           number(c, true) && number(c, true);
}

/* An entry's value: (cc, nc, tt, ct, callers), the callers going to edges. */
static bool
entry_value(scanner *c, pyprof__pscan_entry *e)
{
    pyprof__pscan *s = c->s;
    uint32_t off, ref;
    unsigned char code;
    bool fresh, end;
    if (!next(c, &off, &code, &ref, &fresh) || !fresh || !tuple_header(c, code, 5) ||
        !number(c, false) || !number(c, false) || !number(c, true) || !number(c, true) ||
        !dict_open(c))
        return false;
    e->value = off;
    e->first_edge = (uint32_t)s->nedges;
    for (;;) {
        if (!dict_end(c, &end))
            return false;
        if (end)
            break;
        pyprof__pscan_edge edge;
        if (!key(c, &edge.key) || !dict_end(c, &end) || end || !caller_value(c, &edge.value))
            return false;
        if (s->nedges == s->edges_cap && PYPROF_GROW(s->edges, s->edges_cap, s->nedges + 1) < 0)
            return out_of_memory(c);
        if (s->nedges >= UINT32_MAX - 1)
            return false;
        s->edges[s->nedges++] = edge;
    }
    e->nedges = (uint32_t)(s->nedges - e->first_edge);
    return true;
}

static bool
scan(scanner *c)
{
    pyprof__pscan *s = c->s;
    /* pstats files take ~45 bytes per edge and ~280 per function: hints
     * that make regrowth rare */
    if (PYPROF_GROW(s->edges, s->edges_cap, s->size / 48 + 16) < 0 ||
        !grow_refs(c, s->size / 256 + 16))
        return out_of_memory(c);
    bool end;
    if (!dict_open(c) || !dict_end(c, &end) || end)
        return false; /* the empty dict has its own error */
    do {
        pyprof__pscan_entry e;
        if (!key(c, &e.key) || !dict_end(c, &end) || end || !entry_value(c, &e))
            return false;
        if (s->nentries == s->entries_cap &&
            PYPROF_GROW(s->entries, s->entries_cap, s->nentries + 1) < 0)
            return out_of_memory(c);
        s->entries[s->nentries++] = e;
        if (!dict_end(c, &end))
            return false;
    } while (!end);
    return c->pos == s->size; /* trailing data has its own error */
}

int
pyprof__pscan_run(pyprof__pscan *s, const unsigned char *buf, size_t size, uint32_t max_depth,
                  size_t *stop)
{
    memset(s, 0, sizeof *s);
    s->buf = buf;
    s->size = size;
    scanner c = {.s = s};
    if (!scan_enabled || size >= UINT32_MAX || (max_depth && max_depth < 4))
        return 0;
    bool ok = scan(&c);
    *stop = c.pos;
    return ok ? 1 : c.oom ? PYPROF_ENOMEM : 0;
}

void
pyprof__pscan_free(pyprof__pscan *s)
{
    pyprof__free(s->ref_off);
    pyprof__free(s->ref_aux);
    pyprof__free(s->ref_num);
    pyprof__free(s->ref_code);
    pyprof__free(s->keys);
    pyprof__free(s->entries);
    pyprof__free(s->edges);
    pyprof__free(s->key_memo);
    pyprof__free(s->ref_memo);
    memset(s, 0, sizeof *s);
}

const char *
pyprof__pscan_string(const pyprof__pscan *s, uint32_t off, size_t *len)
{
    const unsigned char *b = s->buf + off;
    unsigned char code = b[0] & 0x7F;
    if (code == 'z' || code == 'Z') {
        *len = b[1];
        return (const char *)b + 2;
    }
    *len = get_u32(b + 1);
    return (const char *)b + 5;
}
