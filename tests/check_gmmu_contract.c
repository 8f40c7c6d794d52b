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
    r.resolver = "host.iommu";
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
    if (!host.later) {
        host_answer(s);
        return XLAT_OK;
    }
    host.events++;
    ck_assert_int_eq(xlat_schedule(gf.ctx, host.later, host_answer_event, s), XLAT_OK);
    return XLAT_OK;
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
    xlat_target t = {host_translate, &host, NULL};
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
        ck_assert_str_eq(r->resolver, want[i].resolver);
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

/* An L2 TLB above a GMMU of two records: the third and fourth misses are
 * refused, wait on the GMMU's wait hook, and are woken in the cycle the
 * first records free (a TLB polling every cycle would be refused three
 * times each). */
START_TEST(refused_sender_is_woken)
{
    host_world(3, 0);
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_LOCAL, 10000);
    c.max_outstanding = 2;
    host_gmmu(&c);
    xlat_target below = xlat_gmmu_target(gf.g);
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
    ck_assert_uint_eq(st.refusals, 2); /* once each: woken, not polling */
    ck_assert_uint_eq(xlat__events_overruns(gf.ctx), 0);
    xlat_tlb_destroy(l2);
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
    return tc;
}

Suite *gmmu_contract_suite(void)
{
    Suite *s = suite_create("gmmu_contract");
    contract_inside_later(s);
    return s;
}
