/* The TLB as a timed unit apart from its array: bounded state in flight,
 * the memory it costs, and when it answers. */
#include "testutil.h"

#define MAX_DONE 300

static struct {
    xlat_ctx *ctx;
    xlat_tlb *t;
    xlat_resp done[MAX_DONE];
    int n;
    int woken;
} h;

static void setup(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(3, NULL);
}

static void teardown(void)
{
    xlat_tlb_destroy(h.t);
    xlat_ctx_destroy(h.ctx);
}

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_lt(h.n, MAX_DONE);
    h.done[h.n++] = *r;
}

static xlat_tlb *timed(uint32_t entries, uint32_t latency, uint32_t ports)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.name = "t";
    cfg.entries = entries;
    cfg.ways = 4;
    cfg.latency = latency;
    cfg.ports = ports;
    ck_assert_msg(xlat_tlb_create(h.ctx, &cfg, &t) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
    ck_assert_int_eq(xlat_tlb_set_next(t, NULL), XLAT_OK);
    return t;
}

static void preload(xlat_tlb *t, uint64_t vpn)
{
    xlat_tlb_entry e = {.pasid = 1, .vpn = vpn, .pfn = 0x500 + vpn, .page_shift = 12,
                        .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
}

static int send(uint64_t id, uint64_t vaddr)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .access = XLAT_ACCESS_READ};
    return xlat_tlb_translate(h.t, &req, on_done, NULL);
}

static void retry_after_wait(void *user)
{
    (void)user;
    h.woken++;
    ck_assert_int_eq(send(999, 0x7000), XLAT_OK);
}

/* A TLB at latency 10^6 holds what its ports can keep in flight up to the
 * default bound, not a record per cycle of latency; it still answers every
 * hit exactly `latency` cycles after it was accepted. */
START_TEST(long_latency_memory_is_bounded)
{
    xlat_tlb *short_one = timed(64, 255, 1);
    h.t = timed(64, 1000000, 1);
    ck_assert_uint_eq(xlat_tlb_memory(h.t), xlat_tlb_memory(short_one));
    /* 160,005,530 before the bound; 56,068 before the MSHR keys took 8 more
     * bytes an MSHR (each MSHR now knows its index); 56,076 before the
     * TLB's node on the context's unit registry (56 bytes); 56,132 before
     * the unit's clock (8 bytes); 56,140 before its config's clock ratio
     * (8 bytes); 56,148 before the TLB's list of IOMMUs to tell when it goes
     * (24 bytes), the count of units holding it (8 with padding) and its
     * next level's struct_size and unit_id (16); 56,196 before the
     * skeleton's latency histogram (32 buckets, 256 bytes); 56,452 before
     * the queue of refused forwards (a link per MSHR, its head, tail and
     * flag: 56 bytes); 56,508 before each MSHR kept its timed unit's
     * address, so that a fill asks for the unit and the TLB at once (8
     * bytes an MSHR); 56,540 before the senders' wait queue became an
     * array of 16-byte waiters (64 of them, a port's) instead of a pool of
     * 32-byte objects behind a 64-byte chunk header, its struct 56 bytes
     * smaller: 1,144 bytes fewer */
    ck_assert_uint_eq(xlat_tlb_memory(h.t), 55396);
    xlat_tlb_destroy(short_one);
    preload(h.t, 7);
    for (uint64_t i = 0; i < XLAT_TLB_HITS_PER_PORT; i++) {
        ck_assert_int_eq(send(i, 0x7000 + i), XLAT_OK);
        xlat_tick(h.ctx);
    }
    /* Every hit slot is in flight: refused, and woken by the first answer. */
    ck_assert_int_eq(send(998, 0x7000), XLAT_ERR_AGAIN);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "every hit slot is in flight"));
    xlat_target tg = TEST_TARGET(tlb, h.t);
    ck_assert_int_eq(tg.wait(tg.unit, retry_after_wait, NULL), XLAT_OK);
    xlat_advance(h.ctx, 1000000 - xlat_now(h.ctx) - 1);
    ck_assert_int_eq(h.n, 0);
    ck_assert_int_eq(h.woken, 0);
    xlat_tick(h.ctx);
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].completed, 1000000);
    ck_assert_uint_eq(h.done[0].pfn, 0x507);
    ck_assert_int_eq(h.woken, 1);
    xlat_advance(h.ctx, 1000000);
    ck_assert_int_eq(h.n, XLAT_TLB_HITS_PER_PORT + 1);
    for (int i = 0; i < (int)XLAT_TLB_HITS_PER_PORT; i++) {
        ck_assert_uint_eq(h.done[i].id, (uint64_t)i);
        ck_assert_uint_eq(h.done[i].completed, 1000000 + (uint64_t)i);
    }
    ck_assert_uint_eq(h.done[XLAT_TLB_HITS_PER_PORT].id, 999);
    ck_assert_uint_eq(h.done[XLAT_TLB_HITS_PER_PORT].issued, 1000000);
    ck_assert_uint_eq(h.done[XLAT_TLB_HITS_PER_PORT].completed, 2000000);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(h.t, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
    ck_assert_uint_eq(st.hits, XLAT_TLB_HITS_PER_PORT + 1);
}
END_TEST

/* A configured bound: two hits in flight on a 4-port TLB. */
START_TEST(configured_hits_in_flight)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.latency = 3;
    cfg.ports = 4;
    cfg.hits_in_flight = 2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.t), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(h.t, NULL), XLAT_OK);
    preload(h.t, 1);
    ck_assert_int_eq(send(1, 0x1000), XLAT_OK);
    ck_assert_int_eq(send(2, 0x1000), XLAT_OK);
    ck_assert_int_eq(send(3, 0x1000), XLAT_ERR_AGAIN);
    ck_assert_int_eq(send(4, 0x2000), XLAT_OK); /* a miss takes no hit slot */
    xlat_advance(h.ctx, 3);
    ck_assert_int_eq(h.n, 3);
    ck_assert_int_eq(send(5, 0x1000), XLAT_OK);
    xlat_advance(h.ctx, 3);
    ck_assert_int_eq(h.n, 4);
    ck_assert_uint_eq(h.done[3].id, 5);
    ck_assert_uint_eq(h.done[3].completed, 6);
}
END_TEST

/* A TLB used as a structure carries no timed state: a 16-entry,
 * fully associative LRU TLB is its struct, its name, 16 ways of 32 bytes
 * and 16 LRU stamps of 8 bytes. */
START_TEST(functional_tlb_bytes)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "pwc";
    cfg.entries = 16;
    cfg.ways = 16;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.t), XLAT_OK);
    size_t bytes = xlat_tlb_memory(h.t);
    ck_assert_uint_eq(bytes, 1332);
    /* the struct: 64 bytes of it are its node on the unit registry, 24 the
     * list of IOMMUs to tell when it goes, 8 its config's clock ratio */
    ck_assert_uint_eq(bytes - 16 * 32 - 16 * 8 - sizeof("pwc"), 688);
    preload(h.t, 3);
    ck_assert_int_eq(xlat_tlb_lookup(h.t, 1, 0x3000, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_invalidate(h.t, 1, 0x3000), 1);
    ck_assert_uint_eq(xlat_tlb_memory(h.t), bytes);
    /* Not a timed unit until set_next or target: translate refuses. */
    ck_assert_int_eq(send(1, 0x3000), XLAT_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "not a timed unit"));
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.t), 0);
    xlat_target tg = TEST_TARGET(tlb, h.t);
    ck_assert_ptr_nonnull(tg.translate);
    ck_assert_uint_gt(xlat_tlb_memory(h.t), 1236);
    ck_assert_int_eq(send(1, 0x3000), XLAT_OK);
    xlat_advance(h.ctx, 1);
    ck_assert_int_eq(h.n, 1);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_NOT_FOUND);
}
END_TEST

/* Allocating the timed unit fails cleanly at every allocation it makes:
 * NOMEM, nothing leaked, the structure unchanged, and a later call works. */
START_TEST(timed_unit_out_of_memory)
{
    static counting_alloc ca; /* outlives the test: the teardown frees through it */
    counting_alloc_init(&ca);
    xlat_ctx_destroy(h.ctx);
    h.ctx = test_ctx(3, &ca);
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.t), XLAT_OK);
    preload(h.t, 2);
    test_grow_events(h.ctx, 4096); /* the context's, kept after a failed call */
    size_t base = ca.live_bytes, bytes = xlat_tlb_memory(h.t);
    long n = 0;
    for (;; n++) {
        ca.fail_after = n;
        int rc = xlat_tlb_set_next(h.t, NULL);
        ca.fail_after = -1;
        if (rc == XLAT_OK)
            break;
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "timed unit"));
        ck_assert_uint_eq(ca.live_bytes, base);
        ck_assert_uint_eq(xlat_tlb_memory(h.t), bytes);
        ck_assert_int_eq(send(1, 0x2000), XLAT_ERR_STATE);
        ck_assert_int_eq(xlat_tlb_probe(h.t, 1, 0x2000, NULL), XLAT_OK);
    }
    /* unit, hit ring, MSHRs, the skeleton's name, records and wait queue,
     * observer list */
    ck_assert_int_eq(n, 7);
    xlat_tlb_destroy(h.t);
    h.t = NULL;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.t), XLAT_OK);
    ca.fail_after = 0;
    xlat_target tg = XLAT_TARGET_INIT;
    ck_assert_int_eq(xlat_tlb_get_target(h.t, &tg), XLAT_ERR_NOMEM);
    ca.fail_after = -1;
    ck_assert_ptr_null(tg.translate);
    xlat_tlb *l1;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &l1), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l1, &tg), XLAT_ERR_INVAL);
    xlat_tlb_destroy(l1);
}
END_TEST

/* ---- completion rule: `done` never runs inside xlat_tlb_translate ---- */

static int inside_translate; /* depth of the host's calls into translate */
static int resend;           /* requests the done callback sends on */

static int host_send(uint64_t id, uint64_t vaddr);

static void strict_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_msg(!inside_translate, "done of request %llu ran inside translate",
                  (unsigned long long)r->id);
    on_done(NULL, r);
    if (resend > 0) { /* a new request from inside the callback is legal */
        resend--;
        ck_assert_int_eq(host_send(r->id + 100, r->vaddr), XLAT_OK);
    }
}

static int host_send(uint64_t id, uint64_t vaddr)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .access = XLAT_ACCESS_READ};
    inside_translate++;
    int rc = xlat_tlb_translate(h.t, &req, strict_done, NULL);
    inside_translate--;
    return rc;
}

/* A next level that answers inside its own translate call, as a host's
 * zero-latency cache might: frame = page + 0x900. */
static int immediate_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    (void)unit;
    xlat_resp r = {.id = req->id, .vaddr = req->vaddr, .pasid = req->pasid, .status = XLAT_OK,
                   .pfn = (req->vaddr >> 12) + 0x900, .page_shift = 12, .perm = XLAT_PERM_R};
    r.paddr = r.pfn << 12;
    done(user, &r);
    return XLAT_OK;
}

static void zero_latency_tlb(void)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "t";
    cfg.latency = 0;
    cfg.ports = 4;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.t), XLAT_OK);
    xlat_target next = {sizeof(next), immediate_translate, NULL, NULL, 0};
    ck_assert_int_eq(xlat_tlb_set_next(h.t, &next), XLAT_OK);
    inside_translate = 0;
    resend = 0;
}

START_TEST(latency_zero_hits_answer_outside_translate)
{
    zero_latency_tlb();
    preload(h.t, 4);
    xlat_advance(h.ctx, 10);
    resend = 2; /* two answers each send one more hit, from the callback */
    ck_assert_int_eq(host_send(1, 0x4000), XLAT_OK);
    ck_assert_int_eq(host_send(2, 0x4008), XLAT_OK);
    ck_assert_int_eq(h.n, 0);
    xlat_advance(h.ctx, 0); /* what is due now */
    ck_assert_int_eq(h.n, 4);
    const uint64_t ids[] = {1, 2, 101, 102};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(h.done[i].id, ids[i]);
        ck_assert_uint_eq(h.done[i].issued, 10);
        ck_assert_uint_eq(h.done[i].completed, 10);
        ck_assert_uint_eq(h.done[i].pfn, 0x504);
    }
}
END_TEST

START_TEST(immediate_next_level_answers_misses_outside_translate)
{
    zero_latency_tlb();
    xlat_advance(h.ctx, 5);
    resend = 1; /* the first answer sends a hit on the page it filled */
    ck_assert_int_eq(host_send(1, 0x6000), XLAT_OK);
    ck_assert_int_eq(host_send(2, 0x6010), XLAT_OK); /* joins the MSHR */
    ck_assert_int_eq(host_send(3, 0x8000), XLAT_OK);
    ck_assert_int_eq(h.n, 0);
    xlat_advance(h.ctx, 0);
    ck_assert_int_eq(h.n, 4);
    const uint64_t ids[] = {1, 2, 3, 101};
    const uint64_t pfn[] = {0x906, 0x906, 0x908, 0x906};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(h.done[i].id, ids[i]);
        ck_assert_uint_eq(h.done[i].completed, 5);
        ck_assert_uint_eq(h.done[i].pfn, pfn[i]);
    }
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[0]), "host");
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[3]), "t"); /* a hit on the filled entry */
    /* A hit whose entry is shot down before its answer goes on as a miss,
     * still answered outside translate. */
    xlat_tick(h.ctx); /* this cycle's four ports are used */
    ck_assert_int_eq(host_send(4, 0x6000), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_invalidate(h.t, 1, 0x6000), 1);
    xlat_advance(h.ctx, 0);
    ck_assert_int_eq(h.n, 5);
    ck_assert_uint_eq(h.done[4].id, 4);
    ck_assert_uint_eq(h.done[4].completed, 6);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[4]), "host");
}
END_TEST

static void host_event(void *user)
{
    (void)user;
    xlat_resp marker = {.id = 999};
    on_done(NULL, &marker);
}

/* Hits share one event per cycle, yet answers keep the order one event
 * per hit gave: a miss accepted between two hits is forwarded between
 * their answers, and a hit sent from a callback at latency 0 is answered
 * after every event already due, the host's included. */
START_TEST(same_cycle_order_as_one_event_per_hit)
{
    zero_latency_tlb();
    preload(h.t, 4);
    xlat_advance(h.ctx, 3);
    resend = 1; /* the first answer sends hit 101 */
    ck_assert_int_eq(host_send(1, 0x4000), XLAT_OK);
    ck_assert_int_eq(host_send(2, 0x9000), XLAT_OK); /* a miss, answered by the host at once */
    ck_assert_int_eq(host_send(3, 0x4000), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(h.ctx, 0, host_event, NULL), XLAT_OK);
    xlat_advance(h.ctx, 0);
    ck_assert_int_eq(h.n, 5);
    const uint64_t ids[] = {1, 2, 3, 999, 101};
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(h.done[i].id, ids[i]);
    ck_assert_uint_eq(h.done[4].completed, 3);
}
END_TEST

static void never_fires(void *user) { (void)user; }

/* Fills the context's event pool: the next schedule must allocate. */
static void fill_event_pool(counting_alloc *ca)
{
    size_t allocs = ca->allocs, before;
    do {
        before = xlat_pending_events(h.ctx);
        ck_assert_int_eq(xlat_schedule(h.ctx, 1000000000, never_fires, NULL), XLAT_OK);
    } while (ca->allocs == allocs);
    size_t capacity = 2 * before; /* the pool doubled when it held `before` */
    while (xlat_pending_events(h.ctx) < capacity)
        ck_assert_int_eq(xlat_schedule(h.ctx, 1000000000, never_fires, NULL), XLAT_OK);
}

size_t xlat__events_overruns(const xlat_ctx *ctx); /* internal: posts beyond a budget */

/* h.t as configured by `cfg`, over a responder "mem" of `latency`
 * cycles (returned; the test destroys it). */
static xlat_fixed *timed_over_memory(const xlat_tlb_config *cfg, uint32_t latency)
{
    ck_assert_int_eq(xlat_tlb_create(h.ctx, cfg, &h.t), XLAT_OK);
    xlat_fixed_config fc;
    xlat_fixed *mem;
    xlat_fixed_config_init(&fc);
    fc.name = "mem";
    fc.latency = latency;
    ck_assert_int_eq(xlat_fixed_create(h.ctx, &fc, &mem), XLAT_OK);
    xlat_target tm = TEST_TARGET(fixed, mem);
    ck_assert_int_eq(xlat_tlb_set_next(h.t, &tm), XLAT_OK);
    return mem;
}

/* Two hits lose their entry to an invalidation while the only MSHR is
 * busy: each retries every cycle until the MSHR frees, then goes on as a
 * miss. The context's event pool is full of the host's events and the
 * allocator fails everything: the retries come out of the TLB's budget,
 * nothing allocates, nothing is lost, and no post overruns a budget. */
START_TEST(stale_hit_retries_come_from_the_budget)
{
    static counting_alloc ca; /* outlives the test: the teardown frees through it */
    counting_alloc_init(&ca);
    xlat_ctx_destroy(h.ctx);
    h.ctx = test_ctx(3, &ca);
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "t";
    cfg.mshrs = 1;
    cfg.ports = 2;
    xlat_fixed *mem = timed_over_memory(&cfg, 100);
    preload(h.t, 0xA);
    ck_assert_int_eq(send(1, 0xB000), XLAT_OK); /* takes the MSHR until 101 */
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(2, 0xA000), XLAT_OK);
    ck_assert_int_eq(send(3, 0xA000), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_invalidate(h.t, 1, 0xA000), 1);
    fill_event_pool(&ca);
    size_t allocs = ca.allocs;
    ca.fail_after = 0;
    xlat_advance(h.ctx, 300);
    ca.fail_after = -1;
    ck_assert_uint_eq(ca.allocs, allocs);
    ck_assert_uint_eq(xlat__events_overruns(h.ctx), 0);
    ck_assert_int_eq(h.n, 3);
    ck_assert_uint_eq(h.done[0].id, 1);
    ck_assert_uint_eq(h.done[0].completed, 101);
    /* At 101 the fill frees the MSHR first; then request 2's retry opens it
     * again (forwarded at once) and request 3's joins it. */
    for (int i = 1; i < 3; i++) {
        ck_assert_uint_eq(h.done[i].id, (uint64_t)i + 1);
        ck_assert_int_eq(h.done[i].status, XLAT_OK);
        ck_assert_uint_eq(h.done[i].issued, 1);
        ck_assert_uint_eq(h.done[i].completed, 201);
        ck_assert_str_eq(test_resolver(h.ctx, &h.done[i]), "mem");
    }
    xlat_tlb_stats st;
    xlat_tlb_stats_get(h.t, &st, sizeof(st));
    ck_assert_uint_eq(st.mshr_merges, 1);
    xlat_tlb_destroy(h.t);
    h.t = NULL;
    xlat_fixed_destroy(mem);
}
END_TEST

static uint64_t tries[8];
static int n_tries;

/* Sends hit 3 (page 0xC) and, refused, waits through the wait hook. */
static void try_hit_3(void *user)
{
    (void)user;
    ck_assert_int_lt(n_tries, 8);
    tries[n_tries++] = xlat_now(h.ctx);
    if (send(3, 0xC000) == XLAT_ERR_AGAIN) {
        xlat_target tg = TEST_TARGET(tlb, h.t);
        ck_assert_int_eq(tg.wait(tg.unit, try_hit_3, NULL), XLAT_OK);
    }
}

/* A hit whose entry is invalidated before its answer, and that must wait
 * for an MSHR, is still a hit in flight: with one hit slot, the next hit
 * is refused until the stale one is answered (at 201, through the MSHR
 * that freed at 101), and the sender waiting for a slot is woken then. */
START_TEST(stale_hit_keeps_its_hit_slot)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "t";
    cfg.mshrs = 1;
    cfg.ports = 2;
    cfg.hits_in_flight = 1;
    xlat_fixed *mem = timed_over_memory(&cfg, 100);
    preload(h.t, 0xA);
    preload(h.t, 0xC);
    n_tries = 0;
    ck_assert_int_eq(send(1, 0xB000), XLAT_OK); /* the MSHR until 101 */
    ck_assert_int_eq(send(2, 0xA000), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_invalidate(h.t, 1, 0xA000), 1);
    xlat_tick(h.ctx); /* hit 2 is stale and waits for the MSHR */
    try_hit_3(NULL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "every hit slot is in flight"));
    xlat_advance(h.ctx, 300);
    ck_assert_int_eq(n_tries, 3); /* refused at 1; woken by the MSHR at 101, refused */
    ck_assert_uint_eq(tries[0], 1);
    ck_assert_uint_eq(tries[1], 101);
    ck_assert_uint_eq(tries[2], 201); /* woken by the stale hit's answer: accepted */
    ck_assert_int_eq(h.n, 3);
    const uint64_t ids[] = {1, 2, 3}, completed[] = {101, 201, 202};
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(h.done[i].id, ids[i]);
        ck_assert_uint_eq(h.done[i].completed, completed[i]);
    }
    ck_assert_uint_eq(h.done[2].issued, 201);
    xlat_tlb_destroy(h.t);
    h.t = NULL;
    xlat_fixed_destroy(mem);
}
END_TEST

static void retry_miss_3(void *user)
{
    (void)user;
    ck_assert_int_lt(n_tries, 8);
    tries[n_tries++] = xlat_now(h.ctx);
    ck_assert_int_eq(send(3, 0x5010), XLAT_OK);
}

/* An MSHR holds at most mshr_targets requests: a third miss on its page is
 * refused (it takes no second MSHR, nor a record), and a sender waiting
 * through the wait hook is woken when the MSHR completes, in the cycle of
 * the fill, where its request now hits. */
START_TEST(mshr_targets_bound_the_merges)
{
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "t";
    cfg.mshrs = 2;
    cfg.ports = 4;
    cfg.mshr_targets = 2;
    xlat_fixed *mem = timed_over_memory(&cfg, 10);
    size_t bytes = xlat_tlb_memory(h.t);
    n_tries = 0;
    ck_assert_int_eq(send(1, 0x5000), XLAT_OK);
    ck_assert_int_eq(send(2, 0x5008), XLAT_OK); /* merges: the MSHR holds 2 */
    ck_assert_int_eq(send(3, 0x5010), XLAT_ERR_AGAIN);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx),
                     "tlb t: the MSHR of its page holds mshr_targets requests");
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.t), 1); /* no second MSHR for the page */
    xlat_target tg = TEST_TARGET(tlb, h.t);
    ck_assert_int_eq(tg.wait(tg.unit, retry_miss_3, NULL), XLAT_OK);
    ck_assert_int_eq(send(4, 0x6000), XLAT_OK); /* another page takes the other MSHR */
    xlat_advance(h.ctx, 10);
    ck_assert_int_eq(n_tries, 0);
    xlat_tick(h.ctx); /* 11: both fills arrive */
    ck_assert_int_eq(n_tries, 1);
    ck_assert_uint_eq(tries[0], 11);
    xlat_advance(h.ctx, 5);
    ck_assert_int_eq(h.n, 4);
    const uint64_t ids[] = {1, 2, 4, 3}, completed[] = {11, 11, 11, 12};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(h.done[i].id, ids[i]);
        ck_assert_uint_eq(h.done[i].completed, completed[i]);
        ck_assert_int_eq(h.done[i].status, XLAT_OK);
    }
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[3]), "t"); /* a hit on the filled entry */
    xlat_tlb_stats st;
    xlat_tlb_stats_get(h.t, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
    ck_assert_uint_eq(st.mshr_merges, 1);
    ck_assert_uint_eq(st.misses, 3);
    ck_assert_uint_eq(xlat_tlb_memory(h.t), bytes); /* records are all there from the start */
    xlat_tlb_destroy(h.t);
    h.t = NULL;
    xlat_fixed_destroy(mem);
}
END_TEST

/* Leaves the context's event pool with exactly the units' reserve free:
 * the host schedules until the pool would have to grow (the allocator
 * fails from here on). A unit that posts beyond its budget then finds
 * the pool empty, which xlat__events_overruns() counts. */
static void fill_to_the_reserve(counting_alloc *ca)
{
    ca->fail_after = 0;
    while (xlat_schedule(h.ctx, 1000000000, never_fires, NULL) == XLAT_OK)
        continue;
}

static uint64_t answered, resent;

/* A next level without a wait hook: refuses every third cycle (the TLB
 * retries next cycle with its own event), else answers inside translate. */
static int flaky_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    (void)unit;
    if (xlat_now(h.ctx) % 3 == 0)
        return XLAT_ERR_AGAIN;
    return immediate_translate(NULL, req, done, user);
}

/* Counts, and sends one request in two on again from inside the callback
 * (a latency-0 TLB answers it in the same cycle, in a batch of its own). */
static void count_and_resend(void *user, const xlat_resp *r)
{
    (void)user;
    answered++;
    xlat_req req = {.id = r->id + 1, .vaddr = r->vaddr ^ 0x1000, .pasid = 1};
    if (r->id & 1 && xlat_tlb_translate(h.t, &req, count_and_resend, NULL) == XLAT_OK)
        resent++;
}

/* The event budget is an upper bound: with the pool holding exactly the
 * reserve, a TLB of latency 0 or 1 with two hit slots and two MSHRs of two
 * targets, under hits, merges, stale hits (an invalidation every cycle),
 * resends from callbacks, refusals of every kind and a next level that
 * refuses without a wait hook, never posts beyond it (no overrun) and
 * allocates nothing. */
START_TEST(event_budget_is_an_upper_bound)
{
    static counting_alloc ca; /* outlives the test: the teardown frees through it */
    counting_alloc_init(&ca);
    xlat_ctx_destroy(h.ctx);
    h.ctx = test_ctx(3, &ca);
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "t";
    cfg.entries = 8;
    cfg.latency = (uint32_t)_i;
    cfg.mshrs = 2;
    cfg.ports = 3;
    cfg.hits_in_flight = 2;
    cfg.mshr_targets = 2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.t), XLAT_OK);
    xlat_target next = {sizeof(next), flaky_translate, NULL, NULL, 0};
    ck_assert_int_eq(xlat_tlb_set_next(h.t, &next), XLAT_OK);
    fill_to_the_reserve(&ca);
    size_t allocs = ca.allocs;
    uint64_t state = 9, accepted = 0;
    answered = resent = 0;
    for (uint64_t cycle = 0; cycle < 20000; cycle++) {
        for (int k = 0; k < 4; k++) { /* one more than the ports */
            uint64_t r = test_rand(&state);
            xlat_req req = {.id = r & ~1ull, .vaddr = (r % 12) << 12, .pasid = 1};
            req.id |= k & 1;
            accepted += xlat_tlb_translate(h.t, &req, count_and_resend, NULL) == XLAT_OK;
        }
        xlat_tlb_invalidate(h.t, 1, (test_rand(&state) % 12) << 12);
        xlat_tick(h.ctx);
    }
    xlat_advance(h.ctx, 10);
    ca.fail_after = -1;
    ck_assert_uint_eq(xlat__events_overruns(h.ctx), 0);
    ck_assert_uint_eq(ca.allocs, allocs);
    ck_assert_uint_eq(answered, accepted + resent);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(h.t, &st, sizeof(st));
    ck_assert_uint_gt(st.hits, 1000); /* the load did reach every path */
    ck_assert_uint_gt(st.mshr_merges, 100);
    ck_assert_uint_gt(st.refusals, 1000);
    ck_assert_uint_gt(resent, 1000);
}
END_TEST

Suite *tlb_unit_suite(void)
{
    Suite *s = suite_create("tlb_unit");
    TCase *tc = test_case(s, "bounds");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, long_latency_memory_is_bounded);
    tcase_add_test(tc, configured_hits_in_flight);
    tcase_add_test(tc, stale_hit_keeps_its_hit_slot);
    tcase_add_test(tc, mshr_targets_bound_the_merges);
    tc = test_case(s, "structure");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, functional_tlb_bytes);
    tcase_add_test(tc, timed_unit_out_of_memory);
    tc = test_case(s, "completion");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, latency_zero_hits_answer_outside_translate);
    tcase_add_test(tc, immediate_next_level_answers_misses_outside_translate);
    tcase_add_test(tc, same_cycle_order_as_one_event_per_hit);
    tcase_add_test(tc, stale_hit_retries_come_from_the_budget);
    tcase_add_loop_test(tc, event_budget_is_an_upper_bound, 0, 2);
    return s;
}
