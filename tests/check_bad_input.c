/*
 * Bad input, table-driven: every public function called with NULL handles,
 * NULL outputs, zero and absurd sizes, out-of-range enums, PASIDs and GPUs,
 * unmapped addresses and bad struct_size fields. Each row must return its
 * documented code, leave a message naming the offending argument, and
 * change nothing a host can observe (tests/state_digest.h). The rows live in
 * tests/check_bad_input_*.c, one table per group of headers; the world they
 * run against in tests/bad_input_world.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "bad_input_world.h"

#ifndef XLAT_TEST_SRCDIR
#define XLAT_TEST_SRCDIR "."
#endif

typedef const bi_case *(*bi_table_fn)(size_t *n);

static const struct {
    const char *name;
    bi_table_fn table;
} bi_tables[] = {
    {"core", bi_core_cases},   {"structures", bi_struct_cases}, {"memory", bi_mem_cases},
    {"units", bi_unit_cases},  {"iommu", bi_iommu_cases},       {"barre", bi_barre_cases},
};

#define BI_TABLES (sizeof(bi_tables) / sizeof(bi_tables[0]))

static size_t bi_total(void)
{
    size_t total = 0;
    for (size_t t = 0; t < BI_TABLES; t++) {
        size_t n = 0;
        bi_tables[t].table(&n);
        total += n;
    }
    return total;
}

START_TEST(every_row_is_refused_cleanly)
{
    size_t n = 0;
    const bi_case *rows = bi_tables[_i].table(&n);
    ck_assert_uint_gt(n, 0);
    bi_run(rows, n);
}
END_TEST

/* The digest sees what a bad call must not do: one good call changes it. */
START_TEST(the_digest_sees_a_change)
{
    bi_world w;
    bi_build(&w);
    uint64_t d0 = bi_digest(&w);
    ck_assert_uint_eq(bi_digest(&w), d0);
    ck_assert_int_eq(xlat_cuckoo_remove(w.cf, 0x11), XLAT_OK);
    uint64_t d1 = bi_digest(&w);
    ck_assert_uint_ne(d1, d0);
    ck_assert_int_eq(xlat_pagetable_protect(w.pt, BI_PASID, BI_VA(3), XLAT_PERM_R), XLAT_OK);
    ck_assert_uint_ne(bi_digest(&w), d1);
    bi_destroy(&w);
}
END_TEST

/* Whether some row's text names `fn` (xlat_tlb_create): as the call, or as
 * its row id's start (tlb_create_...), for rows that call through a macro. */
static bool bi_covered(const char *fn)
{
    const char *bare = fn + strlen("xlat_");
    char call[128];
    snprintf(call, sizeof(call), "%s(", fn);
    for (size_t t = 0; t < BI_TABLES; t++) {
        size_t n = 0;
        const bi_case *rows = bi_tables[t].table(&n);
        for (size_t i = 0; i < n; i++)
            if (strstr(rows[i].text, call) || strncmp(rows[i].text, bare, strlen(bare)) == 0)
                return true;
    }
    return false;
}

/* Every function a header exports (XLAT_API ... xlat_name(), unless
 * covered; returns how many were looked at and lists the uncovered. */
static int bi_uncovered(const char *path, char *missing, size_t room)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char text[1 << 17];
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    int seen = 0;
    for (const char *p = strstr(text, "XLAT_API "); p; p = strstr(p + 1, "XLAT_API ")) {
        const char *open = strchr(p, '(');
        const char *name = open;
        while (name > p && (name[-1] == '_' || isalnum((unsigned char)name[-1])))
            name--;
        if (!open || strncmp(name, "xlat_", 5) != 0 || open - name >= 100)
            continue; /* the macro's own definition */
        char fn[100];
        snprintf(fn, sizeof(fn), "%.*s", (int)(open - name), name);
        seen++;
        if (!bi_covered(fn) && strlen(missing) + strlen(fn) + 2 < room)
            strcat(strcat(missing, " "), fn);
    }
    return seen;
}

/* Adding a public function without a bad-input row fails here. */
START_TEST(every_public_function_has_a_row)
{
    DIR *d = opendir(XLAT_TEST_SRCDIR "/include/xlat");
    ck_assert_ptr_nonnull(d);
    char missing[4096] = "";
    int functions = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t n = strlen(de->d_name);
        if (n < 3 || strcmp(de->d_name + n - 2, ".h") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof(path), "%s/include/xlat/%s", XLAT_TEST_SRCDIR, de->d_name);
        functions += bi_uncovered(path, missing, sizeof(missing));
    }
    closedir(d);
    printf("bad_input: %d public functions\n", functions);
    ck_assert_int_gt(functions, 200);
    ck_assert_msg(missing[0] == '\0', "no bad-input row for:%s", missing);
}
END_TEST

START_TEST(the_count)
{
    printf("bad_input: %zu cases\n", bi_total());
    fflush(stdout);
    ck_assert_uint_ge(bi_total(), BI_TABLES);
}
END_TEST

Suite *bad_input_suite(void)
{
    Suite *s = suite_create("bad_input");
    TCase *tc = test_case(s, "tables");
    tcase_add_test(tc, the_digest_sees_a_change);
    tcase_add_test(tc, the_count);
    tcase_add_test(tc, every_public_function_has_a_row);
    tcase_add_loop_test(tc, every_row_is_refused_cleanly, 0, (int)BI_TABLES);
    return s;
}
