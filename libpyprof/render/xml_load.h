/*
 * xml_load.h - libxml2's text writer, loaded when the first SVG is written
 * (private; see xml_load.c).
 */
#ifndef PYPROF_RENDER_XML_LOAD_H
#define PYPROF_RENDER_XML_LOAD_H

#include <libxml/xmlwriter.h>

#include "pyprof_int.h"

/* The libxml2 functions the SVG backend calls, with libxml2's own types. */
typedef struct pyprof__xml {
    __typeof__(xmlOutputBufferCreateIO) *output_create_io;
    __typeof__(xmlOutputBufferClose) *output_close;
    __typeof__(xmlNewTextWriter) *writer_new;
    __typeof__(xmlFreeTextWriter) *writer_free;
    __typeof__(xmlTextWriterSetIndent) *set_indent;
    __typeof__(xmlTextWriterStartDocument) *start_document;
    __typeof__(xmlTextWriterEndDocument) *end_document;
    __typeof__(xmlTextWriterStartElement) *start_element;
    __typeof__(xmlTextWriterEndElement) *end_element;
    __typeof__(xmlTextWriterWriteAttribute) *write_attribute;
    __typeof__(xmlTextWriterWriteString) *write_string;
    __typeof__(xmlTextWriterWriteRawLen) *write_raw_len;
    __typeof__(xmlTextWriterFlush) *flush;
    __typeof__(xmlTextWriterWriteComment) *write_comment;
    __typeof__(xmlTextWriterWriteCDATA) *write_cdata;
} pyprof__xml;

/* libxml2, loaded on the first call of the process (any thread); later
 * calls return the same table.  On failure (the library or one of its
 * functions missing) *api is NULL and err says which; `name` is the
 * output being written, for the message. */
int pyprof__xml_load(const pyprof__xml **api, const char *name, pyprof_error *err);
/* A load started on a helper thread, for a caller that will write SVG
 * after other work (pyprof_render_flame: the layout); NULL if threads are
 * not available (the first pyprof__xml_load then loads as before) or the
 * load has run already.
 * _end waits for the helper (the load's outcome is what pyprof__xml_load
 * reports) and frees the handle; it accepts NULL. */
typedef struct pyprof__xml_preload pyprof__xml_preload;
pyprof__xml_preload *pyprof__xml_preload_start(void);
void pyprof__xml_preload_end(pyprof__xml_preload *h);
/* For tests: load this library instead, if called before the first load. */
void pyprof__xml_use(const char *soname);

#endif
