/*
 * collapsed_frame.c - splitting a folded-stack frame into name, file and line,
 * and rebuilding the frame text from them (formats.md §8.2-8.4).
 *
 * Shapes:  py-spy      NAME (FILE:LINE)
 *          austin 1/2  NAME (FILE)          (the line is a separate "L<n>" frame)
 *          austin 3    FILE:NAME:LINE       (FILE may itself contain ':')
 * A split is accepted only when rebuilding gives the same bytes: the line
 * must be written canonically (no sign, no leading zero, at most 9 digits)
 * and name and file must be non-empty.  Anything else stays a plain name.
 */
#include "config.h"

#include <pyprof/flame.h>

#include "collapsed.h"

/* A canonical positive line number in s[0..len), or -1. */
static int64_t
canonical_line(const char *s, size_t len)
{
    if (len == 0 || len > 9 || s[0] == '0')
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* The last occurrence of " (" in s[0..len), or NULL. */
static const char *
last_open_paren(const char *s, size_t len)
{
    for (size_t i = len; i-- > 1;)
        if (s[i] == '(' && s[i - 1] == ' ')
            return s + i - 1;
    return NULL;
}

bool
pyprof__frame_split(const char *s, size_t len, uint32_t shape, pyprof__frame_fields *out)
{
    memset(out, 0, sizeof(*out));
    out->shape = shape;
    if (len < 5)
        return false;
    if (shape == PYPROF_FUNC_FRAME_NAME_FILE_LINE || shape == PYPROF_FUNC_FRAME_NAME_FILE) {
        if (s[len - 1] != ')')
            return false;
        const char *open = last_open_paren(s, len - 1);
        if (!open || open == s)
            return false;
        const char *inner = open + 2, *end = s + len - 1;
        out->name = s;
        out->name_len = (size_t)(open - s);
        if (shape == PYPROF_FUNC_FRAME_NAME_FILE) {
            out->file = inner;
            out->file_len = (size_t)(end - inner);
            return out->file_len > 0;
        }
        const char *colon = NULL;
        for (const char *q = end; q-- > inner;)
            if (*q == ':') {
                colon = q;
                break;
            }
        if (!colon || colon == inner)
            return false;
        out->line = canonical_line(colon + 1, (size_t)(end - colon - 1));
        out->file = inner;
        out->file_len = (size_t)(colon - inner);
        return out->line > 0;
    }
    if (shape == PYPROF_FUNC_FRAME_FILE_NAME_LINE) {
        const char *c2 = memrchr(s, ':', len);
        if (!c2)
            return false;
        out->line = canonical_line(c2 + 1, (size_t)(s + len - c2 - 1));
        if (out->line <= 0)
            return false;
        const char *c1 = memrchr(s, ':', (size_t)(c2 - s));
        if (!c1 || c1 == s || c1 + 1 == c2)
            return false;
        out->file = s;
        out->file_len = (size_t)(c1 - s);
        out->name = c1 + 1;
        out->name_len = (size_t)(c2 - c1 - 1);
        return true;
    }
    return false;
}

size_t
pyprof_flame_frame_label(const pyprof_profile *p, pyprof_id func, char *buf, size_t size)
{
    const pyprof_func *f = pyprof_profile_func(p, func);
    if (!f) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    const char *name = pyprof_profile_string(p, f->name);
    const char *file = pyprof_profile_string(p, f->file);
    int n;
    switch (f->flags & PYPROF_FUNC_FRAME_MASK) {
    case PYPROF_FUNC_FRAME_NAME:
        n = snprintf(buf, size, "%s", name);
        break;
    case PYPROF_FUNC_FRAME_NAME_FILE_LINE:
        n = snprintf(buf, size, "%s (%s:%lld)", name, file, (long long)f->line);
        break;
    case PYPROF_FUNC_FRAME_NAME_FILE:
        n = snprintf(buf, size, "%s (%s)", name, file);
        break;
    case PYPROF_FUNC_FRAME_FILE_NAME_LINE:
        n = snprintf(buf, size, "%s:%s:%lld", file, name, (long long)f->line);
        break;
    default:
        /* not from a frame (pstats): built-ins ("~" or "" file) show their
         * name alone, Python functions as py-spy shows them */
        if (!file[0] || strcmp(file, "~") == 0)
            n = snprintf(buf, size, "%s", name);
        else
            n = snprintf(buf, size, "%s (%s:%lld)", name, file, (long long)f->line);
        break;
    }
    return n < 0 ? 0 : (size_t)n;
}
