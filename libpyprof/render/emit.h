/*
 * emit.h - values written into text formats (JSON, CSV) straight to an
 * output: the helpers every JSON or CSV writer of the library shares, so
 * that a name with a quote or a newline is escaped the same way in all of
 * them.  Not installed.
 */
#ifndef PYPROF_EMIT_H
#define PYPROF_EMIT_H

#include "pyprof_int.h"

#include <pyprof/output.h>

/* Shortest "%.15g".."%.17g" text of `v` that reads back as `v` (C locale);
 * "nan", "inf", "-inf" for the non-finite.  `buf` holds at least 32 bytes. */
#define PYPROF__DBL_BUF 32
const char *pyprof__fmt_double(char buf[PYPROF__DBL_BUF], double v);

/* JSON, byte for byte what cJSON_PrintUnformatted
 * writes for the same values: a quoted, escaped string; a number ("null"
 * for NaN and infinities; the text, NUL-ended, and its length, from
 * _number_text); and a key with its colon, after a comma unless it is the
 * object's first. */
void pyprof__json_string(pyprof_output *o, const char *s);
size_t pyprof__json_number_text(char buf[PYPROF__DBL_BUF], double v);
void pyprof__json_number(pyprof_output *o, double v);
void pyprof__json_key(pyprof_output *o, bool first, const char *key);
/* A whole member: the key as above, then the string or number. */
void pyprof__json_member_string(pyprof_output *o, bool first, const char *key, const char *v);
void pyprof__json_member_number(pyprof_output *o, bool first, const char *key, double v);
/* A number as pyprof__fmt_double writes it (reads back exactly, where
 * cJSON's text may not), "null" for NaN and infinities: for documents that
 * promise exact values rather than cJSON's text. */
void pyprof__json_exact(pyprof_output *o, double v);

/* A CSV field (RFC 4180): as it is, or quoted with its quotes doubled
 * when it holds a comma, a quote or a line break. */
void pyprof__csv_field(pyprof_output *o, const char *s);

#endif
