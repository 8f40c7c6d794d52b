/*
 * Barre Chord's group allocation against the paper's worked examples
 * ("Barre Chord: Efficient Virtual Memory Translation for Multi-Chip-Module
 * GPUs" Example 1, Figures 7a, 10, 13 and 14, §VI, §VII-H6; the seed-001
 * note's §D.1 and §D.9 vectors), its errors, and a randomized differential
 * check of every computed frame against the page table.
 */
#include "barre_alloc_fixture.h"

/* The frame and group fields page `vpn` of pasid 1 must have. */
struct want {
    uint64_t vpn, pfn;
    uint8_t bitmap, inter, intra, merged;
};

static void check_pages(const ba_fixture *f, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xlat_tlb_entry e;
        ck_assert_int_eq(xlat_pagetable_lookup(f->pt, 1, w[i].vpn << 12, &e), XLAT_OK);
        ck_assert_msg(e.pfn == w[i].pfn, "page 0x%llx: frame 0x%llx, want 0x%llx",
                      (unsigned long long)w[i].vpn, (unsigned long long)e.pfn,
                      (unsigned long long)w[i].pfn);
        xlat_coal_info ci;
        xlat_coal_decode((uint64_t)e.meta.coal_info << 52, xlat_barre_alloc_expanded(f->a), &ci);
        ck_assert_msg(ci.bitmap == w[i].bitmap && ci.inter == w[i].inter &&
                          ci.intra == w[i].intra && ci.merged == w[i].merged,
                      "page 0x%llx: bitmap 0x%x inter %u intra %u merged %u", 
                      (unsigned long long)w[i].vpn, ci.bitmap, ci.inter, ci.intra, ci.merged);
    }
}

static xlat_barre_object object(uint64_t start, uint64_t pages, uint32_t gran)
{
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.start_vpn = start;
    o.pages = pages;
    o.interlv_gran = gran;
    return o;
}

/* q's frame computed from p's walk (a lookup of the page table), 0 when q is not a member. */
static uint64_t calc_from(const ba_fixture *f, const xlat_pec_entry *d, uint64_t p, uint64_t q)
{
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(f->pt, d->pasid, p << 12, &e), XLAT_OK);
    xlat_coal_info ci;
    xlat_coal_decode((uint64_t)e.meta.coal_info << 52, xlat_barre_alloc_expanded(f->a), &ci);
    uint64_t pfn;
    int rc = xlat_pec_calc(d, f->base, p, e.pfn, &ci, q, &pfn);
    ck_assert(rc == XLAT_OK || rc == XLAT_ERR_NOT_FOUND);
    return rc == XLAT_OK ? pfn : 0;
}

/* Example 1's frames: on GPU0 only 0x75, 0x88 and 0x114 are free below
 * 0x150 (and `extra` more), so they are the first commonly free frames. */
static void example1_memory(ba_fixture *f, uint32_t max_merge, const uint64_t *extra, size_t n)
{
    uint64_t keep[8] = {0x75, 0x88, 0x114};
    for (size_t i = 0; i < n; i++)
        keep[3 + i] = extra[i];
    ba_setup(f, 4, 0x200, max_merge, false, NULL);
    ba_take_all_but(f, 0, keep, 3 + n);
}

/* §D.1, Figure 7a: data 1, every PTE's frame and bits. */
START_TEST(figure7a_data1)
{
    ba_fixture f;
    example1_memory(&f, 1, NULL, 0);
    xlat_barre_object o = object(0x1, 12, 3);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    static const struct want w[] = {
        {0x1, 0xA075, 0xF0, 0, 0, 0}, {0x2, 0xA088, 0xF0, 0, 0, 0}, {0x3, 0xA114, 0xF0, 0, 0, 0},
        {0x4, 0xB075, 0xF0, 1, 0, 0}, {0x5, 0xB088, 0xF0, 1, 0, 0}, {0x6, 0xB114, 0xF0, 1, 0, 0},
        {0x7, 0xC075, 0xF0, 2, 0, 0}, {0x8, 0xC088, 0xF0, 2, 0, 0}, {0x9, 0xC114, 0xF0, 2, 0, 0},
        {0xA, 0xD075, 0xF0, 3, 0, 0}, {0xB, 0xD088, 0xF0, 3, 0, 0}, {0xC, 0xD114, 0xF0, 3, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    /* Example 3's PEC entry, and Example 4 from the walk of 0x4 */
    ck_assert_uint_eq(d.pasid, 1);
    ck_assert_uint_eq(d.start_vpn, 0x1);
    ck_assert_uint_eq(d.end_vpn, 0xC);
    ck_assert_uint_eq(d.interlv_gran, 3);
    ck_assert_uint_eq(d.positions, 4);
    ck_assert_mem_eq(d.gpu_map, ((uint8_t[]){0, 1, 2, 3}), 4);
    ck_assert_uint_eq(calc_from(&f, &d, 0x4, 0xA), 0xD075);
    ck_assert_uint_eq(calc_from(&f, &d, 0x4, 0x5), 0);
    /* 0x75 is the lowest frame free on all four: 0x0..0x74 were free on GPU1-3 */
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(f.a, &st, sizeof(st));
    ck_assert_uint_eq(st.objects, 1);
    ck_assert_uint_eq(st.groups, 3);
    ck_assert_uint_eq(st.grouped_pages, 12);
    ck_assert_uint_eq(st.default_pages, 0);
    ba_teardown(&f);
}
END_TEST

/* Walks a greedy host makes to translate every page of `d`: each walk
 * serves every page its PEC calculation covers. */
static unsigned walks_to_cover(const ba_fixture *f, const xlat_pec_entry *d, bool barre)
{
    bool done[64] = {false};
    unsigned walks = 0;
    for (uint64_t p = d->start_vpn; p <= d->end_vpn; p++) {
        if (done[p - d->start_vpn])
            continue;
        walks++;
        for (uint64_t q = d->start_vpn; q <= d->end_vpn && barre; q++)
            done[q - d->start_vpn] |= calc_from(f, d, p, q) != 0;
        done[p - d->start_vpn] = true;
    }
    return walks;
}

/* §D.1, Example 1: data 2 (4 pages on GPU0-3) and data 3 (the gray group
 * on GPU0-2, Example 2); 19 pages, 19 translations without Barre, 5 with. */
START_TEST(example1_three_objects_five_translations)
{
    ba_fixture f;
    example1_memory(&f, 1, (const uint64_t[]){0x150, 0x160}, 2);
    xlat_barre_object o[3] = {object(0x1, 12, 3), object(0xA1, 4, 1), object(0xB4, 3, 1)};
    o[2].positions = 3;
    memcpy(o[2].gpu_map, (uint8_t[]){0, 1, 2}, 3);
    xlat_pec_entry d[3];
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o[i], NULL, &d[i]), XLAT_OK);
    static const struct want w[] = {
        {0xA1, 0xA150, 0xF0, 0, 0, 0}, {0xA2, 0xB150, 0xF0, 1, 0, 0},
        {0xA3, 0xC150, 0xF0, 2, 0, 0}, {0xA4, 0xD150, 0xF0, 3, 0, 0},
        {0xB4, 0xA160, 0xE0, 0, 0, 0}, {0xB5, 0xB160, 0xE0, 1, 0, 0},
        {0xB6, 0xC160, 0xE0, 2, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    xlat_tlb_entry e; /* Example 2: 0xB6's bits 62..52 read 010 11100000 */
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, 0xB6000, &e), XLAT_OK);
    ck_assert_uint_eq(e.meta.coal_info, 0x2E0);
    unsigned with = 0, without = 0;
    for (int i = 0; i < 3; i++) {
        with += walks_to_cover(&f, &d[i], true);
        without += walks_to_cover(&f, &d[i], false);
    }
    ck_assert_uint_eq(without, 19);
    ck_assert_uint_eq(with, 5); /* 3 + 1 + 1 */
    ba_teardown(&f);
}
END_TEST

/* §D.9 X1: 2Merge, 8 pages from 0x10, interlv_gran 2, on 0x200 and 0x201. */
START_TEST(expanded_x1_two_merge)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x400, 2, false, NULL);
    ck_assert_int_eq(xlat_physmem_take(f.mem, 0xA000, 0x200), XLAT_OK);
    xlat_barre_object o = object(0x10, 8, 2);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    static const struct want w[] = {
        {0x10, 0xA200, 0xF, 0, 0, 1}, {0x11, 0xA201, 0xF, 0, 1, 1},
        {0x12, 0xB200, 0xF, 1, 0, 1}, {0x13, 0xB201, 0xF, 1, 1, 1},
        {0x14, 0xC200, 0xF, 2, 0, 1}, {0x15, 0xC201, 0xF, 2, 1, 1},
        {0x16, 0xD200, 0xF, 3, 0, 1}, {0x17, 0xD201, 0xF, 3, 1, 1},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    xlat_tlb_entry e; /* bitmap 1111, inter 01, intra 01, merged 01 */
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, 0x13000, &e), XLAT_OK);
    ck_assert_uint_eq(e.meta.coal_info, 0x15F);
    ck_assert_uint_eq(calc_from(&f, &d, 0x13, 0x16), 0xD200);
    ck_assert_uint_eq(calc_from(&f, &d, 0x13, 0x11), 0xA201);
    ck_assert_uint_eq(walks_to_cover(&f, &d, true), 1);
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(f.a, &st, sizeof(st));
    ck_assert_uint_eq(st.groups, 1);
    ck_assert_uint_eq(st.merged_groups, 1);
    ba_teardown(&f);
}
END_TEST

/* §D.9 X2 (Fig 14): 0x75-0x76 free together and 0x114 apart give one
 * merged group and one default group in one object. */
START_TEST(expanded_x2_merged_and_default)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x200, 2, false, NULL);
    ba_take_all_but(&f, 0, (const uint64_t[]){0x75, 0x76, 0x114}, 3);
    xlat_barre_object o = object(0x1, 12, 3);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    static const struct want w[] = {
        {0x1, 0xA075, 0xF, 0, 0, 1}, {0x2, 0xA076, 0xF, 0, 1, 1}, {0x3, 0xA114, 0xF, 0, 0, 0},
        {0x4, 0xB075, 0xF, 1, 0, 1}, {0x5, 0xB076, 0xF, 1, 1, 1}, {0x6, 0xB114, 0xF, 1, 0, 0},
        {0x7, 0xC075, 0xF, 2, 0, 1}, {0x8, 0xC076, 0xF, 2, 1, 1}, {0x9, 0xC114, 0xF, 2, 0, 0},
        {0xA, 0xD075, 0xF, 3, 0, 1}, {0xB, 0xD076, 0xF, 3, 1, 1}, {0xC, 0xD114, 0xF, 3, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0xA), 0xD075);
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0x8), 0xC076);
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0x9), 0); /* the default group's */
    ck_assert_uint_eq(calc_from(&f, &d, 0x6, 0x9), 0xC114);
    ck_assert_uint_eq(calc_from(&f, &d, 0x6, 0xA), 0);
    ck_assert_uint_eq(walks_to_cover(&f, &d, true), 2);
    ba_teardown(&f);
}
END_TEST

/* §D.9 X3: 0x76 taken on GPU3 alone: no merge anywhere, three default groups. */
START_TEST(expanded_x3_no_merge_without_all_chiplets)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x200, 2, false, NULL);
    ba_take_all_but(&f, 0, (const uint64_t[]){0x75, 0x76, 0x114, 0x120}, 4);
    ck_assert_int_eq(xlat_physmem_take(f.mem, 0xD076, 1), XLAT_OK);
    xlat_barre_object o = object(0x1, 12, 3);
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, NULL), XLAT_OK);
    static const struct want w[] = {
        {0x1, 0xA075, 0xF, 0, 0, 0}, {0x2, 0xA114, 0xF, 0, 0, 0}, {0x3, 0xA120, 0xF, 0, 0, 0},
        {0xA, 0xD075, 0xF, 3, 0, 0}, {0xB, 0xD114, 0xF, 3, 0, 0}, {0xC, 0xD120, 0xF, 3, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(f.a, &st, sizeof(st));
    ck_assert_uint_eq(st.groups, 3);
    ck_assert_uint_eq(st.merged_groups, 0);
    ba_teardown(&f);
}
END_TEST

/* GPU0 free at 0x75, 0x88 and 0x90 only, GPU1 without 0x88 and 0x90. */
static void fallback_memory(ba_fixture *f, bool whole)
{
    ba_setup(f, 4, 0x200, 1, whole, NULL);
    ba_take_all_but(f, 0, (const uint64_t[]){0x75, 0x88, 0x90}, 3);
    ck_assert_int_eq(xlat_physmem_take(f->mem, 0xB088, 1), XLAT_OK);
    ck_assert_int_eq(xlat_physmem_take(f->mem, 0xB090, 1), XLAT_OK);
}

/* §IV-G: a group with no common frame is placed by default, page by page
 * on its own chiplet, with zero group bits; the others keep their group. */
START_TEST(fallback_per_group)
{
    ba_fixture f;
    fallback_memory(&f, false);
    xlat_barre_object o = object(0x1, 12, 3);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    static const struct want w[] = {
        {0x1, 0xA075, 0xF0, 0, 0, 0}, {0x4, 0xB075, 0xF0, 1, 0, 0},
        {0x2, 0xA088, 0, 0, 0, 0},    {0x5, 0xB000, 0, 0, 0, 0},
        {0x8, 0xC000, 0, 0, 0, 0},    {0xB, 0xD000, 0, 0, 0, 0},
        {0x3, 0xA090, 0, 0, 0, 0},    {0x6, 0xB001, 0, 0, 0, 0},
        {0x9, 0xC001, 0, 0, 0, 0},    {0xC, 0xD001, 0, 0, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0x5), 0); /* no group: no calculation at all */
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0x8), 0);
    ck_assert_uint_eq(calc_from(&f, &d, 0x1, 0xA), 0xD075);
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(f.a, &st, sizeof(st));
    ck_assert_uint_eq(st.groups, 1);
    ck_assert_uint_eq(st.fallback_groups, 2);
    ck_assert_uint_eq(st.default_pages, 8);
    ck_assert_uint_eq(walks_to_cover(&f, &d, true), 9);
    ba_teardown(&f);
}
END_TEST

/* The whole-object option: one group short, every page by default. */
START_TEST(fallback_whole_object)
{
    ba_fixture f;
    fallback_memory(&f, true);
    xlat_barre_object o = object(0x1, 12, 3);
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, NULL), XLAT_OK);
    static const struct want w[] = {
        {0x1, 0xA075, 0, 0, 0, 0}, {0x4, 0xB000, 0, 0, 0, 0}, {0x7, 0xC000, 0, 0, 0, 0},
        {0xA, 0xD000, 0, 0, 0, 0}, {0x2, 0xA088, 0, 0, 0, 0}, {0x5, 0xB001, 0, 0, 0, 0},
        {0x3, 0xA090, 0, 0, 0, 0}, {0xC, 0xD002, 0, 0, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(f.a, &st, sizeof(st));
    ck_assert_uint_eq(st.groups, 0);
    ck_assert_uint_eq(st.whole_fallbacks, 1);
    ck_assert_uint_eq(st.fallback_groups, 1);
    ck_assert_uint_eq(st.default_pages, 12);
    ba_teardown(&f);
}
END_TEST

/* Figure 10 (right), §D.4: GPU_map [1, 0, 3, 2]. */
START_TEST(figure10_arbitrary_gpu_map)
{
    ba_fixture f;
    example1_memory(&f, 1, (const uint64_t[]){0x150}, 1);
    ck_assert_int_eq(xlat_physmem_take(f.mem, 0xB000, 0x75), XLAT_OK); /* GPU1 now leads */
    xlat_barre_object o = object(0x1, 12, 3);
    o.positions = 4;
    memcpy(o.gpu_map, (uint8_t[]){1, 0, 3, 2}, 4);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    static const struct want w[] = {
        {0x1, 0xB075, 0xF0, 0, 0, 0}, {0x4, 0xA075, 0xF0, 1, 0, 0},
        {0x7, 0xD075, 0xF0, 2, 0, 0}, {0xA, 0xC075, 0xF0, 3, 0, 0},
        {0x3, 0xB114, 0xF0, 0, 0, 0}, {0xC, 0xC114, 0xF0, 3, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_mem_eq(d.gpu_map, ((uint8_t[]){1, 0, 3, 2}), 4);
    ck_assert_uint_eq(calc_from(&f, &d, 0x4, 0xA), 0xC075);
    ba_teardown(&f);
}
END_TEST

/* §VII-H6: round-robin, one page per chiplet per round. */
START_TEST(round_robin_placement)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, NULL);
    xlat_barre_object o = object(0x100, 8, 5); /* interlv_gran is ignored */
    o.placement = XLAT_BARRE_ROUND_ROBIN;
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    ck_assert_uint_eq(d.interlv_gran, 1);
    static const struct want w[] = {
        {0x100, 0xA000, 0xF, 0, 0, 0}, {0x101, 0xB000, 0xF, 1, 0, 0},
        {0x102, 0xC000, 0xF, 2, 0, 0}, {0x103, 0xD000, 0xF, 3, 0, 0},
        {0x104, 0xA001, 0xF, 0, 0, 0}, {0x107, 0xD001, 0xF, 3, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_uint_eq(calc_from(&f, &d, 0x101, 0x103), 0xD000);
    ck_assert_uint_eq(calc_from(&f, &d, 0x101, 0x105), 0); /* next round */
    ba_teardown(&f);
}
END_TEST

/* §VII-H6: kernel-wide chunking, 10 pages as chunks of 3, 3, 3, 1: the
 * short last chunk leaves offsets 1-2 with three chiplets, merged. */
START_TEST(chunked_placement)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, NULL);
    xlat_barre_object o = object(0x200, 10, 0);
    o.placement = XLAT_BARRE_CHUNKED;
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    ck_assert_uint_eq(d.interlv_gran, 3);
    static const struct want w[] = {
        {0x200, 0xA000, 0xF, 0, 0, 0}, {0x203, 0xB000, 0xF, 1, 0, 0},
        {0x206, 0xC000, 0xF, 2, 0, 0}, {0x209, 0xD000, 0xF, 3, 0, 0},
        {0x201, 0xA001, 0xE, 0, 0, 1}, {0x202, 0xA002, 0xE, 0, 1, 1},
        {0x204, 0xB001, 0xE, 1, 0, 1}, {0x205, 0xB002, 0xE, 1, 1, 1},
        {0x207, 0xC001, 0xE, 2, 0, 1}, {0x208, 0xC002, 0xE, 2, 1, 1},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_uint_eq(calc_from(&f, &d, 0x201, 0x208), 0xC002);
    ck_assert_uint_eq(walks_to_cover(&f, &d, true), 2);
    ba_teardown(&f);
}
END_TEST

/* §VI: 0x5 leaves G_88; the others lose GPU1's bit (a hole at position 1)
 * and still coalesce; nothing computes 0x5 any more. */
START_TEST(migration_leaves_a_hole)
{
    ba_fixture f;
    example1_memory(&f, 1, NULL, 0);
    xlat_barre_object o = object(0x1, 12, 3);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    xlat_barre_migration m;
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &d, 0x5, 3, &m), XLAT_OK);
    ck_assert_uint_eq(m.old_pfn, 0xB088);
    ck_assert_uint_eq(m.new_pfn, 0xD000); /* GPU3's first free frame */
    ck_assert_uint_eq(m.count, 4);
    ck_assert_mem_eq(m.vpn, ((uint64_t[]){0x5, 0x2, 0x8, 0xB}), 4 * sizeof(uint64_t));
    static const struct want w[] = {
        {0x5, 0xD000, 0, 0, 0, 0},    {0x2, 0xA088, 0xB0, 0, 0, 0},
        {0x8, 0xC088, 0xB0, 2, 0, 0}, {0xB, 0xD088, 0xB0, 3, 0, 0},
        {0x4, 0xB075, 0xF0, 1, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_uint_eq(calc_from(&f, &d, 0x2, 0x5), 0);
    ck_assert_uint_eq(calc_from(&f, &d, 0x2, 0xB), 0xD088);
    ck_assert_uint_eq(calc_from(&f, &d, 0x8, 0x2), 0xA088);
    ck_assert_int_eq(xlat_physmem_take(f.mem, 0xB088, 1), XLAT_OK); /* the old frame is free */
    uint64_t computed = 0;
    ck_assert_uint_eq(ba_wrong_frames(&f, &d, &computed), 0);
    ba_teardown(&f);
}
END_TEST

/* Migration out of a merged group (X2's): 0x4 splits its group into the
 * column of 0x4 without GPU1 and the column after it with every chiplet. */
START_TEST(migration_splits_a_merged_group)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x200, 2, false, NULL);
    ba_take_all_but(&f, 0, (const uint64_t[]){0x75, 0x76, 0x114, 0x150}, 4);
    xlat_barre_object o = object(0x1, 12, 3);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    xlat_barre_migration m;
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &d, 0x4, 0, &m), XLAT_OK);
    ck_assert_uint_eq(m.new_pfn, 0xA150);
    ck_assert_uint_eq(m.count, 8);
    static const struct want w[] = {
        {0x4, 0xA150, 0, 0, 0, 0},   {0x1, 0xA075, 0xB, 0, 0, 0}, {0x7, 0xC075, 0xB, 2, 0, 0},
        {0xA, 0xD075, 0xB, 3, 0, 0}, {0x2, 0xA076, 0xF, 0, 0, 0}, {0x5, 0xB076, 0xF, 1, 0, 0},
        {0xB, 0xD076, 0xF, 3, 0, 0}, {0x6, 0xB114, 0xF, 1, 0, 0},
    };
    check_pages(&f, w, sizeof(w) / sizeof(w[0]));
    ck_assert_uint_eq(calc_from(&f, &d, 0x1, 0x4), 0);
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0x4), 0);
    ck_assert_uint_eq(calc_from(&f, &d, 0x5, 0xB), 0xD076);
    ck_assert_uint_eq(calc_from(&f, &d, 0x1, 0xA), 0xD075);
    /* again, from the second column: 0x5 leaves; 0x2, 0x8, 0xB keep coalescing */
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &d, 0x5, 1, &m), XLAT_OK);
    ck_assert_uint_eq(m.count, 4);
    uint64_t computed = 0;
    ck_assert_uint_eq(ba_wrong_frames(&f, &d, &computed), 0);
    ck_assert_uint_eq(computed, 9 + 9 + 16); /* two groups of 3, one of 4 */
    ba_teardown(&f);
}
END_TEST

/* A group whose chiplets fall to one by migrations has no group bits. */
START_TEST(migration_down_to_one_member)
{
    ba_fixture f;
    ba_setup(&f, 2, 0x40, 1, false, NULL);
    xlat_barre_object o = object(0x30, 2, 1);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &d, 0x30, 1, NULL), XLAT_OK);
    static const struct want w[] = {{0x30, 0xB001, 0, 0, 0, 0}, {0x31, 0xB000, 0, 0, 0, 0}};
    check_pages(&f, w, 2);
    /* a page outside any group only moves */
    xlat_barre_migration m;
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &d, 0x31, 0, &m), XLAT_OK);
    ck_assert_uint_eq(m.count, 1);
    ck_assert_uint_eq(m.new_pfn, 0xA000); /* the frame 0x30 left */
    xlat_barre_alloc_stats st;
    xlat_barre_alloc_stats_get(f.a, &st, sizeof(st));
    ck_assert_uint_eq(st.migrations, 2);
    ck_assert_uint_eq(st.regrouped, 1);
    ba_teardown(&f);
}
END_TEST

/* The PEC buffer gets the entry; unmap takes it out and frees the frames. */
START_TEST(pec_buffer_and_unmap)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, NULL);
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    xlat_pec_buffer *pec, *barre_layout;
    ck_assert_int_eq(xlat_pec_buffer_create(f.ctx, &pc, &barre_layout), XLAT_OK);
    pc.expanded = true; /* max_merge 2: the expanded layout */
    ck_assert_int_eq(xlat_pec_buffer_create(f.ctx, &pc, &pec), XLAT_OK);
    xlat_barre_object o = object(0x1, 12, 3);
    /* a buffer of the other layout would have its frames computed wrong */
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, barre_layout, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "layout"));
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, 0x1000, NULL), XLAT_ERR_FAULT);
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, pec, NULL), XLAT_OK);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_pec_buffer_lookup(pec, 1, 0x7, &d), XLAT_OK);
    ck_assert_uint_eq(d.end_vpn, 0xC);
    ck_assert_uint_eq(xlat_physmem_free_frames(f.mem, 0), 0x40 - 3);
    ck_assert_int_eq(xlat_barre_alloc_unmap(f.a, &d, pec), 12);
    ck_assert_uint_eq(xlat_pec_buffer_count(pec), 0);
    ck_assert_uint_eq(xlat_physmem_free_frames(f.mem, 0), 0x40);
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, 0x1000, NULL), XLAT_ERR_FAULT);
    ck_assert_int_eq(xlat_barre_alloc_unmap(f.a, &d, NULL), 0);
    xlat_pec_buffer_destroy(pec);
    ba_teardown(&f);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

static void assert_fails(xlat_ctx *ctx, int rc, int want, const char *text)
{
    ck_assert_int_eq(rc, want);
    ck_assert_msg(strstr(xlat_ctx_errmsg(ctx), text), "message \"%s\" lacks \"%s\"",
                  xlat_ctx_errmsg(ctx), text);
}

START_TEST(create_errors)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, NULL);
    xlat_barre_alloc_config c;
    xlat_barre_alloc_config_init(&c);
    c.mem = f.mem;
    c.pt = f.pt;
    memcpy(c.base_pfn, f.base, sizeof(f.base));
    xlat_barre_alloc *a = (xlat_barre_alloc *)&f; /* untouched on failure */
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, NULL, &a), XLAT_ERR_INVAL, "NULL cfg");
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &c, NULL), XLAT_ERR_INVAL, "NULL out");
    ck_assert_int_eq(xlat_barre_alloc_create(NULL, &c, &a), XLAT_ERR_INVAL);
    xlat_barre_alloc_config bad = c;
    bad.mem = NULL;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "NULL mem");
    bad = c;
    bad.pt = NULL;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "NULL pt");
    bad = c;
    bad.max_merge = 5;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "max_merge 5");
    bad.max_merge = 0;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "max_merge 0");
    bad = c;
    bad.chiplets = 5; /* the expanded layout holds 4 */
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "5 chiplets");
    bad.max_merge = 1;
    bad.chiplets = 9;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "9 chiplets");
    bad.chiplets = 0;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "0 chiplets");
    bad = c;
    bad.base_pfn[2] = 0xC001;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL,
                 "base_pfn[2] 0xc001 is not the first frame");
    bad.base_pfn[2] = 0x9000; /* no region */
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL, "base_pfn[2]");
    bad.base_pfn[2] = 0xA000;
    assert_fails(f.ctx, xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL,
                 "chiplets 0 and 2 are both region 0");
    bad = c;
    bad.struct_size = 8;
    ck_assert_int_eq(xlat_barre_alloc_create(f.ctx, &bad, &a), XLAT_ERR_INVAL);
    ck_assert_ptr_eq(a, (xlat_barre_alloc *)&f);
    ba_teardown(&f);
}
END_TEST

/* A config as old as the pinned size, and one from a newer header. */
START_TEST(config_sizes)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, NULL);
    struct {
        xlat_barre_alloc_config c;
        uint64_t newer;
    } big;
    memset(&big, 0, sizeof(big));
    xlat_barre_alloc_config_init(&big.c);
    big.c.mem = f.mem;
    big.c.pt = f.pt;
    memcpy(big.c.base_pfn, f.base, sizeof(f.base));
    xlat_barre_alloc *a;
    big.c.struct_size = XLAT_BARRE_ALLOC_CONFIG_SIZE_V0;
    ck_assert_int_eq(xlat_barre_alloc_create(f.ctx, &big.c, &a), XLAT_OK);
    xlat_barre_alloc_destroy(a);
    big.c.struct_size = sizeof(big);
    ck_assert_int_eq(xlat_barre_alloc_create(f.ctx, &big.c, &a), XLAT_OK);
    xlat_barre_alloc_destroy(a);
    big.newer = 1;
    ck_assert_int_eq(xlat_barre_alloc_create(f.ctx, &big.c, &a), XLAT_ERR_UNSUPPORTED);
    struct {
        xlat_barre_object o;
        uint64_t newer;
    } obj = {.o = object(0x1, 4, 1), .newer = 1};
    obj.o.struct_size = sizeof(obj);
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &obj.o, NULL, NULL), XLAT_ERR_UNSUPPORTED);
    obj.o.struct_size = XLAT_BARRE_OBJECT_SIZE_V0;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &obj.o, NULL, NULL), XLAT_OK);
    obj.o.struct_size = 4;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &obj.o, NULL, NULL), XLAT_ERR_INVAL);
    ba_teardown(&f);
}
END_TEST

START_TEST(map_errors)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x10, 2, false, NULL);
    xlat_barre_object o = object(0x1, 12, 3);
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, NULL, NULL, NULL), XLAT_ERR_INVAL, "NULL object");
    ck_assert_int_eq(xlat_barre_alloc_map(NULL, &o, NULL, NULL), XLAT_ERR_INVAL);
    xlat_barre_object bad = o;
    bad.pages = 0;
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL, "empty");
    bad.pages = 2;
    bad.start_vpn = (UINT64_C(1) << 36) - 1; /* 48-bit addresses */
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL, "48-bit");
    bad = o;
    bad.interlv_gran = 0;
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL,
                 "interlv_gran 0");
    bad = o;
    bad.positions = 5;
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL,
                 "5 positions over 4 chiplets");
    bad.positions = 3;
    memcpy(bad.gpu_map, (uint8_t[]){0, 2, 2}, 3);
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL,
                 "gpu_map[2] = 2");
    bad.gpu_map[2] = 4;
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL,
                 "gpu_map[2] = 4");
    bad = o;
    bad.placement = (xlat_barre_placement)7;
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL,
                 "placement 7");
    bad = o;
    bad.perm = 0x80;
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_INVAL, "perm 0x80");
    ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, 0x9000, 0xD00F, 12, XLAT_PERM_R), XLAT_OK);
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &o, NULL, NULL), XLAT_ERR_EXIST,
                 "page 0x9 of pasid 1 is mapped already");
    /* 16 frames a chiplet, 15 free on GPU3: 20 pages need 5 each */
    bad = object(0x100, 20, 5);
    uint64_t free0 = xlat_physmem_free_frames(f.mem, 0);
    ck_assert_int_eq(xlat_physmem_take(f.mem, 0xD000, 12), XLAT_OK);
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &bad, NULL, NULL), XLAT_ERR_FULL,
                 "chiplet 3 has no free frame");
    ck_assert_uint_eq(xlat_physmem_free_frames(f.mem, 0), free0); /* all given back */
    ck_assert_int_eq(xlat_pagetable_lookup(f.pt, 1, 0x100000, NULL), XLAT_ERR_FAULT);
    ba_teardown(&f);
}
END_TEST

START_TEST(migrate_and_unmap_errors)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x10, 1, false, NULL);
    xlat_barre_object o = object(0x1, 8, 1);
    xlat_pec_entry d;
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, &d), XLAT_OK);
    assert_fails(f.ctx, xlat_barre_alloc_migrate(f.a, NULL, 0x1, 0, NULL), XLAT_ERR_INVAL,
                 "NULL object");
    ck_assert_int_eq(xlat_barre_alloc_migrate(NULL, &d, 0x1, 0, NULL), XLAT_ERR_INVAL);
    assert_fails(f.ctx, xlat_barre_alloc_migrate(f.a, &d, 0x9, 0, NULL), XLAT_ERR_INVAL,
                 "migrate page 0x9");
    assert_fails(f.ctx, xlat_barre_alloc_migrate(f.a, &d, 0x1, 4, NULL), XLAT_ERR_INVAL,
                 "to chiplet 4");
    xlat_pec_entry bad = d;
    bad.gpu_map[1] = 0;
    ck_assert_int_eq(xlat_barre_alloc_migrate(f.a, &bad, 0x1, 0, NULL), XLAT_ERR_INVAL);
    bad = d;
    bad.interlv_gran = 2; /* 0x2's order 1 does not fit: its group would start before 0x1 */
    bad.start_vpn = 0x2;
    assert_fails(f.ctx, xlat_barre_alloc_migrate(f.a, &bad, 0x2, 0, NULL), XLAT_ERR_INVAL,
                 "do not fit its object");
    ck_assert_int_eq(xlat_pagetable_unmap(f.pt, 1, 0x3000), XLAT_OK);
    assert_fails(f.ctx, xlat_barre_alloc_migrate(f.a, &d, 0x3, 0, NULL), XLAT_ERR_NOT_FOUND,
                 "not mapped");
    ck_assert_int_eq(xlat_physmem_take(f.mem, 0xB002, 14), XLAT_OK); /* GPU1 full */
    assert_fails(f.ctx, xlat_barre_alloc_migrate(f.a, &d, 0x1, 1, NULL), XLAT_ERR_FULL,
                 "chiplet 1 has no free frame");
    static const struct want w[] = {{0x1, 0xA000, 0xF0, 0, 0, 0}}; /* unchanged */
    check_pages(&f, w, 1);
    assert_fails(f.ctx, xlat_barre_alloc_unmap(f.a, NULL, NULL), XLAT_ERR_INVAL, "NULL");
    ck_assert_int_eq(xlat_barre_alloc_unmap(NULL, &d, NULL), XLAT_ERR_INVAL);
    bad = d;
    bad.end_vpn = 0;
    assert_fails(f.ctx, xlat_barre_alloc_unmap(f.a, &bad, NULL), XLAT_ERR_INVAL, "end_vpn");
    ba_teardown(&f);
}
END_TEST

/* Out of memory at every allocation of create and map: a code, a
 * message, and nothing left behind. */
START_TEST(out_of_memory)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, &ca);
    xlat_barre_alloc_config c;
    xlat_barre_alloc_config_init(&c);
    c.mem = f.mem;
    c.pt = f.pt;
    memcpy(c.base_pfn, f.base, sizeof(f.base));
    bool created = false;
    for (long k = 0; !created; k++) {
        size_t live = ca.live_bytes;
        ca.fail_after = k;
        xlat_barre_alloc *a;
        int rc = xlat_barre_alloc_create(f.ctx, &c, &a);
        ca.fail_after = -1;
        created = rc == XLAT_OK;
        if (created)
            xlat_barre_alloc_destroy(a);
        else
            assert_fails(f.ctx, rc, XLAT_ERR_NOMEM, "out of memory");
        ck_assert_uint_eq(ca.live_bytes, live);
    }
    xlat_barre_object o = object(0x1, 12, 3);
    ca.fail_after = 0; /* the plan */
    assert_fails(f.ctx, xlat_barre_alloc_map(f.a, &o, NULL, NULL), XLAT_ERR_NOMEM,
                 "plan of 12 pages");
    ca.fail_after = -1;
    ck_assert_uint_eq(xlat_physmem_free_frames(f.mem, 0), 0x40);
    ck_assert_int_eq(xlat_barre_alloc_map(f.a, &o, NULL, NULL), XLAT_OK);
    ba_teardown(&f);
}
END_TEST

/* The allocator holds its memory and page table, and names its counters. */
static void count_stat(void *user, uint32_t id, const char *kind, const char *name,
                       const char *counter, uint64_t value)
{
    (void)id;
    (void)name;
    (void)value;
    if (strcmp(kind, "barre_alloc") == 0 && strcmp(counter, "objects") == 0)
        *(int *)user += 1;
}

START_TEST(holds_and_stats)
{
    ba_fixture f;
    ba_setup(&f, 4, 0x40, 2, false, NULL);
    ck_assert_int_eq(xlat_pagetable_destroy(f.pt), XLAT_ERR_BUSY);
    int seen = 0;
    xlat_stats_foreach(f.ctx, count_stat, &seen);
    ck_assert_int_eq(seen, 1);
    ck_assert(xlat_barre_alloc_expanded(f.a));
    ck_assert(!xlat_barre_alloc_expanded(NULL));
    xlat_barre_alloc_stats st;
    memset(&st, 0xFF, sizeof(st));
    xlat_barre_alloc_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.objects, 0);
    ck_assert_int_eq(xlat_barre_alloc_destroy(NULL), XLAT_OK);
    xlat_barre_alloc_config_init(NULL);
    xlat_barre_object_init(NULL);
    ba_teardown(&f);
}
END_TEST

/* ---- the randomized differential check ------------------------------- */

/* Random objects, placements, GPU_maps, fragmentation, merge limits,
 * migrations and unmaps: every frame a calculation from any page's walk
 * computes for any other page is that page's frame in the table. */
START_TEST(random_computed_frames_are_walked_frames)
{
    ba_random_result r;
    ba_random_run(7, 40, &r);
    ck_assert_uint_eq(r.wrong, 0);
    ck_assert_uint_eq(r.leaked, 0);
    ck_assert_uint_ge(r.objects, 250);
    ck_assert_uint_gt(r.migrations, 100);
    ck_assert_uint_gt(r.failed_maps, 0);
    ck_assert_uint_gt(r.computed, 100000);
}
END_TEST

Suite *barre_alloc_suite(void)
{
    Suite *s = suite_create("barre_alloc");
    TCase *tc = test_case(s, "paper");
    tcase_add_test(tc, figure7a_data1);
    tcase_add_test(tc, example1_three_objects_five_translations);
    tcase_add_test(tc, expanded_x1_two_merge);
    tcase_add_test(tc, expanded_x2_merged_and_default);
    tcase_add_test(tc, expanded_x3_no_merge_without_all_chiplets);
    tcase_add_test(tc, fallback_per_group);
    tcase_add_test(tc, fallback_whole_object);
    tcase_add_test(tc, figure10_arbitrary_gpu_map);
    tcase_add_test(tc, round_robin_placement);
    tcase_add_test(tc, chunked_placement);
    tcase_add_test(tc, migration_leaves_a_hole);
    tcase_add_test(tc, migration_splits_a_merged_group);
    tcase_add_test(tc, migration_down_to_one_member);
    tcase_add_test(tc, pec_buffer_and_unmap);
    tc = test_case(s, "errors");
    tcase_add_test(tc, create_errors);
    tcase_add_test(tc, config_sizes);
    tcase_add_test(tc, map_errors);
    tcase_add_test(tc, migrate_and_unmap_errors);
    tcase_add_test(tc, out_of_memory);
    tcase_add_test(tc, holds_and_stats);
    tc = test_case(s, "random");
    tcase_add_test(tc, random_computed_frames_are_walked_frames);
    return s;
}
