/*
 * svg_markup.h - the pieces of SVG markup the scene writer assembles itself
 * (scene_svg.c): a growable byte buffer, numbers formatted exactly as
 * printf's "%.2f" / "%.0f" would (without printf, which was most of the time
 * of a big SVG), and escaping that gives exactly the bytes libxml2 2.9's
 * xmlTextWriter gives for text content and for attribute values, so a run
 * of elements can be built here and handed to xmlTextWriterWriteRaw in one
 * call.  tests/t_scene.c checks the escaping against libxml2 itself.
 * Semi-private: not part of the public API.
 */
#ifndef PYPROF_SVG_MARKUP_H
#define PYPROF_SVG_MARKUP_H

#include "pyprof_int.h"

/* Bytes being assembled.  Errors are sticky: after a failed allocation
 * `bad` is set and further appends do nothing. */
typedef struct pyprof__svgbuf {
    char *p;
    size_t len, cap;
    int bad;
} pyprof__svgbuf;

/* Room for `n` more bytes (0, or -1 and `bad` set). */
int pyprof__svgbuf_reserve(pyprof__svgbuf *b, size_t n);
void pyprof__svgbuf_free(pyprof__svgbuf *b);

static inline void
pyprof__svgbuf_put(pyprof__svgbuf *b, const char *s, size_t n)
{
    /* (nothing to add: b->p may still be NULL, which memcpy must not get) */
    if (n == 0 || (b->cap - b->len < n && pyprof__svgbuf_reserve(b, n) < 0))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* A string literal, its length known at compile time. */
#define PYPROF__SVGBUF_LIT(b, lit) pyprof__svgbuf_put((b), (lit), sizeof(lit) - 1)

/* Text content escaped as xmlTextWriterWriteString (xmlEncodeSpecialChars):
 * & < > " and CR become references, all other bytes are copied. */
void pyprof__svgbuf_text(pyprof__svgbuf *b, const char *s);
/* An attribute value escaped as xmlTextWriterWriteAttribute (libxml2's
 * xmlBufAttrSerializeTxtContent without a document): also LF and TAB become
 * references, and non-ASCII characters become hexadecimal character
 * references.  Strings must be valid UTF-8 (model strings are); a sequence
 * cut short by the terminating NUL, which libxml2 reads past, is written as
 * a reference to its first byte instead. */
void pyprof__svgbuf_attr(pyprof__svgbuf *b, const char *s);

/* "%.2f" of v into out[size] (size >= 24), exactly as the C locale's
 * snprintf, truncated likewise; returns the length written.  Needs no
 * printf unless v is huge, not finite, or its hundredths lie within a
 * millionth of a rounding tie. */
size_t pyprof__fmt_fixed2(char *out, size_t size, double v);
/* An SVG coordinate into out (at least 24 bytes): "%.2f" without trailing
 * zeros or point (10 / 10.5 / 10.25), values printing as -0 as 0.  Returns
 * the length, or 0 where pyprof__fmt_fixed2 would need printf (the caller
 * formats those itself). */
size_t pyprof__fmt_coord(char *out, double v);
/* "%.0f" of v into out[size] (size >= 24), likewise. */
size_t pyprof__fmt_fixed0(char *out, size_t size, double v);

#endif
