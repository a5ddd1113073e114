/*
 * pyprof-mem - memory_profiler data without matplotlib: `mprof plot`,
 * `mprof peak` and `mprof list` as a headless C tool, plus a summary of
 * saved @profile reports.
 *
 *     pyprof-mem plot [FILE...] -o out.png|out.svg [--title T] [-w S,E] [-s] [-f]
 *     pyprof-mem peak [FILE...] [--func NAME] [--json|--csv]
 *     pyprof-mem list [--json|--csv]
 *     pyprof-mem report FILE.txt [--top N] [--json|--csv]
 *
 * FILE arguments are taken as mprof takes them: an existing path, or else
 * an integer index into the sorted mprofile_*.dat files of the current
 * directory (-1 = newest); with none, the newest such file, after printing
 * "Using last profile data." as mprof does.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pyprof/pyprof.h>

#include "cli.h"

static void
usage(void)
{
    printf("Usage: pyprof-mem COMMAND [OPTION]... [FILE]...\n"
           "Memory-over-time plots and summaries of memory_profiler files, as mprof.\n"
           "\n"
           "Commands:\n"
           "  plot [FILE...]        draw memory (MiB) against time (s) as PNG or SVG\n"
           "  peak [FILE...]        print the peak memory of each file (as mprof peak)\n"
           "  list                  list mprofile_*.dat files here (as mprof list)\n"
           "  report FILE           summarise a saved @profile line-by-line report\n"
           "\n"
           "FILE is a path, or an index into the sorted mprofile_*.dat files of the current\n"
           "directory (-1 = newest); without FILE the newest one is used.\n"
           "\n"
           "Options:\n"
           "  -o, --output=FILE     plot: write here (type from the extension)\n"
           "  -T, --type=TYPE       plot: png or svg; tables: txt, json or csv\n"
           "  -t, --title=TEXT      plot: title (default: the command line of one file)\n"
           "  -w, --window=S,E      plot: show only seconds S to E\n"
           "  -s, --slope           plot: fitted trend lines, slopes (MiB/s) in the legend\n"
           "  -f, --flame           plot: function executions as boxes stacked by depth\n"
           "  -n, --no-function-ts  plot: no function brackets or boxes\n"
           "      --include-children  plot: also draw main + children summed\n"
           "      --no-children     plot: leave child processes out\n"
           "      --size=WxH        plot: image size in pixels (default 1260x540)\n"
           "      --func=NAME       peak: only samples taken while NAME ran\n"
           "      --top=N           report: how many largest increments (default 10)\n"
           "      --json            print tables as JSON\n"
           "      --csv             print tables as CSV\n"
           "      --format=NAME     read inputs as NAME (mprofile, memreport)\n"
           "  -h, --help            show this help and exit\n" CLI_LIMIT_HELP
           "      --version         show version information and exit\n"
           "\n"
           "Examples:\n"
           "  pyprof-mem plot mprofile_20240101120000.dat -o mem.png\n"
           "  pyprof-mem peak --func __main__.work\n");
}

enum {
    OPT_FUNC = 256,
    OPT_JSON,
    OPT_CSV,
    OPT_INCLUDE_CHILDREN,
    OPT_NO_CHILDREN,
    OPT_SIZE,
    OPT_TOP,
    OPT_FORMAT
};

typedef struct opts {
    const char *output, *type, *func, *format;
    size_t top;
    pyprof_mem_plot_options plot;
} opts;

/* ---- choosing files as mprof does ---------------------------------------------- */

static bool
is_file(const char *path)
{
    struct stat st;
    return strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISDIR(st.st_mode));
}

static bool
parse_index(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

/* Resolve FILE arguments (or none) into a list of paths; `names` keeps the
 * mprofile list alive because paths may point into it.  Returns 0, or an
 * exit code. */
static int
resolve_files(int argc, char **argv, const char ***paths, size_t *npaths, char ***names,
              bool announce)
{
    size_t nnames = 0;
    pyprof_error err = PYPROF_ERROR_INIT;
    *names = NULL;
    *paths = calloc((size_t)argc + 1, sizeof(char *));
    *npaths = 0;
    if (!*paths) {
        cli_errorf("out of memory");
        return CLI_EXIT_DATA;
    }
    bool need_list = argc == 0;
    for (int i = 0; i < argc && !need_list; i++)
        need_list = !is_file(argv[i]);
    if (need_list && pyprof_mem_list_files(names, &nnames, ".", &err) < 0) {
        cli_error(&err);
        return CLI_EXIT_DATA;
    }
    if (argc == 0) {
        if (nnames == 0) {
            cli_errorf("no input file: no mprofile_*.dat file in the current directory "
                       "(made by 'mprof run')");
            return CLI_EXIT_DATA;
        }
        if (announce)
            printf("Using last profile data.\n");
        (*paths)[(*npaths)++] = (*names)[nnames - 1];
        return 0;
    }
    for (int i = 0; i < argc; i++) {
        const char *path = argv[i];
        long idx;
        if (!is_file(path)) {
            if (!parse_index(path, &idx)) {
                cli_errorf("%s: no such file", path);
                return CLI_EXIT_DATA;
            }
            if (idx < 0)
                idx += (long)nnames;
            if (idx < 0 || (size_t)idx >= nnames) {
                cli_errorf("%s: no mprofile_*.dat file with this index (there are %zu)", path,
                           nnames);
                return CLI_EXIT_DATA;
            }
            path = (*names)[idx];
        }
        bool dup = false; /* mprof lists each file once */
        for (size_t k = 0; k < *npaths && !dup; k++)
            dup = strcmp((*paths)[k], path) == 0;
        if (!dup)
            (*paths)[(*npaths)++] = path;
    }
    return 0;
}

/* Load and merge; the profile keeps one source (and series) per file. */
static int
load_all(pyprof_profile **out, const char **paths, size_t n, const char *format)
{
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    cli_read_options(&ro);
    pyprof_error err = PYPROF_ERROR_INIT;
    ro.format = format;
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        pyprof_profile *p;
        if (pyprof_profile_load(&p, paths[i], &ro, &err) < 0) {
            cli_error(&err);
            pyprof_profile_free(*out);
            *out = NULL;
            return CLI_EXIT_DATA;
        }
        if (!*out) {
            *out = p;
            continue;
        }
        int rc = pyprof_profile_merge(*out, p, &err);
        pyprof_profile_free(p);
        if (rc < 0) {
            cli_error(&err);
            pyprof_profile_free(*out);
            *out = NULL;
            return CLI_EXIT_DATA;
        }
    }
    return 0;
}

static int
finish(pyprof_output *o)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_output_commit(o, &err) < 0) {
        cli_error(&err);
        return CLI_EXIT_DATA;
    }
    return CLI_EXIT_OK;
}

static void
json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void
csv_str(const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* JSON/CSV numbers: NaN has no JSON spelling, so it becomes null / empty. */
static void
num(double v, bool json)
{
    if (isnan(v))
        fputs(json ? "null" : "", stdout);
    else
        printf("%.3f", v);
}

/* ---- commands ----------------------------------------------------------------------- */

static int
cmd_peak(const opts *o, int argc, char **argv)
{
    bool json = o->type && strcmp(o->type, "json") == 0, csv = o->type && !strcmp(o->type, "csv");
    const char **paths;
    size_t n;
    char **names;
    int rc = resolve_files(argc, argv, &paths, &n, &names, !json && !csv);
    pyprof_profile *p = NULL;
    if (rc == 0)
        rc = load_all(&p, paths, n, o->format);
    if (rc == 0 && !json && !csv) {
        pyprof_output *out;
        pyprof_error err = PYPROF_ERROR_INIT;
        fflush(stdout);
        if (pyprof_output_open_stdio(&out, stdout, "<stdout>", &err) < 0 ||
            pyprof_mem_write_peak(out, p, o->func, &err) < 0) {
            cli_error(&err);
            rc = CLI_EXIT_DATA;
        }
        if (out && rc == 0)
            rc = finish(out);
        else
            pyprof_output_abort(out);
    } else if (rc == 0) {
        if (csv)
            printf("file,child,peak_mib,basis\n");
        else
            printf("[");
        size_t nser = pyprof_profile_mem_series_count(p), nsrc = pyprof_profile_source_count(p);
        static const char *const basis[] = {"none", "samples", "function_points"};
        bool first = true;
        for (size_t src = 0; src < nsrc; src++) {
            const char *fname = pyprof_profile_string(p, pyprof_profile_source(p, src)->name);
            for (pyprof_id s = 0; s < nser; s++) {
                const pyprof_mem_series *ms = pyprof_profile_mem_series(p, s);
                if (ms->source != src)
                    continue;
                pyprof_mem_peak pk;
                if (pyprof_mem_peak_of(&pk, p, s, ms->child == -1 ? o->func : NULL) < 0) {
                    cli_errorf("out of memory");
                    rc = CLI_EXIT_DATA;
                    break;
                }
                if (json) {
                    printf("%s{\"file\": ", first ? "" : ", ");
                    json_str(fname);
                    if (ms->child == -1)
                        printf(", \"child\": null, \"peak_mib\": ");
                    else
                        printf(", \"child\": %lld, \"peak_mib\": ", (long long)ms->child);
                    num(pk.mib, true);
                    printf(", \"basis\": \"%s\"}", basis[pk.basis]);
                } else {
                    csv_str(fname);
                    if (ms->child == -1)
                        printf(",,");
                    else
                        printf(",%lld,", (long long)ms->child);
                    num(pk.mib, false);
                    printf(",%s\n", basis[pk.basis]);
                }
                first = false;
            }
        }
        if (json)
            printf("]\n");
    }
    pyprof_profile_free(p);
    free(paths);
    pyprof_mem_list_free(names);
    return rc;
}

static int
cmd_list(const opts *o, int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        cli_usage_fail("list takes no FILE argument");
    char **names;
    size_t n;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_mem_list_files(&names, &n, ".", &err) < 0) {
        cli_error(&err);
        return CLI_EXIT_DATA;
    }
    int rc = 0;
    bool json = o->type && strcmp(o->type, "json") == 0, csv = o->type && !strcmp(o->type, "csv");
    if (json || csv) {
        printf(json ? "[" : "index,file,time,date\n");
        for (size_t i = 0; i < n; i++) {
            /* the same fields as the text, from the text */
            pyprof_output *m;
            if (pyprof_output_open_memory(&m, &err) < 0 ||
                pyprof_mem_write_list(m, &names[i], 1, &err) < 0) {
                cli_error(&err);
                pyprof_output_abort(m);
                rc = CLI_EXIT_DATA;
                break;
            }
            size_t len;
            const unsigned char *d = pyprof_output_data(m, &len);
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)len, (const char *)d);
            pyprof_output_abort(m);
            char *date = strrchr(line, ' '), *time;
            if (date)
                *date++ = '\0';
            time = strrchr(line, ' ');
            if (time)
                *time++ = '\0';
            if (date)
                date[strcspn(date, "\n")] = '\0';
            if (json) {
                printf("%s{\"index\": %zu, \"file\": ", i ? ", " : "", i);
                json_str(names[i]);
                printf(", \"time\": ");
                json_str(time ? time : "");
                printf(", \"date\": ");
                json_str(date ? date : "");
                printf("}");
            } else {
                printf("%zu,", i);
                csv_str(names[i]);
                printf(",%s,%s\n", time ? time : "", date ? date : "");
            }
        }
        if (json)
            printf("]\n");
    } else {
        pyprof_output *out;
        fflush(stdout);
        if (pyprof_output_open_stdio(&out, stdout, "<stdout>", &err) < 0 ||
            pyprof_mem_write_list(out, names, n, &err) < 0) {
            cli_error(&err);
            pyprof_output_abort(out);
            rc = CLI_EXIT_DATA;
        } else {
            rc = finish(out);
        }
    }
    pyprof_mem_list_free(names);
    return rc;
}

static int
cmd_plot(opts *o, int argc, char **argv)
{
    const char *type = o->type ? o->type : cli_type_from_path(o->output);
    if (!o->output && !o->type)
        cli_usage_fail("plot needs -o FILE.png or FILE.svg (or -T TYPE to write to stdout)");
    if (!type || (strcmp(type, "png") != 0 && strcmp(type, "svg") != 0))
        cli_usage_fail("plot writes png or svg; give -o FILE.png|FILE.svg or -T png|svg");
    const char **paths;
    size_t n;
    char **names;
    int rc = resolve_files(argc, argv, &paths, &n, &names, false);
    pyprof_profile *p = NULL;
    if (rc == 0 && !cli_output_is_safe(o->output, (char *const *)paths, (int)n))
        rc = CLI_EXIT_USAGE;
    if (rc == 0)
        rc = load_all(&p, paths, n, o->format);
    if (rc == 0 && !(pyprof_profile_caps(p) & PYPROF_CAP_MEMORY)) {
        /* name the file: "the profile" means nothing to a user who gave several */
        cli_errorf("%s: no memory samples to plot (read as %s)", n == 1 ? paths[0] : "the inputs",
                   pyprof_profile_string(p, pyprof_profile_source(p, 0)->format));
        rc = CLI_EXIT_DATA;
    }
    if (rc == 0) {
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof_output *out = NULL;
        if (pyprof_output_open_file(&out, o->output ? o->output : "-", &err) < 0 ||
            pyprof_mem_plot(out, p, type, &o->plot, &err) < 0) {
            cli_error(&err);
            pyprof_output_abort(out);
            rc = CLI_EXIT_DATA;
        } else {
            rc = finish(out);
        }
    }
    pyprof_profile_free(p);
    free(paths);
    pyprof_mem_list_free(names);
    return rc;
}

static int
cmd_report(const opts *o, int argc, char **argv)
{
    if (argc != 1)
        cli_usage_fail("report takes one FILE (a saved @profile report)");
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    cli_read_options(&ro);
    ro.format = o->format ? o->format : "memreport";
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *p;
    if (pyprof_profile_load(&p, argv[0], &ro, &err) < 0) {
        cli_error(&err);
        return CLI_EXIT_DATA;
    }
    pyprof_output *out = NULL;
    int rc;
    fflush(stdout);
    if (pyprof_output_open_stdio(&out, stdout, "<stdout>", &err) < 0 ||
        pyprof_mem_write_report(out, p, o->type ? o->type : "txt", o->top, &err) < 0) {
        cli_error(&err);
        pyprof_output_abort(out);
        rc = CLI_EXIT_DATA;
    } else {
        rc = finish(out);
    }
    pyprof_profile_free(p);
    return rc;
}

static bool
parse_window(const char *s, double *a, double *b)
{
    char *end;
    *a = strtod(s, &end);
    if (end == s || *end != ',')
        return false;
    const char *t = end + 1;
    *b = strtod(t, &end);
    return end != t && *end == '\0' && isfinite(*a) && isfinite(*b) && *a < *b;
}

int
main(int argc, char **argv)
{
    cli_init("pyprof-mem");
    cli_huge_heap();
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"type", required_argument, NULL, 'T'},
        {"title", required_argument, NULL, 't'},
        {"window", required_argument, NULL, 'w'},
        {"slope", no_argument, NULL, 's'},
        {"flame", no_argument, NULL, 'f'},
        {"no-function-ts", no_argument, NULL, 'n'},
        {"include-children", no_argument, NULL, OPT_INCLUDE_CHILDREN},
        {"no-children", no_argument, NULL, OPT_NO_CHILDREN},
        {"size", required_argument, NULL, OPT_SIZE},
        {"func", required_argument, NULL, OPT_FUNC},
        {"top", required_argument, NULL, OPT_TOP},
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", no_argument, NULL, OPT_CSV},
        {"format", required_argument, NULL, OPT_FORMAT},
        CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    opts o = {0};
    o.plot = (pyprof_mem_plot_options)PYPROF_MEM_PLOT_OPTIONS_INIT;
    int c;
    /* "+" stops at the first non-option (the command); options come after it */
    if (argc > 1 && argv[1][0] == '-') {
        if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
            usage();
            return CLI_EXIT_OK;
        }
        if (strcmp(argv[1], "--version") == 0) {
            cli_print_version();
            return CLI_EXIT_OK;
        }
        cli_usage_fail("the first argument must be a command: plot, peak, list or report");
    }
    if (argc < 2)
        cli_usage_fail("missing command: plot, peak, list or report");
    const char *cmd = argv[1];
    if (strcmp(cmd, "plot") && strcmp(cmd, "peak") && strcmp(cmd, "list") && strcmp(cmd, "report"))
        cli_usage_fail("unknown command '%s' (plot, peak, list or report)", cmd);
    argc--;
    argv++;
    /* Negative indices (-1 = newest) are arguments, not options: mprof
     * inserts "--" before the first one, and so do we. */
    char **args = calloc((size_t)argc + 2, sizeof(char *));
    if (!args) {
        cli_errorf("out of memory");
        return CLI_EXIT_DATA;
    }
    int na = 0;
    bool dashed = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!dashed && a[0] == '-' && a[1] >= '0' && a[1] <= '9' &&
            !(i > 0 && (strcmp(argv[i - 1], "-w") == 0 || strcmp(argv[i - 1], "--window") == 0))) {
            args[na++] = "--";
            dashed = true;
        }
        args[na++] = argv[i];
    }
    argc = na;
    argv = args;
    while ((c = getopt_long(argc, argv, ":o:T:t:w:sfnh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o.output = optarg;
            break;
        case 'T':
            o.type = optarg;
            break;
        case 't':
            o.plot.title = optarg;
            break;
        case 'w':
            if (!parse_window(optarg, &o.plot.window_start, &o.plot.window_end))
                cli_usage_fail("--window takes START,END (seconds, START < END), not '%s'", optarg);
            o.plot.window = 1;
            break;
        case 's':
            o.plot.slope = 1;
            break;
        case 'f':
            o.plot.flame = 1;
            break;
        case 'n':
            o.plot.no_functions = 1;
            break;
        case OPT_INCLUDE_CHILDREN:
            o.plot.include_children = 1;
            break;
        case OPT_NO_CHILDREN:
            o.plot.no_children = 1;
            break;
        case OPT_SIZE: {
            char *end;
            double w = strtod(optarg, &end), h = 0;
            if (*end == 'x')
                h = strtod(end + 1, &end);
            if (*end || !(w >= 100 && w <= 32767 && h >= 100 && h <= 32767))
                cli_usage_fail("--size takes WxH in pixels (100 to 32767), not '%s'", optarg);
            o.plot.width = w;
            o.plot.height = h;
            break;
        }
        case OPT_FUNC:
            o.func = optarg;
            break;
        case OPT_TOP: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1)
                cli_usage_fail("--top takes a positive count, not '%s'", optarg);
            o.top = (size_t)v;
            break;
        }
        case OPT_JSON:
            o.type = "json";
            break;
        case OPT_CSV:
            o.type = "csv";
            break;
        case OPT_FORMAT:
            if (!pyprof_format_canonical(optarg))
                cli_usage_fail("unknown format '%s'", optarg);
            o.format = optarg;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, longopts, usage);
            break;
        }
    }
    int rest = argc - optind;
    char **files = argv + optind;
    if (strcmp(cmd, "plot") != 0 && (o.output || o.plot.slope || o.plot.flame || o.plot.window))
        cli_usage_fail("-o, -s, -f and -w are options of plot");
    if (o.type && strcmp(cmd, "plot") != 0 && strcmp(o.type, "json") && strcmp(o.type, "csv") &&
        strcmp(o.type, "txt"))
        cli_usage_fail("tables are printed as txt, json or csv, not %s", o.type);
    if (o.type && strcmp(o.type, "txt") == 0)
        o.type = NULL;
    int rc;
    if (strcmp(cmd, "plot") == 0)
        rc = cmd_plot(&o, rest, files);
    else if (strcmp(cmd, "peak") == 0)
        rc = cmd_peak(&o, rest, files);
    else if (strcmp(cmd, "list") == 0)
        rc = cmd_list(&o, rest, files);
    else
        rc = cmd_report(&o, rest, files);
    free(args);
    return rc;
}
