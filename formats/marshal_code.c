/*
 * marshal_code.c - code objects in a marshal stream (docs/formats.md 2.9):
 * four field layouts across Python versions, told apart by trying them.
 */
#include "config.h"

#include "marshal_int.h"

/* ---- code objects -------------------------------------------------------- */

/* What each of the 8 object fields must be: B bytes, T tuple, S string. */
static const char *const code_types[] = {
    [PYPROF__MCODE_PY27] = "BTTTTTSS",
    [PYPROF__MCODE_PY30] = "BTTTTTSS",
    [PYPROF__MCODE_PY38] = "BTTTTTSS",
    [PYPROF__MCODE_PY311] = "BTTTBSSS",
};
static const int code_longs[] = {
    [PYPROF__MCODE_PY27] = 4,
    [PYPROF__MCODE_PY30] = 5,
    [PYPROF__MCODE_PY38] = 6,
    [PYPROF__MCODE_PY311] = 5,
};

static bool
kind_fits(const pyprof__mobj *o, char want)
{
    switch (want) {
    case 'B':
        return o->kind == PYPROF__M_BYTES;
    case 'T':
        return o->kind == PYPROF__M_TUPLE;
    default:
        return pyprof__marshal_is_string(o);
    }
}

/* One attempt at reading the fields of code object `self` with `layout`. */
static int
read_code_fields(reader *r, uint32_t self, int layout, uint32_t depth)
{
    pyprof__marshal_doc *d = r->doc;
    int32_t v;
    int rc;
    for (int k = 0; k < code_longs[layout]; k++)
        if ((rc = pyprof__marshal_read_i32(r, &v, "a code object")) < 0)
            return rc;
    uint32_t fields[CODE_FIELDS];
    for (int k = 0; k < CODE_FIELDS; k++) {
        size_t at = r->pos;
        /* nested code objects live in consts (field 1) */
        if ((rc = pyprof__marshal_read_value(r, &fields[k], depth + 1, k == 1)) < 0)
            return rc;
        if (!kind_fits(&d->objs[fields[k]], code_types[layout][k]))
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "code object field %d is %s", k,
                                        pyprof__marshal_kind_name(d->objs[fields[k]].kind));
    }
    int32_t firstlineno;
    if ((rc = pyprof__marshal_read_i32(r, &firstlineno, "a code object")) < 0)
        return rc;
    for (int k = 0; k < (layout == PYPROF__MCODE_PY311 ? 2 : 1); k++) {
        size_t at = r->pos;
        uint32_t t;
        if ((rc = pyprof__marshal_read_value(r, &t, depth + 1, false)) < 0)
            return rc;
        if (d->objs[t].kind != PYPROF__M_BYTES)
            return pyprof__marshal_fail(r, PYPROF_EFORMAT, at, "code object line table is %s",
                                        pyprof__marshal_kind_name(d->objs[t].kind));
    }
    /* filename and name: fields 6/7 up to 3.10, 5/6 from 3.11 */
    int fn = layout == PYPROF__MCODE_PY311 ? 5 : 6;
    uint32_t first = 0;
    if ((rc = pyprof__marshal_reserve_kids(r, &first, 2)) < 0)
        return rc;
    d->kids[first] = fields[fn];
    d->kids[first + 1] = fields[fn + 1];
    pyprof__mobj *o = &d->objs[self];
    o->u.code.kids = first;
    o->u.code.line = firstlineno;
    o->len = 2;
    o->layout = (uint8_t)layout;
    return 0;
}

/*
 * The stream does not say which layout it uses: try them (spec 2.9), and
 * roll everything an attempt built back before the next one.  Only the
 * outermost code object of a file tries several; nested ones, and every
 * later one once a layout has worked, use that layout, so the work stays
 * within a few passes over the input.
 */
int
pyprof__marshal_read_code(reader *r, uint32_t self, uint32_t depth)
{
    pyprof__marshal_doc *d = r->doc;
    int order[4], n = 0;
    if (r->trial_layout)
        order[n++] = r->trial_layout;
    else if (d->code_layout)
        order[n++] = d->code_layout;
    else if (d->dialect == PYPROF__MDIALECT_PY2)
        order[n++] = PYPROF__MCODE_PY27;
    else {
        order[n++] = PYPROF__MCODE_PY311;
        order[n++] = PYPROF__MCODE_PY38;
        order[n++] = PYPROF__MCODE_PY30;
    }
    if (n == 1) {
        uint8_t saved = r->trial_layout;
        r->trial_layout = (uint8_t)order[0];
        int rc = read_code_fields(r, self, order[0], depth);
        r->trial_layout = saved;
        if (rc == 0 && !d->code_layout)
            d->code_layout = (uint8_t)order[0];
        return rc;
    }

    size_t pos = r->pos, nobjs = d->nobjs, nkids = d->nkids, nrefs = r->nrefs;
    size_t ninterned = r->ninterned, nscratch = r->nscratch, nframes = r->nframes;
    pyprof__mdialect dialect = d->dialect;
    bool flag_ref_seen = d->flag_ref_seen;
    /* the error of the attempt that got furthest is the most telling */
    int best_code = 0;
    uint64_t best_pos = 0;
    char best_msg[sizeof(d->err_msg)] = "";
    for (int t = 0; t < n; t++) {
        r->trial_layout = (uint8_t)order[t];
        int rc = read_code_fields(r, self, order[t], depth);
        r->trial_layout = 0;
        if (rc == 0) {
            d->code_layout = (uint8_t)order[t];
            return 0;
        }
        if (rc != PYPROF_EFORMAT)
            return rc; /* out of memory, or a limit: no point in trying on */
        if (!best_code || d->err_pos > best_pos) {
            best_code = rc;
            best_pos = d->err_pos;
            memcpy(best_msg, d->err_msg, sizeof best_msg);
        }
        r->pos = pos;
        d->nobjs = nobjs;
        d->nkids = nkids;
        r->nrefs = nrefs;
        r->ninterned = ninterned;
        r->nscratch = nscratch;
        r->nframes = nframes;
        d->dialect = dialect;
        d->flag_ref_seen = flag_ref_seen;
    }
    return pyprof__marshal_fail(r, PYPROF_EFORMAT, best_pos,
                                "code object at offset %llu fits no known layout (%s)",
                                (unsigned long long)d->objs[self].pos, best_msg);
}
