/*
 * png_encode.c - a cairo ARGB32 image to PNG, with libpng, tuned for speed.
 *
 * cairo_surface_write_to_png_stream() leaves libpng at its defaults: zlib
 * level 6 and a per-row trial of all five filters.  For a 1260x540 plot
 * that took 15-30 ms, more than drawing it.  Our images are flat areas,
 * axis lines, text and a vertical background gradient, so the "Up" filter
 * alone turns nearly every row into runs of zeros, and zlib level 1
 * compresses those almost as well as level 6 (66 KB instead of 57 KB for
 * the 10^6-sample plot) in about a fifth of the time.
 *
 * The pixels written are exactly cairo's: the same colour type choice (RGB
 * when every pixel is opaque, else RGBA), the same un-premultiplying
 * formula, and the same white bKGD chunk, so a decoder sees the image
 * cairo_surface_write_to_png() would have written, byte for byte.
 */
#include "config.h"

#include <png.h>
#include <setjmp.h>

#include "scene.h"

/* zlib level 1 (Z_BEST_SPEED); see above for why. */
#define PNG_ZLEVEL 1

typedef struct png_sink {
    pyprof_output *out;
    char message[160]; /* libpng's own error text, if it fails */
} png_sink;

static void
sink_write(png_structp png, png_bytep data, size_t len)
{
    png_sink *s = png_get_io_ptr(png);
    pyprof_output_write(s->out, data, len);
}

static void
sink_flush(png_structp png)
{
    (void)png; /* the output is committed as a whole by its owner */
}

static void
on_error(png_structp png, png_const_charp msg)
{
    png_sink *s = png_get_error_ptr(png);
    pyprof__snprintf_c(s->message, sizeof s->message, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void
on_warning(png_structp png, png_const_charp msg)
{
    (void)png; /* nothing we write can warn; stay quiet as cairo does */
    (void)msg;
}

static bool
all_opaque(const unsigned char *data, int w, int h, int stride)
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

/* Everything libpng may longjmp out of, kept apart so that no local of
 * the caller lives across the setjmp. */
static bool
write_image(png_structp png, png_infop info, const unsigned char *data, int w, int h, int stride,
            bool alpha, unsigned char *row)
{
    if (setjmp(png_jmpbuf(png)))
        return false;
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
                 alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color_16 white = {0, 255, 255, 255, 255};
    png_set_bKGD(png, info, &white); /* as cairo writes */
    png_set_compression_level(png, PNG_ZLEVEL);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        convert_row((const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride), w, alpha,
                    row);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    return true;
}

int
pyprof__png_encode_argb32(const unsigned char *data, int w, int h, int stride, pyprof_output *o,
                          pyprof_error *err)
{
    png_sink sink = {o, ""};
    bool alpha = !all_opaque(data, w, h, stride);
    unsigned char *row = pyprof__reallocarray(NULL, (size_t)w, alpha ? 4 : 3);
    png_structp png =
        row ? png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning) : NULL;
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        pyprof__free(row);
        return pyprof_error_set(err, PYPROF_ENOMEM, pyprof_output_name(o), "png", -1, 0,
                                "out of memory");
    }
    png_set_write_fn(png, &sink, sink_write, sink_flush);
    bool ok = write_image(png, info, data, w, h, stride, alpha, row);
    png_destroy_write_struct(&png, &info);
    pyprof__free(row);
    int rc = pyprof_output_status(o, err);
    if (rc == 0 && !ok)
        rc = pyprof_error_set(err, PYPROF_EIO, pyprof_output_name(o), "png", -1, 0,
                              "writing the PNG failed: %s", sink.message);
    return rc;
}
