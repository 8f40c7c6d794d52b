/* What tests/fuzz/fuzz_barre.c found, pinned as exact tests (its input
 * replays under tests/fuzz/corpus/barre/ too).
 *
 * xlat_barre_alloc_unmap() looked up every page of the entry it was given,
 * one by one: an entry the allocator could not have made, whose range
 * reaches beyond the page table's virtual addresses (end_vpn near 2^64),
 * kept it looking for 2^64 pages. It now refuses such a range with
 * XLAT_ERR_INVAL and a message, like xlat_barre_alloc_map() and
 * xlat_barre_alloc_migrate() refuse what the allocator could not have made. */
#include "barre_alloc_fixture.h"

/* 48-bit addresses: vpn 2^36 is the first page beyond them. */
START_TEST(unmap_beyond_the_address_width_is_refused)
{
    ba_fixture f;
    ba_setup(&f, 2, 16, 1, false, NULL);
    xlat_pec_entry d = {.pasid = 1, .start_vpn = 0, .end_vpn = UINT64_MAX - 1, .interlv_gran = 1,
                        .gpu_map = {0, 1}, .positions = 2};
    ck_assert_int_eq(xlat_barre_alloc_unmap(f.a, &d, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "beyond 48-bit"));
    d.end_vpn = UINT64_C(1) << 36;
    ck_assert_int_eq(xlat_barre_alloc_unmap(f.a, &d, NULL), XLAT_ERR_INVAL);
    ba_teardown(&f);
}
END_TEST

/* The last page of the address space is still a range it walks. */
START_TEST(unmap_up_to_the_last_page_still_unmaps)
{
    ba_fixture f;
    ba_setup(&f, 2, 16, 1, false, NULL);
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.pages = 2;
    o.start_vpn = (UINT64_C(1) << 36) - 2;
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    ck_assert_uint_eq(d.end_vpn, (UINT64_C(1) << 36) - 1);
    ck_assert_int_eq(xlat_barre_alloc_unmap(f.a, &d, NULL), 2);
    ck_assert_uint_eq(xlat_physmem_free_frames(f.mem, 0) + xlat_physmem_free_frames(f.mem, 1), 32);
    ba_teardown(&f);
}
END_TEST

/* xlat_barre_alloc_migrate() moved a real page of an entry whose range
 * reached beyond the addresses, and then regrouped over that range: it now
 * refuses the entry as one the allocator could not have made, moving
 * nothing. */
START_TEST(migrate_with_a_range_beyond_the_address_width_is_refused)
{
    ba_fixture f;
    ba_setup(&f, 2, 16, 1, false, NULL);
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.pages = 2;
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    xlat_tlb_entry before, after;
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, d.start_vpn << 12, &before), XLAT_OK);
    xlat_pec_entry bad = d;
    bad.end_vpn = UINT64_MAX - 1;
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &bad, d.start_vpn, 1, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "cannot have made"));
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, d.start_vpn << 12, &after), XLAT_OK);
    ck_assert_uint_eq(after.pfn, before.pfn);
    ba_teardown(&f);
}
END_TEST

Suite *fuzz_barre_found_suite(void)
{
    Suite *s = suite_create("fuzz_barre_found");
    TCase *tc = test_case(s, "barre_alloc_unmap");
    tcase_add_test(tc, unmap_beyond_the_address_width_is_refused);
    tcase_add_test(tc, unmap_up_to_the_last_page_still_unmaps);
    tcase_add_test(tc, migrate_with_a_range_beyond_the_address_width_is_refused);
    return s;
}
