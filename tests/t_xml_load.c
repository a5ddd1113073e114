/*
 * t_xml_load.c - SVG output when libxml2 cannot be loaded (render/xml_load.c):
 * a one-line error that names the library, every time, and PNG unaffected.
 */
#include "config.h"

#include "render/scene.h"
#include "render/xml_load.h"
#include "tap.h"

int
main(void)
{
    pyprof__xml_use("libpyprof-no-such-libxml2.so.0");
    pyprof__scene *s;
    pyprof__scene_new(&s, 120, 80);
    pyprof__scene_rect(s, 10, 10, 50, 20, PYPROF__RGB(200, 0, 0), PYPROF__NO_COLOR, 0, 0);
    for (int i = 0; i < 2; i++) {
        pyprof_output *o;
        pyprof_error err = PYPROF_ERROR_INIT;
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
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_output_open_memory(&o, &err);
    size_t len;
    TAP_IS_INT(pyprof__scene_write_png(s, o, &err), 0, "PNG needs no libxml2");
    const unsigned char *png = pyprof_output_data(o, &len);
    TAP_OK(len > 8 && memcmp(png, "\x89PNG", 4) == 0, "...and is a PNG");
    pyprof_output_abort(o);
    pyprof__scene_free(s);
    return tap_done();
}
