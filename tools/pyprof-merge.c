/*
 * pyprof-merge - many profiles of one kind into one, and rank statistics.
 *
 *   pyprof-merge IN... -o OUT [--ranks]
 *
 * One streaming pass: each input is read, added into the accumulator with
 * pstats.Stats.add semantics (pyprof_profile_merge) and freed, so memory
 * follows the merged result, not the number of inputs.  --ranks keeps the
 * per-input self/total time of every function for the spread report.
 * See pyprof-merge(1).
 */
#include "config.h"

#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert_cli.h"

static void
usage(void)
{
    printf("Usage: pyprof-merge [OPTION]... INPUT... [-o OUTPUT]\n"
           "Merge profiles of one kind (pstats as pstats.Stats.add, folded stacks,\n"
           "lprof, mprofile) and report how functions spread across the inputs.\n"
           "\n"
           "  -o, --output FILE       write the merged profile to FILE; '-' is stdout\n"
           "  -t, --type TYPE         output type (pstats, collapsed, callgrind, speedscope,\n"
           "                          json, csv); default: from FILE, else the input kind\n"
           "  -f, --format NAME       read the inputs as NAME instead of probing\n"
           "      --ranks             print per-function min/median/max/mean/stddev of\n"
           "                          self and total time across the inputs\n"
           "      --ranks-output FILE write the --ranks report to FILE (default stdout)\n"
           "      --ranks-type TYPE   report as txt (default), json or csv\n"
           "  -n, --limit N           at most N rows in the --ranks report\n"
           "  -q, --quiet             do not print what the output type cannot hold\n"
           "  -h, --help              show this help and exit\n" CLI_LIMIT_HELP
           "      --version           show version information and exit\n"
           "\n"
           "Inputs: files, glob patterns (quoted, e.g. 'rank*.pstats'), or @LISTFILE.\n"
           "\n"
           "Example:\n"
           "  pyprof-merge 'run/rank*.prof' -o all.prof --ranks -n 20\n");
}

struct ranks_ctx {
    pyprof_ranks *ranks;
};

static int
add_rank(void *ctx, pyprof_profile *in, const char *path, pyprof_error *err)
{
    return pyprof_ranks_add(((struct ranks_ctx *)ctx)->ranks, in, path, err);
}

static int
write_ranks(pyprof_ranks *ranks, const char *path, const char *type, size_t limit)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_output *out;
    if (pyprof_output_open_file(&out, path, &err) < 0) {
        cli_error(&err);
        return CLI_EXIT_DATA;
    }
    if (pyprof_ranks_write(ranks, out, type, limit, &err) < 0) {
        cli_error(&err);
        pyprof_output_abort(out);
        return CLI_EXIT_DATA;
    }
    if (pyprof_output_commit(out, &err) < 0) {
        cli_error(&err);
        return CLI_EXIT_DATA;
    }
    return CLI_EXIT_OK;
}

int
main(int argc, char **argv)
{
    enum { OPT_RANKS = 256, OPT_RANKS_OUTPUT, OPT_RANKS_TYPE };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"type", required_argument, NULL, 't'},
        {"format", required_argument, NULL, 'f'},
        {"ranks", no_argument, NULL, OPT_RANKS},
        {"ranks-output", required_argument, NULL, OPT_RANKS_OUTPUT},
        {"ranks-type", required_argument, NULL, OPT_RANKS_TYPE},
        {"limit", required_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0}};
    const char *output = NULL, *type = NULL, *format = NULL;
    const char *ranks_output = "-", *ranks_type = "txt";
    bool quiet = false, ranks = false;
    size_t limit = 0;
    int c;

    cli_init("pyprof-merge");
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD)
    /* Every input is a burst of allocations freed right after it is merged.
     * glibc would hand that memory back to the kernel each time and fault it
     * in again for the next input: a third of the run time on 1,000 inputs.
     * Keeping up to 256 MiB of freed memory (and serving blocks below 64 MiB
     * from the heap) makes the loop reuse it; the peak does not change. */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
#endif
    while ((c = getopt_long(argc, argv, ":o:t:f:n:qh", longopts, NULL)) != -1) {
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
        case OPT_RANKS:
            ranks = true;
            break;
        case OPT_RANKS_OUTPUT:
            ranks = true;
            ranks_output = optarg;
            break;
        case OPT_RANKS_TYPE:
            ranks = true;
            ranks_type = optarg;
            if (strcmp(optarg, "txt") && strcmp(optarg, "json") && strcmp(optarg, "csv"))
                cli_usage_fail("--ranks-type must be txt, json or csv");
            break;
        case 'n': {
            char *end;
            long long v = strtoll(optarg, &end, 10);
            if (*end || v < 0)
                cli_usage_fail("--limit needs a non-negative number");
            limit = (size_t)v;
            break;
        }
        case 'q':
            quiet = true;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, longopts, usage);
            break;
        }
    }
    if (optind >= argc)
        cli_usage_fail("no input file");
    if (!output && !ranks)
        cli_usage_fail("nothing to do: give -o FILE and/or --ranks");
    if (type && !pyprof_writer_canonical(type))
        cli_usage_fail("unknown output type '%s'", type);
    if (format && !pyprof_format_canonical(format))
        cli_usage_fail("unknown input format '%s'", format);
    if (output && ranks && strcmp(output, "-") == 0 && strcmp(ranks_output, "-") == 0)
        cli_usage_fail("the merged profile and the --ranks report cannot both go to stdout");

    cc_list inputs = {0};
    for (int i = optind; i < argc; i++) {
        if (!cc_expand_input(&inputs, argv[i])) {
            cc_list_free(&inputs);
            return CLI_EXIT_USAGE;
        }
    }
    if (!cli_output_is_safe(output, inputs.items, (int)inputs.n) ||
        (ranks && !cli_output_is_safe(ranks_output, inputs.items, (int)inputs.n))) {
        cc_list_free(&inputs);
        return CLI_EXIT_USAGE;
    }

    struct ranks_ctx rc = {NULL};
    if (ranks && pyprof_ranks_new(&rc.ranks) < 0) {
        cli_errorf("out of memory");
        cc_list_free(&inputs);
        return CLI_EXIT_DATA;
    }
    pyprof_profile *p = NULL;
    int status =
        cc_load_merged(&p, inputs.items, inputs.n, format, true, ranks ? add_rank : NULL, &rc);
    if (status != CLI_EXIT_OK)
        goto done;

    if (output) {
        pyprof_write_options wo = PYPROF_WRITE_OPTIONS_INIT;
        const pyprof_source *src = pyprof_profile_source(p, 0);
        const char *kind = pyprof_profile_string(p, src->format);
        if (type)
            type = pyprof_writer_canonical(type);
        else if (!(type = pyprof_writer_from_path(output)))
            type = pyprof_writer_canonical(kind);
        if (!type) {
            cli_errorf("%s: cannot write merged %s profiles in their own format; choose an "
                       "output type with -t (json, csv, ...)",
                       output, kind);
            status = CLI_EXIT_USAGE;
            goto done;
        }
        if ((status = cc_write_profile(p, output, type, &wo, quiet)) != CLI_EXIT_OK)
            goto done;
    }
    if (ranks)
        status = write_ranks(rc.ranks, ranks_output, ranks_type, limit);
done:
    pyprof_ranks_free(rc.ranks);
    pyprof_profile_free(p);
    cc_list_free(&inputs);
    return status;
}
