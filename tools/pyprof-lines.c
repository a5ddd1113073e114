/*
 * pyprof-lines - line_profiler's line-by-line report of .lprof files, read
 * without unpickling them.  See pyprof-lines(1) and ../shared/docs/cli.md.
 *
 * Mirrors `python -m line_profiler FILE.lprof [-u UNIT] [-z]` (4.0.2 layout)
 * with the -t/-m options of 4.1; beyond it: several files merge (their
 * timings are summed per function and line, timer units reconciled), source
 * files are also looked for under --source-root directories and the
 * profile's own directory, and --json/--csv export the timings.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pyprof/pyprof.h>

#include "cli.h"

static void
usage(void)
{
    printf("Usage: %s [OPTION]... FILE.lprof...\n"
           "Print the line-by-line report of line_profiler results (kernprof -l), as\n"
           "'python -m line_profiler' does, without running the pickle.\n"
           "\n"
           "  -u, --unit=SECONDS      output time unit (default 1e-6)\n"
           "  -z, --skip-zero         leave out functions with zero total time\n"
           "  -t, -s, --sort          order functions by ascending total time\n"
           "  -m, --summarize         append a one-line summary per function\n"
           "      --source-root=DIR   look for missing source files under DIR (repeatable)\n"
           "      --no-search         do not look for sources next to the profile\n"
           "  -f, --format=NAME       read the inputs as NAME (default: detect)\n"
           "      --json              write the timings as JSON\n"
           "      --csv               write the timings as CSV\n"
           "  -T, --type=TYPE         output type: txt, json or csv\n"
           "  -o, --output=FILE       write to FILE (atomically) instead of stdout\n"
           "  -h, --help              show this help and exit\n" CLI_LIMIT_HELP
           "      --version           show version information and exit\n"
           "\n"
           "Several FILEs are merged: hits and times add up per function and line.\n"
           "Example: %s -u 1e-3 --source-root ~/src/project prog.py.lprof\n",
           cli_tool(), cli_tool());
}

enum { OPT_SOURCE_ROOT = 256, OPT_NO_SEARCH, OPT_JSON, OPT_CSV };

static const struct option long_options[] = {
    {"unit", required_argument, NULL, 'u'},
    {"skip-zero", no_argument, NULL, 'z'},
    {"sort", no_argument, NULL, 't'},
    {"summarize", no_argument, NULL, 'm'},
    {"source-root", required_argument, NULL, OPT_SOURCE_ROOT},
    {"no-search", no_argument, NULL, OPT_NO_SEARCH},
    {"format", required_argument, NULL, 'f'},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"type", required_argument, NULL, 'T'},
    {"output", required_argument, NULL, 'o'},
    CLI_COMMON_LONGOPTS,
    {NULL, 0, NULL, 0},
};

/* The directory part of a path ("." for a bare name), malloc'd. */
static char *
dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int
main(int argc, char **argv)
{
    pyprof_lines_options lo = PYPROF_LINES_OPTIONS_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    const char *output = NULL, *type = NULL;
    const char **roots = NULL;
    size_t nroots = 0, nexplicit = 0;
    bool search = true;
    int c, status = CLI_EXIT_DATA;

    cli_init("pyprof-lines");
    cli_huge_heap();
    roots = calloc((size_t)argc * 2 + 1, sizeof(*roots));
    if (!roots) {
        cli_errorf("out of memory");
        return CLI_EXIT_DATA;
    }
    while ((c = getopt_long(argc, argv, ":u:ztsmf:T:o:h", long_options, NULL)) != -1) {
        switch (c) {
        case 'u': {
            char *end;
            errno = 0;
            double u = strtod(optarg, &end);
            if (end == optarg || *end || errno == ERANGE || !(u > 0) || isinf(u))
                cli_usage_fail("-u: '%s' is not a positive number of seconds", optarg);
            lo.output_unit = u;
            break;
        }
        case 'z':
            lo.skip_zero = 1;
            break;
        case 't':
        case 's':
            lo.sort_by_time = 1;
            break;
        case 'm':
            lo.summarize = 1;
            break;
        case OPT_SOURCE_ROOT:
            roots[nexplicit++] = optarg;
            break;
        case OPT_NO_SEARCH:
            search = false;
            break;
        case 'f':
            if (!pyprof_format_canonical(optarg))
                cli_usage_fail("unknown format '%s'", optarg);
            ro.format = optarg;
            break;
        case OPT_JSON:
            type = "json";
            break;
        case OPT_CSV:
            type = "csv";
            break;
        case 'T':
            if (strcmp(optarg, "txt") && strcmp(optarg, "json") && strcmp(optarg, "csv"))
                cli_usage_fail("-T: type '%s' is not one of txt, json, csv", optarg);
            type = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, long_options, usage);
            break;
        }
    }
    cli_read_options(&ro);
    if (optind >= argc)
        cli_usage_fail("no input file (try: %s prog.py.lprof)", cli_tool());
    if (!type && output) {
        const char *t = cli_type_from_path(output);
        type = t && (strcmp(t, "json") == 0 || strcmp(t, "csv") == 0) ? t : "txt";
    }
    if (!type)
        type = "txt";
    if (!cli_output_is_safe(output, argv + optind, argc - optind)) {
        free(roots);
        return CLI_EXIT_DATA;
    }

    /* the profiles' own directories come after the explicit roots */
    nroots = nexplicit;
    for (int i = optind; search && i < argc; i++) {
        if (strcmp(argv[i], "-") == 0)
            continue;
        char *d = dir_of(argv[i]);
        if (!d) {
            cli_errorf("out of memory");
            goto done;
        }
        roots[nroots++] = d;
    }
    lo.source_roots = roots;
    lo.nsource_roots = nroots;

    pyprof_profile *prof = NULL;
    pyprof_output *out = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    for (int i = optind; i < argc; i++) {
        pyprof_profile *p;
        if (pyprof_profile_load(&p, argv[i], &ro, &err) < 0) {
            cli_error(&err);
            goto fail;
        }
        if (!prof) {
            prof = p;
            continue;
        }
        int rc = pyprof_profile_merge(prof, p, &err);
        pyprof_profile_free(p);
        if (rc < 0) {
            cli_error(&err);
            goto fail;
        }
    }
    if (pyprof_output_open_file(&out, output ? output : "-", &err) < 0) {
        cli_error(&err);
        goto fail;
    }
    int rc;
    if (strcmp(type, "json") == 0)
        rc = pyprof_lines_write_json(prof, out, &err);
    else if (strcmp(type, "csv") == 0)
        rc = pyprof_lines_write_csv(prof, out, &err);
    else
        rc = pyprof_render_lines(prof, out, &lo, &err);
    if (rc < 0) {
        pyprof_output_abort(out);
        cli_error(&err);
        goto fail;
    }
    if (pyprof_output_commit(out, &err) < 0) {
        cli_error(&err);
        goto fail;
    }
    status = CLI_EXIT_OK;
fail:
    pyprof_profile_free(prof);
done:
    for (size_t i = nexplicit; i < nroots; i++)
        free((void *)roots[i]);
    free(roots);
    return status;
}
