/*
 * pyprof-stats - sorted, filtered function tables of profiles, the
 * `python -m pstats` of libpyprof.
 *
 *     pyprof-stats [OPTIONS] FILE... [COMMAND ARGS...]...
 *
 * Files come first, then commands of the pstats browser: sort KEY...,
 * reverse, stats [RESTRICTION...], callers, callees, strip, add FILE,
 * read FILE.  Restrictions right after `sort KEY...` print the table
 * (`sort cumtime 20`).  With no command the whole table is printed in file
 * order; on a terminal, with no command, the interactive browser starts
 * (with -i, also on a pipe: commands piped in, as to python -m pstats).
 * The whole command line is checked before anything runs, so a usage
 * error (exit 2) never follows partial output.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stats_cli.h"

static const char *const commands[] = {"sort",    "reverse", "stats", "callers",
                                       "callees", "strip",   "add",   "read"};

bool
stats_is_command(const char *word)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(word, commands[i]) == 0)
            return true;
    return false;
}

int
stats_session_read(struct stats_session *s, const char *path, pyprof_error *err)
{
    pyprof_stats *st;
    int rc = pyprof_stats_load(&st, &path, 1, &s->opts, err);
    if (rc < 0)
        return rc;
    pyprof_stats_free(s->st);
    s->st = st;
    return 0;
}

static void
usage(void)
{
    printf("Usage: pyprof-stats [OPTIONS] FILE... [COMMAND [ARG...]]...\n"
           "Print the function tables of profiles as Python's pstats does.\n"
           "\n"
           "Options (before the commands):\n"
           "  -f, --format NAME   read the inputs as NAME (default: probe; pstats, ...)\n"
           "  -o, --output FILE   write to FILE atomically instead of standard output\n"
           "      --json          export the table as JSON instead of text\n"
           "      --csv           export the table as CSV instead of text\n"
           "  -T, --type TYPE     txt, json or csv (default: from the -o extension)\n"
           "  -i, --interactive   run the browser even when standard input or output is\n"
           "                      not a terminal (commands piped in, as to python -m pstats)\n"
           "  -h, --help          show this help and exit\n" CLI_LIMIT_HELP
           "      --version       show version information and exit\n"
           "\n"
           "Commands (as in the python -m pstats browser):\n"
           "  sort KEY... [RESTRICTION...]  sort by the keys, primary first; restrictions\n"
           "                      right after the keys also print the table\n"
           "  reverse             reverse the sorted order\n"
           "  stats [RESTRICTION...]   print the table (print_stats)\n"
           "  callers [RESTRICTION...] print who called each function (print_callers)\n"
           "  callees [RESTRICTION...] print what each function called (print_callees)\n"
           "  strip               strip directories from file names (strip_dirs)\n"
           "  add FILE            add another profile\n"
           "  read FILE           replace the profile by FILE\n"
           "\n"
           "Sort keys, or any unique prefix: calls ncalls cumtime cumulative filename\n"
           "line module name nfl pcalls stdname time tottime; also -1, 0, 1, 2 as the\n"
           "only key (stdname, calls, time, cumulative).  A RESTRICTION is a count, a\n"
           "fraction in [0, 1], or a Python regular expression searched in each\n"
           "function's name; several apply in order.  Several FILEs merge as\n"
           "pstats.Stats(F1, F2, F3) does (F1, then F3, then F2).  With no command the\n"
           "whole table is printed in file order (and if no command prints, the\n"
           "table is printed at the end); with no command on a terminal the\n"
           "interactive browser starts.  A command word as a file name: write ./stats.\n"
           "\n"
           "Beyond pstats: Python 2 files are read (Python 3's pstats cannot), and\n"
           "pure-Python profile files sort by name (pstats raises TypeError comparing\n"
           "their code-object key): such names compare as the text they print as.\n"
           "\n"
           "Example:\n"
           "  pyprof-stats prog.prof sort cumtime 20\n"
           "  pyprof-stats a.prof b.prof strip sort time callers 10 'fib'\n");
}

/* ---- the command line -------------------------------------------------------------- */

enum cmd_kind { C_SORT, C_REVERSE, C_STATS, C_CALLERS, C_CALLEES, C_STRIP, C_ADD, C_READ };

struct cmd {
    enum cmd_kind kind;
    char **words; /* sort keys, or the file name */
    int nwords;
    int legacy; /* sort: an integer key, or -2 */
    pyprof_stats_restriction *restr;
    int nrestr;
    bool print; /* sort followed by restrictions */
};

static bool
legacy_key(const char *w, int *out)
{
    static const char *const ints[] = {"-1", "0", "1", "2"};
    for (int i = 0; i < 4; i++)
        if (strcmp(w, ints[i]) == 0) {
            *out = i - 1;
            return true;
        }
    return false;
}

/* Restriction words up to the next command word. */
static void
take_restrictions(struct cmd *c, char **argv, int argc, int *i)
{
    c->restr = calloc((size_t)argc, sizeof *c->restr);
    if (!c->restr)
        cli_usage_fail("out of memory");
    while (*i < argc && !stats_is_command(argv[*i])) {
        pyprof_error err = PYPROF_ERROR_INIT;
        if (pyprof_stats_restriction_parse(&c->restr[c->nrestr], argv[*i], &err) < 0)
            cli_usage_fail("%s: %s", argv[*i], err.message);
        c->nrestr++;
        (*i)++;
    }
}

/* The commands in argv[0..argc), into *out (*ncmds of them).  A word
 * refused exits through cli_usage_fail; *out is set first, so that what
 * was parsed is still reachable then (from the caller's variable, whose
 * address it has), not a leak for LeakSanitizer. */
static void
parse_commands(char **argv, int argc, struct cmd **out, int *ncmds)
{
    struct cmd *cmds = *out = calloc((size_t)argc + 1, sizeof *cmds);
    if (!cmds)
        cli_usage_fail("out of memory");
    int n = 0, i = 0;
    while (i < argc) {
        const char *w = argv[i++];
        struct cmd *c = &cmds[n++];
        c->legacy = -2;
        if (strcmp(w, "sort") == 0) {
            c->kind = C_SORT;
            c->words = &argv[i];
            while (i < argc && !stats_is_command(argv[i]) &&
                   pyprof_stats_sort_key_lookup(argv[i])) {
                c->nwords++;
                i++;
            }
            if (c->nwords == 0) {
                if (i < argc && legacy_key(argv[i], &c->legacy)) {
                    i++;
                } else {
                    cli_errorf("sort needs a key: %s", i < argc ? argv[i] : "(none)");
                    fprintf(stderr, "Valid sort keys (unique prefixes are accepted):\n");
                    for (size_t k = 0; k < pyprof_stats_sort_key_count(); k++)
                        fprintf(stderr, "%s -- %s\n", pyprof_stats_sort_key_name(k),
                                pyprof_stats_sort_key_description(k));
                    exit(CLI_EXIT_USAGE);
                }
            }
            take_restrictions(c, argv, argc, &i);
            c->print = c->nrestr > 0;
        } else if (strcmp(w, "stats") == 0 || strcmp(w, "callers") == 0 ||
                   strcmp(w, "callees") == 0) {
            c->kind = w[0] == 's' ? C_STATS : strcmp(w, "callers") == 0 ? C_CALLERS : C_CALLEES;
            take_restrictions(c, argv, argc, &i);
        } else if (strcmp(w, "reverse") == 0) {
            c->kind = C_REVERSE;
        } else if (strcmp(w, "strip") == 0) {
            c->kind = C_STRIP;
        } else if (strcmp(w, "add") == 0 || strcmp(w, "read") == 0) {
            c->kind = w[0] == 'a' ? C_ADD : C_READ;
            if (i >= argc)
                cli_usage_fail("%s needs a FILE", w);
            c->words = &argv[i++];
            c->nwords = 1;
        } else {
            cli_usage_fail("unknown command '%s' (files come before the commands)", w);
        }
    }
    *ncmds = n;
}

/* ---- running ------------------------------------------------------------------------- */

enum { EXPORT_NONE = -1 };

static int
print_table(struct stats_session *s, int export, enum cmd_kind kind,
            const pyprof_stats_restriction *r, size_t n, pyprof_error *err)
{
    if (export != EXPORT_NONE)
        return pyprof_stats_export(s->st, s->out, export, kind != C_STATS, r, n, err);
    if (kind == C_CALLERS)
        return pyprof_stats_print_callers(s->st, s->out, r, n, err);
    if (kind == C_CALLEES)
        return pyprof_stats_print_callees(s->st, s->out, r, n, err);
    return pyprof_stats_print(s->st, s->out, r, n, err);
}

static void
free_commands(struct cmd *cmds, int ncmds)
{
    for (int i = 0; i < ncmds; i++)
        free(cmds[i].restr);
    free(cmds);
}

static int
run(struct stats_session *s, struct cmd *cmds, int ncmds, int export, pyprof_error *err)
{
    bool printed = false;
    int rc = 0;
    for (int i = 0; i < ncmds && rc == 0; i++) {
        struct cmd *c = &cmds[i];
        switch (c->kind) {
        case C_SORT:
            rc = c->legacy >= -1 ? pyprof_stats_sort_legacy(s->st, c->legacy, err)
                                 : pyprof_stats_sort(s->st, (const char *const *)c->words,
                                                     (size_t)c->nwords, err);
            if (rc == 0 && c->print) {
                rc = print_table(s, export, C_STATS, c->restr, (size_t)c->nrestr, err);
                printed = true;
            }
            break;
        case C_REVERSE:
            pyprof_stats_reverse(s->st);
            break;
        case C_STATS:
        case C_CALLERS:
        case C_CALLEES:
            rc = print_table(s, export, c->kind, c->restr, (size_t)c->nrestr, err);
            printed = true;
            break;
        case C_STRIP:
            rc = pyprof_stats_strip_dirs(s->st, err);
            break;
        case C_ADD:
            rc = pyprof_stats_add_file(s->st, c->words[0], &s->opts, err);
            break;
        case C_READ:
            rc = stats_session_read(s, c->words[0], err);
            break;
        }
    }
    if (rc == 0 && !printed)
        rc = print_table(s, export, C_STATS, NULL, 0, err);
    return rc;
}

/* Index of the first command word, skipping option values. */
static int
first_command(int argc, char **argv)
{
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (options && strcmp(a, "--") == 0) {
            options = false;
            continue;
        }
        if (options && (strcmp(a, "-f") == 0 || strcmp(a, "--format") == 0 ||
                        strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
            i++;
            continue;
        }
        if (options && a[0] == '-' && a[1])
            continue;
        if (stats_is_command(a))
            return i;
    }
    return argc;
}

int
main(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_CSV };
    bool interactive = false;
    const char *type = NULL;
    static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"csv", no_argument, NULL, OPT_CSV},
                                             {"type", required_argument, NULL, 'T'},
                                             {"interactive", no_argument, NULL, 'i'},
                                             CLI_COMMON_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    struct stats_session s = {NULL, PYPROF_READ_OPTIONS_INIT, NULL};
    const char *output = NULL;
    int export = EXPORT_NONE, opt;

    cli_init("pyprof-stats");
    cli_huge_heap();
    int cmd_at = first_command(argc, argv);
    while ((opt = getopt_long(cmd_at, argv, ":f:o:T:ih", longopts, NULL)) != -1) {
        switch (opt) {
        case 'f':
            if (!pyprof_format_canonical(optarg))
                cli_usage_fail("unknown format '%s'", optarg);
            s.opts.format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'T':
            type = optarg;
            break;
        case 'i':
            interactive = true;
            break;
        case OPT_JSON:
            export = PYPROF_STATS_JSON;
            break;
        case OPT_CSV:
            export = PYPROF_STATS_CSV;
            break;
        default: /* --help, --version, the limits; or refused */
            cli_common_option(opt, argv, longopts, usage);
            break;
        }
    }
    cli_read_options(&s.opts);
    /* -T, else the extension of -o (.json, .csv), picks the export (cli.md) */
    if (type && strcmp(type, "txt") != 0 && strcmp(type, "json") != 0 && strcmp(type, "csv") != 0)
        cli_usage_fail("unknown output type '%s' (txt, json or csv)", type);
    if (!type && output && export == EXPORT_NONE)
        type = cli_type_from_path(output);
    if (type && strcmp(type, "json") == 0)
        export = PYPROF_STATS_JSON;
    else if (type && strcmp(type, "csv") == 0)
        export = PYPROF_STATS_CSV;
    char **files = &argv[optind];
    int nfiles = cmd_at - optind;
    bool has_cmds = cmd_at < argc;

    /* -i: the browser reads its commands from a pipe too, as python -m
     * pstats does (`printf 'sort time\nstats 5\n' | pyprof-stats -i F`);
     * without it a pipe or file on stdin is not read, so that a script's
     * `pyprof-stats F | head` never waits for input.  (The arguments are
     * checked before anything is allocated: a usage error exits at once.) */
    if (interactive && (has_cmds || output || export != EXPORT_NONE || type))
        cli_usage_fail("-i takes commands from standard input only, and prints text to "
                       "standard output: no commands, -o, -T, --json or --csv with it");
    bool browse =
        interactive || (!has_cmds && !output && export == EXPORT_NONE && isatty(0) && isatty(1));
    if (nfiles == 0 && !browse)
        cli_usage_fail("no input files");

    int ncmds = 0;
    struct cmd *cmds;
    parse_commands(&argv[cmd_at], argc - cmd_at, &cmds, &ncmds);
    for (int i = 0; export == PYPROF_STATS_CSV && i < ncmds; i++)
        if (cmds[i].kind == C_CALLERS || cmds[i].kind == C_CALLEES) {
            free_commands(cmds, ncmds);
            cli_usage_fail("--csv exports the stats table only; use --json for callers");
        }

    /* every file the commands read counts as an input -o must not replace */
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    int ninputs = 0;
    if (!inputs)
        cli_usage_fail("out of memory");
    for (int i = 0; i < nfiles; i++)
        inputs[ninputs++] = files[i];
    for (int i = 0; i < ncmds; i++)
        if (cmds[i].kind == C_ADD || cmds[i].kind == C_READ)
            inputs[ninputs++] = cmds[i].words[0];
    int status = CLI_EXIT_OK;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (output && !cli_output_is_safe(output, inputs, ninputs)) {
        status = CLI_EXIT_USAGE;
    } else if (pyprof_output_open_file(&s.out, output ? output : "-", &err) < 0) {
        cli_error(&err);
        status = CLI_EXIT_DATA;
    } else if (browse) {
        status = stats_browser_run(&s, files, nfiles);
        pyprof_output_commit(s.out, NULL);
    } else {
        int rc =
            pyprof_stats_load(&s.st, (const char *const *)files, (size_t)nfiles, &s.opts, &err);
        if (rc == 0)
            rc = run(&s, cmds, ncmds, export, &err);
        if (rc < 0) {
            pyprof_output_abort(s.out);
            cli_error(&err);
        } else if ((rc = pyprof_output_commit(s.out, &err)) < 0) {
            cli_error(&err);
        }
        status = rc < 0 ? CLI_EXIT_DATA : CLI_EXIT_OK;
    }
    free_commands(cmds, ncmds);
    free(inputs);
    pyprof_stats_free(s.st);
    return status;
}
