/*
 * t_locale.c - the library inside a host program whose locale writes and
 * reads numbers with a decimal comma.
 *
 * numfmt.c promises that numbers are read and written in the C locale
 * whatever the host program set with setlocale(), because a library cannot
 * ask its host to stay in "C".  The tools never call setlocale(), so no
 * command-line test can see that promise broken.  Here the process itself
 * switches to such locales, one UTF-8 and one Latin-1 (whose ctype tables
 * differ too): installed ones, or else ones that localedef builds into a
 * temporary LOCPATH (no root needed).  It first checks that
 * plain printf and strtod really do change, so that the rest proves
 * something; then every fixture is read, written by every writer and drawn
 * by every renderer, and the bytes must be those the same calls give under
 * "C".  A call that fails must fail the same way under both.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <locale.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pyprof/pyprof.h>

#include "tap.h"
#include "transcript.h"

extern char **environ;

/* ---- a decimal-comma locale ------------------------------------------------------ */

static bool
decimal_comma(void)
{
    const struct lconv *lc = localeconv();
    return lc && strcmp(lc->decimal_point, ",") == 0;
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* The host locales tried: both write "1,5"; the second also has a
 * single-byte character set, where ctype calls such as isalnum() take
 * bytes past ASCII for letters. */
static struct host_locale {
    const char *name, *charmap;
    bool ok;
} hosts[] = {{"de_DE.UTF-8", "UTF-8", false}, {"de_DE.ISO-8859-1", "ISO-8859-1", false}};
#define NHOSTS (sizeof(hosts) / sizeof(hosts[0]))

static bool
switch_to(const struct host_locale *h)
{
    return setlocale(LC_ALL, h->name) && decimal_comma();
}

/* localedef -i de_DE -f CHARMAP DIR/NAME, quietly; true if it ran. */
static bool
build_locale(const char *dir, const struct host_locale *h)
{
    char target[4096];
    snprintf(target, sizeof(target), "%s/%s", dir, h->name);
    char *argv[] = {"localedef", "-i", "de_DE", "-f", (char *)h->charmap, target, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "localedef", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return false;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return false;
    /* localedef exits 1 for warnings and still writes the locale: the
     * setlocale() that follows is the real check */
    return WIFEXITED(status);
}

/* Mark which host locales can be switched to: the installed ones, or,
 * when one is missing, all of them built with localedef into a temporary
 * LOCPATH (glibc reads it at each setlocale(), and then looks nowhere
 * else).  `built` is that directory, "" if none was made. */
static size_t
find_host_locales(char *built, size_t size)
{
    size_t n = 0;
    built[0] = '\0';
    for (size_t i = 0; i < NHOSTS; i++)
        n += hosts[i].ok = switch_to(&hosts[i]);
    if (n == NHOSTS)
        return n;
    snprintf(built, size, "%s/pyprof-locale-XXXXXX", tap_tmpdir());
    if (!mkdtemp(built)) {
        built[0] = '\0';
        return n;
    }
    for (size_t i = 0; i < NHOSTS; i++)
        if (!build_locale(built, &hosts[i]))
            return n;
    if (setenv("LOCPATH", built, 1) != 0)
        return n;
    n = 0;
    for (size_t i = 0; i < NHOSTS; i++)
        n += hosts[i].ok = switch_to(&hosts[i]);
    return n;
}

/* ---- the checks ------------------------------------------------------------------ */

static const char *const fixtures[] = {
    "pstats/cprofile_py311.pstats",
    "pstats/cprofile_py27.pstats",
    "dot/small.pstats",
    "collapsed/pyspy.folded",
    "collapsed/diff.folded",
    "collapsed/austin_full.austin",
    "collapsed/pyflame_ts.txt",
    "convert/evented.speedscope.json",
    "convert/p2c.callgrind",
    "convert/yappi.callgrind",
    "lprof/py311_p3.lprof",
    "mprofile/mprofile_20261122114124.dat",
    "mprofile/report.txt",
    NULL, /* the two inputs below: fractional counts, */
    NULL, /* and a non-ASCII callgrind key */
};

/* Written by the test: counts with a fraction part, which a strtod of the
 * host's locale would stop reading at the '.'; and a callgrind header
 * whose name is not ASCII ("\xe9" is a letter in Latin-1, and no callgrind
 * key may have it), which must be read as under "C". */
static const char fractional[] = "main;parse;scan 1.5\n"
                                 "main;parse 0.25\n"
                                 "main;emit 2.125\n";
static const char latin1_key[] = "# callgrind format\n"
                                 "events: Ir\n"
                                 "fl=a.py\n"
                                 "fn=main\n"
                                 "1 5\n"
                                 "caf\xe9: 1\n";

/* A file in $TMPDIR for the test's own inputs. */
static void
temp_input(char *path, size_t size, const char *suffix, const char *text)
{
    snprintf(path, size, "%s/pyprof-t-locale-%ld%s", tap_tmpdir(), (long)getpid(), suffix);
    tap_write_file(path, text, strlen(text));
}

int
main(void)
{
    char built[4096], frac_path[4200], key_path[4200];
    if (find_host_locales(built, sizeof(built)) == 0) {
        printf("1..0 # SKIP no decimal-comma locale, and localedef could not build one\n");
        if (built[0])
            nftw(built, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
        return 0;
    }
    temp_input(frac_path, sizeof(frac_path), ".folded", fractional);
    temp_input(key_path, sizeof(key_path), ".callgrind", latin1_key);

    for (size_t h = 0; h < NHOSTS; h++) {
        const char *host = hosts[h].name;
        if (!hosts[h].ok) {
            tap_ok(1, "%s # SKIP not installed, and localedef could not build it", host);
            continue;
        }
        tap_diag("host locale %s%s", host, built[0] ? " (built with localedef)" : "");
        switch_to(&hosts[h]);

        /* the locale really changes what libc does with numbers */
        char buf[32];
        snprintf(buf, sizeof(buf), "%.2f", 1.5);
        TAP_OK(strcmp(buf, "1,50") == 0, "%s: the host's printf writes a decimal comma", host);
        TAP_OK(strtod("1.5", NULL) == 1.0, "%s: the host's strtod stops at a '.'", host);

        /* read under the host locale: the weights keep their fractions */
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        double sum = -1;
        if (pyprof_profile_load(&p, frac_path, NULL, &err) == 0) {
            size_t nn;
            const pyprof_stack_node *nodes = pyprof_profile_stack_nodes(p, &nn);
            sum = 0;
            for (size_t i = 0; i < nn; i++)
                sum += nodes[i].self[0];
        }
        pyprof_profile_free(p);
        TAP_OK(sum == 3.875, "%s: fractional counts sum to 1.5 + 0.25 + 2.125 (%g)", host, sum);

        for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
            bool ours = !fixtures[i];
            const char *path = !ours ? tap_fixture(fixtures[i])
                               : i + 1 < sizeof(fixtures) / sizeof(fixtures[0]) ? frac_path
                                                                                : key_path;
            const char *label = !ours               ? fixtures[i]
                                : path == frac_path ? "fractional counts"
                                                    : "a non-ASCII callgrind key";
            transcript in_host = {{0}, 0}, in_c = {{0}, 0};
            if (!switch_to(&hosts[h])) {
                printf("Bail out! lost the locale %s\n", host);
                return 1;
            }
            transcript_of(&in_host, path, true);
            setlocale(LC_ALL, "C");
            transcript_of(&in_c, path, true);
            const tap_buf *a = &in_c.text, *b = &in_host.text;
            bool same = a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
            if (!TAP_OK(same, "%s: %s: every writer and renderer gives the bytes of \"C\" (%zu)",
                        host, label, a->len))
                transcript_diag_difference(a, b);
            /* the transcript is no list of failures (but the bad key is) */
            if (path != key_path)
                TAP_OK(in_c.succeeded >= 5, "%s: %s: %zu calls succeeded", host, label,
                       in_c.succeeded);
            free(in_host.text.s);
            free(in_c.text.s);
        }
    }

    remove(frac_path);
    remove(key_path);
    if (built[0])
        nftw(built, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
