/*
 * flame_color.c - flamegraph.pl's colours (formats.md §9.5-9.6).
 *
 * Default colours are not random although they look it: flamegraph.pl seeds
 * Perl's drand48 generator with the sum of the name's code points, so one
 * name always gets one colour.  We run the same generator with erand48 on
 * our own state (srand48 would touch the process-wide one).  --hash derives
 * the colour from the first characters of the name and of its reverse;
 * differential graphs use white-to-red for growth and white-to-blue for
 * shrinkage, scaled by the largest change.
 */
#include "config.h"

#include <stdio.h>

#include "flame_int.h"

size_t
pyprof__flame_strip_annotation(const char *name, size_t len)
{
    if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
        strchr("kijw", name[len - 2]))
        return len - 4;
    return len;
}

static bool
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Next UTF-8 code point (invalid bytes count as themselves). */
static uint32_t
next_cp(const unsigned char **p)
{
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (n)
        c &= 0x3Fu >> n;
    (*p)++;
    for (int i = 0; i < n && (**p & 0xC0) == 0x80; i++)
        c = (c << 6) | (*(*p)++ & 0x3F);
    return c;
}

/* flamegraph.pl's default: srand(sum of code points); rand() */
static double
seeded_random(const char *name)
{
    uint32_t seed = 0;
    const unsigned char *p = (const unsigned char *)name;
    while (*p && *p < 0x80) /* an ASCII byte is its code point: most names are all ASCII */
        seed += *p++;
    while (*p)
        seed += next_cp(&p);
    unsigned short x[3] = {0x330E, (unsigned short)(seed & 0xFFFF), (unsigned short)(seed >> 16)};
    return erand48(x);
}

/* flamegraph.pl's namehash over the first three characters */
static double
name_hash(const char *name, size_t len)
{
    /* drop "one character, then anything up to the first backtick" (module`) */
    const char *tick = len > 1 ? memchr(name + 1, '`', len - 1) : NULL;
    if (tick) {
        len -= (size_t)(tick + 1 - name);
        name = tick + 1;
    }
    double vector = 0, weight = 1, max = 1;
    int mod = 10;
    const unsigned char *p = (const unsigned char *)name, *end = p + len;
    while (p < end) {
        uint32_t c = next_cp(&p);
        vector += (double)(c % (uint32_t)mod) / (mod - 1) * weight;
        mod++;
        max += weight;
        weight *= 0.70;
        if (mod > 12)
            break;
    }
    return 1 - vector / max;
}

/* The flat palette a name-dependent palette picks for `name`. */
static const char *
pick_palette(const char *pal, const char *name)
{
    if (strcmp(pal, "java") == 0) {
        if (ends_with(name, "_[j]"))
            return "green";
        if (ends_with(name, "_[i]"))
            return "aqua";
        const char *n = name[0] == 'L' ? name + 1 : name;
        static const char *const pkgs[] = {"java/", "javax/", "jdk/", "net/",
                                           "org/",  "com/",   "io/",  "sun/"};
        for (size_t i = 0; i < sizeof pkgs / sizeof *pkgs; i++)
            if (strncmp(n, pkgs[i], strlen(pkgs[i])) == 0)
                return "green";
        if (strstr(name, ":::"))
            return "green";
        if (strstr(name, "::"))
            return "yellow";
        if (ends_with(name, "_[k]"))
            return "orange";
        return "red";
    }
    if (strcmp(pal, "perl") == 0) {
        if (strstr(name, "::"))
            return "yellow";
        if (strstr(name, "Perl") || strstr(name, ".pl"))
            return "green";
        if (ends_with(name, "_[k]"))
            return "orange";
        return "red";
    }
    if (strcmp(pal, "js") == 0) {
        if (ends_with(name, "_[j]"))
            return strchr(name, '/') ? "green" : "aqua";
        if (strstr(name, "::"))
            return "yellow";
        const char *js = strstr(name, ".js");
        if (js && strchr(name, '/') && strchr(name, '/') < js)
            return "green";
        if (strchr(name, ':'))
            return "aqua";
        if (strcmp(name, " ") == 0)
            return "green";
        if (strstr(name, "_[k]"))
            return "orange";
        return "red";
    }
    if (strcmp(pal, "wakeup") == 0)
        return "aqua";
    if (strcmp(pal, "chain") == 0)
        return ends_with(name, "_[w]") ? "aqua" : "blue";
    return pal;
}

static void
palette_rgb(const char *pal, double v1, double v2, double v3, uint8_t rgb[3])
{
    int r = 0, g = 0, b = 0;
    if (strcmp(pal, "hot") == 0) {
        r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
    } else if (strcmp(pal, "mem") == 0) {
        r = 0, g = 190 + (int)(50 * v2), b = (int)(210 * v1);
    } else if (strcmp(pal, "io") == 0) {
        r = 80 + (int)(60 * v1), g = r, b = 190 + (int)(55 * v2);
    } else if (strcmp(pal, "red") == 0) {
        r = 200 + (int)(55 * v1), g = 50 + (int)(80 * v1), b = g;
    } else if (strcmp(pal, "green") == 0) {
        r = 50 + (int)(60 * v1), g = 200 + (int)(55 * v1), b = 50 + (int)(60 * v1);
    } else if (strcmp(pal, "blue") == 0) {
        r = 80 + (int)(60 * v1), g = r, b = 205 + (int)(50 * v1);
    } else if (strcmp(pal, "yellow") == 0) {
        r = 175 + (int)(55 * v1), g = r, b = 50 + (int)(20 * v1);
    } else if (strcmp(pal, "purple") == 0) {
        r = 190 + (int)(65 * v1), g = 80 + (int)(60 * v1), b = r;
    } else if (strcmp(pal, "aqua") == 0) {
        r = 50 + (int)(60 * v1), g = 165 + (int)(55 * v1), b = g;
    } else if (strcmp(pal, "orange") == 0) {
        r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0;
    }
    rgb[0] = (uint8_t)r, rgb[1] = (uint8_t)g, rgb[2] = (uint8_t)b;
}

static void
name_colour(const pyprof_flame *f, const char *name, uint8_t rgb[3])
{
    double v1, v2, v3;
    size_t len = strlen(name);
    if (f->o.hash) {
        char rev[1024];
        size_t n = len < sizeof rev ? len : sizeof rev - 1;
        /* reverse by code point, as Perl's reverse of a character string */
        size_t o = n;
        const unsigned char *p = (const unsigned char *)name, *end = p + n;
        while (p < end) {
            const unsigned char *q = p;
            next_cp(&p);
            if ((size_t)(p - q) > o)
                break;
            o -= (size_t)(p - q);
            memcpy(rev + o, q, (size_t)(p - q));
        }
        v1 = name_hash(name, len);
        v2 = v3 = name_hash(rev + o, n - o);
    } else {
        v1 = v2 = v3 = seeded_random(name);
    }
    palette_rgb(pick_palette(f->o.colors, name), v1, v2, v3, rgb);
}

static void
diff_colour(const pyprof_flame *f, double delta, uint8_t rgb[3])
{
    if (f->o.negate)
        delta = -delta;
    int r = 255, g = 255, b = 255;
    if (delta > 0) {
        g = b = (int)(210 * (f->maxdelta - delta) / f->maxdelta);
    } else if (delta < 0) {
        r = g = (int)(210 * (f->maxdelta + delta) / f->maxdelta);
    }
    rgb[0] = (uint8_t)r, rgb[1] = (uint8_t)g, rgb[2] = (uint8_t)b;
}

static void
set_bg(pyprof_flame *f)
{
    static const struct {
        const char *name;
        uint8_t c[2][3];
    } bgs[] = {
        {"yellow", {{0xee, 0xee, 0xee}, {0xee, 0xee, 0xb0}}},
        {"blue", {{0xee, 0xee, 0xee}, {0xe0, 0xe0, 0xff}}},
        {"green", {{0xee, 0xf2, 0xee}, {0xe0, 0xff, 0xe0}}},
        {"grey", {{0xf8, 0xf8, 0xf8}, {0xe8, 0xe8, 0xe8}}},
    };
    const char *bg = f->o.bgcolors;
    if (!bg) {
        const char *pal = f->o.colors;
        if (!strcmp(pal, "mem"))
            bg = "green";
        else if (!strcmp(pal, "io") || !strcmp(pal, "wakeup") || !strcmp(pal, "chain"))
            bg = "blue";
        else if (!strcmp(pal, "hot") || !strcmp(pal, "java") || !strcmp(pal, "js") ||
                 !strcmp(pal, "perl"))
            bg = "yellow";
        else
            bg = "grey";
    }
    unsigned r, g, b;
    if (bg[0] == '#' && strlen(bg) == 7 && sscanf(bg + 1, "%2x%2x%2x", &r, &g, &b) == 3) {
        for (int i = 0; i < 2; i++)
            f->bg[i][0] = (uint8_t)r, f->bg[i][1] = (uint8_t)g, f->bg[i][2] = (uint8_t)b;
        return;
    }
    for (size_t i = 0; i < sizeof bgs / sizeof *bgs; i++)
        if (strcmp(bg, bgs[i].name) == 0) {
            memcpy(f->bg, bgs[i].c, sizeof f->bg);
            return;
        }
    memcpy(f->bg, bgs[0].c, sizeof f->bg);
}

/* ---- --cp: palette.map --------------------------------------------------------------------- */

typedef struct cp_entry {
    char *name;
    uint8_t rgb[3];
} cp_entry;

static int
cp_cmp(const void *a, const void *b)
{
    return strcmp(((const cp_entry *)a)->name, ((const cp_entry *)b)->name);
}

static int
cp_apply(pyprof_flame *f, pyprof_error *err)
{
    cp_entry *map = NULL;
    size_t n = 0, cap = 0, nread;
    int rc = 0;
    FILE *fp = fopen(f->o.cp_file, "r");
    if (fp) {
        char line[4096];
        while (fgets(line, sizeof line, fp)) {
            char *arrow = strstr(line, "->rgb(");
            unsigned r, g, b;
            if (!arrow || sscanf(arrow, "->rgb(%u,%u,%u)", &r, &g, &b) != 3)
                continue;
            *arrow = '\0';
            if (PYPROF_GROW(map, cap, n + 1) < 0 || !(map[n].name = pyprof__strdup(line))) {
                rc = PYPROF_ENOMEM;
                goto out;
            }
            map[n].rgb[0] = (uint8_t)r, map[n].rgb[1] = (uint8_t)g, map[n].rgb[2] = (uint8_t)b;
            n++;
        }
        fclose(fp);
    }
    qsort(map, n, sizeof *map, cp_cmp);
    nread = n;
    for (size_t i = 0; i < f->nframes; i++) {
        pyprof_flame_frame *fr = &f->frames[i];
        if (fr->has_delta || fr->depth == 0)
            continue;
        cp_entry key = {(char *)fr->name, {0}};
        cp_entry *e = bsearch(&key, map, nread, sizeof *map, cp_cmp);
        if (!e)
            for (size_t j = nread; j < n && !e; j++)
                if (strcmp(map[j].name, fr->name) == 0)
                    e = &map[j];
        if (e) {
            fr->r = e->rgb[0], fr->g = e->rgb[1], fr->b = e->rgb[2];
            continue;
        }
        if (PYPROF_GROW(map, cap, n + 1) < 0 || !(map[n].name = pyprof__strdup(fr->name))) {
            rc = PYPROF_ENOMEM;
            goto out;
        }
        map[n].rgb[0] = fr->r, map[n].rgb[1] = fr->g, map[n].rgb[2] = fr->b;
        n++;
    }
    qsort(map, n, sizeof *map, cp_cmp);
    fp = fopen(f->o.cp_file, "w");
    if (!fp) {
        rc = pyprof_error_set(err, PYPROF_EIO, f->o.cp_file, "flame", -1, 0,
                              "cannot write the palette map");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s->rgb(%u,%u,%u)\n", map[i].name, map[i].rgb[0], map[i].rgb[1],
                map[i].rgb[2]);
    if (fclose(fp) != 0)
        rc = pyprof_error_set(err, PYPROF_EIO, f->o.cp_file, "flame", -1, 0,
                              "cannot write the palette map");
out:
    for (size_t i = 0; i < n; i++)
        pyprof__free(map[i].name);
    pyprof__free(map);
    return rc;
}

/* Colours by name, met before: a frame's name is one of the flame's own
 * interned strings, so one pointer is one name.  A graph of a 100 MB file
 * draws 15,000 frames of 7,000 names, and a name's colour (its code points
 * summed, a drand48 step, the palette's rules) cost about 550
 * instructions. */
struct colour_memo {
    struct colour_slot {
        const char *name; /* NULL: empty */
        uint8_t rgb[3];
    } * slot;
    size_t mask;
};

static struct colour_slot *
memo_slot(struct colour_memo *m, const char *name)
{
    uint64_t h = pyprof__hash_mix(0x9e3779b97f4a7c15ull, (uint64_t)(uintptr_t)name);
    for (size_t j = h & m->mask;; j = (j + 1) & m->mask)
        if (!m->slot[j].name || m->slot[j].name == name)
            return &m->slot[j];
}

int
pyprof__flame_colour(pyprof_flame *f, pyprof_error *err)
{
    set_bg(f);
    /* at most half full; without memory, every frame is coloured anew */
    struct colour_memo m = {NULL, 0};
    size_t want = 16;
    while (want < 2 * f->nframes)
        want *= 2;
    if (!f->differential && (m.slot = pyprof__calloc(want, sizeof(*m.slot))) != NULL)
        m.mask = want - 1;
    for (size_t i = 0; i < f->nframes; i++) {
        pyprof_flame_frame *fr = &f->frames[i];
        uint8_t rgb[3];
        const char *name = fr->depth == 0 ? "" : fr->name;
        struct colour_slot *e = m.slot && fr->depth ? memo_slot(&m, name) : NULL;
        if (e && e->name) {
            memcpy(rgb, e->rgb, 3);
        } else if (strcmp(name, "--") == 0) {
            rgb[0] = rgb[1] = rgb[2] = 160;
        } else if (strcmp(name, "-") == 0) {
            rgb[0] = rgb[1] = rgb[2] = 200;
        } else if (f->differential) {
            diff_colour(f, fr->has_delta ? fr->delta : 0, rgb);
        } else {
            name_colour(f, name, rgb);
        }
        if (e && !e->name) {
            e->name = name;
            memcpy(e->rgb, rgb, 3);
        }
        fr->r = rgb[0], fr->g = rgb[1], fr->b = rgb[2];
    }
    pyprof__free(m.slot);
    if (f->o.cp_file && !f->differential)
        return cp_apply(f, err);
    return 0;
}
