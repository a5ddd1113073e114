/*
 * pyprof-convert - one profile format to another.
 *
 *   pyprof-convert IN... -o OUT [-t FORMAT]
 *
 * Several inputs are merged first (as pyprof-merge does).  The output type
 * comes from -t or the extension of OUT; what the target cannot hold is
 * said on stderr.  See pyprof-convert(1).
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
    printf(
        "Usage: pyprof-convert [OPTION]... INPUT... -o OUTPUT\n"
        "Convert profiles between formats (several inputs are merged first).\n"
        "\n"
        "  -o, --output FILE    write to FILE (atomically); '-' is stdout\n"
        "  -t, --type TYPE      output type: pstats, collapsed, callgrind, speedscope,\n"
        "                       json, csv (default: from the extension of FILE)\n"
        "  -f, --format NAME    read the inputs as NAME instead of probing\n"
        "      --name TITLE     title of the profile (speedscope)\n"
        "  -q, --quiet          do not print what the target cannot hold\n"
        "      --list           list the output types and exit\n"
        "  -h, --help           show this help and exit\n" CLI_LIMIT_HELP
        "      --version        show version information and exit\n"
        "\n"
        "Inputs: files, '-' for stdin, glob patterns, or @LISTFILE.\n"
        "Extensions: .pstats .prof .folded .collapsed .callgrind callgrind.out.*\n"
        "            .speedscope.json .json .csv\n"
        "\n"
        "Example:\n"
        "  pyprof-convert prog.pstats -o callgrind.out.prog && kcachegrind callgrind.out.prog\n");
}

int
main(int argc, char **argv)
{
    enum { OPT_NAME = 256, OPT_LIST };
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"type", required_argument, NULL, 't'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"name", required_argument, NULL, OPT_NAME},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"list", no_argument, NULL, OPT_LIST},
                                             CLI_COMMON_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    const char *output = NULL, *type = NULL, *format = NULL, *name = NULL;
    bool quiet = false;
    int c;

    cli_init("pyprof-convert");
    cli_huge_heap();
    while ((c = getopt_long(argc, argv, ":o:t:f:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 't':
            type = optarg;
            break;
        case 'f':
            format = optarg;
            break;
        case OPT_NAME:
            name = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case OPT_LIST:
            for (size_t i = 0; i < pyprof_writer_count(); i++)
                printf("%-12s %s\n", pyprof_writer_name(i), pyprof_writer_description(i));
            return CLI_EXIT_OK;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, longopts, usage);
            break;
        }
    }
    if (optind >= argc)
        cli_usage_fail("no input file");
    if (!output)
        cli_usage_fail("no output file (-o FILE, or -o - with -t TYPE)");
    if (type) {
        const char *canon = pyprof_writer_canonical(type);
        if (!canon)
            cli_usage_fail("unknown output type '%s' (see --list)", type);
        type = canon;
    } else {
        type = pyprof_writer_from_path(output);
        if (!type)
            cli_usage_fail("cannot tell the output type from '%s': use -t TYPE", output);
    }
    if (format && !pyprof_format_canonical(format))
        cli_usage_fail("unknown input format '%s'", format);

    cc_list inputs = {0};
    for (int i = optind; i < argc; i++) {
        if (!cc_expand_input(&inputs, argv[i])) {
            cc_list_free(&inputs);
            return CLI_EXIT_USAGE;
        }
    }
    if (!cli_output_is_safe(output, inputs.items, (int)inputs.n)) {
        cc_list_free(&inputs);
        return CLI_EXIT_USAGE;
    }

    pyprof_profile *p = NULL;
    int status = cc_load_merged(&p, inputs.items, inputs.n, format, false, NULL, NULL);
    if (status != CLI_EXIT_OK) {
        cc_list_free(&inputs);
        return status;
    }

    pyprof_write_options wo = PYPROF_WRITE_OPTIONS_INIT;
    wo.name = name;
    status = cc_write_profile(p, output, type, &wo, quiet);
    pyprof_profile_free(p);
    cc_list_free(&inputs);
    return status;
}
