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

/* A FLAG_REF slot: the offset of the object's type byte, and a word the
 * scan uses: for a key tuple, its key index + 1; for a string, the index + 1
 * of the last key whose name it was (see key() in pstats_scan.c). */
typedef struct pyprof__pscan_ref {
    uint32_t off;
    uint32_t aux;
    unsigned char code; /* the type code, without FLAG_REF: saves a look at off */
} pyprof__pscan_ref;

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
    pyprof__pscan_ref *refs;
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

/* Decoding what the scan validated.  `pos` walks the elements of a tuple:
 * pyprof__pscan_tuple skips a tuple's header, pyprof__pscan_elem returns
 * the offset of the next element (following a back-reference) and steps
 * over it (elements read this way are scalars). */
size_t pyprof__pscan_tuple(const pyprof__pscan *s, size_t pos);
uint32_t pyprof__pscan_elem(const pyprof__pscan *s, size_t *pos);

/* The scalar at `off`: an int (true, *i) or a binary float (false, *d). */
static inline bool
pyprof__pscan_number(const pyprof__pscan *s, uint32_t off, int64_t *i, double *d)
{
    const unsigned char *b = s->buf + off + 1;
    if ((s->buf[off] & 0x7F) == 'i') {
        uint32_t u =
            (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        *i = (int32_t)u;
        return true;
    }
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--)
        u = u << 8 | b[k];
    memcpy(d, &u, sizeof *d);
    return false;
}

/* The bytes of the string object at `off`. */
const char *pyprof__pscan_string(const pyprof__pscan *s, uint32_t off, size_t *len);

#endif
