/*
 * pstats_write.c - writer of pstats files: the marshal version-2 subset
 * that every CPython from 2.5 to 3.14 loads (formats.md §2.11).
 *
 *   dict   '{' (key value)* '0'
 *   tuple  '(' i32le n, n objects
 *   str    'u' i32le len, UTF-8   (never 's': Python 3 would load bytes and
 *                                   pstats would print b'prog.py')
 *   int    'i' i32le, or 'l' with base-2^15 digits beyond 32 bits
 *   float  'g' f64le
 * No FLAG_REF and no back-references: they only save space.
 *
 * The dict follows function id order, which readers keep equal to the input's
 * dict order, so pstats' stable sorts break ties exactly as for the original.
 * Functions known only as callers have no entry of their own in the original
 * and get none here.  Code-object names (pure-Python profile) go back as
 * their text: the code object itself is not in the model.
 */
#include "config.h"

#include "render/convert_int.h"

static void
put_u8(pyprof_output *o, unsigned char c)
{
    pyprof_output_write(o, &c, 1);
}

static void
put_i32(pyprof_output *o, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    pyprof_output_write(o, b, 4);
}

static void
put_int(pyprof_output *o, int64_t v)
{
    if (v >= INT32_MIN && v <= INT32_MAX) {
        put_u8(o, 'i');
        put_i32(o, (uint32_t)(int32_t)v);
        return;
    }
    /* 'l': signed digit count, then 15-bit digits, least significant first */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint16_t digits[5];
    int n = 0;
    while (mag) {
        digits[n++] = (uint16_t)(mag & 0x7fff);
        mag >>= 15;
    }
    put_u8(o, 'l');
    put_i32(o, (uint32_t)(int32_t)(v < 0 ? -n : n));
    for (int i = 0; i < n; i++) {
        unsigned char b[2] = {(unsigned char)digits[i], (unsigned char)(digits[i] >> 8)};
        pyprof_output_write(o, b, 2);
    }
}

static void
put_float(pyprof_output *o, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(bits >> (8 * i));
    put_u8(o, 'g');
    pyprof_output_write(o, b, 8);
}

static void
put_str(pyprof_output *o, const pyprof_profile *p, pyprof_id s)
{
    size_t n = pyprof_profile_string_len(p, s);
    put_u8(o, 'u');
    put_i32(o, (uint32_t)n);
    pyprof_output_write(o, pyprof_profile_string(p, s), n);
}

static void
put_tuple_head(pyprof_output *o, uint32_t n)
{
    put_u8(o, '(');
    put_i32(o, n);
}

static void
put_key(pyprof_output *o, const pyprof_profile *p, const pyprof_func *f)
{
    put_tuple_head(o, 3);
    put_str(o, p, f->file);
    put_int(o, f->line);
    put_str(o, p, f->name);
}

static int
pstats_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
             pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int rc = pyprof__callgraph_view(in, &p, &owned, opts, err);
    if (rc < 0)
        return rc;
    unsigned caps = pyprof_profile_caps(in);
    if (caps & PYPROF_CAP_STACKS)
        pyprof__note(opts->notes, "pstats has no stacks: only per-function and per-caller "
                                  "totals are kept");
    if (caps & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "pstats has no line timings: they are dropped");
    if (caps & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "pstats has no memory timeline: it is dropped");
    if (!pyprof__unit_is_seconds(p))
        pyprof__note(opts->notes, "times are sample counts, written where pstats expects "
                                  "seconds");

    size_t nf = pyprof_profile_func_count(p), entries = 0;
    put_u8(o, '{');
    for (size_t i = 0; i < nf; i++) {
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        if (f->flags & PYPROF_FUNC_CALLER_ONLY)
            continue;
        if ((f->flags & PYPROF_FUNC_CODEOBJ) &&
            pyprof_profile_func_find(p, f->file, f->line, f->name, 0) != PYPROF_NONE)
            pyprof__note(opts->notes,
                         "a code-object name equals a string name (%s): Python "
                         "keeps only the later entry",
                         pyprof_profile_string(p, f->name));
        entries++;
        put_key(o, p, f);
        put_tuple_head(o, 5);
        put_int(o, f->counts.primcalls);
        put_int(o, f->counts.ncalls);
        put_float(o, f->counts.tottime);
        put_float(o, f->counts.cumtime);
        const pyprof_id *es;
        size_t ne;
        if ((rc = pyprof_profile_callers(p, (pyprof_id)i, &es, &ne)) < 0)
            goto out;
        put_u8(o, '{');
        for (size_t k = 0; k < ne; k++) {
            const pyprof_edge *e = pyprof_profile_edge(p, es[k]);
            put_key(o, p, pyprof_profile_func(p, e->caller));
            if (e->flags & PYPROF_EDGE_COUNT_ONLY) {
                put_int(o, e->counts.ncalls); /* profile module: a bare count */
            } else {
                /* callers keep (nc, cc, tt, ct): total calls first */
                put_tuple_head(o, 4);
                put_int(o, e->counts.ncalls);
                put_int(o, e->counts.primcalls);
                put_float(o, e->counts.tottime);
                put_float(o, e->counts.cumtime);
            }
        }
        put_u8(o, '0');
    }
    put_u8(o, '0');
    if (entries == 0)
        pyprof__note(opts->notes, "the profile has no functions: Python's pstats refuses to load "
                                  "an empty dict");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "pstats", -1, 0, "cannot write pstats: %s",
                         pyprof_status_string(rc));
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_pstats = {
    .name = "pstats",
    .aliases = "prof cprofile",
    .description = "Python pstats (marshal v2 subset, loadable by Python 2.5-3.14)",
    .write = pstats_write,
};
