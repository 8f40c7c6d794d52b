/*
 * Bad input, table-driven: every public function called with NULL handles,
 * NULL outputs, zero and absurd sizes, out-of-range enums, PASIDs and GPUs,
 * unmapped addresses and bad struct_size fields. Each row must return its
 * documented code, leave a message naming the offending argument, and
 * change nothing a host can observe (tests/state_digest.h). The rows live in
 * tests/check_bad_input_*.c, one table per group of headers; the world they
 * run against in tests/bad_input_world.c.
 */
#include <stdio.h>

#include "bad_input_world.h"

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
    tcase_add_loop_test(tc, every_row_is_refused_cleanly, 0, (int)BI_TABLES);
    return s;
}
