/*
 * pyprof/input.h - where profile bytes come from.
 *
 * An input is a file, standard input ("-") or a memory buffer, seen through
 * a decoding layer: zstd-compressed data (recognised by its magic bytes, any
 * number of concatenated frames) is decompressed on the fly, so readers only
 * ever see the decoded bytes.  Readers never do file I/O themselves; they
 * peek at and consume a window, or ask for lines, and the input keeps the
 * decoded offset and line number that error messages need.
 *
 * Memory: the window grows only as far as a reader asks; pyprof_input_slurp()
 * (for formats that need the whole object in memory) is bounded by max_bytes.
 */
#ifndef PYPROF_INPUT_H
#define PYPROF_INPUT_H

#include <pyprof/error.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pyprof_input pyprof_input;

/** Default bound on decoded bytes read into memory at once (1 GiB). */
#define PYPROF_INPUT_MAX_BYTES_DEFAULT ((uint64_t)1 << 30)
/** Default bound on decompressed/compressed ratio (a zstd "bomb" guard). */
#define PYPROF_INPUT_MAX_RATIO_DEFAULT 1000u

/**
 * Open `path` for reading; "-" means standard input.  A directory, a missing
 * file or an unreadable one is reported here with the OS's reason.
 */
int pyprof_input_open_file(pyprof_input **out, const char *path, pyprof_error *err);

/**
 * Read from `len` bytes at `data`, which must outlive the input.
 * `name` (may be NULL) is what error messages call it.
 */
int pyprof_input_open_memory(pyprof_input **out, const void *data, size_t len, const char *name,
                             pyprof_error *err);

/**
 * Progress of reading: `done` raw (undecoded) bytes of `total` (-1 when the
 * size is unknown, e.g. a pipe) of the input called `name`.
 */
typedef void (*pyprof_progress_fn)(void *payload, const char *name, uint64_t done, int64_t total);

/**
 * Call `fn` as raw bytes are read: about every 4 MiB, and once more when the
 * input is exhausted (then `done` is the number of bytes read in all).
 * Tools use it for a progress bar; `fn` NULL switches it off.
 */
void pyprof_input_set_progress(pyprof_input *in, pyprof_progress_fn fn, void *payload);

/** Close and free; NULL is allowed. */
void pyprof_input_close(pyprof_input *in);

/** The name given at open time ("-" reads as "<stdin>"). */
const char *pyprof_input_name(const pyprof_input *in);

/** Modification time of the file (seconds since the epoch), or -1 if unknown. */
int64_t pyprof_input_mtime(const pyprof_input *in);

/** Non-zero if the bytes are being decompressed (zstd). */
int pyprof_input_is_compressed(const pyprof_input *in);

/** Size of the underlying file in bytes (compressed size), or -1 if unknown. */
int64_t pyprof_input_file_size(const pyprof_input *in);

/**
 * Set the bound on decoded bytes that slurp and the window may hold
 * (0 = default).  Exceeding it fails with PYPROF_ELIMIT.
 */
void pyprof_input_set_max_bytes(pyprof_input *in, uint64_t max_bytes);

/**
 * Set the bound on how much zstd data may expand: decoded bytes over
 * compressed bytes (0 = PYPROF_INPUT_MAX_RATIO_DEFAULT).  It is checked once
 * more than 64 MiB have been decoded, since small inputs of repetitive text
 * legitimately compress far better.  Exceeding it fails with PYPROF_ELIMIT.
 */
void pyprof_input_set_max_ratio(pyprof_input *in, uint32_t max_ratio);

/**
 * Make at least `want` decoded bytes available (fewer only at end of input)
 * and point `*data` at them; `*avail` receives how many there are.  The
 * pointer is valid until the next peek/consume/line call.
 */
int pyprof_input_peek(pyprof_input *in, size_t want, const unsigned char **data, size_t *avail,
                      pyprof_error *err);

/** Step over `n` bytes that a previous peek made available. */
void pyprof_input_consume(pyprof_input *in, size_t n);

/** Decoded bytes consumed so far (the offset reported in errors). */
uint64_t pyprof_input_offset(const pyprof_input *in);

/**
 * Read the next line.  On success returns 1 and points `*line` at its bytes,
 * without the "\n" (a "\r\n" ending is kept: formats decide), `*len` long,
 * NUL-terminated; returns 0 at end of input and a negative status on error.
 * A final line without a newline is still returned.  Lines longer than
 * `max_len` (0 = 64 MiB) fail with PYPROF_ELIMIT.
 */
int pyprof_input_read_line(pyprof_input *in, const char **line, size_t *len, size_t max_len,
                           pyprof_error *err);

/** 1-based number of the line last returned by read_line (0 before the first). */
uint64_t pyprof_input_line(const pyprof_input *in);

/**
 * Read everything that is left into one buffer owned by the input and point
 * `*data` at it.  Bounded by the max_bytes setting.
 */
int pyprof_input_slurp(pyprof_input *in, const unsigned char **data, size_t *len,
                       pyprof_error *err);

/**
 * Fill `err` with an error positioned at decoded offset `offset` of this
 * input (format name `format`), like pyprof_error_set.  Returns `code`.
 */
int pyprof_input_error(pyprof_input *in, pyprof_error *err, int code, const char *format,
                       uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/** As pyprof_input_error, positioned at a 1-based line number instead. */
int pyprof_input_error_line(pyprof_input *in, pyprof_error *err, int code, const char *format,
                            uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
