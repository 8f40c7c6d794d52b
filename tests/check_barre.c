/*
 * Barre Chord's group information and PEC calculation against the paper's
 * worked examples ("Barre Chord: Efficient Virtual Memory Translation for
 * Multi-Chip-Module GPUs" Examples 2-4, Figures 7a, 10, 13 and 14; the
 * seed-001 note's §D.2, §D.4, §D.5 and §D.9 vectors).
 */
#include "testutil.h"

/* Example 1: four chiplets whose memories start at these global frames. */
static const uint64_t base[4] = {0xA000, 0xB000, 0xC000, 0xD000};

/* Example 3: data 1, 12 pages from 0x1, three consecutive pages per chiplet. */
static const xlat_pec_entry data1 = {.pasid = 1, .start_vpn = 0x1, .end_vpn = 0xC,
                                     .interlv_gran = 3, .gpu_map = {0, 1, 2, 3},
                                     .positions = 4};

/* The frame q gets from the walk of vpn -> pfn with info ci, or 0 for "not a member". */
static uint64_t calc(const xlat_pec_entry *d, uint64_t vpn, uint64_t pfn,
                     const xlat_coal_info *ci, uint64_t q)
{
    uint64_t out = 0xDEAD;
    int rc = xlat_pec_calc(d, base, vpn, pfn, ci, q, &out);
    if (rc == XLAT_ERR_NOT_FOUND) {
        ck_assert_uint_eq(out, 0xDEAD); /* untouched */
        return 0;
    }
    ck_assert_int_eq(rc, XLAT_OK);
    return out;
}

/* Example 2: the gray group of data 3 on GPU0-2; VPN 0xB6 is its order 2.
 * Bits 62..52 read 010 11100000. */
START_TEST(example2_pte_fields)
{
    const uint64_t frame_and_flags = 0x80000000000B6067ull; /* XD, frame 0xB6, flags */
    xlat_coal_info ci = {.bitmap = 0xE0, .inter = 2};
    uint64_t pte = xlat_coal_encode(frame_and_flags, &ci, false);
    ck_assert_uint_eq((pte >> 52) & 0x7FF, 0x2E0); /* 010 11100000 */
    ck_assert_uint_eq(pte & ~(0x7FFull << 52), frame_and_flags);
    xlat_coal_info back;
    xlat_coal_decode(pte, false, &back);
    ck_assert_uint_eq(back.bitmap, 0xE0);
    ck_assert_uint_eq(back.inter, 2);
    ck_assert_uint_eq(back.intra, 0);
    ck_assert_uint_eq(back.merged, 0);
    ck_assert_uint_eq(xlat_coal_encode(pte, NULL, false), frame_and_flags);
}
END_TEST

/* §D.9 case X1: the PTE of 0x13 in the 4-chiplet layout: bitmap 1111,
 * inter 01, intra 01, merged 01. */
START_TEST(expanded_pte_fields)
{
    xlat_coal_info ci = {.bitmap = 0xF, .inter = 1, .intra = 1, .merged = 1};
    uint64_t pte = xlat_coal_encode(0xB201000ull | 0x7, &ci, true);
    ck_assert_uint_eq((pte >> 52) & 0x7FF, 0x15F); /* 0 01 01 01 1111 */
    xlat_coal_info back;
    xlat_coal_decode(pte, true, &back);
    ck_assert_uint_eq(back.bitmap, 0xF);
    ck_assert_uint_eq(back.inter, 1);
    ck_assert_uint_eq(back.intra, 1);
    ck_assert_uint_eq(back.merged, 1);
    /* fields wider than their bits are cut to them; bit 63 and 0..51 kept */
    xlat_coal_info wide = {.bitmap = 0xFF, .inter = 7, .intra = 7, .merged = 7};
    pte = xlat_coal_encode(~0ull, &wide, true);
    ck_assert_uint_eq(pte, ~0ull & ~(1ull << 62));
    xlat_coal_decode(0, true, NULL); /* NULL out: nothing */
}
END_TEST

/* Example 4 and its derived rows: the walk of 0x4 gave 0xB075. */
START_TEST(example4_pfn_calculation)
{
    xlat_coal_info ci = {.bitmap = 0xF0, .inter = 1};
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0xA), 0xD075);
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0x1), 0xA075);
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0x7), 0xC075);
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0x4), 0xB075); /* the walk itself */
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0x5), 0);  /* gap 1, not a multiple of 3 */
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0xD), 0);  /* past the object's end */
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0xA2), 0); /* data 2 */
}
END_TEST

/* Figure 7a: every page of data 1 from the walk of any one page of its group. */
START_TEST(figure7a_every_member_from_every_walk)
{
    static const uint64_t local[3] = {0x75, 0x88, 0x114};
    for (uint64_t v = 0x1; v <= 0xC; v++) {
        uint64_t chiplet = (v - 1) / 3, group = (v - 1) % 3;
        xlat_coal_info ci = {.bitmap = 0xF0, .inter = (uint8_t)chiplet};
        uint64_t pfn = base[chiplet] + local[group];
        for (uint64_t q = 0x1; q <= 0xC; q++) {
            uint64_t want = (q - 1) % 3 == group ? base[(q - 1) / 3] + local[group] : 0;
            ck_assert_msg(calc(&data1, v, pfn, &ci, q) == want, "walk 0x%llx, pending 0x%llx",
                          (unsigned long long)v, (unsigned long long)q);
        }
    }
}
END_TEST

/* Figure 10 (arbitrary GPU_map, §D.4's [1, 0, 3, 2]): 0x4 is on GPU0. */
START_TEST(figure10_arbitrary_gpu_map)
{
    xlat_pec_entry d = data1;
    memcpy(d.gpu_map, (uint8_t[]){1, 0, 3, 2}, 4);
    xlat_coal_info ci = {.bitmap = 0xF0, .inter = 1};
    ck_assert_uint_eq(calc(&d, 0x4, 0xA075, &ci, 0xA), 0xC075);
    ck_assert_uint_eq(calc(&d, 0x4, 0xA075, &ci, 0x1), 0xB075);
    ck_assert_uint_eq(calc(&d, 0x4, 0xA075, &ci, 0x7), 0xD075);
    /* a three-chiplet group (0, 3, 2): position 3 has no chiplet */
    xlat_pec_entry three = {.start_vpn = 0x100, .end_vpn = 0x102, .interlv_gran = 1,
                            .gpu_map = {0, 3, 2}, .positions = 3};
    xlat_coal_info c3 = {.bitmap = 0xB0, .inter = 0}; /* GPU0, GPU2, GPU3 */
    ck_assert_uint_eq(calc(&three, 0x100, 0xA300, &c3, 0x101), 0xD300);
    ck_assert_uint_eq(calc(&three, 0x100, 0xA300, &c3, 0x102), 0xC300);
    ck_assert_uint_eq(calc(&three, 0x100, 0xA300, &c3, 0x103), 0);
}
END_TEST

/* A member a migration took out of its group: its chiplet's bit is clear,
 * so no frame is computed for it, while the others still are. */
START_TEST(a_hole_in_the_bitmap_is_not_a_member)
{
    xlat_coal_info ci = {.bitmap = 0xD0, .inter = 1}; /* GPU2 (0x7) left the group */
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0x7), 0);
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0xA), 0xD075);
    ck_assert_uint_eq(calc(&data1, 0x4, 0xB075, &ci, 0x1), 0xA075);
}
END_TEST

/* §D.9 case X1: 2Merge over 4 chiplets, interleaving 2, data 0x10..0x17 on
 * local frames 0x200 and 0x201; the walk of 0x13 gave 0xB201. */
START_TEST(expanded_x1_one_walk_covers_eight_pages)
{
    xlat_pec_entry d = {.start_vpn = 0x10, .end_vpn = 0x17, .interlv_gran = 2,
                        .gpu_map = {0, 1, 2, 3}, .positions = 4};
    xlat_coal_info ci = {.bitmap = 0xF, .inter = 1, .intra = 1, .merged = 1};
    static const uint64_t want[8] = {0xA200, 0xA201, 0xB200, 0xB201,
                                     0xC200, 0xC201, 0xD200, 0xD201};
    for (uint64_t q = 0x10; q <= 0x17; q++)
        ck_assert_uint_eq(calc(&d, 0x13, 0xB201, &ci, q), want[q - 0x10]);
}
END_TEST

/* §D.9 case X2 (Figure 14): data 1 as one merged group on 0x75/0x76 and
 * one default group on 0x114. */
START_TEST(expanded_x2_mixed_merged_and_default_groups)
{
    xlat_coal_info merged = {.bitmap = 0xF, .inter = 1, .intra = 1, .merged = 1};
    ck_assert_uint_eq(calc(&data1, 0x5, 0xB076, &merged, 0xA), 0xD075);
    ck_assert_uint_eq(calc(&data1, 0x5, 0xB076, &merged, 0x8), 0xC076);
    ck_assert_uint_eq(calc(&data1, 0x5, 0xB076, &merged, 0x9), 0); /* intra 2 > 1: group D */
    xlat_coal_info dflt = {.bitmap = 0xF, .inter = 1, .intra = 0, .merged = 0};
    ck_assert_uint_eq(calc(&data1, 0x6, 0xB114, &dflt, 0x9), 0xC114);
    ck_assert_uint_eq(calc(&data1, 0x6, 0xB114, &dflt, 0xA), 0); /* intra 1 > 0 */
}
END_TEST

START_TEST(pec_calc_errors)
{
    xlat_coal_info ci = {.bitmap = 0xF0, .inter = 1};
    uint64_t out;
    ck_assert_int_eq(xlat_pec_calc(NULL, base, 0x4, 0xB075, &ci, 0xA, &out), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_calc(&data1, NULL, 0x4, 0xB075, &ci, 0xA, &out), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_calc(&data1, base, 0x4, 0xB075, NULL, 0xA, &out), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_calc(&data1, base, 0x4, 0xB075, &ci, 0xA, NULL), XLAT_ERR_INVAL);
    xlat_pec_entry d = data1;
    d.interlv_gran = 0;
    ck_assert_int_eq(xlat_pec_calc(&d, base, 0x4, 0xB075, &ci, 0xA, &out), XLAT_ERR_INVAL);
    d = data1;
    d.positions = 17;
    ck_assert_int_eq(xlat_pec_calc(&d, base, 0x4, 0xB075, &ci, 0xA, &out), XLAT_ERR_INVAL);
    xlat_coal_info beyond = {.bitmap = 0xF0, .inter = 4}; /* no position 4 in data 1 */
    ck_assert_int_eq(xlat_pec_calc(&data1, base, 0x4, 0xB075, &beyond, 0xA, &out),
                     XLAT_ERR_INVAL);
    /* a walked page outside the object, or info that does not fit it */
    ck_assert_int_eq(xlat_pec_calc(&data1, base, 0xD, 0xB075, &ci, 0xA, &out),
                     XLAT_ERR_NOT_FOUND);
    xlat_coal_info late = {.bitmap = 0xF0, .inter = 3};
    ck_assert_int_eq(xlat_pec_calc(&data1, base, 0x4, 0xB075, &late, 0xA, &out),
                     XLAT_ERR_NOT_FOUND);
}
END_TEST

static xlat_resp walked;
static void on_walked(void *user, const xlat_resp *r)
{
    (void)user;
    walked = *r;
}

/* The group information set in a leaf comes back with the walk (as an ATS
 * response carries it) and with a functional lookup. */
START_TEST(a_walk_returns_the_group_information)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0xA000, 0xD075, 12, XLAT_PERM_R), XLAT_OK);
    xlat_coal_info ci = {.bitmap = 0xF0, .inter = 3};
    uint32_t bits = (uint32_t)(xlat_coal_encode(0, &ci, false) >> 52);
    ck_assert_int_eq(xlat_pagetable_set_avail_high(pt, 1, 0xA123, bits), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_set_avail_high(pt, 1, 0xB000, bits), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_pagetable_set_avail_high(NULL, 1, 0xA000, bits), XLAT_ERR_INVAL);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, 0xA000, &e), XLAT_OK);
    ck_assert_uint_eq(e.meta.coal_info, bits);
    ck_assert_uint_eq(e.pfn, 0xD075); /* the frame is untouched */
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = pt;
    xlat_walker *w;
    ck_assert_int_eq(xlat_walker_create(ctx, &wc, &w), XLAT_OK);
    xlat_req req = {.id = 1, .vaddr = 0xA040, .pasid = 1};
    ck_assert_int_eq(xlat_walker_translate(w, &req, on_walked, NULL), XLAT_OK);
    xlat_advance(ctx, 1000);
    ck_assert_int_eq(walked.status, XLAT_OK);
    ck_assert_uint_eq(walked.pfn, 0xD075);
    xlat_coal_info back;
    xlat_coal_decode((uint64_t)walked.meta.coal_info << 52, false, &back);
    ck_assert_uint_eq(back.bitmap, 0xF0);
    ck_assert_uint_eq(back.inter, 3);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* An object of `pages` pages from `start` (interleaving 1, 4 chiplets). */
static xlat_pec_entry object(uint32_t pasid, uint64_t start, uint64_t pages)
{
    xlat_pec_entry e = {.pasid = pasid, .start_vpn = start, .end_vpn = start + pages - 1,
                        .interlv_gran = 1, .gpu_map = {0, 1, 2, 3}, .positions = 4};
    return e;
}

/* Example 3's entry, found by any page of data 1 and by no other. */
START_TEST(pec_buffer_example3)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_pec_buffer_config c;
    xlat_pec_buffer_config_init(&c);
    ck_assert_uint_eq(c.entries, 5);
    xlat_pec_buffer *pec;
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, &pec), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &data1), XLAT_OK);
    xlat_pec_entry got;
    for (uint64_t v = 0x1; v <= 0xC; v++) {
        ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 1, v, &got), XLAT_OK);
        ck_assert_uint_eq(got.interlv_gran, 3);
        ck_assert_uint_eq(got.gpu_map[3], 3);
    }
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 1, 0xD, &got), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 2, 0x4, &got), XLAT_ERR_NOT_FOUND);
    xlat_pec_buffer_stats st;
    xlat_pec_buffer_stats_get(pec, &st, sizeof(st));
    ck_assert_uint_eq(st.lookups, 14);
    ck_assert_uint_eq(st.hits, 12);
    ck_assert_uint_eq(st.inserts, 1);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* Full: a larger object replaces the smallest smaller one; one no larger
 * than any held is refused; an object held is updated in place. */
START_TEST(pec_buffer_replacement)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_pec_buffer_config c;
    xlat_pec_buffer_config_init(&c);
    c.entries = 3;
    xlat_pec_buffer *pec;
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, &pec), XLAT_OK);
    xlat_pec_entry a = object(1, 0x100, 64), b = object(1, 0x200, 16), d = object(1, 0x300, 32);
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &a), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &b), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &d), XLAT_OK);
    ck_assert_uint_eq(xlat_pec_buffer_count(pec), 3);
    xlat_pec_entry small = object(1, 0x400, 8);
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &small), XLAT_ERR_FULL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "at least as large"));
    xlat_pec_entry equal = object(1, 0x500, 16); /* as large as b: not smaller, refused */
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &equal), XLAT_ERR_FULL);
    xlat_pec_entry big = object(2, 0x100, 128); /* replaces b, the smallest */
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &big), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 1, 0x200, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 2, 0x17F, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 1, 0x13F, NULL), XLAT_OK);
    a.interlv_gran = 4; /* the same object again: updated in place */
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &a), XLAT_OK);
    xlat_pec_entry got;
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 1, 0x100, &got), XLAT_OK);
    ck_assert_uint_eq(got.interlv_gran, 4);
    ck_assert_uint_eq(xlat_pec_buffer_count(pec), 3);
    xlat_pec_buffer_stats st;
    xlat_pec_buffer_stats_get(pec, &st, sizeof(st));
    ck_assert_uint_eq(st.inserts, 5);
    ck_assert_uint_eq(st.evictions, 1);
    ck_assert_uint_eq(st.refusals, 2);
    ck_assert_int_eq(xlat_pec_buffer_remove(pec, 1, 0x310), 1);
    ck_assert_int_eq(xlat_pec_buffer_remove(pec, 1, 0x310), 0);
    ck_assert_int_eq(xlat_pec_buffer_clear(pec), 2);
    ck_assert_uint_eq(xlat_pec_buffer_count(pec), 0);
    xlat_pec_buffer_stats_get(pec, &st, sizeof(st));
    ck_assert_uint_eq(st.removals, 3);
    ck_assert_int_eq(xlat_pec_buffer_destroy(pec), XLAT_OK);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(pec_buffer_errors)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(1, &ca);
    xlat_pec_buffer_config c;
    xlat_pec_buffer_config_init(&c);
    xlat_pec_buffer *pec = NULL;
    ck_assert_int_eq(xlat_pec_buffer_create(NULL, &c, &pec), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, NULL, &pec), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, NULL), XLAT_ERR_INVAL);
    c.entries = 0;
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, &pec), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "entries 0"));
    c.entries = 1025;
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, &pec), XLAT_ERR_INVAL);
    c.entries = 5;
    ca.fail_after = 1;
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, &pec), XLAT_ERR_NOMEM);
    ca.fail_after = -1;
    ck_assert_ptr_null(pec);
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &c, &pec), XLAT_OK);
    xlat_pec_entry bad = data1;
    bad.end_vpn = 0;
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &bad), XLAT_ERR_INVAL);
    bad = data1;
    bad.positions = 0;
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &bad), XLAT_ERR_INVAL);
    bad = data1;
    bad.interlv_gran = 0;
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, &bad), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_insert(NULL, &data1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_insert(pec, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_lookup(NULL, 1, 1, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_remove(NULL, 1, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_pec_buffer_clear(NULL), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_pec_buffer_count(NULL), 0);
    ck_assert_int_eq(xlat_pec_buffer_destroy(NULL), XLAT_OK);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

Suite *barre_suite(void)
{
    Suite *s = suite_create("barre");
    TCase *tc = tcase_create("coal");
    tcase_add_test(tc, example2_pte_fields);
    tcase_add_test(tc, expanded_pte_fields);
    tcase_add_test(tc, example4_pfn_calculation);
    tcase_add_test(tc, figure7a_every_member_from_every_walk);
    tcase_add_test(tc, figure10_arbitrary_gpu_map);
    tcase_add_test(tc, a_hole_in_the_bitmap_is_not_a_member);
    tcase_add_test(tc, expanded_x1_one_walk_covers_eight_pages);
    tcase_add_test(tc, expanded_x2_mixed_merged_and_default_groups);
    tcase_add_test(tc, pec_calc_errors);
    tcase_add_test(tc, a_walk_returns_the_group_information);
    suite_add_tcase(s, tc);
    tc = tcase_create("pec_buffer");
    tcase_add_test(tc, pec_buffer_example3);
    tcase_add_test(tc, pec_buffer_replacement);
    tcase_add_test(tc, pec_buffer_errors);
    suite_add_tcase(s, tc);
    return s;
}
