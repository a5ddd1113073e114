/*
 * transcript.h - everything the library makes of one input, as one text:
 * the input read again for every writer and every renderer, each call's
 * name and status followed by its output.  Two transcripts of one input
 * made in different conditions (another locale, another thread) must be
 * the same bytes.  Header-only, for tests.
 */
#ifndef PYPROF_TEST_TRANSCRIPT_H
#define PYPROF_TEST_TRANSCRIPT_H

#include <stdbool.h>

#include <pyprof/pyprof.h>

#include "tap.h"

typedef struct transcript {
    tap_buf text;
    size_t succeeded; /* calls that did not fail */
} transcript;

/* Graphviz names an anonymous graph "%N" from a counter of the graphs it
 * has made in the process, and its SVG shows that name (in a comment and
 * a <title>): so the same call made twice differs there, whatever the
 * locale.  The digits after each "%" that follows one of those are masked. */
static inline void
put_masking_graph_names(tap_buf *t, const char *s, size_t n)
{
    static const char *const before[] = {"<!-- Title: %", "<title>%"};
    const char *end = s + n;
    while (s < end) {
        const char *at = NULL;
        size_t len = 0;
        for (size_t i = 0; i < 2; i++) {
            const char *m = memmem(s, (size_t)(end - s), before[i], strlen(before[i]));
            if (m && (!at || m < at)) {
                at = m;
                len = strlen(before[i]);
            }
        }
        if (!at)
            break;
        tap_buf_put(t, s, (size_t)(at - s) + len);
        tap_buf_puts(t, "N");
        for (s = at + len; s < end && *s >= '0' && *s <= '9';)
            s++;
    }
    tap_buf_put(t, s, (size_t)(end - s));
}

/* Append what memory output `o` holds, with the call's name and status,
 * to t; free o. */
static inline void
record(transcript *t, const char *what, int rc, pyprof_output *o)
{
    char head[256];
    size_t len = 0;
    const unsigned char *data = o ? pyprof_output_data(o, &len) : NULL;
    snprintf(head, sizeof(head), "\n== %s: status %d\n", what, rc);
    tap_buf_puts(&t->text, head);
    if (data && rc >= 0)
        put_masking_graph_names(&t->text, (const char *)data, len);
    t->succeeded += rc >= 0;
    pyprof_output_abort(o);
}

static inline pyprof_output *
memory_output(void)
{
    pyprof_output *o = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    if (pyprof_output_open_memory(&o, &err) < 0) {
        printf("Bail out! no memory output: %s\n", err.message);
        exit(1);
    }
    return o;
}

static inline pyprof_profile *
load(transcript *t, const char *path)
{
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    int rc = pyprof_profile_load(&p, path, NULL, &err);
    char line[4200];
    snprintf(line, sizeof(line), "\n== load: status %d %s\n", rc, rc < 0 ? err.message : "");
    tap_buf_puts(&t->text, line);
    return rc < 0 ? NULL : p;
}

/* Every writer and every renderer on `path` into t, in a fixed order;
 * each on a freshly read profile, since some calls add to the profile
 * (derived call graphs, estimated stacks).  `graphviz`: the call graphs
 * too, DOT text and images (Graphviz is for one thread at a time). */
static inline void
transcript_of(transcript *t, const char *path, bool graphviz)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *p;
    pyprof_output *o;
    int rc;
    char what[128];

    for (size_t i = 0; i < pyprof_writer_count(); i++) {
        if (!(p = load(t, path)))
            return;
        o = memory_output();
        rc = pyprof_profile_write(p, o, pyprof_writer_name(i), NULL, &err);
        snprintf(what, sizeof(what), "write %s", pyprof_writer_name(i));
        record(t, what, rc, o);
        pyprof_profile_free(p);
    }

    if ((p = load(t, path))) { /* pstats tables: takes the profile */
        pyprof_stats *st = NULL;
        if ((rc = pyprof_stats_new(&st, p, &err)) < 0) {
            record(t, "stats", rc, NULL);
        } else {
            const char *keys[] = {"cumulative"};
            o = memory_output();
            rc = pyprof_stats_sort(st, keys, 1, &err);
            if (rc >= 0)
                rc = pyprof_stats_print(st, o, NULL, 0, &err);
            if (rc >= 0)
                rc = pyprof_stats_print_callers(st, o, NULL, 0, &err);
            record(t, "stats print, callers", rc, o);
            o = memory_output();
            record(t, "stats JSON", pyprof_stats_export(st, o, PYPROF_STATS_JSON, 1, NULL, 0, &err),
                   o);
            o = memory_output();
            record(t, "stats CSV", pyprof_stats_export(st, o, PYPROF_STATS_CSV, 1, NULL, 0, &err),
                   o);
            pyprof_stats_free(st);
        }
    }

    static const char *const dot_types[] = {"dot", "svg"};
    for (size_t i = 0; graphviz && i < 2; i++) {
        if (!(p = load(t, path)))
            return;
        pyprof_dot_options d = PYPROF_DOT_OPTIONS_INIT;
        d.type = dot_types[i];
        d.node_thres = 0.25; /* (options as a host sets them: numbers, not text) */
        o = memory_output();
        snprintf(what, sizeof(what), "dot %s", dot_types[i]);
        record(t, what, pyprof_dot_render(p, &d, o, &err), o);
        pyprof_profile_free(p);
    }

    static const char *const image_types[] = {"svg", "png"};
    for (size_t i = 0; i < 2; i++) {
        if (!(p = load(t, path)))
            return;
        pyprof_flame_options f = PYPROF_FLAME_OPTIONS_INIT;
        f.minwidth = 0.5;
        o = memory_output();
        snprintf(what, sizeof(what), "flame %s", image_types[i]);
        record(t, what, pyprof_render_flame(p, &f, image_types[i], o, &err), o);
        pyprof_profile_free(p);
    }

    if ((p = load(t, path))) {
        pyprof_lines_options l = PYPROF_LINES_OPTIONS_INIT;
        l.output_unit = 1e-3;
        o = memory_output();
        record(t, "lines", pyprof_render_lines(p, o, &l, &err), o);
        o = memory_output();
        record(t, "lines JSON", pyprof_lines_write_json(p, o, &err), o);
        o = memory_output();
        record(t, "lines CSV", pyprof_lines_write_csv(p, o, &err), o);
        for (size_t i = 0; i < 2; i++) {
            pyprof_mem_plot_options m = PYPROF_MEM_PLOT_OPTIONS_INIT;
            m.slope = 1;
            m.width = 640.5;
            o = memory_output();
            snprintf(what, sizeof(what), "mem plot %s", image_types[i]);
            record(t, what, pyprof_mem_plot(o, p, image_types[i], &m, &err), o);
        }
        static const char *const report_types[] = {"txt", "json", "csv"};
        for (size_t i = 0; i < 3; i++) {
            o = memory_output();
            snprintf(what, sizeof(what), "mem report %s", report_types[i]);
            record(t, what, pyprof_mem_write_report(o, p, report_types[i], 5, &err), o);
        }
        pyprof_profile_free(p);
    }
}

/* The first byte where a and b differ, with a little of each around it. */
static inline void
transcript_diag_difference(const tap_buf *a, const tap_buf *b)
{
    size_t n = a->len < b->len ? a->len : b->len, i = 0;
    while (i < n && a->s[i] == b->s[i])
        i++;
    size_t from = i > 60 ? i - 60 : 0;
    tap_diag("first difference at byte %zu of %zu / %zu", i, a->len, b->len);
    tap_diag("first:  %.120s", a->s + from);
    tap_diag("second: %.120s", b->s + from);
}

#endif
