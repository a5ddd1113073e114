/*
 * xml_load.c - libxml2's text writer, loaded when the first SVG is written.
 *
 * Only SVG output uses libxml2, but linked into libpyprof it was loaded by
 * every run of every tool, and with it ICU and the C++ runtime: 0.9 ms of
 * mapping and relocating per run, a quarter of pyprof-stats' start-up on a
 * small profile and 3-6% of a PNG memory plot.  So libpyprof is not linked
 * with it: the SVG backend asks for it here (lib_load.c says how).  A
 * renderer that has other work to do first can start the load on a helper
 * thread (pyprof__xml_preload_start).
 */
#include "config.h"

#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif

#include "lib_load.h"
#include "xml_load.h"

static pyprof__xml api;

#define FN(field, sym) PYPROF__LIB_FN(api, field, sym)
static const pyprof__lib_fn fns[] = {
    FN(output_create_io, xmlOutputBufferCreateIO),
    FN(output_close, xmlOutputBufferClose),
    FN(writer_new, xmlNewTextWriter),
    FN(writer_free, xmlFreeTextWriter),
    FN(set_indent, xmlTextWriterSetIndent),
    FN(start_document, xmlTextWriterStartDocument),
    FN(end_document, xmlTextWriterEndDocument),
    FN(start_element, xmlTextWriterStartElement),
    FN(end_element, xmlTextWriterEndElement),
    FN(write_attribute, xmlTextWriterWriteAttribute),
    FN(write_string, xmlTextWriterWriteString),
    FN(write_raw_len, xmlTextWriterWriteRawLen),
    FN(flush, xmlTextWriterFlush),
    FN(write_comment, xmlTextWriterWriteComment),
    FN(write_cdata, xmlTextWriterWriteCDATA),
    {NULL, NULL},
};

/* (xmlInitParser: libxml2's global state, before threads may share it) */
static pyprof__lib lib = {.soname = PYPROF_XML_SONAME, .fns = fns, .init = "xmlInitParser"};

void
pyprof__xml_use(const char *name)
{
    lib.soname = name;
}

#ifdef HAVE_PTHREAD
struct pyprof__xml_preload {
    pthread_t thread;
};

static void *
preload(void *unused)
{
    (void)unused;
    pyprof__lib_load(&lib);
    return NULL;
}
#endif

/* Loading maps libxml2 and what it needs (ICU, the C++ runtime) and
 * relocates them: 2-3 ms measured in pyprof-flame, which a renderer that
 * knows it will write SVG can spend on the other core while it lays the
 * graph out.  The first pyprof__xml_load then finds the work done, or
 * waits for the helper to finish it (pyprof__lib_load). */
pyprof__xml_preload *
pyprof__xml_preload_start(void)
{
#ifdef HAVE_PTHREAD
    if (pyprof__lib_tried(&lib))
        return NULL; /* (no thread for nothing: every later graph) */
    pyprof__xml_preload *h = pyprof__malloc(sizeof *h);
    if (h && pthread_create(&h->thread, NULL, preload, NULL) != 0) {
        pyprof__free(h);
        h = NULL;
    }
    return h;
#else
    return NULL;
#endif
}

void
pyprof__xml_preload_end(pyprof__xml_preload *h)
{
#ifdef HAVE_PTHREAD
    if (h) {
        pthread_join(h->thread, NULL);
        pyprof__free(h);
    }
#else
    (void)h;
#endif
}

int
pyprof__xml_load(const pyprof__xml **out, const char *name, pyprof_error *err)
{
    static pyprof__lib *const libs[] = {&lib};
    int rc = pyprof__libs_load(libs, 1, name, "svg", "SVG is written with libxml2", err);
    *out = rc < 0 ? NULL : &api;
    return rc;
}
