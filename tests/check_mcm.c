/* Barre Chord's MCM-GPU (Table II) and its comparison points, built by
 * xlat_mcm_preset(): exact end-to-end cycles of requests through every
 * variant, each variant's visible effect, hosts answering inside their
 * callbacks or a cycle later, and the error paths. Cycles of the baseline:
 * L1 1 + L2 10 + PCIe 150 + walk 4 x 125 + PCIe 150 = 811. */
#include "host.h"
#include "testutil.h"

#define VA(page) (0x40000000ull + (page) * 4096 + 8)

static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_system *sys;
    xlat_mcm_config mcm;
    xlat_resp resp[64];
    int answers;
} h;

static void setup(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(9, NULL);
    test_table(h.ctx, &h.mem, &h.pt);
    for (uint64_t p = 0; p < 64; p++)
        ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, VA(p) & ~4095ull, 0x5000 + p, 12,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
}

static void teardown(void)
{
    xlat_system_destroy(h.sys);
    xlat_pagetable_destroy(h.pt);
    xlat_physmem_destroy(h.mem);
    xlat_ctx_destroy(h.ctx);
}

static void preset(xlat_mcm_variant v)
{
    ck_assert_int_eq(xlat_mcm_preset(&h.mcm, v), XLAT_OK);
    h.mcm.walk.pt = h.pt;
}

static void build(void)
{
    ck_assert_msg(xlat_system_create(h.ctx, &h.mcm.system, &h.sys) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(h.ctx));
}

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_uint_lt(r->id, 64);
    h.resp[r->id] = *r;
    h.answers++;
}

static void run_to(uint64_t cycle) { xlat_advance(h.ctx, cycle - xlat_now(h.ctx)); }

/* Request `id` for page `page` from CU `cu` of chiplet `gpu`, now. */
static void send(uint64_t id, uint32_t gpu, uint32_t cu, uint64_t page)
{
    xlat_req req = {.id = id, .vaddr = VA(page), .pasid = 1, .gpu = (uint16_t)gpu,
                    .cu = (uint16_t)cu};
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, on_done, NULL), XLAT_OK);
}

static void run_until(int answers)
{
    while (h.answers < answers)
        xlat_advance(h.ctx, xlat_next_event(h.ctx) - xlat_now(h.ctx));
}

/* Sends at `at` and returns the cycles until the answer, checking the frame. */
static uint64_t latency(uint64_t at, uint32_t gpu, uint32_t cu, uint64_t page)
{
    run_to(at);
    int before = h.answers;
    send(page, gpu, cu, page);
    run_until(before + 1);
    ck_assert_int_eq(h.resp[page].status, XLAT_OK);
    ck_assert_uint_eq(h.resp[page].pfn, 0x5000 + page);
    return h.resp[page].completed - at;
}

static const char *resolver(uint64_t id) { return test_resolver(h.ctx, &h.resp[id]); }

START_TEST(baseline_table2)
{
    preset(XLAT_MCM_BASELINE);
    ck_assert_uint_eq(h.mcm.system.gpus, 4);
    ck_assert_uint_eq(h.mcm.system.cus, 64);
    ck_assert_uint_eq(h.mcm.l1.entries, 64);
    ck_assert_uint_eq(h.mcm.l1.ways, 64);
    ck_assert_uint_eq(h.mcm.l1.mshrs, 16);
    ck_assert_uint_eq(h.mcm.l2.entries, 512);
    ck_assert_uint_eq(h.mcm.l2.ways, 16);
    ck_assert_uint_eq(h.mcm.l2.mshrs, 16);
    ck_assert_uint_eq(h.mcm.walk.walkers, 16);
    ck_assert_uint_eq(h.mcm.walk.queue_entries, 48);
    ck_assert_uint_eq(h.mcm.iommu.buffer_entries, 64);
    ck_assert_uint_eq(h.mcm.system.chiplet_latency, 32);
    ck_assert(h.mcm.iommu.no_tlb);
    build();
    ck_assert_ptr_null(xlat_iommu_tlb(xlat_system_iommu(h.sys)));
    ck_assert_uint_eq(latency(0, 0, 0, 3), 811);
    ck_assert_str_eq(resolver(3), "iommu.walker");
    ck_assert_uint_eq(latency(1000, 0, 0, 3), 1); /* L1 hit */
    ck_assert_str_eq(resolver(3), "gpu0.cu0.l1");
    ck_assert_uint_eq(latency(2000, 0, 1, 3), 11); /* L2 hit */
    ck_assert_str_eq(resolver(3), "gpu0.l2");
    ck_assert_uint_eq(latency(3000, 2, 0, 3), 811); /* no IOMMU TLB: walked again */
    ck_assert_str_eq(resolver(3), "iommu.walker");
}
END_TEST

/* `n` requests for pages 0..n-1, request i at cycle i / 16 from chiplet
 * i % 4 (4 a cycle per L2, its ports); returns how many were answered
 * 811 cycles after they were sent, the others' cycle in *late. */
static int concurrent(int n, uint64_t *late)
{
    uint64_t base = xlat_now(h.ctx);
    h.answers = 0;
    for (int i = 0; i < n; i++) {
        run_to(base + (uint64_t)i / 16);
        send((uint64_t)i, (uint32_t)(i % 4), (uint32_t)(i / 4), (uint64_t)i);
    }
    run_until(n);
    int prompt = 0;
    for (int i = 0; i < n; i++) {
        if (h.resp[i].completed - base == 811 + (uint64_t)i / 16)
            prompt++;
        else
            *late = h.resp[i].completed - base;
    }
    return prompt;
}

/* Walks reach the IOMMU at 161 (those sent at 1 at 162); a walker frees
 * at 661, so a walk that waits runs 661..1161 and is answered at 1311. */
static void walkers(xlat_mcm_variant v, int n, int prompt, uint64_t late)
{
    preset(v);
    build();
    uint64_t got = 0;
    ck_assert_int_eq(concurrent(n, &got), prompt);
    ck_assert_uint_eq(got, late);
    xlat_system_destroy(h.sys);
    h.sys = NULL;
}

START_TEST(walker_counts)
{
    walkers(XLAT_MCM_WALKERS_8, 9, 8, 1311);   /* the 9th waits */
    walkers(XLAT_MCM_BASELINE, 17, 16, 1311);  /* the 17th waits */
}
END_TEST

START_TEST(more_walkers_no_wait)
{
    walkers(XLAT_MCM_WALKERS_32, 17, 17, 0);
    preset(XLAT_MCM_WALKERS_INF);
    ck_assert_uint_eq(h.mcm.walk.walkers, XLAT_MCM_WALKERS_UNBOUNDED);
    ck_assert_uint_eq(h.mcm.iommu.buffer_entries, XLAT_MCM_WALKERS_UNBOUNDED + 48);
    walkers(XLAT_MCM_WALKERS_INF, 33, 33, 0);
}
END_TEST

/* 17 misses into chiplet 0's L2, 4 a cycle (its ports) at 0..3 and the
 * 17th at 4; 16 walkers. With 16 MSHRs the 17th finds none free until the
 * first miss is answered at 811; with 32 it reaches the IOMMU at 165 and
 * waits for a walker (661..1161): 1311. */
static uint64_t seventeenth(xlat_mcm_variant v)
{
    preset(v);
    build();
    for (uint64_t i = 0; i < 17; i++) {
        run_to(i / 4);
        send(i, 0, (uint32_t)i, i);
    }
    run_until(17);
    ck_assert_uint_eq(h.resp[0].completed, 811);
    ck_assert_uint_eq(h.resp[15].completed, 814);
    return h.resp[16].completed;
}

START_TEST(doubled_l2_mshrs)
{
    ck_assert_uint_eq(seventeenth(XLAT_MCM_L2_MSHRS_X2), 1311);
    ck_assert_uint_eq(h.mcm.l2.mshrs, 32);
}
END_TEST

START_TEST(baseline_mshrs_hold_the_17th)
{
    /* woken at 811, L2 lookup 811..821, PCIe to 971, walk to 1471, back at 1621 */
    ck_assert_uint_eq(seventeenth(XLAT_MCM_BASELINE), 1621);
}
END_TEST

START_TEST(iommu_tlb_add_on)
{
    preset(XLAT_MCM_IOMMU_TLB);
    build();
    ck_assert_uint_eq(latency(0, 0, 0, 5), 1011); /* + the 200-cycle lookup */
    ck_assert_uint_eq(latency(2000, 1, 0, 5), 511); /* 1 + 10 + 150 + 200 + 150 */
    ck_assert_str_eq(resolver(5), "iommu");
}
END_TEST

/* Chiplet 1 misses on a page chiplet 0's L2 holds: the IOMMU TLB misses at
 * 361, the exact tracker names chiplet 0, whose L2 answers 310 cycles later
 * (PCIe, lookup, PCIe), before the walk would (861): back at 821. */
START_TEST(least_tlb_on_chiplets)
{
    preset(XLAT_MCM_LEAST);
    ck_assert(h.mcm.iommu.tracker_exact);
    ck_assert_uint_eq(h.mcm.iommu.tracker_entries, 4096);
    build();
    ck_assert_uint_eq(latency(0, 0, 0, 7), 1011);
    ck_assert_uint_eq(latency(2000, 1, 0, 7), 821);
    ck_assert_str_eq(resolver(7), "gpu0.l2");
    xlat_iommu_stats st;
    xlat_iommu_stats_get(xlat_system_iommu(h.sys), &st, sizeof(st));
    ck_assert_uint_eq(st.remote_hits, 1);
    ck_assert_uint_eq(st.remote_misses, 0);
}
END_TEST

START_TEST(oracle_shared_l2)
{
    preset(XLAT_MCM_SHARED_L2);
    ck_assert_uint_eq(h.mcm.l2.entries, 2048);
    ck_assert_uint_eq(h.mcm.l2.ports, 16);
    ck_assert_uint_eq(h.mcm.l2.mshrs, 64);
    build();
    ck_assert_ptr_eq(xlat_system_l2(h.sys, 3), xlat_system_l2(h.sys, 0));
    ck_assert_ptr_null(xlat_system_link(h.sys, 1));
    ck_assert_uint_eq(latency(0, 0, 0, 9), 811);
    ck_assert_uint_eq(latency(2000, 3, 5, 9), 11); /* another chiplet's page */
    ck_assert_str_eq(resolver(9), "l2");
    ck_assert_int_eq(xlat_system_invalidate(h.sys, 1, VA(9)), 3); /* two L1s, the L2 */
    ck_assert_uint_eq(latency(3000, 1, 0, 9), 811);
}
END_TEST

/* The walker's memory and the page requests are a host's, answering inside
 * its callbacks or a cycle later. Page 100 (101 the second time) is not mapped: 4 reads find its
 * leaf absent, the host maps it at 0x9000 and the walk re-reads the leaf.
 *   inside: every read and the page request at once: 1 + 10 + 150 + 150 = 311
 *   later:  4 reads, the page request, the re-read: one cycle each: 317   */
static void over_host(int later, uint64_t completed)
{
    host hs;
    host_init(&hs, h.ctx, later);
    preset(XLAT_MCM_BASELINE);
    host_memory_config(&hs, &h.mcm.walk);
    hs.pt = h.pt;
    host_iommu_config(&hs, &h.mcm.iommu);
    build();
    hs.walker = xlat_iommu_walker(xlat_system_iommu(h.sys));
    uint64_t at = xlat_now(h.ctx);
    xlat_req req = {.id = 1, .vaddr = VA(100 + (uint64_t)later) & ~4095ull, .pasid = 1, .gpu = 2, .cu = 9};
    hs.in_call = 1;
    ck_assert_int_eq(xlat_system_translate(h.sys, &req, host_done, &hs), XLAT_OK);
    hs.in_call = 0;
    host_run(&hs, 1, 2000);
    ck_assert_int_eq(hs.answers[1], 1);
    ck_assert_int_eq(hs.status[1], XLAT_OK);
    ck_assert_uint_eq(hs.paddr[1], 0x9000ull << 12);
    ck_assert_uint_eq(hs.completed[1] - at, completed);
    ck_assert_int_eq(hs.breaches, 0);
    ck_assert_uint_eq(xlat__events_overruns(h.ctx), 0);
    xlat_system_destroy(h.sys);
    h.sys = NULL;
}

START_TEST(hosts_inside_or_later)
{
    over_host(0, 311);
    over_host(1, 317);
}
END_TEST

/* Each part started by its config_init, as xlat_mcm_preset() does. */
static void mcm_init_parts(xlat_mcm_config *m)
{
    xlat_system_config_init(&m->system);
    xlat_tlb_config_init(&m->l1);
    xlat_tlb_config_init(&m->l2);
    xlat_iommu_config_init(&m->iommu);
    xlat_walker_config_init(&m->walk);
}

START_TEST(errors)
{
    xlat_mcm_config m;
    ck_assert_int_eq(xlat_mcm_preset(NULL, XLAT_MCM_BASELINE), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_mcm_preset(&m, (xlat_mcm_variant)8), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_mcm_preset(&m, (xlat_mcm_variant)-1), XLAT_ERR_INVAL);
    /* a part its config_init did not start: nothing is written */
    memset(&m, 0x5A, sizeof(m));
    m.walk.struct_size = 0;
    ck_assert_int_eq(xlat_mcm_preset_parts(XLAT_MCM_BASELINE, &m.system, &m.l1, &m.l2,
                                           &m.iommu, &m.walk), XLAT_ERR_INVAL);
    ck_assert_uint_eq(m.system.gpus, 0x5A5A5A5A);
    ck_assert_int_eq(xlat_mcm_preset_parts(XLAT_MCM_BASELINE, &m.system, NULL, &m.l2,
                                           &m.iommu, &m.walk), XLAT_ERR_INVAL);
    /* a host built against the first release: its IOMMU config ends at the
     * pinned size, so `no_tlb` (added since) is neither there nor written */
    mcm_init_parts(&m);
    struct {
        xlat_iommu_config c;
        unsigned char canary[8];
    } old;
    memset(&old, 0xA5, sizeof(old));
    old.c.struct_size = XLAT_IOMMU_CONFIG_SIZE_V0;
    ck_assert_int_eq(xlat_mcm_preset_parts(XLAT_MCM_BASELINE, &m.system, &m.l1, &m.l2, &old.c,
                                           &m.walk), XLAT_OK);
    ck_assert_uint_eq(old.c.struct_size, XLAT_IOMMU_CONFIG_SIZE_V0);
    ck_assert_uint_eq(old.c.buffer_entries, 64);
    ck_assert_ptr_eq(old.c.walk, &m.walk);
    ck_assert_ptr_eq(m.system.iommu, &old.c);
    const unsigned char *after = (const unsigned char *)&old.c + XLAT_IOMMU_CONFIG_SIZE_V0;
    for (size_t i = 0; i < sizeof(old) - XLAT_IOMMU_CONFIG_SIZE_V0; i++)
        ck_assert_uint_eq(after[i], 0xA5);
    preset(XLAT_MCM_SHARED_L2);
    h.mcm.system.probe_ring = true;
    ck_assert_int_eq(xlat_system_create(h.ctx, &h.mcm.system, &h.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "shared L2"));
    h.mcm.system.probe_ring = false;
    h.mcm.system.gmmu = true;
    ck_assert_int_eq(xlat_system_create(h.ctx, &h.mcm.system, &h.sys), XLAT_ERR_INVAL);
    h.mcm.system.gmmu = false;
    h.mcm.iommu.no_tlb = false;
    h.mcm.iommu.inclusion = XLAT_INCL_LEAST;
    ck_assert_int_eq(xlat_system_create(h.ctx, &h.mcm.system, &h.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "least-TLB"));
    preset(XLAT_MCM_BASELINE);
    h.mcm.iommu.inclusion = XLAT_INCL_EXCLUSIVE; /* exclusive needs an IOMMU TLB */
    ck_assert_int_eq(xlat_system_create(h.ctx, &h.mcm.system, &h.sys), XLAT_ERR_INVAL);
    ck_assert_ptr_null(h.sys);
}
END_TEST

Suite *mcm_suite(void)
{
    Suite *s = suite_create("mcm");
    TCase *tc = test_case(s, "mcm");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, baseline_table2);
    tcase_add_test(tc, walker_counts);
    tcase_add_test(tc, more_walkers_no_wait);
    tcase_add_test(tc, doubled_l2_mshrs);
    tcase_add_test(tc, baseline_mshrs_hold_the_17th);
    tcase_add_test(tc, iommu_tlb_add_on);
    tcase_add_test(tc, least_tlb_on_chiplets);
    tcase_add_test(tc, oracle_shared_l2);
    tcase_add_test(tc, hosts_inside_or_later);
    tcase_add_test(tc, errors);
    return s;
}
