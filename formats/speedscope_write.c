/*
 * speedscope_write.c - writer of speedscope JSON files (formats.md §11),
 * built with cJSON.
 *
 * One "sampled" profile: every stack node with a non-zero self weight is a
 * sample (its root-first path of frame indices) with that weight, in node
 * id order.  Frames are the functions the stacks use, in id order, as
 * {name, file, line} (file and line only when the function has a file).
 * A profile with only a call graph gets stacks estimated by caller ratios
 * first (pyprof__stack_view), and a note says so.
 */
#include "config.h"

#include <cjson/cJSON.h>

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

/* cJSON reports every failure as NULL; with the tree owned by `root`, one
 * check per added item is enough. */
#define ADD_OR_FAIL(expr)                                                                          \
    do {                                                                                           \
        if (!(expr)) {                                                                             \
            rc = PYPROF_ENOMEM;                                                                    \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static int
speedscope_write(pyprof_profile *in, pyprof_output *o, const pyprof_write_options *opts,
                 pyprof_error *err)
{
    pyprof_profile *p, *owned;
    int estimated;
    int rc = pyprof__stack_view(in, &p, &owned, &estimated, opts, err);
    if (rc < 0)
        return rc;
    cJSON *root = NULL;
    char *text = NULL;
    int32_t *frame_of = NULL;
    pyprof_id *path = NULL;
    size_t path_cap = 0;
    size_t nf = pyprof_profile_func_count(p), nn = pyprof_profile_stack_count(p);

    frame_of = pyprof__malloc((nf ? nf : 1) * sizeof(*frame_of));
    if (!frame_of) {
        rc = PYPROF_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nf; i++)
        frame_of[i] = -1;
    for (size_t i = 0; i < nn; i++)
        frame_of[pyprof_profile_stack_node(p, (pyprof_id)i)->func] = 0;

    ADD_OR_FAIL(root = cJSON_CreateObject());
    ADD_OR_FAIL(cJSON_AddStringToObject(root, "$schema", SPEEDSCOPE_SCHEMA));
    cJSON *shared, *frames, *profiles, *prof, *samples, *weights;
    ADD_OR_FAIL(shared = cJSON_AddObjectToObject(root, "shared"));
    ADD_OR_FAIL(frames = cJSON_AddArrayToObject(shared, "frames"));
    int32_t nframes = 0;
    for (size_t i = 0; i < nf; i++) {
        if (frame_of[i] < 0)
            continue;
        frame_of[i] = nframes++;
        const pyprof_func *f = pyprof_profile_func(p, (pyprof_id)i);
        cJSON *fr;
        ADD_OR_FAIL(fr = cJSON_CreateObject());
        cJSON_AddItemToArray(frames, fr);
        ADD_OR_FAIL(cJSON_AddStringToObject(fr, "name", pyprof_profile_string(p, f->name)));
        if (pyprof_profile_string_len(p, f->file)) {
            ADD_OR_FAIL(cJSON_AddStringToObject(fr, "file", pyprof_profile_string(p, f->file)));
            ADD_OR_FAIL(cJSON_AddNumberToObject(fr, "line", (double)f->line));
        }
    }

    ADD_OR_FAIL(profiles = cJSON_AddArrayToObject(root, "profiles"));
    ADD_OR_FAIL(prof = cJSON_CreateObject());
    cJSON_AddItemToArray(profiles, prof);
    ADD_OR_FAIL(cJSON_AddStringToObject(prof, "type", "sampled"));
    ADD_OR_FAIL(cJSON_AddStringToObject(prof, "name", profile_title(p, opts)));
    ADD_OR_FAIL(cJSON_AddStringToObject(prof, "unit", unit_name(p)));
    ADD_OR_FAIL(cJSON_AddNumberToObject(prof, "startValue", 0));
    cJSON *end_value;
    ADD_OR_FAIL(end_value = cJSON_AddNumberToObject(prof, "endValue", 0));
    ADD_OR_FAIL(samples = cJSON_AddArrayToObject(prof, "samples"));
    ADD_OR_FAIL(weights = cJSON_AddArrayToObject(prof, "weights"));
    double sum = 0;
    bool negative = false;
    for (size_t i = 0; i < nn; i++) {
        const pyprof_stack_node *nd = pyprof_profile_stack_node(p, (pyprof_id)i);
        if (nd->self[0] == 0) {
            /* keep zero-weight leaves, so that every function stays reachable */
            const pyprof_id *kids;
            size_t nkids;
            if ((rc = pyprof_profile_stack_children(p, (pyprof_id)i, &kids, &nkids)) < 0)
                goto out;
            if (nkids)
                continue;
        }
        if (nd->self[0] < 0) {
            negative = true; /* speedscope rejects negative weights */
            continue;
        }
        size_t depth = 0;
        for (pyprof_id id = (pyprof_id)i; id != PYPROF_NONE;
             id = pyprof_profile_stack_node(p, id)->parent) {
            if ((rc = PYPROF_GROW(path, path_cap, depth + 1)) < 0)
                goto out;
            path[depth++] = id;
        }
        cJSON *stack;
        ADD_OR_FAIL(stack = cJSON_CreateArray());
        cJSON_AddItemToArray(samples, stack);
        while (depth-- > 0) {
            cJSON *num;
            ADD_OR_FAIL(num = cJSON_CreateNumber(
                            frame_of[pyprof_profile_stack_node(p, path[depth])->func]));
            cJSON_AddItemToArray(stack, num);
        }
        cJSON *w;
        ADD_OR_FAIL(w = cJSON_CreateNumber(nd->self[0]));
        cJSON_AddItemToArray(weights, w);
        sum += nd->self[0];
    }
    cJSON_SetNumberValue(end_value, sum);
    ADD_OR_FAIL(cJSON_AddStringToObject(root, "name", profile_title(p, opts)));
    ADD_OR_FAIL(cJSON_AddNumberToObject(root, "activeProfileIndex", 0));
    char exporter[64];
    snprintf(exporter, sizeof(exporter), "libpyprof@%s", pyprof_version());
    ADD_OR_FAIL(cJSON_AddStringToObject(root, "exporter", exporter));

    ADD_OR_FAIL(text = cJSON_PrintUnformatted(root));
    pyprof_output_puts(o, text);
    pyprof_output_write(o, "\n", 1);

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
    if (text)
        cJSON_free(text);
    cJSON_Delete(root);
    pyprof__free(frame_of);
    pyprof__free(path);
    pyprof_profile_free(owned);
    return rc;
}

const pyprof__writer pyprof__writer_speedscope = {
    .name = "speedscope",
    .aliases = NULL,
    .description = "speedscope JSON (one sampled profile)",
    .write = speedscope_write,
};
