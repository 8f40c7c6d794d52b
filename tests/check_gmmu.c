/* The GMMU ("Dynamic GMMU Bypass for Address Translation in Multi-GPU
 * Systems"): exact latencies in every mode with a real walker over a local
 * page table and a fixed-latency IOMMU (the seed note's §D.2), back-pressure,
 * admission, every error path, and a randomized exactly-once check. The
 * predictor is in check_gmmu_bypass.c, the composition contract in
 * check_gmmu_contract.c. */
#include "newer_config.h"
#include "gmmu_fixture.h"

/* ---- §D.2: routing, latency and walk accounting per mode ------------------ */

START_TEST(distributed_latencies)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_LOCAL);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, REMOTE_VA(0));
    gf_send(3, FAR_VA);
    ck_assert_int_eq(gf_send_pasid(4, LOCAL_VA(0), 2), XLAT_OK); /* no local table at all */
    gf_drain();
    gf_expect(1, 100, XLAT_OK, "gpu0.walker");   /* G */
    gf_expect(2, 1200, XLAT_OK, "iommu");        /* G + 2P + I */
    gf_expect(3, 1150, XLAT_OK, "iommu");        /* the walk failed after 2 reads */
    gf_expect(4, 1100, XLAT_OK, "iommu");        /* ... or at once */
    ck_assert_uint_eq(gf_answer(1)->issued, 0);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.requests, 4);
    ck_assert_uint_eq(st.completed, 4);
    ck_assert_uint_eq(st.local, 1);
    ck_assert_uint_eq(st.remote, 3);
    ck_assert_uint_eq(st.gmmu_walks, 4);
    ck_assert_uint_eq(st.wasted_walks, 3);
    ck_assert_uint_eq(st.iommu_requests, 3);
    ck_assert_uint_eq(st.parallel, 0);
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 3);
    ck_assert_uint_eq(st.latency_cycles, 100 + 1200 + 1150 + 1100);
    ck_assert_uint_eq(st.epochs, 0); /* no predictor in a fixed mode */
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 0);
}
END_TEST

START_TEST(centralized_latencies)
{
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.walker = NULL; /* no GMMU hardware (§2.3) */
    c.local_size = 0;
    gf_with(&c);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_BYPASS);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, REMOTE_VA(0));
    gf_drain();
    gf_expect(1, 1100, XLAT_OK, "iommu");
    gf_expect(2, 1100, XLAT_OK, "iommu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.gmmu_walks, 0);
    ck_assert_uint_eq(st.iommu_requests, 2);
    ck_assert_uint_eq(st.remote, 2);
    ck_assert_uint_eq(st.touched_local + st.touched_remote, 0); /* no locality source */
}
END_TEST

START_TEST(bypass_latencies)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 10000);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, REMOTE_VA(0));
    gf_drain();
    gf_expect(1, 1100, XLAT_OK, "iommu");
    gf_expect(2, 1100, XLAT_OK, "iommu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.gmmu_walks, 0);
    ck_assert_uint_eq(st.iommu_requests, 2);
    ck_assert_uint_eq(st.touched_local, 1); /* from the returned address */
    ck_assert_uint_eq(st.touched_remote, 1);
    uint32_t l, r;
    xlat_gmmu_counters(gf.g, &l, &r);
    ck_assert_uint_eq(l, 1);
    ck_assert_uint_eq(r, 1);
}
END_TEST

static bool odd_pages_local(void *user, uint32_t gpu, uint64_t paddr)
{
    ck_assert_ptr_eq(user, &gf);
    ck_assert_uint_eq(gpu, 7);
    return (paddr >> 12) & 1;
}

START_TEST(bypass_counts_with_host_locality)
{
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 10000);
    c.gpu = 7;
    c.is_local = odd_pages_local; /* overrides the range */
    c.locality_user = &gf;
    gf_with(&c);
    gf_send(1, LOCAL_VA(0));  /* frame BASE_PFN, even: remote by the host's test */
    gf_send(2, REMOTE_VA(1)); /* an odd frame: local by the host's test */
    gf_send(3, NOWHERE_VA);   /* a fault touches nothing */
    gf_drain();
    gf_expect(3, 1100, XLAT_ERR_FAULT, "iommu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 1);
    ck_assert_uint_eq(st.failed, 1);
}
END_TEST

START_TEST(parallel_latencies)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, REMOTE_VA(0));
    gf_run_until(100);
    gf_expect(1, 100, XLAT_OK, "gpu0.walker"); /* the IOMMU's answer comes at 1100 */
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 1);
    gf_run_until(1100);
    gf_expect(2, 1100, XLAT_OK, "iommu"); /* the GMMU's miss at 100 was dropped */
    ck_assert_int_eq(gf.ndone, 2);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.parallel, 2);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_PARALLEL], 2);
    ck_assert_uint_eq(st.gmmu_walks, 2);
    ck_assert_uint_eq(st.iommu_requests, 2);
    ck_assert_uint_eq(st.wasted_walks, 1);
    ck_assert_uint_eq(st.discarded_iommu, 1);
    ck_assert_uint_eq(st.discarded_gmmu, 1);
    ck_assert_uint_eq(st.local, 1);
    ck_assert_uint_eq(st.remote, 1);
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 1);
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 0);
    ck_assert_uint_eq(xlat_pending_events(gf.ctx), 0);
}
END_TEST


START_TEST(ideal_latencies)
{
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_IDEAL, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.oracle = gf_oracle_local;
    c.oracle_user = &gf;
    gf_with(&c);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_LOCAL);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, REMOTE_VA(0));
    gf_drain();
    gf_expect(1, 100, XLAT_OK, "gpu0.walker");
    gf_expect(2, 1100, XLAT_OK, "iommu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.gmmu_walks, 1);
    ck_assert_uint_eq(st.wasted_walks, 0);
    ck_assert_uint_eq(st.iommu_requests, 1);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_LOCAL], 1);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_BYPASS], 1);
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 1);
    ck_assert_uint_eq(st.epochs, 0);
}
END_TEST

/* The first valid answer wins whichever side it comes from: min(G, 2P+I). */
START_TEST(parallel_takes_the_first_valid)
{
    gf_world(25, 8, 64, 50, 0); /* the IOMMU path is faster than the walk */
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    gf_send(1, LOCAL_VA(3));
    gf_send(2, FAR_VA); /* walk fails at 50 too, after the IOMMU's answer */
    gf_send(3, NOWHERE_VA); /* both fail: the IOMMU's answer, after the walk's */
    gf_drain();
    gf_expect(1, 50, XLAT_OK, "iommu");
    gf_expect(2, 50, XLAT_OK, "iommu");
    gf_expect(3, 50, XLAT_ERR_FAULT, "iommu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.discarded_gmmu, 3);
    ck_assert_uint_eq(st.discarded_iommu, 0);
    ck_assert_uint_eq(st.touched_local, 1); /* request 1 by its address */
    ck_assert_uint_eq(st.touched_remote, 1);
    ck_assert_uint_eq(st.failed, 1);
}
END_TEST

/* An IOMMU fault that arrives first waits for a walk that may still find
 * the page; a walk miss waits for the IOMMU. */
static int fault_local_pages(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    (void)user;
    (void)pasid;
    (void)out;
    return vaddr < LOCAL_VA(LOCAL_PAGES) ? XLAT_ERR_FAULT : XLAT_ERR_NOT_FOUND;
}

START_TEST(parallel_invalid_answers_wait)
{
    gf_world(25, 8, 64, 30, 0);
    xlat_fixed_destroy(gf.iommu);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 30;
    fc.resolve = fault_local_pages;
    ck_assert_int_eq(xlat_fixed_create(gf.ctx, &fc, &gf.iommu), XLAT_OK);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    gf_send(1, LOCAL_VA(2));  /* IOMMU fault at 30, walk hit at 100 */
    gf_send(2, REMOTE_VA(2)); /* IOMMU NOT_FOUND at 30, walk miss at 100 */
    gf_run_until(99);
    ck_assert_int_eq(gf.ndone, 0);
    gf_run_until(100);
    gf_expect(1, 100, XLAT_OK, "gpu0.walker");
    gf_expect(2, 100, XLAT_ERR_NOT_FOUND, "fixed"); /* neither valid: the IOMMU's word */
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.discarded_iommu, 1);
    ck_assert_uint_eq(st.discarded_gmmu, 1);
    ck_assert_uint_eq(st.failed, 1);
}
END_TEST

/* The note's aggregate: 100 requests, 70 local. */
START_TEST(walk_counts_aggregate)
{
    for (int parallel = 0; parallel <= 1; parallel++) {
        gf_d2_world();
        if (parallel)
            gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 1000000);
        else
            gf_gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
        uint64_t id = 1;
        gf_send_mix(&id, 70, 30);
        gf_drain();
        xlat_gmmu_stats st = gf_stats();
        ck_assert_uint_eq(st.completed, 100);
        ck_assert_uint_eq(st.gmmu_walks, 100);
        ck_assert_uint_eq(st.iommu_requests, parallel ? 100 : 30);
        ck_assert_uint_eq(st.wasted_walks, 30);
        ck_assert_uint_eq(st.touched_local, 70);
        ck_assert_uint_eq(st.touched_remote, 30);
        gf_teardown();
    }
}
END_TEST

/* ---- the IOMMU path missing, back-pressure, errors --------------------------- */

START_TEST(no_iommu_answers_not_found)
{
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &c, &gf.g), XLAT_OK);
    gf_send(1, LOCAL_VA(0));
    ck_assert_int_eq(gf.ndone, 0); /* never from inside translate */
    gf_run_until(0);
    gf_expect(1, 0, XLAT_ERR_NOT_FOUND, "gpu0.gmmu");
    xlat_gmmu_destroy(gf.g);
    gf_cfg(&c, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &c, &gf.g), XLAT_OK);
    gf_send(2, LOCAL_VA(1));
    gf_send(3, REMOTE_VA(1));
    ck_assert_int_eq(gf_send_pasid(4, LOCAL_VA(1), 9), XLAT_OK); /* walk fails inside the call */
    ck_assert_int_eq(gf.ndone, 1);
    gf_drain();
    gf_expect(2, 100, XLAT_OK, "gpu0.walker");
    gf_expect(3, 100, XLAT_ERR_NOT_FOUND, "gpu0.gmmu");
    gf_expect(4, 0, XLAT_ERR_NOT_FOUND, "gpu0.gmmu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.remote, 2);
    ck_assert_uint_eq(st.failed, 2);
    ck_assert_uint_eq(st.iommu_requests, 0);
    /* Set, then removed again. */
    xlat_target t = TEST_TARGET(fixed, gf.iommu);
    ck_assert_int_eq(xlat_gmmu_set_iommu(gf.g, &t), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_set_iommu(gf.g, NULL), XLAT_OK);
    gf_send(5, REMOTE_VA(2));
    gf_drain();
    ck_assert_int_eq(gf_answer(5)->status, XLAT_ERR_NOT_FOUND);
}
END_TEST

START_TEST(iommu_refusals_are_retried)
{
    gf_world(25, 8, 64, 1100, 1);
    gf_gmmu(XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    gf_send(1, LOCAL_VA(0));
    gf_send(2, LOCAL_VA(1));
    gf_send(3, LOCAL_VA(2));
    gf_drain();
    gf_expect(1, 1100, XLAT_OK, "iommu");
    gf_expect(2, 2200, XLAT_OK, "iommu");
    gf_expect(3, 3300, XLAT_OK, "iommu");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.iommu_requests, 3);
    /* Only the head of the wait queue is retried, and only when the
     * responder has room: request 2 is refused at cycle 0, request 3 at
     * 1100; each is woken when an answer frees the responder. */
    ck_assert_uint_eq(st.iommu_retries, 2);
    ck_assert_uint_eq(st.latency_cycles, 1100 + 2200 + 3300);
}
END_TEST

START_TEST(walker_refusals_are_retried)
{
    gf_world(25, 1, 1, 1100, 0);
    gf_gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    gf_send(1, LOCAL_VA(0));
    gf_send(2, LOCAL_VA(1));
    gf_send(3, LOCAL_VA(2)); /* the walker's one buffer slot is taken */
    gf_drain();
    gf_expect(1, 100, XLAT_OK, "gpu0.walker");
    gf_expect(2, 200, XLAT_OK, "gpu0.walker");
    gf_expect(3, 300, XLAT_OK, "gpu0.walker");
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.gmmu_walks, 3);
    ck_assert_uint_eq(st.gmmu_retries, 1); /* refused once, woken when the slot freed */
}
END_TEST

/* In parallel, an IOMMU copy still waiting to be accepted when the walk
 * answers is never sent. */
START_TEST(parallel_cancels_a_refused_copy)
{
    gf_world(25, 8, 64, 1100, 1);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    gf_send(1, LOCAL_VA(0));
    gf_send(2, LOCAL_VA(1));
    gf_run_until(100);
    gf_expect(1, 100, XLAT_OK, "gpu0.walker");
    gf_expect(2, 100, XLAT_OK, "gpu0.walker");
    gf_drain();
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.iommu_requests, 1);
    ck_assert_uint_eq(st.iommu_retries, 1);
    ck_assert_uint_eq(st.discarded_iommu, 2);
    xlat_fixed_stats fs;
    xlat_fixed_stats_get(gf.iommu, &fs, sizeof(fs));
    ck_assert_uint_eq(fs.requests, 1);
    ck_assert_uint_eq(xlat_pending_events(gf.ctx), 0);
}
END_TEST

START_TEST(max_outstanding_refuses)
{
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 2;
    gf_with(&c);
    gf_send(1, LOCAL_VA(0));
    gf_send(2, REMOTE_VA(0));
    ck_assert_int_eq(gf_send_pasid(3, LOCAL_VA(1), PASID), XLAT_ERR_AGAIN);
    gf_run_until(100); /* request 1 answered: room for one */
    gf_send(3, LOCAL_VA(1));
    ck_assert_int_eq(gf_send_pasid(4, LOCAL_VA(2), PASID), XLAT_ERR_AGAIN);
    gf_drain();
    gf_expect(3, 200, XLAT_OK, "gpu0.walker");
    ck_assert_int_eq(gf.ndone, 3);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.refusals, 2);
    ck_assert_uint_eq(st.requests, 3);
}
END_TEST

static void expect_create_fails(const xlat_gmmu_config *c, int rc, const char *why)
{
    xlat_gmmu *g = (xlat_gmmu *)&gf; /* must stay untouched */
    ck_assert_msg(xlat_gmmu_create(gf.ctx, c, &g) == rc, "%s: %s", why, xlat_ctx_errmsg(gf.ctx));
    ck_assert_ptr_eq(g, (xlat_gmmu *)&gf);
    ck_assert_msg(strlen(xlat_ctx_errmsg(gf.ctx)) > 0, "%s: no message", why);
}

START_TEST(create_errors)
{
    gf_d2_world();
    xlat_gmmu_config c, bad;
    gf_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_gmmu *g = NULL;
    ck_assert_int_eq(xlat_gmmu_create(NULL, &c, &g), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, NULL, &g), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &c, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_null(g);
    static const double thresholds[][2] = {
        {1.5, 0.15}, {0.85, -0.1}, {0.1, 0.2}, {NAN, 0.15}, {0.85, NAN}, {-0.5, -0.6},
    };
    for (size_t i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++) {
        bad = c;
        bad.t1 = thresholds[i][0];
        bad.t2 = thresholds[i][1];
        expect_create_fails(&bad, XLAT_ERR_INVAL, "thresholds");
    }
    bad = c, bad.epoch_cycles = 0;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "epoch 0");
    bad = c, bad.counter_bits = 0;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "counter_bits 0");
    bad = c, bad.counter_bits = 33;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "counter_bits 33");
    bad = c, bad.mode = (xlat_gmmu_mode)4;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "mode");
    bad = c, bad.mode = XLAT_GMMU_IDEAL;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "ideal without oracle");
    bad = c, bad.initial_route = (xlat_gmmu_routing)3;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "route");
    bad = c, bad.overflow = (xlat_gmmu_overflow)2;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "overflow");
    bad = c, bad.walker = NULL;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "dynamic without walker");
    bad.mode = XLAT_GMMU_DISTRIBUTED;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "distributed without walker");
    bad = c, bad.local_size = 0;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "dynamic without locality");
    bad = c, bad.struct_size = 8;
    expect_create_fails(&bad, XLAT_ERR_INVAL, "old struct_size");
    XLAT_TEST_NEWER(xlat_gmmu_config) newer = {.cfg = c};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    expect_create_fails(&newer.cfg, XLAT_ERR_UNSUPPORTED, "newer libxlat");
}
END_TEST

START_TEST(create_edges_accepted)
{
    gf_d2_world();
    xlat_gmmu_config c, bad;
    gf_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_gmmu *g = NULL;
    bad = c, bad.t1 = bad.t2 = 0.5, bad.counter_bits = 32, bad.name = NULL;
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &bad, &g), XLAT_OK);
    xlat_gmmu_destroy(g);
    bad = c, bad.mode = XLAT_GMMU_CENTRALIZED, bad.walker = NULL, bad.local_size = 0;
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &bad, &g), XLAT_OK);
    xlat_gmmu_destroy(g);
    bad = c, bad.local_size = 0, bad.is_local = odd_pages_local;
    ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &bad, &g), XLAT_OK);
    xlat_gmmu_destroy(g);
    xlat_gmmu_destroy(NULL);
}
END_TEST

START_TEST(call_errors)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_req req = {.id = 1, .vaddr = 0, .pasid = PASID};
    ck_assert_int_eq(xlat_gmmu_translate(NULL, &req, gf_on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_translate(gf.g, NULL, gf_on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_translate(gf.g, &req, NULL, NULL), XLAT_ERR_INVAL);
    xlat_target t = TEST_TARGET(gmmu, gf.g);
    ck_assert_int_eq(xlat_target_translate(&t, &req, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_target_translate(&t, &req, gf_on_done, NULL), XLAT_OK);
    xlat_target broken = XLAT_TARGET_INIT; /* no translate */
    ck_assert_int_eq(xlat_gmmu_set_iommu(NULL, &t), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_set_iommu(gf.g, &broken), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_counters(NULL, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_counters(gf.g, NULL, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_route(NULL), XLAT_GMMU_ROUTE_LOCAL);
    ck_assert_uint_eq(xlat_gmmu_outstanding(NULL), 0);
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 1);
    xlat_gmmu_stats st;
    memset(&st, 0xff, sizeof(st));
    xlat_gmmu_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.requests + st.completed + st.epochs, 0);
    xlat_gmmu_stats_get(gf.g, NULL, 0);
    xlat_gmmu_stats_reset(NULL);
    xlat_gmmu_config_init(NULL);
    gf_drain();
    ck_assert_int_eq(gf.ndone, 1);
}
END_TEST

/* The GMMU as the next level of an L2 TLB: lookup latency + walk. */
START_TEST(below_an_l2_tlb)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_target t = TEST_TARGET(gmmu, gf.g);
    xlat_req req = {.id = 2, .vaddr = LOCAL_VA(5), .pasid = PASID};
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.latency = 5;
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(gf.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l2, &t), XLAT_OK);
    gf_run_until(7);
    ck_assert_int_eq(xlat_tlb_translate(l2, &req, gf_on_done, NULL), XLAT_OK);
    gf_drain();
    gf_expect(2, 7 + 5 + 100, XLAT_OK, "gpu0.walker");
    ck_assert_int_eq(xlat_tlb_translate(l2, &req, gf_on_done, NULL), XLAT_OK); /* now a hit */
    gf_drain();
    ck_assert_int_eq(gf.ndone, 2);
    ck_assert_uint_eq(gf_stats().requests, 1);
    xlat_tlb_destroy(l2);
}
END_TEST

/* Once created the GMMU allocates nothing: with every allocation failing
 * it still accepts requests up to its records, refuses the next with
 * XLAT_ERR_AGAIN (admission, not XLAT_ERR_NOMEM), and answers every
 * accepted one. The first round warms the IOMMU responder, which is not
 * under test here. */
START_TEST(out_of_memory)
{
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 64;
    gf_with(&c);
    for (int round = 0; round < 2; round++) {
        gf.ca.fail_after = round ? 0 : -1;
        for (uint64_t id = 1; id <= 64; id++)
            gf_send(id + 100 * (uint64_t)round, LOCAL_VA(id % LOCAL_PAGES));
        ck_assert_int_eq(gf_send_pasid(65, LOCAL_VA(0), PASID), XLAT_ERR_AGAIN);
        ck_assert_str_eq(xlat_ctx_errmsg(gf.ctx),
                         "gmmu gpu0.gmmu: max_outstanding requests in flight");
        gf_drain();
    }
    gf.ca.fail_after = -1;
    ck_assert_int_eq(gf.ndone, 128);
    for (int i = 0; i < gf.ndone; i++)
        ck_assert_int_eq(gf.done[i].status, XLAT_OK);
    ck_assert_uint_eq(gf_stats().requests, 128);
    ck_assert_uint_eq(gf_stats().refusals, 2);
    xlat_gmmu *g = NULL;
    gf_cfg(&c, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    for (long n = 0; n < 3; n++) {
        gf.ca.fail_after = n;
        ck_assert_int_eq(xlat_gmmu_create(gf.ctx, &c, &g), XLAT_ERR_NOMEM);
    }
    gf.ca.fail_after = -1;
}
END_TEST

/* ---- randomized: exactly once, right answers, nothing left ----------------- */

static void random_run(uint64_t seed, xlat_gmmu_mode mode)
{
    uint64_t s = seed;
    gf_world(5 + (uint32_t)(test_rand(&s) % 20), 4, 8, 20 + (uint32_t)(test_rand(&s) % 180), 8);
    xlat_gmmu_config c;
    gf_cfg(&c, mode, (xlat_gmmu_routing)(test_rand(&s) % 3), 300 + test_rand(&s) % 500);
    c.epoch_fn = NULL;
    c.oracle = gf_oracle_local; /* for the ideal mode */
    c.oracle_user = &gf;
    gf_with(&c);
    static uint64_t va[1000];
    static int expect_ok[1000];
    int n = 0;
    while (n < 1000) {
        for (uint64_t k = test_rand(&s) % 4; k > 0 && n < 1000; k--, n++) {
            /* Phases of mostly local, mostly remote and mixed requests, so
             * that the dynamic route moves among all three. */
            static const uint64_t local_pct[3] = {95, 3, 50};
            uint64_t pick = test_rand(&s) % 100;
            uint32_t pasid = pick == 99 ? 2 : PASID;
            va[n] = pick >= 97 ? NOWHERE_VA + 0x1000 * (test_rand(&s) % 8)
                  : pick < local_pct[(xlat_now(gf.ctx) / 1500) % 3]
                      ? LOCAL_VA(test_rand(&s) % LOCAL_PAGES)
                  : REMOTE_VA(test_rand(&s) % 200);
            expect_ok[n] = va[n] < NOWHERE_VA;
            ck_assert_int_eq(gf_send_pasid((uint64_t)n, va[n], pasid), XLAT_OK);
        }
        gf_run_until(xlat_now(gf.ctx) + 1 + test_rand(&s) % 60);
    }
    gf_drain();
    ck_assert_int_eq(gf.ndone, 1000);
    for (int i = 0; i < 1000; i++) {
        const xlat_resp *r = gf_answer((uint64_t)i);
        ck_assert_int_eq(r->status, expect_ok[i] ? XLAT_OK : XLAT_ERR_FAULT);
        ck_assert_uint_eq(r->vaddr, va[i]);
        if (expect_ok[i])
            ck_assert_uint_eq(r->pfn, (va[i] >> 12) + BASE_PFN);
    }
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.requests, 1000);
    ck_assert_uint_eq(st.completed, 1000);
    ck_assert_uint_eq(st.local + st.remote, 1000);
    ck_assert_uint_eq(st.discarded_gmmu + st.discarded_iommu, st.routed[XLAT_GMMU_ROUTE_PARALLEL]);
    ck_assert_uint_le(st.gmmu_walks,
                      st.routed[XLAT_GMMU_ROUTE_LOCAL] + st.routed[XLAT_GMMU_ROUTE_PARALLEL]);
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 0);
    ck_assert_uint_eq(xlat_pending_events(gf.ctx), 0);
    gf_teardown();
}

START_TEST(random_exactly_once)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        random_run(seed, XLAT_GMMU_CENTRALIZED);
        random_run(seed, XLAT_GMMU_DISTRIBUTED);
        random_run(seed, XLAT_GMMU_DYNAMIC);
        random_run(seed, XLAT_GMMU_IDEAL);
    }
}
END_TEST

/* The same load twice: the second run allocates nothing. */
START_TEST(steady_state_does_not_allocate)
{
    gf_world(25, 16, 64, 300, 0);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 1000000);
    size_t before = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            before = gf.ca.allocs;
        for (uint64_t i = 0; i < 300; i++) {
            gf_send(i + 1000 * (uint64_t)round,
                    i % 2 ? LOCAL_VA(i % LOCAL_PAGES) : REMOTE_VA(i % 50));
            gf_run_until(xlat_now(gf.ctx) + 1);
        }
        gf_drain();
    }
    ck_assert_uint_eq(gf.ca.allocs, before);
    ck_assert_int_eq(gf.ndone, 600);
}
END_TEST

static void add_routing(Suite *s)
{
    TCase *tc = gf_case(s, "routing");
    tcase_add_test(tc, distributed_latencies);
    tcase_add_test(tc, centralized_latencies);
    tcase_add_test(tc, bypass_latencies);
    tcase_add_test(tc, bypass_counts_with_host_locality);
    tcase_add_test(tc, parallel_latencies);
    tcase_add_test(tc, parallel_takes_the_first_valid);
    tcase_add_test(tc, parallel_invalid_answers_wait);
    tcase_add_test(tc, walk_counts_aggregate);
    tcase_add_test(tc, ideal_latencies);
    tcase_add_test(tc, below_an_l2_tlb);
}

Suite *gmmu_suite(void)
{
    Suite *s = suite_create("gmmu");
    add_routing(s);
    TCase *tc = gf_case(s, "edges");
    tcase_add_test(tc, no_iommu_answers_not_found);
    tcase_add_test(tc, iommu_refusals_are_retried);
    tcase_add_test(tc, walker_refusals_are_retried);
    tcase_add_test(tc, parallel_cancels_a_refused_copy);
    tcase_add_test(tc, max_outstanding_refuses);
    tcase_add_test(tc, create_errors);
    tcase_add_test(tc, create_edges_accepted);
    tcase_add_test(tc, call_errors);
    tcase_add_test(tc, out_of_memory);
    tcase_add_test(tc, random_exactly_once);
    tcase_add_test(tc, steady_state_does_not_allocate);
    return s;
}
