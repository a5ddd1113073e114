/*
 * stats_cli.h - what pyprof-stats.c (argument handling, batch commands)
 * shares with stats_browser.c (the interactive browser).
 */
#ifndef PYPROF_STATS_CLI_H
#define PYPROF_STATS_CLI_H

#include <pyprof/pyprof.h>
#include <stdbool.h>

/* The state the commands act on: pstats' Stats object and where to print. */
struct stats_session {
    pyprof_stats *st;         /* NULL until a file is read */
    pyprof_read_options opts; /* -f */
    pyprof_output *out;       /* stdout or -o FILE */
};

/* The command words of the pstats browser that pyprof-stats also takes
 * on its command line. */
bool stats_is_command(const char *word);

/* Read `path` alone into `s`, replacing what was there. */
int stats_session_read(struct stats_session *s, const char *path, pyprof_error *err);

/* Run the interactive browser on a terminal: `files` are read as
 * `python -m pstats FILE MORE...` does (the first read, the others added in
 * order).  Returns the exit status. */
int stats_browser_run(struct stats_session *s, char **files, int nfiles);

#endif
