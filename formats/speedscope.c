/*
 * speedscope.c - reader of speedscope JSON files (formats.md §11), parsed
 * with cJSON, checked the way speedscope's own importer checks them (§11.2).
 *
 * Frames become functions (file "" and line 0 when absent).  Sampled
 * profiles add each root-first sample to the stack tree with its weight;
 * evented profiles replay their open/close events and give each stack the
 * time spent with it on top.  With several profiles (py-spy writes one per
 * thread) each profile's stacks hang under a synthetic root frame named
 * after the profile, like py-spy's "thread" frames in folded output.  Time
 * units become seconds; "none" becomes time_unit "samples", "bytes" stays
 * "bytes".  The call graph is then derived from the stacks.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "pyprof_int.h"
#include "render/convert_int.h" /* PYPROF__SPEEDSCOPE_ESTIMATED */

#define FMT               "speedscope"
#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

struct ss {
    pyprof_profile *p;
    pyprof_input *in;
    pyprof_error *err;
    pyprof_id *func_of; /* frame index -> function id */
    size_t nframes;
};

static int
bad(struct ss *s, const char *what)
{
    return pyprof_input_error(s->in, s->err, PYPROF_EFORMAT, FMT, 0, "%s", what);
}

/* Seconds per unit, 0 for the non-time units. */
static int
unit_scale(const char *u, double *scale, const char **time_unit)
{
    static const struct {
        const char *name;
        double scale;
    } units[] = {
        {"nanoseconds", 1e-9}, {"microseconds", 1e-6}, {"milliseconds", 1e-3}, {"seconds", 1}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(u, units[i].name) == 0) {
            *scale = units[i].scale;
            *time_unit = "seconds";
            return 0;
        }
    }
    *scale = 1;
    *time_unit = strcmp(u, "bytes") == 0 ? "bytes" : "samples"; /* "none" and unknown: raw */
    return 0;
}

static int
read_frames(struct ss *s, const cJSON *root)
{
    const cJSON *shared = cJSON_GetObjectItemCaseSensitive(root, "shared");
    const cJSON *frames = shared ? cJSON_GetObjectItemCaseSensitive(shared, "frames") : NULL;
    if (!cJSON_IsArray(frames))
        return bad(s, "no shared.frames array");
    s->nframes = (size_t)cJSON_GetArraySize(frames);
    s->func_of = pyprof__calloc(s->nframes ? s->nframes : 1, sizeof(*s->func_of));
    if (!s->func_of)
        return PYPROF_ENOMEM;
    size_t i = 0;
    const cJSON *fr;
    cJSON_ArrayForEach(fr, frames)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(fr, "name");
        const cJSON *file = cJSON_GetObjectItemCaseSensitive(fr, "file");
        const cJSON *line = cJSON_GetObjectItemCaseSensitive(fr, "line");
        if (!cJSON_IsString(name))
            return bad(s, "a frame has no name string");
        pyprof_id n, f;
        int rc;
        if ((rc = pyprof_profile_intern_lossy(s->p, &n, name->valuestring,
                                              strlen(name->valuestring), 0)) < 0)
            return rc;
        const char *fs = cJSON_IsString(file) ? file->valuestring : "";
        if ((rc = pyprof_profile_intern_lossy(s->p, &f, fs, strlen(fs), 0)) < 0)
            return rc;
        int64_t ln = 0;
        if (cJSON_IsNumber(line) && line->valuedouble >= 0 && line->valuedouble < 9e15)
            ln = (int64_t)line->valuedouble;
        if ((rc = pyprof_profile_func_intern(s->p, &s->func_of[i], f, ln, n, 0, NULL)) < 0)
            return rc;
        i++;
    }
    return 0;
}

static int
frame_index(struct ss *s, const cJSON *v, size_t *out)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble >= (double)s->nframes)
        return bad(s, "a frame index is not a valid index into shared.frames");
    *out = (size_t)v->valuedouble;
    return 0;
}

static int
read_sampled(struct ss *s, const cJSON *prof, pyprof_id base, double scale)
{
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(prof, "samples");
    const cJSON *weights = cJSON_GetObjectItemCaseSensitive(prof, "weights");
    if (!cJSON_IsArray(samples) || !cJSON_IsArray(weights))
        return bad(s, "a sampled profile needs samples and weights arrays");
    if (cJSON_GetArraySize(samples) != cJSON_GetArraySize(weights))
        return bad(s, "samples and weights differ in length");
    const cJSON *w = weights->child;
    const cJSON *sample;
    cJSON_ArrayForEach(sample, samples)
    {
        if (!cJSON_IsArray(sample) || !cJSON_IsNumber(w))
            return bad(s, "a sample is not an array of frame indices with a number weight");
        if (w->valuedouble < 0)
            return bad(s, "negative sample weight");
        pyprof_id node = base;
        const cJSON *fi;
        cJSON_ArrayForEach(fi, sample)
        {
            size_t idx = 0; /* (set when frame_index succeeds: gcc -O3 cannot tell) */
            int rc = frame_index(s, fi, &idx);
            if (rc < 0)
                return rc;
            if ((rc = pyprof_profile_stack_child(s->p, &node, node, s->func_of[idx])) < 0)
                return rc;
        }
        if (node != PYPROF_NONE && w->valuedouble > 0)
            pyprof_profile_stack_node_mut(s->p, node)->self[0] += w->valuedouble * scale;
        w = w->next;
    }
    return 0;
}

static int
read_evented(struct ss *s, const cJSON *prof, pyprof_id base, double scale)
{
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(prof, "events");
    if (!cJSON_IsArray(events))
        return bad(s, "an evented profile needs an events array");
    pyprof_id *stack = NULL;
    size_t *frames = NULL, depth = 0, cap = 0, fcap = 0;
    double last = -INFINITY;
    int rc = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, events)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(ev, "at");
        size_t idx = 0; /* (as in read_sampled) */
        if (!cJSON_IsString(type) || !cJSON_IsNumber(at)) {
            rc = bad(s, "an event needs a type and a number 'at'");
            goto out;
        }
        if ((rc = frame_index(s, cJSON_GetObjectItemCaseSensitive(ev, "frame"), &idx)) < 0)
            goto out;
        if (at->valuedouble < last) {
            rc = bad(s, "event times go backwards");
            goto out;
        }
        if (depth && last > -INFINITY)
            pyprof_profile_stack_node_mut(s->p, stack[depth - 1])->self[0] +=
                (at->valuedouble - last) * scale;
        last = at->valuedouble;
        if (strcmp(type->valuestring, "O") == 0) {
            pyprof_id parent = depth ? stack[depth - 1] : base, node;
            PYPROF_TRY(PYPROF_GROW(stack, cap, depth + 1));
            PYPROF_TRY(PYPROF_GROW(frames, fcap, depth + 1));
            PYPROF_TRY(pyprof_profile_stack_child(s->p, &node, parent, s->func_of[idx]));
            frames[depth] = idx;
            stack[depth++] = node;
        } else if (strcmp(type->valuestring, "C") == 0) {
            if (!depth || frames[depth - 1] != idx) {
                rc = bad(s, "an event closes a frame that is not on top of the stack");
                goto out;
            }
            depth--;
        } else {
            rc = bad(s, "an event type is neither \"O\" nor \"C\"");
            goto out;
        }
    }
    if (depth)
        rc = bad(s, "frames are still open at the end of an evented profile");
out:
    pyprof__free(stack);
    pyprof__free(frames);
    return rc;
}

static int
speedscope_read(pyprof_profile *p, pyprof_input *in, const pyprof_read_options *opts,
                pyprof_error *err)
{
    (void)opts;
    const unsigned char *data;
    size_t len;
    struct ss s = {p, in, err, NULL, 0};
    cJSON *root = NULL;
    int rc = pyprof_input_slurp(in, &data, &len, err);
    if (rc < 0)
        return rc;
    root = cJSON_ParseWithLength((const char *)data, len);
    if (!root) {
        const char *where = cJSON_GetErrorPtr();
        uint64_t off = where && where >= (const char *)data && where <= (const char *)data + len
                           ? (uint64_t)(where - (const char *)data)
                           : 0;
        return pyprof_input_error(in, err, PYPROF_EFORMAT, FMT, off, "invalid JSON");
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "$schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, SPEEDSCOPE_SCHEMA) != 0) {
        rc = bad(&s, "not a speedscope file: no \"$schema\": \"" SPEEDSCOPE_SCHEMA "\"");
        goto out;
    }
    PYPROF_TRY(read_frames(&s, root));
    const cJSON *profiles = cJSON_GetObjectItemCaseSensitive(root, "profiles");
    if (!cJSON_IsArray(profiles)) {
        rc = bad(&s, "no profiles array");
        goto out;
    }
    int nprof = cJSON_GetArraySize(profiles);
    const char *time_unit = NULL;
    const cJSON *prof;
    int k = 0;
    bool estimated = false; /* a profile's name says our writer estimated it */
    cJSON_ArrayForEach(prof, profiles)
    {
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(prof, "type");
        const cJSON *unit = cJSON_GetObjectItemCaseSensitive(prof, "unit");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(prof, "name");
        double scale;
        const char *tu;
        if (cJSON_IsString(name)) {
            size_t n = strlen(name->valuestring), m = sizeof(PYPROF__SPEEDSCOPE_ESTIMATED) - 1;
            estimated |=
                n >= m && strcmp(name->valuestring + n - m, PYPROF__SPEEDSCOPE_ESTIMATED) == 0;
        }
        if (!cJSON_IsString(type)) {
            rc = bad(&s, "a profile has no type");
            goto out;
        }
        unit_scale(cJSON_IsString(unit) ? unit->valuestring : "none", &scale, &tu);
        if (time_unit && strcmp(time_unit, tu) != 0) {
            rc = bad(&s, "profiles with different kinds of units cannot be combined");
            goto out;
        }
        time_unit = tu;
        pyprof_id base = PYPROF_NONE;
        if (nprof > 1) {
            char fallback[32];
            snprintf(fallback, sizeof(fallback), "profile %d", k);
            const char *nm = cJSON_IsString(name) ? name->valuestring : fallback;
            pyprof_id n, empty, f;
            PYPROF_TRY(pyprof_profile_intern_lossy(p, &n, nm, strlen(nm), 0));
            PYPROF_TRY(pyprof_profile_intern(p, &empty, "", 0));
            PYPROF_TRY(pyprof_profile_func_intern(p, &f, empty, 0, n, 0, NULL));
            pyprof_profile_func_mut(p, f)->flags |= PYPROF_FUNC_SYNTHETIC;
            PYPROF_TRY(pyprof_profile_stack_child(p, &base, PYPROF_NONE, f));
        }
        if (strcmp(type->valuestring, "sampled") == 0)
            PYPROF_TRY(read_sampled(&s, prof, base, scale));
        else if (strcmp(type->valuestring, "evented") == 0)
            PYPROF_TRY(read_evented(&s, prof, base, scale));
        else {
            rc = bad(&s, "a profile type is neither \"sampled\" nor \"evented\"");
            goto out;
        }
        k++;
    }
    PYPROF_TRY(pyprof_profile_meta_set(p, "time_unit", time_unit ? time_unit : "samples"));
    if (estimated)
        PYPROF_TRY(pyprof_profile_meta_set(p, "stacks_estimated", "1"));
    const cJSON *exporter = cJSON_GetObjectItemCaseSensitive(root, "exporter");
    if (cJSON_IsString(exporter))
        PYPROF_TRY(pyprof_profile_meta_set(p, "producer", exporter->valuestring));
    pyprof_profile_set_stack_metrics(p, 1);
    PYPROF_TRY(pyprof_profile_derive_callgraph(p, err));
out:
    if (rc == PYPROF_ENOMEM)
        pyprof_error_set(err, rc, pyprof_input_name(in), FMT, -1, 0, "out of memory");
    pyprof__free(s.func_of);
    cJSON_Delete(root);
    return rc;
}

/* The schema URL is certain; a *.speedscope.json without it is not read. */
static int
speedscope_probe(const unsigned char *head, size_t len, bool at_eof)
{
    (void)at_eof;
    size_t i = 0;
    while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    if (i >= len || head[i] != '{')
        return 0;
    static const char url[] = SPEEDSCOPE_SCHEMA;
    return memmem(head, len, url, sizeof(url) - 1) ? 100 : 0;
}

const pyprof__format pyprof__format_speedscope = {
    .name = "speedscope",
    .aliases = NULL,
    .description = "speedscope JSON (sampled and evented profiles)",
    .probe = speedscope_probe,
    .read = speedscope_read,
};
