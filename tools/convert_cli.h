/*
 * convert_cli.h - what pyprof-convert, pyprof-merge and pyprof-diff share:
 * expanding input arguments (globs, @listfiles), loading inputs one at a
 * time into an accumulator, and printing conversion notes.
 */
#ifndef PYPROF_CONVERT_CLI_H
#define PYPROF_CONVERT_CLI_H

#include <pyprof/pyprof.h>
#include <stdbool.h>
#include <stddef.h>

/* A growable list of owned strings. */
typedef struct cc_list {
    char **items;
    size_t n, cap;
} cc_list;

void cc_list_free(cc_list *l);

/*
 * Expand one command-line input into `l`: "@FILE" adds the paths listed in
 * FILE (one per line, blank lines and "#" comments skipped); an argument with
 * glob characters that names no existing file is expanded with glob(3) in
 * sorted order (no match is an error); anything else is added as is.
 * Prints its own error and returns false on failure.
 */
bool cc_expand_input(cc_list *l, const char *arg);

/*
 * Load every input in turn and merge it into one profile (streaming: each
 * input is freed once merged).  `format` may be NULL (probe).  When
 * `same_kind` is set, every input must be read by the same reader.  With
 * `each`, it is called with every input after it is read (for rank
 * statistics).  Prints its own error; returns an exit code (0 on success).
 */
int cc_load_merged(pyprof_profile **out, char *const *paths, size_t n, const char *format,
                   bool same_kind,
                   int (*each)(void *ctx, pyprof_profile *in, const char *path, pyprof_error *err),
                   void *ctx);

/*
 * Write `p` as `type` to `output` atomically, with `wo` (its notes field is
 * filled here), then print the conversion notes unless `quiet`.  Prints its
 * own error; returns an exit code.
 */
int cc_write_profile(pyprof_profile *p, const char *output, const char *type,
                     pyprof_write_options *wo, bool quiet);

/* Print every note as "TOOL: warning: NOTE" unless `quiet`. */
void cc_print_notes(const pyprof_notes *notes, bool quiet);

#endif
