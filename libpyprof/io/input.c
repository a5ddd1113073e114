/*
 * input.c - files, stdin and memory as a stream of decoded bytes.
 *
 * Two layers, as in libarchive: a source (fd or memory) gives raw bytes; if
 * they start with a zstd frame (magic 28 B5 2F FD, or a skippable frame
 * 5? 2A 4D 18) they go through a streaming ZSTD_DCtx, otherwise they are
 * copied through.  Readers see a window [start, end) of decoded bytes that
 * grows only as far as they ask, so a text reader streams a 1 GB file in a
 * few hundred KiB, while binary readers may slurp a bounded whole object.
 *
 * Truncation: a zstd stream whose last ZSTD_decompressStream() result was
 * not 0 when the raw bytes ran out ended inside a frame; that is an error,
 * not a silent short read (see zstd's examples/streaming_decompression.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "pyprof_int.h"

#define RAW_SIZE         ((size_t)128 * 1024)
#define WINDOW_MIN       ((size_t)256 * 1024)
#define LINE_MAX_DEFAULT ((size_t)64 << 20)
/* Decompression ratio is only checked past this many decoded bytes: small
 * inputs of repetitive text legitimately compress extremely well. */
#define RATIO_GRACE ((uint64_t)64 << 20)

struct pyprof_input {
    char *name;
    int fd; /* -1 for memory inputs */
    bool own_fd;
    /* reading part of a file (pyprof__input_set_end, pyprof__input_open_range):
     * raw bytes come from file offset base + raw_total, with pread */
    bool positional;
    uint64_t base, stop; /* stop: no raw byte at or after this offset */
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    int64_t mtime, fsize;
    struct timespec mtim; /* to see whether a file read again has changed */
    /* bytes were read again (the lowest offset: reread_at), so the file
     * must be unchanged when pyprof__input_reread_check looks */
    bool reread;
    uint64_t reread_at;

    /* raw layer */
    unsigned char *raw;
    size_t raw_pos, raw_len;
    bool raw_eof;
    uint64_t raw_total;

    /* zstd */
    ZSTD_DCtx *dctx;
    size_t zret; /* last ZSTD_decompressStream() result: 0 = at a frame boundary */

    /* decoded window */
    unsigned char *buf;
    size_t cap, start, end, scan; /* scan: where read_line's newline search resumes */
    bool eof;
    uint64_t offset;  /* decoded offset of buf[start] */
    uint64_t decoded; /* decoded bytes produced in all */
    uint64_t line;
    uint64_t max_bytes;
    uint32_t max_ratio; /* decoded / compressed bound for zstd */

    pyprof_progress_fn progress;
    void *progress_payload;
    uint64_t progress_next; /* raw_total at which to report next */
};

#define PROGRESS_STEP ((uint64_t)4 << 20)

/* Report progress when another step of raw bytes is in, or at the end. */
static void
note_progress(pyprof_input *in, bool at_end)
{
    if (in->stop != UINT64_MAX)
        at_end = false; /* the rest of the file is someone else's, or still to come */
    if (!in->progress || (!at_end && in->raw_total < in->progress_next))
        return;
    in->progress(in->progress_payload, in->name, in->raw_total, in->fsize);
    in->progress_next = at_end ? UINT64_MAX : in->raw_total + PROGRESS_STEP;
}

void
pyprof_input_set_progress(pyprof_input *in, pyprof_progress_fn fn, void *payload)
{
    in->progress = fn;
    in->progress_payload = payload;
    in->progress_next = PROGRESS_STEP;
}

static int
os_error(pyprof_input *in, pyprof_error *err, int e, const char *what)
{
    return pyprof_error_set(err, PYPROF_EIO, in->name, NULL, -1, 0, "%s: %s", what, strerror(e));
}

/* Read up to n raw bytes; 0 at end. */
static int
raw_read(pyprof_input *in, unsigned char *dst, size_t n, size_t *got, pyprof_error *err)
{
    *got = 0;
    if (in->fd < 0) {
        size_t k = in->mem_len - in->mem_pos;
        if (k > n)
            k = n;
        memcpy(dst, in->mem + in->mem_pos, k);
        in->mem_pos += k;
        *got = k;
        return 0;
    }
    uint64_t at = in->base + in->raw_total;
    if (in->stop != UINT64_MAX) {
        if (at >= in->stop)
            return 0;
        if (n > in->stop - at)
            n = (size_t)(in->stop - at);
    }
    for (;;) {
        ssize_t r = in->positional ? pread(in->fd, dst, n, (off_t)at) : read(in->fd, dst, n);
        if (r >= 0) {
            *got = (size_t)r;
            return 0;
        }
        if (errno != EINTR)
            return os_error(in, err, errno, "read failed");
    }
}

/* Refill the raw buffer when it is empty. */
static int
raw_fill(pyprof_input *in, pyprof_error *err)
{
    if (in->raw_pos < in->raw_len || in->raw_eof)
        return 0;
    size_t got;
    int rc = raw_read(in, in->raw, RAW_SIZE, &got, err);
    if (rc < 0)
        return rc;
    in->raw_pos = 0;
    in->raw_len = got;
    in->raw_total += got;
    if (got == 0)
        in->raw_eof = true;
    note_progress(in, got == 0);
    return 0;
}

static bool
is_zstd_magic(const unsigned char *p, size_t n)
{
    if (n < 4)
        return false;
    if (p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD)
        return true;
    /* skippable frames: 0x184D2A50..0x184D2A5F little-endian */
    return (p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18;
}

static int
setup(pyprof_input *in, bool sniff_zstd, pyprof_error *err)
{
    in->raw = pyprof__malloc(RAW_SIZE);
    if (!in->raw)
        return pyprof_error_set(err, PYPROF_ENOMEM, in->name, NULL, -1, 0, "out of memory");
    in->max_bytes = PYPROF_INPUT_MAX_BYTES_DEFAULT;
    in->max_ratio = PYPROF_INPUT_MAX_RATIO_DEFAULT;
    /* Sniff: gather at least 4 raw bytes (a pipe may deliver fewer at once). */
    while (in->raw_len < 4 && !in->raw_eof) {
        size_t got;
        int rc = raw_read(in, in->raw + in->raw_len, RAW_SIZE - in->raw_len, &got, err);
        if (rc < 0)
            return rc;
        if (got == 0)
            in->raw_eof = true;
        in->raw_len += got;
        in->raw_total += got;
    }
    if (sniff_zstd && is_zstd_magic(in->raw, in->raw_len)) {
        in->dctx = ZSTD_createDCtx();
        if (!in->dctx)
            return pyprof_error_set(err, PYPROF_ENOMEM, in->name, NULL, -1, 0, "out of memory");
    }
    return 0;
}

static pyprof_input *
input_alloc(const char *name)
{
    pyprof_input *in = pyprof__calloc(1, sizeof(*in));
    if (!in)
        return NULL;
    in->fd = -1;
    in->stop = UINT64_MAX;
    in->mtime = -1;
    in->fsize = -1;
    in->name = pyprof__strdup(name);
    if (!in->name) {
        pyprof__free(in);
        return NULL;
    }
    return in;
}

int
pyprof_input_open_file(pyprof_input **out, const char *path, pyprof_error *err)
{
    *out = NULL;
    bool is_stdin = strcmp(path, "-") == 0;
    pyprof_input *in = input_alloc(is_stdin ? "<stdin>" : path);
    if (!in)
        return pyprof_error_set(err, PYPROF_ENOMEM, path, NULL, -1, 0, "out of memory");
    int rc;
    if (is_stdin) {
        in->fd = STDIN_FILENO;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) {
            rc = os_error(in, err, errno, "cannot open");
            goto fail;
        }
        in->own_fd = true;
    }
    struct stat st;
    if (fstat(in->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            rc = pyprof_error_set(err, PYPROF_EIO, in->name, NULL, -1, 0,
                                  "is a directory, not a profile file");
            goto fail;
        }
        in->mtime = (int64_t)st.st_mtime;
        in->mtim = st.st_mtim;
        if (S_ISREG(st.st_mode))
            in->fsize = (int64_t)st.st_size;
    }
    if ((rc = setup(in, true, err)) < 0)
        goto fail;
    *out = in;
    return 0;
fail:
    pyprof_input_close(in);
    return rc;
}

int
pyprof_input_open_memory(pyprof_input **out, const void *data, size_t len, const char *name,
                         pyprof_error *err)
{
    *out = NULL;
    pyprof_input *in = input_alloc(name ? name : "<memory>");
    if (!in)
        return pyprof_error_set(err, PYPROF_ENOMEM, name, NULL, -1, 0, "out of memory");
    in->mem = data;
    in->mem_len = len;
    in->fsize = (int64_t)len;
    int rc = setup(in, true, err);
    if (rc < 0) {
        pyprof_input_close(in);
        return rc;
    }
    *out = in;
    return 0;
}

void
pyprof_input_close(pyprof_input *in)
{
    if (!in)
        return;
    if (in->own_fd && in->fd >= 0)
        close(in->fd);
    ZSTD_freeDCtx(in->dctx);
    pyprof__free(in->raw);
    pyprof__free(in->buf);
    pyprof__free(in->name);
    pyprof__free(in);
}

const char *
pyprof_input_name(const pyprof_input *in)
{
    return in->name;
}

int64_t
pyprof_input_mtime(const pyprof_input *in)
{
    return in->mtime;
}

int
pyprof_input_is_compressed(const pyprof_input *in)
{
    return in->dctx != NULL;
}

int64_t
pyprof_input_file_size(const pyprof_input *in)
{
    return in->fsize;
}

void
pyprof_input_set_max_bytes(pyprof_input *in, uint64_t max_bytes)
{
    in->max_bytes = max_bytes ? max_bytes : PYPROF_INPUT_MAX_BYTES_DEFAULT;
}

void
pyprof_input_set_max_ratio(pyprof_input *in, uint32_t max_ratio)
{
    in->max_ratio = max_ratio ? max_ratio : PYPROF_INPUT_MAX_RATIO_DEFAULT;
}

uint64_t
pyprof_input_offset(const pyprof_input *in)
{
    return in->offset;
}

uint64_t
pyprof_input_line(const pyprof_input *in)
{
    return in->line;
}

/* The error for an input that would need more than max_bytes in memory. */
static int
too_much(pyprof_input *in, pyprof_error *err)
{
    return pyprof_error_set(err, PYPROF_ELIMIT, in->name, NULL, (int64_t)in->offset, 0,
                            "more than %llu bytes would have to be held in memory "
                            "(raise the limit with --max-bytes)",
                            (unsigned long long)in->max_bytes);
}

/* Make room for at least `room` more bytes after `end`. */
static int
make_room(pyprof_input *in, size_t room, pyprof_error *err)
{
    if (in->start > 0 && in->cap - in->end < room) {
        memmove(in->buf, in->buf + in->start, in->end - in->start);
        in->end -= in->start;
        in->scan -= in->start;
        in->start = 0;
    }
    if (in->cap - in->end >= room)
        return 0;
    size_t need;
    /* the window itself may pass max_bytes by its read-ahead: what must be
     * held (a slurped file, a line) is checked against the limit exactly by
     * too_much() where it is known */
    if (pyprof__add_overflows(in->end, room, &need) || need > in->max_bytes + WINDOW_MIN)
        return too_much(in, err);
    size_t ncap = in->cap ? in->cap : WINDOW_MIN;
    while (ncap < need)
        ncap *= 2;
    unsigned char *nb = pyprof__realloc(in->buf, ncap);
    if (!nb)
        return pyprof_error_set(err, PYPROF_ENOMEM, in->name, NULL, (int64_t)in->offset, 0,
                                "out of memory");
    in->buf = nb;
    in->cap = ncap;
    return 0;
}

/* Decode more bytes into buf[end..cap); sets eof when there are no more. */
static int
produce(pyprof_input *in, pyprof_error *err)
{
    int rc;
    if (!in->dctx) {
        if (in->raw_pos < in->raw_len) {
            size_t k = in->raw_len - in->raw_pos;
            if (k > in->cap - in->end)
                k = in->cap - in->end;
            memcpy(in->buf + in->end, in->raw + in->raw_pos, k);
            in->raw_pos += k;
            in->end += k;
            in->decoded += k;
            return 0;
        }
        if (in->raw_eof) {
            in->eof = true;
            note_progress(in, true);
            return 0;
        }
        size_t got, want = in->cap - in->end;
        if (in->progress && want > PROGRESS_STEP)
            want = PROGRESS_STEP; /* a slurped window reports as it fills */
        if ((rc = raw_read(in, in->buf + in->end, want, &got, err)) < 0)
            return rc;
        in->raw_total += got;
        if (got == 0)
            in->raw_eof = in->eof = true;
        in->end += got;
        in->decoded += got;
        note_progress(in, got == 0);
        return 0;
    }
    for (;;) {
        if ((rc = raw_fill(in, err)) < 0)
            return rc;
        if (in->raw_pos == in->raw_len && in->raw_eof) {
            if (in->zret != 0)
                return pyprof_error_set(err, PYPROF_EFORMAT, in->name, "zstd", (int64_t)in->decoded,
                                        0,
                                        "zstd data is truncated (the stream ends inside a frame)");
            in->eof = true;
            return 0;
        }
        ZSTD_inBuffer ib = {in->raw, in->raw_len, in->raw_pos};
        ZSTD_outBuffer ob = {in->buf + in->end, in->cap - in->end, 0};
        size_t r = ZSTD_decompressStream(in->dctx, &ob, &ib);
        if (ZSTD_isError(r))
            return pyprof_error_set(err, PYPROF_EFORMAT, in->name, "zstd", (int64_t)in->decoded, 0,
                                    "bad zstd data: %s", ZSTD_getErrorName(r));
        in->raw_pos = ib.pos;
        in->zret = r;
        in->end += ob.pos;
        in->decoded += ob.pos;
        if (in->decoded > RATIO_GRACE && in->decoded / in->max_ratio > in->raw_total)
            return pyprof_error_set(err, PYPROF_ELIMIT, in->name, "zstd", (int64_t)in->decoded, 0,
                                    "zstd data expands more than %ux; refusing a likely "
                                    "decompression bomb (raise the limit with --max-ratio)",
                                    (unsigned)in->max_ratio);
        if (ob.pos > 0)
            return 0;
    }
}

/* Ensure end - start >= want, or eof. */
static int
fill(pyprof_input *in, size_t want, pyprof_error *err)
{
    while (in->end - in->start < want && !in->eof) {
        size_t room = want - (in->end - in->start);
        if (room < RAW_SIZE)
            room = RAW_SIZE;
        int rc = make_room(in, room, err);
        if (rc < 0)
            return rc;
        if ((rc = produce(in, err)) < 0)
            return rc;
    }
    return 0;
}

int
pyprof_input_peek(pyprof_input *in, size_t want, const unsigned char **data, size_t *avail,
                  pyprof_error *err)
{
    int rc = fill(in, want, err);
    if (rc < 0)
        return rc;
    *data = in->buf ? in->buf + in->start : (const unsigned char *)"";
    *avail = in->end - in->start;
    return 0;
}

void
pyprof_input_consume(pyprof_input *in, size_t n)
{
    size_t have = in->end - in->start;
    if (n > have)
        n = have;
    in->start += n;
    in->offset += n;
    if (in->scan < in->start)
        in->scan = in->start;
}

int
pyprof_input_read_line(pyprof_input *in, const char **line, size_t *len, size_t max_len,
                       pyprof_error *err)
{
    if (!max_len)
        max_len = LINE_MAX_DEFAULT;
    /* a line is held whole, so max_bytes bounds it too */
    bool by_limit = in->max_bytes < max_len;
    if (by_limit)
        max_len = (size_t)in->max_bytes;
    if (in->scan < in->start)
        in->scan = in->start;
    for (;;) {
        unsigned char *nl = NULL;
        if (in->end > in->scan)
            nl = memchr(in->buf + in->scan, '\n', in->end - in->scan);
        if (nl || (in->eof && in->end > in->start)) {
            size_t n = nl ? (size_t)(nl - (in->buf + in->start)) : in->end - in->start;
            if (n > max_len)
                break;
            if (!nl) {
                int rc = make_room(in, 1, err); /* room for the NUL */
                if (rc < 0)
                    return rc;
            }
            unsigned char *s = in->buf + in->start;
            s[n] = '\0';
            *line = (const char *)s;
            *len = n;
            size_t step = nl ? n + 1 : n;
            in->start += step;
            in->offset += step;
            in->scan = in->start;
            in->line++;
            return 1;
        }
        if (in->eof)
            return 0;
        in->scan = in->end;
        if (in->end - in->start > max_len)
            break;
        int rc = fill(in, in->end - in->start + 1, err);
        if (rc < 0)
            return rc;
    }
    return pyprof_error_set(err, PYPROF_ELIMIT, in->name, NULL, -1, (int64_t)in->line + 1,
                            "line longer than %zu bytes%s", max_len,
                            by_limit ? " (raise the limit with --max-bytes)" : "");
}

/*
 * A plain file of known size is slurped into a window made big enough at
 * once (one allocation, reads of the whole rest), and a big one is offered
 * transparent huge pages: it is written once from end to end, so a 2 MiB
 * page saves 511 page faults and wastes nothing.  Only a hint: sizes that
 * changed, or a kernel that declines, just cost the usual way.
 */
static void
presize(pyprof_input *in)
{
    pyprof_error ignored; /* on failure, the loop retries and reports */
    if (in->dctx || in->fsize <= 0 || in->eof || (uint64_t)in->fsize <= in->offset)
        return;
    uint64_t rest = (uint64_t)in->fsize - in->offset;
    size_t have = in->end - in->start;
    if (rest + 1 > in->max_bytes || rest + 1 <= have)
        return; /* too big: the loop in pyprof_input_slurp reports it */
    if (make_room(in, (size_t)(rest + 1 - have), &ignored) < 0)
        return;
    if (in->cap >= (size_t)8 << 20)
        pyprof__advise_huge(in->buf + in->end, in->cap - in->end);
}

int
pyprof_input_slurp(pyprof_input *in, const unsigned char **data, size_t *len, pyprof_error *err)
{
    presize(in);
    while (!in->eof) {
        int rc = fill(in, in->end - in->start + RAW_SIZE, err);
        if (rc < 0)
            return rc;
    }
    /* the window stops growing a little past max_bytes (make_room); what
     * is held is checked exactly here, also when a probe read it all */
    if (in->end - in->start > in->max_bytes)
        return too_much(in, err);
    *data = in->buf ? in->buf + in->start : (const unsigned char *)"";
    *len = in->end - in->start;
    return 0;
}

/* ---- reading one file in parts ------------------------------------------------------------ */

int
pyprof__input_set_end(pyprof_input *in, uint64_t end)
{
    if (in->dctx || in->fd < 0 || in->fsize < 0)
        return PYPROF_EINVAL;
    uint64_t at = in->base + in->raw_total;
    if (at > end) {
        /* the newest bytes are in the raw buffer, the ones before them at
         * the end of the window: drop them from there */
        uint64_t extra = at - end;
        size_t in_raw = in->raw_len - in->raw_pos;
        if (extra > in_raw + (in->end - in->start))
            return PYPROF_EINVAL; /* the reader has had some of them */
        size_t from_raw = extra < in_raw ? (size_t)extra : in_raw;
        in->raw_len -= from_raw;
        size_t from_win = (size_t)(extra - from_raw);
        in->end -= from_win;
        in->decoded -= from_win;
        if (in->scan > in->end)
            in->scan = in->end;
        in->raw_total -= extra;
        at = end;
    }
    in->positional = true;
    in->stop = end;
    if (at < end) /* an earlier stop may have looked like the end of the file */
        in->raw_eof = in->eof = false;
    return 0;
}

int
pyprof__input_line_start(pyprof_input *in, uint64_t from, uint64_t *out, pyprof_error *err)
{
    char buf[64 * 1024];
    uint64_t at = from;
    *out = (uint64_t)in->fsize;
    while (at < (uint64_t)in->fsize) {
        ssize_t r = pread(in->fd, buf, sizeof buf, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return os_error(in, err, errno, "read failed");
        if (r == 0)
            break;
        const char *nl = memchr(buf, '\n', (size_t)r);
        if (nl) {
            *out = at + (uint64_t)(nl - buf) + 1;
            break;
        }
        at += (uint64_t)r;
    }
    return 0;
}

int
pyprof__input_open_range(pyprof_input **out, pyprof_input *in, uint64_t start, uint64_t end,
                         pyprof_error *err)
{
    *out = NULL;
    pyprof_input *r = input_alloc(in->name);
    if (!r)
        return pyprof_error_set(err, PYPROF_ENOMEM, in->name, NULL, -1, 0, "out of memory");
    r->fd = in->fd;
    r->positional = true;
    r->base = start;
    r->stop = end;
    r->mtime = in->mtime;
    r->mtim = in->mtim;
    r->fsize = in->fsize;
    int rc = setup(r, false, err);
    if (rc < 0) {
        pyprof_input_close(r);
        return rc;
    }
    r->max_bytes = in->max_bytes;
    *out = r;
    return 0;
}

void
pyprof__input_report_done(pyprof_input *in)
{
    if (in->progress && in->fsize >= 0)
        in->progress(in->progress_payload, in->name, (uint64_t)in->fsize, in->fsize);
}

int
pyprof_input_error(pyprof_input *in, pyprof_error *err, int code, const char *format,
                   uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyprof__error_setv(err, code, in->name, format, (int64_t)offset, 0, fmt, ap);
    va_end(ap);
    return code;
}

int
pyprof_input_error_line(pyprof_input *in, pyprof_error *err, int code, const char *format,
                        uint64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyprof__error_setv(err, code, in->name, format, -1, (int64_t)line, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- reading bytes again ------------------------------------------------------------------- */

bool
pyprof__input_rereadable(const pyprof_input *in)
{
    return !in->dctx && in->fsize >= 0;
}

uint64_t
pyprof__input_offset_of(const pyprof_input *in, const void *p)
{
    const unsigned char *at = p;
    return in->base + in->offset - (uint64_t)((in->buf + in->start) - at);
}

static int
changed(pyprof_input *in, uint64_t at, pyprof_error *err)
{
    return pyprof_error_set(err, PYPROF_EIO, in->name, NULL, (int64_t)at, 0,
                            "the file changed while it was being read (read a copy, or pipe it "
                            "in)");
}

/*
 * Whether the file is still the one opened is not asked here, per read:
 * an fstat costs nearly as much as the pread, and on 100 MB of real stacks
 * it was 14 of the 36 ms that 28,000 reads again took.  One look at the
 * end, after the last read again, sees any change made since the file was
 * opened, which covers every read before it (pyprof__input_reread_check);
 * bytes that are no longer there fail at once.
 */
int
pyprof__input_reread(pyprof_input *in, uint64_t at, void *dst, size_t n, pyprof_error *err)
{
    if (!pyprof__input_rereadable(in))
        return PYPROF_EINVAL;
    if (at > (uint64_t)in->fsize || n > (uint64_t)in->fsize - at)
        return changed(in, at, err);
    if (!in->reread || at < in->reread_at)
        in->reread_at = at;
    in->reread = true;
    if (in->fd < 0) {
        memcpy(dst, in->mem + at, n);
        return 0;
    }
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(in->fd, (unsigned char *)dst + got, n - got, (off_t)(at + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return os_error(in, err, errno, "read failed");
        if (r == 0)
            return changed(in, at + got, err);
        got += (size_t)r;
    }
    return 0;
}

void
pyprof__input_reread_adopt(pyprof_input *in, const pyprof_input *part)
{
    if (part->reread && (!in->reread || part->reread_at < in->reread_at)) {
        in->reread = true;
        in->reread_at = part->reread_at;
    }
}

int
pyprof__input_reread_check(pyprof_input *in, pyprof_error *err)
{
    if (!in->reread || in->fd < 0)
        return 0;
    struct stat st;
    if (fstat(in->fd, &st) < 0)
        return os_error(in, err, errno, "cannot stat");
    if (st.st_size != in->fsize || st.st_mtim.tv_sec != in->mtim.tv_sec ||
        st.st_mtim.tv_nsec != in->mtim.tv_nsec)
        return changed(in, in->reread_at, err);
    return 0;
}
