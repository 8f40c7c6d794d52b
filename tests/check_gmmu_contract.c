/* The GMMU keeps the composition contract (doc/composition.md, doc/gmmu.md):
 * the same requests give the same outcomes whether the host's IOMMU path
 * answers inside its translate call or one cycle later (the cycles differ
 * by exactly that cycle); `done` never runs while the sender is inside
 * xlat_gmmu_translate, and the GMMU's state is settled before it calls out
 * (a sender may send again from inside `done`); once created it allocates
 * nothing and stays within the events it reserved; a create that cannot
 * allocate fails cleanly. */
#include "gmmu_fixture.h"
#include "internal.h" /* xlat__events_overruns, the context's event reservation */

/* ---- a host-written IOMMU path --------------------------------------------- */

#define HOST_SLOTS 4096

/* Answers every request it accepts, inside the translate call (`later` 0)
 * or `later` cycles later through a host event; knows every page as the
 * world's IOMMU does. Refuses beyond `max` requests in flight (0: never). */
typedef struct host_iommu {
    uint32_t later;
    int manual; /* holds its answers until host_answer_oldest() */
    uint64_t answered_manually;
    uint32_t max;
    uint32_t in_flight;
    uint64_t accepted;
    uint64_t events; /* host events pending */
    struct host_slot {
        xlat_req req;
        xlat_done_fn done;
        void *user;
        uint64_t issued;
    } slot[HOST_SLOTS];
} host_iommu;

static host_iommu host;

static void host_answer(struct host_slot *s)
{
    xlat_resp r;
    memset(&r, 0, sizeof(r));
    xlat_tlb_entry e;
    memset(&e, 0, sizeof(e));
    r.id = s->req.id;
    r.vaddr = s->req.vaddr;
    r.pasid = s->req.pasid;
    r.status = gf_iommu_resolve(NULL, s->req.pasid, s->req.vaddr, &e);
    if (r.status == XLAT_OK) {
        r.pfn = e.pfn;
        r.page_shift = 12;
        r.perm = XLAT_PERM_R | XLAT_PERM_W;
        r.paddr = (e.pfn << 12) | (s->req.vaddr & 0xfff);
    }
    r.issued = s->issued;
    r.completed = xlat_now(gf.ctx);
    r.resolver = 0; /* the host's IOMMU is no unit of the context */
    host.in_flight--; /* the host's state first: the GMMU may send again inside */
    s->done(s->user, &r);
}

static void host_answer_event(void *arg)
{
    host.events--;
    host_answer(arg);
}

static int host_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    ck_assert_ptr_eq(unit, &host);
    if (host.max && host.in_flight >= host.max)
        return XLAT_ERR_AGAIN;
    struct host_slot *s = &host.slot[host.accepted++ % HOST_SLOTS];
    s->req = *req;
    s->done = done;
    s->user = user;
    s->issued = xlat_now(gf.ctx);
    host.in_flight++;
    if (host.manual)
        return XLAT_OK;
    if (!host.later) {
        host_answer(s);
        return XLAT_OK;
    }
    host.events++;
    ck_assert_int_eq(xlat_schedule(gf.ctx, host.later, host_answer_event, s), XLAT_OK);
    return XLAT_OK;
}

/* The host answers the oldest request it holds (manual mode), from outside
 * the clock: no event of its own. */
static void host_answer_oldest(void)
{
    ck_assert_uint_lt(host.answered_manually, host.accepted);
    host_answer(&host.slot[host.answered_manually++ % HOST_SLOTS]);
}

static void host_world(uint32_t later, uint32_t max)
{
    gf_world(25, 8, 64, 1100, 0); /* the world's responder stays unused */
    memset(&host, 0, sizeof(host));
    host.later = later;
    host.max = max;
}

static void host_gmmu(const xlat_gmmu_config *c)
{
    ck_assert_msg(xlat_gmmu_create(gf.ctx, c, &gf.g) == XLAT_OK, "%s", xlat_ctx_errmsg(gf.ctx));
    xlat_target t = {sizeof(t), host_translate, &host, NULL, 0};
    ck_assert_int_eq(xlat_gmmu_set_iommu(gf.g, &t), XLAT_OK);
}

/* ---- (a) answers inside the call, (b) one cycle later ------------------------ */

/* Requests 1..5 answered send 11..15 from inside `done`: legal, and only
 * possible if the GMMU settled its state before calling out. */
static void chain_done(void *user, const xlat_resp *r)
{
    gf_on_done(user, r);
    if (r->id >= 1 && r->id <= 5)
        gf_send(r->id + 10, REMOTE_VA(r->id));
}

static void send_chain(uint64_t id, uint64_t va, uint32_t pasid)
{
    xlat_req req = {.id = id, .vaddr = va, .pasid = pasid, .access = XLAT_ACCESS_READ};
    gf.in_translate = 1;
    ck_assert_int_eq(xlat_gmmu_translate(gf.g, &req, chain_done, NULL), XLAT_OK);
    gf.in_translate = 0;
}

/* What each request of the sequence gets: completion cycle with the host
 * answering inside its call, status, and who answered. With the host one
 * cycle later every answer that crossed the host's path comes later by the
 * cycles it crossed it (once, or twice for a request sent from inside the
 * done of one that crossed it), and nothing else changes. */
struct outcome {
    uint64_t id;
    uint64_t inside, later;
    int status;
    const char *resolver;
};

static void run_sequence(xlat_gmmu_mode mode, xlat_gmmu_routing first, int later,
                         const struct outcome *want, int n)
{
    host_world((uint32_t)later, 0);
    xlat_gmmu_config c;
    gf_cfg(&c, mode, first, 1000000);
    c.oracle = gf_oracle_local;
    c.oracle_user = &gf;
    host_gmmu(&c);
    send_chain(1, LOCAL_VA(3), PASID);
    send_chain(2, REMOTE_VA(0), PASID);
    send_chain(3, FAR_VA, PASID);     /* the walk stops after 2 reads */
    send_chain(4, LOCAL_VA(1), 2);    /* no local table: the walk fails inside its call */
    send_chain(5, NOWHERE_VA, PASID); /* the walk stops after 1 read; the host faults */
    ck_assert_int_eq(gf.ndone, 0);
    gf_drain();
    ck_assert_int_eq(gf.ndone, n);
    for (int i = 0; i < n; i++) {
        const xlat_resp *r = gf_answer(want[i].id);
        ck_assert_msg(r->completed == (later ? want[i].later : want[i].inside),
                      "mode %d, host %s: request %llu at %llu", (int)mode,
                      later ? "later" : "inside", (unsigned long long)want[i].id,
                      (unsigned long long)r->completed);
        ck_assert_int_eq(r->status, want[i].status);
        ck_assert_str_eq(gf_resolver(r), want[i].resolver);
        if (r->status == XLAT_OK)
            ck_assert_uint_eq(r->pfn, (r->vaddr >> 12) + BASE_PFN);
    }
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 0);
    ck_assert_uint_eq(xlat_pending_events(gf.ctx), 0);
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
    gf_teardown();
}

static void both_hosts(xlat_gmmu_mode mode, xlat_gmmu_routing first, const struct outcome *want,
                       int n)
{
    run_sequence(mode, first, 0, want, n);
    run_sequence(mode, first, 1, want, n);
}

#define W "gpu0.walker"
#define H "host.iommu"
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Walk 100 (4 reads of 25); a remote page's walk misses at 100, FAR_VA's
 * at 50, NOWHERE_VA's at 25; then the host. */
START_TEST(distributed_host_inside_or_later)
{
    static const struct outcome want[] = {
        {1, 100, 100, XLAT_OK, W},          {2, 100, 101, XLAT_OK, H},
        {3, 50, 51, XLAT_OK, H},            {4, 0, 1, XLAT_OK, H},
        {5, 25, 26, XLAT_ERR_FAULT, H},     {11, 200, 201, XLAT_OK, H},
        {12, 200, 202, XLAT_OK, H},         {13, 150, 152, XLAT_OK, H},
        {14, 100, 102, XLAT_OK, H},         {15, 125, 127, XLAT_OK, H},
    };
    both_hosts(XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL, want, N(want));
}
END_TEST

START_TEST(centralized_host_inside_or_later)
{
    static const struct outcome want[] = {
        {1, 0, 1, XLAT_OK, H},  {2, 0, 1, XLAT_OK, H},  {3, 0, 1, XLAT_OK, H},
        {4, 0, 1, XLAT_OK, H},  {5, 0, 1, XLAT_ERR_FAULT, H},
        {11, 0, 2, XLAT_OK, H}, {12, 0, 2, XLAT_OK, H}, {13, 0, 2, XLAT_OK, H},
        {14, 0, 2, XLAT_OK, H}, {15, 0, 2, XLAT_OK, H},
    };
    both_hosts(XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, want, N(want));
}
END_TEST

/* In parallel the host's valid answer wins; its fault for NOWHERE_VA waits
 * for the walk, which fails at 25: neither is valid, the host's word. */
START_TEST(parallel_host_inside_or_later)
{
    static const struct outcome want[] = {
        {1, 0, 1, XLAT_OK, H},   {2, 0, 1, XLAT_OK, H},   {3, 0, 1, XLAT_OK, H},
        {4, 0, 1, XLAT_OK, H},   {5, 25, 25, XLAT_ERR_FAULT, H},
        {11, 0, 2, XLAT_OK, H},  {12, 0, 2, XLAT_OK, H},  {13, 0, 2, XLAT_OK, H},
        {14, 0, 2, XLAT_OK, H},  {15, 25, 26, XLAT_OK, H},
    };
    both_hosts(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, want, N(want));
}
END_TEST

/* The oracle walks the local page of PASID and bypasses the rest. */
START_TEST(ideal_host_inside_or_later)
{
    static const struct outcome want[] = {
        {1, 100, 100, XLAT_OK, W}, {2, 0, 1, XLAT_OK, H},   {3, 0, 1, XLAT_OK, H},
        {4, 0, 1, XLAT_OK, H},     {5, 0, 1, XLAT_ERR_FAULT, H},
        {11, 100, 101, XLAT_OK, H}, {12, 0, 2, XLAT_OK, H}, {13, 0, 2, XLAT_OK, H},
        {14, 0, 2, XLAT_OK, H},    {15, 0, 2, XLAT_OK, H},
    };
    both_hosts(XLAT_GMMU_IDEAL, XLAT_GMMU_ROUTE_LOCAL, want, N(want));
}
END_TEST

/* The record of an answered request is free before `done` runs: with one
 * record, the sender's next request, sent from inside `done`, is taken. */
static void resend_done(void *user, const xlat_resp *r)
{
    gf_on_done(user, r);
    if (r->id < 3) {
        xlat_req req = {.id = r->id + 1, .vaddr = REMOTE_VA(r->id), .pasid = PASID};
        gf.in_translate = 1;
        ck_assert_int_eq(xlat_gmmu_translate(gf.g, &req, resend_done, NULL), XLAT_OK);
        gf.in_translate = 0;
    }
}

START_TEST(record_free_before_done)
{
    for (int later = 0; later <= 1; later++) {
        host_world((uint32_t)later, 0);
        xlat_gmmu_config c;
        gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
        c.max_outstanding = 1;
        host_gmmu(&c);
        xlat_req req = {.id = 1, .vaddr = REMOTE_VA(0), .pasid = PASID};
        gf.in_translate = 1;
        ck_assert_int_eq(xlat_gmmu_translate(gf.g, &req, resend_done, NULL), XLAT_OK);
        gf.in_translate = 0;
        ck_assert_int_eq(gf_send_pasid(9, LOCAL_VA(0), PASID), XLAT_ERR_AGAIN);
        gf_drain();
        ck_assert_int_eq(gf.ndone, 3);
        for (uint64_t id = 1; id <= 3; id++)
            gf_expect(id, later ? id : 0, XLAT_OK, H);
        ck_assert_uint_eq(gf_stats().refusals, 1);
        gf_teardown();
    }
}
END_TEST

/* An L2 TLB above a GMMU of two records: the third miss is refused and
 * waits on the GMMU's wait hook, the fourth queues behind it in the TLB
 * (never offered, so never refused), and both are sent in the cycle the
 * first records free (a TLB polling every cycle would be refused three
 * times each). */
START_TEST(refused_sender_is_woken)
{
    host_world(3, 0);
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 2;
    host_gmmu(&c);
    xlat_target below = TEST_TARGET(gmmu, gf.g);
    ck_assert_ptr_nonnull(below.wait);
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    tc.latency = 5;
    tc.ports = 4;
    tc.mshrs = 4;
    xlat_tlb *l2;
    ck_assert_int_eq(xlat_tlb_create(gf.ctx, &tc, &l2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l2, &below), XLAT_OK);
    for (uint64_t id = 1; id <= 4; id++) {
        xlat_req req = {.id = id, .vaddr = REMOTE_VA(id), .pasid = PASID};
        ck_assert_int_eq(xlat_tlb_translate(l2, &req, gf_on_done, NULL), XLAT_OK);
    }
    gf_drain();
    /* Sent at 5, the host answers at 8; the refused two are sent at 8. */
    gf_expect(1, 8, XLAT_OK, H);
    gf_expect(2, 8, XLAT_OK, H);
    gf_expect(3, 11, XLAT_OK, H);
    gf_expect(4, 11, XLAT_OK, H);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.requests, 4);
    ck_assert_uint_eq(st.refusals, 1); /* the third, once: woken, not polling */
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
    xlat_tlb_destroy(l2);
}
END_TEST

/* A host sender on the GMMU's wait hook directly (no TLB in between). */
static struct {
    uint64_t woken_at; /* XLAT_NEVER until the hook calls back */
    int retry_rc;
} hook;

static void retry_on_room(void *arg)
{
    (void)arg;
    hook.woken_at = xlat_now(gf.ctx);
    xlat_req req = {.id = 2, .vaddr = REMOTE_VA(2), .pasid = PASID};
    hook.retry_rc = xlat_gmmu_translate(gf.g, &req, gf_on_done, NULL);
}

/* A GMMU of one record: the second request is refused through the cheap
 * path (nothing formatted: the refusal keeps its parts, and the message is
 * joined when xlat_ctx_errmsg() asks, as the timed TLB's), waits through TEST_TARGET(gmmu, )'s wait hook, is
 * woken in the cycle the first answer frees the record, and is accepted. */
START_TEST(wait_hook_wakes_at_the_free)
{
    host_world(3, 0);
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 1;
    host_gmmu(&c);
    hook.woken_at = XLAT_NEVER;
    hook.retry_rc = XLAT_ERR_INVAL;
    gf_run_until(10);
    gf_send(1, REMOTE_VA(1)); /* accepted at 10, answered at 13 */
    xlat_req req = {.id = 2, .vaddr = REMOTE_VA(2), .pasid = PASID};
    ck_assert_int_eq(xlat_gmmu_translate(gf.g, &req, gf_on_done, NULL), XLAT_ERR_AGAIN);
    ck_assert_str_eq(xlat_ctx_errmsg(gf.ctx), "gmmu gpu0.gmmu: max_outstanding requests in flight");
    gf.ctx->errmsg[0] = '\0';
    ck_assert_int_eq(xlat_gmmu_translate(gf.g, &req, gf_on_done, NULL), XLAT_ERR_AGAIN);
    ck_assert_str_eq(gf.ctx->errmsg, ""); /* the refusal itself formatted nothing */
    ck_assert_str_eq(xlat_ctx_errmsg(gf.ctx), "gmmu gpu0.gmmu: max_outstanding requests in flight");
    xlat_target t = TEST_TARGET(gmmu, gf.g);
    ck_assert_ptr_nonnull(t.wait);
    ck_assert_int_eq(t.wait(t.unit, retry_on_room, NULL), XLAT_OK);
    gf_run_until(12);
    ck_assert_uint_eq(hook.woken_at, XLAT_NEVER); /* no record freed yet */
    gf_drain();
    ck_assert_uint_eq(hook.woken_at, 13);
    ck_assert_int_eq(hook.retry_rc, XLAT_OK);
    gf_expect(1, 13, XLAT_OK, H);
    gf_expect(2, 16, XLAT_OK, H);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.refusals, 2);
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
}
END_TEST

/* ---- (c) nothing allocated, nothing beyond the budget ------------------------ */

static void nothing(void *arg) { (void)arg; }

/* Grows the context's event pool past what the walker's and the host's
 * own events (xlat_schedule) can need, so that an allocation counted
 * under load can only be the GMMU's. */
static void pregrow_events(void)
{
    for (int i = 0; i < 2048; i++)
        ck_assert_int_eq(xlat_schedule(gf.ctx, 1, nothing, NULL), XLAT_OK);
    gf_run_until(xlat_now(gf.ctx) + 1);
}

/* Walker, IOMMU path and context warmed by a first run: the GMMU, created
 * after it, allocates nothing in a busy second run (every route, records
 * full, both sides refusing) and posts within its budget. */
START_TEST(no_allocation_under_load)
{
    host_world(40, 4); /* the host takes 4 at once: the IOMMU side queues */
    gf_gmmu(XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000); /* warms the host's slots */
    pregrow_events();
    for (uint64_t i = 0; i < 64; i++)
        (void)gf_send_pasid(i, REMOTE_VA(i), PASID);
    gf_drain();
    xlat_gmmu_destroy(gf.g);
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL, 300); /* the route moves */
    c.max_outstanding = 24;
    c.epoch_fn = NULL;
    size_t before = gf.ca.allocs;
    host_gmmu(&c);
    ck_assert_uint_gt(gf.ca.allocs, before);
    before = gf.ca.allocs;
    uint64_t s = 7, sent = 0, refused = 0;
    for (uint64_t id = 1000; xlat_now(gf.ctx) < 6000; gf_run_until(xlat_now(gf.ctx) + 1)) {
        for (int k = 0; k < 2; k++, id++) {
            /* Mostly remote, then mostly local, by turns of 1500 cycles. */
            uint64_t pick = test_rand(&s) % 100;
            uint64_t local_pct = (xlat_now(gf.ctx) / 1500) % 2 ? 90 : 10;
            uint64_t va = pick < local_pct ? LOCAL_VA(pick % LOCAL_PAGES) : REMOTE_VA(pick);
            int rc = gf_send_pasid(id, va, PASID);
            ck_assert(rc == XLAT_OK || rc == XLAT_ERR_AGAIN);
            sent += rc == XLAT_OK;
            refused += rc == XLAT_ERR_AGAIN;
        }
    }
    gf_drain();
    ck_assert_uint_eq(gf.ca.allocs, before);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.completed, sent);
    ck_assert_uint_eq(st.refusals, refused);
    ck_assert_uint_gt(refused, 0);
    ck_assert_uint_gt(st.iommu_retries, 0);
    ck_assert_uint_gt(st.routed[XLAT_GMMU_ROUTE_PARALLEL], 0);
    ck_assert_uint_gt(st.routed[XLAT_GMMU_ROUTE_BYPASS] + st.routed[XLAT_GMMU_ROUTE_LOCAL], 0);
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
}
END_TEST

/* Senders that wait on the GMMU's wait hook, each sending its next request
 * from inside `done`, against a GMMU of 16 records: the events the GMMU
 * has pending at once never exceed what it reserved at create. Only the
 * GMMU and the host post here, so the GMMU's count is the context's less
 * the host's. */
#define SENDERS 128
#define PER_SENDER 20

static struct {
    uint64_t next[SENDERS];
    size_t peak, budget;
    size_t polls; /* host events of senders the wait queue had no room for */
    int answered;
    uintptr_t spawn_next, spawn_end; /* senders that start from inside a done */
} load;

static void sender_go(void *arg);
static void sender_poll(void *arg);

static void note_peak(void)
{
    size_t mine = xlat_pending_events(gf.ctx) - host.events - load.polls;
    if (mine > load.peak)
        load.peak = mine;
}

static void sender_done(void *user, const xlat_resp *r)
{
    ck_assert(!gf.in_translate);
    ck_assert_int_eq(r->status, XLAT_OK);
    load.answered++;
    note_peak();
    sender_go(user);
    for (int i = 0; i < 3 && load.spawn_next < load.spawn_end; i++)
        sender_go((void *)load.spawn_next++);
}

/* Sends the sender's next request; refused, waits for a record. */
static void sender_go(void *arg)
{
    uintptr_t k = (uintptr_t)arg;
    if (load.next[k] == PER_SENDER)
        return;
    xlat_req req = {.id = k * 1000 + load.next[k], .vaddr = REMOTE_VA(k), .pasid = PASID};
    gf.in_translate = 1;
    int rc = xlat_gmmu_translate(gf.g, &req, sender_done, arg);
    gf.in_translate = 0;
    note_peak();
    if (rc == XLAT_OK) {
        load.next[k]++;
        return;
    }
    ck_assert_int_eq(rc, XLAT_ERR_AGAIN);
    xlat_target t = TEST_TARGET(gmmu, gf.g);
    if (t.wait(t.unit, sender_go, arg) == XLAT_OK)
        return;
    load.polls++; /* more senders wait than the GMMU remembers: poll */
    ck_assert_int_eq(xlat_schedule(gf.ctx, 1, sender_poll, arg), XLAT_OK);
}

static void sender_poll(void *arg)
{
    load.polls--;
    sender_go(arg);
}

/* `senders` start at once, and `spawned` more, three from each of the
 * first answers. */
static void budget_run(uint32_t later, uint32_t host_max, uintptr_t senders, uintptr_t spawned)
{
    host_world(later, host_max);
    memset(&load, 0, sizeof(load));
    load.spawn_next = senders;
    load.spawn_end = senders + spawned;
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 16;
    size_t reserved = gf.ctx->wheel.reserved;
    host_gmmu(&c);
    load.budget = gf.ctx->wheel.reserved - reserved;
    for (uintptr_t k = 0; k < senders; k++)
        sender_go((void *)k);
    gf_drain();
    ck_assert_int_eq(load.answered, (int)(senders + spawned) * PER_SENDER);
    ck_assert_msg(load.peak <= load.budget, "%zu events pending, %zu reserved", load.peak,
                  load.budget);
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
    ck_assert_uint_eq(xlat_gmmu_outstanding(gf.g), 0);
    gf_teardown();
}

START_TEST(events_within_budget)
{
    budget_run(0, 0, 100, 0); /* every answer inside the host's call: one delivery each */
    budget_run(1, 4, 100, 0); /* the host later, refusing beyond 4: the IOMMU side queues */
    budget_run(7, 0, 100, 0);
}
END_TEST

/* 80 senders against 16 records: 64 wait. In the next cycle 16 answers
 * free the records one by one; each answered sender sends again (taking
 * the record just freed) and starts three more, which are refused and
 * wait. The GMMU wakes its senders once a cycle (the ones refused after
 * the wake are woken next cycle): waking at every free would have had
 * 64 + 15 x 3 wake-ups pending at once, beyond the 83 events reserved. */
START_TEST(wakes_at_most_once_a_cycle)
{
    budget_run(1, 0, 80, 48);
    ck_assert_uint_eq(load.peak, 64 + 1); /* one wake's wake-ups and the deferred wake */
}
END_TEST

/* The context's event pool full and unable to grow: a GMMU whose IOMMU
 * path refuses (and has no wait hook) retries from its reserved events and
 * answers every request. It used to answer XLAT_ERR_NOMEM when it could not
 * schedule the retry. */
START_TEST(full_event_pool_loses_nothing)
{
    host_world(0, 1);
    host.manual = 1;
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    host_gmmu(&c);
    gf.ca.fail_after = 0; /* fill what room the host's events have */
    while (xlat_schedule(gf.ctx, 1000000, nothing, NULL) == XLAT_OK)
        continue;
    for (uint64_t id = 1; id <= 3; id++)
        gf_send(id, REMOTE_VA(id));
    ck_assert_uint_eq(host.accepted, 1); /* 2 and 3 wait: the host takes one at a time */
    for (int k = 0; k < 2; k++) {
        gf_run_until(xlat_now(gf.ctx) + 5);
        host_answer_oldest(); /* at 5, then 11 */
        gf_run_until(xlat_now(gf.ctx) + 1); /* the next is sent at 6, then 12 */
        ck_assert_uint_eq(host.accepted, (uint64_t)k + 2);
    }
    gf_run_until(17);
    host_answer_oldest();
    gf.ca.fail_after = -1;
    gf_expect(1, 5, XLAT_OK, H);
    gf_expect(2, 11, XLAT_OK, H);
    gf_expect(3, 17, XLAT_OK, H);
    ck_assert_uint_eq(gf_stats().iommu_retries, 6 + 6);
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
}
END_TEST

/* Destroy drops the GMMU's pending events by its unit id (deliveries, a
 * side's retry) and gives its reservation back. */
START_TEST(destroy_drops_its_events)
{
    for (int manual = 0; manual <= 1; manual++) {
        host_world(0, 1);
        host.manual = manual; /* holds the first request: the second polls */
        size_t reserved = gf.ctx->wheel.reserved;
        xlat_gmmu_config c;
        gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
        host_gmmu(&c);
        gf_send(1, REMOTE_VA(1));
        gf_send(2, REMOTE_VA(2));
        /* Answered inside the host's call: two deliveries; else one retry. */
        ck_assert_uint_eq(xlat_pending_events(gf.ctx), manual ? 1 : 2);
        xlat_gmmu_destroy(gf.g);
        gf.g = NULL;
        ck_assert_uint_eq(xlat_pending_events(gf.ctx), 0);
        ck_assert_uint_eq(gf.ctx->wheel.reserved, reserved);
        gf_run_until(10);
        ck_assert_int_eq(gf.ndone, 0);
        gf_teardown();
    }
}
END_TEST

/* ---- (d) a create that cannot allocate --------------------------------------- */

/* Fails the k-th allocation of xlat_gmmu_create, k = 1, 2, ... until it
 * succeeds: the GMMU, its name, its records, its wait queue and the
 * context's event pool growing for its budget. */
START_TEST(create_fails_cleanly)
{
    static const char *const why[] = {
        "xlat_gmmu_create: out of memory",
        "gmmu gpu0.gmmu: out of memory for its records and 1027 events",
        "gmmu gpu0.gmmu: out of memory for its records and 1027 events",
        "gmmu gpu0.gmmu: out of memory for its records and 1027 events",
        "gmmu gpu0.gmmu: out of memory for its records and 1027 events",
    };
    gf_d2_world();
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 1024; /* 1024 deliveries + 2 retries + 1 wake (+ 64 wake-ups) */
    long k = 1;
    for (;; k++) {
        size_t live = gf.ca.live_bytes, allocs = gf.ca.allocs, frees = gf.ca.frees;
        gf.ctx->errmsg[0] = '\0';
        gf.ca.fail_after = k - 1;
        xlat_gmmu *g = NULL;
        int rc = xlat_gmmu_create(gf.ctx, &c, &g);
        gf.ca.fail_after = -1;
        if (rc == XLAT_OK) {
            gf.g = g;
            break;
        }
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_ptr_null(g);
        ck_assert_int_le(k, 5);
        ck_assert_str_eq(xlat_ctx_errmsg(gf.ctx), why[k - 1]);
        ck_assert_uint_eq(gf.ca.allocs - allocs, (size_t)(k - 1));
        ck_assert_uint_eq(gf.ca.frees - frees, (size_t)(k - 1));
        ck_assert_uint_eq(gf.ca.live_bytes, live);
    }
    ck_assert_int_eq(k, 6);
    xlat_target t = TEST_TARGET(fixed, gf.iommu);
    ck_assert_int_eq(xlat_gmmu_set_iommu(gf.g, &t), XLAT_OK);
    gf_send(1, REMOTE_VA(0));
    gf_drain();
    gf_expect(1, 1200, XLAT_OK, "iommu");
}
END_TEST

static TCase *contract_inside_later(Suite *s)
{
    TCase *tc = gf_case(s, "host inside or later");
    tcase_add_test(tc, distributed_host_inside_or_later);
    tcase_add_test(tc, centralized_host_inside_or_later);
    tcase_add_test(tc, parallel_host_inside_or_later);
    tcase_add_test(tc, ideal_host_inside_or_later);
    tcase_add_test(tc, record_free_before_done);
    tcase_add_test(tc, refused_sender_is_woken);
    tcase_add_test(tc, wait_hook_wakes_at_the_free);
    return tc;
}

Suite *gmmu_contract_suite(void)
{
    Suite *s = suite_create("gmmu_contract");
    contract_inside_later(s);
    TCase *tc = gf_case(s, "no allocation, budget, create");
    tcase_add_test(tc, no_allocation_under_load);
    tcase_add_test(tc, events_within_budget);
    tcase_add_test(tc, wakes_at_most_once_a_cycle);
    tcase_add_test(tc, full_event_pool_loses_nothing);
    tcase_add_test(tc, destroy_drops_its_events);
    tcase_add_test(tc, create_fails_cleanly);
    return s;
}
