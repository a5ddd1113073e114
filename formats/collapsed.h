/*
 * collapsed.h - what the collapsed-stacks reader's files share (not installed).
 *
 * A frame of a folded stack is a piece of text.  Flame graphs must show that
 * text byte for byte (that is what flamegraph.pl draws), while pyprof-stats
 * and pyprof-dot want a function's name, file and line.  So a frame is split
 * into fields only when the split can be undone exactly: the frame "shape"
 * (one of PYPROF_FUNC_FRAME_*) is kept in the function's flags, and
 * pyprof_flame_frame_label() rebuilds the original text from the fields.
 */
#ifndef PYPROF_COLLAPSED_H
#define PYPROF_COLLAPSED_H

#include "pyprof_int.h"

/* The frame shapes a file may use; a file uses at most one of the
 * field-carrying shapes (the first one seen), so that two shapes can never
 * give one text two different readings. */
typedef struct pyprof__frame_fields {
    const char *file, *name; /* pointers into the frame text */
    size_t file_len, name_len;
    int64_t line;
    uint32_t shape; /* PYPROF_FUNC_FRAME_* */
} pyprof__frame_fields;

/* Try to split `len` bytes of frame text `s` as `shape` (one of the
 * field-carrying PYPROF_FUNC_FRAME_* values).  True on success: the fields
 * then rebuild exactly `s` through pyprof_flame_frame_label. */
bool pyprof__frame_split(const char *s, size_t len, uint32_t shape, pyprof__frame_fields *out);

#endif
