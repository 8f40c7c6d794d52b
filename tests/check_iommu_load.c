/* The IOMMU under load allocates nothing and posts within its budget
 * (doc/composition.md, rule 2): four GPUs' L2s attached, remote probes,
 * spills, page faults served by a host PRI handler that maps the page, and
 * shootdowns, with a buffer small enough that requests are refused. */
#include "testutil.h"
#include <xlat/experimental.h> /* preloads and the papers' rules, outside the stable API */

/* Internal symbol of the static library: posts that found no reserved
 * event (a unit exceeded its budget). */
size_t xlat__events_overruns(const xlat_ctx *ctx);

#define GPUS 4
#define PAGES 96   /* the shared working set, pages 0..95 of PASID 1 */
#define PASID 1
#define FRAME(vpn) (0x5000 + (vpn))

static struct {
    counting_alloc ca;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_iommu *m;
    xlat_tlb *l2[GPUS];
    uint64_t sent, answered, refused, l2_hits, mapped_by_handler, woken;
    bool waiting;
} w;

static void map(uint64_t vpn)
{
    ck_assert_int_eq(xlat_pagetable_map(w.pt, PASID, vpn << 12, FRAME(vpn), 12,
                                        XLAT_PERM_R | XLAT_PERM_W), XLAT_OK);
}

/* The host's PRI handler: maps every faulting page and resumes the walk at
 * once, from inside the callback (allowed). */
static void pri(void *user, xlat_iommu *m, const xlat_iommu_fault *f, size_t n)
{
    (void)user;
    for (size_t i = 0; i < n; i++) {
        uint64_t vpn = f[i].vaddr >> 12;
        if (xlat_pagetable_lookup(w.pt, PASID, f[i].vaddr, NULL) != XLAT_OK) {
            map(vpn);
            w.mapped_by_handler++;
        }
        ck_assert_int_eq(xlat_iommu_fault_done(m, f[i].token, XLAT_OK), XLAT_OK);
    }
}

static void build_tlb(xlat_tlb **t, const char *name)
{
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.name = name;
    c.entries = 16;
    c.ways = 4;
    ck_assert_int_eq(xlat_tlb_create(w.ctx, &c, t), XLAT_OK);
}

static void world(xlat_incl incl, bool multi)
{
    static const char *const names[GPUS] = {"gpu0.l2", "gpu1.l2", "gpu2.l2", "gpu3.l2"};
    memset(&w, 0, sizeof(w));
    counting_alloc_init(&w.ca);
    w.ctx = test_ctx(11, &w.ca);
    test_table(w.ctx, &w.mem, &w.pt);
    for (uint64_t vpn = 0; vpn < PAGES; vpn++)
        if (vpn % 8) /* every eighth page faults on its first walk */
            map(vpn);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.walk = &wc;
    wc.pt = w.pt;
    wc.walkers = 4;
    wc.queue_entries = 8;
    wc.mem_latency = 5;
    c.gpus = GPUS;
    c.buffer_entries = 12;
    c.tlb_entries = 32;
    c.tlb_ways = 8;
    c.tlb_latency = 10;
    c.inclusion = incl;
    c.multi_app = multi;
    c.remote_latency = 15;
    c.spill_counter = 2;
    c.fault_fn = pri;
    c.fault_batch = 3;
    c.fault_timeout = 40; /* partial batches wait on the fault timer */
    ck_assert_int_eq(xlat_iommu_create(w.ctx, &c, &w.m), XLAT_OK);
    for (uint32_t g = 0; g < GPUS; g++) {
        build_tlb(&w.l2[g], names[g]);
        ck_assert_int_eq(xlat_iommu_attach_l2(w.m, g, w.l2[g]), XLAT_OK);
    }
}

static void teardown(void)
{
    xlat_iommu_destroy(w.m);
    for (uint32_t g = 0; g < GPUS; g++)
        xlat_tlb_destroy(w.l2[g]);
    xlat_pagetable_destroy(w.pt);
    xlat_physmem_destroy(w.mem);
    xlat_ctx_destroy(w.ctx);
    ck_assert_uint_eq(w.ca.live_bytes, 0);
}

/* The GPU's L2 is filled with the answer, policy metadata included, as
 * the timed L2 would fill it. */
static void answered(void *user, const xlat_resp *r)
{
    uint32_t g = (uint32_t)(uintptr_t)user;
    w.answered++;
    ck_assert_int_eq(r->status, XLAT_OK);
    ck_assert_uint_eq(r->pfn, FRAME(r->vaddr >> 12));
    xlat_tlb_entry e = {.pasid = r->pasid, .vpn = r->vaddr >> r->page_shift, .pfn = r->pfn,
                        .page_shift = r->page_shift, .perm = r->perm, .meta = r->meta};
    ck_assert_int_ge(xlat_tlb_insert(w.l2[g], &e, NULL), 0);
}

static void room(void *user)
{
    (void)user;
    w.waiting = false;
    w.woken++;
}

static void send(uint32_t g, uint64_t vpn)
{
    xlat_req req = {.id = w.sent, .vaddr = vpn << 12 | 0x40, .pasid = PASID, .gpu = (uint16_t)g};
    xlat_tlb_entry e;
    if (xlat_tlb_lookup(w.l2[g], PASID, req.vaddr, &e) == XLAT_OK) {
        w.l2_hits++;
        return;
    }
    int rc = xlat_iommu_translate(w.m, &req, answered, (void *)(uintptr_t)g);
    ck_assert(rc == XLAT_OK || rc == XLAT_ERR_AGAIN);
    w.sent += rc == XLAT_OK;
    w.refused += rc == XLAT_ERR_AGAIN;
    if (rc == XLAT_ERR_AGAIN && !w.waiting) {
        xlat_target t = TEST_TARGET(iommu, w.m);
        ck_assert_int_eq(t.wait(t.unit, room, NULL), XLAT_OK);
        w.waiting = true;
    }
}

/* A page leaves the table and is shot down: its next walk faults. */
static void shoot_down(uint64_t vpn)
{
    if (xlat_pagetable_lookup(w.pt, PASID, vpn << 12, NULL) == XLAT_OK)
        ck_assert_int_eq(xlat_pagetable_unmap(w.pt, PASID, vpn << 12), XLAT_OK);
    ck_assert_int_ge(xlat_iommu_invalidate(w.m, PASID, vpn << 12), 0);
}

/* 6000 cycles of two requests a cycle from random GPUs over the shared
 * pages, four shootdowns every 300 cycles; then a drain. */
static void load(void)
{
    uint64_t s = 5;
    while (xlat_now(w.ctx) < 6000) {
        for (int k = 0; k < 2; k++) {
            uint64_t r = test_rand(&s);
            send((uint32_t)(r % GPUS), (r >> 8) % PAGES);
        }
        if (xlat_now(w.ctx) % 300 == 150)
            for (int k = 0; k < 4; k++)
                shoot_down(test_rand(&s) % PAGES);
        ck_assert_int_eq(xlat_advance(w.ctx, 1), XLAT_OK);
    }
    while (xlat_pending_events(w.ctx))
        ck_assert_int_eq(xlat_advance(w.ctx, 100), XLAT_OK);
}

static void nothing(void *user) { (void)user; }

/* The host fills the context's event pool with its own events, up to what
 * the units reserved: the IOMMU's posts must come from its reservation.
 * WALKER_MARGIN of them leave at cycle 1, room for the walker pool's own
 * schedules (one pending event per walker, and a drain): the walkers do
 * not reserve theirs yet, and would otherwise stall, not the IOMMU. */
#define WALKER_MARGIN (4 + 2)

static void crowd_events(void)
{
    size_t n = 0;
    for (int i = 0; i < WALKER_MARGIN; i++)
        ck_assert_int_eq(xlat_schedule(w.ctx, 1, nothing, NULL), XLAT_OK);
    while (xlat_schedule(w.ctx, 7000, nothing, NULL) == XLAT_OK)
        n++;
    ck_assert_uint_gt(n, 0);
}

/* Once created, every allocation fails: the run must not need one. */
static void run(xlat_incl incl, bool multi, xlat_iommu_stats *st)
{
    world(incl, multi);
    size_t allocs = w.ca.allocs, frees = w.ca.frees;
    w.ca.fail_after = 0;
    crowd_events();
    load();
    w.ca.fail_after = -1;
    ck_assert_uint_eq(w.ca.allocs, allocs);
    ck_assert_uint_eq(w.ca.frees, frees);
    ck_assert_uint_eq(xlat__events_overruns(w.ctx), 0);
    xlat_iommu_stats_get(w.m, st, sizeof(*st));
    ck_assert_uint_eq(w.answered, w.sent);
    ck_assert_uint_eq(st->requests, w.sent);
    ck_assert_uint_eq(st->refusals, w.refused);
    ck_assert_uint_gt(w.refused, 0);
    ck_assert_uint_gt(w.woken, 0);
    ck_assert_uint_gt(w.mapped_by_handler, 0);
    ck_assert_uint_gt(st->faults, 0);
    ck_assert_uint_gt(st->fault_batches, 0);
    ck_assert_uint_gt(st->walks, 0);
}

START_TEST(mostly_inclusive_allocates_nothing)
{
    xlat_iommu_stats st;
    run(XLAT_INCL_MOSTLY, false, &st);
    ck_assert_uint_gt(st.tlb_hits, 0);
    teardown();
}
END_TEST

START_TEST(least_tlb_allocates_nothing)
{
    xlat_iommu_stats st;
    run(XLAT_INCL_LEAST, false, &st);
    ck_assert_uint_gt(st.remote_probes, 0);
    ck_assert_uint_gt(st.remote_hits, 0);
    ck_assert_uint_gt(st.victims_in, 0);
    ck_assert_uint_gt(st.walks_aborted + st.late_discarded, 0);
    teardown();
}
END_TEST

START_TEST(least_tlb_multi_allocates_nothing)
{
    xlat_iommu_stats st;
    run(XLAT_INCL_LEAST, true, &st);
    ck_assert_uint_gt(st.remote_probes, 0);
    ck_assert_uint_gt(st.spills, 0);
    ck_assert_uint_gt(st.victims_in, 0);
    teardown();
}
END_TEST

/* ---- records held by late probes ---------------------------------------
 * A request answered by its walk keeps its record while its remote probe
 * is still on its way; no configuration bounds how long. Every record
 * taken, translate refuses (an answer, not a failure inside tick), and the
 * sender is woken when a late probe frees one. */

typedef struct late_probe {
    xlat_l2_answer_fn answer;
    void *actx;
} late_probe;

static late_probe lp[8];
static int nlp;
static uint64_t woken_at;

static void late_arrives(void *arg)
{
    late_probe *p = arg;
    p->answer(p->actx, NULL); /* a miss: the walk has answered long ago */
}

/* GPU 1's L2 lies 3000 cycles away. */
static int late_send(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_answer_fn answer,
                     void *actx)
{
    (void)user, (void)pasid, (void)vaddr;
    late_probe *p = &lp[nlp++];
    *p = (late_probe){answer, actx};
    return xlat_schedule(w.ctx, 3000, late_arrives, p);
}

static int late_insert(void *user, const xlat_tlb_entry *e)
{
    (void)user, (void)e;
    return 0;
}

static int late_invalidate(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_gone_fn gone,
                           void *gctx)
{
    (void)user, (void)pasid, (void)vaddr, (void)gone, (void)gctx;
    return 0;
}

static void late_room(void *user)
{
    (void)user;
    woken_at = xlat_now(w.ctx);
}

static void late_answered(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_eq(r->status, XLAT_OK);
    w.answered++;
}

/* One ATS buffer entry, one walker, one walker queue slot: 3 records. */
static void late_world(void)
{
    memset(&w, 0, sizeof(w));
    nlp = 0;
    woken_at = 0;
    w.ctx = test_ctx(3, NULL);
    test_table(w.ctx, &w.mem, &w.pt);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.walk = &wc;
    wc.pt = w.pt;
    wc.walkers = 1;
    wc.queue_entries = 1;
    c.gpus = 2;
    c.buffer_entries = 1;
    c.inclusion = XLAT_INCL_LEAST;
    c.tracker_fp_bits = 16;
    ck_assert_int_eq(xlat_iommu_create(w.ctx, &c, &w.m), XLAT_OK);
    xlat_l2_port port = {.struct_size = sizeof(port), .probe = late_send, .insert = late_insert,
                         .invalidate = late_invalidate}; /* a host's L2: unit 0 */
    ck_assert_int_eq(xlat_iommu_attach_l2_port(w.m, 1, &port), XLAT_OK);
    for (uint64_t vpn = 1; vpn <= 4; vpn++) {
        map(vpn);
        xlat_tlb_entry e = {.pasid = PASID, .vpn = vpn, .pfn = FRAME(vpn), .page_shift = 12,
                            .perm = XLAT_PERM_R};
        ck_assert_int_eq(xlat_iommu_preload_l2(w.m, 1, &e), XLAT_OK); /* GPU 1 is tracked */
    }
}

static int late_send_req(uint64_t vpn)
{
    xlat_req req = {.id = vpn, .vaddr = vpn << 12, .pasid = PASID, .gpu = 0};
    return xlat_iommu_translate(w.m, &req, late_answered, NULL);
}

START_TEST(late_probes_hold_records)
{
    late_world();
    for (uint64_t vpn = 1; vpn <= 3; vpn++) {
        ck_assert_int_eq(late_send_req(vpn), XLAT_OK);
        while (w.answered < vpn)
            ck_assert_int_eq(xlat_advance(w.ctx, 1), XLAT_OK);
    }
    /* Answered at 700, 1400, 2100 (200 + a 500-cycle walk each); the
     * three probes sent at 200, 900, 1600 are still out. */
    ck_assert_uint_eq(xlat_now(w.ctx), 2100);
    ck_assert_int_eq(late_send_req(4), XLAT_ERR_AGAIN);
    ck_assert_str_eq(xlat_ctx_errmsg(w.ctx), "iommu iommu: every request record is taken");
    xlat_target t = TEST_TARGET(iommu, w.m);
    ck_assert_int_eq(t.wait(t.unit, late_room, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_advance(w.ctx, 3200 - 2100), XLAT_OK);
    ck_assert_uint_eq(woken_at, 3200); /* the first probe's miss freed its record */
    ck_assert_int_eq(late_send_req(4), XLAT_OK);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(w.m, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
    ck_assert_uint_eq(st.remote_probes, 3); /* request 4 looks up until 3400 */
    ck_assert_uint_eq(st.late_discarded, 1);
    while (xlat_pending_events(w.ctx))
        ck_assert_int_eq(xlat_advance(w.ctx, 100), XLAT_OK);
    ck_assert_uint_eq(w.answered, 4);
    xlat_iommu_stats_get(w.m, &st, sizeof(st));
    ck_assert_uint_eq(st.remote_probes, 4);
    ck_assert_uint_eq(st.late_discarded, 4);
    teardown();
}
END_TEST

/* ---- waking refused senders at most once a cycle ------------------------
 * 64 senders wait; two requests are answered in one cycle, and the first
 * answer's sender registers 64 more waits (the first wake freed the
 * slots). Waking again in the same cycle would post 128 wake-ups before
 * any fired, beyond the 64 reserved: the second lot is woken next cycle. */

static uint64_t wakes_at[2];

static void woken(void *user)
{
    (void)user;
    uint64_t now = xlat_now(w.ctx);
    ck_assert(now == 200 || now == 201);
    wakes_at[now - 200]++;
}

static void wait_64(void)
{
    xlat_target t = TEST_TARGET(iommu, w.m);
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(t.wait(t.unit, woken, NULL), XLAT_OK);
}

static void first_answer_waits(void *user, const xlat_resp *r)
{
    ck_assert_int_eq(r->status, XLAT_OK);
    if (w.answered++ == 0)
        wait_64();
    (void)user;
}

START_TEST(senders_woken_once_a_cycle)
{
    memset(&w, 0, sizeof(w));
    memset(wakes_at, 0, sizeof(wakes_at));
    counting_alloc_init(&w.ca);
    w.ctx = test_ctx(4, &w.ca);
    test_table(w.ctx, &w.mem, &w.pt);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.walk = &wc;
    wc.pt = w.pt;
    wc.walkers = 1;
    wc.queue_entries = 1;
    c.buffer_entries = 2;
    ck_assert_int_eq(xlat_iommu_create(w.ctx, &c, &w.m), XLAT_OK);
    for (uint64_t vpn = 1; vpn <= 2; vpn++) {
        xlat_tlb_entry e = {.pasid = PASID, .vpn = vpn, .pfn = FRAME(vpn), .page_shift = 12,
                            .perm = XLAT_PERM_R};
        ck_assert_int_eq(xlat_iommu_preload(w.m, 0, &e), XLAT_OK);
    }
    w.ca.fail_after = 0; /* the crowd fills the pool up to the reservations */
    crowd_events();
    wait_64();
    for (uint64_t vpn = 1; vpn <= 2; vpn++) {
        xlat_req req = {.id = vpn, .vaddr = vpn << 12, .pasid = PASID};
        ck_assert_int_eq(xlat_iommu_translate(w.m, &req, first_answer_waits, NULL), XLAT_OK);
    }
    ck_assert_int_eq(xlat_advance(w.ctx, 202), XLAT_OK);
    ck_assert_uint_eq(w.answered, 2);
    ck_assert_uint_eq(wakes_at[0], 64);
    ck_assert_uint_eq(wakes_at[1], 64);
    ck_assert_uint_eq(xlat__events_overruns(w.ctx), 0);
    w.ca.fail_after = -1;
    while (xlat_pending_events(w.ctx))
        ck_assert_int_eq(xlat_advance(w.ctx, 1000), XLAT_OK);
    teardown();
}
END_TEST

/* ---- victims queued by the host ---------------------------------------
 * A host warming GPU 0's one-entry L2 up with 100 preloads, without
 * advancing, queues 99 victims before the IOMMU can hand any to the
 * policy: outside an advance the queue grows, so none is lost, and each
 * enters the IOMMU TLB at the next tick (least-TLB: an L2 victim goes to
 * the IOMMU TLB, §4.1). */
START_TEST(host_victims_outside_advance_are_kept)
{
    memset(&w, 0, sizeof(w));
    w.ctx = test_ctx(6, NULL);
    test_table(w.ctx, &w.mem, &w.pt);
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.walk = &wc;
    wc.pt = w.pt;
    c.gpus = 1; /* a queue of 64 */
    c.inclusion = XLAT_INCL_LEAST;
    c.tlb_entries = 128;
    c.tlb_ways = 128;
    ck_assert_int_eq(xlat_iommu_create(w.ctx, &c, &w.m), XLAT_OK);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.entries = 1;
    tc.ways = 1;
    ck_assert_int_eq(xlat_tlb_create(w.ctx, &tc, &w.l2[0]), XLAT_OK);
    ck_assert_int_eq(xlat_iommu_attach_l2(w.m, 0, w.l2[0]), XLAT_OK);
    for (uint64_t vpn = 1; vpn <= 100; vpn++) {
        xlat_tlb_entry e = {.pasid = PASID, .vpn = vpn, .pfn = FRAME(vpn), .page_shift = 12,
                            .perm = XLAT_PERM_R};
        ck_assert_int_eq(xlat_iommu_preload_l2(w.m, 0, &e), XLAT_OK);
    }
    ck_assert_int_eq(xlat_advance(w.ctx, 1), XLAT_OK);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(w.m, &st, sizeof(st));
    ck_assert_uint_eq(st.victims_in, 99);
    ck_assert_uint_eq(xlat_tlb_count(xlat_iommu_tlb(w.m)), 99);
    teardown();
}
END_TEST

Suite *iommu_load_suite(void)
{
    Suite *s = suite_create("iommu_load");
    TCase *tc = test_case(s, "no_allocation");
    tcase_add_test(tc, mostly_inclusive_allocates_nothing);
    tcase_add_test(tc, least_tlb_allocates_nothing);
    tcase_add_test(tc, least_tlb_multi_allocates_nothing);
    tc = test_case(s, "records");
    tcase_add_test(tc, late_probes_hold_records);
    tcase_add_test(tc, senders_woken_once_a_cycle);
    tcase_add_test(tc, host_victims_outside_advance_are_kept);
    return s;
}
