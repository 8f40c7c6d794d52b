/* The GMMU and its bypass ("Dynamic GMMU Bypass for Address Translation in
 * Multi-GPU Systems"): the epoch decision vectors and the per-request
 * routing of the seed note's §D, exact latencies in every mode with a real
 * walker over a local page table and a fixed-latency IOMMU, epoch switching
 * at the exact cycle, counters, prediction accuracy, back-pressure, every
 * error path, and a randomized exactly-once check. */
#include <math.h>

#include "testutil.h"

#define PASID 1
#define BASE_PFN 0x10000ull /* both tables map page vpn to frame vpn + BASE_PFN */
#define LOCAL_PAGES 16      /* pages 0..15 live on this GPU */
#define LOCAL_VA(i) ((uint64_t)(i) * 0x1000)
#define REMOTE_VA(i) ((uint64_t)(LOCAL_PAGES + (i)) * 0x1000) /* same leaf node: 4 reads */
#define FAR_VA 0x40000000ull      /* level-3 entry absent: the walk stops after 2 reads */
#define NOWHERE_VA 0x8000000000ull /* mapped nowhere: the IOMMU faults too */
#define MAXDONE 2048

typedef struct gfix {
    counting_alloc ca;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_walker *walker;
    xlat_fixed *iommu;
    xlat_gmmu *g;
    xlat_resp done[MAXDONE];
    int ndone;
    int in_translate;
    xlat_gmmu_epoch log[16];
    int nlog;
} gfix;

static gfix f;

static int iommu_resolve(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    (void)user;
    (void)pasid;
    if (vaddr >= NOWHERE_VA)
        return XLAT_ERR_FAULT;
    out->pfn = (vaddr >> 12) + BASE_PFN;
    return XLAT_OK;
}

/* A GPU's local page table walked by `walkers` walkers (mem_latency per
 * read, so a full walk is 4 x mem_latency) and an IOMMU path of fixed
 * latency that knows every page. */
static void world(uint32_t mem_latency, uint32_t walkers, uint32_t queue, uint32_t iommu_latency,
                  uint32_t iommu_max)
{
    memset(&f, 0, sizeof(f));
    counting_alloc_init(&f.ca);
    f.ctx = test_ctx(3, &f.ca);
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    ck_assert_int_eq(xlat_physmem_create(f.ctx, &pc, &f.mem), XLAT_OK);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = f.mem;
    ck_assert_int_eq(xlat_pagetable_create(f.ctx, &tc, &f.pt), XLAT_OK);
    for (uint64_t p = 0; p < LOCAL_PAGES; p++)
        ck_assert_int_eq(xlat_pagetable_map(f.pt, PASID, LOCAL_VA(p), p + BASE_PFN, 12,
                                            XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.name = "gpu0.walker";
    wc.pt = f.pt;
    wc.walkers = walkers;
    wc.queue_entries = queue;
    wc.mem_latency = mem_latency;
    ck_assert_int_eq(xlat_walker_create(f.ctx, &wc, &f.walker), XLAT_OK);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = "iommu";
    fc.latency = iommu_latency;
    fc.max_outstanding = iommu_max;
    fc.resolve = iommu_resolve;
    ck_assert_int_eq(xlat_fixed_create(f.ctx, &fc, &f.iommu), XLAT_OK);
}

/* The D.2 world: G = 100 (4 reads of 25), 2P + I = 1100. */
static void d2_world(void) { world(25, 64, 256, 1100, 0); }

static void on_epoch(void *user, const xlat_gmmu_epoch *e)
{
    (void)user;
    ck_assert_int_lt(f.nlog, 16);
    f.log[f.nlog++] = *e;
}

static void gmmu_cfg(xlat_gmmu_config *c, xlat_gmmu_mode mode, xlat_gmmu_routing first,
                     uint64_t epoch)
{
    xlat_gmmu_config_init(c);
    c->name = "gpu0.gmmu";
    c->walker = f.walker;
    c->mode = mode;
    c->initial_route = first;
    c->epoch_cycles = epoch;
    c->local_base = BASE_PFN << 12;
    c->local_size = (uint64_t)LOCAL_PAGES << 12;
    c->epoch_fn = on_epoch;
}

static void gmmu_with(const xlat_gmmu_config *c)
{
    ck_assert_msg(xlat_gmmu_create(f.ctx, c, &f.g) == XLAT_OK, "%s", xlat_ctx_errmsg(f.ctx));
    xlat_target t = xlat_fixed_target(f.iommu);
    ck_assert_int_eq(xlat_gmmu_set_iommu(f.g, &t), XLAT_OK);
}

static void gmmu(xlat_gmmu_mode mode, xlat_gmmu_routing first, uint64_t epoch)
{
    xlat_gmmu_config c;
    gmmu_cfg(&c, mode, first, epoch);
    gmmu_with(&c);
}

static void teardown(void)
{
    xlat_gmmu_destroy(f.g);
    xlat_walker_destroy(f.walker);
    xlat_fixed_destroy(f.iommu);
    xlat_pagetable_destroy(f.pt);
    xlat_physmem_destroy(f.mem);
    xlat_ctx_destroy(f.ctx);
    if (f.ctx)
        ck_assert_uint_eq(f.ca.live_bytes, 0);
    memset(&f, 0, sizeof(f));
}

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_msg(!f.in_translate, "done called from inside xlat_gmmu_translate");
    ck_assert_int_lt(f.ndone, MAXDONE);
    f.done[f.ndone++] = *r;
}

static int send_pasid(uint64_t id, uint64_t va, uint32_t pasid)
{
    xlat_req req = {.id = id, .vaddr = va, .pasid = pasid, .access = XLAT_ACCESS_READ};
    f.in_translate = 1;
    int rc = xlat_gmmu_translate(f.g, &req, on_done, NULL);
    f.in_translate = 0;
    return rc;
}

static void send(uint64_t id, uint64_t va) { ck_assert_int_eq(send_pasid(id, va, PASID), XLAT_OK); }

static void run_until(uint64_t cycle)
{
    ck_assert_uint_ge(cycle, xlat_now(f.ctx));
    ck_assert_int_eq(xlat_advance(f.ctx, cycle - xlat_now(f.ctx)), XLAT_OK);
}

static void drain(void)
{
    while (xlat_next_event(f.ctx) != XLAT_NEVER)
        run_until(xlat_next_event(f.ctx));
}

static const xlat_resp *answer(uint64_t id)
{
    const xlat_resp *found = NULL;
    for (int i = 0; i < f.ndone; i++) {
        if (f.done[i].id != id)
            continue;
        ck_assert_msg(!found, "request %llu answered twice", (unsigned long long)id);
        found = &f.done[i];
    }
    ck_assert_msg(found != NULL, "request %llu not answered", (unsigned long long)id);
    return found;
}

static void expect(uint64_t id, uint64_t completed, int status, const char *resolver)
{
    const xlat_resp *r = answer(id);
    ck_assert_uint_eq(r->completed, completed);
    ck_assert_int_eq(r->status, status);
    ck_assert_str_eq(r->resolver, resolver);
    if (status == XLAT_OK)
        ck_assert_uint_eq(r->pfn, (r->vaddr >> 12) + BASE_PFN);
}

static xlat_gmmu_stats stats(void)
{
    xlat_gmmu_stats st;
    xlat_gmmu_stats_get(f.g, &st);
    return st;
}

/* ---- §D.1: the epoch decision ----------------------------------------------- */

START_TEST(decision_vectors)
{
    static const struct {
        uint64_t l, r;
        xlat_gmmu_routing current, next;
    } v[] = {
        {90, 10, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_LOCAL},    /* 0.900 > T1 */
        {86, 14, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_LOCAL},    /* 0.860 */
        {85, 15, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},    /* 0.850: not > T1 */
        {17, 3, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},     /* 0.850 again */
        {50, 50, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},    /* middle band */
        {15, 85, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_PARALLEL},   /* 0.150: not < T2 */
        {3, 17, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_PARALLEL},    /* 0.150 again */
        {14, 86, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_BYPASS},   /* 0.140 < T2 */
        {0, 37, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_BYPASS},       /* all remote */
        {37, 0, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_LOCAL},       /* all local */
        {0, 0, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_LOCAL},         /* no ratio: held */
        {0, 0, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_BYPASS},
        {0, 0, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_PARALLEL},
        {200, 100, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},  /* 0.667 */
        {5, 45, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_BYPASS},       /* the sequence below */
        {3, 30, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_BYPASS},
        {40, 40, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_PARALLEL},
        {95, 2, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_LOCAL},
    };
    xlat_gmmu_config c;
    xlat_gmmu_config_init(&c);
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        ck_assert_msg(xlat_gmmu_decide(&c, v[i].l, v[i].r, v[i].current) == v[i].next,
                      "vector %zu: (%llu, %llu)", i, (unsigned long long)v[i].l,
                      (unsigned long long)v[i].r);
}
END_TEST

START_TEST(decision_edges)
{
    xlat_gmmu_config c;
    xlat_gmmu_config_init(&c);
    ck_assert_int_eq(xlat_gmmu_decide(NULL, 1, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_BYPASS);
    c.min_samples = 0; /* acts as 1 */
    ck_assert_int_eq(xlat_gmmu_decide(&c, 0, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_BYPASS);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 1, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_LOCAL);
    c.min_samples = 10;
    ck_assert_int_eq(xlat_gmmu_decide(&c, 9, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_BYPASS);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 0, 10, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_BYPASS);
    ck_assert_int_eq(xlat_gmmu_decide(&c, UINT64_MAX, UINT64_MAX, XLAT_GMMU_ROUTE_LOCAL),
                     XLAT_GMMU_ROUTE_PARALLEL);
    c.min_samples = 1;
    c.t1 = c.t2 = 0.5; /* an empty middle band: only exactly 0.5 is parallel */
    ck_assert_int_eq(xlat_gmmu_decide(&c, 1, 1, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_PARALLEL);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 51, 49, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_LOCAL);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 49, 51, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_BYPASS);
    c.t1 = 1.0;
    c.t2 = 0.0; /* nothing is above 1 or below 0: always parallel */
    ck_assert_int_eq(xlat_gmmu_decide(&c, 5, 0, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_PARALLEL);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 0, 5, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_PARALLEL);
}
END_TEST

/* The note's epoch sequence, driven through the timed unit: epochs of 2000
 * cycles with (5,45), (3,30), (40,40), (0,0), (95,2). */
static void send_mix(uint64_t *id, int local, int remote)
{
    for (int i = 0; i < local; i++)
        send((*id)++, LOCAL_VA(i % LOCAL_PAGES));
    for (int i = 0; i < remote; i++)
        send((*id)++, REMOTE_VA(i));
}

static const struct {
    int l, r;
    xlat_gmmu_routing route;
} seq[] = {
    {5, 45, XLAT_GMMU_ROUTE_LOCAL},   {3, 30, XLAT_GMMU_ROUTE_BYPASS},
    {40, 40, XLAT_GMMU_ROUTE_BYPASS}, {0, 0, XLAT_GMMU_ROUTE_PARALLEL},
    {95, 2, XLAT_GMMU_ROUTE_PARALLEL},
};

/* The epoch log: every epoch but the idle one, each with its successor's route. */
static void check_sequence_log(void)
{
    static const uint64_t idx[4] = {0, 1, 2, 4};
    ck_assert_int_eq(f.nlog, 4);
    for (int i = 0; i < 4; i++) {
        int e = (int)idx[i];
        ck_assert_uint_eq(f.log[i].index, idx[i]);
        ck_assert_uint_eq(f.log[i].local, (uint64_t)seq[e].l);
        ck_assert_uint_eq(f.log[i].remote, (uint64_t)seq[e].r);
        ck_assert_int_eq(f.log[i].route, seq[e].route);
        ck_assert_int_eq(f.log[i].next, i < 3 ? seq[idx[i + 1]].route : XLAT_GMMU_ROUTE_LOCAL);
    }
}

static void check_sequence_stats(void)
{
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.epochs, 5);
    ck_assert_uint_eq(st.epochs_held, 1);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_LOCAL], 1);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_BYPASS], 2);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_PARALLEL], 2);
    /* §D.3: the two bypass epochs were predicted "remote". */
    ck_assert_uint_eq(st.pred_remote_epochs, 2);
    ck_assert_uint_eq(st.pred_remote_hits, 70);
    ck_assert_uint_eq(st.pred_remote_total, 113);
    ck_assert(fabs(st.pred_remote_acc_sum - (30.0 / 33.0 + 0.5)) < 1e-12);
    ck_assert_uint_eq(st.pred_local_epochs, 0); /* the first epoch's route was not predicted */
}

START_TEST(epoch_sequence)
{
    d2_world();
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 2000);
    uint64_t id = 1;
    for (int e = 0; e < 5; e++) {
        run_until((uint64_t)e * 2000);
        ck_assert_int_eq(xlat_gmmu_route(f.g), seq[e].route);
        send_mix(&id, seq[e].l, seq[e].r);
        run_until((uint64_t)e * 2000 + 1999);
        ck_assert_int_eq(xlat_gmmu_route(f.g), seq[e].route);
        uint32_t l, r;
        ck_assert_int_eq(xlat_gmmu_counters(f.g, &l, &r), XLAT_OK);
        ck_assert_uint_eq(l, (uint32_t)seq[e].l);
        ck_assert_uint_eq(r, (uint32_t)seq[e].r);
    }
    ck_assert_int_eq(f.ndone, (int)id - 1); /* every request answered inside its epoch */
    run_until(10000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_LOCAL);
    check_sequence_stats();
    /* The log of epoch 4 is written at the first activity after it. */
    ck_assert_int_eq(f.nlog, 3);
    send(id, LOCAL_VA(0));
    check_sequence_log();
}
END_TEST

/* Epoch k is [k x E, (k+1) x E): a request at E - 1 takes the old route,
 * one at E the new; an answer at exactly E counts in the new epoch. */
START_TEST(epoch_switch_at_exact_cycle)
{
    world(25, 8, 64, 300, 0);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 1000);
    send(1, REMOTE_VA(0)); /* 100 + 300: remote, epoch 0 */
    run_until(999);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_LOCAL);
    send(2, REMOTE_VA(1)); /* still the local route: walks, answered at 1399 */
    run_until(1000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_BYPASS);
    send(3, REMOTE_VA(2)); /* bypass: no walk, answered at 1300 */
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.gmmu_walks, 2);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_LOCAL], 2);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_BYPASS], 1);
    run_until(1700);
    send(4, LOCAL_VA(1)); /* bypass, answered at exactly 2000 */
    run_until(1999);
    uint32_t l, r;
    xlat_gmmu_counters(f.g, &l, &r);
    ck_assert_uint_eq(l, 0);
    ck_assert_uint_eq(r, 2);
    run_until(2000);
    expect(1, 400, XLAT_OK, "iommu");
    expect(2, 1399, XLAT_OK, "iommu");
    expect(3, 1300, XLAT_OK, "iommu");
    expect(4, 2000, XLAT_OK, "iommu");
    xlat_gmmu_counters(f.g, &l, &r);
    ck_assert_uint_eq(l, 1); /* epoch 2 */
    ck_assert_uint_eq(r, 0);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_BYPASS); /* from epoch 1's (0, 2) */
    st = stats();
    ck_assert_uint_eq(st.epochs, 2);
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 3);
}
END_TEST

/* An idle stretch of epochs keeps the route, and is counted without being
 * walked epoch by epoch. */
START_TEST(idle_epochs_hold)
{
    world(25, 8, 64, 300, 0);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 1000);
    send(1, REMOTE_VA(0));
    run_until(1000000000ull);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_BYPASS);
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.epochs, 1000000);
    ck_assert_uint_eq(st.epochs_held, 999999);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_BYPASS], 1000000);
    ck_assert_uint_eq(xlat_pending_events(f.ctx), 0); /* no timer ticks while idle */
}
END_TEST

/* ---- §D.2: routing, latency and walk accounting per mode ------------------ */

START_TEST(distributed_latencies)
{
    d2_world();
    gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_LOCAL);
    send(1, LOCAL_VA(3));
    send(2, REMOTE_VA(0));
    send(3, FAR_VA);
    ck_assert_int_eq(send_pasid(4, LOCAL_VA(0), 2), XLAT_OK); /* no local table at all */
    drain();
    expect(1, 100, XLAT_OK, "gpu0.walker");   /* G */
    expect(2, 1200, XLAT_OK, "iommu");        /* G + 2P + I */
    expect(3, 1150, XLAT_OK, "iommu");        /* the walk failed after 2 reads */
    expect(4, 1100, XLAT_OK, "iommu");        /* ... or at once */
    ck_assert_uint_eq(answer(1)->issued, 0);
    xlat_gmmu_stats st = stats();
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
    ck_assert_uint_eq(xlat_gmmu_outstanding(f.g), 0);
}
END_TEST

START_TEST(centralized_latencies)
{
    d2_world();
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.walker = NULL; /* no GMMU hardware (§2.3) */
    c.local_size = 0;
    gmmu_with(&c);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_BYPASS);
    send(1, LOCAL_VA(3));
    send(2, REMOTE_VA(0));
    drain();
    expect(1, 1100, XLAT_OK, "iommu");
    expect(2, 1100, XLAT_OK, "iommu");
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.gmmu_walks, 0);
    ck_assert_uint_eq(st.iommu_requests, 2);
    ck_assert_uint_eq(st.remote, 2);
    ck_assert_uint_eq(st.touched_local + st.touched_remote, 0); /* no locality source */
}
END_TEST

START_TEST(bypass_latencies)
{
    d2_world();
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 10000);
    send(1, LOCAL_VA(3));
    send(2, REMOTE_VA(0));
    drain();
    expect(1, 1100, XLAT_OK, "iommu");
    expect(2, 1100, XLAT_OK, "iommu");
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.gmmu_walks, 0);
    ck_assert_uint_eq(st.iommu_requests, 2);
    ck_assert_uint_eq(st.touched_local, 1); /* from the returned address */
    ck_assert_uint_eq(st.touched_remote, 1);
    uint32_t l, r;
    xlat_gmmu_counters(f.g, &l, &r);
    ck_assert_uint_eq(l, 1);
    ck_assert_uint_eq(r, 1);
}
END_TEST

static bool odd_pages_local(void *user, uint32_t gpu, uint64_t paddr)
{
    ck_assert_ptr_eq(user, &f);
    ck_assert_uint_eq(gpu, 7);
    return (paddr >> 12) & 1;
}

START_TEST(bypass_counts_with_host_locality)
{
    d2_world();
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 10000);
    c.gpu = 7;
    c.is_local = odd_pages_local; /* overrides the range */
    c.locality_user = &f;
    gmmu_with(&c);
    send(1, LOCAL_VA(0));  /* frame BASE_PFN, even: remote by the host's test */
    send(2, REMOTE_VA(1)); /* an odd frame: local by the host's test */
    send(3, NOWHERE_VA);   /* a fault touches nothing */
    drain();
    expect(3, 1100, XLAT_ERR_FAULT, "iommu");
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 1);
    ck_assert_uint_eq(st.failed, 1);
}
END_TEST

START_TEST(parallel_latencies)
{
    d2_world();
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    send(1, LOCAL_VA(3));
    send(2, REMOTE_VA(0));
    run_until(100);
    expect(1, 100, XLAT_OK, "gpu0.walker"); /* the IOMMU's answer comes at 1100 */
    ck_assert_uint_eq(xlat_gmmu_outstanding(f.g), 1);
    run_until(1100);
    expect(2, 1100, XLAT_OK, "iommu"); /* the GMMU's miss at 100 was dropped */
    ck_assert_int_eq(f.ndone, 2);
    xlat_gmmu_stats st = stats();
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
    ck_assert_uint_eq(xlat_gmmu_outstanding(f.g), 0);
    ck_assert_uint_eq(xlat_pending_events(f.ctx), 0);
}
END_TEST

/* §3's ideal scheme: each request to the right MMU, nothing wasted. */
static bool oracle_local(void *user, uint32_t gpu, const xlat_req *req)
{
    ck_assert_ptr_eq(user, &f);
    ck_assert_uint_eq(gpu, 0);
    return req->pasid == PASID && req->vaddr < LOCAL_VA(LOCAL_PAGES);
}

START_TEST(ideal_latencies)
{
    d2_world();
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_IDEAL, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.oracle = oracle_local;
    c.oracle_user = &f;
    gmmu_with(&c);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_LOCAL);
    send(1, LOCAL_VA(3));
    send(2, REMOTE_VA(0));
    drain();
    expect(1, 100, XLAT_OK, "gpu0.walker");
    expect(2, 1100, XLAT_OK, "iommu");
    xlat_gmmu_stats st = stats();
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
    world(25, 8, 64, 50, 0); /* the IOMMU path is faster than the walk */
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    send(1, LOCAL_VA(3));
    send(2, FAR_VA); /* walk fails at 50 too, after the IOMMU's answer */
    send(3, NOWHERE_VA); /* both fail: the IOMMU's answer, after the walk's */
    drain();
    expect(1, 50, XLAT_OK, "iommu");
    expect(2, 50, XLAT_OK, "iommu");
    expect(3, 50, XLAT_ERR_FAULT, "iommu");
    xlat_gmmu_stats st = stats();
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
    world(25, 8, 64, 30, 0);
    xlat_fixed_destroy(f.iommu);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 30;
    fc.resolve = fault_local_pages;
    ck_assert_int_eq(xlat_fixed_create(f.ctx, &fc, &f.iommu), XLAT_OK);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    send(1, LOCAL_VA(2));  /* IOMMU fault at 30, walk hit at 100 */
    send(2, REMOTE_VA(2)); /* IOMMU NOT_FOUND at 30, walk miss at 100 */
    run_until(99);
    ck_assert_int_eq(f.ndone, 0);
    run_until(100);
    expect(1, 100, XLAT_OK, "gpu0.walker");
    expect(2, 100, XLAT_ERR_NOT_FOUND, "fixed"); /* neither valid: the IOMMU's word */
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.discarded_iommu, 1);
    ck_assert_uint_eq(st.discarded_gmmu, 1);
    ck_assert_uint_eq(st.failed, 1);
}
END_TEST

/* The note's aggregate: 100 requests, 70 local. */
START_TEST(walk_counts_aggregate)
{
    for (int parallel = 0; parallel <= 1; parallel++) {
        d2_world();
        if (parallel)
            gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 1000000);
        else
            gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
        uint64_t id = 1;
        send_mix(&id, 70, 30);
        drain();
        xlat_gmmu_stats st = stats();
        ck_assert_uint_eq(st.completed, 100);
        ck_assert_uint_eq(st.gmmu_walks, 100);
        ck_assert_uint_eq(st.iommu_requests, parallel ? 100 : 30);
        ck_assert_uint_eq(st.wasted_walks, 30);
        ck_assert_uint_eq(st.touched_local, 70);
        ck_assert_uint_eq(st.touched_remote, 30);
        teardown();
    }
}
END_TEST

/* ---- counters and accuracy ------------------------------------------------- */

static void counters_after(uint32_t bits, xlat_gmmu_overflow policy, int nl, int nr,
                           uint32_t want_l, uint32_t want_r)
{
    world(25, 8, 64, 10, 0);
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 1000000);
    c.counter_bits = bits;
    c.overflow = policy;
    gmmu_with(&c);
    uint64_t id = 1;
    for (int i = 0; i < nl; i++, run_until(xlat_now(f.ctx) + 1))
        send(id++, LOCAL_VA(i % LOCAL_PAGES));
    for (int i = 0; i < nr; i++, run_until(xlat_now(f.ctx) + 1))
        send(id++, REMOTE_VA(i % 64));
    drain();
    uint32_t l, r;
    xlat_gmmu_counters(f.g, &l, &r);
    ck_assert_msg(l == want_l && r == want_r, "%u bits: (%u, %u), want (%u, %u)", bits, l, r,
                  want_l, want_r);
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.touched_local, (uint64_t)nl);
    ck_assert_uint_eq(st.touched_remote, (uint64_t)nr);
    teardown();
}

START_TEST(counter_width_and_overflow)
{
    /* 255 then halve to 127 and count: 128; R: halve (64, 127) and count. */
    counters_after(8, XLAT_GMMU_OVERFLOW_HALVE, 256, 256, 64, 128);
    counters_after(8, XLAT_GMMU_OVERFLOW_SATURATE, 256, 256, 255, 255);
    counters_after(8, XLAT_GMMU_OVERFLOW_HALVE, 200, 100, 200, 100); /* D.1: no overflow */
    counters_after(4, XLAT_GMMU_OVERFLOW_HALVE, 256, 256, 0, 8);
    counters_after(32, XLAT_GMMU_OVERFLOW_HALVE, 300, 20, 300, 20);
    counters_after(1, XLAT_GMMU_OVERFLOW_SATURATE, 3, 2, 1, 1);
}
END_TEST

/* §D.1: (200, 100) decides PARALLEL through the 8-bit counters. */
START_TEST(counted_epoch_decides)
{
    world(25, 8, 64, 10, 0);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 1000);
    uint64_t id = 1;
    for (int i = 0; i < 300; i++, run_until(xlat_now(f.ctx) + 1))
        send(id++, i % 3 == 2 ? REMOTE_VA(i % 64) : LOCAL_VA(i % LOCAL_PAGES));
    run_until(1000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_PARALLEL);
    ck_assert_uint_eq(stats().decisions[XLAT_GMMU_ROUTE_PARALLEL], 1);
}
END_TEST

/* §D.3: a route predicted from an extreme ratio scores the next epoch. */
START_TEST(prediction_accuracy)
{
    world(25, 64, 256, 300, 0);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 2000);
    uint64_t id = 1;
    send_mix(&id, 10, 0); /* epoch 0: initial route, not scored -> LOCAL */
    run_until(2000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_LOCAL);
    send_mix(&id, 30, 10); /* the note's example: 30/40 = 0.75 -> PARALLEL */
    run_until(4000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_PARALLEL);
    send_mix(&id, 0, 10); /* parallel epochs are not scored -> BYPASS */
    run_until(6000);
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_BYPASS);
    send_mix(&id, 1, 3);
    run_until(8000);
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.pred_local_epochs, 1);
    ck_assert_uint_eq(st.pred_local_hits, 30);
    ck_assert_uint_eq(st.pred_local_total, 40);
    ck_assert(st.pred_local_acc_sum == 0.75);
    ck_assert_uint_eq(st.pred_remote_epochs, 1);
    ck_assert_uint_eq(st.pred_remote_hits, 3);
    ck_assert_uint_eq(st.pred_remote_total, 4);
    ck_assert(st.pred_remote_acc_sum == 0.75);
    send(id, LOCAL_VA(0)); /* evaluates epoch 3 for real */
    xlat_gmmu_stats_reset(f.g);
    st = stats();
    ck_assert_uint_eq(st.epochs + st.requests + st.pred_remote_epochs, 0);
    /* The predictor stays: epoch 3's (1, 3) chose PARALLEL. */
    ck_assert_int_eq(xlat_gmmu_route(f.g), XLAT_GMMU_ROUTE_PARALLEL);
}
END_TEST

/* ---- the IOMMU path missing, back-pressure, errors --------------------------- */

START_TEST(no_iommu_answers_not_found)
{
    d2_world();
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, &c, &f.g), XLAT_OK);
    send(1, LOCAL_VA(0));
    ck_assert_int_eq(f.ndone, 0); /* never from inside translate */
    run_until(0);
    expect(1, 0, XLAT_ERR_NOT_FOUND, "gpu0.gmmu");
    xlat_gmmu_destroy(f.g);
    gmmu_cfg(&c, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, &c, &f.g), XLAT_OK);
    send(2, LOCAL_VA(1));
    send(3, REMOTE_VA(1));
    ck_assert_int_eq(send_pasid(4, LOCAL_VA(1), 9), XLAT_OK); /* walk fails inside the call */
    ck_assert_int_eq(f.ndone, 1);
    drain();
    expect(2, 100, XLAT_OK, "gpu0.walker");
    expect(3, 100, XLAT_ERR_NOT_FOUND, "gpu0.gmmu");
    expect(4, 0, XLAT_ERR_NOT_FOUND, "gpu0.gmmu");
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.remote, 2);
    ck_assert_uint_eq(st.failed, 2);
    ck_assert_uint_eq(st.iommu_requests, 0);
    /* Set, then removed again. */
    xlat_target t = xlat_fixed_target(f.iommu);
    ck_assert_int_eq(xlat_gmmu_set_iommu(f.g, &t), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_set_iommu(f.g, NULL), XLAT_OK);
    send(5, REMOTE_VA(2));
    drain();
    ck_assert_int_eq(answer(5)->status, XLAT_ERR_NOT_FOUND);
}
END_TEST

START_TEST(iommu_refusals_are_retried)
{
    world(25, 8, 64, 1100, 1);
    gmmu(XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    send(1, LOCAL_VA(0));
    send(2, LOCAL_VA(1));
    send(3, LOCAL_VA(2));
    drain();
    expect(1, 1100, XLAT_OK, "iommu");
    expect(2, 2200, XLAT_OK, "iommu");
    expect(3, 3300, XLAT_OK, "iommu");
    xlat_gmmu_stats st = stats();
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
    world(25, 1, 1, 1100, 0);
    gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    send(1, LOCAL_VA(0));
    send(2, LOCAL_VA(1));
    send(3, LOCAL_VA(2)); /* the walker's one buffer slot is taken */
    drain();
    expect(1, 100, XLAT_OK, "gpu0.walker");
    expect(2, 200, XLAT_OK, "gpu0.walker");
    expect(3, 300, XLAT_OK, "gpu0.walker");
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.gmmu_walks, 3);
    ck_assert_uint_eq(st.gmmu_retries, 1); /* refused once, woken when the slot freed */
}
END_TEST

/* In parallel, an IOMMU copy still waiting to be accepted when the walk
 * answers is never sent. */
START_TEST(parallel_cancels_a_refused_copy)
{
    world(25, 8, 64, 1100, 1);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 100000);
    send(1, LOCAL_VA(0));
    send(2, LOCAL_VA(1));
    run_until(100);
    expect(1, 100, XLAT_OK, "gpu0.walker");
    expect(2, 100, XLAT_OK, "gpu0.walker");
    drain();
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.iommu_requests, 1);
    ck_assert_uint_eq(st.iommu_retries, 1);
    ck_assert_uint_eq(st.discarded_iommu, 2);
    xlat_fixed_stats fs;
    xlat_fixed_stats_get(f.iommu, &fs);
    ck_assert_uint_eq(fs.requests, 1);
    ck_assert_uint_eq(xlat_pending_events(f.ctx), 0);
}
END_TEST

START_TEST(max_outstanding_refuses)
{
    d2_world();
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 2;
    gmmu_with(&c);
    send(1, LOCAL_VA(0));
    send(2, REMOTE_VA(0));
    ck_assert_int_eq(send_pasid(3, LOCAL_VA(1), PASID), XLAT_ERR_AGAIN);
    run_until(100); /* request 1 answered: room for one */
    send(3, LOCAL_VA(1));
    ck_assert_int_eq(send_pasid(4, LOCAL_VA(2), PASID), XLAT_ERR_AGAIN);
    drain();
    expect(3, 200, XLAT_OK, "gpu0.walker");
    ck_assert_int_eq(f.ndone, 3);
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.refusals, 2);
    ck_assert_uint_eq(st.requests, 3);
}
END_TEST

static void expect_create_fails(const xlat_gmmu_config *c, int rc, const char *why)
{
    xlat_gmmu *g = (xlat_gmmu *)&f; /* must stay untouched */
    ck_assert_msg(xlat_gmmu_create(f.ctx, c, &g) == rc, "%s: %s", why, xlat_ctx_errmsg(f.ctx));
    ck_assert_ptr_eq(g, (xlat_gmmu *)&f);
    ck_assert_msg(strlen(xlat_ctx_errmsg(f.ctx)) > 0, "%s: no message", why);
}

START_TEST(create_errors)
{
    d2_world();
    xlat_gmmu_config c, bad;
    gmmu_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_gmmu *g = NULL;
    ck_assert_int_eq(xlat_gmmu_create(NULL, &c, &g), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, NULL, &g), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, &c, NULL), XLAT_ERR_INVAL);
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
    bad = c, bad.struct_size = sizeof(c) + 8;
    expect_create_fails(&bad, XLAT_ERR_UNSUPPORTED, "newer struct_size");
}
END_TEST

START_TEST(create_edges_accepted)
{
    d2_world();
    xlat_gmmu_config c, bad;
    gmmu_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_gmmu *g = NULL;
    bad = c, bad.t1 = bad.t2 = 0.5, bad.counter_bits = 32, bad.name = NULL;
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, &bad, &g), XLAT_OK);
    xlat_gmmu_destroy(g);
    bad = c, bad.mode = XLAT_GMMU_CENTRALIZED, bad.walker = NULL, bad.local_size = 0;
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, &bad, &g), XLAT_OK);
    xlat_gmmu_destroy(g);
    bad = c, bad.local_size = 0, bad.is_local = odd_pages_local;
    ck_assert_int_eq(xlat_gmmu_create(f.ctx, &bad, &g), XLAT_OK);
    xlat_gmmu_destroy(g);
    xlat_gmmu_destroy(NULL);
}
END_TEST

START_TEST(call_errors)
{
    d2_world();
    gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_req req = {.id = 1, .vaddr = 0, .pasid = PASID};
    ck_assert_int_eq(xlat_gmmu_translate(NULL, &req, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_translate(f.g, NULL, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_translate(f.g, &req, NULL, NULL), XLAT_ERR_INVAL);
    xlat_target t = xlat_gmmu_target(f.g);
    ck_assert_int_eq(xlat_target_translate(&t, &req, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_target_translate(&t, &req, on_done, NULL), XLAT_OK);
    xlat_target broken = {NULL, NULL, NULL};
    ck_assert_int_eq(xlat_gmmu_set_iommu(NULL, &t), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_set_iommu(f.g, &broken), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_counters(NULL, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_gmmu_counters(f.g, NULL, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_gmmu_route(NULL), XLAT_GMMU_ROUTE_LOCAL);
    ck_assert_uint_eq(xlat_gmmu_outstanding(NULL), 0);
    ck_assert_uint_eq(xlat_gmmu_outstanding(f.g), 1);
    xlat_gmmu_stats st;
    memset(&st, 0xff, sizeof(st));
    xlat_gmmu_stats_get(NULL, &st);
    ck_assert_uint_eq(st.requests + st.completed + st.epochs, 0);
    xlat_gmmu_stats_get(f.g, NULL);
    xlat_gmmu_stats_reset(NULL);
    xlat_gmmu_config_init(NULL);
    drain();
    ck_assert_int_eq(f.ndone, 1);
}
END_TEST

/* The GMMU as the next level of an L2 TLB: lookup latency + walk. */
START_TEST(below_an_l2_tlb)
{
    d2_world();
    gmmu(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    xlat_target t = xlat_gmmu_target(f.g);
    xlat_req req = {.id = 2, .vaddr = LOCAL_VA(5), .pasid = PASID};
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.latency = 5;
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(f.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l2, &t), XLAT_OK);
    run_until(7);
    ck_assert_int_eq(xlat_tlb_translate(l2, &req, on_done, NULL), XLAT_OK);
    drain();
    expect(2, 7 + 5 + 100, XLAT_OK, "gpu0.walker");
    ck_assert_int_eq(xlat_tlb_translate(l2, &req, on_done, NULL), XLAT_OK); /* now a hit */
    drain();
    ck_assert_int_eq(f.ndone, 2);
    ck_assert_uint_eq(stats().requests, 1);
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
    d2_world();
    xlat_gmmu_config c;
    gmmu_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 64;
    gmmu_with(&c);
    for (int round = 0; round < 2; round++) {
        f.ca.fail_after = round ? 0 : -1;
        for (uint64_t id = 1; id <= 64; id++)
            send(id + 100 * (uint64_t)round, LOCAL_VA(id % LOCAL_PAGES));
        ck_assert_int_eq(send_pasid(65, LOCAL_VA(0), PASID), XLAT_ERR_AGAIN);
        ck_assert_str_eq(xlat_ctx_errmsg(f.ctx), "gmmu gpu0.gmmu: max_outstanding requests in flight");
        drain();
    }
    f.ca.fail_after = -1;
    ck_assert_int_eq(f.ndone, 128);
    for (int i = 0; i < f.ndone; i++)
        ck_assert_int_eq(f.done[i].status, XLAT_OK);
    ck_assert_uint_eq(stats().requests, 128);
    ck_assert_uint_eq(stats().refusals, 2);
    xlat_gmmu *g = NULL;
    gmmu_cfg(&c, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    for (long n = 0; n < 3; n++) {
        f.ca.fail_after = n;
        ck_assert_int_eq(xlat_gmmu_create(f.ctx, &c, &g), XLAT_ERR_NOMEM);
    }
    f.ca.fail_after = -1;
}
END_TEST

/* ---- randomized: exactly once, right answers, nothing left ----------------- */

static void random_run(uint64_t seed, xlat_gmmu_mode mode)
{
    uint64_t s = seed;
    world(5 + (uint32_t)(test_rand(&s) % 20), 4, 8, 20 + (uint32_t)(test_rand(&s) % 180), 8);
    xlat_gmmu_config c;
    gmmu_cfg(&c, mode, (xlat_gmmu_routing)(test_rand(&s) % 3), 300 + test_rand(&s) % 500);
    c.epoch_fn = NULL;
    c.oracle = oracle_local; /* for the ideal mode */
    c.oracle_user = &f;
    gmmu_with(&c);
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
                  : pick < local_pct[(xlat_now(f.ctx) / 1500) % 3] ? LOCAL_VA(test_rand(&s) % LOCAL_PAGES)
                  : REMOTE_VA(test_rand(&s) % 200);
            expect_ok[n] = va[n] < NOWHERE_VA;
            ck_assert_int_eq(send_pasid((uint64_t)n, va[n], pasid), XLAT_OK);
        }
        run_until(xlat_now(f.ctx) + 1 + test_rand(&s) % 60);
    }
    drain();
    ck_assert_int_eq(f.ndone, 1000);
    for (int i = 0; i < 1000; i++) {
        const xlat_resp *r = answer((uint64_t)i);
        ck_assert_int_eq(r->status, expect_ok[i] ? XLAT_OK : XLAT_ERR_FAULT);
        ck_assert_uint_eq(r->vaddr, va[i]);
        if (expect_ok[i])
            ck_assert_uint_eq(r->pfn, (va[i] >> 12) + BASE_PFN);
    }
    xlat_gmmu_stats st = stats();
    ck_assert_uint_eq(st.requests, 1000);
    ck_assert_uint_eq(st.completed, 1000);
    ck_assert_uint_eq(st.local + st.remote, 1000);
    ck_assert_uint_eq(st.discarded_gmmu + st.discarded_iommu, st.routed[XLAT_GMMU_ROUTE_PARALLEL]);
    ck_assert_uint_le(st.gmmu_walks,
                      st.routed[XLAT_GMMU_ROUTE_LOCAL] + st.routed[XLAT_GMMU_ROUTE_PARALLEL]);
    ck_assert_uint_eq(xlat_gmmu_outstanding(f.g), 0);
    ck_assert_uint_eq(xlat_pending_events(f.ctx), 0);
    teardown();
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
    world(25, 16, 64, 300, 0);
    gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 1000000);
    size_t before = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            before = f.ca.allocs;
        for (uint64_t i = 0; i < 300; i++) {
            send(i + 1000 * (uint64_t)round, i % 2 ? LOCAL_VA(i % LOCAL_PAGES) : REMOTE_VA(i % 50));
            run_until(xlat_now(f.ctx) + 1);
        }
        drain();
    }
    ck_assert_uint_eq(f.ca.allocs, before);
    ck_assert_int_eq(f.ndone, 600);
}
END_TEST

static TCase *fixture_case(Suite *s, const char *name)
{
    TCase *tc = test_case(s, name);
    tcase_add_checked_fixture(tc, NULL, teardown);
    return tc;
}

static void add_decision_and_routing(Suite *s)
{
    TCase *tc = fixture_case(s, "epoch decision");
    tcase_add_test(tc, decision_vectors);
    tcase_add_test(tc, decision_edges);
    tcase_add_test(tc, epoch_sequence);
    tcase_add_test(tc, epoch_switch_at_exact_cycle);
    tcase_add_test(tc, idle_epochs_hold);
    tcase_add_test(tc, counter_width_and_overflow);
    tcase_add_test(tc, counted_epoch_decides);
    tcase_add_test(tc, prediction_accuracy);
    tc = fixture_case(s, "routing");
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
    add_decision_and_routing(s);
    TCase *tc = fixture_case(s, "edges");
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
