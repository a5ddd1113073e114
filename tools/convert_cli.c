/*
 * convert_cli.c - input lists and the streaming load-and-merge loop of
 * pyprof-convert, pyprof-merge and pyprof-diff (see convert_cli.h).
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "convert_cli.h"

void
cc_list_free(cc_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

static bool
cc_list_add(cc_list *l, const char *s, size_t len)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **items = realloc(l->items, cap * sizeof(*items));
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    memcpy(copy, s, len);
    copy[len] = '\0';
    l->items[l->n++] = copy;
    return true;
}

static bool
read_listfile(cc_list *l, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        cli_errorf("%s: %s", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    bool ok = true;
    while ((n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        if (n == 0 || line[0] == '#')
            continue;
        if (!cc_list_add(l, line, (size_t)n)) {
            cli_errorf("out of memory");
            ok = false;
            break;
        }
    }
    if (ok && ferror(f)) {
        cli_errorf("%s: %s", path, strerror(errno));
        ok = false;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return ok;
}

bool
cc_expand_input(cc_list *l, const char *arg)
{
    struct stat st;
    if (arg[0] == '@' && arg[1])
        return read_listfile(l, arg + 1);
    if (strpbrk(arg, "*?[") && stat(arg, &st) != 0) {
        glob_t g;
        int rc = glob(arg, 0, NULL, &g);
        if (rc == GLOB_NOMATCH) {
            cli_errorf("%s: no file matches this pattern", arg);
            return false;
        }
        if (rc != 0) {
            cli_errorf("%s: cannot expand the pattern", arg);
            return false;
        }
        bool ok = true;
        for (size_t i = 0; i < g.gl_pathc && ok; i++)
            ok = cc_list_add(l, g.gl_pathv[i], strlen(g.gl_pathv[i]));
        globfree(&g);
        if (!ok)
            cli_errorf("out of memory");
        return ok;
    }
    if (!cc_list_add(l, arg, strlen(arg))) {
        cli_errorf("out of memory");
        return false;
    }
    return true;
}

int
cc_load_merged(pyprof_profile **out, char *const *paths, size_t n, const char *format,
               bool same_kind,
               int (*each)(void *ctx, pyprof_profile *in, const char *path, pyprof_error *err),
               void *ctx)
{
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    cli_read_options(&ro);
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *acc = NULL;
    char kind[32] = "";
    ro.format = format;
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        pyprof_profile *p;
        if (pyprof_profile_load(&p, paths[i], &ro, &err) < 0) {
            cli_error(&err);
            pyprof_profile_free(acc);
            return CLI_EXIT_DATA;
        }
        const pyprof_source *src = pyprof_profile_source(p, pyprof_profile_source_count(p) - 1);
        const char *fmt = src ? pyprof_profile_string(p, src->format) : "";
        if (i == 0) {
            snprintf(kind, sizeof(kind), "%s", fmt);
        } else if (same_kind && strcmp(kind, fmt) != 0) {
            cli_errorf("%s: is %s, but %s is %s: merge profiles of one kind", paths[i], fmt,
                       paths[0], kind);
            pyprof_profile_free(p);
            pyprof_profile_free(acc);
            return CLI_EXIT_DATA;
        }
        if (each && each(ctx, p, paths[i], &err) < 0) {
            cli_error(&err);
            pyprof_profile_free(p);
            pyprof_profile_free(acc);
            return CLI_EXIT_DATA;
        }
        if (!acc) {
            acc = p; /* the first input is the accumulator: no copy */
            continue;
        }
        int rc = pyprof_profile_merge(acc, p, &err);
        pyprof_profile_free(p);
        if (rc < 0) {
            if (!err.source[0])
                snprintf(err.source, sizeof(err.source), "%s", paths[i]);
            cli_error(&err);
            pyprof_profile_free(acc);
            return CLI_EXIT_DATA;
        }
    }
    *out = acc;
    return CLI_EXIT_OK;
}

void
cc_print_notes(const pyprof_notes *notes, bool quiet)
{
    if (quiet)
        return;
    for (size_t i = 0; i < pyprof_notes_count(notes); i++)
        cli_warnf("%s", pyprof_notes_at(notes, i));
}

int
cc_write_profile(pyprof_profile *p, const char *output, const char *type, pyprof_write_options *wo,
                 bool quiet)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_notes *notes = NULL;
    pyprof_output *out = NULL;
    int status = CLI_EXIT_DATA;
    if (pyprof_notes_new(&notes) < 0) {
        cli_errorf("out of memory");
        return status;
    }
    wo->notes = notes;
    if (pyprof_output_open_file(&out, output, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    if (pyprof_profile_write(p, out, type, wo, &err) < 0) {
        if (!err.source[0])
            snprintf(err.source, sizeof(err.source), "%s", output);
        cli_error(&err);
        pyprof_output_abort(out);
        goto done;
    }
    if (pyprof_output_commit(out, &err) < 0) {
        cli_error(&err);
        goto done;
    }
    cc_print_notes(notes, quiet);
    status = CLI_EXIT_OK;
done:
    wo->notes = NULL;
    pyprof_notes_free(notes);
    return status;
}
