/* The scratch folders of the sim tests (scratch.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "scratch.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

void scratch_make(char *dir, size_t size, const char *prefix)
{
    ck_assert_int_lt(snprintf(dir, size, "/tmp/%s-XXXXXX", prefix), (int)size);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

void scratch_remove(const char *dir)
{
    /* Depth first, so that a folder is empty when its turn comes. */
    ck_assert_int_eq(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

const char *scratch_path(const char *dir, const char *name)
{
    static char buf[4][512];
    static int next;
    char *p = buf[next++ % 4];
    ck_assert_int_lt(snprintf(p, sizeof(buf[0]), "%s/%s", dir, name), (int)sizeof(buf[0]));
    return p;
}

const char *scratch_write(const char *dir, const char *name, const char *text)
{
    const char *path = scratch_path(dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

char *scratch_read(const char *dir, const char *name)
{
    FILE *f = fopen(scratch_path(dir, name), "r");
    if (!f)
        return NULL;
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    size_t n;
    while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            text = realloc(text, cap *= 2);
            ck_assert_ptr_nonnull(text);
        }
    }
    fclose(f);
    text[len] = '\0';
    return text;
}
