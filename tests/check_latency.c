/*
 * Latency histograms: the exact buckets each timed unit fills for a known
 * sequence (a TLB over a fixed responder, a link, a walker pool, an IOMMU,
 * a GMMU with its walker, a system's probing ring), bucket edges, resets,
 * and xlat_unit_latency_get() for older and newer callers.
 */
#include "gmmu_fixture.h"
#include "testutil.h"

#define MAX_ANSWERS 64

static struct {
    xlat_ctx *ctx;
    xlat_resp done[MAX_ANSWERS];
    int n;
} h;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_lt(h.n, MAX_ANSWERS);
    h.done[h.n++] = *r;
}

static void setup(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(11, NULL);
}

static void teardown(void) { xlat_ctx_destroy(h.ctx); } /* destroys the units too */

static xlat_latency_hist latency_of(const void *handle)
{
    xlat_latency_hist lat;
    ck_assert_int_eq(xlat_unit_latency_get(h.ctx, xlat_unit_id(h.ctx, handle), &lat, sizeof(lat)),
                     XLAT_OK);
    return lat;
}

/* The histogram of `handle` holds exactly `count[b]` answers in each bucket
 * `b` listed in `buckets` (n of them) and nothing elsewhere. */
static void expect_hist_on(xlat_ctx *ctx, const void *handle, const uint32_t *buckets,
                           const uint64_t *count, size_t n)
{
    xlat_latency_hist lat;
    ck_assert_int_eq(xlat_unit_latency_get(ctx, xlat_unit_id(ctx, handle), &lat, sizeof(lat)),
                     XLAT_OK);
    uint64_t want[XLAT_LATENCY_BUCKETS] = {0};
    for (size_t i = 0; i < n; i++)
        want[buckets[i]] = count[i];
    for (uint32_t b = 0; b < XLAT_LATENCY_BUCKETS; b++)
        ck_assert_msg(lat.bucket[b] == want[b], "%s: bucket %u holds %llu, not %llu",
                      xlat_unit_name(ctx, xlat_unit_id(ctx, handle)), b,
                      (unsigned long long)lat.bucket[b], (unsigned long long)want[b]);
}

#define EXPECT_HIST(handle, buckets, counts)                                                   \
    expect_hist_on(h.ctx, handle, buckets, counts, sizeof(buckets) / sizeof(buckets[0]))
#define EMPTY_HIST(handle) expect_hist_on(h.ctx, handle, NULL, NULL, 0)

static uint64_t total(const xlat_latency_hist *lat)
{
    uint64_t n = 0;
    for (uint32_t b = 0; b < XLAT_LATENCY_BUCKETS; b++)
        n += lat->bucket[b];
    return n;
}

/* The histogram counts as many answers as the unit's own counter. */
static void expect_answers(const void *handle, uint64_t answers)
{
    xlat_latency_hist lat = latency_of(handle);
    ck_assert_uint_eq(total(&lat), answers);
}

static xlat_fixed *responder(uint32_t latency)
{
    xlat_fixed_config fc;
    xlat_fixed *f;
    xlat_fixed_config_init(&fc);
    fc.latency = latency;
    ck_assert_int_eq(xlat_fixed_create(h.ctx, &fc, &f), XLAT_OK);
    return f;
}

/* A timed TLB of hit latency `latency` with 8 ports, missing to `next`. */
static xlat_tlb *timed_tlb(uint32_t latency, const xlat_target *next)
{
    xlat_tlb_config tc;
    xlat_tlb *t;
    xlat_tlb_config_init(&tc);
    tc.latency = latency;
    tc.ports = 8;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &t), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(t, next), XLAT_OK);
    return t;
}

static void send_tlb(xlat_tlb *t, uint64_t id, uint64_t vaddr)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .access = XLAT_ACCESS_READ};
    ck_assert_int_eq(xlat_tlb_translate(t, &req, on_done, NULL), XLAT_OK);
}

/* The buckets' edges, from answers of those latencies: 0 alone, then
 * [2^(b-1), 2^b - 1], the last from 2^30 on (the clock skips idle time, so
 * a responder of 2^32 - 1 cycles is quick to wait for). */
START_TEST(bucket_edges)
{
    static const struct {
        uint32_t latency;
        uint32_t bucket;
    } edge[] = {
        {0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {31, 5}, {32, 6}, {1023, 10}, {1024, 11},
        {(1u << 30) - 1, 30}, {1u << 30, 31}, {UINT32_MAX, 31},
    };
    for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
        xlat_fixed *f = responder(edge[i].latency);
        xlat_req req = {.id = i, .vaddr = 0x1000, .pasid = 1};
        ck_assert_int_eq(xlat_fixed_translate(f, &req, on_done, NULL), XLAT_OK);
        xlat_advance(h.ctx, (uint64_t)edge[i].latency + 1);
        ck_assert_int_eq(h.n, (int)i + 1);
        uint32_t b[] = {edge[i].bucket};
        static const uint64_t one[] = {1};
        EXPECT_HIST(f, b, one);
        xlat_fixed_destroy(f);
    }
}
END_TEST

/* A TLB of hit latency 1 over a 31-cycle responder. Hits take 1 cycle
 * (bucket 1); a miss is looked up for 1 cycle and then waits 31 for the
 * fill: 32 (bucket 6, [32, 63]); a miss merged into its MSHR one cycle
 * later is answered with the same fill, 31 cycles after it was accepted
 * (bucket 5, [16, 31]): each request counts from its own acceptance. The
 * responder answers both pages in 31 (bucket 5). */
START_TEST(tlb_over_fixed)
{
    xlat_fixed *mem = responder(31);
    xlat_target below = TEST_TARGET(fixed, mem);
    xlat_tlb *t = timed_tlb(1, &below);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 7, .pfn = 70, .page_shift = 12, .perm = XLAT_PERM_R};
    ck_assert_int_ge(xlat_tlb_insert(t, &e, NULL), XLAT_OK);
    for (uint64_t i = 0; i < 4; i++) /* 4 hits at cycle 0 */
        send_tlb(t, i, 0x7000);
    send_tlb(t, 10, 0x20000); /* two misses at cycle 0 */
    send_tlb(t, 11, 0x30000);
    xlat_tick(h.ctx);
    send_tlb(t, 12, 0x20000); /* merged at cycle 1 */
    send_tlb(t, 4, 0x7000);   /* a fifth hit */
    xlat_advance(h.ctx, 100);
    ck_assert_int_eq(h.n, 8);
    for (int i = 0; i < h.n; i++) /* the answers say the same */
        ck_assert_uint_eq(h.done[i].completed - h.done[i].issued,
                          h.done[i].id < 10 ? 1 : h.done[i].id == 12 ? 31 : 32);
    static const uint32_t tlb_b[] = {1, 5, 6}, mem_b[] = {5};
    static const uint64_t tlb_n[] = {5, 1, 2}, mem_n[] = {2};
    EXPECT_HIST(t, tlb_b, tlb_n);
    EXPECT_HIST(mem, mem_b, mem_n);
    xlat_tlb_stats_reset(t); /* the unit's own reset zeroes it too */
    EMPTY_HIST(t);
    EXPECT_HIST(mem, mem_b, mem_n);
    ck_assert_int_eq(xlat_stats_reset(h.ctx, 0), XLAT_OK);
    EMPTY_HIST(mem);
}
END_TEST

/* A TLB used as a structure (never made timed) answers nothing: its
 * buckets are listed all the same, as zeros. */
START_TEST(untimed_tlb_lists_zeros)
{
    xlat_tlb_config tc;
    xlat_tlb *t;
    xlat_tlb_config_init(&tc);
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &t), XLAT_OK);
    (void)xlat_tlb_lookup(t, 1, 0x1000, NULL);
    EMPTY_HIST(t);
}
END_TEST

static xlat_link *link_of(uint32_t there, uint32_t back, const xlat_target *far)
{
    xlat_link_config lc;
    xlat_link *l;
    xlat_link_config_init(&lc);
    lc.latency = there;
    lc.latency_back = back;
    ck_assert_int_eq(xlat_link_create(h.ctx, &lc, &l), XLAT_OK);
    ck_assert_int_eq(xlat_link_set_next(l, far), XLAT_OK);
    return l;
}

/* TLB (1 cycle) -> link (3 there, 4 back) -> responder (0 cycles). A miss
 * reaches the link at cycle 1, the responder at 4, which answers at once
 * (bucket 0); the answer is back at 8: 7 cycles in the link (bucket 3, the
 * top of [4, 7]) and 8 in the TLB (bucket 4, the bottom of [8, 15]). */
START_TEST(tlb_over_link)
{
    xlat_fixed *mem = responder(0);
    xlat_target far = TEST_TARGET(fixed, mem);
    xlat_link *l = link_of(3, 4, &far);
    xlat_target to_link = TEST_TARGET(link, l);
    xlat_tlb *t = timed_tlb(1, &to_link);
    send_tlb(t, 1, 0x5000);
    xlat_advance(h.ctx, 20);
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].completed, 8);
    static const uint32_t mem_b[] = {0}, link_b[] = {3}, tlb_b[] = {4};
    static const uint64_t one[] = {1};
    EXPECT_HIST(mem, mem_b, one);
    EXPECT_HIST(l, link_b, one);
    EXPECT_HIST(t, tlb_b, one);
    xlat_link_stats st;
    xlat_link_stats_get(l, &st, sizeof(st));
    expect_answers(l, st.answers);
    xlat_link_stats_reset(l);
    EMPTY_HIST(l);
}
END_TEST

static int refuse_for_good(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    (void)unit;
    (void)req;
    (void)done;
    (void)user;
    return XLAT_ERR_UNSUPPORTED;
}

/* A request the far side refuses for good is answered by the link itself,
 * after both crossings: its answer is issued when the link took it. */
START_TEST(link_answers_a_refusal)
{
    xlat_target far = {sizeof(far), refuse_for_good, NULL, NULL, 0};
    xlat_link *l = link_of(3, 4, &far);
    xlat_advance(h.ctx, 10);
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    ck_assert_int_eq(xlat_link_translate(l, &req, on_done, NULL), XLAT_OK);
    xlat_advance(h.ctx, 20);
    ck_assert_int_eq(h.n, 1);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_UNSUPPORTED);
    ck_assert_uint_eq(h.done[0].issued, 10);
    ck_assert_uint_eq(h.done[0].completed, 17);
    static const uint32_t b[] = {3};
    static const uint64_t one[] = {1};
    EXPECT_HIST(l, b, one);
}
END_TEST

/* One walker, 10-cycle reads, no PWC: a walk of the 4-level table is 4
 * reads, 40 cycles. Three walks sent at cycle 0 run one after the other
 * and are answered at 40, 80 and 120: one in bucket 6 ([32, 63]), two in
 * bucket 7 ([64, 127]). */
START_TEST(walker_queue)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(h.ctx, &mem, &pt);
    for (uint64_t i = 0; i < 3; i++) /* 2 MiB apart: a leaf node each */
        ck_assert_int_eq(xlat_pagetable_map(pt, 1, i << 21, 0x900 + i, 12, XLAT_PERM_R), XLAT_OK);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = pt;
    wc.walkers = 1;
    wc.mem_latency = 10;
    xlat_walker *w;
    ck_assert_int_eq(xlat_walker_create(h.ctx, &wc, &w), XLAT_OK);
    for (uint64_t i = 0; i < 3; i++) {
        xlat_req req = {.id = i, .vaddr = i << 21, .pasid = 1};
        ck_assert_int_eq(xlat_walker_translate(w, &req, on_done, NULL), XLAT_OK);
    }
    xlat_advance(h.ctx, 200);
    ck_assert_int_eq(h.n, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(h.done[i].completed, 40 * (h.done[i].id + 1));
    static const uint32_t b[] = {6, 7};
    static const uint64_t n[] = {1, 2};
    EXPECT_HIST(w, b, n);
    xlat_walker_stats st;
    xlat_walker_stats_get(w, &st, sizeof(st));
    expect_answers(w, st.completed);
    xlat_walker_stats_reset(w);
    EMPTY_HIST(w);
}
END_TEST

/* The IOMMU's defaults: a 200-cycle TLB lookup and a 500-cycle walk (4
 * reads of 125). A miss is answered 700 cycles after it came (bucket 10,
 * [512, 1023]), a hit on what the walk filled in 200 (bucket 8, [128,
 * 255]); its walker answered the walk in 500 (bucket 9), and its TLB, a
 * structure, answered nothing. */
START_TEST(iommu_miss_then_hit)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(h.ctx, &mem, &pt);
    ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x3000, 0x903, 12, XLAT_PERM_R), XLAT_OK);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_iommu *m;
    ck_assert_int_eq(xlat_iommu_create(h.ctx, &ic, &m), XLAT_OK);
    xlat_req req = {.id = 1, .vaddr = 0x3000, .pasid = 1};
    ck_assert_int_eq(xlat_iommu_translate(m, &req, on_done, NULL), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    req.id = 2;
    ck_assert_int_eq(xlat_iommu_translate(m, &req, on_done, NULL), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 2);
    ck_assert_uint_eq(h.done[0].completed - h.done[0].issued, 700);
    ck_assert_uint_eq(h.done[1].completed - h.done[1].issued, 200);
    static const uint32_t iommu_b[] = {8, 10}, walk_b[] = {9};
    static const uint64_t iommu_n[] = {1, 1}, one[] = {1};
    EXPECT_HIST(m, iommu_b, iommu_n);
    EXPECT_HIST(xlat_iommu_walker(m), walk_b, one);
    EMPTY_HIST(xlat_iommu_tlb(m));
    xlat_iommu_stats_reset(m);
    EMPTY_HIST(m);
    EXPECT_HIST(xlat_iommu_walker(m), walk_b, one); /* its parts keep theirs */
}
END_TEST

/* Two GPUs on the L2 TLB probing ring ("Improving Address Translation in
 * Multi-GPUs via Sharing and Spilling aware TLB Design" §5.5), probes of
 * 10 cycles: GPU 0's L2 misses a page GPU 1's L2 holds, and the ring stop
 * answers it 10 cycles after it took it (bucket 4, [8, 15]). The system's
 * histogram is its ring stops'. */
START_TEST(system_probe_ring)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(h.ctx, &mem, &pt);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 2;
    sc.cus = 1;
    sc.iommu = &ic;
    sc.probe_ring = true;
    sc.probe_latency = 10;
    xlat_system *sys;
    ck_assert_int_eq(xlat_system_create(h.ctx, &sc, &sys), XLAT_OK);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 0x42, .pfn = 0x942, .page_shift = 12,
                        .perm = XLAT_PERM_R};
    ck_assert_int_ge(xlat_tlb_insert(xlat_system_l2(sys, 1), &e, NULL), XLAT_OK);
    xlat_req req = {.id = 1, .vaddr = 0x42000, .pasid = 1, .gpu = 0};
    ck_assert_int_eq(xlat_system_translate(sys, &req, on_done, NULL), XLAT_OK);
    xlat_advance(h.ctx, 1000);
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].pfn, 0x942);
    static const uint32_t b[] = {4};
    static const uint64_t one[] = {1};
    EXPECT_HIST(sys, b, one);
    xlat_system_stats_reset(sys);
    EMPTY_HIST(sys);
}
END_TEST

/* The distributed GMMU ("Dynamic GMMU Bypass for Address Translation in
 * Multi-GPU Systems"), in the world and with the requests of
 * tests/check_gmmu.c's distributed_latencies, which derives each answer:
 * G = 100 (4 reads of 25), the IOMMU path 1100. The GMMU answers a local
 * page in 100 (bucket 7), the others in 1200, 1150 and 1100 (bucket 11);
 * its walker answers two full walks in 100 (bucket 7), the FAR_VA walk
 * after 2 reads in 50 (bucket 6) and a PASID without a table at once
 * (bucket 0); the IOMMU path answers three requests in 1100 (bucket 11). */
START_TEST(gmmu_distributed)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, REMOTE_VA(0));
    gf_send(3, FAR_VA);
    ck_assert_int_eq(gf_send_pasid(4, LOCAL_VA(0), 2), XLAT_OK);
    gf_drain();
    static const uint32_t gmmu_b[] = {7, 11}, walk_b[] = {0, 6, 7}, iommu_b[] = {11};
    static const uint64_t gmmu_n[] = {1, 3}, walk_n[] = {1, 1, 2}, iommu_n[] = {3};
    expect_hist_on(gf.ctx, gf.g, gmmu_b, gmmu_n, 2);
    expect_hist_on(gf.ctx, gf.walker, walk_b, walk_n, 3);
    expect_hist_on(gf.ctx, gf.iommu, iommu_b, iommu_n, 1);
    xlat_gmmu_stats_reset(gf.g);
    expect_hist_on(gf.ctx, gf.g, NULL, NULL, 0);
}
END_TEST

/* An older caller's struct (fewer buckets) gets its prefix and nothing
 * past it; a newer one's extra words are zeroed; bad arguments change
 * nothing. */
START_TEST(get_sized_and_errors)
{
    xlat_fixed *f = responder(5); /* bucket 3 */
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    ck_assert_int_eq(xlat_fixed_translate(f, &req, on_done, NULL), XLAT_OK);
    xlat_advance(h.ctx, 10);
    uint32_t id = xlat_unit_id(h.ctx, f);
    struct {
        uint64_t bucket[4]; /* a caller built when there were 4 */
        uint64_t guard;
    } older;
    memset(&older, 0xAB, sizeof(older));
    ck_assert_int_eq(xlat_unit_latency_get(h.ctx, id, (xlat_latency_hist *)(void *)&older,
                                           sizeof(older.bucket)), XLAT_OK);
    ck_assert_uint_eq(older.bucket[0] + older.bucket[1] + older.bucket[2], 0);
    ck_assert_uint_eq(older.bucket[3], 1);
    ck_assert_uint_eq(older.guard, 0xABABABABABABABABull);
    struct {
        xlat_latency_hist lat;
        uint64_t later[2]; /* a caller built against a longer struct */
    } newer;
    memset(&newer, 0xAB, sizeof(newer));
    ck_assert_int_eq(xlat_unit_latency_get(h.ctx, id, &newer.lat, sizeof(newer)), XLAT_OK);
    ck_assert_uint_eq(newer.lat.bucket[3], 1);
    ck_assert_uint_eq(total(&newer.lat), 1);
    ck_assert_uint_eq(newer.later[0] | newer.later[1], 0);
    xlat_latency_hist lat;
    ck_assert_int_eq(xlat_unit_latency_get(NULL, id, &lat, sizeof(lat)), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_unit_latency_get(h.ctx, id, NULL, sizeof(lat)), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_unit_latency_get(h.ctx, 12345, &lat, sizeof(lat)), XLAT_ERR_NOT_FOUND);
    xlat_cuckoo_config cc;
    xlat_cuckoo *cf;
    xlat_cuckoo_config_init(&cc);
    ck_assert_int_eq(xlat_cuckoo_create(h.ctx, &cc, &cf), XLAT_OK);
    ck_assert_int_eq(xlat_unit_latency_get(h.ctx, xlat_unit_id(h.ctx, cf), &lat, sizeof(lat)),
                     XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "cuckoo"));
}
END_TEST

Suite *latency_suite(void)
{
    Suite *s = suite_create("latency");
    TCase *tc = test_case(s, "buckets");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, bucket_edges);
    tcase_add_test(tc, tlb_over_fixed);
    tcase_add_test(tc, untimed_tlb_lists_zeros);
    tcase_add_test(tc, tlb_over_link);
    tcase_add_test(tc, link_answers_a_refusal);
    tcase_add_test(tc, walker_queue);
    tcase_add_test(tc, iommu_miss_then_hit);
    tcase_add_test(tc, system_probe_ring);
    tcase_add_test(tc, get_sized_and_errors);
    TCase *gc = gf_case(s, "gmmu");
    tcase_add_test(gc, gmmu_distributed);
    return s;
}
