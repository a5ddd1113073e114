/*
 * output.c - sinks for rendered bytes: an atomically replaced file, stdout,
 * a caller's FILE *, or memory.
 *
 * Atomicity: a regular-file target is written as "<dir>/.<name>.XXXXXX" (same
 * directory, so rename(2) cannot cross file systems), flushed, fsync'ed and
 * renamed over the target on commit (each megabyte is sent on to the disk
 * as soon as it is written, so that the fsync waits for little more than
 * the last one).  Until then the old file is untouched;
 * a killed run leaves at most a stray temporary file, never half a target.
 * Targets that exist and are not regular files (/dev/null, FIFOs, ttys)
 * cannot be replaced by rename and are written directly.  A program that
 * is stopped by a signal it can catch removes the temporary files too, by
 * calling pyprof_output_remove_temps from its handler.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(HAVE_PTHREAD)
#include <pthread.h>
#endif

#include "pyprof_int.h"

enum kind { K_FILE, K_STDIO, K_MEMORY };

struct pyprof_output {
    enum kind kind;
    char *name;    /* target as given */
    char *tmpname; /* temporary file, K_FILE with rename only */
    int temp_slot; /* its slot in `temps`, or -1 */
    FILE *f;
    bool own_f;
    unsigned char *mem;
    size_t len, cap;
    /* K_FILE: bytes not yet handed to stdio (see pyprof_output_write) */
    unsigned char *buf;
    size_t blen;
    /* K_FILE with rename: bytes handed to stdio, and those of them
     * whose writeback was started (see kick_writeback) */
    uint64_t written, kicked;
    pyprof_error err; /* sticky */
};

/* Writers hand over their text in pieces of a few bytes (a comma, a key, a
 * number), millions of them for a big profile; a locked fwrite each took
 * a quarter of a JSON export's time.  A file of our own gathers them here
 * first.  A caller's FILE * does not: the caller may write to it too, and
 * expects the bytes in the order written. */
#define OUT_BUF_SIZE ((size_t)64 << 10)

/* The temporary files of the outputs open now, for a signal handler to
 * remove (pyprof_output_remove_temps).  A handler may run between any two
 * instructions, so a slot is claimed with a compare-and-swap and marked
 * live only once its path is complete, and the handler reads nothing else.
 * An output that finds no free slot (more than TEMP_SLOTS open at once, or
 * a path longer than PATH_MAX) is simply not removed by a handler. */
#define TEMP_SLOTS 32
enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE };
static struct temp_slot {
    atomic_int state;
    char path[PATH_MAX];
} temps[TEMP_SLOTS];

static int
temp_register(const char *path)
{
    size_t n = strlen(path);
    if (n >= PATH_MAX)
        return -1;
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&temps[i].state, &expect, SLOT_FILLING)) {
            memcpy(temps[i].path, path, n + 1);
            atomic_store(&temps[i].state, SLOT_LIVE);
            return i;
        }
    }
    return -1;
}

void
pyprof_output_remove_temps(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temps[i].state) == SLOT_LIVE)
            unlink(temps[i].path); /* async-signal-safe */
}

/* Hold the signals a program may catch to remove its temporary files
 * (into *old, for release_signals): between a temporary file's creation
 * and its registration in `temps` such a signal would leave the file
 * behind (tests/atomic_kill.sh caught one run in thousands that did).  The
 * signals of a fault stay open: nothing in between can raise them. */
static void
hold_signals(sigset_t *old)
{
    sigset_t set;
    sigfillset(&set);
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGTRAP);
#if defined(HAVE_PTHREAD)
    pthread_sigmask(SIG_BLOCK, &set, old);
#else
    sigprocmask(SIG_BLOCK, &set, old);
#endif
}

static void
release_signals(const sigset_t *old)
{
#if defined(HAVE_PTHREAD)
    pthread_sigmask(SIG_SETMASK, old, NULL);
#else
    sigprocmask(SIG_SETMASK, old, NULL);
#endif
}

static pyprof_output *
out_alloc(enum kind kind, const char *name)
{
    pyprof_output *o = pyprof__calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->kind = kind;
    o->temp_slot = -1;
    o->name = pyprof__strdup(name);
    if (!o->name) {
        pyprof__free(o);
        return NULL;
    }
    pyprof_error_clear(&o->err);
    return o;
}

static void
out_free(pyprof_output *o)
{
    /* (after the rename or unlink: a handler in between unlinks a name that
     * is gone, which does nothing) */
    if (o->temp_slot >= 0)
        atomic_store(&temps[o->temp_slot].state, SLOT_FREE);
    pyprof__free(o->name);
    pyprof__free(o->tmpname);
    pyprof__free(o->mem);
    pyprof__free(o->buf);
    pyprof__free(o);
}

static void __attribute__((format(printf, 3, 4)))
sticky(pyprof_output *o, int code, const char *fmt, ...)
{
    if (o->err.code)
        return;
    va_list ap;
    va_start(ap, fmt);
    pyprof__error_setv(&o->err, code, o->name, NULL, -1, 0, fmt, ap);
    va_end(ap);
}

/* A file of our own gets no stdio buffer: its writes come from o->buf in
 * pieces of up to OUT_BUF_SIZE, and a 4 KiB stdio buffer only split each of
 * those in two system calls (the rest of the buffer, then the remainder). */
static void
unbuffered(FILE *f)
{
    setvbuf(f, NULL, _IONBF, 0);
}

int
pyprof_output_open_file(pyprof_output **out, const char *path, pyprof_error *err)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return pyprof_output_open_stdio(out, stdout, "<stdout>", err);

    pyprof_output *o = out_alloc(K_FILE, path);
    if (!o)
        return pyprof_error_set(err, PYPROF_ENOMEM, path, NULL, -1, 0, "out of memory");
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            out_free(o);
            return pyprof_error_set(err, PYPROF_EIO, path, NULL, -1, 0,
                                    "is a directory; give a file name");
        }
        o->f = fopen(path, "wb");
        if (!o->f) {
            int e = errno;
            out_free(o);
            return pyprof_error_set(err, PYPROF_EIO, path, NULL, -1, 0, "cannot open: %s",
                                    strerror(e));
        }
        unbuffered(o->f);
        o->own_f = true;
        *out = o;
        return 0;
    }

    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = path + dirlen;
    size_t n = dirlen + strlen(base) + 16;
    o->tmpname = pyprof__malloc(n);
    if (!o->tmpname) {
        out_free(o);
        return pyprof_error_set(err, PYPROF_ENOMEM, path, NULL, -1, 0, "out of memory");
    }
    snprintf(o->tmpname, n, "%.*s.%s.XXXXXX", (int)dirlen, path, base);
    sigset_t held;
    hold_signals(&held);
    int fd = mkostemp(o->tmpname, O_CLOEXEC), made_errno = errno;
    if (fd >= 0)
        o->temp_slot = temp_register(o->tmpname);
    release_signals(&held);
    if (fd < 0) {
        out_free(o);
        return pyprof_error_set(err, PYPROF_EIO, path, NULL, -1, 0, "cannot create: %s",
                                strerror(made_errno));
    }
    /* mkostemp makes 0600; a profile or picture is an ordinary file, so give
     * it the permissions a plain open() would (0666 less the umask). */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        int e = errno;
        close(fd);
        unlink(o->tmpname);
        out_free(o);
        return pyprof_error_set(err, PYPROF_EIO, path, NULL, -1, 0, "cannot open: %s", strerror(e));
    }
    unbuffered(o->f);
    o->own_f = true;
    *out = o;
    return 0;
}

int
pyprof_output_open_memory(pyprof_output **out, pyprof_error *err)
{
    *out = out_alloc(K_MEMORY, "<memory>");
    if (!*out)
        return pyprof_error_set(err, PYPROF_ENOMEM, NULL, NULL, -1, 0, "out of memory");
    return 0;
}

int
pyprof_output_open_stdio(pyprof_output **out, FILE *f, const char *name, pyprof_error *err)
{
    pyprof_output *o = out_alloc(K_STDIO, name ? name : "<stream>");
    *out = o;
    if (!o)
        return pyprof_error_set(err, PYPROF_ENOMEM, name, NULL, -1, 0, "out of memory");
    o->f = f;
    return 0;
}

/* The fsync at commit waits for every byte to reach the disk: for a 3.4 MB
 * flame graph that took 2.6-3.6 ms, at the end of a 70 ms run.  Starting
 * each megabyte's writeback as soon as it is written (a request, which does
 * not wait) leaves the fsync about half a millisecond here.  Without
 * sync_file_range the fsync simply does it all. */
#define KICK_BYTES ((uint64_t)1 << 20)

static void
kick_writeback(pyprof_output *o)
{
#ifdef HAVE_SYNC_FILE_RANGE
    if (fflush(o->f) != 0) {
        sticky(o, PYPROF_EIO, "write failed: %s", strerror(errno));
        return;
    }
    /* (a hint: if it fails, the fsync does the work and reports errors;
     * the offsets are off64_t in glibc's prototype, off_t in musl's: 64
     * bits in both) */
    (void)sync_file_range(fileno(o->f), (int64_t)o->kicked, (int64_t)(o->written - o->kicked),
                          SYNC_FILE_RANGE_WRITE);
#endif
    o->kicked = o->written;
}

static void
put_file(pyprof_output *o, const void *data, size_t len)
{
    if (len && fwrite(data, 1, len, o->f) != len) {
        sticky(o, PYPROF_EIO, "write failed: %s", strerror(errno));
        return;
    }
    o->written += len;
    if (o->tmpname && o->written - o->kicked >= KICK_BYTES)
        kick_writeback(o);
}

static void
flush_buf(pyprof_output *o)
{
    put_file(o, o->buf, o->blen);
    o->blen = 0;
}

void
pyprof_output_write(pyprof_output *o, const void *data, size_t len)
{
    if (o->err.code || len == 0)
        return;
    if (o->kind == K_FILE) {
        if (!o->buf && !(o->buf = pyprof__malloc(OUT_BUF_SIZE))) {
            put_file(o, data, len); /* no buffer: slower, still right */
            return;
        }
        if (o->blen + len > OUT_BUF_SIZE)
            flush_buf(o);
        if (len >= OUT_BUF_SIZE) {
            put_file(o, data, len);
            return;
        }
        memcpy(o->buf + o->blen, data, len);
        o->blen += len;
        return;
    }
    if (o->kind == K_MEMORY) {
        if (PYPROF_GROW(o->mem, o->cap, o->len + len) < 0) {
            sticky(o, PYPROF_ENOMEM, "out of memory");
            return;
        }
        memcpy(o->mem + o->len, data, len);
        o->len += len;
        return;
    }
    if (fwrite(data, 1, len, o->f) != len)
        sticky(o, PYPROF_EIO, "write failed: %s", strerror(errno));
}

void
pyprof_output_puts(pyprof_output *o, const char *s)
{
    pyprof_output_write(o, s, strlen(s));
}

void
pyprof_output_vprintf(pyprof_output *o, const char *fmt, va_list ap)
{
    char small[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = pyprof__vsnprintf_c(small, sizeof(small), fmt, ap);
    if (n < 0) {
        sticky(o, PYPROF_EINVAL, "bad format");
    } else if ((size_t)n < sizeof(small)) {
        pyprof_output_write(o, small, (size_t)n);
    } else {
        char *big = pyprof__malloc((size_t)n + 1);
        if (!big) {
            sticky(o, PYPROF_ENOMEM, "out of memory");
        } else {
            pyprof__vsnprintf_c(big, (size_t)n + 1, fmt, ap2);
            pyprof_output_write(o, big, (size_t)n);
            pyprof__free(big);
        }
    }
    va_end(ap2);
}

void
pyprof_output_printf(pyprof_output *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pyprof_output_vprintf(o, fmt, ap);
    va_end(ap);
}

int
pyprof_output_status(const pyprof_output *o, pyprof_error *err)
{
    if (o->err.code && err)
        *err = o->err;
    return o->err.code;
}

const unsigned char *
pyprof_output_data(const pyprof_output *o, size_t *len)
{
    if (o->kind != K_MEMORY) {
        *len = 0;
        return NULL;
    }
    *len = o->len;
    return o->mem ? o->mem : (const unsigned char *)"";
}

const char *
pyprof_output_name(const pyprof_output *o)
{
    return o->name;
}

int
pyprof_output_commit(pyprof_output *o, pyprof_error *err)
{
    if (!o)
        return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "no output");
    if (o->blen && !o->err.code)
        flush_buf(o);
    if (o->f && !o->err.code && fflush(o->f) != 0)
        sticky(o, PYPROF_EIO, "write failed: %s", strerror(errno));
    if (o->tmpname && !o->err.code && fsync(fileno(o->f)) != 0 && errno != EINVAL)
        sticky(o, PYPROF_EIO, "fsync failed: %s", strerror(errno));
    if (o->own_f) {
        if (fclose(o->f) != 0)
            sticky(o, PYPROF_EIO, "close failed: %s", strerror(errno));
        o->f = NULL;
    }
    if (o->tmpname) {
        if (!o->err.code && rename(o->tmpname, o->name) != 0)
            sticky(o, PYPROF_EIO, "cannot rename into place: %s", strerror(errno));
        if (o->err.code)
            unlink(o->tmpname);
    }
    int rc = pyprof_output_status(o, err);
    out_free(o);
    return rc;
}

void
pyprof_output_abort(pyprof_output *o)
{
    if (!o)
        return;
    if (o->own_f && o->f)
        fclose(o->f);
    if (o->tmpname)
        unlink(o->tmpname);
    out_free(o);
}
