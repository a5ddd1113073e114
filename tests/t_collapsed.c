/*
 * t_collapsed.c - the collapsed (folded) stacks reader: flamegraph.pl's line
 * grammar and its edge cases, every dialect (py-spy, austin 1.x and 3.x with
 * metadata and full-mode metrics, pyflame timestamps), differential and
 * fractional counts, CRLF, UTF-16 (both byte orders), UTF-8 and invalid
 * bytes, zstd, bad lines counted with their numbers, the probe's bids, and
 * the call graph derived from the stacks.
 */
#include "config.h"

#include <zstd.h>

#include <pyprof/flame.h>
#include <pyprof/pyprof.h>

#include "collapsed.h"
#include "pyprof_int.h"
#include "tap.h"

static pyprof_profile *
read_buf(const void *data, size_t len, const char *format)
{
    pyprof_input *in;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = format;
    if (pyprof_input_open_memory(&in, data, len, "test", &err) < 0)
        return NULL;
    if (pyprof_profile_read(&p, in, &ro, &err) < 0)
        tap_diag("read failed: %s", err.message);
    pyprof_input_close(in);
    return p;
}

static pyprof_profile *
read_str(const char *s)
{
    return read_buf(s, strlen(s), "collapsed");
}

/* The node for a ";"-separated path of frame texts, or PYPROF_NONE. */
static pyprof_id
node_of(pyprof_profile *p, const char *path)
{
    pyprof_id node = PYPROF_NONE;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save, *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        const pyprof_id *kids;
        size_t n;
        pyprof_id found = PYPROF_NONE;
        if (pyprof_profile_stack_children(p, node, &kids, &n) < 0)
            return PYPROF_NONE;
        for (size_t i = 0; i < n; i++) {
            char lab[512];
            pyprof_flame_frame_label(p, pyprof_profile_stack_node(p, kids[i])->func, lab,
                                     sizeof lab);
            if (strcmp(lab, tok) == 0)
                found = kids[i];
        }
        if (found == PYPROF_NONE)
            return PYPROF_NONE;
        node = found;
    }
    return node;
}

static double
self_of(pyprof_profile *p, const char *path, int metric)
{
    pyprof_id n = node_of(p, path);
    return n == PYPROF_NONE ? -1 : pyprof_profile_stack_node(p, n)->self[metric];
}

static pyprof_id
func_named(pyprof_profile *p, const char *name)
{
    for (size_t i = 0; i < pyprof_profile_func_count(p); i++)
        if (strcmp(pyprof_profile_string(p, pyprof_profile_func(p, (pyprof_id)i)->name), name) == 0)
            return (pyprof_id)i;
    return PYPROF_NONE;
}

static const char simple[] = "a;b;c 1\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5\n";

static void
check_simple(pyprof_profile *p, const char *what)
{
    char name[128];
    snprintf(name, sizeof name, "%s: 4 stack nodes", what);
    TAP_IS_INT(p ? pyprof_profile_stack_count(p) : 0, 4, name);
    if (!p)
        return;
    snprintf(name, sizeof name, "%s: a;b;c summed over 3 lines", what);
    TAP_IS_DBL(self_of(p, "a;b;c", 0), 5, 0, name);
    snprintf(name, sizeof name, "%s: a;b;d", what);
    TAP_IS_DBL(self_of(p, "a;b;d", 0), 4, 0, name);
    snprintf(name, sizeof name, "%s: a;b self", what);
    TAP_IS_DBL(self_of(p, "a;b", 0), 5, 0, name);
}

static void
test_grammar(void)
{
    pyprof_profile *p = read_str(simple);
    check_simple(p, "plain");
    /* the reader leaves the call graph to its consumers */
    TAP_OK(!(pyprof_profile_caps(p) & PYPROF_CAP_EDGES) &&
               pyprof_profile_func(p, func_named(p, "a"))->counts.cumtime == 0,
           "no call graph until derived");
    TAP_OK(pyprof_profile_derive_callgraph(p, NULL) == 0, "derive the call graph");
    pyprof_id a = func_named(p, "a"), b = func_named(p, "b");
    TAP_IS_DBL(pyprof_profile_func(p, a)->counts.cumtime, 14, 0, "derived: a total 14");
    TAP_IS_DBL(pyprof_profile_func(p, b)->counts.tottime, 5, 0, "derived: b self 5");
    pyprof_id e = pyprof_profile_edge_find(p, a, b);
    TAP_OK(e != PYPROF_NONE && pyprof_profile_edge(p, e)->counts.cumtime == 14,
           "derived: edge a -> b carries 14");
    TAP_IS_STR(pyprof_profile_meta_get(p, "time_unit"), "samples", "time unit is samples");
    pyprof_profile_free(p);

    /* recursion counts once per sample */
    p = read_str("a;b;a;b 3\na 1\n");
    pyprof_profile_derive_callgraph(p, NULL);
    a = func_named(p, "a");
    b = func_named(p, "b");
    TAP_IS_DBL(pyprof_profile_func(p, a)->counts.cumtime, 4, 0, "recursion: a total 4, not 7");
    TAP_IS_DBL(pyprof_profile_func(p, b)->counts.cumtime, 3, 0, "recursion: b total 3, not 6");
    pyprof_profile_free(p);

    /* prefix cache: unsorted lines that share and leave prefixes */
    p = read_str("a;b;c 1\na;b 2\na;x;c 3\na;b;c 4\nq 1\na;b;c;d 1\n");
    TAP_IS_DBL(self_of(p, "a;b;c", 0), 5, 0, "prefix cache: a;b;c 1 + 4");
    TAP_IS_DBL(self_of(p, "a;x;c", 0), 3, 0, "prefix cache: a;x;c");
    TAP_IS_DBL(self_of(p, "a;b;c;d", 0), 1, 0, "prefix cache: a;b;c;d below a;b;c");
    TAP_IS_INT(pyprof_profile_stack_count(p), 7, "prefix cache: 7 distinct nodes");
    pyprof_profile_free(p);

    p = read_str("a;b 1.5\na 0.25\nc 2.\n");
    TAP_IS_DBL(self_of(p, "a;b", 0), 1.5, 1e-12, "fractional count 1.5");
    TAP_IS_DBL(self_of(p, "a", 0), 0.25, 1e-12, "fractional count 0.25");
    TAP_IS_DBL(self_of(p, "c", 0), 2, 0, "count '2.' (digits and a dot)");
    pyprof_profile_free(p);

    p = read_str("main;foo  300\nx\ty 2\na;b; 3\n;a 4\n 5\nt;u\t7\n");
    TAP_IS_DBL(self_of(p, "main;foo ", 0), 300, 0, "two spaces: the leaf keeps one ('foo ')");
    TAP_IS_DBL(self_of(p, "x\ty", 0), 2, 0, "a tab inside a name: 'x\\ty' is one frame");
    TAP_IS_DBL(self_of(p, "t;u", 0), 7, 0, "a tab before the count separates it");
    TAP_IS_DBL(self_of(p, "a;b", 0), 3, 0, "trailing ';' dropped, as Perl's split");
    TAP_IS_INT(pyprof_profile_func_count(p) > 0 && func_named(p, "") != PYPROF_NONE, 1,
               "';a': an empty frame name");
    TAP_IS_STR(pyprof_profile_meta_get(p, "stack_root_weight"), "5", "' 5': weight of the root");
    pyprof_profile_free(p);

    p = read_str("a;b 2 5\na;c 12 4\n");
    TAP_IS_INT(pyprof_profile_stack_metrics(p), 2, "differential: two metrics");
    TAP_IS_STR(pyprof_profile_meta_get(p, "stack_metrics"), "before,after",
               "differential: metadata says before,after");
    TAP_IS_DBL(self_of(p, "a;b", 0), 2, 0, "differential: before");
    TAP_IS_DBL(self_of(p, "a;b", 1), 5, 0, "differential: after");
    TAP_IS_DBL(self_of(p, "a;c", 1), 4, 0, "'a;c 12 4' is differential, as in flamegraph.pl");
    pyprof_profile_free(p);
}

/* Counts of any length are read whole: a count's digits cut off at a
 * buffer's size gave a number 10^27 too small, and no warning. */
static void
test_long_counts(void)
{
    static const char digits[] = "1234567890123456789012345678901234567890"
                                 "12345678901234567890123456789012345678901234567890";
    char text[512];
    snprintf(text, sizeof text, "a;b %s\na;c %s.5 %s\n", digits, digits, digits);
    pyprof_profile *p = read_str(text);
    double want = strtod(digits, NULL);
    char frac[128];
    snprintf(frac, sizeof frac, "%s.5", digits);
    TAP_OK(p && self_of(p, "a;b", 0) == want, "a 90-digit count is read whole (%g)",
           p ? self_of(p, "a;b", 0) : -1.0);
    TAP_OK(p && self_of(p, "a;c", 0) == strtod(frac, NULL) && self_of(p, "a;c", 1) == want,
           "...with a fraction, and as the first of two counts");
    pyprof_profile_free(p);
}

static void
test_bad_lines(void)
{
    pyprof_profile *p = read_str("a;b 2\nfoo\n\nx;y .5\nz 3\n-1\nw;v -3\n");
    TAP_IS_STR(pyprof_profile_meta_get(p, "malformed_lines"), "4", "4 malformed lines counted");
    TAP_IS_STR(pyprof_profile_meta_get(p, "malformed_line_numbers"), "2,4,6,7",
               "their line numbers are kept");
    TAP_IS_STR(pyprof_profile_meta_get(p, "blank_lines"), "1", "the blank line is counted");
    TAP_IS_INT(func_named(p, "foo"), PYPROF_NONE, "a bad line is never a frame");
    TAP_IS_DBL(self_of(p, "z", 0), 3, 0, "good lines after bad ones are read");
    pyprof_profile_free(p);

    char many[4096] = "";
    for (int i = 0; i < 30; i++)
        strcat(many, i % 2 ? "a 1\n" : "bad\n");
    p = read_str(many);
    TAP_IS_STR(pyprof_profile_meta_get(p, "malformed_lines"), "15", "15 of 30 lines bad");
    TAP_IS_STR(pyprof_profile_meta_get(p, "malformed_line_numbers"), "1,3,5,7,9,11,13,15,17,19",
               "the first ten line numbers are kept");
    pyprof_profile_free(p);
}

static void
test_encodings(void)
{
    pyprof_profile *p = read_str("a;b;c 1\r\na;b;c 1\r\na;b;d 4\r\na;b;c 3\r\na;b 5\r\n");
    check_simple(p, "CRLF");
    TAP_IS_STR(pyprof_profile_meta_get(p, "crlf_lines"), "5", "CRLF lines counted");
    pyprof_profile_free(p);

    /* UTF-16 with a BOM, both byte orders */
    for (int be = 0; be < 2; be++) {
        unsigned char buf[256];
        size_t n = 0;
        buf[n++] = be ? 0xFE : 0xFF;
        buf[n++] = be ? 0xFF : 0xFE;
        for (const char *q = simple; *q; q++) {
            buf[n++] = be ? 0 : (unsigned char)*q;
            buf[n++] = be ? (unsigned char)*q : 0;
        }
        p = read_buf(buf, n, NULL); /* probed */
        check_simple(p, be ? "UTF-16BE" : "UTF-16LE");
        TAP_IS_STR(p ? pyprof_profile_meta_get(p, "encoding") : "", be ? "UTF-16BE" : "UTF-16LE",
                   "encoding recorded");
        pyprof_profile_free(p);
    }
    /* a non-BMP character through a surrogate pair */
    static const unsigned char u16[] = {0xFF, 0xFE, 'x', 0, ';', 0, 0x3D, 0xD8,
                                        0x25, 0xDE, ' ', 0, '2', 0, '\n', 0};
    p = read_buf(u16, sizeof u16, "collapsed");
    TAP_IS_DBL(self_of(p, "x;\xF0\x9F\x98\xA5", 0), 2, 0, "UTF-16 surrogate pair -> U+1F625");
    pyprof_profile_free(p);

    p = read_str("\xEF\xBB\xBFh\xC3\xA9llo;w\xC3\xB6rld 2\na\xFF;b 1\n");
    TAP_IS_DBL(self_of(p, "h\xC3\xA9llo;w\xC3\xB6rld", 0), 2, 0, "UTF-8 BOM skipped, names kept");
    TAP_IS_DBL(self_of(p, "a\xEF\xBF\xBD;b", 0), 1, 0, "an invalid byte becomes U+FFFD");
    TAP_OK(pyprof_profile_replacements(p) == 1, "the replacement is counted");
    pyprof_profile_free(p);

    /* the reader checks whole stacks for plain ASCII 32 and 8 bytes at a
     * time: a byte to repair at any place of a long stack is found */
    static const size_t at[] = {0, 15, 16, 31, 32, 47, 63, 64, 70, 95, 99};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        char line[128], want[128];
        memset(line, 'f', 100);
        for (size_t k = 9; k < 100; k += 10)
            line[k] = ';'; /* ten frames of nine bytes */
        if (line[at[i]] == ';')
            continue;
        line[at[i]] = '\xFF';
        snprintf(line + 100, sizeof line - 100, " 3\n");
        p = read_str(line);
        memcpy(want, line, at[i]);
        snprintf(want + at[i], sizeof want - at[i], "\xEF\xBF\xBD%.*s", (int)(98 - at[i]),
                 line + at[i] + 1);
        TAP_OK(p && pyprof_profile_replacements(p) == 1 && self_of(p, want, 0) == 3,
               "an invalid byte at %zu of a 99-byte stack is repaired", at[i]);
        pyprof_profile_free(p);
    }

    /* zstd-compressed input is decoded by the input layer */
    size_t cap = ZSTD_compressBound(sizeof simple);
    void *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, simple, sizeof simple - 1, 3);
    p = read_buf(z, zn, NULL);
    check_simple(p, "zstd");
    pyprof_profile_free(p);
    free(z);
}

static void
test_dialects(void)
{
    /* py-spy: NAME (FILE:LINE) */
    pyprof_profile *p =
        read_str("main (app.py:10);work (lib/x.py:20) 7\nmain (app.py:10);thread (0x1) 1\n");
    pyprof_id w = func_named(p, "work");
    const pyprof_func *f = pyprof_profile_func(p, w);
    TAP_OK(f && strcmp(pyprof_profile_string(p, f->file), "lib/x.py") == 0 && f->line == 20,
           "py-spy frame: name, file and line split");
    char lab[256];
    pyprof_flame_frame_label(p, w, lab, sizeof lab);
    TAP_IS_STR(lab, "work (lib/x.py:20)", "py-spy frame text rebuilt exactly");
    /* as snprintf: the whole length returned, the text cut to the buffer */
    size_t sizes[] = {19, 18, 7, 1}, n;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        memset(lab, 'x', sizeof lab);
        n = pyprof_flame_frame_label(p, w, lab, sizes[i]);
        TAP_OK(n == 18 && strlen(lab) == sizes[i] - 1 &&
                   strncmp(lab, "work (lib/x.py:20)", sizes[i] - 1) == 0,
               "py-spy label into %zu bytes: %zu returned, \"%s\" written", sizes[i], n, lab);
    }
    lab[0] = 'x';
    TAP_OK(pyprof_flame_frame_label(p, w, lab, 0) == 18 && lab[0] == 'x',
           "...into 0 bytes: the length, nothing written");
    TAP_OK(func_named(p, "thread (0x1)") != PYPROF_NONE, "'thread (0x1)' stays a plain name");
    pyprof_profile_free(p);

    /* austin 3.x: metadata at both ends, P/T frames, FILE:NAME:LINE */
    p = read_str("# austin: 3.4.0\n# interval: 100\n# mode: wall\n\n"
                 "P1;T2;a.py:main:3;C:\\w\\b.py:f:7 100\nP1;T2 21\nP1;T2;a.py:main:3 0\n\n"
                 "# duration: 5\n");
    TAP_IS_STR(pyprof_profile_meta_get(p, "austin.interval"), "100", "austin: # interval");
    TAP_IS_STR(pyprof_profile_meta_get(p, "austin.duration"), "5", "austin: # duration at end");
    TAP_IS_STR(pyprof_profile_meta_get(p, "producer"), "austin 3.4.0", "austin: producer");
    TAP_IS_INT(pyprof_profile_meta_get(p, "malformed_lines") == NULL, 1,
               "austin: metadata lines are not malformed");
    f = pyprof_profile_func(p, func_named(p, "f"));
    TAP_OK(f && strcmp(pyprof_profile_string(p, f->file), "C:\\w\\b.py") == 0 && f->line == 7,
           "austin 3: FILE:NAME:LINE split from the right (':' in the file)");
    f = pyprof_profile_func(p, func_named(p, "P1"));
    TAP_OK(f && (f->flags & PYPROF_FUNC_SYNTHETIC), "austin: P1 is a synthetic frame");
    TAP_IS_DBL(self_of(p, "P1;T2", 0), 21, 0, "austin: frame-less sample on the thread");
    TAP_IS_INT(func_named(p, "# interval:"), PYPROF_NONE, "austin: metadata is not a frame");
    pyprof_profile_free(p);

    /* a damaged comment is a malformed line, never a frame: written out as
     * a stack it would come back as metadata */
    p = read_str("# austin: 3.4.0\n# interval\x01: 7 100\nP1;T2;a.py:f:1 10\n");
    TAP_IS_STR(pyprof_profile_meta_get(p, "malformed_lines"), "1",
               "austin: a comment that is not '# key: value' is malformed");
    TAP_IS_INT(func_named(p, "# interval\x01: 7"), PYPROF_NONE, "austin: ...and not a frame");
    pyprof_profile_free(p);

    p = read_str("# austin: 3.4.0\n# mode: full\nP1;T2;a.py:main:3 10,0,-500\n"
                 "P1;T2;a.py:main:3 5,1,200\nP1;T2;a.py:g:4 -7\n");
    TAP_IS_STR(pyprof_profile_meta_get(p, "stack_metrics"), "time,memory",
               "austin full mode: time and memory");
    TAP_IS_DBL(self_of(p, "P1;T2;a.py:main:3", 0), 15, 0, "austin full: time summed");
    TAP_IS_DBL(self_of(p, "P1;T2;a.py:main:3", 1), -300, 0, "austin full: memory summed");
    TAP_IS_DBL(self_of(p, "P1;T2;a.py:g:4", 0), -7, 0, "austin memory mode: signed delta");
    pyprof_profile_free(p);

    /* austin 1.x: Thread frame, NAME (FILE) with the line as an "L" frame */
    p = read_str("Thread 7f0a;main (a.py);L5;f (b.py);L9 3\nThread 7f0a;main (a.py);L6 1\n");
    f = pyprof_profile_func(p, func_named(p, "f"));
    TAP_OK(f && strcmp(pyprof_profile_string(p, f->file), "b.py") == 0 &&
               (f->flags & PYPROF_FUNC_FRAME_MASK) == PYPROF_FUNC_FRAME_NAME_FILE,
           "austin 1.x: NAME (FILE)");
    TAP_IS_DBL(self_of(p, "Thread 7f0a;main (a.py);L5;f (b.py);L9", 0), 3, 0,
               "austin 1.x: L frames kept, as flamegraph.pl draws them");
    pyprof_profile_free(p);

    /* pyflame timestamp mode */
    p = read_str("1548873456123456\na.py:main:1;a.py:f:2;\n1548873456123466\n(idle)\n"
                 "1548873456123476\na.py:main:1;a.py:f:2;\n");
    TAP_IS_DBL(self_of(p, "a.py:main:1;a.py:f:2", 0), 2, 0, "pyflame timestamps: 2 samples");
    TAP_IS_DBL(self_of(p, "(idle)", 0), 1, 0, "pyflame timestamps: (idle)");
    TAP_IS_STR(pyprof_profile_meta_get(p, "producer"), "pyflame", "pyflame: producer");
    pyprof_profile_free(p);

    p = read_str("(idle) 12\na.py:main:1;a.py:f:2 3\n");
    TAP_IS_DBL(self_of(p, "(idle)", 0), 12, 0, "pyflame aggregated: (idle) N");
    pyprof_profile_free(p);
}

static void
probe_is(const char *text, const char *want, int min, const char *name)
{
    pyprof_input *in;
    const char *got = NULL;
    int score = 0;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_input_open_memory(&in, text, strlen(text), "probe", &err);
    pyprof_format_probe(in, &got, &score, &err);
    pyprof_input_close(in);
    if (want)
        TAP_OK(got && strcmp(got, want) == 0 && score >= min, "%s (%s, %d)", name,
               got ? got : "none", score);
    else
        TAP_OK(!got || strcmp(got, "collapsed") != 0, "%s (%s)", name, got ? got : "none");
}

static void
test_probe(void)
{
    probe_is(simple, "collapsed", 40, "probe: folded stacks");
    probe_is("# austin: 3.4.0\n# interval: 100\n\nP1;T2;a.py:f:1 10\n", "collapsed", 60,
             "probe: austin 3 header");
    probe_is("Thread 7f0a;main (a.py);L5 3\n", "collapsed", 60, "probe: austin 1.x");
    probe_is("1548873456123456\na.py:main:1;\n", "collapsed", 50, "probe: pyflame timestamps");
    probe_is("hello world\nthis is text\n", NULL, 0, "probe: plain text is not folded");
    probe_is("a 1\nb 2\n", "collapsed", 10, "probe: single frames bid low");
    /* one deep stack longer than the probe window */
    static char deep[12000];
    size_t o = 0;
    while (o < sizeof deep - 40)
        o += (size_t)snprintf(deep + o, sizeof deep - o, "frame_%zu (mod.py:%zu);", o, o);
    snprintf(deep + o - 1, sizeof deep - o + 1, " 5\n");
    probe_is(deep, "collapsed", 20, "probe: a first line longer than the window");
    pyprof_profile *p = read_buf(deep, strlen(deep), NULL);
    TAP_OK(p && pyprof_profile_stack_count(p) > 100, "a 12 kB stack is read (%zu frames)",
           p ? pyprof_profile_stack_count(p) : 0);
    pyprof_profile_free(p);
}

/* Every allocation of a read, and of a layout, failing in turn: each
 * attempt fails cleanly with ENOMEM (leaks show under ASan), then one
 * succeeds. */
static void
test_oom(void)
{
    static const char text[] = "# austin: 3.4.0\n# interval: 100\n\n"
                               "P1;T2;a.py:main:3;b.py:f:7 100\nP1;T2;a.py:main:3;b.py:g:9 50\n"
                               "P1;T3;a.py:main:3;b.py:f:7 7\nbad\nP1;T2 1\n\n# duration: 5\n";
    int bad = 0;
    long n;
    for (n = 0; n < 100000; n++) {
        pyprof_input *in;
        pyprof_profile *p = NULL;
        pyprof_error err = PYPROF_ERROR_INIT;
        pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
        ro.format = "collapsed";
        if (pyprof_input_open_memory(&in, text, sizeof text - 1, "oom", &err) < 0)
            return;
        pyprof__alloc_fail_after(n);
        int rc = pyprof_profile_read(&p, in, &ro, &err);
        pyprof_flame *f = NULL;
        if (rc == 0)
            rc = pyprof_flame_layout(&f, p, NULL, &err);
        pyprof__alloc_fail_after(-1);
        pyprof_flame_free(f);
        pyprof_profile_free(p);
        pyprof_input_close(in);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM)
            bad++;
    }
    TAP_OK(n < 100000 && bad == 0, "allocation failures 0..%ld each give ENOMEM (%d did not)", n,
           bad);
}

/* The reader's inline text searches (collapsed.h) against the obvious
 * loops: every length up to a few blocks of sixteen, every position of the
 * byte that matters, at every alignment. */
static void
test_text_helpers(void)
{
    char a[128], b[128];
    int bad_semi = 0, bad_plain = 0, bad_same = 0, bad_hash = 0;
    for (size_t at = 0; at < 16; at++) {
        for (size_t len = 0; len + at <= 100; len++) {
            memset(a, 'x', sizeof a);
            /* no ';' at all, then one at each position (and one past the end) */
            for (size_t k = 0; k <= len + 1; k++) {
                if (k < len + 1 && at + k < sizeof a)
                    a[at + k] = ';';
                size_t want = k < len ? k : len;
                unsigned odd = 0;
                if (pyprof__next_semi(a + at, 0, len, &odd) != want || odd)
                    bad_semi++;
                if (k < len && pyprof__next_semi(a + at, k + 1, len, &odd) != len)
                    bad_semi++; /* (from just past it) */
                if (k < len + 1 && at + k < sizeof a)
                    a[at + k] = 'x';
            }
            /* a byte that is not plain (not ASCII, or NUL) at each position */
            for (size_t k = 0; k < len; k++) {
                unsigned odd = 0;
                a[at + k] = k % 2 ? '\0' : '\xc3';
                if (pyprof__next_semi(a + at, 0, len, &odd) != len || !odd)
                    bad_plain++;
                a[at + k] = 'x';
            }
            /* the same text, then a difference at each position (which
             * the frame hash must see too: it reads every byte) */
            for (size_t i = 0; i < len; i++)
                a[at + i] = b[i] = (char)('a' + (i * 7 + len) % 26);
            uint64_t h = pyprof__frame_hash(b, len);
            if (!pyprof__same_text(a + at, b, len) || pyprof__frame_hash(a + at, len) != h)
                bad_same++;
            for (size_t k = 0; k < len; k++) {
                b[k] ^= 0x20;
                if (pyprof__same_text(a + at, b, len))
                    bad_same++;
                if (pyprof__frame_hash(b, len) == h)
                    bad_hash++;
                b[k] ^= 0x20;
            }
        }
    }
    TAP_OK(bad_semi == 0, "the next ';' is found at every length, position and alignment (%d not)",
           bad_semi);
    TAP_OK(bad_plain == 0, "a byte that is not plain is seen at every length and position (%d not)",
           bad_plain);
    TAP_OK(bad_same == 0, "texts compare equal or not at every length and position (%d wrong)",
           bad_same);
    TAP_OK(bad_hash == 0,
           "the frame hash changes with a byte at every length and position (%d not)", bad_hash);
}

/* pyprof__frame_split on py-spy's "NAME (FILE:LINE)": the last " (" and
 * the last ':' inside it, a canonical line, and anything else unsplit. */
static void
test_frame_split(void)
{
    static const struct {
        const char *text, *name, *file;
        int64_t line; /* 0: not split */
    } cases[] = {
        {"f (a.py:1)", "f", "a.py", 1},     {"f (x) (a.py:12)", "f (x)", "a.py", 12},
        {"g (a:b.py:3)", "g", "a:b.py", 3}, {"n ((a.py:2)", "n", "(a.py", 2},
        {"f(a.py:1)", NULL, NULL, 0},       {"h (a.py:)", NULL, NULL, 0},
        {"k (a.py:01)", NULL, NULL, 0},     {" (a.py:1)", NULL, NULL, 0},
        {"m (a.py:1) ", NULL, NULL, 0},     {"p (:4)", NULL, NULL, 0},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pyprof__frame_fields ff;
        const char *t = cases[i].text;
        bool split = pyprof__frame_split(t, strlen(t), PYPROF_FUNC_FRAME_NAME_FILE_LINE, &ff);
        bool ok = split == (cases[i].line != 0);
        if (ok && split)
            ok = ff.line == cases[i].line && ff.name_len == strlen(cases[i].name) &&
                 memcmp(ff.name, cases[i].name, ff.name_len) == 0 &&
                 ff.file_len == strlen(cases[i].file) &&
                 memcmp(ff.file, cases[i].file, ff.file_len) == 0;
        if (!ok && bad++ == 0)
            tap_diag("'%s' split wrongly", t);
    }
    TAP_OK(bad == 0, "py-spy frames split at the last \" (\" and its last ':' (%d wrong)", bad);
}

/* Where a jump window ends (collapsed_jump.c): past the last ';' within
 * the window size of the text, against the obvious loop, for windows
 * shorter and longer than the text and than the blocks of sixteen. */
static void
test_jump_end(void)
{
    static const size_t sizes[] = {1, 2, 15, 16, 17, 33, 40, 256};
    char s[400];
    unsigned long long rs = 42;
    int bad = 0, tried = 0;
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t old = pyprof__collapsed_jump_bytes(sizes[z]);
        for (int t = 0; t < 40; t++) {
            size_t len = tap_rand(&rs) % 300, every = 1 + tap_rand(&rs) % 60;
            for (size_t i = 0; i < len; i++)
                s[i] = tap_rand(&rs) % every == 0 ? ';' : 'a' + (char)(i % 26);
            for (size_t pos = 0; pos < len; pos++) {
                size_t end = len - pos > sizes[z] ? pos + sizes[z] : len, want = 0;
                for (size_t i = end; i > pos && !want; i--)
                    if (s[i - 1] == ';')
                        want = i;
                bad += pyprof__jump_end(s, pos, len) != want;
                tried++;
            }
        }
        pyprof__collapsed_jump_bytes(old);
    }
    TAP_OK(bad == 0, "jump windows end past their last ';' (%d wrong of %d)", bad, tried);
    size_t old = pyprof__collapsed_jump_bytes(0);
    TAP_IS_INT((long long)pyprof__jump_end("a;b;c", 0, 5), 0, "no window when jumps are off");
    pyprof__collapsed_jump_bytes(old);
}

int
main(void)
{
    test_text_helpers();
    test_jump_end();
    test_frame_split();
    test_grammar();
    test_long_counts();
    test_bad_lines();
    test_encodings();
    test_dialects();
    test_probe();
    test_oom();
    return tap_done();
}
