/*
 * driver.c - replay inputs through a fuzz target without libFuzzer, so that
 * the saved corpus and every crash reproducer run in a plain gcc `make
 * check` (the idea of SQLite's fuzzcheck and libgit2's standalone driver).
 *
 *     fuzz_pstats FILE|DIR...
 *
 * Prints TAP: one line per input; a crash kills the process and the test
 * harness reports it.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int count;

static void
run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("not ok %d - cannot open %s\n", ++count, path);
        return;
    }
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0, n;
    unsigned char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                fclose(f);
                free(buf);
                printf("not ok %d - out of memory on %s\n", ++count, path);
                return;
            }
            buf = nb;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    /* an exact-size copy, so ASan sees reads past the end */
    unsigned char *exact = malloc(len ? len : 1);
    if (len)
        memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    printf("ok %d - %s\n", ++count, path);
    fflush(stdout);
}

static int
cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return; /* an absent seed folder is not an error */
    if (!S_ISDIR(st.st_mode)) {
        run_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof(*names));
            if (!nn)
                break;
            names = nn;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    /* deterministic order; qsort(NULL, 0) is undefined, and UBSan says so */
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp);
    for (size_t i = 0; i < n; i++) {
        run_path(names[i]);
        free(names[i]);
    }
    free(names);
}

int
main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        run_path(argv[i]);
    if (count == 0)
        printf("ok 1 - no inputs # SKIP nothing to replay\n"), count = 1;
    printf("1..%d\n", count);
    return 0;
}
