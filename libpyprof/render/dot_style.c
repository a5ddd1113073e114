/*
 * dot_style.c - how gprof2dot's graphs look: colour themes, sizes, and the
 * text of function names (formats.md section 12.3 and 12.4).
 *
 * Every formula here is gprof2dot's, down to the order of floating-point
 * operations, because a colour that differs in the last bit can round to a
 * different "#rrggbb".
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include <pyprof/flame.h>

#include "dot_int.h"

/* ---- themes ------------------------------------------------------------------ */

void
pyprof__dot_theme(dot_theme *t, pyprof_dot_colormap map, double skew)
{
    /* gprof2dot's Theme defaults: white background (HSL 0,0,1), black to
     * white, white node fonts on filled boxes, fonts 10-10, pens 0.5-4. */
    *t = (dot_theme){.bg = {0.0, 0.0, 1.0},
                     .min = {0.0, 0.0, 0.0},
                     .max = {0.0, 0.0, 1.0},
                     .fontcolor = "white",
                     .nodestyle = "filled",
                     .minfont = 10.0,
                     .maxfont = 10.0,
                     .minpen = 0.5,
                     .maxpen = 4.0,
                     .gamma = 2.2,
                     .skew = skew};
    switch (map) {
    case PYPROF_DOT_COLOR: /* dark blue to saturated red, no gamma */
        t->min[0] = 2.0 / 3.0, t->min[1] = 0.80, t->min[2] = 0.25;
        t->max[0] = 0.0, t->max[1] = 1.0, t->max[2] = 0.5;
        t->gamma = 1.0;
        break;
    case PYPROF_DOT_PINK:
        t->min[0] = 0.0, t->min[1] = 1.0, t->min[2] = 0.90;
        t->max[0] = 0.0, t->max[1] = 1.0, t->max[2] = 0.5;
        break;
    case PYPROF_DOT_GRAY:
        t->min[0] = 0.0, t->min[1] = 0.0, t->min[2] = 0.85;
        t->max[0] = 0.0, t->max[1] = 0.0, t->max[2] = 0.0;
        break;
    case PYPROF_DOT_BW:
        t->minfont = 8.0, t->maxfont = 24.0;
        memset(t->max, 0, sizeof t->max);
        t->minpen = 0.1, t->maxpen = 8.0;
        break;
    case PYPROF_DOT_PRINT:
        t->minfont = 18.0, t->maxfont = 30.0;
        t->fontcolor = "black";
        t->nodestyle = "solid";
        memset(t->max, 0, sizeof t->max);
        t->minpen = 0.1, t->maxpen = 8.0;
        break;
    }
}

/* CSS3 hue-to-channel, with gprof2dot's single wrap of h into [0, 1]. */
static double
hue_to_rgb(double m1, double m2, double h)
{
    if (h < 0.0)
        h += 1.0;
    else if (h > 1.0)
        h -= 1.0;
    if (h * 6 < 1.0)
        return m1 + (m2 - m1) * h * 6.0;
    else if (h * 2 < 1.0)
        return m2;
    else if (h * 3 < 2.0)
        return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
    return m1;
}

/* Python's float % 1.0: the result takes the sign of the divisor. */
static double
py_mod1(double x)
{
    double r = fmod(x, 1.0);
    if (r != 0.0 && r < 0.0)
        r += 1.0;
    return r;
}

static double
clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

static void
hsl_to_hex(const dot_theme *t, double h, double s, double l, char out[8])
{
    h = py_mod1(h);
    s = clamp01(s);
    l = clamp01(l);
    double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
    double m1 = l * 2.0 - m2;
    double c[3] = {hue_to_rgb(m1, m2, h + 1.0 / 3.0), hue_to_rgb(m1, m2, h),
                   hue_to_rgb(m1, m2, h - 1.0 / 3.0)};
    int v[3];
    for (int i = 0; i < 3; i++) {
        double x = pow(c[i], t->gamma);
        /* NaN (from NaN times in a crafted file) is black, never an
         * undefined float-to-int conversion */
        v[i] = !(x > 0.0) ? 0 : x >= 1.0 ? 255 : (int)(255.0 * x + 0.5);
    }
    snprintf(out, 8, "#%02x%02x%02x", v[0], v[1], v[2]);
}

void
pyprof__dot_color(const dot_theme *t, double weight, char out[8])
{
    weight = clamp01(weight);
    double h, s, l;
    if (t->skew == 1.0) {
        h = t->min[0] + weight * (t->max[0] - t->min[0]);
        s = t->min[1] + weight * (t->max[1] - t->min[1]);
        l = t->min[2] + weight * (t->max[2] - t->min[2]);
    } else {
        /* an exponential curve through (0, min) and (1, max) */
        double base = t->skew, k = -1.0 + pow(base, weight);
        h = t->min[0] + ((t->max[0] - t->min[0]) * k / (base - 1.0));
        s = t->min[1] + ((t->max[1] - t->min[1]) * k / (base - 1.0));
        l = t->min[2] + ((t->max[2] - t->min[2]) * k / (base - 1.0));
    }
    hsl_to_hex(t, h, s, l, out);
}

void
pyprof__dot_bgcolor(const dot_theme *t, char out[8])
{
    hsl_to_hex(t, t->bg[0], t->bg[1], t->bg[2], out);
}

double
pyprof__dot_fontsize(const dot_theme *t, double weight)
{
    double f = weight * weight * t->maxfont;
    return f > t->minfont ? f : t->minfont;
}

double
pyprof__dot_penwidth(const dot_theme *t, double weight)
{
    double w = weight * t->maxpen;
    return w > t->minpen ? w : t->minpen;
}

/* ---- growing strings -------------------------------------------------------------- */

void
pyprof__dot_buf_reset(dot_buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

void
pyprof__dot_buf_put(dot_buf *b, const char *s, size_t n)
{
    if (b->rc)
        return;
    if (b->len + n + 1 > b->cap && PYPROF_GROW(b->s, b->cap, b->len + n + 1) < 0) {
        b->rc = PYPROF_ENOMEM;
        return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void
pyprof__dot_buf_puts(dot_buf *b, const char *s)
{
    pyprof__dot_buf_put(b, s, strlen(s));
}

void
pyprof__dot_buf_printf(dot_buf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = pyprof__vsnprintf_c(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    /* labels only print short numbers; a longer result is cut, never overrun */
    pyprof__dot_buf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void
pyprof__dot_buf_escaped(dot_buf *b, const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = s[i] == '\\'   ? "\\\\"
                          : s[i] == '\n' ? "\\n"
                          : s[i] == '\t' ? "\\t"
                                         : NULL;
        if (rep) {
            pyprof__dot_buf_put(b, s + start, i - start);
            pyprof__dot_buf_puts(b, rep);
            start = i + 1;
        }
    }
    pyprof__dot_buf_put(b, s + start, n - start);
}

/* ---- function names ------------------------------------------------------------------ */

/* os.path.basename(os.path.splitext(filename)[0]): the last path component
 * without its extension, where leading dots of a component are not an
 * extension (".bashrc" keeps its name). */
static void
module_name(const char *file, const char **start, size_t *len)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *p = base;
    while (*p == '.')
        p++;
    const char *dot = strrchr(p, '.');
    *start = base;
    *len = dot ? (size_t)(dot - base) : strlen(base);
}

/* Remove every innermost `open ... close` pair without nested `open`/`close`
 * inside, until none is left (gprof2dot's repeated regex substitution of
 * \([^()]*\) and <[^<>]*>).  Works in place; returns the new length. */
static size_t
strip_pairs(char *s, size_t n, char open, char close)
{
    for (;;) {
        size_t w = 0, last_open = SIZE_MAX;
        bool removed = false;
        /* One left-to-right pass removes all non-overlapping innermost pairs,
         * as re.subn does; positions shift as we write. */
        for (size_t r = 0; r < n; r++) {
            char c = s[r];
            s[w] = c;
            if (c == open) {
                last_open = w;
            } else if (c == close && last_open != SIZE_MAX) {
                w = last_open;
                last_open = SIZE_MAX;
                removed = true;
                continue;
            }
            w++;
        }
        n = w;
        if (!removed)
            return n;
    }
}

/* The -s transformation: argument lists, a trailing const, template arguments. */
static size_t
strip_name(char *s, size_t n)
{
    n = strip_pairs(s, n, '(', ')');
    /* \s+const$ */
    if (n >= 6 && memcmp(s + n - 5, "const", 5) == 0) {
        size_t k = n - 5;
        size_t j = k;
        while (j > 0 && strchr(" \t\n\r\f\v", s[j - 1]))
            j--;
        if (j < k)
            n = j;
    }
    return strip_pairs(s, n, '<', '>');
}

/* The -w transformation: textwrap.fill(name, 32, break_long_words=False) for
 * names over 32 characters (words split at whitespace and after hyphens
 * inside words), then ", " -> "," and "> >" -> ">>". */
static void
wrap_name(dot_buf *out, const char *s, size_t n)
{
    dot_buf tmp = {0};
    size_t chars = pyprof__utf8_length(s, n);
    if (chars > 32) {
        size_t line = 0; /* characters on the current line */
        size_t i = 0;
        bool first = true;
        while (i < n) {
            while (i < n && strchr(" \t\n\r\f\v", s[i]))
                i++;
            if (i >= n)
                break;
            size_t j = i;
            while (j < n && !strchr(" \t\n\r\f\v", s[j])) {
                /* a hyphen between letters ends a chunk */
                if (s[j] == '-' && j > i && j + 1 < n &&
                    ((s[j - 1] | 32) >= 'a' && (s[j - 1] | 32) <= 'z') &&
                    ((s[j + 1] | 32) >= 'a' && (s[j + 1] | 32) <= 'z')) {
                    j++;
                    break;
                }
                j++;
            }
            size_t w = pyprof__utf8_length(s + i, j - i);
            bool after_space = i > 0 && strchr(" \t\n\r\f\v", s[i - 1]);
            size_t need = (!first && after_space) ? w + 1 : w;
            if (!first && line + need > 32) {
                pyprof__dot_buf_puts(&tmp, "\n");
                line = 0;
                need = w;
            } else if (!first && after_space) {
                pyprof__dot_buf_puts(&tmp, " ");
            }
            pyprof__dot_buf_put(&tmp, s + i, j - i);
            line += need;
            first = false;
            i = j;
        }
    } else {
        pyprof__dot_buf_put(&tmp, s, n);
    }
    if (tmp.rc) {
        out->rc = tmp.rc;
        pyprof__free(tmp.s);
        return;
    }
    /* ", " -> ","; "> >" -> ">>" twice (the second catches ">> >" runs) */
    size_t w = 0;
    for (size_t r = 0; r < tmp.len; r++) {
        if (tmp.s[r] == ',' && r + 1 < tmp.len && tmp.s[r + 1] == ' ') {
            tmp.s[w++] = ',';
            r++;
            continue;
        }
        tmp.s[w++] = tmp.s[r];
    }
    tmp.len = w;
    for (int pass = 0; pass < 2; pass++) {
        w = 0;
        for (size_t r = 0; r < tmp.len; r++) {
            if (r + 2 < tmp.len && tmp.s[r] == '>' && tmp.s[r + 1] == ' ' && tmp.s[r + 2] == '>') {
                tmp.s[w++] = '>';
                tmp.s[w++] = '>';
                r += 2;
                continue;
            }
            tmp.s[w++] = tmp.s[r];
        }
        tmp.len = w;
    }
    pyprof__dot_buf_put(out, tmp.s ? tmp.s : "", tmp.len);
    pyprof__free(tmp.s);
}

/* gprof2dot cuts names of 4096 characters or more (dot cannot parse longer
 * quoted strings) to 4095 and an ellipsis. */
#define MAX_FUNCTION_NAME 4096

void
pyprof__dot_function_name(dot_buf *b, const pyprof_profile *p, pyprof_id func, int strip, int wrap)
{
    const pyprof_func *f = pyprof_profile_func(p, func);
    dot_buf name = {0};
    if ((f->flags & PYPROF_FUNC_FRAME_MASK) == PYPROF_FUNC_FRAME_NAME_FILE_LINE) {
        /* py-spy "NAME (FILE:LINE)": the file is a label line of its own
         * (pyprof__dot_function_module), the line is dropped */
        pyprof__dot_buf_puts(&name, pyprof_profile_string(p, f->name));
    } else if (f->flags & PYPROF_FUNC_FRAME_MASK) {
        /* read from stacks: gprof2dot's collapse parser names a function by
         * its frame text, exactly as written */
        char small[256];
        size_t n = pyprof_flame_frame_label(p, func, small, sizeof small);
        if (n < sizeof small) {
            pyprof__dot_buf_put(&name, small, n);
        } else {
            char *big = pyprof__malloc(n + 1);
            if (big) {
                pyprof_flame_frame_label(p, func, big, n + 1);
                pyprof__dot_buf_put(&name, big, n);
                pyprof__free(big);
            } else {
                name.rc = PYPROF_ENOMEM;
            }
        }
    } else {
        const char *mod;
        size_t modlen;
        module_name(pyprof_profile_string(p, f->file), &mod, &modlen);
        pyprof__dot_buf_put(&name, mod, modlen);
        pyprof__dot_buf_printf(&name, ":%lld:", (long long)f->line);
        pyprof__dot_buf_puts(&name, pyprof_profile_string(p, f->name));
    }
    if (!name.rc && !name.s)
        pyprof__dot_buf_put(&name, "", 0);
    if (name.rc) {
        b->rc = name.rc;
        return;
    }
    if (strip)
        name.len = strip_name(name.s, name.len);
    if (pyprof__utf8_length(name.s, name.len) >= MAX_FUNCTION_NAME) {
        /* cut at the start of code point number 4095 */
        size_t cps = 0, i = 0;
        for (; i < name.len; i++) {
            if (((unsigned char)name.s[i] & 0xC0) != 0x80) {
                if (cps == MAX_FUNCTION_NAME - 1)
                    break;
                cps++;
            }
        }
        name.len = i;
        pyprof__dot_buf_puts(&name, "\xe2\x80\xa6"); /* U+2026 */
    }
    if (wrap)
        wrap_name(b, name.s, name.len);
    else
        pyprof__dot_buf_put(b, name.s, name.len);
    pyprof__free(name.s);
}

const char *
pyprof__dot_function_module(const pyprof_profile *p, pyprof_id func)
{
    const pyprof_func *f = pyprof_profile_func(p, func);
    if ((f->flags & PYPROF_FUNC_FRAME_MASK) == PYPROF_FUNC_FRAME_NAME_FILE_LINE)
        return pyprof_profile_string(p, f->file);
    return NULL;
}
