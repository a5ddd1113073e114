/*
 * pyprof-diff - what changed between two profiles.
 *
 *   pyprof-diff BEFORE AFTER [--normalize] [--threshold PCT]
 *
 * The two sides may be of different formats (pstats vs folded): functions
 * are matched by file, line and name.  See pyprof-diff(1).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert_cli.h"

static void
usage(void)
{
    printf("Usage: pyprof-diff [OPTION]... BEFORE AFTER\n"
           "Compare two profiles function by function, also across formats.\n"
           "\n"
           "  -o, --output FILE     write the table to FILE (default stdout)\n"
           "  -T, --type TYPE       txt (default), json, csv, or a call graph coloured by\n"
           "                        change: dot, svg, png, pdf; default from FILE's name\n"
           "      --json            the table as JSON (as -T json)\n"
           "      --csv             the table as CSV (as -T csv)\n"
           "  -f, --format NAME     read both inputs as NAME instead of probing\n"
           "      --normalize       scale BEFORE so that its total equals AFTER's\n"
           "      --threshold PCT   hide changes smaller than PCT percent of the total\n"
           "      --sort KEY        order by the change of 'self' (default) or 'total' time\n"
           "  -n, --limit N         show at most N changed functions\n"
           "      --flame FILE      also write a differential flame graph: FILE.svg or\n"
           "                        FILE.png, or FILE.folded for the stacks with both\n"
           "                        counts (as difffolded.pl)\n"
           "  -h, --help            show this help and exit\n" CLI_LIMIT_HELP
           "      --version         show version information and exit\n"
           "\n"
           "Example:\n"
           "  pyprof-diff --normalize --threshold 1 old.pstats new.pstats\n");
}

static int
load(pyprof_profile **p, const char *path, const char *format)
{
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    cli_read_options(&ro);
    pyprof_error err = PYPROF_ERROR_INIT;
    ro.format = format;
    if (pyprof_profile_load(p, path, &ro, &err) < 0) {
        cli_error(&err);
        return -1;
    }
    return 0;
}

/* The differential stacks (BEFORE and AFTER weight per stack, as
 * difffolded.pl): as folded text, or drawn by the flame renderer.  A side
 * without stacks (pstats) gets them estimated from its call graph first. */
static int
write_flame(const char *path, pyprof_profile *before, pyprof_profile *after, int normalize)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *d = NULL;
    pyprof_output *out = NULL;
    const char *ext = strrchr(path, '.');
    int status = CLI_EXIT_DATA;
    if (pyprof_profile_estimate_stacks(before, 0, &err) < 0 ||
        pyprof_profile_estimate_stacks(after, 0, &err) < 0 ||
        pyprof_profile_diff_stacks(&d, before, after, normalize, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    if (pyprof_output_open_file(&out, path, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    int rc;
    if (ext && (strcmp(ext, ".svg") == 0 || strcmp(ext, ".png") == 0)) {
        pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
        rc = pyprof_render_flame(d, &fo, ext + 1, out, &err);
    } else {
        rc = pyprof_profile_write(d, out, "collapsed", NULL, &err);
    }
    if (rc < 0) {
        cli_error(&err);
        pyprof_output_abort(out);
        goto done;
    }
    if (pyprof_output_commit(out, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    status = CLI_EXIT_OK;
done:
    pyprof_profile_free(d);
    return status;
}

int
main(int argc, char **argv)
{
    enum { OPT_NORMALIZE = 256, OPT_THRESHOLD, OPT_SORT, OPT_FLAME, OPT_JSON, OPT_CSV };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"type", required_argument, NULL, 'T'},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"csv", no_argument, NULL, OPT_CSV},
                                             {"format", required_argument, NULL, 'f'},
                                             {"normalize", no_argument, NULL, OPT_NORMALIZE},
                                             {"threshold", required_argument, NULL, OPT_THRESHOLD},
                                             {"sort", required_argument, NULL, OPT_SORT},
                                             {"limit", required_argument, NULL, 'n'},
                                             {"flame", required_argument, NULL, OPT_FLAME},
                                             CLI_COMMON_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    pyprof_diff_options dopt = PYPROF_DIFF_OPTIONS_INIT;
    const char *output = "-", *type = NULL, *format = NULL, *flame = NULL;
    int c;

    cli_init("pyprof-diff");
    cli_huge_heap();
    while ((c = getopt_long(argc, argv, ":o:T:f:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'T':
            type = optarg;
            break;
        case OPT_JSON: /* the table-printing tools' shorthands (cli.md) */
            type = "json";
            break;
        case OPT_CSV:
            type = "csv";
            break;
        case 'f':
            format = optarg;
            break;
        case OPT_NORMALIZE:
            dopt.normalize = 1;
            break;
        case OPT_THRESHOLD: {
            char *end;
            double v = strtod(optarg, &end);
            if (*end || !(v >= 0 && v <= 100))
                cli_usage_fail("--threshold needs a percentage between 0 and 100");
            dopt.threshold = v / 100.0;
            break;
        }
        case OPT_SORT:
            if (strcmp(optarg, "self") && strcmp(optarg, "total"))
                cli_usage_fail("--sort must be 'self' or 'total'");
            dopt.sort = optarg;
            break;
        case 'n': {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*end || v < 0)
                cli_usage_fail("--limit needs a non-negative number");
            dopt.limit = (size_t)v;
            break;
        }
        case OPT_FLAME:
            flame = optarg;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, longopts, usage);
            break;
        }
    }
    if (argc - optind != 2)
        cli_usage_fail("need exactly two profiles: BEFORE AFTER");
    if (!type)
        type = cli_type_from_path(output);
    if (!type)
        type = "txt";
    bool graph = strcmp(type, "dot") == 0 || strcmp(type, "png") == 0 || strcmp(type, "svg") == 0 ||
                 strcmp(type, "pdf") == 0;
    if (!graph && strcmp(type, "txt") && strcmp(type, "json") && strcmp(type, "csv"))
        cli_usage_fail("unknown output type '%s' (txt, json, csv, dot, svg, png, pdf)", type);
    if (format && !pyprof_format_canonical(format))
        cli_usage_fail("unknown input format '%s'", format);
    if (flame) {
        const char *ft = pyprof_writer_from_path(flame), *ext = strrchr(flame, '.');
        if (!(ft && strcmp(ft, "collapsed") == 0) &&
            !(ext && (strcmp(ext, ".svg") == 0 || strcmp(ext, ".png") == 0)))
            cli_usage_fail("--flame %s: the name must end in .svg, .png or .folded", flame);
    }
    if (!cli_output_is_safe(output, argv + optind, 2) ||
        (flame && !cli_output_is_safe(flame, argv + optind, 2)))
        return CLI_EXIT_USAGE;
    dopt.type = type;

    pyprof_profile *before = NULL, *after = NULL;
    pyprof_output *out = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    int status = CLI_EXIT_DATA;
    if (load(&before, argv[optind], format) < 0 || load(&after, argv[optind + 1], format) < 0)
        goto done;
    if (pyprof_output_open_file(&out, output, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    int rc;
    if (graph) {
        /* gprof2dot --compare: AFTER's functions also in BEFORE, coloured
         * by the change (the dot renderer's compare mode) */
        pyprof_dot_options go = PYPROF_DOT_OPTIONS_INIT;
        go.type = type;
        rc = pyprof_dot_render_compare(before, after, &go, out, &err);
    } else {
        rc = pyprof_diff_write(before, after, out, &dopt, &err);
    }
    if (rc < 0) {
        cli_error(&err);
        pyprof_output_abort(out);
        goto done;
    }
    if (pyprof_output_commit(out, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    status = flame ? write_flame(flame, before, after, dopt.normalize) : CLI_EXIT_OK;
done:
    pyprof_profile_free(before);
    pyprof_profile_free(after);
    return status;
}
