/*
 * cli.c - shared plumbing of the pyprof-* tools (see cli.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char *tool_name = "pyprof";

/* Ctrl-C, kill, a closed terminal or pipe: remove the outputs' temporary
 * files, then die of the signal as before (SA_RESETHAND restored the
 * default action; the raised signal is delivered when this returns). */
static void
on_fatal_signal(int sig)
{
    pyprof_output_remove_temps();
    raise(sig);
}

/*
 * A big folded-stack or mprofile file is read by two threads, each growing
 * its own tables.  glibc grows the second thread's heap a little at a time
 * with mprotect, and hands big blocks back with munmap when they are
 * freed: drawing the 100 MB benchmark file made 54-60 mprotect, 25-26 brk
 * and 21-25 munmap calls.  Each changes the mappings of the whole process,
 * which makes the other thread wait (for the mapping lock, or to have its
 * TLB flushed) in the middle of its own reading.  Growing the heap 4 MiB
 * at a time, and taking blocks below 2 MiB from it instead of mmap, took
 * reading that file with pyprof-flame from 41.5 to 37.5 ms (medians of 40
 * runs each, in turn), and the 1 GB file from 480 to 424 ms.
 *
 * Then the first write to each 4 KiB page of that heap traps into the
 * kernel, and in a virtual machine each trap is dear: perf put 10-14% of
 * the CPU time of drawing the 100 MB file in its 2,634 page faults, most
 * of it in the hypervisor's hooks.  A heap of 2 MiB pages takes a fault
 * per 2 MiB, and fewer TLB misses in the tables probed at random.  So
 * cli_huge_heap reserves HUGE_HEAP bytes of heap (address space only: the
 * pages come as they are touched) and asks for 2 MiB pages there
 * (MADV_HUGEPAGE: the kernel honours it when transparent huge pages are
 * set to "madvise", as here, or "always"), and all threads share one
 * arena, so that the reading threads take their blocks from that heap
 * too, not from thread heaps of 4 KiB pages.  The 100 MB file then took
 * 403-507 faults, and 91 ms where it took 125 (CPU 126 ms where 182:
 * medians of 10 runs of ten, the two builds in turn, on a busy host);
 * its peak memory is 29 MiB where it was 21.  pyprof-stats
 * sorts the 80,000 functions of pstats-large in 0.21 s where it took
 * 0.35.  The tools that read one big profile ask for it; pyprof-merge,
 * whose heap stays small and whose peak memory is weighed against one
 * input's size, does not (it would take 9.2 MiB where it takes 8.2).
 *
 * A program's allocator settings are its own to choose, so the tools set
 * them, not the library.
 */
#if defined(__GLIBC__) && defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD) && defined(M_ARENA_MAX)
#define TUNE_MALLOC 1
#endif
#if defined(TUNE_MALLOC) && defined(MADV_HUGEPAGE)
#define HUGE_HEAP ((size_t)30 << 20) /* under the 32 MiB threshold set to take it from the heap */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#endif

static void
tune_malloc(void)
{
#if defined(TUNE_MALLOC)
    mallopt(M_TOP_PAD, 4 << 20);
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 2 << 20);
#endif
}

/* Grow the heap by HUGE_HEAP and give it back to malloc's top, kept (a
 * trim would shrink the heap below the advice), then advise the 2 MiB
 * pages from that block's start to the heap's end.  Only a hint: where
 * the block did not come from the heap (glibc falls back to mmap when brk
 * fails), the bound on the range leaves it alone. */
void
cli_huge_heap(void)
{
#if defined(HUGE_HEAP)
    mallopt(M_TRIM_THRESHOLD, (int)(4 * HUGE_HEAP));
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* from the heap, this once */
    void *block = malloc(HUGE_HEAP);
    uintptr_t lo = (uintptr_t)block;
    free(block);
    mallopt(M_MMAP_THRESHOLD, 2 << 20);
    uintptr_t end = (uintptr_t)sbrk(0);
    uintptr_t from = (lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (lo && lo < end && end - lo <= 2 * HUGE_HEAP && from < end)
        (void)madvise((void *)from, end - from, MADV_HUGEPAGE);
#endif
}

void
cli_init(const char *tool)
{
    tool_name = tool;
    tune_malloc();
    /* getopt's messages name the program by argv[0] (in a build tree,
     * libtool's path to it) and would come before a second line of ours */
    opterr = 0;
    static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
        struct sigaction old;
        /* a signal the shell had us ignore (nohup, a background job's
         * SIGINT) stays ignored */
        if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal[i], &sa, NULL);
    }
}

const char *
cli_tool(void)
{
    return tool_name;
}

void
cli_error(const pyprof_error *err)
{
    char buf[PYPROF_ERROR_SOURCE_MAX + PYPROF_ERROR_MESSAGE_MAX + 64];
    pyprof_error_format(err, buf, sizeof(buf));
    fprintf(stderr, "%s: %s\n", tool_name, buf);
}

/* "TOOL: " `what` and the message, one line on stderr. */
static void __attribute__((format(printf, 2, 0)))
say(const char *what, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s", tool_name, what);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void
cli_errorf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void
cli_warnf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("warning: ", fmt, ap);
    va_end(ap);
}

void
cli_usage_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help' for more information.\n", tool_name);
    exit(CLI_EXIT_USAGE);
}

/* What a refused "--name" or "--name=value" was, by the table: the long
 * options it abbreviates, in `which` (a comma-separated list). */
static size_t
long_matches(const char *name, size_t len, const struct option *longopts, char *which, size_t cap,
             bool *takes_arg)
{
    size_t n = 0, used = 0;
    which[0] = '\0';
    *takes_arg = false;
    for (const struct option *o = longopts; o && o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (strlen(o->name) == len) { /* an exact name is never ambiguous */
            *takes_arg = o->has_arg != no_argument;
            return 1;
        }
        *takes_arg = o->has_arg != no_argument;
        int k = snprintf(which + used, cap - used, "%s--%s", n ? ", " : "", o->name);
        if (k > 0 && (size_t)k < cap - used)
            used += (size_t)k;
        n++;
    }
    return n;
}

/* Refuse what getopt_long returned as c (':' or '?'), then exit(2). */
static void __attribute__((noreturn))
option_fail(int c, char *const argv[], const struct option *longopts)
{
    /* A short option's letter is optopt; the argument holding it may still
     * be argv[optind] (a bundle such as -xq) or already argv[optind - 1].
     * A long option has been passed over, so it is argv[optind - 1]. */
    const char *cur = argv[optind], *prev = optind > 0 ? argv[optind - 1] : "";
    bool in_bundle = cur && optopt > 0 && cur[0] == '-' && cur[1] != '-' && strchr(cur + 1, optopt);
    if (in_bundle || strncmp(prev, "--", 2) != 0) {
        if (c == ':')
            cli_usage_fail("option '-%c' needs an argument", optopt);
        if (optopt > 0 && isprint(optopt))
            cli_usage_fail("unknown option '-%c'", optopt);
        cli_usage_fail("unknown option '%s'", prev);
    }
    const char *name = prev + 2;
    int len = (int)strcspn(name, "=");
    char which[256];
    bool takes_arg;
    size_t n = long_matches(name, (size_t)len, longopts, which, sizeof which, &takes_arg);
    if (c == ':')
        cli_usage_fail("option '--%.*s' needs an argument", len, name);
    if (n > 1)
        cli_usage_fail("option '--%.*s' is ambiguous (%s)", len, name, which);
    if (n == 1 && name[len] == '=' && !takes_arg)
        cli_usage_fail("option '--%.*s' takes no argument", len, name);
    cli_usage_fail("unknown option '%s'", prev);
}

void
cli_print_version(void)
{
    unsigned f = pyprof_features();
    printf("%s (%s) %s\n", tool_name, PACKAGE_NAME, PACKAGE_VERSION);
    printf("library: libpyprof %s\n", pyprof_version());
    printf("features:%s%s%s%s%s%s\n", f & PYPROF_FEATURE_ZSTD ? " zstd" : "",
           f & PYPROF_FEATURE_GRAPHVIZ ? " graphviz" : "", f & PYPROF_FEATURE_CAIRO ? " cairo" : "",
           f & PYPROF_FEATURE_LIBXML2 ? " libxml2" : "", f & PYPROF_FEATURE_PCRE2 ? " pcre2" : "",
           f & PYPROF_FEATURE_CJSON ? " cjson" : "");
    printf("formats:");
    for (size_t i = 0; i < pyprof_format_count(); i++)
        printf(" %s", pyprof_format_name(i));
    printf("\n");
}

bool
cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool
cli_output_is_safe(const char *output, char *const *inputs, int ninputs)
{
    if (!output || strcmp(output, "-") == 0)
        return true;
    for (int i = 0; i < ninputs; i++) {
        if (strcmp(inputs[i], "-") != 0 && cli_same_file(output, inputs[i])) {
            cli_errorf("%s: refusing to write the output over an input file", output);
            return false;
        }
    }
    return true;
}

const char *
cli_type_from_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return NULL;
    static const char *const known[] = {"dot", "gv",  "svg",    "png",    "pdf", "json",
                                        "csv", "txt", "folded", "pstats", "prof"};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (strcmp(dot + 1, known[i]) == 0)
            return strcmp(known[i], "gv") == 0 ? "dot" : known[i];
    }
    return NULL;
}

/* Inputs smaller than this read too fast for a progress bar to help. */
#define PROGRESS_MIN_BYTES ((int64_t)64 << 20)

static double
now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
progress_line(void *payload, const char *name, uint64_t done, int64_t total)
{
    /* one input is read at a time: its start is remembered here */
    static double start;
    static uint64_t start_done;
    static const char *started_for;
    (void)payload;
    if (total < PROGRESS_MIN_BYTES)
        return; /* small, or a pipe of unknown size */
    if (started_for != name) {
        started_for = name;
        start = now_seconds();
        start_done = done;
    }
    if (done >= (uint64_t)total) {
        fprintf(stderr, "\r\033[K"); /* done: leave no trace */
        fflush(stderr);
        started_for = NULL;
        return;
    }
    double elapsed = now_seconds() - start;
    double mib = (double)done / (1 << 20), total_mib = (double)total / (1 << 20);
    fprintf(stderr, "\r\033[K%s: %s: %.0f of %.0f MiB (%.0f%%)", tool_name, name, mib, total_mib,
            100.0 * mib / total_mib);
    if (elapsed >= 0.25) { /* a rate over a shorter time means little */
        double rate = (double)(done - start_done) / (1 << 20) / elapsed;
        if (rate > 0)
            fprintf(stderr, ", %.0f MiB/s, %.0f s left", rate, (total_mib - mib) / rate);
    }
    fflush(stderr);
}

void
cli_read_progress(pyprof_read_options *ro)
{
    if (isatty(STDERR_FILENO)) {
        ro->progress = progress_line;
        ro->progress_payload = NULL;
    }
}

/* ---- input limits ------------------------------------------------------------------------- */

static pyprof_read_options limits = PYPROF_READ_OPTIONS_INIT;

/* "512", "64K", "2G": a positive whole number of bytes with an optional
 * binary suffix; false when it is none, or overflows. */
static bool
parse_size(const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)arg[0]))
        return false;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || end == arg)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
    default:
        break;
    }
    if ((*end == 'i' || *end == 'B') && shift) /* "64KiB", "64KB" read the same */
        end += *end == 'i' && end[1] == 'B' ? 2 : 1;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* Take one of the limit options (exits 2 on a bad value). */
static void
limit_option(int code, const char *arg)
{
    uint64_t v;
    switch (code) {
    case CLI_OPT_MAX_BYTES:
        if (!parse_size(arg, &v) || v > SIZE_MAX / 2)
            cli_usage_fail("--max-bytes takes a size such as 512M or 4G, not '%s'", arg);
        limits.max_bytes = v;
        break;
    case CLI_OPT_MAX_DEPTH:
        if (!parse_size(arg, &v) || v > 1000000)
            cli_usage_fail("--max-depth takes a whole number from 1 to 1000000, not '%s'", arg);
        limits.max_depth = (uint32_t)v;
        break;
    case CLI_OPT_MAX_RATIO:
        if (!parse_size(arg, &v) || v > UINT32_MAX)
            cli_usage_fail("--max-ratio takes a whole number from 1 to %u, not '%s'", UINT32_MAX,
                           arg);
        limits.max_ratio = (uint32_t)v;
        break;
    default:
        break;
    }
}

void
cli_common_option(int c, char *const argv[], const struct option *longopts, void (*usage)(void))
{
    switch (c) {
    case 'h':
        usage();
        exit(CLI_EXIT_OK);
    case CLI_OPT_VERSION:
        cli_print_version();
        exit(CLI_EXIT_OK);
    case CLI_OPT_MAX_BYTES:
    case CLI_OPT_MAX_DEPTH:
    case CLI_OPT_MAX_RATIO:
        limit_option(c, optarg);
        return;
    default:
        option_fail(c, argv, longopts);
    }
}

void
cli_read_options(pyprof_read_options *ro)
{
    cli_read_progress(ro);
    if (limits.max_bytes)
        ro->max_bytes = limits.max_bytes;
    if (limits.max_depth)
        ro->max_depth = limits.max_depth;
    if (limits.max_ratio)
        ro->max_ratio = limits.max_ratio;
}
