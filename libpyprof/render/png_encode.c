/*
 * png_encode.c - a cairo ARGB32 image to PNG, tuned for speed, in bands
 * that can be compressed on different threads.
 *
 * cairo_surface_write_to_png_stream() leaves libpng at its defaults: zlib
 * level 6 and a per-row trial of all five filters.  For a 1260x540 plot
 * that took 15-30 ms, more than drawing it.  Our images are flat areas,
 * axis lines, text and a vertical background gradient, so the "Up" filter
 * alone turns nearly every row into runs of zeros, and zlib level 1
 * compresses those almost as well as level 6 (66 KB instead of 57 KB for
 * the 10^6-sample plot) in about a fifth of the time.
 *
 * Even so, compressing 2 MB of rows stayed a quarter of a small plot's
 * time, so the rows are compressed in bands, each a raw deflate stream of
 * its own (as pigz does): every band but the last ends with a sync flush
 * (a byte boundary, no final-block bit), the bands are concatenated in
 * order inside one zlib header and trailer, and the Adler-32 of the whole
 * is combined from the bands' (adler32_combine).  A band's first row is
 * filtered "None" since its row above may not exist yet when the band is
 * compressed; a decoder neither knows nor cares where bands begin.
 *
 * The container (signature, IHDR, bKGD, one IDAT, IEND) is written here;
 * the pixels are exactly cairo's: the same colour type choice (RGB when
 * every pixel is opaque, else RGBA), the same un-premultiplying formula,
 * and the same white bKGD chunk, so a decoder sees the image
 * cairo_surface_write_to_png() would have written, pixel for pixel (the
 * compressed bytes differ).
 */
#include "config.h"

#include <zlib.h>

#include "scene.h"

/* zlib level 1 (Z_BEST_SPEED); see above for why. */
#define PNG_ZLEVEL 1
/* Filtered rows handed to zlib at a time: per-row calls cost more. */
#define CHUNK ((size_t)64 * 1024)

bool
pyprof__png_opaque(const unsigned char *data, int w, int h, int stride)
{
    for (int y = 0; y < h; y++) {
        const uint32_t *px = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
        uint32_t and = 0xffffffffu;
        for (int x = 0; x < w; x++)
            and &= px[x];
        if ((and >> 24) != 0xff)
            return false;
    }
    return true;
}

/* One row of native-endian premultiplied ARGB32 as PNG bytes: RGB, or RGBA
 * un-premultiplied with cairo's rounding. */
static void
convert_row(const uint32_t *px, int w, bool alpha, unsigned char *dst)
{
    if (!alpha) {
        for (int x = 0; x < w; x++, dst += 3) {
            uint32_t v = px[x];
            dst[0] = (unsigned char)(v >> 16);
            dst[1] = (unsigned char)(v >> 8);
            dst[2] = (unsigned char)v;
        }
        return;
    }
    for (int x = 0; x < w; x++, dst += 4) {
        uint32_t v = px[x], a = v >> 24;
        if (a == 0) {
            dst[0] = dst[1] = dst[2] = dst[3] = 0;
            continue;
        }
        dst[0] = (unsigned char)((((v >> 16) & 0xff) * 255 + a / 2) / a);
        dst[1] = (unsigned char)((((v >> 8) & 0xff) * 255 + a / 2) / a);
        dst[2] = (unsigned char)(((v & 0xff) * 255 + a / 2) / a);
        dst[3] = (unsigned char)a;
    }
}

void
pyprof__png_band_free(pyprof__png_band *b)
{
    pyprof__free(b->z);
    b->z = NULL;
    b->zlen = 0;
}

/* Feed `n` bytes to the stream, growing the output as needed. */
static int
band_feed(z_stream *zs, pyprof__png_band *b, size_t *cap, const unsigned char *in, size_t n,
          int flush)
{
    zs->next_in = (Bytef *)(uintptr_t)in;
    zs->avail_in = (uInt)n;
    for (;;) {
        if (b->zlen == *cap) {
            size_t ncap = *cap ? *cap * 2 : 64 * 1024;
            unsigned char *z = pyprof__realloc(b->z, ncap);
            if (!z)
                return PYPROF_ENOMEM;
            b->z = z;
            *cap = ncap;
        }
        zs->next_out = b->z + b->zlen;
        zs->avail_out = (uInt)(*cap - b->zlen);
        int zr = deflate(zs, flush);
        b->zlen = *cap - zs->avail_out;
        if (zr == Z_STREAM_ERROR)
            return PYPROF_EIO;
        if (zs->avail_out != 0 && zs->avail_in == 0)
            return 0; /* all taken, and the flush (if any) complete */
        if (zr == Z_STREAM_END)
            return 0;
    }
}

int
pyprof__png_band_deflate(pyprof__png_band *b, const unsigned char *data, int w, int rows,
                         int stride, bool alpha, bool last)
{
    memset(b, 0, sizeof *b);
    b->alpha = alpha;
    b->adler = (uint32_t)adler32(0L, Z_NULL, 0);
    size_t rowlen = 1 + (size_t)w * (alpha ? 4 : 3);
    /* the current filtered rows, and the previous row unfiltered */
    size_t per = CHUNK / rowlen ? CHUNK / rowlen : 1;
    unsigned char *buf = pyprof__reallocarray(NULL, per + 1, rowlen);
    if (!buf)
        return PYPROF_ENOMEM;
    unsigned char *prev = buf + per * rowlen;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, PNG_ZLEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        pyprof__free(buf);
        return PYPROF_ENOMEM;
    }
    size_t cap = 0;
    int rc = 0;
    for (int y = 0; y < rows && rc == 0;) {
        size_t k = 0;
        for (; k < per && y < rows; k++, y++) {
            unsigned char *row = buf + k * rowlen;
            convert_row((const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride), w,
                        alpha, row + 1);
            if (y == 0) {
                row[0] = 0; /* None: see above */
                memcpy(prev, row + 1, rowlen - 1);
                continue;
            }
            row[0] = 2; /* Up: the difference from the row above, mostly zeros */
            for (size_t i = 1; i < rowlen; i++) {
                unsigned char c = row[i];
                row[i] = (unsigned char)(c - prev[i - 1]);
                prev[i - 1] = c;
            }
        }
        b->adler = (uint32_t)adler32(b->adler, buf, (uInt)(k * rowlen));
        b->rawlen += k * rowlen;
        rc = band_feed(&zs, b, &cap, buf, k * rowlen,
                       y < rows ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH);
    }
    if (rows == 0 && rc == 0)
        rc = band_feed(&zs, b, &cap, buf, 0, last ? Z_FINISH : Z_SYNC_FLUSH);
    deflateEnd(&zs);
    pyprof__free(buf);
    if (rc < 0)
        pyprof__png_band_free(b);
    return rc;
}

static void
put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* One chunk: length, type, data (given in up to two pieces), CRC. */
static void
chunk(pyprof_output *o, const char *type, const unsigned char *d1, size_t n1,
      const unsigned char *d2, size_t n2)
{
    unsigned char head[8], tail[4];
    put32(head, (uint32_t)(n1 + n2));
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, head + 4, 4);
    if (n1)
        crc = crc32(crc, d1, (uInt)n1);
    if (n2)
        crc = crc32(crc, d2, (uInt)n2);
    put32(tail, (uint32_t)crc);
    pyprof_output_write(o, head, 8);
    if (n1)
        pyprof_output_write(o, d1, n1);
    if (n2)
        pyprof_output_write(o, d2, n2);
    pyprof_output_write(o, tail, 4);
}

int
pyprof__png_write_bands(pyprof_output *o, int w, int h, const pyprof__png_band *bands,
                        size_t nbands, pyprof_error *err)
{
    bool alpha = nbands > 0 && bands[0].alpha;
    size_t zlen = 2 + 4;
    for (size_t i = 0; i < nbands; i++)
        zlen += bands[i].zlen;
    if (zlen > 0x7fffffffu) /* one IDAT holds it all: PNG's chunk limit */
        return pyprof_error_set(err, PYPROF_ELIMIT, pyprof_output_name(o), "png", -1, 0,
                                "the compressed image is too large for PNG");
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    pyprof_output_write(o, sig, sizeof sig);
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)w);
    put32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;               /* bits per sample */
    ihdr[9] = alpha ? 6 : 2;   /* RGBA or RGB */
    ihdr[10] = ihdr[11] = 0;   /* deflate, adaptive filters */
    ihdr[12] = 0;              /* no interlace */
    chunk(o, "IHDR", ihdr, sizeof ihdr, NULL, 0);
    static const unsigned char white[6] = {0, 255, 0, 255, 0, 255}; /* as cairo writes */
    chunk(o, "bKGD", white, sizeof white, NULL, 0);

    /* IDAT: zlib header (deflate, 32 KiB window, "fastest"), the bands,
     * the Adler-32 of all filtered rows */
    unsigned char head[8], zhead[2] = {0x78, 0x01}, tail[4];
    uLong adler = adler32(0L, Z_NULL, 0);
    put32(head, (uint32_t)zlen);
    memcpy(head + 4, "IDAT", 4);
    uLong crc = crc32(crc32(0L, head + 4, 4), zhead, 2);
    pyprof_output_write(o, head, 8);
    pyprof_output_write(o, zhead, 2);
    for (size_t i = 0; i < nbands; i++) {
        crc = crc32(crc, bands[i].z, (uInt)bands[i].zlen);
        pyprof_output_write(o, bands[i].z, bands[i].zlen);
        adler = adler32_combine(adler, bands[i].adler, (z_off_t)bands[i].rawlen);
    }
    put32(tail, (uint32_t)adler);
    crc = crc32(crc, tail, 4);
    pyprof_output_write(o, tail, 4);
    put32(tail, (uint32_t)crc);
    pyprof_output_write(o, tail, 4);
    chunk(o, "IEND", NULL, 0, NULL, 0);
    return pyprof_output_status(o, err);
}

int
pyprof__png_encode_argb32(const unsigned char *data, int w, int h, int stride, pyprof_output *o,
                          pyprof_error *err)
{
    pyprof__png_band b;
    int rc = pyprof__png_band_deflate(&b, data, w, h, stride, !pyprof__png_opaque(data, w, h, stride),
                                      true);
    if (rc < 0)
        return pyprof_error_set(err, rc, pyprof_output_name(o), "png", -1, 0, "%s",
                                rc == PYPROF_ENOMEM ? "out of memory" : "compressing the PNG failed");
    rc = pyprof__png_write_bands(o, w, h, &b, 1, err);
    pyprof__png_band_free(&b);
    return rc;
}
