/*
 * pyprof-flame - flame graphs (interactive SVG, or PNG) of folded stacks and
 * other profiles, with flamegraph.pl's options and defaults.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

#include "cli.h"

enum {
    OPT_TITLE = 256,
    OPT_SUBTITLE,
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_MINWIDTH,
    OPT_FONTTYPE,
    OPT_FONTSIZE,
    OPT_FONTWIDTH,
    OPT_COUNTNAME,
    OPT_NAMETYPE,
    OPT_COLORS,
    OPT_BGCOLORS,
    OPT_HASH,
    OPT_CP,
    OPT_REVERSE,
    OPT_INVERTED,
    OPT_FLAMECHART,
    OPT_NEGATE,
    OPT_FACTOR,
    OPT_TOTAL,
    OPT_NOTES,
    OPT_DIFF,
    OPT_NORMALIZE,
    OPT_VANISHED
};

static const struct option long_opts[] = {{"title", required_argument, NULL, OPT_TITLE},
                                          {"subtitle", required_argument, NULL, OPT_SUBTITLE},
                                          {"width", required_argument, NULL, OPT_WIDTH},
                                          {"height", required_argument, NULL, OPT_HEIGHT},
                                          {"minwidth", required_argument, NULL, OPT_MINWIDTH},
                                          {"fonttype", required_argument, NULL, OPT_FONTTYPE},
                                          {"fontsize", required_argument, NULL, OPT_FONTSIZE},
                                          {"fontwidth", required_argument, NULL, OPT_FONTWIDTH},
                                          {"countname", required_argument, NULL, OPT_COUNTNAME},
                                          {"nametype", required_argument, NULL, OPT_NAMETYPE},
                                          {"colors", required_argument, NULL, OPT_COLORS},
                                          {"colours", required_argument, NULL, OPT_COLORS},
                                          {"bgcolors", required_argument, NULL, OPT_BGCOLORS},
                                          {"bgcolours", required_argument, NULL, OPT_BGCOLORS},
                                          {"hash", no_argument, NULL, OPT_HASH},
                                          {"cp", no_argument, NULL, OPT_CP},
                                          {"reverse", no_argument, NULL, OPT_REVERSE},
                                          {"inverted", no_argument, NULL, OPT_INVERTED},
                                          {"flamechart", no_argument, NULL, OPT_FLAMECHART},
                                          {"negate", no_argument, NULL, OPT_NEGATE},
                                          {"factor", required_argument, NULL, OPT_FACTOR},
                                          {"total", required_argument, NULL, OPT_TOTAL},
                                          {"notes", required_argument, NULL, OPT_NOTES},
                                          {"diff", no_argument, NULL, OPT_DIFF},
                                          {"normalize", no_argument, NULL, OPT_NORMALIZE},
                                          {"vanished", no_argument, NULL, OPT_VANISHED},
                                          {"format", required_argument, NULL, 'f'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"type", required_argument, NULL, 'T'},
                                          CLI_COMMON_LONGOPTS,
                                          {NULL, 0, NULL, 0}};

static void
usage(void)
{
    printf("Usage: pyprof-flame [OPTIONS] FILE... [-o OUT.svg|OUT.png]\n"
           "       pyprof-flame --diff [OPTIONS] BEFORE AFTER\n"
           "Draw a flame graph of folded stacks (flamegraph.pl, py-spy, austin, pyflame)\n"
           "or of any profile (pstats: estimated from caller ratios), as interactive SVG\n"
           "(stdout by default) or PNG.\n"
           "\n"
           "  -o, --output FILE    write to FILE (type from its extension)\n"
           "  -T, --type TYPE      svg (default) or png\n"
           "  -f, --format NAME    input format (default: detected)\n"
           "      --title TEXT     title (Flame Graph / Icicle Graph / Flame Chart)\n"
           "      --subtitle TEXT  second title line\n"
           "      --width N        image width in px (1200)\n"
           "      --height N       frame height in px (16)\n"
           "      --minwidth X     omit frames narrower than X px, or X%% of the total (0.1)\n"
           "      --fonttype F     font family (Verdana)\n"
           "      --fontsize N     font size (12)\n"
           "      --fontwidth N    average glyph width / font size (0.59)\n"
           "      --countname T    count unit in tooltips (samples)\n"
           "      --nametype T     details prefix (Function:)\n"
           "      --colors P       palette: hot mem io wakeup chain java js perl red green\n"
           "                       blue aqua yellow purple orange (hot)\n"
           "      --bgcolors C     background: yellow blue green grey or #rrggbb\n"
           "      --hash           colour by name hash\n"
           "      --cp             consistent palette, read and updated in ./palette.map\n"
           "      --reverse        reverse stacks (leaf first) before merging\n"
           "      --inverted       icicle graph (root at the top)\n"
           "      --flamechart     keep first-seen order instead of sorting\n"
           "      --negate         swap differential colours\n"
           "      --factor F       multiply displayed counts (1)\n"
           "      --total N        total used for widths (default: the sum)\n"
           "      --notes TEXT     notes for the SVG\n"
           "      --diff           differential graph of two inputs: BEFORE AFTER\n"
           "      --normalize      with --diff, scale BEFORE to AFTER's total\n"
           "      --vanished       differential: also draw frames that shrank or vanished\n"
           "                       (widths max(BEFORE, AFTER) instead of AFTER)\n"
           "  -h, --help           this help\n" CLI_LIMIT_HELP
           "      --version        versions and built features\n"
           "\n"
           "Example: py-spy record --format raw -o prof.folded -- python app.py;\n"
           "         pyprof-flame prof.folded -o prof.svg\n");
}

static double
num_arg(const char *opt, const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v == v))
        cli_usage_fail("%s: not a number: '%s'", opt, s);
    return v;
}

/* Warn about the lines a reader counted as malformed. */
static void
warn_bad_lines(const char *path, const pyprof_profile *p)
{
    const char *bad = pyprof_profile_meta_get(p, "malformed_lines");
    if (!bad)
        return;
    const char *where = pyprof_profile_meta_get(p, "malformed_line_numbers");
    cli_warnf("%s: ignored %s line%s with invalid format (line%s %s%s)", path, bad,
              strcmp(bad, "1") ? "s" : "", strchr(where ? where : "", ',') ? "s" : "",
              where ? where : "?", strtoull(bad, NULL, 10) > 10 ? ", ..." : "");
}

/* `elide`: the read may cut stacks too narrow to draw (one input drawn
 * alone: merging and --diff need every frame) */
static int
load(pyprof_profile **out, const char *path, const char *format, double elide)
{
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    cli_read_options(&ro);
    pyprof_error err = PYPROF_ERROR_INIT;
    ro.format = format;
    ro.stack_elide_below = elide;
    if (pyprof_profile_load(out, path, &ro, &err) < 0) {
        cli_error(&err);
        return -1;
    }
    warn_bad_lines(path, *out);
    return 0;
}

int
main(int argc, char **argv)
{
    cli_init("pyprof-flame");
    cli_huge_heap();
    pyprof_flame_options fo = PYPROF_FLAME_OPTIONS_INIT;
    const char *format = NULL, *output = "-", *type = NULL;
    bool diff = false, normalize = false, countname_set = false;
    int c;
    while ((c = getopt_long(argc, argv, ":f:o:T:h", long_opts, NULL)) != -1) {
        switch (c) {
        case OPT_TITLE:
            fo.title = optarg;
            break;
        case OPT_SUBTITLE:
            fo.subtitle = optarg;
            break;
        case OPT_WIDTH:
            fo.width = num_arg("--width", optarg);
            if (!(fo.width > 20))
                cli_usage_fail("--width must be more than 20");
            break;
        case OPT_HEIGHT:
            fo.height = num_arg("--height", optarg);
            if (!(fo.height > 0))
                cli_usage_fail("--height must be positive");
            break;
        case OPT_MINWIDTH: {
            size_t n = strlen(optarg);
            char buf[64];
            if (n && optarg[n - 1] == '%' && n < sizeof buf) {
                memcpy(buf, optarg, n - 1);
                buf[n - 1] = '\0';
                fo.minwidth = num_arg("--minwidth", buf);
                fo.minwidth_percent = 1;
            } else {
                fo.minwidth = num_arg("--minwidth", optarg);
            }
            if (!(fo.minwidth >= 0))
                cli_usage_fail("--minwidth must not be negative");
            break;
        }
        case OPT_FONTTYPE:
            fo.fonttype = optarg;
            break;
        case OPT_FONTSIZE:
            fo.fontsize = num_arg("--fontsize", optarg);
            if (!(fo.fontsize > 0))
                cli_usage_fail("--fontsize must be positive");
            break;
        case OPT_FONTWIDTH:
            fo.fontwidth = num_arg("--fontwidth", optarg);
            if (!(fo.fontwidth > 0))
                cli_usage_fail("--fontwidth must be positive");
            break;
        case OPT_COUNTNAME:
            fo.countname = optarg;
            countname_set = true;
            break;
        case OPT_NAMETYPE:
            fo.nametype = optarg;
            break;
        case OPT_COLORS:
            fo.colors = optarg;
            break;
        case OPT_BGCOLORS:
            fo.bgcolors = optarg;
            break;
        case OPT_HASH:
            fo.hash = 1;
            break;
        case OPT_CP:
            fo.cp_file = "palette.map";
            break;
        case OPT_REVERSE:
            fo.reverse = 1;
            break;
        case OPT_INVERTED:
            fo.inverted = 1;
            break;
        case OPT_FLAMECHART:
            fo.flamechart = 1;
            break;
        case OPT_NEGATE:
            fo.negate = 1;
            break;
        case OPT_FACTOR:
            fo.factor = num_arg("--factor", optarg);
            if (fo.factor == 0)
                cli_usage_fail("--factor must not be 0");
            break;
        case OPT_TOTAL:
            fo.total = num_arg("--total", optarg);
            break;
        case OPT_NOTES:
            if (strpbrk(optarg, "<>"))
                cli_usage_fail("--notes must not contain < or >");
            fo.notes = optarg;
            break;
        case OPT_DIFF:
            diff = true;
            break;
        case OPT_NORMALIZE:
            normalize = true;
            break;
        case OPT_VANISHED:
            fo.diff_vanished = 1;
            break;
        case 'f':
            if (!pyprof_format_canonical(optarg))
                cli_usage_fail("unknown format '%s'", optarg);
            format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'T':
            if (strcmp(optarg, "svg") && strcmp(optarg, "png"))
                cli_usage_fail("unknown output type '%s' (svg or png)", optarg);
            type = optarg;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(c, argv, long_opts, usage);
            break;
        }
    }
    int nin = argc - optind;
    char **inputs = argv + optind;
    if (nin < 1)
        cli_usage_fail("no input file");
    if (diff && nin != 2)
        cli_usage_fail("--diff needs exactly two files: BEFORE AFTER");
    if (!type) {
        const char *t = strcmp(output, "-") ? cli_type_from_path(output) : NULL;
        type = t && strcmp(t, "png") == 0 ? "png" : "svg";
    }
    if (!cli_output_is_safe(output, inputs, nin))
        return CLI_EXIT_USAGE;

    pyprof_profile *p = NULL, *q = NULL;
    int status = CLI_EXIT_DATA;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (load(&p, inputs[0], format, nin == 1 ? pyprof_flame_elide_fraction(&fo) : 0) < 0)
        goto out;
    for (int i = 1; i < nin; i++) {
        if (load(&q, inputs[i], format, 0) < 0)
            goto out;
        if (diff) {
            pyprof_profile *d;
            if (pyprof_profile_diff_stacks(&d, p, q, normalize, &err) < 0) {
                cli_error(&err);
                goto out;
            }
            pyprof_profile_free(p);
            p = d;
        } else if (pyprof_profile_merge(p, q, &err) < 0) {
            cli_error(&err);
            goto out;
        }
        pyprof_profile_free(q);
        q = NULL;
    }
    if (!(pyprof_profile_caps(p) & PYPROF_CAP_STACKS) &&
        !pyprof_profile_meta_get(p, "stack_root_weight")) {
        if (pyprof_profile_caps(p) & PYPROF_CAP_FUNCS) {
            if (pyprof_profile_estimate_stacks(p, 0, &err) < 0) {
                cli_error(&err);
                goto out;
            }
            cli_warnf("%s has no sampled stacks: drawing stacks estimated from caller ratios",
                      inputs[0]);
            if (!countname_set)
                fo.countname = "us";
        } else {
            /* point at the first malformed line when that is why */
            const char *bad = pyprof_profile_meta_get(p, "malformed_line_numbers");
            if (bad)
                cli_errorf("%s: line %.*s: no stacks to draw: no line is a valid stack", inputs[0],
                           (int)strcspn(bad, ","), bad);
            else
                cli_errorf("%s: no stacks to draw (no stack lines in the input)", inputs[0]);
            goto out;
        }
    }
    pyprof_output *o;
    if (pyprof_output_open_file(&o, output, &err) < 0) {
        cli_error(&err);
        goto out;
    }
    if (pyprof_render_flame(p, &fo, type, o, &err) < 0) {
        pyprof_output_abort(o);
        cli_error(&err);
        goto out;
    }
    if (pyprof_output_commit(o, &err) < 0) {
        cli_error(&err);
        goto out;
    }
    status = CLI_EXIT_OK;
out:
    pyprof_profile_free(p);
    pyprof_profile_free(q);
    return status;
}
