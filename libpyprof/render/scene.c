/*
 * scene.c - storage of a scene: an append-only list of items whose strings
 * and point arrays live in the scene's arena (freed in one sweep).
 */
#include "config.h"

#include "scene.h"

struct pyprof__scene {
    pyprof__arena arena;
    double width, height;
    const char *font;
    pyprof__rgba bg_top, bg_bottom;
    const char *style, *script;
    const char **root_attrs;
    size_t nroot_attrs, root_attrs_cap;
    const char **comments;
    size_t ncomments, comments_cap;
    pyprof__item *items;
    size_t nitems, items_cap;
    int depth; /* open groups */
};

static const char *
copy_str(pyprof__scene *s, const char *str)
{
    if (!str)
        return NULL;
    size_t n = strlen(str);
    char *c = pyprof__arena_alloc(&s->arena, n + 1);
    if (c)
        memcpy(c, str, n + 1);
    return c;
}

int
pyprof__scene_new(pyprof__scene **out, double width, double height)
{
    pyprof__scene *s = pyprof__calloc(1, sizeof(*s));
    *out = s;
    if (!s)
        return PYPROF_ENOMEM;
    s->width = width;
    s->height = height;
    s->font = "Verdana";
    s->bg_top = s->bg_bottom = PYPROF__RGB(255, 255, 255);
    return 0;
}

void
pyprof__scene_free(pyprof__scene *s)
{
    if (!s)
        return;
    pyprof__arena_free(&s->arena);
    pyprof__free(s->items);
    pyprof__free(s->root_attrs);
    pyprof__free(s->comments);
    pyprof__free(s);
}

double
pyprof__scene_width(const pyprof__scene *s)
{
    return s->width;
}

double
pyprof__scene_height(const pyprof__scene *s)
{
    return s->height;
}

int
pyprof__scene_set_font(pyprof__scene *s, const char *family)
{
    const char *f = copy_str(s, family);
    if (!f)
        return PYPROF_ENOMEM;
    s->font = f;
    return 0;
}

void
pyprof__scene_set_background(pyprof__scene *s, pyprof__rgba top, pyprof__rgba bottom)
{
    s->bg_top = top;
    s->bg_bottom = bottom;
}

int
pyprof__scene_set_style(pyprof__scene *s, const char *css)
{
    s->style = copy_str(s, css);
    return s->style || !css ? 0 : PYPROF_ENOMEM;
}

int
pyprof__scene_set_script(pyprof__scene *s, const char *js)
{
    s->script = copy_str(s, js);
    return s->script || !js ? 0 : PYPROF_ENOMEM;
}

int
pyprof__scene_root_attr(pyprof__scene *s, const char *name, const char *value)
{
    if (PYPROF_GROW(s->root_attrs, s->root_attrs_cap, 2 * s->nroot_attrs + 2) < 0)
        return PYPROF_ENOMEM;
    const char *n = copy_str(s, name), *v = copy_str(s, value);
    if (!n || !v)
        return PYPROF_ENOMEM;
    s->root_attrs[2 * s->nroot_attrs] = n;
    s->root_attrs[2 * s->nroot_attrs + 1] = v;
    s->nroot_attrs++;
    return 0;
}

int
pyprof__scene_add_comment(pyprof__scene *s, const char *text)
{
    if (PYPROF_GROW(s->comments, s->comments_cap, s->ncomments + 1) < 0)
        return PYPROF_ENOMEM;
    const char *c = copy_str(s, text);
    if (!c)
        return PYPROF_ENOMEM;
    s->comments[s->ncomments++] = c;
    return 0;
}

size_t
pyprof__scene_comments(const pyprof__scene *s, const char *const **comments)
{
    *comments = s->comments;
    return s->ncomments;
}

static pyprof__item *
add(pyprof__scene *s, pyprof__item_kind kind)
{
    if (PYPROF_GROW(s->items, s->items_cap, s->nitems + 1) < 0)
        return NULL;
    pyprof__item *it = &s->items[s->nitems++];
    memset(it, 0, sizeof(*it));
    it->kind = kind;
    return it;
}

int
pyprof__scene_rect(pyprof__scene *s, double x, double y, double w, double h, pyprof__rgba fill,
                   pyprof__rgba stroke, double stroke_width, double rx)
{
    pyprof__item *it = add(s, PYPROF__ITEM_RECT);
    if (!it)
        return PYPROF_ENOMEM;
    it->x = x;
    it->y = y;
    it->w = w;
    it->h = h;
    it->fill = fill;
    it->stroke = stroke;
    it->stroke_width = stroke_width;
    it->rx = rx;
    return 0;
}

int
pyprof__scene_line(pyprof__scene *s, double x0, double y0, double x1, double y1,
                   pyprof__rgba stroke, double width, bool dashed)
{
    pyprof__item *it = add(s, PYPROF__ITEM_LINE);
    if (!it)
        return PYPROF_ENOMEM;
    it->x = x0;
    it->y = y0;
    it->w = x1;
    it->h = y1;
    it->stroke = stroke;
    it->stroke_width = width;
    it->dashed = dashed;
    return 0;
}

static int
add_points(pyprof__scene *s, pyprof__item_kind kind, const double *xy, size_t npoints,
           pyprof__item **out)
{
    size_t bytes;
    if (pyprof__mul_overflows(npoints, 2 * sizeof(double), &bytes))
        return PYPROF_ENOMEM;
    double *pts = pyprof__arena_alloc(&s->arena, bytes ? bytes : 1);
    if (!pts)
        return PYPROF_ENOMEM;
    memcpy(pts, xy, bytes);
    pyprof__item *it = add(s, kind);
    if (!it)
        return PYPROF_ENOMEM;
    it->points = pts;
    it->npoints = npoints;
    *out = it;
    return 0;
}

int
pyprof__scene_polyline(pyprof__scene *s, const double *xy, size_t npoints, pyprof__rgba stroke,
                       double width, bool dashed)
{
    pyprof__item *it;
    int rc = add_points(s, PYPROF__ITEM_POLYLINE, xy, npoints, &it);
    if (rc < 0)
        return rc;
    it->stroke = stroke;
    it->stroke_width = width;
    it->dashed = dashed;
    return 0;
}

int
pyprof__scene_polygon(pyprof__scene *s, const double *xy, size_t npoints, pyprof__rgba fill)
{
    pyprof__item *it;
    int rc = add_points(s, PYPROF__ITEM_POLYGON, xy, npoints, &it);
    if (rc < 0)
        return rc;
    it->fill = fill;
    return 0;
}

int
pyprof__scene_text(pyprof__scene *s, double x, double y, const char *utf8, double font_size,
                   pyprof__anchor anchor, pyprof__rgba color)
{
    const char *t = copy_str(s, utf8);
    if (!t)
        return PYPROF_ENOMEM;
    pyprof__item *it = add(s, PYPROF__ITEM_TEXT);
    if (!it)
        return PYPROF_ENOMEM;
    it->x = x;
    it->y = y;
    it->text = t;
    it->font_size = font_size;
    it->anchor = anchor;
    it->fill = color;
    return 0;
}

int
pyprof__scene_group_begin(pyprof__scene *s, const char *tooltip)
{
    const char *t = NULL;
    if (tooltip && !(t = copy_str(s, tooltip)))
        return PYPROF_ENOMEM;
    pyprof__item *it = add(s, PYPROF__ITEM_GROUP_BEGIN);
    if (!it)
        return PYPROF_ENOMEM;
    it->text = t;
    s->depth++;
    return 0;
}

int
pyprof__scene_group_end(pyprof__scene *s)
{
    if (s->depth <= 0)
        return PYPROF_EINVAL;
    if (!add(s, PYPROF__ITEM_GROUP_END))
        return PYPROF_ENOMEM;
    s->depth--;
    return 0;
}

static pyprof__item *
last(pyprof__scene *s)
{
    return s->nitems ? &s->items[s->nitems - 1] : NULL;
}

int
pyprof__scene_id(pyprof__scene *s, const char *id)
{
    pyprof__item *it = last(s);
    if (!it)
        return PYPROF_EINVAL;
    return (it->id = copy_str(s, id)) ? 0 : PYPROF_ENOMEM;
}

int
pyprof__scene_class(pyprof__scene *s, const char *cls)
{
    pyprof__item *it = last(s);
    if (!it)
        return PYPROF_EINVAL;
    return (it->cls = copy_str(s, cls)) ? 0 : PYPROF_ENOMEM;
}

int
pyprof__scene_attr(pyprof__scene *s, const char *name, const char *value)
{
    pyprof__item *it = last(s);
    if (!it)
        return PYPROF_EINVAL;
    /* attribute arrays live in the arena: copy into a one-larger array */
    const char **na = pyprof__arena_alloc(&s->arena, (2 * it->nattrs + 2) * sizeof(*na));
    const char *n = copy_str(s, name), *v = copy_str(s, value);
    if (!na || !n || !v)
        return PYPROF_ENOMEM;
    if (it->nattrs)
        memcpy(na, it->attrs, 2 * it->nattrs * sizeof(*na));
    na[2 * it->nattrs] = n;
    na[2 * it->nattrs + 1] = v;
    it->attrs = na;
    it->nattrs++;
    return 0;
}

void
pyprof__scene_dash(pyprof__scene *s, double on, double off)
{
    pyprof__item *it = last(s);
    if (it && (it->kind == PYPROF__ITEM_LINE || it->kind == PYPROF__ITEM_POLYLINE) && on > 0 &&
        off > 0) {
        it->dashed = true;
        it->dash[0] = on;
        it->dash[1] = off;
    }
}

void
pyprof__scene_coarse(pyprof__scene *s)
{
    pyprof__item *it = last(s);
    if (it && (it->kind == PYPROF__ITEM_POLYLINE || it->kind == PYPROF__ITEM_POLYGON))
        it->coarse = true;
}

void
pyprof__scene_text_style(pyprof__scene *s, bool bold, double rotate_degrees)
{
    pyprof__item *it = last(s);
    if (it && it->kind == PYPROF__ITEM_TEXT) {
        it->bold = bold;
        it->rotate = rotate_degrees;
    }
}

size_t
pyprof__scene_item_count(const pyprof__scene *s)
{
    return s->nitems;
}

const pyprof__item *
pyprof__scene_item(const pyprof__scene *s, size_t i)
{
    return i < s->nitems ? &s->items[i] : NULL;
}

double
pyprof__scene_text_width(double font_size, const char *utf8)
{
    return 0.59 * font_size * (double)pyprof__utf8_length(utf8, strlen(utf8));
}

const char *
pyprof__scene_font(const pyprof__scene *s)
{
    return s->font;
}

void
pyprof__scene_background(const pyprof__scene *s, pyprof__rgba *top, pyprof__rgba *bottom)
{
    *top = s->bg_top;
    *bottom = s->bg_bottom;
}

const char *
pyprof__scene_style(const pyprof__scene *s)
{
    return s->style;
}

const char *
pyprof__scene_script(const pyprof__scene *s)
{
    return s->script;
}

size_t
pyprof__scene_root_attrs(const pyprof__scene *s, const char *const **attrs)
{
    *attrs = s->root_attrs;
    return s->nroot_attrs;
}
