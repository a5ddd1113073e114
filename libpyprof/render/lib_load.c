/*
 * lib_load.c - optional shared libraries, opened on first use.
 *
 * Linked into libpyprof, every library a renderer needs is mapped and
 * relocated by every run of every tool, with all of its own dependencies,
 * whether it draws anything or not: libxml2 brings ICU and the C++
 * runtime, cairo brings fontconfig, FreeType, pixman and the X11 client
 * libraries, Graphviz five libraries of its own.  So the renderers take
 * their libraries here, when they are first asked to draw: dlopen() under the soname configure
 * found, and each function looked up by name, once per process (systemd
 * loads its optional libraries the same way).  The tables keep the
 * libraries' own prototypes (__typeof__), so calls through them are
 * type-checked as direct calls are.
 */
#include "config.h"

#include <dlfcn.h>

#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif

#include "lib_load.h"

static void
open_lib(pyprof__lib *L)
{
    void *lib = dlopen(L->soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        pyprof__snprintf_c(L->why, sizeof L->why, "cannot load %s: %s", L->soname,
                           e ? e : "unknown error");
        return;
    }
    if (L->init) {
        void (*init)(void);
        *(void **)(&init) = dlsym(lib, L->init);
        if (init)
            init(); /* (global state, before threads may share it) */
    }
    for (const pyprof__lib_fn *f = L->fns; f->name; f++)
        if (!(*f->slot = dlsym(lib, f->name))) {
            pyprof__snprintf_c(L->why, sizeof L->why, "%s has no %s", L->soname, f->name);
            return;
        }
    L->loaded = true;
}

#ifdef HAVE_PTHREAD
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#endif

bool
pyprof__lib_load(pyprof__lib *L)
{
    /* done is set (release) after the table is written: a caller that
     * sees it (acquire) sees the table */
    if (!atomic_load_explicit(&L->done, memory_order_acquire)) {
#ifdef HAVE_PTHREAD
        pthread_mutex_lock(&lock);
#endif
        if (!atomic_load_explicit(&L->done, memory_order_relaxed)) {
            open_lib(L);
            atomic_store_explicit(&L->done, true, memory_order_release);
        }
#ifdef HAVE_PTHREAD
        pthread_mutex_unlock(&lock);
#endif
    }
    return L->loaded;
}

int
pyprof__libs_load(pyprof__lib *const *libs, size_t n, const char *name, const char *format,
                  const char *why, pyprof_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!pyprof__lib_load(libs[i]))
            return pyprof_error_set(err, PYPROF_EIO, name, format, -1, 0, "%s (%s)", libs[i]->why,
                                    why);
    return 0;
}

bool
pyprof__lib_tried(pyprof__lib *L)
{
    return atomic_load_explicit(&L->done, memory_order_acquire);
}
