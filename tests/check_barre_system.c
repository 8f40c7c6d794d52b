/*
 * Barre Chord in a whole MCM-GPU: the system builder's F-Barre units
 * between each chiplet's L2 and its PCIe link, an IOMMU whose walkers run
 * the PEC logic, and a data object placed by the group allocator ("Barre
 * Chord: Efficient Virtual Memory Translation for Multi-Chip-Module GPUs"
 * §IV, §V-A; Table II's latencies through xlat_mcm_preset()).
 */
#include "barre_alloc_fixture.h"
#include "barre_system_random.h"

typedef struct mcm_barre {
    ba_fixture f;
    xlat_pec_buffer *pec;
    xlat_pec_entry data;
    xlat_fbarre_config fb;
    xlat_system *sys;
    xlat_resp last;
    int answers;
} mcm_barre;

static mcm_barre m;

static void on_answer(void *user, const xlat_resp *r)
{
    (void)user;
    m.last = *r;
    m.answers++;
}

/* Example 1's data 1 (12 pages from 0x1, three per chiplet) on 4 chiplets. */
static void map_data1(void)
{
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    ck_assert_int_eq(xlat_pec_buffer_create(m.f.ctx, &pc, &m.pec), XLAT_OK);
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.start_vpn = 0x1;
    o.pages = 12;
    o.interlv_gran = 3;
    ck_assert_int_eq(xlat_barre_alloc_map(m.f.a, &o, m.pec, &m.data), XLAT_OK);
}

static void build(bool fbarre)
{
    memset(&m, 0, sizeof(m));
    ba_setup(&m.f, 4, 256, 1, false, NULL);
    map_data1();
    static xlat_mcm_config mcm; /* its pointers lead into itself */
    ck_assert_int_eq(xlat_mcm_preset(&mcm, XLAT_MCM_BASELINE), XLAT_OK);
    mcm.system.cus = 2;
    mcm.walk.pt = m.f.pt;
    mcm.walk.pec = m.pec; /* Barre: the IOMMU's PEC logic */
    mcm.walk.pec_base_pfn = m.f.base;
    mcm.walk.pec_chiplets = 4;
    xlat_fbarre_config_init(&m.fb);
    memcpy(m.fb.base_pfn, m.f.base, sizeof(m.f.base[0]) * 4);
    if (fbarre) {
        mcm.system.fbarre = &m.fb;
        mcm.system.fbarre_pec = m.pec;
    }
    ck_assert_int_eq(xlat_system_create(m.f.ctx, &mcm.system, &m.sys), XLAT_OK);
}

static void teardown(void)
{
    ck_assert_int_eq(xlat_system_destroy(m.sys), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(m.pec), XLAT_OK);
    ba_teardown(&m.f);
}

/* Chiplet `gpu`'s CU 0 asks for page `vpn`; the answer is checked against
 * the page table and its cycle returned. */
static uint64_t ask(uint16_t gpu, uint64_t vpn)
{
    int before = m.answers;
    uint64_t at = xlat_now(m.f.ctx);
    xlat_req req = {.id = vpn, .vaddr = vpn << 12, .pasid = 1, .gpu = gpu};
    ck_assert_int_eq(xlat_system_translate(m.sys, &req, on_answer, NULL), XLAT_OK);
    while (m.answers == before)
        ck_assert_int_eq(xlat_advance(m.f.ctx, 1), XLAT_OK);
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_pagetable_lookup(m.f.pt, 1, vpn << 12, &e), XLAT_OK);
    ck_assert_int_eq(m.last.status, XLAT_OK);
    ck_assert_uint_eq(m.last.pfn, e.pfn);
    return m.last.completed - at;
}

static uint64_t walks(void)
{
    xlat_iommu_stats st;
    xlat_iommu_stats_get(xlat_system_iommu(m.sys), &st, sizeof(st));
    return st.walks;
}

/* Without F-Barre every chiplet's first touch of a page crosses PCIe and
 * is walked: L1 1 + L2 10 + PCIe 150 + walk 4 x 125 + PCIe 150 = 811. */
START_TEST(baseline_each_chiplet_walks)
{
    build(false);
    ck_assert_uint_eq(ask(0, 0x1), 811);
    ck_assert_uint_eq(ask(1, 0x4), 811);
    ck_assert_uint_eq(walks(), 2);
    ck_assert_ptr_null(xlat_system_fbarre(m.sys, 0));
    teardown();
}
END_TEST

/* With F-Barre, chiplet 1's miss on 0x4 (a member of 0x1's group, which
 * chiplet 0's L2 holds) is answered by chiplet 0 without crossing PCIe:
 * L1 1 + L2 10 + link 32 + PEC 1 + L2 10 + PEC 1 + link 32 = 87. */
START_TEST(fbarre_answers_a_member_from_a_peer)
{
    build(true);
    ck_assert_uint_eq(ask(0, 0x1), 811);
    xlat_advance(m.f.ctx, 100); /* the filter-update messages arrive */
    ck_assert_uint_eq(ask(1, 0x4), 87);
    ck_assert_uint_eq(walks(), 1);
    xlat_fbarre_stats st;
    xlat_fbarre_stats_get(xlat_system_fbarre(m.sys, 1), &st, sizeof(st));
    ck_assert_uint_eq(st.peer_hits, 1);
    ck_assert_uint_eq(st.ats_requests, 0);
    /* chiplet 0's L2 holds 0x1: the frame of 0x7, of the same group, is
     * computed at home (the local path, §D.8): L1 1 + L2 10 + one L2
     * lookup of the candidate 10 + PEC 1 = 22, no walk */
    ck_assert_uint_eq(ask(0, 0x7), 22);
    xlat_fbarre_stats_get(xlat_system_fbarre(m.sys, 0), &st, sizeof(st));
    ck_assert_uint_eq(st.local_hits, 1);
    ck_assert_uint_eq(walks(), 1);
    teardown();
}
END_TEST

/* Migration (§VI): 0x7 leaves its group for another frame of chiplet 2.
 * The allocator rewrites the other members' PTEs and lists every page a
 * host must shoot down; once it has, no chiplet computes 0x7's old frame,
 * and the members left in the group are still computed. */
START_TEST(nothing_stale_after_a_migration)
{
    build(true);
    ck_assert_uint_eq(ask(0, 0x1), 811);
    xlat_advance(m.f.ctx, 100);
    ck_assert_uint_eq(ask(1, 0x4), 87); /* chiplets 0 and 1 hold the group */
    ck_assert_int_eq(xlat_system_barre_migrate(NULL, m.f.a, &m.data, 0x7, 2, NULL),
                     XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_barre_migrate(m.sys, m.f.a, &m.data, 0x100, 2, NULL),
                     XLAT_ERR_INVAL); /* not a page of the object: nothing moves */
    xlat_barre_migration mig;
    ck_assert_int_eq(xlat_barre_alloc_migrate(m.f.a, &m.data, 0x7, 2, &mig), XLAT_OK);
    ck_assert_uint_ne(mig.new_pfn, mig.old_pfn);
    ck_assert_uint_eq(mig.count, 4); /* 0x7, then 0x1, 0x4 and 0xA */
    for (uint32_t i = 0; i < mig.count; i++)
        ck_assert_int_ge(xlat_system_invalidate(m.sys, 1, mig.vpn[i] << 12), 0);
    xlat_advance(m.f.ctx, 100);
    ask(2, 0x7); /* checked against the page table: the new frame */
    ck_assert_uint_eq(m.last.pfn, mig.new_pfn);
    ask(0, 0x7);
    ck_assert_uint_eq(m.last.pfn, mig.new_pfn);
    ask(3, 0xA); /* still a member: computed or walked, the right frame */
    /* a flush resets every filter */
    ck_assert_int_ge(xlat_system_flush(m.sys), 0);
    for (uint32_t g = 0; g < 4; g++)
        for (uint32_t x = 0; x < 4; x++)
            ck_assert_uint_eq(xlat_fbarre_filter_count(xlat_system_fbarre(m.sys, g), x), 0);
    teardown();
}
END_TEST

/* The system's migration also takes the shot-down entries out of F-Barre's
 * filters: chiplet 0's LCF drops 0x1, and the peers' RCFs of chiplet 0 drop
 * its group once the delete messages arrive. */
START_TEST(system_migration_clears_the_filters)
{
    build(true);
    ck_assert_uint_eq(ask(0, 0x1), 811);
    xlat_advance(m.f.ctx, 100);
    xlat_fbarre *fb0 = xlat_system_fbarre(m.sys, 0), *fb1 = xlat_system_fbarre(m.sys, 1);
    ck_assert(xlat_fbarre_filter_contains(fb0, 0, 1, 0x1));
    ck_assert(xlat_fbarre_filter_contains(fb1, 0, 1, 0x1));
    ck_assert(xlat_fbarre_filter_contains(fb1, 0, 1, 0x7));
    xlat_barre_migration mig;
    ck_assert_int_ge(xlat_system_barre_migrate(m.sys, m.f.a, &m.data, 0x7, 2, &mig), 1);
    ck_assert(!xlat_fbarre_filter_contains(fb0, 0, 1, 0x1));
    xlat_advance(m.f.ctx, 100);
    ck_assert(!xlat_fbarre_filter_contains(fb1, 0, 1, 0x1));
    ck_assert(!xlat_fbarre_filter_contains(fb1, 0, 1, 0x7));
    ask(1, 0x7);
    ck_assert_uint_eq(m.last.pfn, mig.new_pfn);
    ck_assert_int_eq(xlat_fbarre_l2_removed(NULL, NULL), XLAT_ERR_INVAL);
    teardown();
}
END_TEST

START_TEST(fbarre_needs_chiplets_and_a_per_chiplet_l2)
{
    memset(&m, 0, sizeof(m));
    ba_setup(&m.f, 4, 64, 1, false, NULL);
    static xlat_mcm_config mcm;
    ck_assert_int_eq(xlat_mcm_preset(&mcm, XLAT_MCM_BASELINE), XLAT_OK);
    mcm.walk.pt = m.f.pt;
    xlat_fbarre_config_init(&m.fb);
    mcm.system.fbarre = &m.fb;
    mcm.system.gpus = 1;
    ck_assert_int_eq(xlat_system_create(m.f.ctx, &mcm.system, &m.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(m.f.ctx), "F-Barre needs 2..8 chiplets"));
    mcm.system.gpus = 4;
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    ck_assert_int_eq(xlat_pec_buffer_create(m.f.ctx, &pc, &m.pec), XLAT_OK);
    mcm.system.fbarre_pec = m.pec;
    m.fb.expanded = 1; /* the buffer's objects are in Barre's layout */
    ck_assert_int_eq(xlat_system_create(m.f.ctx, &mcm.system, &m.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(m.f.ctx), "layout"));
    m.fb.expanded = 0;
    mcm.system.shared_l2 = true;
    ck_assert_int_eq(xlat_system_create(m.f.ctx, &mcm.system, &m.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(m.f.ctx), "F-Barre"));
    ba_teardown(&m.f);
}
END_TEST

/* Random objects, GPU maps and streams on every chiplet, migrations shot
 * down between bursts, flushes: every frame the system hands out, walked,
 * computed by the IOMMU's PEC logic or by an F-Barre unit, is the page
 * table's, and every request is answered once. Barre's layout and the
 * expanded one (groups merged two by two). */
START_TEST(every_frame_is_the_walked_frame)
{
    bs_result r;
    bs_random_run(0xBA22E5 + (uint64_t)_i, _i % 2 == 1, 3000, &r);
    ck_assert_uint_eq(r.sent, 3000);
    ck_assert_uint_eq(r.answered_once, r.sent);
    ck_assert_uint_eq(r.twice, 0);
    ck_assert_uint_eq(r.missing, 0);
    ck_assert_uint_eq(r.wrong, 0);
    ck_assert_uint_gt(r.migrations, 0);
    /* every path was taken */
    ck_assert_uint_gt(r.pec_answers, 0);
    ck_assert_uint_gt(r.local_hits, 0);
    ck_assert_uint_gt(r.peer_hits, 0);
}
END_TEST

Suite *barre_system_suite(void)
{
    Suite *s = suite_create("barre_system");
    TCase *tc = tcase_create("mcm");
    tcase_add_test(tc, baseline_each_chiplet_walks);
    tcase_add_test(tc, fbarre_answers_a_member_from_a_peer);
    tcase_add_test(tc, nothing_stale_after_a_migration);
    tcase_add_test(tc, system_migration_clears_the_filters);
    tcase_add_loop_test(tc, every_frame_is_the_walked_frame, 0, 2);
    tcase_add_test(tc, fbarre_needs_chiplets_and_a_per_chiplet_l2);
    suite_add_tcase(s, tc);
    return s;
}
