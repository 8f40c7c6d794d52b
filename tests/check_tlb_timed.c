/* The TLB as a timed unit: exact completion cycles through L1 -> L2 ->
 * responder, MSHR merging, refusals, faults, and the no-allocation proof. */
#include "testutil.h"
#include "shootdown_run.h"

#define MAX_DONE 64

static struct {
    xlat_ctx *ctx;
    xlat_tlb *l1, *l2;
    xlat_fixed *mem;
    xlat_resp done[MAX_DONE];
    int n;
} h;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_lt(h.n, MAX_DONE);
    h.done[h.n++] = *r;
}

static xlat_tlb *timed_tlb(const char *name, uint32_t entries, uint32_t ways, uint32_t latency,
                           uint32_t mshrs, uint32_t ports)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.name = name;
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.latency = latency;
    cfg.mshrs = mshrs;
    cfg.ports = ports;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &t), XLAT_OK);
    return t;
}

static xlat_fixed *responder(uint32_t latency, uint32_t max_outstanding, uint8_t perm)
{
    xlat_fixed_config fc;
    xlat_fixed *f = NULL;
    xlat_fixed_config_init(&fc);
    fc.name = "mem";
    fc.latency = latency;
    fc.max_outstanding = max_outstanding;
    fc.perm = perm;
    fc.pfn_offset = 0x100000;
    ck_assert_int_eq(xlat_fixed_create(h.ctx, &fc, &f), XLAT_OK);
    return f;
}

/* L1 (latency 1) over L2 (latency 10) over a 100-cycle responder. */
static void build(uint32_t l1_mshrs, uint32_t ports, uint32_t mem_max, uint8_t perm)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(9, NULL);
    h.l1 = timed_tlb("l1", 16, 16, 1, l1_mshrs, ports);
    h.l2 = timed_tlb("l2", 512, 16, 10, 16, 4);
    h.mem = responder(100, mem_max, perm);
    xlat_target t2 = TEST_TARGET(tlb, h.l2), tm = TEST_TARGET(fixed, h.mem);
    ck_assert_int_eq(xlat_tlb_set_next(h.l1, &t2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(h.l2, &tm), XLAT_OK);
}

static void setup(void) { build(4, 1, 0, XLAT_PERM_R | XLAT_PERM_W); }

static void teardown(void)
{
    xlat_tlb_destroy(h.l1);
    xlat_tlb_destroy(h.l2);
    xlat_fixed_destroy(h.mem);
    xlat_ctx_destroy(h.ctx);
}

static int send(uint64_t id, uint64_t vaddr, xlat_access access)
{
    xlat_req req = {.id = id, .vaddr = vaddr, .pasid = 1, .access = access};
    return xlat_tlb_translate(h.l1, &req, on_done, NULL);
}

static void run_until(uint64_t cycle) { xlat_advance(h.ctx, cycle - xlat_now(h.ctx)); }

START_TEST(two_level_exact_cycles)
{
    ck_assert_int_eq(send(1, 0x5123, XLAT_ACCESS_READ), XLAT_OK);
    run_until(110);
    ck_assert_int_eq(h.n, 0);
    run_until(111);
    /* L1 miss forwarded at 1, L2 miss forwarded at 11, answer at 111. */
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].id, 1);
    ck_assert_uint_eq(h.done[0].issued, 0);
    ck_assert_uint_eq(h.done[0].completed, 111);
    ck_assert_int_eq(h.done[0].status, XLAT_OK);
    ck_assert_uint_eq(h.done[0].pfn, 0x100005);
    ck_assert_uint_eq(h.done[0].paddr, (0x100005ull << 12) | 0x123);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[0]), "mem");
    /* Both levels were filled in that cycle. */
    ck_assert_uint_eq(xlat_tlb_count(h.l1), 1);
    ck_assert_uint_eq(xlat_tlb_count(h.l2), 1);

    run_until(200);
    ck_assert_int_eq(send(2, 0x5FF0, XLAT_ACCESS_READ), XLAT_OK); /* L1 hit */
    run_until(201);
    ck_assert_int_eq(h.n, 2);
    ck_assert_uint_eq(h.done[1].completed, 201);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[1]), "l1");

    xlat_tlb_invalidate(h.l1, 1, 0x5000);
    run_until(300);
    ck_assert_int_eq(send(3, 0x5008, XLAT_ACCESS_WRITE), XLAT_OK); /* L1 miss, L2 hit */
    run_until(311);
    ck_assert_int_eq(h.n, 3);
    ck_assert_uint_eq(h.done[2].issued, 300);
    ck_assert_uint_eq(h.done[2].completed, 311);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[2]), "l2");

    xlat_tlb_stats s1, s2;
    xlat_tlb_stats_get(h.l1, &s1, sizeof(s1));
    xlat_tlb_stats_get(h.l2, &s2, sizeof(s2));
    ck_assert_uint_eq(s1.accesses, 3);
    ck_assert_uint_eq(s1.hits, 1);
    ck_assert_uint_eq(s1.misses, 2);
    ck_assert_uint_eq(s2.accesses, 2);
    ck_assert_uint_eq(s2.hits, 1);
    ck_assert_uint_eq(s2.misses, 1);
}
END_TEST

/* An answer names its resolver by unit id: the registry's id (the one
 * xlat_unit_id gives, not the TLB's timed part's), named while the unit
 * lives and unknown once it is destroyed, even after a new unit takes the
 * same name: nothing in the answer dangles. */
START_TEST(resolver_is_a_unit_id)
{
    ck_assert_int_eq(send(1, 0x5123, XLAT_ACCESS_READ), XLAT_OK); /* from the responder */
    run_until(200);
    ck_assert_int_eq(send(2, 0x5FF0, XLAT_ACCESS_READ), XLAT_OK); /* an L1 hit */
    run_until(300);
    ck_assert_int_eq(h.n, 2);
    uint32_t mem = h.done[0].resolver, l1 = h.done[1].resolver;
    ck_assert_uint_eq(mem, xlat_unit_id(h.ctx, h.mem));
    ck_assert_uint_eq(l1, xlat_unit_id(h.ctx, h.l1));
    ck_assert_str_eq(xlat_unit_name(h.ctx, mem), "mem");
    ck_assert_str_eq(xlat_unit_kind(h.ctx, mem), "fixed");
    ck_assert_str_eq(xlat_unit_name(h.ctx, l1), "l1");
    ck_assert_str_eq(xlat_unit_kind(h.ctx, l1), "tlb");

    xlat_tlb_destroy(h.l1);
    h.l1 = NULL;
    ck_assert_ptr_null(xlat_unit_name(h.ctx, l1));
    ck_assert_ptr_null(xlat_unit_kind(h.ctx, l1));
    ck_assert_str_eq(xlat_unit_name(h.ctx, mem), "mem"); /* the others still named */
    h.l1 = timed_tlb("l1", 16, 16, 1, 4, 1);              /* a new unit, a new id */
    ck_assert_uint_ne(xlat_unit_id(h.ctx, h.l1), l1);
    ck_assert_ptr_null(xlat_unit_name(h.ctx, l1));

    xlat_tlb_destroy(h.l2); /* nothing sends to the responder any more */
    h.l2 = NULL;
    xlat_fixed_destroy(h.mem);
    h.mem = NULL;
    ck_assert_ptr_null(xlat_unit_name(h.ctx, mem));
}
END_TEST

START_TEST(mshr_merge_answers_in_same_cycle)
{
    ck_assert_int_eq(send(1, 0x7000, XLAT_ACCESS_READ), XLAT_OK);
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(2, 0x7040, XLAT_ACCESS_READ), XLAT_OK);
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(3, 0x7080, XLAT_ACCESS_READ), XLAT_OK);
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.l1), 1);
    run_until(200);
    ck_assert_int_eq(h.n, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(h.done[i].id, (uint64_t)i + 1);
        ck_assert_uint_eq(h.done[i].completed, 111);
        ck_assert_uint_eq(h.done[i].issued, (uint64_t)i);
    }
    xlat_tlb_stats s1;
    xlat_tlb_stats_get(h.l1, &s1, sizeof(s1));
    ck_assert_uint_eq(s1.mshr_merges, 2);
    ck_assert_uint_eq(s1.misses, 3);
    xlat_fixed_stats fs;
    xlat_fixed_stats_get(h.mem, &fs, sizeof(fs));
    ck_assert_uint_eq(fs.requests, 1);
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.l1), 0);
}
END_TEST

/* A refusal's message is joined only when asked, from parts that include
 * the unit's name: a unit destroyed after refusing leaves the message whole,
 * and a later error replaces it. */
START_TEST(refusal_message_outlives_the_unit)
{
    xlat_tlb *t = timed_tlb("short-lived", 16, 16, 1, 1, 1);
    ck_assert_int_eq(xlat_tlb_set_next(t, NULL), XLAT_OK);
    xlat_req r1 = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    xlat_req r2 = {.id = 2, .vaddr = 0x2000, .pasid = 1};
    ck_assert_int_eq(xlat_tlb_translate(t, &r1, on_done, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_translate(t, &r2, on_done, NULL), XLAT_ERR_AGAIN);
    run_until(xlat_now(h.ctx) + 10); /* the miss is answered: there is no next level */
    ck_assert_int_eq(xlat_tlb_destroy(t), XLAT_OK);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "tlb short-lived: every port is used this cycle");
    ck_assert_int_eq(xlat_tlb_translate(h.l1, NULL, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "xlat_tlb_translate: NULL req");
}
END_TEST

START_TEST(refusals_take_nothing)
{
    teardown();
    build(2, 1, 0, XLAT_PERM_R | XLAT_PERM_W);
    ck_assert_int_eq(send(1, 0x1000, XLAT_ACCESS_READ), XLAT_OK);
    ck_assert_int_eq(send(2, 0x2000, XLAT_ACCESS_READ), XLAT_ERR_AGAIN); /* one port */
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "every port is used"));
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(2, 0x2000, XLAT_ACCESS_READ), XLAT_OK);
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(3, 0x3000, XLAT_ACCESS_READ), XLAT_ERR_AGAIN); /* two MSHRs */
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "every MSHR is busy"));
    ck_assert_int_eq(send(4, 0x2010, XLAT_ACCESS_READ), XLAT_OK); /* merges */
    run_until(500);
    ck_assert_int_eq(h.n, 3);
    xlat_tlb_stats s1;
    xlat_tlb_stats_get(h.l1, &s1, sizeof(s1));
    ck_assert_uint_eq(s1.refusals, 2);
    ck_assert_uint_eq(s1.accesses, 3);
    ck_assert_uint_eq(s1.misses, 3);
}
END_TEST

START_TEST(downstream_refusal_is_retried)
{
    teardown();
    build(4, 1, 1, XLAT_PERM_R | XLAT_PERM_W);
    xlat_tlb_config cfg; /* L1 straight over the responder, which holds one request */
    (void)cfg;
    xlat_target tm = TEST_TARGET(fixed, h.mem);
    xlat_tlb_set_next(h.l1, &tm);
    ck_assert_int_eq(send(1, 0x1000, XLAT_ACCESS_READ), XLAT_OK);
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(2, 0x2000, XLAT_ACCESS_READ), XLAT_OK);
    run_until(400);
    ck_assert_int_eq(h.n, 2);
    /* First: forwarded at 1, answered at 101. Second: forwarded at 2 and
     * refused until the first answer frees the responder at 101. */
    ck_assert_uint_eq(h.done[0].completed, 101);
    ck_assert_uint_eq(h.done[1].completed, 201);
    xlat_fixed_stats fs;
    xlat_fixed_stats_get(h.mem, &fs, sizeof(fs));
    ck_assert_uint_eq(fs.requests, 2);
    ck_assert_uint_eq(fs.refusals, 1); /* refused once, then woken when room freed */
}
END_TEST

START_TEST(permission_fault)
{
    teardown();
    build(4, 1, 0, XLAT_PERM_R);
    ck_assert_int_eq(send(1, 0x1000, XLAT_ACCESS_WRITE), XLAT_OK);
    ck_assert_int_eq(send(2, 0x1000, XLAT_ACCESS_READ), XLAT_ERR_AGAIN);
    xlat_tick(h.ctx);
    ck_assert_int_eq(send(2, 0x1000, XLAT_ACCESS_READ), XLAT_OK);
    run_until(200);
    ck_assert_int_eq(h.n, 2);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_PERM); /* the fill still happens */
    ck_assert_int_eq(h.done[1].status, XLAT_OK);
    ck_assert_int_eq(send(3, 0x1000, XLAT_ACCESS_ATOMIC), XLAT_OK);
    run_until(201);
    ck_assert_int_eq(h.done[2].status, XLAT_ERR_PERM);
    ck_assert_uint_eq(h.done[2].completed, 201);
    xlat_tlb_stats s1;
    xlat_tlb_stats_get(h.l1, &s1, sizeof(s1));
    ck_assert_uint_eq(s1.faults, 2);
}
END_TEST

static int fault_odd_pages(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    (void)user;
    (void)pasid;
    if ((vaddr >> 12) & 1)
        return XLAT_ERR_FAULT;
    out->pfn = 0x42;
    return XLAT_OK;
}

START_TEST(translation_fault_is_not_filled)
{
    xlat_fixed_destroy(h.mem);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 5;
    fc.resolve = fault_odd_pages;
    ck_assert_int_eq(xlat_fixed_create(h.ctx, &fc, &h.mem), XLAT_OK);
    xlat_target tm = TEST_TARGET(fixed, h.mem);
    xlat_tlb_set_next(h.l2, &tm);
    send(1, 0x1000, XLAT_ACCESS_READ);
    xlat_tick(h.ctx);
    send(2, 0x2000, XLAT_ACCESS_READ);
    run_until(100);
    ck_assert_int_eq(h.n, 2);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_FAULT);
    ck_assert_uint_eq(h.done[0].completed, 16);
    ck_assert_int_eq(h.done[1].status, XLAT_OK);
    ck_assert_uint_eq(h.done[1].pfn, 0x42);
    ck_assert_int_eq(xlat_tlb_probe(h.l1, 1, 0x1000, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_probe(h.l2, 1, 0x1000, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_probe(h.l1, 1, 0x2000, NULL), XLAT_OK);
}
END_TEST

START_TEST(no_next_target_answers_not_found)
{
    xlat_tlb_set_next(h.l1, NULL);
    send(1, 0x1000, XLAT_ACCESS_READ);
    run_until(1);
    ck_assert_int_eq(h.n, 1);
    ck_assert_int_eq(h.done[0].status, XLAT_ERR_NOT_FOUND);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[0]), "l1");
    xlat_target bad = XLAT_TARGET_INIT; /* no translate */
    ck_assert_int_eq(xlat_tlb_set_next(h.l1, &bad), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_set_next(NULL, NULL), XLAT_ERR_INVAL);
    xlat_req req = {0};
    ck_assert_int_eq(xlat_tlb_translate(NULL, &req, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_translate(h.l1, NULL, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_translate(h.l1, &req, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fixed_translate(NULL, &req, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(NULL), 0);
}
END_TEST

START_TEST(invalidation_reaches_requests_in_flight)
{
    send(1, 0x4000, XLAT_ACCESS_READ);
    run_until(200); /* both levels hold page 4 now */
    ck_assert_int_eq(send(2, 0x4000, XLAT_ACCESS_READ), XLAT_OK); /* an L1 hit ... */
    ck_assert_int_eq(xlat_tlb_invalidate(h.l1, 1, 0x4000), 1); /* ... shot down */
    run_until(300);
    ck_assert_int_eq(h.n, 2);
    /* Not answered from the removed entry at 201: forwarded then, L2 hit at 211. */
    ck_assert_uint_eq(h.done[1].completed, 211);
    ck_assert_str_eq(test_resolver(h.ctx, &h.done[1]), "l2");

    ck_assert_int_eq(send(3, 0x9000, XLAT_ACCESS_READ), XLAT_OK); /* a miss ... */
    xlat_tick(h.ctx);
    ck_assert_int_eq(xlat_tlb_invalidate_pasid(h.l1, 1), 1); /* ... shot down mid-flight */
    run_until(500);
    ck_assert_int_eq(h.n, 3);
    ck_assert_int_eq(h.done[2].status, XLAT_OK); /* answered, */
    ck_assert_int_eq(xlat_tlb_probe(h.l1, 1, 0x9000, NULL), XLAT_ERR_NOT_FOUND); /* not filled */
    ck_assert_int_eq(xlat_tlb_probe(h.l2, 1, 0x9000, NULL), XLAT_OK);

    send(4, 0xA000, XLAT_ACCESS_READ);
    xlat_tick(h.ctx);
    ck_assert_int_eq(xlat_tlb_flush(h.l1), 0); /* A's miss is in flight: nothing held yet */
    run_until(800);
    ck_assert_int_eq(h.n, 4);
    ck_assert_uint_eq(xlat_tlb_count(h.l1), 0);
}
END_TEST

static void count_evict(void *user, xlat_tlb *t, const xlat_tlb_entry *v)
{
    (void)t;
    (void)v;
    (*(int *)user)++;
}

START_TEST(timed_fills_report_evictions)
{
    int evicted = 0;
    xlat_tlb_set_evict_fn(h.l1, count_evict, &evicted);
    for (uint64_t i = 0; i < 20; i++) {
        ck_assert_int_eq(send(i, i << 12, XLAT_ACCESS_READ), XLAT_OK);
        run_until(xlat_now(h.ctx) + 200);
    }
    ck_assert_int_eq(h.n, 20);
    ck_assert_int_eq(evicted, 4); /* 16 entries, 20 pages */
    ck_assert_uint_eq(xlat_tlb_count(h.l1), 16);
}
END_TEST

START_TEST(destroy_with_requests_in_flight)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    teardown();
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(1, &ca);
    h.l1 = timed_tlb("l1", 16, 16, 1, 4, 1);
    h.mem = responder(50, 0, XLAT_PERM_R);
    xlat_target tm = TEST_TARGET(fixed, h.mem);
    xlat_tlb_set_next(h.l1, &tm);
    send(1, 0x1000, XLAT_ACCESS_READ);
    xlat_advance(h.ctx, 3);
    xlat_tlb_destroy(h.l1);
    xlat_fixed_destroy(h.mem);
    ck_assert_uint_eq(xlat_pending_events(h.ctx), 0);
    xlat_advance(h.ctx, 100);
    ck_assert_int_eq(h.n, 0);
    xlat_ctx_destroy(h.ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
    memset(&h, 0, sizeof(h));
}
END_TEST

/* Random traffic: every accepted request completes exactly once, with the
 * identity translation of its own address and PASID. */
static uint64_t completions[4096];
static uint64_t bad_answers;

static void on_random_done(void *user, const xlat_resp *r)
{
    (void)user;
    completions[r->id]++;
    if (r->status != XLAT_OK || r->pfn != (r->vaddr >> 12) + 0x100000 || r->pasid != r->id % 3)
        bad_answers++;
}

START_TEST(every_accepted_request_completes_once)
{
    memset(completions, 0, sizeof(completions));
    bad_answers = 0;
    uint64_t state = 77, accepted = 0;
    for (uint64_t id = 0; id < 4096; xlat_tick(h.ctx)) {
        for (int k = 0; k < 3 && id < 4096; k++) {
            uint64_t r = (state += 0x9E3779B97F4A7C15ull) >> 20;
            xlat_req req = {.id = id, .vaddr = (r % 64) << 12 | (r & 0xfff),
                            .pasid = (uint32_t)(id % 3)};
            int rc = xlat_tlb_translate(h.l1, &req, on_random_done, NULL);
            ck_assert(rc == XLAT_OK || rc == XLAT_ERR_AGAIN);
            if (rc == XLAT_OK) {
                accepted++;
                id++;
            }
        }
    }
    run_until(xlat_now(h.ctx) + 1000);
    ck_assert_uint_eq(accepted, 4096);
    for (int i = 0; i < 4096; i++)
        ck_assert_uint_eq(completions[i], 1);
    ck_assert_uint_eq(bad_answers, 0);
}
END_TEST

static uint64_t steady_done;
static void count_done(void *user, const xlat_resp *r)
{
    (void)user;
    (void)r;
    steady_done++;
}

START_TEST(steady_state_does_not_allocate)
{
    static counting_alloc ca; /* outlives the test: the fixture's teardown frees through it */
    counting_alloc_init(&ca);
    teardown();
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(4, &ca);
    h.l1 = timed_tlb("l1", 32, 32, 1, 8, 2);
    h.l2 = timed_tlb("l2", 512, 16, 10, 16, 4);
    h.mem = responder(100, 0, XLAT_PERM_R | XLAT_PERM_W);
    xlat_target t2 = TEST_TARGET(tlb, h.l2), tm = TEST_TARGET(fixed, h.mem);
    xlat_tlb_set_next(h.l1, &t2);
    xlat_tlb_set_next(h.l2, &tm);
    uint64_t state = 5, ops = 0;
    size_t allocs_after_warmup = 0;
    steady_done = 0;
    for (int phase = 0; phase < 2; phase++) {
        uint64_t goal = phase == 0 ? 100000 : 1000000;
        for (uint64_t n = 0; n < goal; n++) {
            uint64_t r = (state += 0x9E3779B97F4A7C15ull) >> 24;
            xlat_req req = {.id = n, .vaddr = (r % 1024) << 12, .pasid = 1};
            if (xlat_tlb_translate(h.l1, &req, count_done, NULL) == XLAT_OK)
                ops++;
            xlat_tlb_lookup(h.l2, 1, req.vaddr, NULL);
            xlat_tick(h.ctx);
        }
        if (phase == 0)
            allocs_after_warmup = ca.allocs;
    }
    /* A million lookups, translations and ticks after the warm-up: none allocates. */
    ck_assert_uint_eq(ca.allocs, allocs_after_warmup);
    ck_assert_uint_gt(ops, 100000);
    xlat_advance(h.ctx, 1000);
    ck_assert_uint_eq(steady_done, ops);
}
END_TEST

size_t xlat__events_overruns(const xlat_ctx *ctx); /* internal: posts beyond a budget */

/* A TLB with small bounds everywhere, so that every refusal happens. */
static xlat_tlb *small_tlb(const char *name, uint32_t latency, uint32_t mshrs, uint32_t ports,
                           uint32_t hits, uint32_t targets)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.name = name;
    cfg.entries = 16;
    cfg.ways = 4;
    cfg.latency = latency;
    cfg.mshrs = mshrs;
    cfg.ports = ports;
    cfg.hits_in_flight = hits;
    cfg.mshr_targets = targets;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &t), XLAT_OK);
    return t;
}

/* Two L1s over an L2 over a bounded responder, under load from the first
 * cycle after creation: hits, merges, refusals of every kind (ports, hit
 * slots, MSHRs, full MSHRs, the responder's bound, which the L2 waits out
 * through its wait hook, as the L1s do the L2's), and invalidations and
 * flushes with requests in flight. Nothing allocates once the units are
 * created, no post exceeds a unit's budget, and every accepted request is
 * answered. */
START_TEST(hierarchy_allocates_nothing_after_create)
{
    static counting_alloc ca; /* outlives the test: the fixture's teardown frees through it */
    counting_alloc_init(&ca);
    teardown();
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(6, &ca);
    xlat_tlb *l1b;
    h.l1 = small_tlb("l1a", 1, 2, 2, 2, 2);
    l1b = small_tlb("l1b", 2, 3, 2, 0, 3);
    h.l2 = small_tlb("l2", 5, 3, 1, 4, 2);
    h.mem = responder(20, 2, XLAT_PERM_R | XLAT_PERM_W);
    xlat_target t2 = TEST_TARGET(tlb, h.l2), tm = TEST_TARGET(fixed, h.mem);
    ck_assert_int_eq(xlat_tlb_set_next(h.l1, &t2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l1b, &t2), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(h.l2, &tm), XLAT_OK);
    xlat_tlb *l1[2] = {h.l1, l1b};
    size_t allocs = ca.allocs;
    uint64_t state = 11, accepted = 0;
    steady_done = 0;
    for (uint64_t cycle = 0; cycle < 50000; cycle++) {
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 3; k++) { /* one more than the ports */
                uint64_t r = test_rand(&state);
                xlat_req req = {.id = accepted, .vaddr = (r % 40) << 12, .pasid = 1};
                accepted += xlat_tlb_translate(l1[i], &req, count_done, NULL) == XLAT_OK;
            }
        uint64_t r = test_rand(&state);
        if (r % 5 == 0) /* a shootdown of one page, everywhere */
            for (int i = 0; i < 3; i++)
                xlat_tlb_invalidate(i < 2 ? l1[i] : h.l2, 1, ((r >> 8) % 40) << 12);
        if (r % 211 == 0)
            xlat_tlb_flush(l1[(r >> 8) & 1]);
        if (r % 401 == 0)
            xlat_tlb_invalidate_pasid(h.l2, 1);
        xlat_tick(h.ctx);
    }
    xlat_advance(h.ctx, 1000);
    ck_assert_uint_eq(ca.allocs, allocs);
    ck_assert_uint_eq(xlat__events_overruns(h.ctx), 0);
    ck_assert_uint_eq(steady_done, accepted);
    ck_assert_uint_eq(xlat_pending_events(h.ctx), 0);
    /* The load did reach every bound (else the test proves less). */
    xlat_tlb_stats a, b, l2;
    xlat_tlb_stats_get(h.l1, &a, sizeof(a));
    xlat_tlb_stats_get(l1b, &b, sizeof(b));
    xlat_tlb_stats_get(h.l2, &l2, sizeof(l2));
    ck_assert_uint_gt(a.refusals, 0);
    ck_assert_uint_gt(b.refusals, 0);
    ck_assert_uint_gt(l2.refusals, 0);
    ck_assert_uint_gt(l2.mshr_merges, 0);
    ck_assert_uint_gt(a.hits, 0);
    ck_assert_uint_gt(l2.hits, 0);
    xlat_tlb_destroy(l1b);
}
END_TEST

START_TEST(shootdowns_leave_nothing_stale)
{
    shootdown_result r;
    shootdown_run(31 + (uint64_t)_i, 20000, &r);
    ck_assert_uint_eq(r.accepted, 20000);
    ck_assert_uint_eq(r.completed_once, 20000);
    ck_assert_uint_eq(r.duplicates, 0);
    ck_assert_uint_eq(r.missing, 0);
    ck_assert_uint_eq(r.wrong_space, 0);
    ck_assert_uint_eq(r.stale, 0);
    ck_assert_uint_gt(r.remaps, 100);
}
END_TEST

Suite *tlb_timed_suite(void)
{
    Suite *s = suite_create("tlb_timed");
    TCase *tc = test_case(s, "hierarchy");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, two_level_exact_cycles);
    tcase_add_test(tc, resolver_is_a_unit_id);
    tcase_add_test(tc, mshr_merge_answers_in_same_cycle);
    tcase_add_test(tc, refusals_take_nothing);
    tcase_add_test(tc, refusal_message_outlives_the_unit);
    tcase_add_test(tc, downstream_refusal_is_retried);
    tcase_add_test(tc, permission_fault);
    tcase_add_test(tc, translation_fault_is_not_filled);
    tcase_add_test(tc, no_next_target_answers_not_found);
    tcase_add_test(tc, timed_fills_report_evictions);
    tcase_add_test(tc, invalidation_reaches_requests_in_flight);
    tcase_add_test(tc, destroy_with_requests_in_flight);
    tcase_add_test(tc, every_accepted_request_completes_once);
    tcase_add_test(tc, steady_state_does_not_allocate);
    tcase_add_test(tc, hierarchy_allocates_nothing_after_create);
    tcase_add_loop_test(tc, shootdowns_leave_nothing_stale, 0, 3);
    return s;
}
