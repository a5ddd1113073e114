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
    const char *tmp = getenv("TMPDIR");
    snprintf(built, size, "%s/pyprof-locale-XXXXXX", tmp && *tmp ? tmp : "/tmp");
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

/* ---- a transcript of everything the library makes of one input ----------------- */

static size_t succeeded; /* calls of the current transcript that did not fail */

/* Graphviz names an anonymous graph "%N" from a counter of the graphs it
 * has made in the process, and its SVG shows that name (in a comment and
 * a <title>): so the same call made twice differs there, whatever the
 * locale.  The digits after each "%" that follows one of those are masked. */
static void
put_masking_graph_names(tap_buf *t, const char *s, size_t n)
{
    static const char *const before[] = {"<!-- Title: %", "<title>%"};
    const char *end = s + n;
    while (s < end) {
        const char *at = NULL;
        size_t len = 0;
        for (size_t i = 0; i < 2; i++) {
            const char *m = memmem(s, (size_t)(end - s), before[i], strlen(before[i]));
            if (m && (!at || m < at)) {
                at = m;
                len = strlen(before[i]);
            }
        }
        if (!at)
            break;
        tap_buf_put(t, s, (size_t)(at - s) + len);
        tap_buf_puts(t, "N");
        for (s = at + len; s < end && *s >= '0' && *s <= '9';)
            s++;
    }
    tap_buf_put(t, s, (size_t)(end - s));
}

/* Append what memory output `o` holds, with the call's name and status,
 * to t; free o. */
static void
record(tap_buf *t, const char *what, int rc, pyprof_output *o)
{
    char head[256];
    size_t len = 0;
    const unsigned char *data = o ? pyprof_output_data(o, &len) : NULL;
    snprintf(head, sizeof(head), "\n== %s: status %d\n", what, rc);
    tap_buf_puts(t, head);
    if (data && rc >= 0)
        put_masking_graph_names(t, (const char *)data, len);
    succeeded += rc >= 0;
    pyprof_output_abort(o);
}

static pyprof_output *
memory_output(void)
{
    pyprof_output *o = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_output_open_memory(&o, &err) < 0) {
        printf("Bail out! no memory output: %s\n", err.message);
        exit(1);
    }
    return o;
}

static pyprof_profile *
load(tap_buf *t, const char *path)
{
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    int rc = pyprof_profile_load(&p, path, NULL, &err);
    char line[4200];
    snprintf(line, sizeof(line), "\n== load: status %d %s\n", rc, rc < 0 ? err.message : "");
    tap_buf_puts(t, line);
    return rc < 0 ? NULL : p;
}

/* Every writer and every renderer on `path`, in a fixed order; each on a
 * freshly read profile, since some calls add to the profile (derived call
 * graphs, estimated stacks). */
static void
transcript(tap_buf *t, const char *path)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *p;
    pyprof_output *o;
    int rc;
    char what[128];

    for (size_t i = 0; i < pyprof_writer_count(); i++) {
        if (!(p = load(t, path)))
            return;
        o = memory_output();
        rc = pyprof_profile_write(p, o, pyprof_writer_name(i), NULL, &err);
        snprintf(what, sizeof(what), "write %s", pyprof_writer_name(i));
        record(t, what, rc, o);
        pyprof_profile_free(p);
    }

    if ((p = load(t, path))) { /* pstats tables: takes the profile */
        pyprof_stats *st = NULL;
        if ((rc = pyprof_stats_new(&st, p, &err)) < 0) {
            record(t, "stats", rc, NULL);
        } else {
            const char *keys[] = {"cumulative"};
            o = memory_output();
            rc = pyprof_stats_sort(st, keys, 1, &err);
            if (rc >= 0)
                rc = pyprof_stats_print(st, o, NULL, 0, &err);
            if (rc >= 0)
                rc = pyprof_stats_print_callers(st, o, NULL, 0, &err);
            record(t, "stats print, callers", rc, o);
            o = memory_output();
            record(t, "stats JSON", pyprof_stats_export(st, o, PYPROF_STATS_JSON, 1, NULL, 0, &err),
                   o);
            o = memory_output();
            record(t, "stats CSV", pyprof_stats_export(st, o, PYPROF_STATS_CSV, 1, NULL, 0, &err),
                   o);
            pyprof_stats_free(st);
        }
    }

    static const char *const dot_types[] = {"dot", "svg"};
    for (size_t i = 0; i < 2; i++) {
        if (!(p = load(t, path)))
            return;
        pyprof_dot_options d = PYPROF_DOT_OPTIONS_INIT;
        d.type = dot_types[i];
        d.node_thres = 0.25; /* (options as a host sets them: numbers, not text) */
        o = memory_output();
        snprintf(what, sizeof(what), "dot %s", dot_types[i]);
        record(t, what, pyprof_dot_render(p, &d, o, &err), o);
        pyprof_profile_free(p);
    }

    static const char *const image_types[] = {"svg", "png"};
    for (size_t i = 0; i < 2; i++) {
        if (!(p = load(t, path)))
            return;
        pyprof_flame_options f = PYPROF_FLAME_OPTIONS_INIT;
        f.minwidth = 0.5;
        o = memory_output();
        snprintf(what, sizeof(what), "flame %s", image_types[i]);
        record(t, what, pyprof_render_flame(p, &f, image_types[i], o, &err), o);
        pyprof_profile_free(p);
    }

    if ((p = load(t, path))) {
        pyprof_lines_options l = PYPROF_LINES_OPTIONS_INIT;
        l.output_unit = 1e-3;
        o = memory_output();
        record(t, "lines", pyprof_render_lines(p, o, &l, &err), o);
        o = memory_output();
        record(t, "lines JSON", pyprof_lines_write_json(p, o, &err), o);
        o = memory_output();
        record(t, "lines CSV", pyprof_lines_write_csv(p, o, &err), o);
        for (size_t i = 0; i < 2; i++) {
            pyprof_mem_plot_options m = PYPROF_MEM_PLOT_OPTIONS_INIT;
            m.slope = 1;
            m.width = 640.5;
            o = memory_output();
            snprintf(what, sizeof(what), "mem plot %s", image_types[i]);
            record(t, what, pyprof_mem_plot(o, p, image_types[i], &m, &err), o);
        }
        static const char *const report_types[] = {"txt", "json", "csv"};
        for (size_t i = 0; i < 3; i++) {
            o = memory_output();
            snprintf(what, sizeof(what), "mem report %s", report_types[i]);
            record(t, what, pyprof_mem_write_report(o, p, report_types[i], 5, &err), o);
        }
        pyprof_profile_free(p);
    }
}

/* The first byte where a and b differ, with a little of each around it. */
static void
diag_difference(const tap_buf *a, const tap_buf *b)
{
    size_t n = a->len < b->len ? a->len : b->len, i = 0;
    while (i < n && a->s[i] == b->s[i])
        i++;
    size_t from = i > 60 ? i - 60 : 0;
    tap_diag("first difference at byte %zu of %zu / %zu", i, a->len, b->len);
    tap_diag("C:     %.120s", a->s + from);
    tap_diag("comma: %.120s", b->s + from);
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
    NULL, /* the fractional counts below */
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
    const char *tmp = getenv("TMPDIR");
    snprintf(path, size, "%s/pyprof-t-locale-%ld%s", tmp && *tmp ? tmp : "/tmp", (long)getpid(),
             suffix);
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
            tap_buf in_host = {0}, in_c = {0};
            if (!switch_to(&hosts[h])) {
                printf("Bail out! lost the locale %s\n", host);
                return 1;
            }
            transcript(&in_host, path);
            setlocale(LC_ALL, "C");
            succeeded = 0;
            transcript(&in_c, path);
            bool same = in_host.len == in_c.len && memcmp(in_host.s, in_c.s, in_c.len) == 0;
            if (!TAP_OK(same, "%s: %s: every writer and renderer gives the bytes of \"C\" (%zu)",
                        host, label, in_c.len))
                diag_difference(&in_c, &in_host);
            /* the transcript is no list of failures (but the bad key is) */
            if (path != key_path)
                TAP_OK(succeeded >= 5, "%s: %s: %zu calls succeeded", host, label, succeeded);
            free(in_host.s);
            free(in_c.s);
        }
    }

    remove(frac_path);
    remove(key_path);
    if (built[0])
        nftw(built, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
