/*
 * t_probe.c - what the registry says about files that are not profiles:
 * each common mistake gets a message naming what the file is, and unknown
 * format names given to -f are refused.
 */
#include "config.h"

#include <pyprof/pyprof.h>

#include "tap.h"

static void
expect(const void *data, size_t len, const char *what, const char *name)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_input_open_memory(&in, data, len, name, &err);
    int rc = pyprof_profile_read(&p, in, NULL, &err);
    char line[2048];
    pyprof_error_format(&err, line, sizeof line);
    if (!TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, what) != NULL &&
                    strncmp(line, name, strlen(name)) == 0,
                "%s: says '%s'", name, what))
        tap_diag("  got rc %d: %s", rc, line);
    pyprof_profile_free(p);
    pyprof_input_close(in);
}

int
main(void)
{
    expect("", 0, "an empty file", "empty.prof");
    expect("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "a PNG image", "graph.png");
    expect("%PDF-1.4\n", 9, "a PDF document", "x.pdf");
    expect("\x1f\x8b\x08\0\0\0\0\0", 8, "gzip", "stats.gz");
    /* (hex escapes end at the string break: "\x08" "b" is two bytes) */
    static const char evil[] = "\x80\x04\x95\x10\0\0\0\0\0\0\0\x8c\x08"
                               "builtins\x94\x8c\x04"
                               "eval\x94\x93\x94.";
    expect(evil, sizeof(evil) - 1, "pickle that is not a line_profiler result", "evil.pickle");
    expect("{\"shared\": {}, \"profiles\": []}", 30, "JSON", "x.json");
    expect("<?xml version=\"1.0\"?><svg/>", 27, "SVG", "flame.svg");
    expect("\n\n  \n", 5, "blank lines", "blank.txt");

    pyprof_input *in;
    pyprof_profile *p;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options o = PYPROF_READ_OPTIONS_INIT;
    o.format = "no-such-format";
    pyprof_input_open_memory(&in, "x", 1, "x", &err);
    TAP_IS_INT(pyprof_profile_read(&p, in, &o, &err), PYPROF_EINVAL, "unknown -f name refused");
    TAP_OK(strstr(err.message, "no-such-format") != NULL, "and named: %s", err.message);
    pyprof_input_close(in);

    TAP_IS_STR(pyprof_format_canonical("folded"), "collapsed", "alias folded");
    TAP_IS_STR(pyprof_format_canonical("collapse"), "collapsed", "alias collapse (gprof2dot)");
    TAP_OK(pyprof_format_canonical("nope") == NULL, "unknown name has no canonical form");
    TAP_OK(pyprof_format_count() >= 5, "formats registered");
    return tap_done();
}
