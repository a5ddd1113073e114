/*
 * pstats_scan.h - the fast path of the pstats reader (semi-private).
 *
 * The general reader (pstats.c over marshal.c) materialises every object of
 * the file, millions for a big profile, before it builds the model.  Almost
 * every pstats file in the wild is the same shape, though: cProfile's dict
 * written by a Python 3 marshal, with strings, 32-bit ints, binary floats and
 * back-references.  The scan reads exactly that shape in one pass and keeps
 * only what the model build needs: each function key once, and where each
 * entry's value and each caller's value start in the buffer (the numbers are
 * decoded from there while the model is built).
 *
 * The scan never reports an error.  Anything it does not expect (another
 * type code, Python 2, a code object, a marker key, bad or truncated data,
 * trailing bytes, an allocation failure) makes it answer "not mine", and the
 * general reader takes the input from the start: errors, their offsets and
 * every rarer dialect stay that reader's business, so both paths agree.
 */
#ifndef PYPROF_PSTATS_SCAN_H
#define PYPROF_PSTATS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A (file, line, name) key object.  Strings are given by the offset of their
 * type byte and their FLAG_REF slot + 1 (0 if they have none), which the
 * consumer uses to intern each string object once. */
typedef struct pyprof__pscan_key {
    int64_t line;
    uint32_t pos; /* offset of the tuple's type byte */
    uint32_t file, file_ref;
    uint32_t name, name_ref;
} pyprof__pscan_key;

/* One top-level item, in file order.  `value` is the offset of its value
 * tuple; its callers are edges[first_edge .. first_edge + nedges). */
typedef struct pyprof__pscan_entry {
    uint32_t key, value;
    uint32_t first_edge, nedges;
} pyprof__pscan_entry;

/* One callers-dict item: the caller's key, and the offset of its value (a
 * 4-tuple or an int, after back-references are followed). */
typedef struct pyprof__pscan_edge {
    uint32_t key, value;
} pyprof__pscan_edge;

typedef struct pyprof__pscan {
    const unsigned char *buf;
    size_t size;
    /* FLAG_REF slots, as parallel arrays: a look-up touches only what it
     * needs, and the code array (1 byte a slot) stays in cache */
    uint32_t *ref_off;       /* offset of the object's type byte */
    uint32_t *ref_aux;       /* tuples: key index + 1; strings: see key() */
    uint64_t *ref_num;       /* numbers: the value (an int64, or a double's bits);
                                strings: see key() */
    unsigned char *ref_code; /* the type code, without FLAG_REF */
    size_t nrefs, refs_cap;
    pyprof__pscan_key *keys;
    size_t nkeys, keys_cap;
    /* free for the consumer: per key, its function id + 1 (apart from the
     * keys, as a dense array of them stays in cache), and per FLAG_REF slot
     * (strings): its interned id + 1 */
    uint32_t *key_memo, *ref_memo;
    pyprof__pscan_entry *entries;
    size_t nentries, entries_cap;
    pyprof__pscan_edge *edges;
    size_t nedges, edges_cap;
} pyprof__pscan;

/*
 * Scan buf[0..size) as a cProfile-shaped pstats dict.  Returns 1 when the
 * whole input was read, 0 when the general reader must handle it, or
 * PYPROF_ENOMEM (the scan had got to *stop).  Release with
 * pyprof__pscan_free in every case.  A max_depth below what such a file
 * nests (4 levels) is left to the general reader too.
 */
int pyprof__pscan_run(pyprof__pscan *s, const unsigned char *buf, size_t size, uint32_t max_depth,
                      size_t *stop);

void pyprof__pscan_free(pyprof__pscan *s);

/* Tests only (not thread-safe): turn the fast path off or on, so that both
 * paths can be compared on the same input.  Returns the previous setting. */
bool pyprof__pscan_enable(bool on);

/* Decoding what the scan validated, at a position in the stream where an
 * object or a back-reference to one starts. */

static inline uint32_t
pyprof__pscan_u32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The type code of the object at pos (followed if a back-reference). */
static inline unsigned char
pyprof__pscan_code(const pyprof__pscan *s, size_t pos)
{
    const unsigned char *b = s->buf + pos;
    return b[0] == 'r' ? s->ref_code[pyprof__pscan_u32(b + 1)] : b[0] & 0x7F;
}

/* Where the object at pos really is (a back-reference names an earlier one). */
static inline size_t
pyprof__pscan_resolve(const pyprof__pscan *s, size_t pos)
{
    const unsigned char *b = s->buf + pos;
    return b[0] == 'r' ? s->ref_off[pyprof__pscan_u32(b + 1)] : pos;
}

/* Step over the header of the tuple at pos. */
static inline size_t
pyprof__pscan_tuple(const pyprof__pscan *s, size_t pos)
{
    return pos + ((s->buf[pos] & 0x7F) == ')' ? 2 : 5);
}

/* The number at *pos, which is stepped over: an int (true, *i) or a binary
 * float (false, *d). */
static inline bool
pyprof__pscan_number(const pyprof__pscan *s, size_t *pos, int64_t *i, double *d)
{
    const unsigned char *b = s->buf + *pos;
    unsigned char code;
    uint64_t bits;
    if (b[0] == 'r') {
        uint32_t idx = pyprof__pscan_u32(b + 1);
        code = s->ref_code[idx];
        bits = s->ref_num[idx];
        *pos += 5;
    } else if ((code = b[0] & 0x7F) == 'i') {
        bits = (uint64_t)(int64_t)(int32_t)pyprof__pscan_u32(b + 1);
        *pos += 5;
    } else {
        bits = (uint64_t)pyprof__pscan_u32(b + 1) | (uint64_t)pyprof__pscan_u32(b + 5) << 32;
        *pos += 9;
    }
    if (code == 'i') {
        *i = (int64_t)bits;
        return true;
    }
    memcpy(d, &bits, sizeof *d);
    return false;
}

/* The bytes of the string object at `off`. */
const char *pyprof__pscan_string(const pyprof__pscan *s, uint32_t off, size_t *len);

#endif
