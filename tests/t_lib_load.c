/*
 * t_lib_load.c - cairo is loaded by the first PNG and Graphviz by the first
 * call graph, not by every process (render/lib_load.c): a process that
 * writes SVG flame graphs has neither mapped.  When one cannot be loaded,
 * what needs it fails with a one-line error that names the library, every
 * time (for cairo also from a memory plot, whose font start-up runs on a
 * helper thread), and the rest still works.
 */
#include "config.h"

#include <stdio.h>

#include <pyprof/dot.h>
#include <pyprof/flame.h>
#include <pyprof/format.h>
#include <pyprof/mem.h>

#include "render/cairo_load.h"
#include "render/gv_load.h"
#include "tap.h"

/* Whether a library whose file name contains `name` is mapped here. */
static bool
mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

static pyprof_profile *
read_text(const char *text, const char *name, const char *format)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = format;
    pyprof_input_open_memory(&in, text, strlen(text), name, &err);
    if (pyprof_profile_read(&p, in, &ro, &err) < 0)
        tap_diag("%s: %s", name, err.message);
    pyprof_input_close(in);
    return p;
}

/* Draw p as `type`: a memory plot (`mem`) or a flame graph.  The plot's
 * family is not the one whose font files are known (png_font.c), so that
 * its font start-up runs on a helper thread (png_warmup.c). */
static int
render(pyprof_profile *p, bool mem, const char *type, pyprof_error *err)
{
    pyprof_output *o;
    pyprof_output_open_memory(&o, err);
    pyprof_mem_plot_options mo = PYPROF_MEM_PLOT_OPTIONS_INIT;
    mo.font = "Sans";
    int rc =
        mem ? pyprof_mem_plot(o, p, type, &mo, err) : pyprof_render_flame(p, NULL, type, o, err);
    pyprof_output_abort(o);
    return rc;
}

int
main(void)
{
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_profile *flame = read_text("main;run 3\nmain;idle 1\n", "two.folded", "collapsed");
    pyprof_profile *mem = read_text("CMDLINE python x.py\nMEM 1.5 1700000000.0\n"
                                    "MEM 3.25 1700000000.5\nMEM 2.0 1700000001.0\n",
                                    "mprofile_1.dat", "mprofile");
    if (!TAP_OK(flame && mem, "a flame profile and a memory profile"))
        return tap_done();

    TAP_OK(!mapped("libcairo") && !mapped("libcgraph"),
           "no cairo or Graphviz in the process before a PNG or a call graph");
    TAP_IS_INT(render(flame, false, "svg", &err), 0, "a flame graph in SVG");
    TAP_OK(!mapped("libcairo") && !mapped("libcgraph"), "...loads neither");
    pyprof_error_clear(&err);

    /* a call graph without Graphviz, twice */
    TAP_IS_INT(pyprof_profile_derive_callgraph(flame, &err), 0, "the stacks' call graph");
    pyprof__gv_use("libpyprof-no-such-cgraph.so.0");
    for (int i = 0; i < 2; i++) {
        pyprof_output *o;
        pyprof_output_open_memory(&o, &err);
        int rc = pyprof_dot_render(flame, NULL, o, &err);
        pyprof_output_abort(o);
        TAP_OK(rc == PYPROF_EIO &&
                   strstr(err.message, "cannot load libpyprof-no-such-cgraph.so.0") &&
                   strstr(err.message, "(call graphs are made with Graphviz)") &&
                   !strchr(err.message, '\n'),
               "a call graph without Graphviz fails, saying so (try %d: %s)", i + 1, err.message);
        pyprof_error_clear(&err);
    }

    pyprof__cairo_use("libpyprof-no-such-cairo.so.0");
    for (int i = 0; i < 2; i++) {
        bool m = i == 1; /* the memory plot starts its font helper first */
        int rc = render(m ? mem : flame, m, "png", &err);
        TAP_OK(rc == PYPROF_EIO &&
                   strstr(err.message, "cannot load libpyprof-no-such-cairo.so.0") &&
                   strstr(err.message, "(PNG is drawn with cairo)") && !strchr(err.message, '\n'),
               "%s in PNG without cairo fails, saying so (%s)",
               m ? "a memory plot" : "a flame graph", err.message);
        pyprof_error_clear(&err);
    }
    TAP_IS_INT(render(mem, true, "svg", &err), 0, "SVG still draws without cairo");
    pyprof_error_clear(&err);
    pyprof_profile_free(flame);
    pyprof_profile_free(mem);
    return tap_done();
}
