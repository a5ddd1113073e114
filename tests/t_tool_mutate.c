/*
 * t_tool_mutate.c - broken inputs, tried as a new user would: through the
 * tools, not the library.
 *
 * Each fixture below is broken in three ways: truncated at 64 points, 1,000
 * seeded random byte flips ($PYPROF_TOOL_MUTATIONS changes the number), and
 * a few structural mutations (doubled middle, dropped middle, zeroed head).
 * Every broken copy is given to the tools that read that kind of profile,
 * writing with -o over an existing file.  Each run must end in one of two
 * ways:
 *   - exit 1, nothing on stdout, exactly one line on stderr of the form
 *     "TOOL: FILE: reason", the file named, a position (offset or line)
 *     whenever the reason is about the data, and the old output file
 *     untouched (outputs are written to a temporary file and renamed);
 *   - exit 0 with a complete new output file.
 * A signal, a hang (10 s), another exit status or a half-written output
 * fails the test; the input that did it is kept in the build directory.
 *
 * The truncations and structural mutations run every tool of the fixture.
 * The byte flips are shared out among those tools in turn (so each flip is
 * run once, by one tool), which keeps `make check` to a few minutes; with
 * PYPROF_TOOL_MUTATE_ALL=1 every tool runs every flip.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define TIMEOUT_S 10
#define MAX_ARGS  12

/* How one tool is run: its arguments, with IN and OUT replaced by the paths. */
typedef struct tool {
    const char *name;           /* pyprof-stats ... */
    const char *args[MAX_ARGS]; /* NULL-terminated */
    const char *out_ext;        /* extension of the -o file; NULL: writes to stdout */
} tool;

static const tool T_STATS = {
    "pyprof-stats", {"-o", "OUT", "IN", "sort", "cumtime", "stats", "20", NULL}, "txt"};
static const tool T_DOT = {"pyprof-dot", {"-o", "OUT", "IN", NULL}, "dot"};
static const tool T_FLAME = {"pyprof-flame", {"-o", "OUT", "IN", NULL}, "svg"};
static const tool T_CONVERT = {"pyprof-convert", {"-o", "OUT", "IN", NULL}, "json"};
static const tool T_LINES = {"pyprof-lines", {"-o", "OUT", "IN", NULL}, "txt"};
static const tool T_MEMPLOT = {"pyprof-mem", {"plot", "-o", "OUT", "IN", NULL}, "svg"};
static const tool T_MEMREPORT = {"pyprof-mem", {"report", "IN", NULL}, NULL};
static const tool T_MERGE = {"pyprof-merge", {"-o", "OUT", "IN", "IN", NULL}, "json"};
static const tool T_DIFF = {"pyprof-diff", {"-o", "OUT", "IN", "IN", NULL}, "txt"};

static const struct fixture {
    const char *path; /* under tests/fixtures */
    const tool *tools[8];
} fixtures[] = {
    {"pstats/cprofile_py311.pstats", {&T_STATS, &T_DOT, &T_FLAME, &T_CONVERT, &T_DIFF, NULL}},
    {"pstats/profile_py27.pstats", {&T_STATS, &T_DOT, &T_MERGE, NULL}},
    {"pstats/yappi_py311.pstats", {&T_STATS, &T_DOT, NULL}},
    {"pstats/cprofile_py311_2frames.pstats.zst", {&T_STATS, &T_FLAME, NULL}},
    {"lprof/py311_p5.lprof", {&T_LINES, &T_MERGE, NULL}},
    {"lprof/py27_p2.lprof", {&T_LINES, &T_CONVERT, NULL}},
    {"mprofile/mprofile_20261122114124.dat", {&T_MEMPLOT, &T_MERGE, NULL}},
    {"mprofile/report.txt", {&T_MEMREPORT, NULL}},
    {"collapsed/pyspy.folded", {&T_FLAME, &T_STATS, &T_DOT, &T_CONVERT, NULL}},
    {"collapsed/austin_full.austin", {&T_FLAME, &T_DIFF, NULL}},
    {"collapsed/utf16le.folded", {&T_FLAME, &T_STATS, NULL}},
    {"collapsed/pyflame_ts.txt", {&T_FLAME, &T_MERGE, NULL}},
    {"convert/p2c.callgrind", {&T_CONVERT, &T_STATS, &T_DOT, NULL}},
    {"convert/evented.speedscope.json", {&T_CONVERT, &T_FLAME, NULL}},
};

static char tmpdir[1024];
static char tooldir[1024];                             /* where the programs are */
static unsigned long long rng = 0x2545F4914F6CDD1Dull; /* tap_rand's seed */

static bool
spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* The file name a fixture's copies get: its own extension, since some
 * tools and users go by it (".zst" above all). */
static void
input_path(char *buf, size_t n, const char *fixture)
{
    const char *base = strrchr(fixture, '/');
    snprintf(buf, n, "%s/in-%s", tmpdir, base ? base + 1 : fixture);
}

typedef struct result {
    bool ok;
    char why[1536];
} result;

/* Run `t` on `in`, writing to `out` (which holds "OLD"). */
static result
run_tool(const tool *t, const char *in, const char *out)
{
    result r = {true, ""};
    char prog[1200], errpath[1200], outpath[1200];
    snprintf(prog, sizeof prog, "%s/%s", tooldir, t->name);
    snprintf(errpath, sizeof errpath, "%s/stderr", tmpdir);
    snprintf(outpath, sizeof outpath, "%s/stdout", tmpdir);
    if (!spit(out, "OLD", 3)) {
        snprintf(r.why, sizeof r.why, "cannot write %s", out);
        r.ok = false;
        return r;
    }
    const char *argv[MAX_ARGS + 2];
    size_t a = 0;
    argv[a++] = t->name;
    for (size_t i = 0; t->args[i]; i++)
        argv[a++] = strcmp(t->args[i], "IN") == 0    ? in
                    : strcmp(t->args[i], "OUT") == 0 ? out
                                                     : t->args[i];
    argv[a] = NULL;

    pid_t pid = fork();
    if (pid == 0) {
        int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int o = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int z = open("/dev/null", O_RDONLY);
        if (e < 0 || o < 0 || z < 0)
            _exit(126);
        dup2(z, 0);
        dup2(o, 1);
        dup2(e, 2);
        alarm(TIMEOUT_S); /* survives exec: a hang ends in SIGALRM */
        execv(prog, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    size_t elen = 0, olen = 0, flen = 0;
    unsigned char *err = tap_slurp(errpath, &elen);
    unsigned char *sout = tap_slurp(outpath, &olen);
    unsigned char *file = tap_slurp(out, &flen);
    char *e = err ? (char *)err : ""; /* tap_slurp ends it with a NUL */

    if (WIFSIGNALED(st)) {
        snprintf(r.why, sizeof r.why, "%s",
                 WTERMSIG(st) == SIGALRM ? "hung (10 s)" : strsignal(WTERMSIG(st)));
        r.ok = false;
    } else if (WEXITSTATUS(st) == 0) {
        if (!t->out_ext ? olen == 0
                        : !file || (flen == 3 && memcmp(file, "OLD", 3) == 0) || flen == 0) {
            snprintf(r.why, sizeof r.why, "exit 0 without a new output file");
            r.ok = false;
        }
    } else if (WEXITSTATUS(st) == 1) {
        /* the file named is the input, or the output for what cannot be written */
        char prefix[1400], oprefix[1400];
        snprintf(prefix, sizeof prefix, "%s: %s: ", t->name, in);
        snprintf(oprefix, sizeof oprefix, "%s: %s: ", t->name, out);
        /* warnings ("TOOL: warning: ...") may come before the error line */
        char warn[256];
        snprintf(warn, sizeof warn, "%s: warning: ", t->name);
        while (strncmp(e, warn, strlen(warn)) == 0 && memchr(e, '\n', elen)) {
            const char *w = memchr(e, '\n', elen);
            elen -= (size_t)(w + 1 - e);
            e = (char *)w + 1;
        }
        const char *nl = memchr(e, '\n', elen);
        bool one_line = elen > 0 && nl == e + elen - 1;
        bool named = strncmp(e, prefix, strlen(prefix)) == 0;
        if (!named && strncmp(e, oprefix, strlen(oprefix)) == 0) {
            named = true;
            memcpy(prefix, oprefix, sizeof prefix);
        }
        /* a reason about the data says where: "offset N" or "line N" */
        const char *reason = named ? e + strlen(prefix) : e;
        /* errors about what a valid file lacks ("no stacks to draw") have no position */
        bool data_error =
            !strstr(reason, "out of memory") && !strstr(reason, "limit") && !strstr(reason, "no ");
        bool positioned = strncmp(reason, "offset ", 7) == 0 || strncmp(reason, "line ", 5) == 0;
        bool old_kept = file && flen == 3 && memcmp(file, "OLD", 3) == 0;
        if (!one_line || !named || (data_error && !positioned) || olen != 0 || !old_kept) {
            snprintf(r.why, sizeof r.why, "exit 1 but %s: %.*s",
                     !one_line   ? "not one line on stderr"
                     : !named    ? "the message does not start 'TOOL: FILE: '"
                     : olen      ? "output on stdout"
                     : !old_kept ? "the old output file was changed"
                                 : "no position for a data error",
                     (int)(elen > 600 ? 600 : elen), e);
            r.ok = false;
        }
    } else {
        snprintf(r.why, sizeof r.why, "exit status %d: %.*s", WEXITSTATUS(st),
                 (int)(elen > 600 ? 600 : elen), e);
        r.ok = false;
    }
    free(err);
    free(sout);
    free(file);
    return r;
}

typedef struct tally {
    long runs, failed, exit0, exit1;
    char first[4096];
} tally;

/* Write the mutated bytes and run one tool on them. */
static void
try_one(const struct fixture *fx, const tool *t, const unsigned char *d, size_t n, const char *what,
        tally *ty)
{
    char in[1200], out[1200];
    input_path(in, sizeof in, fx->path);
    snprintf(out, sizeof out, "%s/out.%s", tmpdir, t->out_ext ? t->out_ext : "txt");
    if (!spit(in, d, n))
        return;
    result r = run_tool(t, in, out);
    ty->runs++;
    if (r.ok)
        return;
    if (ty->failed++ == 0) {
        /* keep the input for the reproducer */
        char keep[1200];
        snprintf(keep, sizeof keep, "tests/t_tool_mutate-%s-%s.bin", t->name,
                 strrchr(fx->path, '/') + 1);
        spit(keep, d, n);
        snprintf(ty->first, sizeof ty->first, "%s (%s, kept as %s): %s", what, t->name, keep,
                 r.why);
    }
}

int
main(void)
{
    const char *top = getenv("top_builddir");
    const char *env = getenv("PYPROF_TOOL_MUTATIONS");
    long flips = env ? atol(env) : 1000;
    bool all =
        getenv("PYPROF_TOOL_MUTATE_ALL") && strcmp(getenv("PYPROF_TOOL_MUTATE_ALL"), "1") == 0;
    /* run the programs themselves, not libtool's wrapper scripts (ten times
     * faster to start); the library is then found through LD_LIBRARY_PATH */
    snprintf(tooldir, sizeof tooldir, "%s/tools/.libs", top ? top : ".");
    char probe[1200];
    snprintf(probe, sizeof probe, "%s/pyprof-stats", tooldir);
    if (access(probe, X_OK) == 0) {
        char lib[1200];
        const char *old = getenv("LD_LIBRARY_PATH");
        snprintf(lib, sizeof lib, "%s/libpyprof/.libs%s%s", top ? top : ".", old ? ":" : "",
                 old ? old : "");
        setenv("LD_LIBRARY_PATH", lib, 1);
    } else {
        snprintf(tooldir, sizeof tooldir, "%s/tools", top ? top : ".");
    }
    snprintf(tmpdir, sizeof tmpdir, "tests/t_tool_mutate.tmp.%ld", (long)getpid());
    if (mkdir(tmpdir, 0755) < 0) {
        printf("Bail out! cannot create %s\n", tmpdir);
        return 1;
    }

    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
        const struct fixture *fx = &fixtures[f];
        size_t len;
        unsigned char *orig = tap_slurp(tap_fixture(fx->path), &len);
        if (!orig || len < 8) {
            TAP_OK(0, "%s: fixture readable", fx->path);
            free(orig);
            continue;
        }
        size_t ntools = 0;
        while (fx->tools[ntools])
            ntools++;
        tally ty[8];
        memset(ty, 0, sizeof ty);
        unsigned char *m = malloc(2 * len + 16);
        char what[128];

        /* the unbroken file first: every tool must succeed on it */
        for (size_t t = 0; t < ntools; t++)
            try_one(fx, fx->tools[t], orig, len, "the fixture itself", &ty[t]);
        bool base_ok = true;
        for (size_t t = 0; t < ntools; t++)
            base_ok &= ty[t].failed == 0;
        TAP_OK(base_ok, "%s: every tool reads the unbroken file", fx->path);

        for (int i = 0; i < 64; i++) {
            size_t cut = (size_t)((double)len * i / 64.0);
            snprintf(what, sizeof what, "truncated to %zu bytes", cut);
            for (size_t t = 0; t < ntools; t++)
                try_one(fx, fx->tools[t], orig, cut, what, &ty[t]);
        }
        for (long i = 0; i < flips; i++) {
            memcpy(m, orig, len);
            unsigned nflip = 1 + tap_rand(&rng) % 4;
            size_t first = 0;
            for (unsigned k = 0; k < nflip; k++) {
                size_t at = tap_rand(&rng) % len;
                m[at] ^= (unsigned char)(1 + tap_rand(&rng) % 255);
                if (k == 0)
                    first = at;
            }
            snprintf(what, sizeof what, "flip %ld (%u bytes, first at offset %zu)", i, nflip,
                     first);
            if (all) {
                for (size_t t = 0; t < ntools; t++)
                    try_one(fx, fx->tools[t], m, len, what, &ty[t]);
            } else {
                try_one(fx, fx->tools[(size_t)i % ntools], m, len, what, &ty[(size_t)i % ntools]);
            }
        }
        /* structural: the middle doubled, the middle dropped, the head zeroed */
        size_t q = len / 4;
        memcpy(m, orig, len / 2);
        memcpy(m + len / 2, orig + q, len / 2 - q);
        memcpy(m + len / 2 + (len / 2 - q), orig + len / 2, len - len / 2);
        size_t dlen = len + (len / 2 - q);
        for (size_t t = 0; t < ntools; t++)
            try_one(fx, fx->tools[t], m, dlen, "middle doubled", &ty[t]);
        memcpy(m, orig, q);
        memcpy(m + q, orig + 3 * q, len - 3 * q);
        for (size_t t = 0; t < ntools; t++)
            try_one(fx, fx->tools[t], m, len - 2 * q, "middle dropped", &ty[t]);
        memcpy(m, orig, len);
        memset(m, 0, len < 16 ? len : 16);
        for (size_t t = 0; t < ntools; t++)
            try_one(fx, fx->tools[t], m, len, "head zeroed", &ty[t]);

        for (size_t t = 0; t < ntools; t++) {
            if (ty[t].failed)
                tap_diag("  %s", ty[t].first);
            TAP_OK(ty[t].failed == 0,
                   "%s: %s, %ld broken copies: each a clean error or a complete output", fx->path,
                   fx->tools[t]->name, ty[t].runs);
        }
        free(m);
        free(orig);
    }
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", tmpdir);
    return tap_done();
}
