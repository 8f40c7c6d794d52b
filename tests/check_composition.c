/*
 * The composition contract (doc/composition.md), unit by unit: each timed
 * unit is driven by a host that answers its call-outs inside the callback
 * and by one that answers a cycle later. Outcomes must be identical and
 * cycles exact (the later host adds one cycle per call-out on a request's
 * path); `done` never runs while the sender is inside translate, and a
 * completion callback cannot advance the clock.
 */
#include "host.h"

static const uint64_t PAGE = 4096;

/* The answers of a run, by request id. */
typedef struct outcome {
    int status[16];
    uint64_t paddr[16];
    uint64_t completed[16];
    int answers[16];
} outcome;

static void keep(const host *h, outcome *o)
{
    for (int i = 0; i < 16; i++) {
        o->status[i] = h->status[i];
        o->paddr[i] = h->paddr[i];
        o->completed[i] = h->completed[i];
        o->answers[i] = h->answers[i];
    }
    ck_assert_int_eq(h->breaches, 0);
    ck_assert_uint_eq(xlat__events_overruns(h->ctx), 0);
}

/* Same outcomes; every request's cycle is shifted by exactly shift[id]. */
static void same_outcomes(const outcome *in, const outcome *later, const int *shift, int n)
{
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(in->answers[i], 1);
        ck_assert_int_eq(later->answers[i], 1);
        ck_assert_int_eq(in->status[i], later->status[i]);
        ck_assert_uint_eq(in->paddr[i], later->paddr[i]);
        ck_assert_uint_eq(later->completed[i], in->completed[i] + (uint64_t)shift[i]);
    }
}

/* A context, the host, and a page table mapping page 0x40000000 of PASID 1
 * to frame 0x500, for the units that walk. */
typedef struct world {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    host h;
} world;

static const uint32_t RWU = XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_U;

static void world_open(world *w, int later)
{
    w->ctx = test_ctx(1, NULL);
    test_table(w->ctx, &w->mem, &w->pt);
    ck_assert_int_eq(xlat_pagetable_map(w->pt, 1, 0x40000000, 0x500, 12, RWU), XLAT_OK);
    host_init(&w->h, w->ctx, later);
}

/* Records the outcome and tears the world down (its units destroyed first). */
static void world_close(world *w, outcome *o)
{
    keep(&w->h, o);
    xlat_pagetable_destroy(w->pt);
    xlat_physmem_destroy(w->mem);
    xlat_ctx_destroy(w->ctx);
}

/* ---- fixed responder: no call-outs; answers only from tick ---- */

static void run_fixed(uint32_t latency, outcome *o)
{
    world w;
    world_open(&w, 0);
    xlat_fixed_config c;
    xlat_fixed_config_init(&c);
    c.latency = latency;
    c.max_outstanding = 2;
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(w.ctx, &c, &f), XLAT_OK);
    xlat_target t = TEST_TARGET(fixed, f);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0 * PAGE, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 1, 5 * PAGE, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 6 * PAGE, 1), XLAT_ERR_AGAIN);
    ck_assert_int_eq(host_answered(&w.h), 0); /* nothing answered inside the calls */
    host_run(&w.h, 2, 100);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 6 * PAGE, 1), XLAT_OK);
    host_run(&w.h, 3, 100);
    xlat_fixed_destroy(f);
    world_close(&w, o);
}

START_TEST(fixed_answers_from_tick)
{
    outcome o;
    run_fixed(0, &o);
    /* latency 0: answered at cycle 0 by the first tick, never in the call */
    ck_assert_uint_eq(o.completed[0], 0);
    ck_assert_uint_eq(o.completed[1], 0);
    ck_assert_uint_eq(o.completed[2], 1); /* sent after the tick to cycle 1 */
    run_fixed(7, &o);
    ck_assert_uint_eq(o.completed[0], 7);
    ck_assert_uint_eq(o.completed[1], 7);
    ck_assert_uint_eq(o.completed[2], 14);
    ck_assert_uint_eq(o.paddr[1], 5 * PAGE);
}
END_TEST

/* ---- link: its far side is the host ---- */

static void run_link(int later, outcome *o)
{
    world w;
    world_open(&w, later);
    xlat_link_config c;
    xlat_link_config_init(&c);
    c.latency = 3;
    c.latency_back = 2;
    xlat_link *l;
    ck_assert_int_eq(xlat_link_create(w.ctx, &c, &l), XLAT_OK);
    xlat_target far = host_target(&w.h), t = TEST_TARGET(link, l);
    ck_assert_int_eq(xlat_link_set_next(l, &far), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 1 * PAGE, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 1, 2 * PAGE + 8, 1), XLAT_OK);
    xlat_tick(w.ctx);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 3 * PAGE, 1), XLAT_OK);
    host_run(&w.h, 3, 100);
    xlat_link_destroy(l);
    world_close(&w, o);
}

START_TEST(link_inside_and_later)
{
    outcome in, later;
    run_link(0, &in);
    run_link(1, &later);
    ck_assert_uint_eq(in.completed[0], 5); /* 3 there + 2 back */
    ck_assert_uint_eq(in.completed[1], 5);
    ck_assert_uint_eq(in.completed[2], 6);
    ck_assert_uint_eq(in.paddr[1], (0x102ull << 12) + 8);
    const int shift[] = {1, 1, 1};
    same_outcomes(&in, &later, shift, 3);
}
END_TEST

/* ---- timed TLB: its miss path is the host ---- */

static void run_tlb(int later, outcome *o)
{
    world w;
    world_open(&w, later);
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.entries = 8;
    c.ways = 8;
    c.latency = 2;
    c.mshrs = 2;
    c.ports = 4;
    xlat_tlb *tlb;
    ck_assert_int_eq(xlat_tlb_create(w.ctx, &c, &tlb), XLAT_OK);
    xlat_target next = host_target(&w.h), t = TEST_TARGET(tlb, tlb);
    ck_assert_int_eq(xlat_tlb_set_next(tlb, &next), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0 * PAGE, 1), XLAT_OK);     /* miss */
    ck_assert_int_eq(host_send(&w.h, &t, 1, 1 * PAGE, 1), XLAT_OK);     /* miss */
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0 * PAGE + 64, 1), XLAT_OK); /* joins 0 */
    ck_assert_int_eq(host_send(&w.h, &t, 3, 2 * PAGE, 1), XLAT_ERR_AGAIN); /* no MSHR */
    host_run(&w.h, 3, 100);
    uint64_t t0 = xlat_now(w.ctx);
    ck_assert_int_eq(host_send(&w.h, &t, 3, 0 * PAGE + 128, 1), XLAT_OK); /* hit */
    ck_assert_int_eq(host_send(&w.h, &t, 4, 2 * PAGE, 1), XLAT_OK);       /* miss */
    host_run(&w.h, 5, 100);
    ck_assert_uint_eq(w.h.completed[3], t0 + 2);
    xlat_tlb_destroy(tlb);
    world_close(&w, o);
}

START_TEST(tlb_inside_and_later)
{
    outcome in, later;
    run_tlb(0, &in);
    run_tlb(1, &later);
    /* A miss leaves after the 2-cycle lookup; a host answering inside the
     * forward fills and answers in that same cycle. */
    ck_assert_uint_eq(in.completed[0], 2);
    ck_assert_uint_eq(in.completed[1], 2);
    ck_assert_uint_eq(in.completed[2], 2);
    ck_assert_uint_eq(in.completed[4], in.completed[3]);
    ck_assert_uint_eq(in.paddr[2], (0x100ull << 12) + 64);
    const int shift[] = {1, 1, 1, 1, 2};
    /* request 3 is a hit sent one cycle later in the later run (its misses
     * took a cycle more); request 4 starts then too and waits for the host */
    same_outcomes(&in, &later, shift, 5);
}
END_TEST

/* ---- walker pool: the host is its memory and its fault handler ---- */

static void run_walker(int later, outcome *o, uint64_t *callouts)
{
    world w;
    world_open(&w, later);
    ck_assert_int_eq(xlat_pagetable_map(w.pt, 1, 0x40001000, 0x501, 12, RWU), XLAT_OK);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = w.pt;
    c.walkers = 2;
    host_walker_config(&w.h, &c);
    xlat_walker *pool;
    ck_assert_int_eq(xlat_walker_create(w.ctx, &c, &pool), XLAT_OK);
    w.h.walker = pool;
    xlat_target t = TEST_TARGET(walker, pool);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0x40000000, 1), XLAT_OK);  /* 4 reads */
    ck_assert_int_eq(host_send(&w.h, &t, 1, 0x40001010, 1), XLAT_OK);  /* 4 reads */
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0x40002000, 1), XLAT_OK);  /* faults, mapped */
    ck_assert_int_eq(host_send(&w.h, &t, 3, 0x40000000, 7), XLAT_OK);  /* no table */
    ck_assert_int_eq(host_answered(&w.h), 0);
    host_run(&w.h, 4, 1000);
    *callouts = w.h.callouts;
    xlat_walker_destroy(pool);
    world_close(&w, o);
}

START_TEST(walker_inside_and_later)
{
    outcome in, later;
    uint64_t calls_in, calls_later;
    run_walker(0, &in, &calls_in);
    run_walker(1, &later, &calls_later);
    ck_assert_uint_eq(calls_in, calls_later);
    ck_assert_int_eq(in.status[0], XLAT_OK);
    ck_assert_uint_eq(in.paddr[0], 0x500ull << 12);
    ck_assert_uint_eq(in.paddr[1], (0x501ull << 12) + 0x10);
    /* the host maps on each fault, in the order they come: request 3 (no
     * table at all) faults before request 2 has read its leaf */
    ck_assert_int_eq(in.status[2], XLAT_OK);
    ck_assert_uint_eq(in.paddr[2], 0x9001ull << 12);
    ck_assert_int_eq(in.status[3], XLAT_OK);
    ck_assert_uint_eq(in.paddr[3], 0x9000ull << 12);
    /* A host that answers inside costs no cycle: the walker adds none of
     * its own. One cycle a call-out: requests 0 and 1 read 4 lines; 2 and 3
     * wait for a walker until 4; 3 faults at once (answered at 5) and reads
     * 4 lines; 2 reads 3, faults at 8 (answered at 9) and re-reads its leaf. */
    static const uint64_t want_later[4] = {4, 4, 10, 9};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(in.completed[i], 0);
        ck_assert_uint_eq(later.completed[i], want_later[i]);
    }
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(in.status[i], later.status[i]);
}
END_TEST

/* ---- IOMMU: the host is its walkers' memory and its page-request handler ---- */

static void run_iommu(int later, xlat_incl incl, outcome *o)
{
    world w;
    world_open(&w, later);
    xlat_iommu_config c;
    xlat_iommu_config_init(&c);
    c.gpus = 2;
    c.buffer_entries = 2;
    c.tlb_entries = 16;
    c.tlb_ways = 4;
    c.tlb_latency = 10;
    c.inclusion = incl;
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = w.pt;
    wc.walkers = 1;
    host_memory_config(&w.h, &wc);
    c.walk = &wc;
    host_iommu_config(&w.h, &c);
    xlat_iommu *m;
    ck_assert_int_eq(xlat_iommu_create(w.ctx, &c, &m), XLAT_OK);
    w.h.walker = xlat_iommu_walker(m);
    xlat_target t = TEST_TARGET(iommu, m);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0x40000000, 1), XLAT_OK); /* walk */
    ck_assert_int_eq(host_send(&w.h, &t, 1, 0x40003000, 1), XLAT_OK); /* page request */
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0x40000000, 1), XLAT_ERR_AGAIN); /* buffer full */
    ck_assert_int_eq(host_answered(&w.h), 0);
    host_run(&w.h, 2, 10000);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0x40000008, 1), XLAT_OK); /* IOMMU TLB hit */
    ck_assert_int_eq(host_send(&w.h, &t, 3, 0x40000000, 9), XLAT_OK); /* no table: mapped */
    host_run(&w.h, 4, 10000);
    xlat_iommu_destroy(m);
    world_close(&w, o);
}

START_TEST(iommu_inside_and_later)
{
    static const xlat_incl policies[] = {XLAT_INCL_MOSTLY, XLAT_INCL_LEAST};
    for (size_t p = 0; p < 2; p++) {
        outcome in, later;
        run_iommu(0, policies[p], &in);
        run_iommu(1, policies[p], &later);
        ck_assert_int_eq(in.status[0], XLAT_OK);
        ck_assert_uint_eq(in.paddr[0], 0x500ull << 12);
        ck_assert_int_eq(in.status[1], XLAT_OK);
        ck_assert_uint_eq(in.paddr[1], 0x9000ull << 12);
        ck_assert_uint_eq(in.paddr[2], (0x500ull << 12) + 8);
        ck_assert_int_eq(in.status[3], XLAT_OK);
        ck_assert_uint_eq(in.paddr[3], 0x9001ull << 12);
        for (int i = 0; i < 4; i++)
            ck_assert_int_eq(in.status[i], later.status[i]);
        /* Inside: a 10-cycle lookup and walks that cost nothing; requests
         * 2 and 3 are sent at 10. Later, one cycle a call-out: request 0
         * reads 4 lines (14); request 1 waits for the one walker, reads 4,
         * faults at 18, is answered at 19 and re-reads its leaf (20). Under
         * mostly-inclusive request 2 hits the IOMMU TLB (30) and request 3
         * faults on a PASID with no table at 30 and walks (35);
         * least-inclusive fills no IOMMU TLB on a walk, so request 2 walks
         * (34) and request 3 waits for the walker behind it (39). */
        static const uint64_t want[2][4] = {{10, 10, 20, 20}, {10, 10, 20, 20}};
        static const uint64_t want_later[2][4] = {{14, 20, 30, 35}, {14, 20, 34, 39}};
        for (int i = 0; i < 4; i++) {
            ck_assert_uint_eq(later.completed[i], want_later[p][i]);
            ck_assert_uint_eq(in.completed[i], want[p][i]);
        }
    }
}
END_TEST

/* ---- a whole system: the host is the IOMMU's memory and page-request
 * handler, behind L1s, L2s, probing-ring stops and links ---- */

static int system_send(host *h, xlat_system *sys, uint64_t id, uint32_t gpu, uint64_t vaddr)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .gpu = (uint16_t)gpu};
    h->in_call = 1;
    int rc = xlat_system_translate(sys, &req, host_done, h);
    h->in_call = 0;
    return rc;
}

static void run_system(int later, xlat_incl incl, bool ring, outcome *o)
{
    world w;
    world_open(&w, later);
    xlat_system_config c;
    xlat_system_config_init(&c);
    c.gpus = 2;
    c.cus = 2;
    c.gpu_iommu_latency = 5;
    c.probe_ring = ring;
    c.probe_latency = 3;
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = w.pt;
    wc.walkers = 1;
    host_memory_config(&w.h, &wc);
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.inclusion = incl;
    ic.tlb_latency = 10;
    ic.remote_latency = 7;
    ic.walk = &wc;
    host_iommu_config(&w.h, &ic);
    c.iommu = &ic;
    xlat_system *sys;
    ck_assert_int_eq(xlat_system_create(w.ctx, &c, &sys), XLAT_OK);
    w.h.walker = xlat_iommu_walker(xlat_system_iommu(sys));
    ck_assert_int_eq(system_send(&w.h, sys, 0, 0, 0x40000000), XLAT_OK); /* walk */
    ck_assert_int_eq(system_send(&w.h, sys, 1, 1, 0x40002000), XLAT_OK); /* page request */
    ck_assert_int_eq(host_answered(&w.h), 0);
    host_run(&w.h, 2, 10000);
    ck_assert_int_eq(system_send(&w.h, sys, 2, 1, 0x40000010), XLAT_OK); /* in GPU 0's L2 */
    host_run(&w.h, 3, 10000);
    xlat_system_destroy(sys);
    world_close(&w, o);
}

START_TEST(system_inside_and_later)
{
    static const struct { xlat_incl incl; bool ring; } shapes[] = {
        {XLAT_INCL_MOSTLY, false}, {XLAT_INCL_LEAST, false}, {XLAT_INCL_MOSTLY, true}};
    /* Inside: L1 1 + L2 10 + link 5 + IOMMU lookup 10 + a walk that costs
     * nothing + link 5 = 31 (34 with the ring's 3-cycle probe first); the
     * page request is answered at once. Request 2 (sent when 0 and 1 are
     * answered) hits the IOMMU TLB under mostly-inclusive (+31), walks again
     * under least-TLB (its probe of GPU 0's L2 takes 7, the walk nothing),
     * and is a ring hit in GPU 0's L2 with the ring (+14). Later: each of
     * the 4 reads of a walk waits a cycle; request 1 waits for the walker
     * until 30, faults at 34, is answered at 35, re-reads its leaf (36):
     * +10; under least-TLB request 2 walks (4 reads) before the probe's 7. */
    static const uint64_t want[3][3] = {{31, 31, 62}, {31, 31, 62}, {34, 34, 48}};
    static const uint64_t want_later[3][3] = {{35, 41, 72}, {35, 41, 76}, {38, 44, 58}};
    for (size_t k = 0; k < 3; k++) {
        outcome in, later;
        run_system(0, shapes[k].incl, shapes[k].ring, &in);
        run_system(1, shapes[k].incl, shapes[k].ring, &later);
        ck_assert_uint_eq(in.paddr[0], 0x500ull << 12);
        ck_assert_uint_eq(in.paddr[1], 0x9000ull << 12);
        ck_assert_uint_eq(in.paddr[2], (0x500ull << 12) + 0x10);
        for (int i = 0; i < 3; i++) {
            ck_assert_int_eq(in.status[i], XLAT_OK);
            ck_assert_int_eq(later.status[i], XLAT_OK);
            ck_assert_uint_eq(in.completed[i], want[k][i]);
            ck_assert_uint_eq(later.completed[i], want_later[k][i]);
        }
    }
}
END_TEST

/* ---- GMMU (distributed): the host is its walker's memory and its IOMMU
 * path ---- */

static void run_gmmu(int later, outcome *o)
{
    world w;
    world_open(&w, later);
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w.pt;
    wc.walkers = 1;
    host_memory_config(&w.h, &wc);
    xlat_walker *pool;
    ck_assert_int_eq(xlat_walker_create(w.ctx, &wc, &pool), XLAT_OK);
    w.h.walker = pool;
    xlat_gmmu_config c;
    xlat_gmmu_config_init(&c);
    c.mode = XLAT_GMMU_DISTRIBUTED;
    c.walker = pool;
    xlat_gmmu *g;
    ck_assert_int_eq(xlat_gmmu_create(w.ctx, &c, &g), XLAT_OK);
    xlat_target iommu = host_target(&w.h), t = TEST_TARGET(gmmu, g);
    ck_assert_int_eq(xlat_gmmu_set_iommu(g, &iommu), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0x40000000, 1), XLAT_OK); /* local walk */
    ck_assert_int_eq(host_send(&w.h, &t, 1, 0x7000, 1), XLAT_OK);     /* local miss: IOMMU */
    ck_assert_int_eq(host_answered(&w.h), 0);
    host_run(&w.h, 2, 1000);
    xlat_gmmu_destroy(g);
    xlat_walker_destroy(pool);
    world_close(&w, o);
}

START_TEST(gmmu_inside_and_later)
{
    outcome in, later;
    run_gmmu(0, &in);
    run_gmmu(1, &later);
    ck_assert_uint_eq(in.paddr[0], 0x500ull << 12);
    ck_assert_uint_eq(in.paddr[1], 0x107ull << 12); /* the host's map */
    /* Inside, nothing costs a cycle. Later: 4 reads for request 0; request
     * 1 walks after it (the one walker), misses after 2 reads (0x7000 shares
     * the level-4 entry of 0x40000000, its level-3 entry is not present),
     * then asks the host path: 4 + 2 + 1. */
    ck_assert_uint_eq(in.completed[0], 0);
    ck_assert_uint_eq(in.completed[1], 0);
    ck_assert_uint_eq(later.completed[0], 4);
    ck_assert_uint_eq(later.completed[1], 7);
}
END_TEST

/* ---- every unit refuses a request whose access kind is not an
 * xlat_access (it used to be accepted and need no permission) ---- */

static void refuses_access(host *h, const xlat_target *t, const char *who)
{
    xlat_req req = {.id = 0, .vaddr = 0x40000000, .pasid = 1, .access = (xlat_access)9};
    ck_assert_int_eq(xlat_target_translate(t, &req, host_done, h), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h->ctx), who));
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h->ctx), "access kind 9"));
}

/* ---- F-Barre: its ATS path is the host ---- */

/* Chiplet 0 of two, no L2 attached and its filters empty: every miss goes
 * down the ATS path, the host, at once (filter probes cost no cycle). */
static void run_fbarre(int later, outcome *o)
{
    world w;
    world_open(&w, later);
    xlat_fbarre_config c;
    xlat_fbarre_config_init(&c);
    c.chiplets = 2;
    c.max_outstanding = 2;
    xlat_fbarre *fb;
    ck_assert_int_eq(xlat_fbarre_create(w.ctx, &c, &fb), XLAT_OK);
    xlat_target next = host_target(&w.h), t = TEST_TARGET(fbarre, fb);
    ck_assert_int_eq(xlat_fbarre_set_next(fb, &next), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0x40000000, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 1, 0x40000000 + 64, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0x40000000 + 128, 1), XLAT_ERR_AGAIN);
    ck_assert_int_eq(host_answered(&w.h), 0);
    host_run(&w.h, 2, 100);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0x40000000 + 128, 1), XLAT_OK);
    host_run(&w.h, 3, 100);
    ck_assert_int_eq(xlat_fbarre_destroy(fb), XLAT_OK);
    world_close(&w, o);
}

START_TEST(fbarre_inside_and_later)
{
    outcome in, later;
    run_fbarre(0, &in);
    run_fbarre(1, &later);
    ck_assert_uint_eq(in.completed[0], 0); /* the host answers in the same cycle */
    const int shift[] = {1, 1, 1};
    same_outcomes(&in, &later, shift, 3);
    ck_assert_int_eq(in.answers[2], 1);
}
END_TEST

START_TEST(unknown_access_refused)
{
    world w;
    world_open(&w, 0);
    xlat_target far = host_target(&w.h);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(w.ctx, &fc, &f), XLAT_OK);
    xlat_target t = TEST_TARGET(fixed, f);
    refuses_access(&w.h, &t, "xlat_fixed_translate");
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    xlat_link *l;
    ck_assert_int_eq(xlat_link_create(w.ctx, &lc, &l), XLAT_OK);
    ck_assert_int_eq(xlat_link_set_next(l, &far), XLAT_OK);
    t = TEST_TARGET(link, l);
    refuses_access(&w.h, &t, "xlat_link_translate");
    xlat_tlb_config tc;
    xlat_tlb_config_init(&tc);
    xlat_tlb *tlb;
    ck_assert_int_eq(xlat_tlb_create(w.ctx, &tc, &tlb), XLAT_OK);
    t = TEST_TARGET(tlb, tlb);
    refuses_access(&w.h, &t, "xlat_tlb_translate");
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w.pt;
    xlat_walker *pool;
    ck_assert_int_eq(xlat_walker_create(w.ctx, &wc, &pool), XLAT_OK);
    t = TEST_TARGET(walker, pool);
    refuses_access(&w.h, &t, "xlat_walker_translate");
    xlat_iommu_walker_config_init(&wc);
    wc.pt = w.pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_iommu *m;
    ck_assert_int_eq(xlat_iommu_create(w.ctx, &ic, &m), XLAT_OK);
    t = TEST_TARGET(iommu, m);
    refuses_access(&w.h, &t, "xlat_iommu_translate");
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.mode = XLAT_GMMU_CENTRALIZED;
    xlat_gmmu *g;
    ck_assert_int_eq(xlat_gmmu_create(w.ctx, &gc, &g), XLAT_OK);
    t = TEST_TARGET(gmmu, g);
    refuses_access(&w.h, &t, "xlat_gmmu_translate");
    xlat_fbarre_config bc;
    xlat_fbarre_config_init(&bc);
    xlat_fbarre *fb;
    ck_assert_int_eq(xlat_fbarre_create(w.ctx, &bc, &fb), XLAT_OK);
    ck_assert_int_eq(xlat_fbarre_set_next(fb, &far), XLAT_OK);
    t = TEST_TARGET(fbarre, fb);
    refuses_access(&w.h, &t, "xlat_fbarre");
    xlat_advance(w.ctx, 10);
    ck_assert_int_eq(host_answered(&w.h), 0);
    outcome o;
    xlat_fbarre_destroy(fb);
    xlat_gmmu_destroy(g);
    xlat_iommu_destroy(m);
    xlat_walker_destroy(pool);
    xlat_tlb_destroy(tlb);
    xlat_link_destroy(l);
    xlat_fixed_destroy(f);
    world_close(&w, &o);
}
END_TEST

/* A refusal's message is assembled once for a run of identical refusals;
 * it is still right after another failure came in between, and after the
 * unit that refused was destroyed and another took its place. */
START_TEST(refusal_message_stays_right)
{
    world w;
    world_open(&w, 0);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = "a";
    fc.max_outstanding = 1;
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(w.ctx, &fc, &f), XLAT_OK);
    xlat_target t = TEST_TARGET(fixed, f);
    ck_assert_int_eq(host_send(&w.h, &t, 0, 0, 1), XLAT_OK);
    const char *busy = "fixed a: max_outstanding requests in flight";
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(host_send(&w.h, &t, 1, 0, 1), XLAT_ERR_AGAIN);
        ck_assert_str_eq(xlat_ctx_errmsg(w.ctx), busy);
        ck_assert_int_eq(xlat_fixed_translate(f, NULL, host_done, &w.h), XLAT_ERR_INVAL);
        ck_assert_str_eq(xlat_ctx_errmsg(w.ctx), "xlat_fixed_translate: NULL req");
    }
    xlat_fixed_destroy(f);
    fc.name = "b";
    ck_assert_int_eq(xlat_fixed_create(w.ctx, &fc, &f), XLAT_OK);
    t = TEST_TARGET(fixed, f);
    ck_assert_int_eq(host_send(&w.h, &t, 2, 0, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&w.h, &t, 3, 0, 1), XLAT_ERR_AGAIN);
    ck_assert_str_eq(xlat_ctx_errmsg(w.ctx), "fixed b: max_outstanding requests in flight");
    host_run(&w.h, 1, 1000);
    xlat_fixed_destroy(f);
    outcome o;
    world_close(&w, &o);
}
END_TEST

Suite *composition_suite(void)
{
    Suite *s = suite_create("composition");
    TCase *tc = test_case(s, "units");
    tcase_add_test(tc, fixed_answers_from_tick);
    tcase_add_test(tc, link_inside_and_later);
    tcase_add_test(tc, tlb_inside_and_later);
    tcase_add_test(tc, walker_inside_and_later);
    tcase_add_test(tc, iommu_inside_and_later);
    tcase_add_test(tc, gmmu_inside_and_later);
    tcase_add_test(tc, system_inside_and_later);
    tcase_add_test(tc, fbarre_inside_and_later);
    tcase_add_test(tc, unknown_access_refused);
    tcase_add_test(tc, refusal_message_stays_right);
    return s;
}
