/*
 * registry.c - the static table of formats and the probe/read front door.
 *
 * No start-up registration and no plug-ins: the table is const, in bid-tie
 * order (binary formats with magic numbers first, then text formats from the
 * most to the least specific), so probing is deterministic.
 */
#include "config.h"

#include "pyprof_int.h"

const pyprof__format *const pyprof__formats[] = {
    &pyprof__format_pstats,     &pyprof__format_lprof,     &pyprof__format_mprofile,
    &pyprof__format_speedscope, &pyprof__format_callgrind, &pyprof__format_memreport,
    &pyprof__format_collapsed,
};
const size_t pyprof__format_count = sizeof(pyprof__formats) / sizeof(pyprof__formats[0]);

size_t
pyprof_format_count(void)
{
    return pyprof__format_count;
}

const char *
pyprof_format_name(size_t i)
{
    return i < pyprof__format_count ? pyprof__formats[i]->name : NULL;
}

const char *
pyprof_format_description(size_t i)
{
    return i < pyprof__format_count ? pyprof__formats[i]->description : NULL;
}

static bool
alias_match(const char *aliases, const char *name)
{
    size_t n = strlen(name);
    for (const char *a = aliases; a && *a;) {
        size_t k = strcspn(a, " ");
        if (k == n && memcmp(a, name, n) == 0)
            return true;
        a += k;
        while (*a == ' ')
            a++;
    }
    return false;
}

static const pyprof__format *
lookup(const char *name)
{
    for (size_t i = 0; i < pyprof__format_count; i++) {
        const pyprof__format *f = pyprof__formats[i];
        if (strcmp(f->name, name) == 0 || alias_match(f->aliases, name))
            return f;
    }
    return NULL;
}

const char *
pyprof_format_canonical(const char *name)
{
    const pyprof__format *f = lookup(name);
    return f ? f->name : NULL;
}

/* Names for a few things people feed a profile viewer by mistake, so the
 * error says what the file is rather than only what it is not. */
static const char *
what_is_it(const unsigned char *h, size_t n)
{
    if (n == 0)
        return "an empty file";
    if (n >= 8 && memcmp(h, "\x89PNG\r\n\x1a\n", 8) == 0)
        return "a PNG image";
    if (n >= 4 && memcmp(h, "%PDF", 4) == 0)
        return "a PDF document";
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
        return "gzip-compressed data (decompress it first; zstd is read directly)";
    if (n >= 3 && memcmp(h, "BZh", 3) == 0)
        return "bzip2-compressed data (decompress it first; zstd is read directly)";
    if (n >= 6 && memcmp(h,
                         "\xfd"
                         "7zXZ",
                         5) == 0)
        return "xz-compressed data (decompress it first; zstd is read directly)";
    if (n >= 4 && memcmp(h,
                         "\x7f"
                         "ELF",
                         4) == 0)
        return "an ELF executable";
    if (n >= 5 && (memcmp(h, "<?xml", 5) == 0 || memcmp(h, "<svg", 4) == 0))
        return "an XML/SVG document";
    if (n >= 2 && h[0] == 0x80 && h[1] <= 5)
        return "a Python pickle that is not a line_profiler result";
    size_t i = 0;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
        i++;
    if (i < n && (h[i] == '{' || h[i] == '['))
        return "JSON of a kind this build does not read";
    if (i == n)
        return "a file of blank lines";
    return NULL;
}

int
pyprof_format_probe(pyprof_input *in, const char **name, int *score, pyprof_error *err)
{
    const unsigned char *h;
    size_t n;
    *name = NULL;
    if (score)
        *score = 0;
    int rc = pyprof_input_peek(in, PYPROF_PROBE_BYTES, &h, &n, err);
    if (rc < 0)
        return rc;
    bool at_eof = n < PYPROF_PROBE_BYTES;
    /* peek may hand back more than it was asked for (a memory input is all
     * there at once); probes are promised at most PYPROF_PROBE_BYTES and size
     * their scratch buffers by it */
    if (n > PYPROF_PROBE_BYTES)
        n = PYPROF_PROBE_BYTES;
    int best = 0;
    const pyprof__format *winner = NULL;
    for (size_t i = 0; i < pyprof__format_count; i++) {
        int bid = pyprof__formats[i]->probe(h, n, at_eof);
        if (bid > best) {
            best = bid;
            winner = pyprof__formats[i];
        }
    }
    if (!winner) {
        const char *what = what_is_it(h, n);
        if (what)
            return pyprof_error_set(err, PYPROF_EFORMAT, pyprof_input_name(in), NULL, 0, 0,
                                    "not a profile: this is %s", what);
        return pyprof_error_set(err, PYPROF_EFORMAT, pyprof_input_name(in), NULL, 0, 0,
                                "unrecognised format (known: pstats, lprof, mprofile, "
                                "speedscope, callgrind, memreport, collapsed; force one "
                                "with -f)");
    }
    *name = winner->name;
    if (score)
        *score = best;
    return 0;
}

int
pyprof_profile_read(pyprof_profile **out, pyprof_input *in, const pyprof_read_options *opts,
                    pyprof_error *err)
{
    pyprof_read_options def = PYPROF_READ_OPTIONS_INIT;
    const pyprof__format *f;
    pyprof_profile *p = NULL;
    int rc;

    *out = NULL;
    if (!opts)
        opts = &def;
    if (opts->max_bytes)
        pyprof_input_set_max_bytes(in, opts->max_bytes);
    if (opts->version >= 2 && opts->max_ratio) /* version 1 structs end before it */
        pyprof_input_set_max_ratio(in, opts->max_ratio);
    if (opts->progress)
        pyprof_input_set_progress(in, opts->progress, opts->progress_payload);
    if (opts->format) {
        f = lookup(opts->format);
        if (!f)
            return pyprof_error_set(err, PYPROF_EINVAL, NULL, NULL, -1, 0, "unknown format '%s'",
                                    opts->format);
    } else {
        const char *name;
        if ((rc = pyprof_format_probe(in, &name, NULL, err)) < 0)
            return rc;
        f = lookup(name);
    }
    if ((rc = pyprof_profile_new(&p)) < 0)
        return pyprof_error_set(err, rc, pyprof_input_name(in), f->name, -1, 0, "out of memory");
    if ((rc = f->read(p, in, opts, err)) < 0) {
        if (err && !err->source[0]) {
            /* a reader that forgot its position still names the file */
            size_t k = strlen(pyprof_input_name(in));
            if (k >= sizeof(err->source))
                k = sizeof(err->source) - 1;
            memcpy(err->source, pyprof_input_name(in), k);
            err->source[k] = '\0';
        }
        pyprof_profile_free(p);
        return rc;
    }
    if ((rc = pyprof_profile_add_source(p, pyprof_input_name(in), f->name,
                                        pyprof_input_mtime(in))) < 0) {
        pyprof_profile_free(p);
        return pyprof_error_set(err, rc, pyprof_input_name(in), f->name, -1, 0, "out of memory");
    }
    *out = p;
    return 0;
}

int
pyprof_profile_load(pyprof_profile **out, const char *path, const pyprof_read_options *opts,
                    pyprof_error *err)
{
    pyprof_input *in;
    *out = NULL;
    int rc = pyprof_input_open_file(&in, path, err);
    if (rc < 0)
        return rc;
    rc = pyprof_profile_read(out, in, opts, err);
    pyprof_input_close(in);
    return rc;
}
