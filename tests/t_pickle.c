/*
 * t_pickle.c - the data-only pickle machine (formats/pickle.c).
 *
 *  - every opcode of the subset, on hand-made bytes;
 *  - memo sharing (a list stored, fetched and extended is one list), frames;
 *  - pickles that run os.system / eval under Python's pickle.load are
 *    refused, with the opcode and its offset named, and their payload (which
 *    would create a marker file) never runs;
 *  - malformed input: stack/mark misuse, bad memo indexes, limits;
 *  - every truncation of the fixtures fails cleanly;
 *  - an allocation-failure sweep on a fixture.
 */
#include "config.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pickle.h"
#include "tap.h"

/* Run bytes (a C string literal: its length without the final NUL). */
#define RUN(lit, pk, root, err) run((const unsigned char *)(lit), sizeof(lit) - 1, pk, root, err)

static int
run(const unsigned char *b, size_t n, pyprof__pickle **pk, pyprof__pk_id *root, pyprof_error *err)
{
    int rc = pyprof__pickle_new(pk, NULL);
    if (rc < 0)
        return rc;
    pyprof_error_clear(err);
    return pyprof__pickle_run(*pk, root, b, n, "test", "pickle", err);
}

static const pyprof__pk_node *
node(pyprof__pickle *pk, pyprof__pk_id id)
{
    return pyprof__pickle_node(pk, id);
}

/* ---- values --------------------------------------------------------------------- */

static void
expect_int(const char *what, const unsigned char *b, size_t n, int type, int64_t want)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc = run(b, n, &pk, &root, &err);
    if (!tap_ok(rc == 0 && node(pk, root)->type == type && node(pk, root)->u.i == want, "%s", what))
        tap_diag("  rc %d (%s), type %d, value %lld", rc, err.message,
                 rc == 0 ? node(pk, root)->type : -1,
                 rc == 0 ? (long long)node(pk, root)->u.i : 0LL);
    pyprof__pickle_free(pk);
}
#define INT_CASE(what, lit, type, want)                                                            \
    expect_int(what, (const unsigned char *)(lit), sizeof(lit) - 1, type, want)

static void
expect_text(const char *what, const unsigned char *b, size_t n, int type, const char *want,
            size_t wantn)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    size_t len = 0;
    const char *s = NULL;
    int rc = run(b, n, &pk, &root, &err);
    if (rc == 0)
        s = pyprof__pickle_bytes(pk, root, &len);
    if (!tap_ok(rc == 0 && node(pk, root)->type == type && s && len == wantn &&
                    memcmp(s, want, len) == 0,
                "%s", what))
        tap_diag("  rc %d (%s), got '%.*s'", rc, err.message, s ? (int)len : 0, s ? s : "");
    pyprof__pickle_free(pk);
}
#define TEXT_CASE(what, lit, type, want)                                                           \
    expect_text(what, (const unsigned char *)(lit), sizeof(lit) - 1, type, want, sizeof(want) - 1)

static void
test_scalars(void)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;

    INT_CASE("NONE", "N.", PYPROF__PK_NONE, 0);
    INT_CASE("NEWTRUE", "\x88.", PYPROF__PK_BOOL, 1);
    INT_CASE("NEWFALSE", "\x89.", PYPROF__PK_BOOL, 0);
    INT_CASE("INT", "I42\n.", PYPROF__PK_INT, 42);
    INT_CASE("INT negative", "I-7\n.", PYPROF__PK_INT, -7);
    INT_CASE("INT beyond 32 bits (Python 2)", "I5000000000\n.", PYPROF__PK_INT, 5000000000LL);
    INT_CASE("INT 01 is True", "I01\n.", PYPROF__PK_BOOL, 1);
    INT_CASE("INT 00 is False", "I00\n.", PYPROF__PK_BOOL, 0);
    INT_CASE("BININT is signed", "J\xff\xff\xff\xff.", PYPROF__PK_INT, -1);
    INT_CASE("BININT1", "K\xff.", PYPROF__PK_INT, 255);
    INT_CASE("BININT2", "M\x34\x12.", PYPROF__PK_INT, 0x1234);
    INT_CASE("LONG with L", "L123456789012L\n.", PYPROF__PK_INT, 123456789012LL);
    INT_CASE("LONG1 empty is 0", "\x8a\x00.", PYPROF__PK_INT, 0);
    INT_CASE("LONG1 negative", "\x8a\x02\x00\x80.", PYPROF__PK_INT, -32768);
    INT_CASE("LONG1 8 bytes", "\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f.", PYPROF__PK_INT,
             INT64_MAX);
    INT_CASE("LONG1 9 bytes, sign extension", "\x8a\x09\x01\x00\x00\x00\x00\x00\x00\x80\xff.",
             PYPROF__PK_INT, INT64_MIN + 1);
    INT_CASE("LONG4", "\x8b\x01\x00\x00\x00\x7f.", PYPROF__PK_INT, 127);

    int rc = RUN("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EUNSUPPORTED && strstr(err.message, "LONG1") &&
               strstr(err.message, "64 bits"),
           "LONG1 beyond 64 bits is refused by name (%s)", err.message);
    pyprof__pickle_free(pk);
    rc = RUN("I99999999999999999999\n.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EUNSUPPORTED, "INT beyond 64 bits is refused");
    pyprof__pickle_free(pk);

    rc = RUN("F1e-09\n.", &pk, &root, &err);
    TAP_OK(rc == 0 && node(pk, root)->type == PYPROF__PK_FLOAT && node(pk, root)->u.f == 1e-9,
           "FLOAT text");
    pyprof__pickle_free(pk);
    rc = RUN("G\x3e\x11\x2e\x0b\xe8\x26\xd6\x95.", &pk, &root, &err);
    TAP_OK(rc == 0 && node(pk, root)->u.f == 1e-9, "BINFLOAT is big-endian");
    pyprof__pickle_free(pk);
    rc = RUN("Fnot-a-float\n.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "FLOAT"), "bad FLOAT text is an error");
    pyprof__pickle_free(pk);

    TEXT_CASE("STRING with escapes", "S'a\\nb\\x41\\101\\'\\\\'\n.", PYPROF__PK_BYTES, "a\nbAA'\\");
    TEXT_CASE("STRING double-quoted, unknown escape kept", "S\"x\\qy\"\n.", PYPROF__PK_BYTES,
              "x\\qy");
    TEXT_CASE("BINSTRING",
              "T\x03\x00\x00\x00"
              "abc.",
              PYPROF__PK_BYTES, "abc");
    TEXT_CASE("SHORT_BINSTRING", "U\x02hi.", PYPROF__PK_BYTES, "hi");
    TEXT_CASE("BINBYTES", "B\x02\x00\x00\x00hi.", PYPROF__PK_BYTES, "hi");
    TEXT_CASE("SHORT_BINBYTES", "C\x02hi.", PYPROF__PK_BYTES, "hi");
    TEXT_CASE("BINBYTES8", "\x8e\x02\x00\x00\x00\x00\x00\x00\x00hi.", PYPROF__PK_BYTES, "hi");
    TEXT_CASE("UNICODE raw-unicode-escape", "Vcaf\\u00e9 \\U0001f600 \xe9\n.", PYPROF__PK_STR,
              "caf\xc3\xa9 \xf0\x9f\x98\x80 \xc3\xa9");
    TEXT_CASE("UNICODE even backslashes are not escapes", "Va\\\\u0041\n.", PYPROF__PK_STR,
              "a\\\\u0041");
    TEXT_CASE("UNICODE empty, the first text decoded (no pool yet)", "V\n.", PYPROF__PK_STR, "");
    TEXT_CASE("UNICODE surrogate pair", "V\\ud83d\\ude00\n.", PYPROF__PK_STR, "\xf0\x9f\x98\x80");
    TEXT_CASE("BINUNICODE", "X\x03\x00\x00\x00\xc3\xa9!.", PYPROF__PK_STR, "\xc3\xa9!");
    TEXT_CASE("SHORT_BINUNICODE", "\x8c\x02ok.", PYPROF__PK_STR, "ok");
    TEXT_CASE("BINUNICODE8", "\x8d\x02\x00\x00\x00\x00\x00\x00\x00ok.", PYPROF__PK_STR, "ok");

    rc = RUN("S'abc\n.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "STRING"), "unquoted STRING is an error");
    pyprof__pickle_free(pk);
    rc = RUN("T\xff\xff\xff\xff.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "negative"),
           "negative BINSTRING length is an error");
    pyprof__pickle_free(pk);
    rc = RUN("X\xff\xff\xff\x7f"
             "ab.",
             &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "truncated") && err.offset == 0,
           "a length beyond the input is truncation, not an allocation");
    pyprof__pickle_free(pk);
    rc = RUN("\x8d\xff\xff\xff\xff\xff\xff\xff\xff.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT, "BINUNICODE8 of 2^64-1 bytes is truncation");
    pyprof__pickle_free(pk);
}

/* ---- containers ------------------------------------------------------------------ */

static int64_t
item_int(pyprof__pickle *pk, pyprof__pk_id c, size_t i)
{
    return node(pk, pyprof__pickle_item(pk, c, i))->u.i;
}

static void
expect_container(const char *what, const unsigned char *b, size_t n, int type, size_t len,
                 int64_t first, int64_t last)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc = run(b, n, &pk, &root, &err);
    bool ok = rc == 0 && node(pk, root)->type == type && node(pk, root)->len == len;
    size_t items = type == PYPROF__PK_DICT ? 2 * len : len;
    if (ok && items)
        ok = item_int(pk, root, 0) == first && item_int(pk, root, items - 1) == last;
    if (!tap_ok(ok, "%s", what))
        tap_diag("  rc %d (%s), type %d len %u", rc, err.message, rc ? -1 : node(pk, root)->type,
                 rc ? 0 : node(pk, root)->len);
    pyprof__pickle_free(pk);
}
#define CONT_CASE(what, lit, type, len, first, last)                                               \
    expect_container(what, (const unsigned char *)(lit), sizeof(lit) - 1, type, len, first, last)

static void
test_containers(void)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc;

    CONT_CASE("EMPTY_TUPLE", ").", PYPROF__PK_TUPLE, 0, 0, 0);
    CONT_CASE("MARK TUPLE", "(K\x01K\x02K\x03t.", PYPROF__PK_TUPLE, 3, 1, 3);
    CONT_CASE("TUPLE1", "K\x05\x85.", PYPROF__PK_TUPLE, 1, 5, 5);
    CONT_CASE("TUPLE2", "K\x05K\x06\x86.", PYPROF__PK_TUPLE, 2, 5, 6);
    CONT_CASE("TUPLE3", "K\x05K\x06K\x07\x87.", PYPROF__PK_TUPLE, 3, 5, 7);
    CONT_CASE("EMPTY_LIST", "].", PYPROF__PK_LIST, 0, 0, 0);
    CONT_CASE("MARK LIST", "(K\x01K\x02l.", PYPROF__PK_LIST, 2, 1, 2);
    CONT_CASE("APPEND",
              "]K\x01"
              "aK\x02"
              "a.",
              PYPROF__PK_LIST, 2, 1, 2);
    CONT_CASE("APPENDS",
              "](K\x01K\x02K\x03"
              "e.",
              PYPROF__PK_LIST, 3, 1, 3);
    CONT_CASE("EMPTY_DICT", "}.", PYPROF__PK_DICT, 0, 0, 0);
    CONT_CASE("MARK DICT",
              "(K\x01K\x02"
              "d.",
              PYPROF__PK_DICT, 1, 1, 2);
    CONT_CASE("SETITEM", "}K\x01K\x02sK\x03K\x04s.", PYPROF__PK_DICT, 2, 1, 4);
    CONT_CASE("SETITEMS", "}(K\x01K\x02K\x03K\x04u.", PYPROF__PK_DICT, 2, 1, 4);
    CONT_CASE("SETITEM keeps a repeated key (caller applies last-wins)", "}K\x01K\x02sK\x01K\x09s.",
              PYPROF__PK_DICT, 2, 1, 9);
    CONT_CASE("EMPTY_SET ADDITEMS", "\x8f(K\x01K\x02\x90.", PYPROF__PK_SET, 2, 1, 2);
    CONT_CASE("FROZENSET", "(K\x01K\x02\x91.", PYPROF__PK_SET, 2, 1, 2);
    CONT_CASE("POP",
              "K\x01K\x02"
              "0.",
              PYPROF__PK_INT, 0, 0, 0);
    CONT_CASE("POP_MARK",
              "K\x01(K\x02K\x03"
              "1.",
              PYPROF__PK_INT, 0, 0, 0);
    CONT_CASE("DUP",
              "K\x04"
              "2\x86.",
              PYPROF__PK_TUPLE, 2, 4, 4);
    CONT_CASE("POP of a mark with nothing above it", "K\x01(0.", PYPROF__PK_INT, 0, 0, 0);

    rc = RUN("(K\x01K\x02K\x03"
             "d.",
             &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "DICT") && err.offset == 7,
           "DICT of an odd count is an error at its offset");
    pyprof__pickle_free(pk);
}

static void
test_memo_and_frames(void)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc;

    INT_CASE("PUT/GET", "K\x07p0\n0g0\n.", PYPROF__PK_INT, 7);
    INT_CASE("BINPUT/BINGET",
             "K\x07q\x01"
             "0h\x01.",
             PYPROF__PK_INT, 7);
    INT_CASE("LONG_BINPUT/LONG_BINGET",
             "K\x07r\x02\x00\x00\x00"
             "0j\x02\x00\x00\x00.",
             PYPROF__PK_INT, 7);
    INT_CASE("MEMOIZE numbers slots as len(memo)",
             "K\x05\x94K\x06\x94"
             "00h\x00.",
             PYPROF__PK_INT, 5);

    /* a list stored in the memo, fetched, then extended, is one list */
    rc = RUN("]q\x00h\x00K\x01"
             "a\x86.",
             &pk, &root, &err);
    bool shared = rc == 0 && node(pk, root)->len == 2 &&
                  pyprof__pickle_item(pk, root, 0) == pyprof__pickle_item(pk, root, 1) &&
                  node(pk, pyprof__pickle_item(pk, root, 0))->len == 1;
    TAP_OK(shared, "memo GET shares the object, as in Python");
    pyprof__pickle_free(pk);

    rc = RUN("h\x03.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "BINGET") && strstr(err.message, "never"),
           "GET of an unset slot is an error");
    pyprof__pickle_free(pk);
    rc = RUN("K\x01r\xff\xff\xff\x7f.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_ELIMIT && strstr(err.message, "LONG_BINPUT"),
           "a memo index beyond the input is refused before any allocation");
    pyprof__pickle_free(pk);
    rc = RUN("p0\n.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT, "PUT on an empty stack is an error");
    pyprof__pickle_free(pk);

    INT_CASE("PROTO 5 + FRAME", "\x80\x05\x95\x03\x00\x00\x00\x00\x00\x00\x00K\x09.",
             PYPROF__PK_INT, 9);
    rc = RUN("\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00K\x09.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EFORMAT && strstr(err.message, "FRAME") && err.offset == 2,
           "a FRAME longer than the input is truncation");
    pyprof__pickle_free(pk);
    rc = RUN("\x80\x06N.", &pk, &root, &err);
    TAP_OK(rc == PYPROF_EUNSUPPORTED && strstr(err.message, "PROTO"), "protocol 6 is refused");
    pyprof__pickle_free(pk);
}

/* ---- the stack machine's own rules --------------------------------------------------- */

static void
test_malformed(void)
{
    static const struct {
        const char *what, *bytes;
        size_t len;
        int code;
        const char *needle;
    } cases[] = {
#define C(w, b, code, needle) {w, b, sizeof(b) - 1, code, needle}
        C("empty input", "", PYPROF_EFORMAT, "truncated"),
        C("no STOP", "K\x01", PYPROF_EFORMAT, "before STOP"),
        C("STOP with two values", "K\x01K\x02.", PYPROF_EFORMAT, "STOP"),
        C("STOP with an open MARK", "(K\x01.", PYPROF_EFORMAT, "MARK"),
        C("STOP on an empty stack", ".", PYPROF_EFORMAT, "STOP"),
        C("TUPLE without MARK", "K\x01t.", PYPROF_EFORMAT, "no MARK"),
        C("APPENDS without MARK",
          "]K\x01"
          "e.",
          PYPROF_EFORMAT, "no MARK"),
        C("TUPLE2 with one value", "K\x01\x86.", PYPROF_EFORMAT, "TUPLE2"),
        C("POP on nothing", "0.", PYPROF_EFORMAT, "POP"),
        C("APPEND under a mark",
          "](K\x01"
          "a.",
          PYPROF_EFORMAT, "APPEND"),
        C("SETITEMS with odd items", "}(K\x01u.", PYPROF_EFORMAT, "odd"),
        C("INT without newline", "I12", PYPROF_EFORMAT, "truncated"),
        C("INT that is not a number", "Ix1\n.", PYPROF_EFORMAT, "INT"),
        C("unknown opcode", "\xff.", PYPROF_EFORMAT, "0xff"),
        C("STACK_GLOBAL of ints", "K\x01K\x02\x93.", PYPROF_EFORMAT, "STACK_GLOBAL"),
#undef C
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pyprof__pickle *pk;
        pyprof__pk_id root;
        pyprof_error err;
        int rc = run((const unsigned char *)cases[i].bytes, cases[i].len, &pk, &root, &err);
        if (!tap_ok(rc == cases[i].code && strstr(err.message, cases[i].needle), "%s is an error",
                    cases[i].what))
            tap_diag("  rc %d: %s", rc, err.message);
        pyprof__pickle_free(pk);
    }

    /* limits */
    pyprof__pickle_limits lim = {.max_stack = 4, .max_marks = 2};
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof__pickle_new(&pk, &lim);
    int rc = pyprof__pickle_run(pk, &root, (const unsigned char *)"NNNNN.", 6, "t", "p", &err);
    TAP_OK(rc == PYPROF_ELIMIT && err.offset == 4, "the stack limit holds (%s)", err.message);
    pyprof__pickle_free(pk);
    pyprof__pickle_new(&pk, &lim);
    rc = pyprof__pickle_run(pk, &root, (const unsigned char *)"(((", 3, "t", "p", &err);
    TAP_OK(rc == PYPROF_ELIMIT && err.offset == 2, "the MARK nesting limit holds (%s)",
           err.message);
    pyprof__pickle_free(pk);
}

/* ---- refusing code ---------------------------------------------------------------------- */

static char marker[4096];

static void
refuse(const char *what, const char *bytes, size_t len, const char *opcode, int64_t offset)
{
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc = run((const unsigned char *)bytes, len, &pk, &root, &err);
    char want[64];
    snprintf(want, sizeof(want), "opcode %s ", opcode);
    if (!tap_ok(rc == PYPROF_EUNSUPPORTED && strstr(err.message, want) && err.offset == offset,
                "refused: %s", what))
        tap_diag("  rc %d, offset %lld: %s (want %s at %lld)", rc, (long long)err.offset,
                 err.message, opcode, (long long)offset);
    pyprof__pickle_free(pk);
}
#define REFUSE(what, lit, opcode, offset) refuse(what, lit, sizeof(lit) - 1, opcode, offset)

static void
test_refusals(const char *builddir)
{
    char cmd[4200], payload[8192];
    int n;

    snprintf(marker, sizeof(marker), "%s/tests/t_pickle.pwned", builddir);
    unlink(marker);
    snprintf(cmd, sizeof(cmd), "touch %s", marker);

    /* Python: pickle.loads() of this calls os.system("touch MARKER") */
    n = snprintf(payload, sizeof(payload), "cos\nsystem\n(S'%s'\ntR.", cmd);
    refuse("GLOBAL os.system + REDUCE (protocol 0)", payload, (size_t)n, "GLOBAL", 0);
    n = snprintf(payload, sizeof(payload), "cposix\nsystem\nX%c%c%c%c%s\x85R.",
                 (int)(strlen(cmd) & 0xff), 0, 0, 0, cmd);
    refuse("GLOBAL posix.system + BINUNICODE + REDUCE", payload, (size_t)n, "GLOBAL", 0);
    /* protocol 4: STACK_GLOBAL builtins.eval("__import__('os').system(...)") */
    n = snprintf(payload, sizeof(payload),
                 "\x80\x04\x8c\x08"
                 "builtins\x8c\x04"
                 "eval\x93X%c%c%c%c__import__('os').system"
                 "('%s')\x85R.",
                 (int)((strlen(cmd) + 27) & 0xff), 0, 0, 0, cmd);
    refuse("STACK_GLOBAL builtins.eval + REDUCE (protocol 4)", payload, (size_t)n, "STACK_GLOBAL",
           18);
    n = snprintf(payload, sizeof(payload), "(S'%s'\nios\nsystem\n.", cmd);
    refuse("INST os.system", payload, (size_t)n, "INST", 5 + (int64_t)strlen(cmd));
    REFUSE("OBJ, even of LineStats", "(c_line_profiler\nLineStats\no.", "OBJ", 27);
    REFUSE("NEWOBJ_EX, even of LineStats", "c_line_profiler\nLineStats\n)}\x92.", "NEWOBJ_EX", 28);
    REFUSE("NEWOBJ of another class", "c__builtin__\nobject\n)\x81.", "NEWOBJ", 21);
    REFUSE("NEWOBJ of LineStats with arguments", "c_line_profiler\nLineStats\nK\x01\x85\x81.",
           "NEWOBJ", 29);
    REFUSE("REDUCE of LineStats itself", "c_line_profiler\nLineStats\n)R.", "REDUCE", 27);
    REFUSE("REDUCE of _reconstructor with other arguments",
           "ccopy_reg\n_reconstructor\n(c_line_profiler\nLineStats\nc__builtin__\nobject\n"
           "K\x01tR.",
           "REDUCE", 75);
    REFUSE("REDUCE of _reconstructor on another class",
           "ccopy_reg\n_reconstructor\n(c__builtin__\nobject\nc__builtin__\nobject\nNtR.", "REDUCE",
           68);
    REFUSE("BUILD on a dict (would call __setstate__/setattr)", "}}b.", "BUILD", 2);
    REFUSE("BUILD with a state that is not a dict",
           "c_line_profiler\nLineStats\n)\x81K\x01"
           "b.",
           "BUILD", 30);
    REFUSE("a second LineStats",
           "c_line_profiler\nLineStats\n)\x81"
           "c_line_profiler\nLineStats\n)\x81\x86.",
           "NEWOBJ", 55);
    REFUSE("APPEND to a non-list (would call .append)",
           "}K\x01"
           "a.",
           "APPEND", 3);
    REFUSE("SETITEM on a list (would call __setitem__)", "]K\x01K\x02s.", "SETITEM", 5);
    REFUSE("EXT1 (extension registry)", "\x82\x01.", "EXT1", 0);
    REFUSE("EXT2", "\x83\x01\x00.", "EXT2", 0);
    REFUSE("EXT4", "\x84\x01\x00\x00\x00.", "EXT4", 0);
    REFUSE("PERSID", "Pfoo\n.", "PERSID", 0);
    REFUSE("BINPERSID",
           "U\x03"
           "fooQ.",
           "BINPERSID", 5);
    REFUSE("BYTEARRAY8", "\x96\x00\x00\x00\x00\x00\x00\x00\x00.", "BYTEARRAY8", 0);
    REFUSE("NEXT_BUFFER", "\x97.", "NEXT_BUFFER", 0);
    REFUSE("READONLY_BUFFER", "N\x98.", "READONLY_BUFFER", 1);
    REFUSE("GLOBAL with a look-alike module", "c_line_profiler.evil\nLineStats\n.", "GLOBAL", 0);
    REFUSE("GLOBAL with a look-alike name", "cline_profiler._line_profiler\nLineStats2\n.",
           "GLOBAL", 0);

    TAP_OK(access(marker, F_OK) != 0, "no payload ran: %s does not exist", marker);
}

/* A full LineStats, protocol 0, as Python 3 writes it. */
static void
test_linestats_shape(void)
{
    static const char p0[] =
        "ccopy_reg\n_reconstructor\np0\n(cline_profiler._line_profiler\nLineStats\np1\n"
        "c__builtin__\nobject\np2\nNtp3\nRp4\n(dp5\nVtimings\np6\n(dp7\n(V/w/x.py\np8\nI9\n"
        "Vparse\np9\ntp10\n(lp11\n(I11\nI20\nI3566\ntp12\na(I12\nI12000\nI1427303\ntp13\nass"
        "Vunit\np14\nF1e-09\nsb.";
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc = RUN(p0, &pk, &root, &err);
    bool ok = rc == 0 && node(pk, root)->type == PYPROF__PK_INSTANCE &&
              node(pk, root)->sub == PYPROF__PK_G_LINESTATS_3X && node(pk, root)->len == 1;
    if (ok) {
        pyprof__pk_id state = pyprof__pickle_item(pk, root, 0);
        ok = node(pk, state)->type == PYPROF__PK_DICT && node(pk, state)->len == 2;
        pyprof__pk_id timings = pyprof__pickle_item(pk, state, 1);
        ok = ok && node(pk, timings)->type == PYPROF__PK_DICT && node(pk, timings)->len == 1;
        pyprof__pk_id list = pyprof__pickle_item(pk, timings, 1);
        ok = ok && node(pk, list)->len == 2 &&
             item_int(pk, pyprof__pickle_item(pk, list, 1), 2) == 1427303;
        ok = ok && node(pk, pyprof__pickle_item(pk, state, 3))->u.f == 1e-9;
    }
    TAP_OK(ok, "protocol 0 LineStats: _reconstructor, state dict, timings, unit");
    pyprof__pickle_free(pk);
}

/* ---- fixtures: truncation and allocation failures ----------------------------------------- */

static unsigned char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    *len = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void
test_fixture(const char *srcdir, const char *name)
{
    char path[4096];
    size_t len;
    snprintf(path, sizeof(path), "%s/tests/fixtures/lprof/%s", srcdir, name);
    unsigned char *data = slurp(path, &len);
    if (!TAP_OK(data != NULL, "read fixture %s", name))
        return;

    /* the whole file runs; every proper prefix fails cleanly */
    pyprof__pickle *pk;
    pyprof__pk_id root;
    pyprof_error err;
    int rc = run(data, len, &pk, &root, &err);
    TAP_OK(rc == 0 && node(pk, root)->type == PYPROF__PK_INSTANCE, "%s runs to a LineStats", name);
    pyprof__pickle_free(pk);
    size_t bad = 0;
    for (size_t cut = 0; cut < len; cut++) {
        rc = run(data, cut, &pk, &root, &err);
        if (rc != PYPROF_EFORMAT || err.offset < 0 || (size_t)err.offset > cut) {
            if (!bad++)
                tap_diag("  cut at %zu: rc %d offset %lld: %s", cut, rc, (long long)err.offset,
                         err.message);
        }
        pyprof__pickle_free(pk);
    }
    TAP_OK(bad == 0, "%s: all %zu truncations are clean format errors", name, len);

    /* the lprof reader through the public API, failing each allocation in turn */
    long n = 0;
    bool all_enomem = true;
    for (;; n++) {
        pyprof_input *in = NULL;
        pyprof_profile *p = NULL;
        pyprof_error e = PYPROF_ERROR_INIT;
        pyprof__alloc_fail_after(n);
        rc = pyprof_input_open_memory(&in, data, len, name, &e);
        if (rc == 0)
            rc = pyprof_profile_read(&p, in, NULL, &e);
        pyprof__alloc_fail_after(-1);
        pyprof_input_close(in);
        pyprof_profile_free(p);
        if (rc == 0)
            break;
        if (rc != PYPROF_ENOMEM) {
            all_enomem = false;
            tap_diag("  allocation %ld: rc %d: %s", n, rc, e.message);
        }
        if (n > 100000)
            break;
    }
    TAP_OK(rc == 0 && all_enomem, "%s: %ld failed allocations each give ENOMEM, then it reads",
           name, n);
    free(data);
}

int
main(void)
{
    const char *srcdir = getenv("top_srcdir");
    const char *builddir = getenv("top_builddir");
    if (!srcdir)
        srcdir = "..";
    if (!builddir)
        builddir = ".";

    test_scalars();
    test_containers();
    test_memo_and_frames();
    test_malformed();
    test_refusals(builddir);
    test_linestats_shape();
    static const char *const fixtures[] = {"kernprof_py311.lprof", "py311_p0.lprof",
                                           "py27_p0.lprof",        "py27_p1.lprof",
                                           "py27_p2.lprof",        "py313_p5_501.lprof"};
    for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
        test_fixture(srcdir, fixtures[i]);
    return tap_done();
}
