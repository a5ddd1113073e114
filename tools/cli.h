/*
 * cli.h - what the pyprof-* tools share: messages in the family's one
 * format, exit codes, --version, and the guard against writing over inputs.
 * (docs: ../shared/docs/cli.md; not part of the library's API)
 */
#ifndef PYPROF_CLI_H
#define PYPROF_CLI_H

#include <pyprof/pyprof.h>
#include <stdbool.h>
#include <stdio.h>

/* Exit codes of every tool. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_DATA = 1, CLI_EXIT_USAGE = 2 };

/* Set the tool name used as the message prefix (e.g. "pyprof-stats"),
 * have SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files of
 * unfinished outputs before they end the program, keep getopt's own
 * messages off (cli_common_option gives the family's), and set glibc's
 * malloc to grow its heap in bigger steps, with one arena for all
 * threads (cli.c says why). */
void cli_init(const char *tool);
/* Have malloc's heap come in 2 MiB pages where the kernel allows (cli.c
 * says why): for a tool that may read one big profile, called once, right
 * after cli_init.  Only a hint; it costs address space, and memory in
 * 2 MiB steps as the heap is used. */
void cli_huge_heap(void);
const char *cli_tool(void);

/* "TOOL: FILE: offset N: reason" on stderr, one line. */
void cli_error(const pyprof_error *err);
/* "TOOL: reason" on stderr. */
void cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "TOOL: warning: reason" on stderr. */
void cli_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "TOOL: reason" and "Try 'TOOL --help'." on stderr, then exit(2). */
void cli_usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Print --version text to stdout: tool, package and library versions, features. */
void cli_print_version(void);

/* True if `a` and `b` name the same existing file (device and inode). */
bool cli_same_file(const char *a, const char *b);

/* If `output` is one of `inputs`, print an error and return false. */
bool cli_output_is_safe(const char *output, char *const *inputs, int ninputs);

/*
 * Give `ro` the family's progress bar: when stderr is a terminal and an input
 * is larger than 64 MiB, one line on stderr with bytes read, rate and time
 * left, erased when the input is done.  Never when stderr is not a terminal.
 */
void cli_read_progress(pyprof_read_options *ro);

/*
 * The input limits every tool takes (the library's defaults protect against
 * hostile files; a user with a genuine giant profile raises them):
 *   --max-bytes SIZE   decoded bytes held in memory at once (K, M, G suffixes)
 *   --max-depth N      nesting of marshal/pickle data
 *   --max-ratio N      zstd expansion (decoded over compressed bytes)
 * Put CLI_COMMON_LONGOPTS (which has them) at the end of the tool's
 * getopt_long table and CLI_LIMIT_HELP in its --help text, let
 * cli_common_option() take them, and read with cli_read_options().
 */
enum { CLI_OPT_MAX_BYTES = 0x4C00, CLI_OPT_MAX_DEPTH, CLI_OPT_MAX_RATIO, CLI_OPT_VERSION };
#define CLI_LIMIT_LONGOPTS                                                                         \
    {"max-bytes", required_argument, NULL, CLI_OPT_MAX_BYTES},                                     \
        {"max-depth", required_argument, NULL, CLI_OPT_MAX_DEPTH},                                 \
    {                                                                                              \
        "max-ratio", required_argument, NULL, CLI_OPT_MAX_RATIO                                    \
    }
#define CLI_LIMIT_HELP                                                                             \
    "      --max-bytes SIZE  hold at most SIZE decoded bytes of an input in memory\n"              \
    "                        (K, M, G suffixes; default 1G)\n"                                     \
    "      --max-depth N     refuse marshal/pickle data nested deeper (default 2000)\n"            \
    "      --max-ratio N     refuse zstd data expanding more than N times (default 1000)\n"
/* The end of every tool's getopt_long table: the limits, --help (as -h) and
 * --version. */
#define CLI_COMMON_LONGOPTS                                                                        \
    CLI_LIMIT_LONGOPTS, {"help", no_argument, NULL, 'h'},                                          \
    {                                                                                              \
        "version", no_argument, NULL, CLI_OPT_VERSION                                              \
    }

/*
 * The default case of every tool's getopt_long switch (whose option string
 * begins with ':'): what the family's tools all do with -h/--help (print
 * `usage` to stdout, exit 0), --version (exit 0) and the limits (a bad
 * value exits 2); anything else getopt_long returned is refused in one
 * line, then exit 2: "TOOL: unknown option '--bogus'", "TOOL: option '-o'
 * needs an argument", "TOOL: option '--max' is ambiguous (--max-bytes,
 * --max-depth, --max-ratio)", with the --help hint.  `longopts` is the
 * table given to getopt_long.
 */
struct option;
void cli_common_option(int c, char *const argv[], const struct option *longopts,
                       void (*usage)(void));

/* The family's read options: progress bar (cli_read_progress) and limits. */
void cli_read_options(pyprof_read_options *ro);

/* Output type from the extension of `path` ("png", "svg", ...), or NULL. */
const char *cli_type_from_path(const char *path);

#endif
