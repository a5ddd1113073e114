/*
 * speedscope_write.c - writer of speedscope JSON files (formats.md §11),
 * streamed as it is made (render/emit.c: the text cJSON would write).
 *
 * One "sampled" profile: every stack node with a non-zero self weight is a
 * sample (its root-first path of frame indices) with that weight, in node
 * id order.  Frames are the functions the stacks use, in id order, as
 * {name, file, line} (file and line only when the function has a file).
 * A profile with only a call graph gets stacks estimated by caller ratios
 * first (pyprof__stack_view), and a note says so.
 */
#include "config.h"

#include "render/convert_int.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

static const char *
unit_name(const pyprof_profile *p)
{
    const char *u = pyprof_profile_meta_get(p, "time_unit");
    if (!u || strcmp(u, "seconds") == 0)
        return "seconds";
    if (strcmp(u, "bytes") == 0)
        return "bytes";
    return "none";
}

static const char *
profile_title(const pyprof_profile *p, const pyprof_write_options *opts)
{
    if (opts->name)
        return opts->name;
    if (pyprof_profile_source_count(p))
        return pyprof_profile_string(p, pyprof_profile_source(p, 0)->name);
    return "profile";
}

static bool
ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && memcmp(s + n - k, tail, k) == 0;
}

/* The title, saying so when the stacks are an estimate (made here, or read
 * from a file that said so); a string to free, or NULL without memory. */
static char *
title_of(const pyprof_profile *p, const pyprof_write_options *opts, bool estimated)
{
    const char *t = profile_title(p, opts);
    const char *tail = estimated && !ends_with(t, PYPROF__SPEEDSCOPE_ESTIMATED)
                           ? PYPROF__SPEEDSCOPE_ESTIMATED
                           : "";
    size_t n = strlen(t), k = strlen(tail);
    char *s = pyprof__malloc(n + k + 1);
    if (s) {
        memcpy(s, t, n);
        memcpy(s + n, tail, k + 1);
    }
    return s;
}

/* The nodes that are samples, in id order, and the sum of their weights
 * (endValue, which comes before them in the file): nodes with a self
 * weight, and zero-weight leaves, so that every function stays reachable.
 * Negative weights are left out (*negative): speedscope rejects them. */
static int
sample_nodes(pyprof_profile *p, pyprof_id **ids, size_t *n, double *sum, bool *negative)
{
    size_t nn = pyprof_profile_stack_count(p);
    *n = 0;
    *sum = 0;
    *negative = false;
    if (!(*ids = pyprof__malloc((nn ? nn : 1) * sizeof(**ids))))
        return PYPROF_ENOMEM;
    for (size_t i = 0; i < nn; i++) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)i);
        if (nd->self[0] == 0) {
            const pyprof_id *kids;
            size_t nkids;
            int rc = pyprof_profile_stack_children(p, (pyprof_id)i, &kids, &nkids);
            if (rc < 0)
                return rc;
            if (nkids)
                continue;
        }
        if (nd->self[0] < 0) {
            *negative = true;
            continue;
        }
        (*ids)[(*n)++] = (pyprof_id)i;
        *sum += nd->self[0];
    }
    return 0;
}

static int
speedscope_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
                 pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int estimated;
    int rc = pyprof__stack_view(in, &p, &owned, &estimated, opts, err);
    if (rc < 0)
        return rc;
    int32_t *frame_of = NULL;
    pyprof_id *path = NULL, *ids = NULL;
    size_t path_cap = 0, nids;
    size_t nf = pyprof_profile_func_count(p), nn = pyprof_profile_stack_count(p);
    double sum;
    bool negative;
    const char *mark = pyprof_profile_meta_get(p, "stacks_estimated");
    char *title = title_of(p, opts, estimated || (mark && strcmp(mark, "1") == 0));
    if (!title) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    if ((rc = sample_nodes(p, &ids, &nids, &sum, &negative)) < 0)
        goto out;
    frame_of = pyprof__malloc((nf ? nf : 1) * sizeof(*frame_of));
    if (!frame_of) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nf; i++)
        frame_of[i] = -1;
    for (size_t i = 0; i < nn; i++)
        frame_of[pyprof_profile_stack_node(p, (pyprof_id)i)->func] = 0;

    pyprof_output_write(o, "{", 1);
    pyprof__json_member_string(o, true, "$schema", SPEEDSCOPE_SCHEMA);
    pyprof_output_puts(o, ",\"shared\":{\"frames\":[");
    int32_t nframes = 0;
    for (size_t i = 0; i < nf; i++) {
        if (frame_of[i] < 0)
            continue;
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        pyprof_output_write(o, nframes ? ",{" : "{", nframes ? 2 : 1);
        frame_of[i] = nframes++;
        pyprof__json_member_string(o, true, "name", pyprof_profile_string(p, f->name));
        if (pyprof_profile_string_len(p, f->file)) {
            pyprof__json_member_string(o, false, "file", pyprof_profile_string(p, f->file));
            pyprof__json_key(o, false, "line");
            pyprof__json_number(o, (double)f->line);
        }
        pyprof_output_write(o, "}", 1);
    }
    pyprof_output_puts(o, "]},\"profiles\":[{");
    pyprof__json_member_string(o, true, "type", "sampled");
    pyprof__json_member_string(o, false, "name", title);
    pyprof__json_member_string(o, false, "unit", unit_name(p));
    pyprof_output_puts(o, ",\"startValue\":0,\"endValue\":");
    pyprof__json_number(o, sum);
    pyprof_output_puts(o, ",\"samples\":[");
    for (size_t k = 0; k < nids; k++) {
        size_t depth = 0;
        for (pyprof_id id = ids[k]; id != PYPROF_NONE;
             id = pyprof_profile_stack_node(p, id)->parent) {
            if ((rc = PYPROF_GROW(path, path_cap, depth + 1)) < 0)
                goto out;
            path[depth++] = id;
        }
        pyprof_output_write(o, k ? ",[" : "[", k ? 2 : 1);
        for (size_t d = depth; d-- > 0;) {
            char num[PYPROF__DBL_BUF];
            char *end = pyprof__fmt_i64(num, frame_of[pyprof_profile_stack_node(p, path[d])->func]);
            if (d + 1 < depth)
                pyprof_output_write(o, ",", 1);
            pyprof_output_write(o, num, (size_t)(end - num));
        }
        pyprof_output_write(o, "]", 1);
    }
    pyprof_output_puts(o, "],\"weights\":[");
    for (size_t k = 0; k < nids; k++) {
        if (k)
            pyprof_output_write(o, ",", 1);
        pyprof__json_number(o, pyprof_profile_stack_node(p, ids[k])->self[0]);
    }
    pyprof_output_puts(o, "]}]");
    pyprof__json_member_string(o, false, "name", title);
    pyprof_output_puts(o, ",\"activeProfileIndex\":0");
    char exporter[64];
    snprintf(exporter, sizeof(exporter), "libpyprof@%s", pyprof_version());
    pyprof__json_member_string(o, false, "exporter", exporter);
    pyprof_output_write(o, "}\n", 2);

    if (negative)
        pyprof__note(opts->notes, "speedscope has no negative weights: those stacks are left out");
    if (pyprof_profile_stack_metrics(p) >= 2)
        pyprof__note(opts->notes, "speedscope holds one weight per sample: the second count "
                                  "is dropped");
    if (!estimated && pyprof__has_callgraph(in))
        pyprof__note(opts->notes, "speedscope has no call counts: only stacks and their weights "
                                  "are kept");
    if (pyprof_profile_caps(in) & PYPROF_CAP_LINES)
        pyprof__note(opts->notes, "speedscope has no line timings: they are dropped");
    if (pyprof_profile_caps(in) & PYPROF_CAP_MEMORY)
        pyprof__note(opts->notes, "speedscope has no memory timeline: it is dropped");
out:
    if (rc < 0)
        pyprof_error_set(err, rc, NULL, "speedscope", -1, 0, "cannot write speedscope JSON: %s",
                         pyprof_status_string(rc));
    pyprof__free(title);
    pyprof__free(frame_of);
    pyprof__free(path);
    pyprof__free(ids);
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_speedscope = {
    .name = "speedscope",
    .aliases = NULL,
    .description = "speedscope JSON (one sampled profile)",
    .write = speedscope_write,
};
