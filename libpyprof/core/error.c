/*
 * error.c - filling and printing pyprof_error.  Never allocates: an
 * out-of-memory error has to be reportable when memory is gone.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "pyprof_int.h"

void
pyprof_error_clear(pyprof_error *err)
{
    if (!err)
        return;
    err->code = 0;
    err->format[0] = '\0';
    err->source[0] = '\0';
    err->offset = -1;
    err->line = 0;
    err->message[0] = '\0';
}

static void
copy_field(char *dst, size_t size, const char *src)
{
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A message is one line: newlines and other control bytes become spaces. */
static void
one_line(char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
    }
}

static int __attribute__((format(printf, 7, 0)))
set_v(pyprof_error *err, int code, const char *source, const char *format, int64_t offset,
      int64_t line, const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    copy_field(err->source, sizeof(err->source), source);
    copy_field(err->format, sizeof(err->format), format);
    err->offset = offset;
    err->line = line;
    pyprof__vsnprintf_c(err->message, sizeof(err->message), fmt, ap);
    one_line(err->message);
    return code;
}

int
pyprof_error_set(pyprof_error *err, int code, const char *source, const char *format,
                 int64_t offset, int64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_v(err, code, source, format, offset, line, fmt, ap);
    va_end(ap);
    return code;
}

int
pyprof__error_setv(pyprof_error *err, int code, const char *source, const char *format,
                   int64_t offset, int64_t line, const char *fmt, va_list ap)
{
    return set_v(err, code, source, format, offset, line, fmt, ap);
}

int
pyprof_error_format(const pyprof_error *err, char *buf, size_t size)
{
    const char *msg = err->message[0] ? err->message : pyprof_status_string(err->code);
    if (err->source[0] && err->line > 0)
        return pyprof__snprintf_c(buf, size, "%s: line %lld: %s", err->source, (long long)err->line,
                                  msg);
    if (err->source[0] && err->offset >= 0)
        return pyprof__snprintf_c(buf, size, "%s: offset %lld: %s", err->source,
                                  (long long)err->offset, msg);
    if (err->source[0])
        return pyprof__snprintf_c(buf, size, "%s: %s", err->source, msg);
    return pyprof__snprintf_c(buf, size, "%s", msg);
}

const char *
pyprof_status_string(int status)
{
    switch (status) {
    case PYPROF_OK:
        return "success";
    case PYPROF_ENOMEM:
        return "out of memory";
    case PYPROF_EIO:
        return "input/output error";
    case PYPROF_EFORMAT:
        return "invalid data";
    case PYPROF_EUNSUPPORTED:
        return "not supported";
    case PYPROF_ELIMIT:
        return "limit exceeded";
    case PYPROF_ECAPS:
        return "the profile lacks the data this needs";
    case PYPROF_EINVAL:
        return "invalid argument";
    default:
        return "unknown error";
    }
}
