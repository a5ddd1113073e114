/*
 * t_xml_load.c - SVG output when libxml2 cannot be loaded (render/xml_load.c):
 * a one-line error that names the library, every time, also when a flame
 * graph had the load started on a helper thread, and PNG unaffected.
 */
#include "config.h"

#include <pyprof/flame.h>
#include <pyprof/format.h>

#include "render/scene.h"
#include "render/xml_load.h"
#include "tap.h"

int
main(void)
{
    pyprof__xml_use("libpyprof-no-such-libxml2.so.0");
    /* first, so that the load happens there: pyprof_render_flame starts it
     * on a helper thread during the layout, and the failure is still the
     * caller's error; PNG still works */
    static const char folded[] = "main;run 3\nmain;idle 1\n";
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_input_open_memory(&in, folded, sizeof folded - 1, "two.folded", &err);
    TAP_IS_INT(pyprof_profile_read(&p, in, NULL, &err), 0, "a two-stack profile");
    pyprof_input_close(in);
    for (int i = 0; i < 2; i++) {
        const char *type = i ? "png" : "svg";
        pyprof_output *o;
        pyprof_output_open_memory(&o, &err);
        int rc = pyprof_render_flame(p, NULL, type, o, &err);
        if (i == 0)
            TAP_OK(rc == PYPROF_EIO &&
                       strstr(err.message, "cannot load libpyprof-no-such-libxml2.so.0") &&
                       !strchr(err.message, '\n'),
                   "a flame graph in SVG without libxml2 fails, saying so (%s)", err.message);
        else
            TAP_IS_INT(rc, 0, "...in PNG it is drawn");
        pyprof_error_clear(&err);
        pyprof_output_abort(o);
    }
    pyprof_profile_free(p);

    pyprof__scene *s;
    pyprof__scene_new(&s, 120, 80);
    pyprof__scene_rect(s, 10, 10, 50, 20, PYPROF__RGB(200, 0, 0), PYPROF__NO_COLOR, 0, 0);
    for (int i = 0; i < 2; i++) {
        pyprof_output *o;
        pyprof_output_open_memory(&o, &err);
        int rc = pyprof__scene_write_svg(s, o, &err);
        TAP_OK(rc == PYPROF_EIO &&
                   strstr(err.message, "cannot load libpyprof-no-such-libxml2.so.0") &&
                   strstr(err.message, "libxml2") && !strchr(err.message, '\n'),
               "SVG without libxml2 fails, saying so (try %d: %s)", i + 1, err.message);
        pyprof_error_clear(&err);
        pyprof_output_abort(o);
    }
    pyprof_output *o;
    pyprof_output_open_memory(&o, &err);
    size_t len;
    TAP_IS_INT(pyprof__scene_write_png(s, o, &err), 0, "PNG needs no libxml2");
    const unsigned char *png = pyprof_output_data(o, &len);
    TAP_OK(len > 8 && memcmp(png, "\x89PNG", 4) == 0, "...and is a PNG");
    pyprof_output_abort(o);
    pyprof__scene_free(s);
    return tap_done();
}
