/*
 * The walker pool's reservations (doc/composition.md, rule 2): once it is
 * created, a pool under a busy load (bursts, refusals, coalescing, faults
 * raised by walkers and by neighbours' lines, senders waiting for room)
 * allocates nothing and never posts beyond the events it reserved, under
 * every scheduler and whether the host's memory answers after a fixed
 * latency, inside mem_read, or some cycles later.
 */
#include "walk_fixture.h"
/* The context's event pool (lib/core), to leave it no slack beyond what
 * the units reserved: a post beyond the pool's budget then finds no node. */
#include "internal.h"

#define PAGES 2048
#define MAX_REQ 6000
#define MAX_READS 64
#define MAX_HELD 512

enum mem_mode { MEM_FIXED, MEM_INSIDE, MEM_LATER };

typedef struct bhost {
    counting_alloc ca;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *pool;
    xlat_target target;
    enum mem_mode mode;
    uint64_t rng;
    uint64_t next_id, limit;
    uint64_t read_token[MAX_READS], read_due[MAX_READS];
    int nreads;
    uint64_t held[MAX_HELD]; /* faults resumed later (MEM_LATER) */
    int nheld;
    xlat_req backlog[MAX_REQ]; /* follow-ups refused, in order */
    size_t bl_head, bl_tail;
    bool waiting, poll;
    uint8_t seen[MAX_REQ], faulted[MAX_REQ];
    uint64_t wrong, faults, waits;
    size_t fillers; /* host events that never fire during the run */
} bhost;

static bhost h;

/* Page i of a PASID: clusters of 16 pages every 64 MiB, so that some
 * pages share a line at each level and others do not. */
static uint64_t page_va(uint64_t i)
{
    return 0x100000000ull + (i / 16) * (64ull << 20) + (i % 16) * 4096 * 3;
}

static xlat_req random_req(void)
{
    uint64_t page = test_rand(&h.rng) % PAGES;
    xlat_req req = {.id = h.next_id++, .pasid = (uint32_t)(test_rand(&h.rng) % 4),
                    .vaddr = page_va(page) + (test_rand(&h.rng) & 0xff8),
                    .access = XLAT_ACCESS_READ};
    return req;
}

/* ---- the host's memory: fixed latency, inside mem_read, or later */

static int mem_read(void *user, uint64_t paddr, uint32_t bytes, uint64_t token)
{
    (void)user;
    (void)paddr;
    (void)bytes;
    if (test_rand(&h.rng) % 8 == 0)
        return XLAT_ERR_AGAIN; /* busy: the walker retries next cycle */
    if (h.mode == MEM_INSIDE) {
        ck_assert_int_eq(xlat_walker_mem_done(h.pool, token), XLAT_OK);
        return XLAT_OK;
    }
    ck_assert_int_lt(h.nreads, MAX_READS);
    h.read_token[h.nreads] = token;
    h.read_due[h.nreads++] = xlat_now(h.ctx) + 1 + test_rand(&h.rng) % 40;
    return XLAT_OK;
}

/* Answers the reads due now, from outside any callback. */
static void answer_reads(void)
{
    uint64_t due[MAX_READS];
    int n = 0;
    for (int i = 0; i < h.nreads;) {
        if (h.read_due[i] <= xlat_now(h.ctx)) {
            due[n++] = h.read_token[i];
            h.read_token[i] = h.read_token[--h.nreads];
            h.read_due[i] = h.read_due[h.nreads];
        } else {
            i++;
        }
    }
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(xlat_walker_mem_done(h.pool, due[i]), XLAT_OK);
}

/* ---- faults: a first fault is resumed XLAT_OK half the time (the page
 * stays unmapped, so the walk faults again), then XLAT_ERR_FAULT */

static void on_fault(void *user, xlat_walker *p, const xlat_walk_fault *f)
{
    (void)user;
    h.faults++;
    if (h.mode == MEM_LATER) {
        ck_assert_int_lt(h.nheld, MAX_HELD);
        h.held[h.nheld++] = f->token;
        return;
    }
    int status = h.faulted[f->id]++ == 0 && test_rand(&h.rng) % 2 ? XLAT_OK : XLAT_ERR_FAULT;
    ck_assert_int_eq(xlat_walker_fault_resume(p, f->token, status), XLAT_OK);
}

static void resume_held(void)
{
    int n = h.nheld;
    uint64_t tokens[MAX_HELD];
    memcpy(tokens, h.held, (size_t)n * sizeof(*tokens));
    h.nheld = 0;
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(xlat_walker_fault_resume(h.pool, tokens[i], XLAT_ERR_FAULT), XLAT_OK);
}

/* ---- senders: the driver polls; follow-ups sent from done callbacks
 * wait through the target's wait hook */

static void on_done(void *user, const xlat_resp *r);

static void send_backlog(void *arg);

static void wait_for_room(void)
{
    if (h.waiting)
        return;
    h.waits++;
    if (h.target.wait(h.target.unit, send_backlog, NULL) == XLAT_OK)
        h.waiting = true;
    else
        h.poll = true; /* no wait record free: the driver retries each cycle */
}

static void send_backlog(void *arg)
{
    (void)arg;
    h.waiting = h.poll = false;
    while (h.bl_head < h.bl_tail) {
        int rc = xlat_walker_translate(h.pool, &h.backlog[h.bl_head], on_done, NULL);
        if (rc == XLAT_ERR_AGAIN) {
            wait_for_room();
            return;
        }
        ck_assert_int_eq(rc, XLAT_OK);
        h.bl_head++;
    }
}

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_uint_lt(r->id, h.next_id);
    h.seen[r->id]++;
    xlat_tlb_entry e;
    int rc = xlat_pagetable_lookup(h.pt, r->pasid, r->vaddr, &e);
    if (rc != r->status || (rc == XLAT_OK && e.pfn != r->pfn))
        h.wrong++;
    for (int k = 0; k < 3 && r->id % 4 == 0 && h.next_id < h.limit; k++)
        h.backlog[h.bl_tail++] = random_req(); /* follow-ups, sent from here */
    if (!h.waiting)
        send_backlog(NULL);
}

/* `cycles` cycles, one at a time, with the host's work between them. */
static void step(uint64_t cycles)
{
    for (uint64_t c = 0; c < cycles; c++) {
        answer_reads();
        resume_held();
        if (h.poll)
            send_backlog(NULL);
        ck_assert_int_eq(xlat_tick(h.ctx), XLAT_OK);
    }
}

static bool idle(void)
{
    return h.nreads == 0 && h.nheld == 0 && h.bl_head == h.bl_tail &&
           xlat_walker_buffered(h.pool) == 0 && xlat_walker_busy(h.pool) == 0 &&
           xlat_pending_events(h.ctx) == h.fillers;
}

/* Bursts of random requests; a refused one is retried each cycle. */
static void drive(uint64_t main_requests)
{
    uint64_t sent = 0;
    while (sent < main_requests && h.next_id < h.limit) {
        uint64_t burst = 1 + test_rand(&h.rng) % 48;
        for (uint64_t b = 0; b < burst && sent < main_requests && h.next_id < h.limit;
             b++, sent++) {
            xlat_req req = random_req();
            while (xlat_walker_translate(h.pool, &req, on_done, NULL) == XLAT_ERR_AGAIN)
                step(1);
        }
        step(test_rand(&h.rng) % 40);
    }
    for (int i = 0; i < 100000 && !idle(); i++)
        step(1);
    ck_assert(idle());
}

/* ---- set-up */

static void filler(void *arg)
{
    (void)arg;
    ck_abort_msg("a filler event fired");
}

/* Takes every node of the event pool the units did not reserve, with host
 * events far in the future: from now on only the pool's budget is free. */
static void leave_no_slack(void)
{
    const struct xlat_wheel *w = &h.ctx->wheel;
    while (w->reserved + w->host_pending < w->capacity) {
        ck_assert_int_eq(xlat_schedule(h.ctx, 1ull << 40, filler, NULL), XLAT_OK);
        h.fillers++;
    }
    ck_assert_uint_eq(w->reserved + w->host_pending, w->capacity);
}

static void map_pages(void)
{
    for (uint32_t pasid = 0; pasid < 4; pasid++)
        for (uint64_t i = 0; i < PAGES; i++)
            if ((i * 7 + pasid) % 13) /* about one page in 13 stays unmapped */
                ck_assert_int_eq(xlat_pagetable_map(h.pt, pasid, page_va(i),
                                                    0x10000 + i * 4 + pasid, 12, XLAT_PERM_R),
                                 XLAT_OK);
}

static void build(enum mem_mode mode, xlat_walk_sched sched, bool faults, uint64_t seed)
{
    memset(&h, 0, sizeof(h));
    counting_alloc_init(&h.ca);
    h.ctx = test_ctx(seed, &h.ca);
    h.mode = mode;
    h.rng = seed;
    h.limit = MAX_REQ;
    test_table(h.ctx, &h.mem, &h.pt);
    map_pages();
    xlat_pwc_config pc;
    xlat_pwc_config_init(&pc);
    ck_assert_int_eq(xlat_pwc_create(h.ctx, &pc, &h.pwc), XLAT_OK);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = h.pt;
    c.pwc = h.pwc;
    c.sched = sched;
    c.tenants = sched == XLAT_SCHED_FCFS ? 1 : 2;
    c.walkers = 8;
    c.queue_entries = 32;
    c.mem_latency = 20;
    c.coalesce = true;
    c.mem_read = mode == MEM_FIXED ? NULL : mem_read;
    c.fault_fn = faults ? on_fault : NULL;
    ck_assert_int_eq(xlat_walker_create(h.ctx, &c, &h.pool), XLAT_OK);
    h.target = TEST_TARGET(walker, h.pool);
    leave_no_slack();
}

static void teardown(void)
{
    xlat_walker_destroy(h.pool);
    xlat_pwc_destroy(h.pwc);
    xlat_pagetable_destroy(h.pt);
    xlat_physmem_destroy(h.mem);
    xlat_ctx_destroy(h.ctx);
    ck_assert_uint_eq(h.ca.live_bytes, 0);
}

/* Every request sent was answered once, correctly. */
static void assert_answered(void)
{
    ck_assert_uint_gt(h.next_id, MAX_REQ / 2);
    for (uint64_t id = 0; id < h.next_id; id++)
        ck_assert_msg(h.seen[id] == 1, "request %llu answered %u times",
                      (unsigned long long)id, h.seen[id]);
    ck_assert_uint_eq(h.wrong, 0);
}

/* The load was busy: refusals, coalescing, faults, senders waiting. */
static void assert_busy(bool faults)
{
    xlat_walker_stats st;
    xlat_walker_stats_get(h.pool, &st, sizeof(st));
    ck_assert_uint_gt(st.refusals, 0);
    ck_assert_uint_gt(st.coalesced, 0);
    ck_assert_uint_gt(st.faults, 0);
    ck_assert_uint_gt(h.waits, 0);
    if (faults)
        ck_assert_uint_gt(h.faults, 0);
    if (h.mode != MEM_FIXED)
        ck_assert_uint_gt(st.mem_retries, 0);
}

static void run(enum mem_mode mode, xlat_walk_sched sched, bool faults, uint64_t seed)
{
    build(mode, sched, faults, seed);
    size_t allocs = h.ca.allocs, frees = h.ca.frees;
    drive(MAX_REQ * 2 / 3);
    ck_assert_uint_eq(h.ca.allocs, allocs); /* nothing allocated under load */
    ck_assert_uint_eq(h.ca.frees, frees);
    ck_assert_uint_eq(xlat__events_overruns(h.ctx), 0);
    assert_answered();
    assert_busy(faults);
    teardown();
}

/* FCFS with faults, under each memory model. */
START_TEST(busy_pool_allocates_nothing)
{
    run((enum mem_mode)_i, XLAT_SCHED_FCFS, true, 11 + (uint64_t)_i);
}
END_TEST

/* Every scheduler under every memory model, with and without a fault
 * handler: within the budget, every request answered exactly once. */
START_TEST(every_scheduler_stays_within_budget)
{
    static const xlat_walk_sched scheds[] = {XLAT_SCHED_FCFS, XLAT_SCHED_PARTITION,
                                             XLAT_SCHED_DWS, XLAT_SCHED_DWSPP};
    run((enum mem_mode)(_i % 3), scheds[_i / 6], _i % 6 >= 3, 100 + (uint64_t)_i);
}
END_TEST

/* ---- request records: queue_entries + walkers, admission in translate */

static walk_fixture f;
static const uint64_t no_pfns[1] = {0};
static int rc_e = 1, woken_at[4], nwoken;

static void record(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_lt(f.ndone, WF_MAX);
    f.done[f.ndone++] = *r;
}

static void send_e(void *arg)
{
    (void)arg;
    woken_at[nwoken++] = (int)xlat_now(f.ctx);
    xlat_req e = {.id = 5, .pasid = 1, .vaddr = 0x4000, .access = XLAT_ACCESS_READ};
    ck_assert_int_eq(xlat_walker_translate(f.pool, &e, record, NULL), XLAT_OK);
}

/* A's answer sends D and E while B and C, served by A's line, still hold
 * their records: D takes the one A released, E is refused although the
 * buffer is empty, and is woken when B's record is released. */
static void a_done(void *user, const xlat_resp *r)
{
    record(user, r);
    xlat_req d = {.id = 4, .pasid = 1, .vaddr = 0x3000, .access = XLAT_ACCESS_READ};
    xlat_req e = {.id = 5, .pasid = 1, .vaddr = 0x4000, .access = XLAT_ACCESS_READ};
    ck_assert_int_eq(xlat_walker_translate(f.pool, &d, record, NULL), XLAT_OK);
    rc_e = xlat_walker_translate(f.pool, &e, record, NULL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "every request record is in use"));
    xlat_target t = TEST_TARGET(walker, f.pool);
    ck_assert_int_eq(t.wait(t.unit, send_e, NULL), XLAT_OK);
}

static void small_pool(uint32_t queue)
{
    wf_memory(&f, no_pfns, 0);
    wf_table(&f);
    for (uint64_t page = 0; page < 5; page++)
        ck_assert_int_eq(xlat_pagetable_map(f.pt, 1, page << 12, 0x900 + page, 12, XLAT_PERM_R),
                         XLAT_OK);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.walkers = 1;
    c.queue_entries = queue;
    c.mem_latency = 10;
    c.coalesce = true;
    wf_pool(&f, &c);
}

START_TEST(answers_under_way_hold_their_records)
{
    small_pool(2);
    nwoken = 0;
    xlat_req a = {.id = 1, .pasid = 1, .vaddr = 0x0, .access = XLAT_ACCESS_READ};
    ck_assert_int_eq(xlat_walker_translate(f.pool, &a, a_done, NULL), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, 0x1000), XLAT_OK); /* held back by A's reads (CL) */
    ck_assert_int_eq(wf_send(&f, 3, 0x2000), XLAT_OK);
    wf_run_until(&f, 100);
    ck_assert_int_eq(rc_e, XLAT_ERR_AGAIN);
    ck_assert_int_eq(nwoken, 1);
    ck_assert_int_eq(woken_at[0], 40);
    static const uint64_t ids[] = {1, 2, 3, 4, 5}, at[] = {40, 40, 40, 80, 80};
    ck_assert_int_eq(f.ndone, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_uint_eq(f.done[i].id, ids[i]);
        ck_assert_uint_eq(f.done[i].completed, at[i]);
        ck_assert_uint_eq(f.done[i].pfn, 0x900 + ids[i] - 1);
    }
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    ck_assert_uint_eq(st.refusals, 1);
    ck_assert_uint_eq(st.walks, 2);
    ck_assert_uint_eq(st.coalesced, 3);
    wf_destroy(&f);
}
END_TEST

static void woken(void *arg)
{
    woken_at[nwoken++] = (int)(intptr_t)arg * 1000 + (int)xlat_now(f.ctx);
}

/* Two senders wait at once; a third is told to poll (its wake-up would be
 * beyond the pool's event budget). Both are called back in the cycle the
 * buffer slot frees, in the order they waited. */
START_TEST(two_senders_wait_a_third_polls)
{
    small_pool(1);
    nwoken = 0;
    ck_assert_int_eq(wf_send(&f, 1, 0x0), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, 0x1000), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 3, 0x2000), XLAT_ERR_AGAIN);
    xlat_target t = TEST_TARGET(walker, f.pool);
    ck_assert_int_eq(t.wait(t.unit, woken, (void *)1), XLAT_OK);
    ck_assert_int_eq(t.wait(t.unit, woken, (void *)2), XLAT_OK);
    ck_assert_int_eq(t.wait(t.unit, woken, (void *)3), XLAT_ERR_AGAIN);
    wf_run_until(&f, 100);
    /* B is served by A's line at 40 and leaves the buffer then. */
    ck_assert_int_eq(nwoken, 2);
    ck_assert_int_eq(woken_at[0], 1040);
    ck_assert_int_eq(woken_at[1], 2040);
    ck_assert_int_eq(t.wait(t.unit, woken, (void *)3), XLAT_OK); /* records free again */
    wf_destroy(&f);
}
END_TEST

Suite *walker_budget_suite(void)
{
    Suite *s = suite_create("walker_budget");
    TCase *tc = test_case(s, "budget");
    tcase_add_loop_test(tc, busy_pool_allocates_nothing, 0, 3);
    tcase_add_loop_test(tc, every_scheduler_stays_within_budget, 0, 24);
    tc = test_case(s, "records");
    tcase_add_test(tc, answers_under_way_hold_their_records);
    tcase_add_test(tc, two_senders_wait_a_third_polls);
    return s;
}
