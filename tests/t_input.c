/*
 * t_input.c - the input layer (memory, files, lines, zstd with concatenated
 * and truncated frames) and atomic outputs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <pyprof/pyprof.h>

#include "tap.h"

static void
test_lines(void)
{
    const char text[] = "first\nsecond\r\n\nlast";
    pyprof_input *in;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_input_open_memory(&in, text, sizeof(text) - 1, "mem", &err), 0, "open");
    const char *l;
    size_t n;
    TAP_OK(pyprof_input_read_line(in, &l, &n, 0, &err) == 1 && n == 5 && !strcmp(l, "first"),
           "line 1");
    TAP_OK(pyprof_input_read_line(in, &l, &n, 0, &err) == 1 && !strcmp(l, "second\r"),
           "CRLF keeps its CR for the format to decide");
    TAP_OK(pyprof_input_read_line(in, &l, &n, 0, &err) == 1 && n == 0, "empty line");
    TAP_OK(pyprof_input_read_line(in, &l, &n, 0, &err) == 1 && !strcmp(l, "last"),
           "last line without newline");
    TAP_IS_INT(pyprof_input_line(in), 4, "line counter");
    TAP_IS_INT(pyprof_input_read_line(in, &l, &n, 0, &err), 0, "then end of input");
    TAP_IS_INT(pyprof_input_offset(in), sizeof(text) - 1, "offset at end");
    pyprof_input_close(in);

    TAP_IS_INT(pyprof_input_open_memory(&in, "abcdefghij\n", 11, "long", &err), 0, "open");
    TAP_IS_INT(pyprof_input_read_line(in, &l, &n, 4, &err), PYPROF_ELIMIT, "over-long line");
    TAP_IS_INT(err.line, 1, "error names the line");
    pyprof_input_close(in);
}

static void
test_zstd(void)
{
    /* a big text so that several decode rounds and window growth happen */
    size_t plain_len = 3u << 20;
    char *plain = malloc(plain_len);
    for (size_t i = 0; i < plain_len; i++)
        plain[i] = (i % 61 == 60) ? '\n' : (char)('a' + (i * 7) % 26);
    size_t cap = ZSTD_compressBound(plain_len) * 2;
    unsigned char *z = malloc(cap);
    /* two concatenated frames: the first and second halves */
    size_t half = plain_len / 2;
    size_t z1 = ZSTD_compress(z, cap, plain, half, 3);
    size_t z2 = ZSTD_compress(z + z1, cap - z1, plain + half, plain_len - half, 3);
    TAP_OK(!ZSTD_isError(z1) && !ZSTD_isError(z2), "compressed two frames");

    pyprof_input *in;
    pyprof_error err = PYPROF_ERROR_INIT;
    pyprof_input_open_memory(&in, z, z1 + z2, "two.zst", &err);
    TAP_OK(pyprof_input_is_compressed(in), "zstd detected by magic");
    const unsigned char *data;
    size_t len;
    TAP_IS_INT(pyprof_input_slurp(in, &data, &len, &err), 0, "slurp");
    TAP_OK(len == plain_len && memcmp(data, plain, len) == 0,
           "concatenated frames decode to the whole text");
    pyprof_input_close(in);

    pyprof_input_open_memory(&in, z, z1 + z2, "two.zst", &err);
    const char *l;
    size_t n, lines = 0, bytes = 0;
    int rc;
    while ((rc = pyprof_input_read_line(in, &l, &n, 0, &err)) == 1) {
        lines++;
        bytes += n + 1;
    }
    TAP_OK(rc == 0 && lines == plain_len / 61 + (plain_len % 61 != 0) && bytes >= plain_len,
           "line reading over zstd");
    pyprof_input_close(in);

    /* truncated: cut the second frame short */
    pyprof_input_open_memory(&in, z, z1 + z2 / 2, "cut.zst", &err);
    rc = pyprof_input_slurp(in, &data, &len, &err);
    TAP_IS_INT(rc, PYPROF_EFORMAT, "truncated zstd is an error");
    TAP_OK(strstr(err.message, "truncated") != NULL, "which says truncated: %s", err.message);
    TAP_IS_STR(err.source, "cut.zst", "and names the file");
    pyprof_input_close(in);

    /* limits */
    pyprof_input_open_memory(&in, z, z1 + z2, "two.zst", &err);
    pyprof_input_set_max_bytes(in, 1u << 20);
    TAP_IS_INT(pyprof_input_slurp(in, &data, &len, &err), PYPROF_ELIMIT,
               "slurp past max_bytes is refused");
    pyprof_input_close(in);
    free(z);
    free(plain);
}

static void
test_files(void)
{
    pyprof_input *in;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_OK(pyprof_input_open_file(&in, "/nonexistent/x.prof", &err) == PYPROF_EIO &&
               strstr(err.message, "No such file") != NULL,
           "missing file: %s", err.message);
    TAP_OK(pyprof_input_open_file(&in, "/", &err) == PYPROF_EIO &&
               strstr(err.message, "directory") != NULL,
           "directory: %s", err.message);
    char line[2048];
    pyprof_error_format(&err, line, sizeof line);
    TAP_IS_STR(line, "/: is a directory, not a profile file", "formatted error line");
}

/* A new temporary directory `dir` (a mkdtemp template) holding the file
 * path = dir/name with the text "old\n": an output's target to replace. */
static void
old_target(char *dir, char *path, size_t size, const char *name)
{
    TAP_OK(mkdtemp(dir) != NULL, "temp dir");
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("old\n", f);
        fclose(f);
    }
}

/* The first line of file `path` in buf (empty if it cannot be read). */
static void
first_line(const char *path, char *buf, int size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(buf, size, f))
            buf[0] = '\0';
        fclose(f);
    }
}

static void
test_output(void)
{
    char dir[] = "/tmp/pyprof-out-XXXXXX";
    char path[256];
    old_target(dir, path, sizeof path, "out.txt");

    pyprof_output *o;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_output_open_file(&o, path, &err), 0, "open output");
    pyprof_output_printf(o, "%.3f\n", 1.5);
    char buf[64];
    first_line(path, buf, sizeof buf);
    TAP_IS_STR(buf, "old\n", "target untouched before commit");
    pyprof_output_abort(o);
    first_line(path, buf, sizeof buf);
    TAP_IS_STR(buf, "old\n", "abort keeps the old file");

    pyprof_output_open_file(&o, path, &err);
    pyprof_output_printf(o, "%.3f\n", 1.5);
    TAP_IS_INT(pyprof_output_commit(o, &err), 0, "commit");
    first_line(path, buf, sizeof buf);
    TAP_IS_STR(buf, "1.500\n", "commit replaced the file");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    TAP_IS_INT(system(cmd), 0, "no temporary file left behind");
    unlink(path);
    rmdir(dir);

    TAP_IS_INT(pyprof_output_open_file(&o, "/dev/null", &err), 0, "/dev/null opens directly");
    pyprof_output_puts(o, "x");
    TAP_IS_INT(pyprof_output_commit(o, &err), 0, "and commits");
    TAP_OK(pyprof_output_open_file(&o, "/nonexistent-dir/x", &err) == PYPROF_EIO,
           "unwritable directory is an error");
}

/* A file of several megabytes, written in pieces of every size (the
 * output starts each megabyte's writeback as it goes): the target keeps its
 * old bytes until the commit, and then has exactly the bytes written. */
static void
test_output_big(void)
{
    char dir[] = "/tmp/pyprof-outbig-XXXXXX";
    char path[256];
    old_target(dir, path, sizeof path, "big.txt");
    size_t total = (size_t)5 << 20;
    unsigned char *want = malloc(total);
    uint32_t x = 12345;
    for (size_t i = 0; i < total; i++) {
        x = x * 1103515245u + 12345u;
        want[i] = (unsigned char)(x >> 24);
    }
    pyprof_output *o;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_IS_INT(pyprof_output_open_file(&o, path, &err), 0, "open big output");
    /* 1 byte, 2, ... up to pieces bigger than the 64 KiB buffer, in turn */
    size_t at = 0, piece = 1;
    while (at < total) {
        size_t n = piece < total - at ? piece : total - at;
        pyprof_output_write(o, want + at, n);
        at += n;
        piece = piece > 200000 ? 1 : piece * 3 + 1;
    }
    char buf[64];
    first_line(path, buf, sizeof buf);
    TAP_IS_STR(buf, "old\n", "5 MB written: target untouched before commit");
    TAP_IS_INT(pyprof_output_commit(o, &err), 0, "big commit");
    unsigned char *got = malloc(total + 1);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(got, 1, total + 1, f) : 0;
    if (f)
        fclose(f);
    TAP_OK(n == total && memcmp(got, want, total) == 0, "all %zu bytes in order (read %zu)", total,
           n);
    free(got);
    free(want);
    unlink(path);
    rmdir(dir);
}

struct progress_seen {
    int calls;
    uint64_t last;
    int64_t total;
    int monotonic;
};

static void
on_progress(void *payload, const char *name, uint64_t done, int64_t total)
{
    struct progress_seen *p = payload;
    (void)name;
    if (done < p->last)
        p->monotonic = 0;
    p->last = done;
    p->total = total;
    p->calls++;
}

/* The progress callback sees rising byte counts and the whole size at the
 * end, through the read options as a tool sets them. */
static void
test_progress(void)
{
    char path[] = "/tmp/pyprof-progress-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 400000; i++)
        fprintf(f, "a;b;frame_%d 1\n", i % 977);
    fclose(f);
    struct stat st;
    stat(path, &st);

    struct progress_seen seen = {0, 0, 0, 1};
    pyprof_read_options ro = PYPROF_READ_OPTIONS_INIT;
    ro.format = "collapsed";
    ro.progress = on_progress;
    ro.progress_payload = &seen;
    pyprof_profile *p = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    TAP_OK(pyprof_profile_load(&p, path, &ro, &err) == 0, "read a %lld-byte file with progress",
           (long long)st.st_size);
    TAP_OK(seen.calls >= 2 && seen.monotonic, "progress reported %d times, rising", seen.calls);
    TAP_OK(seen.last == (uint64_t)st.st_size && seen.total == (int64_t)st.st_size,
           "last report is the whole file (%llu of %lld)", (unsigned long long)seen.last,
           (long long)seen.total);
    pyprof_profile_free(p);
    unlink(path);
}

/* A slurp of a big plain file (sized at once: one read could take it all)
 * still reports as it goes, and gets every byte. */
static void
test_slurp_progress(void)
{
    char path[] = "/tmp/pyprof-slurp-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    size_t n = (size_t)13 << 20;
    for (size_t i = 0; i < n; i++)
        fputc((int)(i * 7 % 251), f);
    fclose(f);
    struct progress_seen seen = {0, 0, 0, 1};
    pyprof_input *in = NULL;
    pyprof_error err = PYPROF_ERROR_INIT;
    const unsigned char *data = NULL;
    size_t len = 0;
    int ok = pyprof_input_open_file(&in, path, &err) == 0;
    if (ok) {
        pyprof_input_set_progress(in, on_progress, &seen);
        ok = pyprof_input_slurp(in, &data, &len, &err) == 0 && len == n;
        for (size_t i = 0; ok && i < n; i++)
            ok = data[i] == (unsigned char)(i * 7 % 251);
    }
    TAP_OK(ok, "slurp of a %zu-byte file: every byte", n);
    TAP_OK(seen.calls >= 3 && seen.monotonic && seen.last == n,
           "slurp reported progress %d times, rising, to the end", seen.calls);
    pyprof_input_close(in);
    unlink(path);
}

int
main(void)
{
    test_progress();
    test_slurp_progress();
    test_lines();
    test_zstd();
    test_files();
    test_output();
    test_output_big();
    return tap_done();
}
