/*
 * xml_load.c - libxml2's text writer, loaded when the first SVG is written.
 *
 * Only SVG output uses libxml2, but linked into libpyprof it was loaded by
 * every run of every tool, and with it ICU and the C++ runtime: 0.9 ms of
 * mapping and relocating per run, a quarter of pyprof-stats' start-up on a
 * small profile and 3-6% of a PNG memory plot.  So libpyprof is not linked
 * with it: the SVG backend asks for it here, and the first call of the
 * process dlopen()s the library under the soname configure found and
 * looks its functions up by name, once (systemd loads its optional
 * libraries the same way).  A renderer that has other work to do first
 * can start the load on a helper thread (pyprof__xml_preload_start).  The
 * table keeps libxml2's own prototypes (__typeof__), so calls through it
 * are type-checked as direct calls are.  The library stays loaded until
 * the process ends.
 */
#include "config.h"

#include <dlfcn.h>

#ifdef HAVE_PTHREAD
#include <pthread.h>
#include <stdatomic.h>
#endif

#include "xml_load.h"

static const char *soname = PYPROF_XML_SONAME;
static pyprof__xml api;
static bool loaded;
static char why[256]; /* the failure, when not loaded */

/* dlsym's void * into a function pointer, as POSIX allows */
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)(&api.field) = dlsym(lib, #name);                                                \
        if (!api.field) {                                                                          \
            pyprof__snprintf_c(why, sizeof why, "%s has no %s", soname, #name);                    \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void
load(void)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        pyprof__snprintf_c(why, sizeof why, "cannot load %s: %s", soname, e ? e : "unknown error");
        return;
    }
    void (*init)(void);
    *(void **)(&init) = dlsym(lib, "xmlInitParser");
    if (init)
        init(); /* libxml2's global state, before threads may share it */
    SYM(output_create_io, xmlOutputBufferCreateIO);
    SYM(output_close, xmlOutputBufferClose);
    SYM(writer_new, xmlNewTextWriter);
    SYM(writer_free, xmlFreeTextWriter);
    SYM(set_indent, xmlTextWriterSetIndent);
    SYM(start_document, xmlTextWriterStartDocument);
    SYM(end_document, xmlTextWriterEndDocument);
    SYM(start_element, xmlTextWriterStartElement);
    SYM(end_element, xmlTextWriterEndElement);
    SYM(write_attribute, xmlTextWriterWriteAttribute);
    SYM(write_string, xmlTextWriterWriteString);
    SYM(write_raw_len, xmlTextWriterWriteRawLen);
    SYM(write_comment, xmlTextWriterWriteComment);
    SYM(write_cdata, xmlTextWriterWriteCDATA);
    loaded = true;
}

void
pyprof__xml_use(const char *name)
{
    soname = name;
}

#ifdef HAVE_PTHREAD
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_bool tried; /* load() has run: a preload has nothing to do */

static void
load_once(void)
{
    load();
    atomic_store(&tried, true);
}

struct pyprof__xml_preload {
    pthread_t thread;
};

static void *
preload(void *unused)
{
    (void)unused;
    pthread_once(&once, load_once);
    return NULL;
}
#endif

/* Loading maps libxml2 and what it needs (ICU, the C++ runtime) and
 * relocates them: 2-3 ms measured in pyprof-flame, which a renderer that
 * knows it will write SVG can spend on the other core while it lays the
 * graph out.  The first pyprof__xml_load then finds the work done, or
 * waits in pthread_once for the helper to finish it. */
pyprof__xml_preload *
pyprof__xml_preload_start(void)
{
#ifdef HAVE_PTHREAD
    if (atomic_load(&tried))
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
#ifdef HAVE_PTHREAD
    pthread_once(&once, load_once);
#else
    static bool tried;
    if (!tried) {
        tried = true;
        load();
    }
#endif
    *out = loaded ? &api : NULL;
    if (!loaded)
        return pyprof_error_set(err, PYPROF_EIO, name, "svg", -1, 0,
                                "%s (SVG is written with libxml2)", why);
    return 0;
}
