/*
 * stats_int.h - the inside of a pyprof_stats view, shared by stats.c (the
 * view, adding, sorting, strip_dirs), stats_print.c (restrictions and the
 * pstats printers) and stats_export.c (JSON/CSV).  Not installed.
 */
#ifndef PYPROF_STATS_INT_H
#define PYPROF_STATS_INT_H

#include "pyprof_int.h"

/* A growing byte buffer for messages and labels. */
typedef struct pyprof__sbuf {
    char *data;
    size_t len, cap;
} pyprof__sbuf;

int pyprof__sbuf_add(pyprof__sbuf *b, const char *s, size_t len);
int pyprof__sbuf_printf(pyprof__sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void pyprof__sbuf_free(pyprof__sbuf *b);

/* Fields of pstats' sort tuple (cc, nc, tt, ct, file, line, name, std). */
enum {
    PYPROF__SF_CC,
    PYPROF__SF_NC,
    PYPROF__SF_TT,
    PYPROF__SF_CT,
    PYPROF__SF_FILE,
    PYPROF__SF_LINE,
    PYPROF__SF_NAME,
    PYPROF__SF_STD
};

struct pyprof_stats {
    pyprof_profile *p; /* owned */

    /* The entries in "dict order": first insertion as an entry, which after
     * several adds is not the profile's id order (a function first seen as
     * a caller gets its id early but its row late). */
    pyprof_id *entries;
    size_t nentries, entries_cap;
    unsigned char *is_entry; /* by function id */
    size_t is_entry_len;

    /* The sorted list (pstats' fcn_list); `sorted` false = entry order. */
    pyprof_id *order;
    bool sorted;
    char *sort_desc; /* "cumulative time, function name" */

    pyprof_stats_totals totals;

    /* func_std_string of the functions, built on demand: label_off[id]
     * indexes labels.data (NUL-terminated; SIZE_MAX = not built yet),
     * label_width[id] counts code points (Python's len(), for column
     * widths).  nlabels is the size of the index (0 = to be reset). */
    pyprof__sbuf labels;
    size_t *label_off;
    bool bytes_keys; /* metadata key_strings=bytes: labels as Python 3 shows bytes */
    uint32_t *label_width;
    size_t nlabels;
};

/* The label of `id`, built on first use (most listings show a few rows of
 * a large profile); NULL when out of memory.  Building another label may
 * move the buffer: use the pointer before asking for the next one. */
const char *pyprof__stats_label(pyprof_stats *st, pyprof_id id);

/* Build every missing label (for stdname sorts, regexes, column widths). */
int pyprof__stats_labels(pyprof_stats *st);

/* The order a listing starts from: the sorted list or the entries. */
static inline const pyprof_id *
pyprof__stats_list(const pyprof_stats *st)
{
    return st->sorted ? st->order : st->entries;
}

/* Sort partner ids by their key tuple (file, line, name), strings by code
 * point, as sorted(call_dict.keys()) does. */
void pyprof__stats_sort_keys(const pyprof_profile *p, pyprof_id *ids, size_t n, pyprof_id *tmp);

/* Apply restrictions to the current list: `*ids` (allocated, may be empty)
 * receives the rows, `msg` the "Ordered by"/"List reduced" text. */
int pyprof__stats_select(pyprof_stats *st, const pyprof_stats_restriction *restr, size_t n,
                         pyprof_id **ids, size_t *count, pyprof__sbuf *msg, pyprof_error *err);

#endif
