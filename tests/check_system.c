/* Multi-GPU systems: exact end-to-end latencies with least-TLB's Table 2
 * (L1 1, L2 10, IOMMU TLB 200, walk 500 cycles), the probing ring, and the
 * builder's error paths. */
#include <stdlib.h>

#include "testutil.h"

static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_system *sys;
    xlat_resp last;
    int answers;
} h;

static void table(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(5, NULL);
    test_table(h.ctx, &h.mem, &h.pt);
    for (uint64_t p = 0; p < 64; p++)
        ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, 0x40000000 + p * 4096, 0x5000 + p, 12,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
}

/* The IOMMU's templates over h.pt, as least-TLB's Table 2 gives them. */
static void iommu_templates(xlat_iommu_config *ic, xlat_walker_config *wc)
{
    xlat_iommu_walker_config_init(wc);
    wc->pt = h.pt;
    xlat_iommu_config_init(ic);
    ic->walk = wc;
}

static void build(uint32_t gpus, xlat_incl incl, bool ring)
{
    table();
    xlat_iommu_config ic;
    xlat_walker_config wc;
    iommu_templates(&ic, &wc);
    ic.inclusion = incl;
    ic.remote_latency = 100;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = gpus;
    sc.cus = 2;
    sc.gpu_iommu_latency = 300; /* PCIe, ~300 ns at 1 GHz */
    sc.iommu = &ic;
    sc.probe_ring = ring;
    sc.probe_latency = 50;
    ck_assert_msg(xlat_system_create(h.ctx, &sc, &h.sys) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
}

static void teardown(void)
{
    xlat_system_destroy(h.sys);
    xlat_pagetable_destroy(h.pt);
    xlat_physmem_destroy(h.mem);
    xlat_ctx_destroy(h.ctx);
}

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    h.last = *r;
    h.answers++;
}

/* Sends at cycle `at` and returns the cycles until the answer. */
static uint64_t latency(uint64_t at, uint32_t gpu, uint32_t cu, uint64_t page)
{
    xlat_advance(h.ctx, at - xlat_now(h.ctx));
    xlat_req req = {.id = page, .vaddr = 0x40000000 + page * 4096 + 8, .pasid = 1,
                    .gpu = (uint16_t)gpu, .cu = (uint16_t)cu};
    int before = h.answers;
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, on_done, NULL), XLAT_OK);
    while (h.answers == before)
        xlat_advance(h.ctx, xlat_next_event(h.ctx) - xlat_now(h.ctx));
    ck_assert_int_eq(h.last.status, XLAT_OK);
    ck_assert_uint_eq(h.last.pfn, 0x5000 + page);
    return h.last.completed - at;
}

START_TEST(table2_latencies_baseline)
{
    build(2, XLAT_INCL_MOSTLY, false);
    /* L1 1 + L2 10 + link 300 + IOMMU TLB 200 + walk 4 x 125 + link 300 */
    ck_assert_uint_eq(latency(0, 0, 0, 3), 1311);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "iommu.walker");
    ck_assert_uint_eq(latency(2000, 0, 0, 3), 1);      /* L1 hit */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.cu0.l1");
    ck_assert_uint_eq(latency(3000, 0, 1, 3), 11);     /* L2 hit */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.l2");
    ck_assert_uint_eq(latency(4000, 1, 0, 3), 811);    /* IOMMU TLB hit */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "iommu");
}
END_TEST

/* The builder copies every template at create: templates overwritten and
 * freed as soon as create returns leave the system exactly as
 * table2_latencies_baseline's. The L2 template is an older host's, one
 * that ends before hits_in_flight: the fields it lacks keep the defaults. */
START_TEST(templates_are_copied_at_create)
{
    table();
    xlat_tlb_config *l1 = malloc(sizeof(*l1)), *l2 = malloc(sizeof(*l2));
    xlat_walker_config *wc = malloc(sizeof(*wc));
    xlat_iommu_config *ic = malloc(sizeof(*ic));
    ck_assert(l1 && l2 && wc && ic);
    xlat_system_l1_config_init(l1);
    xlat_system_l2_config_init(l2);
    l2->struct_size = offsetof(xlat_tlb_config, hits_in_flight);
    iommu_templates(ic, wc);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 2;
    sc.cus = 2;
    sc.gpu_iommu_latency = 300;
    sc.l1 = l1;
    sc.l2 = l2;
    sc.iommu = ic;
    ck_assert_msg(xlat_system_create(h.ctx, &sc, &h.sys) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
    memset(l1, 0xA5, sizeof(*l1));
    memset(l2, 0xA5, sizeof(*l2));
    memset(wc, 0xA5, sizeof(*wc));
    memset(ic, 0xA5, sizeof(*ic));
    free(l1);
    free(l2);
    free(wc);
    free(ic);
    ck_assert_uint_eq(latency(0, 0, 0, 3), 1311);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "iommu.walker");
    ck_assert_uint_eq(latency(2000, 0, 0, 3), 1);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.cu0.l1");
    ck_assert_uint_eq(latency(3000, 0, 1, 3), 11);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.l2");
    ck_assert_uint_eq(latency(4000, 1, 0, 3), 811);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "iommu");
    /* the IOMMU reads its own walk template (its PWC) here: IOMMU TLB and both L2s */
    ck_assert_int_eq(xlat_iommu_invalidate(xlat_system_iommu(h.sys), 1, 0x40003000), 3);
}
END_TEST

START_TEST(table2_latencies_least_tlb)
{
    build(2, XLAT_INCL_LEAST, false);
    ck_assert_uint_eq(latency(0, 0, 0, 3), 1311);
    /* GPU1 misses the IOMMU TLB (least-TLB filled only GPU0's L2); the
     * tracker points at GPU0, whose L2 answers 100 cycles after the miss. */
    ck_assert_uint_eq(latency(2000, 1, 0, 3), 911);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.l2");
    xlat_iommu_stats st;
    xlat_iommu_stats_get(xlat_system_iommu(h.sys), &st, sizeof(st));
    ck_assert_uint_eq(st.remote_hits, 1);
    xlat_advance(h.ctx, 2000);
    xlat_iommu_stats_get(xlat_system_iommu(h.sys), &st, sizeof(st));
    ck_assert_uint_eq(st.late_discarded, 1); /* the walk that lost the race */
    /* A local shootdown of GPU0 leaves the tracker: the next remote probe
     * misses and the walk answers (least-TLB §4.4). */
    ck_assert_int_eq(xlat_system_flush_gpu(h.sys, 0), 2); /* its L1 and L2 held page 3 */
    ck_assert_int_eq(xlat_system_flush_gpu(h.sys, 1), 2);
    ck_assert_uint_eq(latency(8000, 1, 1, 3), 1311);
    xlat_iommu_stats_get(xlat_system_iommu(h.sys), &st, sizeof(st));
    ck_assert_uint_eq(st.remote_misses, 1);
}
END_TEST

START_TEST(probing_ring)
{
    build(6, XLAT_INCL_MOSTLY, true);
    /* GPU0's first miss probes GPUs 5 and 1 (50 cycles), then goes on. */
    ck_assert_uint_eq(latency(0, 0, 0, 7), 1361);
    ck_assert_uint_eq(latency(2000, 1, 0, 7), 61); /* GPU1's neighbour GPU0 has it */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.l2");
    ck_assert_uint_eq(latency(3000, 2, 0, 7), 61); /* and now GPU1 */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu1.l2");
    ck_assert_uint_eq(latency(4000, 4, 0, 7), 861); /* 3 and 5 miss: IOMMU TLB hit */
    xlat_system_stats st;
    xlat_system_stats_get(h.sys, &st, sizeof(st));
    ck_assert_uint_eq(st.probes, 4);
    ck_assert_uint_eq(st.probe_hits, 2);
}
END_TEST

START_TEST(shootdown_reaches_every_level)
{
    build(2, XLAT_INCL_MOSTLY, false);
    latency(0, 0, 0, 9);
    latency(2000, 1, 0, 9);
    ck_assert_int_eq(xlat_tlb_probe(xlat_system_l1(h.sys, 1, 0), 1, 0x40009000, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_unmap(h.pt, 1, 0x40009000), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, 0x40009000, 0x7777, 12, XLAT_PERM_R), XLAT_OK);
    ck_assert_int_eq(xlat_system_invalidate(h.sys, 1, 0x40009000), 5); /* 2 L1s, 2 L2s, the IOMMU TLB */
    xlat_req req = {.id = 1, .vaddr = 0x40009000, .pasid = 1, .gpu = 1};
    int before = h.answers;
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, on_done, NULL), XLAT_OK);
    while (h.answers == before)
        xlat_advance(h.ctx, xlat_next_event(h.ctx) - xlat_now(h.ctx));
    ck_assert_uint_eq(h.last.pfn, 0x7777);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "iommu.walker");
}
END_TEST

/* Flushes count what they remove, one per entry, at every level. */
START_TEST(flushes_count_entries)
{
    build(2, XLAT_INCL_MOSTLY, false);
    latency(0, 0, 0, 9);
    latency(2000, 1, 0, 9);
    latency(4000, 1, 0, 10);
    /* GPU1: L1 and L2 hold pages 9 and 10; GPU0: page 9; the IOMMU TLB both. */
    ck_assert_int_eq(xlat_system_flush_gpu(h.sys, 1), 4);
    ck_assert_int_eq(xlat_system_flush_gpu(h.sys, 1), 0);
    ck_assert_int_eq(xlat_system_flush(h.sys), 2 + 2); /* GPU0 L1 and L2, the IOMMU TLB */
    ck_assert_int_eq(xlat_system_flush(h.sys), 0);
    ck_assert_int_eq(xlat_system_invalidate(h.sys, 1, 0x40009000), 0);
    latency(6000, 0, 1, 9);
    ck_assert_int_eq(xlat_system_invalidate(h.sys, 1, 0x40009000), 3); /* L1, L2, IOMMU */
    ck_assert_int_eq(xlat_system_flush_gpu(h.sys, 2), XLAT_ERR_INVAL);
}
END_TEST

/* GMMUs between the L2s and the links ("Dynamic GMMU Bypass for Address
 * Translation in Multi-GPU Systems" §2): a page of GPU0's local table is
 * walked locally; any other page costs a failed local walk and then the
 * IOMMU. */
START_TEST(gmmu_distributed)
{
    table();
    xlat_pagetable *local[2] = {NULL, NULL};
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = h.mem;
    for (int g = 0; g < 2; g++)
        ck_assert_int_eq(xlat_pagetable_create(h.ctx, &tc, &local[g]), XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_map(local[0], 1, 0x40000000 + 5 * 4096, 0x5005, 12,
                                        XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
    xlat_iommu_config ic;
    xlat_walker_config wc, gw;
    iommu_templates(&ic, &wc);
    xlat_walker_config_init(&gw);
    gw.mem_latency = 25;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 2;
    sc.cus = 2;
    sc.gpu_iommu_latency = 300;
    sc.iommu = &ic;
    sc.gmmu = true;
    sc.local_pt = local;
    sc.gmmu_walk = &gw;
    ck_assert_msg(xlat_system_create(h.ctx, &sc, &h.sys) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
    ck_assert_ptr_nonnull(xlat_system_gmmu(h.sys, 1));
    ck_assert_ptr_null(xlat_system_gmmu(h.sys, 2));
    ck_assert_uint_eq(latency(0, 0, 0, 5), 111);            /* local walk: 4 x 25 */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu0.gmmu.walker");
    ck_assert_uint_eq(latency(1000, 0, 0, 6), 11 + 100 + 1300); /* wasted walk, then IOMMU */
    ck_assert_uint_eq(latency(4000, 1, 0, 7), 11 + 1300);  /* GPU1's table is empty: no walk */
    xlat_gmmu_stats gs;
    xlat_gmmu_stats_get(xlat_system_gmmu(h.sys, 0), &gs, sizeof(gs));
    ck_assert_uint_eq(gs.local, 1);
    ck_assert_uint_eq(gs.remote, 1);
    ck_assert_uint_eq(gs.wasted_walks, 1);
    xlat_system_destroy(h.sys);
    h.sys = NULL;
    for (int g = 0; g < 2; g++)
        xlat_pagetable_destroy(local[g]);
    sc.local_pt = NULL;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &h.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "local_pt"));
}
END_TEST

START_TEST(builder_errors)
{
    table();
    xlat_iommu_config ic;
    xlat_walker_config wc;
    iommu_templates(&ic, &wc);
    wc.pt = NULL;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    xlat_system *s = NULL;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "system: cfg.iommu is NULL (the IOMMU's template,"
                                             " with walk->pt, is required)");
    sc.iommu = &ic;
    ic.walk = NULL;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "iommu iommu: cfg.walk is NULL (the walkers'"
                                             " template, with walk->pt, is required)");
    ic.walk = &wc;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL); /* no page table */
    wc.pt = h.pt;
    sc.gpus = 0;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    sc.gpus = 1025; /* above the limit, 1024 (an NVLink domain) */
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    sc.gpus = 2;
    sc.cus = 0;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    sc.cus = 2;
    xlat_tlb_config l1;
    xlat_system_l1_config_init(&l1);
    l1.ways = 3;
    sc.l1 = &l1;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    /* The builder wraps the TLB's own message (it once formatted the
     * message from the buffer it was writing, and repeated its prefix). */
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx),
                     "system: gpu0.cu0.l1: tlb gpu0.cu0.l1: ways (3) must divide entries (16)");
    ck_assert_ptr_null(s);
    l1.ways = 16;
    ck_assert_int_eq(xlat_system_create(NULL, &sc, &s), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_create(h.ctx, NULL, &s), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &h.sys), XLAT_OK);
    xlat_req req = {.gpu = 2};
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, on_done, NULL), XLAT_ERR_INVAL);
    req.gpu = 1;
    req.cu = 2;
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_flush_gpu(h.sys, 2), XLAT_ERR_INVAL);
    ck_assert_ptr_null(xlat_system_l1(h.sys, 0, 2));
    ck_assert_ptr_null(xlat_system_l2(h.sys, 2));
    ck_assert_ptr_null(xlat_system_link(h.sys, 2));
    ck_assert_uint_eq(xlat_system_gpus(h.sys), 2);
    ck_assert_uint_gt(xlat_system_gpu_memory(h.sys, 1), 2 * 16 * 32);
    ck_assert_int_eq(xlat_system_invalidate(NULL, 1, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_flush_gpu(NULL, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_flush(NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_flush(h.sys), 0); /* nothing translated yet */
    xlat_system_destroy(NULL);
}
END_TEST

/* An NVLink domain: 1024 GPUs (two CUs each) over one least-TLB IOMMU,
 * with Table 2's latencies whatever the GPU count, and the last GPU's
 * units where the first GPU's are. */
START_TEST(nvlink_domain_1024_gpus)
{
    build(1024, XLAT_INCL_LEAST, false);
    ck_assert_uint_eq(xlat_system_gpus(h.sys), 1024);
    ck_assert_uint_eq(latency(0, 1023, 1, 3), 1311);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "iommu.walker");
    ck_assert_uint_eq(latency(2000, 1023, 0, 3), 11); /* L2 hit */
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu1023.l2");
    /* GPU 0 misses the IOMMU TLB; the tracker points at GPU 1023's L2. */
    ck_assert_uint_eq(latency(4000, 0, 0, 3), 911);
    ck_assert_str_eq(test_resolver(h.ctx, &h.last), "gpu1023.l2");
    ck_assert_uint_eq(latency(6000, 512, 1, 4), 1311);
    ck_assert_ptr_nonnull(xlat_system_l1(h.sys, 1023, 1));
    ck_assert_ptr_null(xlat_system_l1(h.sys, 1024, 0));
    ck_assert_ptr_nonnull(xlat_system_link(h.sys, 1023));
    ck_assert_uint_gt(xlat_system_gpu_memory(h.sys, 1023), 0);
    ck_assert_uint_eq(xlat_system_gpu_memory(h.sys, 1024), 0);
    xlat_req req = {.vaddr = 0x40003000, .pasid = 1, .gpu = 1024};
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_system_flush(h.sys), 7); /* 4 L1s, 3 L2s; the IOMMU TLB holds none */
}
END_TEST

/* Above 1024 GPUs the builder and the IOMMU refuse, and say the limit. */
START_TEST(gpus_above_the_limit)
{
    table();
    xlat_iommu_config ic;
    xlat_walker_config wc;
    iommu_templates(&ic, &wc);
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.iommu = &ic;
    sc.gpus = 1025;
    xlat_system *s = NULL;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &s), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "system: gpus must be 1..1024, not 1025");
    ck_assert_ptr_null(s);
    ic.gpus = 1025;
    xlat_iommu *m = NULL;
    ck_assert_int_eq(xlat_iommu_create(h.ctx, &ic, &m), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "iommu iommu: gpus must be 1..1024, not 1025");
    ck_assert_ptr_null(m);
}
END_TEST

Suite *system_suite(void)
{
    Suite *s = suite_create("system");
    TCase *tc = test_case(s, "end_to_end");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, table2_latencies_baseline);
    tcase_add_test(tc, templates_are_copied_at_create);
    tcase_add_test(tc, table2_latencies_least_tlb);
    tcase_add_test(tc, probing_ring);
    tcase_add_test(tc, shootdown_reaches_every_level);
    tcase_add_test(tc, flushes_count_entries);
    tcase_add_test(tc, gmmu_distributed);
    tcase_add_test(tc, builder_errors);
    tcase_add_test(tc, nvlink_domain_1024_gpus);
    tcase_add_test(tc, gpus_above_the_limit);
    return s;
}
