/*
 * stats_browser.c - the interactive browser of pyprof-stats, a copy of
 * `python -m pstats` (formats.md 4.8): the same prompt ("% ", or "FILE% "
 * once a file is read), the same commands, messages and help texts, and
 * the behaviour of Python's cmd module (an empty line repeats the last
 * command, "?" means help, unknown input is "*** Unknown syntax").
 *
 * Line editing, history and completion come from libedit through its
 * readline-compatible interface: Tab completes command names, sort keys
 * after "sort", topics after "help", and file names after "read"/"add".
 *
 * Where pstats would crash (a corrupt file given to "add"), the browser
 * prints the error and carries on.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline.h>

#include "cli.h"
#include "stats_cli.h"

/* Python's cmd lists the do_* methods in this (sorted) order. */
static const char *const topics[] = {"EOF",  "add",     "callees", "callers", "help", "quit",
                                     "read", "reverse", "sort",    "stats",   "strip"};
#define NTOPICS (sizeof topics / sizeof topics[0])

static struct stats_session *session;
static char prompt[4096] = "% ";

static void
say(const char *s)
{
    pyprof_output_puts(session->out, s);
}

static void
generic_help(void)
{
    say("Arguments may be:\n"
        "* An integer maximum number of entries to print.\n"
        "* A decimal fractional number between 0 and 1, controlling\n"
        "  what fraction of selected entries to print.\n"
        "* A regular expression; only entries with function names\n"
        "  that match it are printed.\n");
}

static bool
help_on(const char *topic)
{
    if (strcmp(topic, "add") == 0)
        say("Add profile info from given file to current statistics object.\n");
    else if (strcmp(topic, "callees") == 0)
        say("Print callees statistics from the current stat object.\n"), generic_help();
    else if (strcmp(topic, "callers") == 0)
        say("Print callers statistics from the current stat object.\n"), generic_help();
    else if (strcmp(topic, "EOF") == 0 || strcmp(topic, "quit") == 0)
        say("Leave the profile browser.\n");
    else if (strcmp(topic, "read") == 0)
        say("Read in profile data from a specified file.\n"
            "Without argument, reload the current file.\n");
    else if (strcmp(topic, "reverse") == 0)
        say("Reverse the sort order of the profiling report.\n");
    else if (strcmp(topic, "sort") == 0)
        say("Sort profile data according to specified keys.\n"
            "(Typing `sort' without arguments lists valid keys.)\n");
    else if (strcmp(topic, "stats") == 0)
        say("Print statistics from the current stat object.\n"), generic_help();
    else if (strcmp(topic, "strip") == 0)
        say("Strip leading path information from filenames in the report.\n");
    else if (strcmp(topic, "help") == 0)
        say("Show help for a given command.\n");
    else
        return false;
    return true;
}

static void
do_help(const char *arg)
{
    if (*arg) {
        if (!help_on(arg))
            pyprof_output_printf(session->out, "*** No help on %s\n", arg);
        return;
    }
    say("\nDocumented commands (type help <topic>):\n"
        "========================================\n");
    for (size_t i = 0; i < NTOPICS; i++)
        pyprof_output_printf(session->out, i ? "  %s" : "%s", topics[i]);
    say("\n\n");
}

static void
report(const pyprof_error *err, const char *prefix)
{
    char msg[2048];
    pyprof_error_format(err, msg, sizeof msg);
    pyprof_output_printf(session->out, "%s%s\n", prefix, msg);
}

/* pstats reports a file it cannot open with Python's OSError texts: the
 * reason alone for "read", "[Errno N] reason: 'FILE'" for "add". */
static bool
unopenable(const char *path, bool full)
{
    if (strcmp(path, "-") == 0)
        return false;
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return false;
    }
    int e = errno;
    if (full)
        pyprof_output_printf(session->out, "[Errno %d] %s: '%s'\n", e, strerror(e), path);
    else
        pyprof_output_printf(session->out, "%s\n", strerror(e));
    return true;
}

static void
do_read(const char *arg)
{
    char again[sizeof prompt];
    if (!*arg) {
        size_t n = strlen(prompt);
        if (n <= 2) {
            say("No statistics object is current -- cannot reload.\n");
            return;
        }
        memcpy(again, prompt, n - 2);
        again[n - 2] = '\0';
        arg = again;
    }
    pyprof_error err = PYPROF_ERROR_INIT;
    if (unopenable(arg, false))
        return;
    if (stats_session_read(session, arg, &err) < 0) {
        report(&err, "");
        return;
    }
    size_t n = strlen(arg);
    if (n > sizeof prompt - 3)
        n = sizeof prompt - 3;
    memmove(prompt, arg, n);
    memcpy(prompt + n, "% ", 3);
}

static void
do_add(const char *arg)
{
    if (!session->st) {
        say("No statistics object is loaded.\n");
        return;
    }
    pyprof_error err = PYPROF_ERROR_INIT;
    FILE *f = fopen(arg, "rb");
    if (!f && strcmp(arg, "-") != 0) {
        pyprof_output_printf(session->out, "Failed to load statistics for %s: ", arg);
        unopenable(arg, true);
        return;
    }
    if (f)
        fclose(f);
    if (pyprof_stats_add_file(session->st, arg, &session->opts, &err) < 0) {
        pyprof_output_printf(session->out, "Failed to load statistics for %s: ", arg);
        report(&err, "");
    }
}

/* Split `arg` into words (in place). */
static size_t
split(char *arg, char **words, size_t max)
{
    size_t n = 0;
    for (char *t = strtok(arg, " \t\r\n\f\v"); t && n < max; t = strtok(NULL, " \t\r\n\f\v"))
        words[n++] = t;
    return n;
}

static void
do_sort(char *arg)
{
    if (!session->st) {
        say("No statistics object is loaded.\n");
        return;
    }
    char *words[256];
    size_t n = split(arg, words, 256);
    bool valid = n > 0;
    for (size_t i = 0; i < n && valid; i++)
        valid = pyprof_stats_sort_key_lookup(words[i]) != NULL;
    if (valid) {
        pyprof_stats_sort(session->st, (const char *const *)words, n, NULL);
        return;
    }
    say("Valid sort keys (unique prefixes are accepted):\n");
    for (size_t k = 0; k < pyprof_stats_sort_key_count(); k++)
        pyprof_output_printf(session->out, "%s -- %s\n", pyprof_stats_sort_key_name(k),
                             pyprof_stats_sort_key_description(k));
}

static void
do_print(const char *cmd, char *arg)
{
    char *words[256];
    pyprof_stats_restriction r[256];
    size_t n = split(arg, words, 256), nr = 0;
    for (size_t i = 0; i < n; i++) {
        pyprof_error err = PYPROF_ERROR_INIT;
        if (pyprof_stats_restriction_parse(&r[nr], words[i], &err) < 0)
            pyprof_output_printf(session->out, "%s\n", err.message);
        else
            nr++;
    }
    if (!session->st) {
        say("No statistics object is loaded.\n");
        return;
    }
    pyprof_error err = PYPROF_ERROR_INIT;
    int rc = cmd[0] == 's' ? pyprof_stats_print(session->st, session->out, r, nr, &err)
             : strcmp(cmd, "callers") == 0
                 ? pyprof_stats_print_callers(session->st, session->out, r, nr, &err)
                 : pyprof_stats_print_callees(session->st, session->out, r, nr, &err);
    if (rc < 0)
        report(&err, "");
}

/* One line, as cmd.Cmd.onecmd; returns true to leave. */
static bool
onecmd(char *line, char **lastcmd)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t len = strlen(line);
    while (len && strchr(" \t\r\n\f\v", line[len - 1]))
        line[--len] = '\0';
    if (!*line) {
        if (*lastcmd && **lastcmd) {
            char *copy = strdup(*lastcmd);
            bool stop = copy && onecmd(copy, lastcmd);
            free(copy);
            return stop;
        }
        return false;
    }
    char buf[8192];
    if (line[0] == '?') {
        snprintf(buf, sizeof buf, "help %s", line + 1);
        line = buf;
    }
    size_t i = 0;
    while (line[i] && (line[i] == '_' || (line[i] >= 'a' && line[i] <= 'z') ||
                       (line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= '0' && line[i] <= '9')))
        i++;
    if (i == 0) {
        pyprof_output_printf(session->out, "*** Unknown syntax: %s\n", line);
        return false;
    }
    free(*lastcmd);
    *lastcmd = strcmp(line, "EOF") == 0 ? NULL : strdup(line);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "%.*s", (int)(i < 63 ? i : 63), line);
    char *arg = line + i;
    while (*arg == ' ' || *arg == '\t')
        arg++;
    if (i >= 63)
        cmd[0] = '\0';

    if (strcmp(cmd, "EOF") == 0) {
        say("\n");
        return true;
    }
    if (strcmp(cmd, "quit") == 0)
        return true;
    if (strcmp(cmd, "help") == 0)
        do_help(arg);
    else if (strcmp(cmd, "read") == 0)
        do_read(arg);
    else if (strcmp(cmd, "add") == 0)
        do_add(arg);
    else if (strcmp(cmd, "sort") == 0)
        do_sort(arg);
    else if (strcmp(cmd, "stats") == 0 || strcmp(cmd, "callers") == 0 ||
             strcmp(cmd, "callees") == 0)
        do_print(cmd, arg);
    else if (strcmp(cmd, "reverse") == 0 || strcmp(cmd, "strip") == 0) {
        if (!session->st)
            say("No statistics object is loaded.\n");
        else if (cmd[1] == 'e')
            pyprof_stats_reverse(session->st);
        else {
            pyprof_error err = PYPROF_ERROR_INIT;
            if (pyprof_stats_strip_dirs(session->st, &err) < 0)
                report(&err, "");
        }
    } else
        pyprof_output_printf(session->out, "*** Unknown syntax: %s\n", line);
    return false;
}

/* ---- completion --------------------------------------------------------------------- */

static const char *const *complete_from;
static size_t complete_n;

static char *
generator(const char *text, int state)
{
    static size_t i;
    if (state == 0)
        i = 0;
    size_t len = strlen(text);
    while (i < complete_n) {
        const char *w = complete_from[i++];
        if (strncmp(w, text, len) == 0)
            return strdup(w);
    }
    return NULL;
}

static const char *sort_names[16];

static char **
complete(const char *text, int start, int end)
{
    (void)end;
    const char *l = rl_line_buffer;
    while (*l == ' ')
        l++;
    if (start == 0 || (size_t)start <= (size_t)(l - rl_line_buffer)) {
        complete_from = topics;
        complete_n = NTOPICS;
    } else if (strncmp(l, "sort ", 5) == 0) {
        complete_from = sort_names;
        complete_n = pyprof_stats_sort_key_count();
    } else if (strncmp(l, "help ", 5) == 0) {
        complete_from = topics;
        complete_n = NTOPICS;
    } else {
        return NULL; /* file names */
    }
    return rl_completion_matches(text, generator);
}

/* Longest command line read from a pipe: a browser command is a few words,
 * and a file of one endless line must not take all memory.  The rest of a
 * longer line is skipped, with a warning. */
#define COMMAND_MAX ((size_t)1 << 20)

/* The next command line (malloc'd), NULL at the end of input.  On a
 * terminal libedit reads it, with editing and history; from a pipe or
 * file (pyprof-stats -i) the prompt is printed and a line read, as
 * Python's input() does, so that a piped session prints what python -m
 * pstats prints, prompts included.  `lineno` counts the lines read. */
static char *
read_command(bool tty, unsigned long *lineno)
{
    ++*lineno;
    if (tty)
        return readline(prompt);
    fputs(prompt, stdout);
    fflush(stdout);
    size_t n = 0, cap = 256;
    char *line = malloc(cap);
    if (!line)
        return NULL;
    bool cut = false;
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
        if (n + 1 == cap && !cut) {
            char *grown = cap < COMMAND_MAX ? realloc(line, cap * 2) : NULL;
            if (grown) {
                line = grown;
                cap *= 2;
            } else {
                cut = true;
            }
        }
        if (!cut)
            line[n++] = (char)c;
    }
    if (c == EOF && n == 0) {
        free(line);
        return NULL;
    }
    if (cut)
        cli_warnf("standard input: line %lu: longer than %zu bytes, cut there", *lineno, n);
    line[n] = '\0';
    return line;
}

/* libedit decodes what is typed by LC_CTYPE, and a program starts in the
 * "C" locale, where every byte past ASCII is invalid and dropped: "stats
 * mäin" would restrict to "min".  So the terminal's character set is taken
 * from the environment, as Python's input() does, and a "C" or "POSIX"
 * environment means UTF-8, as Python takes it (PEP 538).  Only LC_CTYPE:
 * numbers are printed by the library in the C locale whatever is set. */
static void
terminal_charset(void)
{
    const char *got = setlocale(LC_CTYPE, "");
    if (!got || strcmp(got, "C") == 0 || strcmp(got, "POSIX") == 0)
        setlocale(LC_CTYPE, "C.UTF-8");
}

int
stats_browser_run(struct stats_session *s, char **files, int nfiles)
{
    session = s;
    if (isatty(0)) /* before using_history(), which sets libedit up */
        terminal_charset();
    for (size_t k = 0; k < pyprof_stats_sort_key_count() && k < 16; k++)
        sort_names[k] = pyprof_stats_sort_key_name(k);
    rl_readline_name = "pyprof-stats";
    rl_attempted_completion_function = complete;
    using_history();

    if (nfiles > 0)
        do_read(files[0]);
    for (int i = 1; i < nfiles; i++)
        do_add(files[i]);
    say("Welcome to the profile statistics browser.\n");

    char *lastcmd = NULL;
    bool tty = isatty(0);
    unsigned long lineno = 0;
    for (;;) {
        pyprof_output_status(s->out, NULL);
        fflush(stdout);
        char *line = read_command(tty, &lineno);
        bool stop;
        if (!line) {
            char eof[] = "EOF";
            stop = onecmd(eof, &lastcmd);
        } else {
            if (*line && tty)
                add_history(line);
            stop = onecmd(line, &lastcmd);
            free(line);
        }
        if (stop)
            break;
    }
    free(lastcmd);
    say("Goodbye.\n");
    fflush(stdout);
    return pyprof_output_status(s->out, NULL) < 0 ? CLI_EXIT_DATA : CLI_EXIT_OK;
}
