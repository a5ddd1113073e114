/*
 * pyprof-dot - call graphs as gprof2dot draws them, as DOT text or, through
 * Graphviz, as PNG, SVG or PDF.  Options keep gprof2dot's names and
 * defaults; see pyprof-dot.1.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void
usage(void)
{
    printf("Usage: pyprof-dot [OPTIONS] FILE...\n"
           "Draw the call graph of a profile as gprof2dot does: DOT text, or an image.\n"
           "\n"
           "  -o, --output FILE          write to FILE (default: stdout); the type follows its\n"
           "                             extension unless -T is given\n"
           "  -T, --type TYPE            dot (default), png, svg or pdf\n"
           "  -K, --engine ENGINE        Graphviz layout engine for images (default: dot)\n"
           "  -f, --format FORMAT        input format (pstats, collapse, ...; default: probe)\n"
           "  -n, --node-thres PCT       drop nodes below PCT%% of the total (default: 0.5)\n"
           "  -e, --edge-thres PCT       drop edges below PCT%% of the total (default: 0.1)\n"
           "  -c, --colormap NAME        color (default), pink, gray, bw or print\n"
           "  -s, --strip                strip C++ argument lists and templates from names\n"
           "  -w, --wrap                 wrap long function names\n"
           "      --skew S               skew the colour curve (default: 1.0)\n"
           "  -z, --root PATTERN         show only descendants of matching functions\n"
           "  -l, --leaf PATTERN         show only ancestors of matching functions\n"
           "      --depth N              with -z/-l: at most N calls away (default: no limit)\n"
           "  -p, --path PREFIX          keep only functions whose file starts with PREFIX\n"
           "                             (repeatable)\n"
           "      --color-nodes-by-selftime  colour nodes by self time, not total time\n"
           "      --show-samples         show sample counts (sampled profiles)\n"
           "      --node-label MEASURE   total-time-percentage, self-time-percentage,\n"
           "                             total-time or self-time (repeatable)\n"
           "      --total METHOD         callratios (default) or callstacks, for sampled\n"
           "                             profiles\n"
           "      --compare              compare two profiles: FILE1 FILE2\n"
           "      --max-nodes N          keep only the N heaviest nodes (and 2N calls)\n"
           "      --focus REGEX          keep only paths through matching functions\n"
           "      --ignore REGEX         drop matching functions\n"
           "  -h, --help                 show this help\n" CLI_LIMIT_HELP
           "      --version              show the version\n"
           "\n"
           "Example:\n"
           "  pyprof-dot -f pstats prof.pstats | dot -Tpng -o graph.png\n"
           "  pyprof-dot -n 1 -o graph.svg prof.pstats\n");
}

enum {
    OPT_SKEW = 256,
    OPT_DEPTH,
    OPT_SELFTIME,
    OPT_SHOW_SAMPLES,
    OPT_NODE_LABEL,
    OPT_TOTAL,
    OPT_COMPARE,
    OPT_MAX_NODES,
    OPT_FOCUS,
    OPT_IGNORE
};

static const struct option long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"type", required_argument, NULL, 'T'},
    {"engine", required_argument, NULL, 'K'},
    {"format", required_argument, NULL, 'f'},
    {"node-thres", required_argument, NULL, 'n'},
    {"edge-thres", required_argument, NULL, 'e'},
    {"colormap", required_argument, NULL, 'c'},
    {"strip", no_argument, NULL, 's'},
    {"wrap", no_argument, NULL, 'w'},
    {"skew", required_argument, NULL, OPT_SKEW},
    {"root", required_argument, NULL, 'z'},
    {"leaf", required_argument, NULL, 'l'},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"path", required_argument, NULL, 'p'},
    {"color-nodes-by-selftime", no_argument, NULL, OPT_SELFTIME},
    {"colour-nodes-by-selftime", no_argument, NULL, OPT_SELFTIME},
    {"show-samples", no_argument, NULL, OPT_SHOW_SAMPLES},
    {"node-label", required_argument, NULL, OPT_NODE_LABEL},
    {"total", required_argument, NULL, OPT_TOTAL},
    {"compare", no_argument, NULL, OPT_COMPARE},
    {"max-nodes", required_argument, NULL, OPT_MAX_NODES},
    {"focus", required_argument, NULL, OPT_FOCUS},
    {"ignore", required_argument, NULL, OPT_IGNORE},
    CLI_COMMON_LONGOPTS,
    {NULL, 0, NULL, 0},
};

static double
parse_double(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        cli_usage_fail("%s: not a number: '%s'", opt, s);
    return v;
}

static long
parse_long(const char *opt, const char *s, long min)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min)
        cli_usage_fail("%s: not a whole number >= %ld: '%s'", opt, min, s);
    return v;
}

/* Load FILE and, as pstats.Stats(a, b, c) does, add the others to it: the
 * first, then the rest in reverse order (Stats.add walks its arguments
 * backwards). */
static int
load_all(pyprof_profile **out, char **files, int n, const pyprof_read_options *ro)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *p = NULL;
    if (pyprof_profile_load(&p, files[0], ro, &err) < 0) {
        cli_error(&err);
        return -1;
    }
    for (int i = n - 1; i >= 1; i--) {
        pyprof_profile *q = NULL;
        if (pyprof_profile_load(&q, files[i], ro, &err) < 0 ||
            pyprof_profile_merge(p, q, &err) < 0) {
            if (!err.source[0])
                snprintf(err.source, sizeof err.source, "%s", files[i]);
            cli_error(&err);
            pyprof_profile_free(q);
            pyprof_profile_free(p);
            return -1;
        }
        pyprof_profile_free(q);
    }
    *out = p;
    return 0;
}

int
main(int argc, char **argv)
{
    pyprof_dot_options o = PYPROF_DOT_OPTIONS_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    const char *output = "-", *type = NULL;
    const char **paths = NULL;
    size_t nlabels = 0;
    bool compare = false;
    int c;

    cli_init("pyprof-dot");
    cli_huge_heap();
    paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) {
        cli_errorf("out of memory");
        return CLI_EXIT_DATA;
    }
    while ((c = getopt_long(argc, argv, ":o:T:K:f:n:e:c:swz:l:p:h", long_options, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'T':
            type = optarg;
            break;
        case 'K':
            o.engine = optarg;
            break;
        case 'f':
            /* gprof2dot's names are ours, or aliases of ours ("collapse") */
            ro.format = pyprof_format_canonical(optarg);
            if (!ro.format)
                cli_usage_fail("-f: unknown format '%s'", optarg);
            break;
        case 'n':
            o.node_thres = parse_double("--node-thres", optarg);
            break;
        case 'e':
            o.edge_thres = parse_double("--edge-thres", optarg);
            break;
        case 'c': {
            int m = pyprof_dot_colormap_parse(optarg);
            if (m < 0)
                cli_usage_fail("--colormap: unknown colormap '%s' (color, pink, gray, bw, print)",
                               optarg);
            o.colormap = (pyprof_dot_colormap)m;
            break;
        }
        case 's':
            o.strip = 1;
            break;
        case 'w':
            o.wrap = 1;
            break;
        case OPT_SKEW:
            o.skew = parse_double("--skew", optarg);
            if (!(o.skew > 0.0))
                cli_usage_fail("--skew: must be greater than 0");
            break;
        case 'z':
            o.root = optarg;
            break;
        case 'l':
            o.leaf = optarg;
            break;
        case OPT_DEPTH:
            o.depth = (int)parse_long("--depth", optarg, -1);
            break;
        case 'p':
            paths[o.npaths++] = optarg;
            break;
        case OPT_SELFTIME:
            o.color_nodes_by_selftime = 1;
            break;
        case OPT_SHOW_SAMPLES:
            o.show_samples = 1;
            break;
        case OPT_NODE_LABEL: {
            int m = pyprof_dot_measure_parse(optarg);
            if (!m)
                cli_usage_fail("--node-label: unknown measure '%s' (total-time-percentage, "
                               "self-time-percentage, total-time, self-time)",
                               optarg);
            if (nlabels == PYPROF_DOT_MAX_MEASURES)
                cli_usage_fail("--node-label: at most %d measures", PYPROF_DOT_MAX_MEASURES);
            o.node_labels[nlabels++] = (pyprof_dot_measure)m;
            break;
        }
        case OPT_TOTAL:
            if (strcmp(optarg, "callratios") == 0)
                o.total = PYPROF_DOT_TOTAL_CALLRATIOS;
            else if (strcmp(optarg, "callstacks") == 0)
                o.total = PYPROF_DOT_TOTAL_CALLSTACKS;
            else
                cli_usage_fail("--total: callratios or callstacks, not '%s'", optarg);
            break;
        case OPT_COMPARE:
            compare = true;
            break;
        case OPT_MAX_NODES:
            o.max_nodes = (size_t)parse_long("--max-nodes", optarg, 1);
            break;
        case OPT_FOCUS:
            o.focus = optarg;
            break;
        case OPT_IGNORE:
            o.ignore = optarg;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, long_options, usage);
            break;
        }
    }
    cli_read_options(&ro);
    o.paths = paths;
    char **files = argv + optind;
    int nfiles = argc - optind;
    if (nfiles < 1)
        cli_usage_fail("no input file");
    if (compare && nfiles != 2)
        cli_usage_fail("--compare takes exactly two files");
    if (!type)
        type = cli_type_from_path(strcmp(output, "-") == 0 ? NULL : output);
    if (!type)
        type = "dot";
    if (strcmp(type, "dot") && strcmp(type, "png") && strcmp(type, "svg") && strcmp(type, "pdf"))
        cli_usage_fail("-T: unknown type '%s' (dot, png, svg or pdf)", type);
    o.type = type;
    if (!cli_output_is_safe(output, files, nfiles))
        return CLI_EXIT_USAGE;

    int status = CLI_EXIT_DATA;
    pyprof_profile *a = NULL, *b = NULL;
    pyprof_output *out = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (compare) {
        if (load_all(&a, files, 1, &ro) < 0 || load_all(&b, files + 1, 1, &ro) < 0)
            goto out;
    } else if (load_all(&a, files, nfiles, &ro) < 0) {
        goto out;
    }
    if (pyprof_output_open_file(&out, output, &err) < 0) {
        cli_error(&err);
        goto out;
    }
    int rc = compare ? pyprof_dot_render_compare(a, b, &o, out, &err)
                     : pyprof_dot_render(a, &o, out, &err);
    if (rc < 0) {
        pyprof_output_abort(out);
        out = NULL;
        if (!err.source[0] && !compare)
            snprintf(err.source, sizeof err.source, "%s", files[0]);
        cli_error(&err);
        /* a bad pattern or expression is the caller's mistake */
        status = rc == PYPROF_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_DATA;
        goto out;
    }
    rc = pyprof_output_commit(out, &err);
    out = NULL;
    if (rc < 0) {
        cli_error(&err);
        goto out;
    }
    status = CLI_EXIT_OK;
out:
    pyprof_output_abort(out);
    pyprof_profile_free(a);
    pyprof_profile_free(b);
    free(paths);
    return status;
}
