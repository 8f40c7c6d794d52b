/*
 * Clock domains (doc/clocks.md): units at 7/5 and at 5/7 of their
 * context's frequency, each completion cycle derived by hand from the edges
 * below; the edge arithmetic against a brute-force reference; the system
 * builder passing its templates' ratios through; bad ratios refused.
 *
 * A unit at num/den has its edges at context cycles e(k) = ceil(k*den/num).
 * L of its cycles posted at context cycle t end at e(k0 + L), where
 * k0 = floor(t*num/den) is its last edge at or before t; 0 stays t.
 *
 * SLOW, 5/7 (1 GHz in a context clocked at 1.4 GHz): e(k) = ceil(7k/5),
 * five edges every seven cycles.
 *   k    0  1  2  3  4  5  6  7  8  9 10 11 12 ... 19 ... 29 ... 39 ... 49 50 51
 *   e(k) 0  2  3  5  6  7  9 10 12 13 14 16 17 ... 27 ... 41 ... 55 ... 69 70 72
 *   t    0  1  2  3  4  5  6  7  8  9 10 11 12 13 ... 69
 *   k0   0  0  1  2  2  3  4  5  5  6  7  7  8  9 ... 49
 *
 * FAST, 7/5 (1.4 GHz in a context clocked at 1 GHz): e(k) = ceil(5k/7),
 * seven edges every five cycles, so two edges may share a context cycle.
 *   k    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 ... 104 105 106 107
 *   e(k) 0 1 2 3 3 4 5 5 6 7  8  8  9 10 10 ...  75  75  76  77
 *   t    0 1 2 3 4 5 6 7 8  9 10 ... 73  74  75
 *   k0   0 1 2 4 5 7 8 9 11 12 14 ... 102 103 105
 */
#include "host.h"
#include "clock.h" /* lib/core: the arithmetic itself, for the reference test */

#define SLOW 5, 7
#define FAST 7, 5
#define MAXID 64

static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    uint64_t completed[MAXID], issued[MAXID];
    int answers[MAXID], status[MAXID];
    xlat_walk_event reads[8];
    int nreads;
    uint64_t start;
} h;

static void setup(void)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(7, NULL);
    test_table(h.ctx, &h.mem, &h.pt);
    for (uint64_t p = 0; p < 8; p++)
        ck_assert_int_eq(xlat_pagetable_map(h.pt, 1, p << 12, 0x900 + p, 12, XLAT_PERM_R),
                         XLAT_OK);
}

/* Destroying the context destroys every unit left on it. */
static void teardown(void) { xlat_ctx_destroy(h.ctx); }

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_uint_lt(r->id, MAXID);
    h.answers[r->id]++;
    h.status[r->id] = r->status;
    h.issued[r->id] = r->issued;
    h.completed[r->id] = r->completed;
}

/* The walker's trace: when it started and when each read completed. */
static void on_trace(void *user, const xlat_walk_event *ev)
{
    (void)user;
    if (ev->kind == XLAT_WALK_START)
        h.start = ev->cycle;
    if (ev->kind == XLAT_WALK_READ && h.nreads < 8)
        h.reads[h.nreads++] = *ev;
}

static void run_to(uint64_t cycle)
{
    ck_assert_uint_ge(cycle, xlat_now(h.ctx));
    ck_assert_int_eq(xlat_advance(h.ctx, cycle - xlat_now(h.ctx)), XLAT_OK);
}

/* Sends request `id` for page `page` to `t` at context cycle `at`. */
static void send_at(const xlat_target *t, uint64_t at, uint64_t id, uint64_t page)
{
    run_to(at);
    xlat_req req = {.id = id, .vaddr = page << 12, .pasid = 1, .access = XLAT_ACCESS_READ};
    ck_assert_msg(xlat_target_translate(t, &req, on_done, NULL) == XLAT_OK, "%s",
                  xlat_ctx_errmsg(h.ctx));
}

static void expect(uint64_t id, uint64_t issued, uint64_t completed)
{
    ck_assert_int_eq(h.answers[id], 1);
    ck_assert_int_eq(h.status[id], XLAT_OK);
    ck_assert_uint_eq(h.issued[id], issued);
    ck_assert_uint_eq(h.completed[id], completed);
}

/* ---- the arithmetic ------------------------------------------------------ */

/* k0 and the due cycle from the edges themselves, one by one. */
static uint64_t edge(uint64_t k, uint32_t num, uint32_t den) { return (k * den + num - 1) / num; }

static void reference(uint32_t num, uint32_t den, uint64_t now, uint64_t *k0)
{
    *k0 = 0;
    while (edge(*k0 + 1, num, den) <= now)
        ++*k0;
}

START_TEST(edges_match_the_reference)
{
    for (uint32_t num = 1; num <= 12; num++)
        for (uint32_t den = 1; den <= 12; den++) {
            struct xlat__clock c;
            xlat__clock_set(&c, num, den);
            for (uint64_t now = 0; now < 60; now++) {
                uint64_t k0;
                reference(num, den, now, &k0);
                ck_assert_uint_eq(xlat__clock_cycle(&c, now), k0);
                ck_assert_uint_eq(xlat__clock_due(&c, now, 0), now);
                for (uint64_t l = 1; l < 30; l++)
                    ck_assert_uint_eq(xlat__clock_due(&c, now, l), edge(k0 + l, num, den));
            }
        }
}
END_TEST

/* Far from 0 the products would pass 2^64; the period-relative arithmetic
 * agrees with 128-bit arithmetic, and saturates only past 2^64. */
START_TEST(edges_far_from_zero)
{
    static const uint32_t ratio[][2] = {{65536, 65535}, {1, 65536}, {65536, 1}, {7, 5}, {5, 7}};
    for (size_t i = 0; i < sizeof(ratio) / sizeof(ratio[0]); i++) {
        struct xlat__clock c;
        uint32_t num = ratio[i][0], den = ratio[i][1];
        xlat__clock_set(&c, num, den);
        uint64_t now = (1ull << 62) + 12345;
        unsigned __int128 k0 = (unsigned __int128)now * num / den;
        unsigned __int128 due = ((k0 + 1000) * den + num - 1) / num;
        ck_assert(due <= UINT64_MAX);
        ck_assert_uint_eq(xlat__clock_due(&c, now, 1000), (uint64_t)due);
        if (k0 <= UINT64_MAX)
            ck_assert_uint_eq(xlat__clock_cycle(&c, now), (uint64_t)k0);
    }
    struct xlat__clock slow;
    xlat__clock_set(&slow, 1, 65536);
    ck_assert_uint_eq(xlat__clock_due(&slow, UINT64_MAX - 5, 1), UINT64_MAX);
    ck_assert_uint_eq(xlat__clock_due(&slow, 0, UINT64_MAX), UINT64_MAX);
}
END_TEST

/* ---- one unit at a time -------------------------------------------------- */

static xlat_target fixed_at(uint32_t num, uint32_t den, uint32_t latency)
{
    xlat_fixed_config fc;
    xlat_fixed *f;
    xlat_fixed_config_init(&fc);
    fc.latency = latency;
    fc.clock_num = num;
    fc.clock_den = den;
    ck_assert_int_eq(xlat_fixed_create(h.ctx, &fc, &f), XLAT_OK);
    return TEST_TARGET(fixed, f);
}

/* Latency 3: sent at t, answered at e(k0(t) + 3).
 *   SLOW  t 0 1 2 4 -> k0 0 0 1 2 -> e(3) e(3) e(4) e(5) = 5 5 6 7
 *   FAST  t 0 1 2 3 -> k0 0 1 2 4 -> e(3) e(4) e(5) e(7) = 3 3 4 5
 * Latency 0 answers in the cycle it was sent; 7/7 is 1:1. */
START_TEST(fixed_answers_on_its_edges)
{
    xlat_target slow = fixed_at(SLOW, 3), fast = fixed_at(FAST, 3);
    xlat_target now = fixed_at(SLOW, 0), same = fixed_at(7, 7, 3);
    static const uint64_t sent[4] = {0, 1, 2, 4}, slow_done[4] = {5, 5, 6, 7};
    static const uint64_t fast_sent[4] = {0, 1, 2, 3}, fast_done[4] = {3, 3, 4, 5};
    for (uint64_t i = 0; i < 4; i++) {
        send_at(&fast, fast_sent[i], 10 + i, 1);
        send_at(&slow, sent[i], i, 1);
    }
    send_at(&now, 4, 20, 1);
    send_at(&same, 4, 21, 1);
    run_to(10);
    for (uint64_t i = 0; i < 4; i++) {
        expect(i, sent[i], slow_done[i]);
        expect(10 + i, fast_sent[i], fast_done[i]);
    }
    expect(20, 4, 4);
    expect(21, 4, 7);
}
END_TEST

static xlat_walker_config walk_config(uint32_t num, uint32_t den)
{
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = h.pt;
    wc.walkers = 1;
    wc.mem_latency = 10;
    wc.trace_fn = on_trace;
    wc.clock_num = num;
    wc.clock_den = den;
    return wc;
}

/* A walker at 7/5, four reads of 10 of its cycles from fixed memory, sent
 * at 2 (k0 2). A read that ends at a cycle holding two edges is followed
 * by one that counts from the later edge:
 *   read 1: e(2 + 10) = e(12) = 9       at 9,  k0 12
 *   read 2: e(12 + 10) = e(22) = 16     at 16, k0 22
 *   read 3: e(22 + 10) = e(32) = 23     at 23, k0 32
 *   read 4: e(32 + 10) = e(42) = 30     answered at 30 (1:1: 42)      */
START_TEST(walker_reads_at_its_clock)
{
    xlat_walker_config wc = walk_config(FAST);
    xlat_walker *w;
    ck_assert_int_eq(xlat_walker_create(h.ctx, &wc, &w), XLAT_OK);
    xlat_target t = TEST_TARGET(walker, w);
    send_at(&t, 2, 1, 3);
    run_to(40);
    static const uint64_t reads[4] = {9, 16, 23, 30};
    ck_assert_int_eq(h.nreads, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(h.reads[i].cycle, reads[i]);
    expect(1, 2, 30);
}
END_TEST

static xlat_target iommu_target_at(uint32_t num, uint32_t den, const xlat_walker_config *wc)
{
    xlat_iommu_config ic;
    xlat_iommu *m;
    xlat_iommu_config_init(&ic);
    ic.walk = wc;
    ic.tlb_latency = 4;
    ic.clock_num = num;
    ic.clock_den = den;
    ck_assert_msg(xlat_iommu_create(h.ctx, &ic, &m) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
    return TEST_TARGET(iommu, m);
}

/* An IOMMU at 7/5 (tlb_latency 4) whose walk template leaves its clock 0/0:
 * the walkers run at the IOMMU's 7/5.
 *   id 1 at 0: lookup e(0 + 4) = 3, a miss; the walk starts at 3, k0 4:
 *     reads e(14) = 10, then from k0 14: e(24) = 18, which shares cycle 18
 *     with edge 25, so k0 25: e(35) = 25, then e(45) = 33: answered at 33
 *   id 2 at 40 (k0 56), a hit: e(60) = 43                              */
START_TEST(iommu_walkers_take_its_clock)
{
    xlat_walker_config wc = walk_config(0, 0);
    xlat_target t = iommu_target_at(FAST, &wc);
    send_at(&t, 0, 1, 4);
    send_at(&t, 40, 2, 4);
    run_to(50);
    ck_assert_uint_eq(h.start, 3);
    static const uint64_t reads[4] = {10, 18, 25, 33};
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(h.reads[i].cycle, reads[i]);
    expect(1, 0, 33);
    expect(2, 40, 43);
}
END_TEST

/* A walk template with a ratio of its own keeps it: 1/1 under the same
 * IOMMU reads at 1:1 from 3: 13, 23, 33, 43. */
START_TEST(iommu_walk_template_keeps_its_clock)
{
    xlat_walker_config wc = walk_config(1, 1);
    xlat_target t = iommu_target_at(FAST, &wc);
    send_at(&t, 0, 1, 4);
    run_to(50);
    ck_assert_int_eq(h.nreads, 4);
    ck_assert_uint_eq(h.reads[3].cycle, 43);
    expect(1, 0, 43);
}
END_TEST

static int try_send(const xlat_target *t, uint64_t id)
{
    xlat_req req = {.id = id, .vaddr = 0x1000, .pasid = 1, .access = XLAT_ACCESS_READ};
    return xlat_target_translate(t, &req, on_done, NULL);
}

static void port_free(void *user)
{
    const xlat_target *t = user;
    ck_assert_uint_eq(xlat_now(h.ctx), 2); /* the TLB's next edge */
    ck_assert_int_eq(try_send(t, 3), XLAT_OK);
}

/* Ports count the TLB's cycles. At 5/7 with one port, cycles 0 and 1 are
 * both its cycle 0: the second request is refused, and a sender waiting
 * for the port is called at its next edge, e(1) = 2 (k0 1).
 *   id 1 at 0: a hit, latency 1: e(0 + 1) = 2
 *   id 3 at 2: e(1 + 1) = 3                                               */
START_TEST(tlb_ports_count_its_cycles)
{
    xlat_tlb_config tc;
    xlat_tlb *tlb;
    xlat_tlb_config_init(&tc);
    tc.latency = 1;
    tc.clock_num = 5;
    tc.clock_den = 7;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &tlb), XLAT_OK);
    xlat_tlb_entry e = {.pasid = 1, .vpn = 1, .pfn = 0x901, .page_shift = 12,
                        .perm = XLAT_PERM_R};
    ck_assert_int_eq(xlat_tlb_insert(tlb, &e, NULL), XLAT_OK);
    xlat_target t = TEST_TARGET(tlb, tlb);
    ck_assert_int_eq(try_send(&t, 1), XLAT_OK);
    run_to(1);
    ck_assert_int_eq(try_send(&t, 2), XLAT_ERR_AGAIN);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(h.ctx), "every port is used this cycle"));
    ck_assert_int_eq(t.wait(t.unit, port_free, &t), XLAT_OK);
    run_to(5);
    expect(1, 0, 2);
    ck_assert_int_eq(h.answers[2], 0);
    expect(3, 2, 3);
}
END_TEST

/* A dynamic GMMU at 5/7 with 10-cycle epochs: epoch 1 begins at its edge
 * 10, context cycle 14 (1:1: 10). */
START_TEST(gmmu_epochs_count_its_cycles)
{
    xlat_walker_config wc = walk_config(0, 0);
    xlat_walker *w;
    ck_assert_int_eq(xlat_walker_create(h.ctx, &wc, &w), XLAT_OK);
    xlat_gmmu_config gc;
    xlat_gmmu *g;
    xlat_gmmu_config_init(&gc);
    gc.mode = XLAT_GMMU_DYNAMIC;
    gc.walker = w;
    gc.local_size = 1ull << 30;
    gc.epoch_cycles = 10;
    gc.clock_num = 5;
    gc.clock_den = 7;
    ck_assert_int_eq(xlat_gmmu_create(h.ctx, &gc, &g), XLAT_OK);
    xlat_gmmu_stats st;
    run_to(13);
    xlat_gmmu_stats_get(g, &st, sizeof(st));
    ck_assert_uint_eq(st.epochs, 0);
    run_to(14);
    xlat_gmmu_stats_get(g, &st, sizeof(st));
    ck_assert_uint_eq(st.epochs, 1);
}
END_TEST

/* ---- the walk-through ---------------------------------------------------- */

/* An L1 TLB at 7/5 (latency 2) -> a link at 5/7 (3 there, 2 back) -> an
 * IOMMU at 5/7 (tlb_latency 4) whose walkers take its clock (one walker,
 * four reads of 10 from fixed memory). Context cycles, and at 1:1:
 *   id 1 sent to the L1 at 1                FAST k0 1       (1:1)
 *   L1 misses, forwards at e(1 + 2)         FAST e(3)  =  3   3
 *   link takes it at 3                      SLOW k0 2
 *   it reaches the IOMMU at e(2 + 3)        SLOW e(5)  =  7   6
 *   IOMMU lookup, a miss, at e(5 + 4)       SLOW e(9)  = 13  10
 *   the walk starts at 13, k0 9; reads at   SLOW e(19) = 27  20
 *                                                e(29) = 41  30
 *                                                e(39) = 55  40
 *                                                e(49) = 69  50
 *   IOMMU answers at 69; the link, k0 49,
 *   brings it back at e(49 + 2)             SLOW e(51) = 72  52
 *   the L1 fills and answers id 1 at 72                      52
 *   L1 hits: id 2 at 73 (k0 102): e(104)    FAST       75
 *            id 3 at 74 (k0 103): e(105)    FAST       75 (the same batch)
 *            id 4 at 75 (k0 105): e(107)    FAST       77                */
static xlat_target walk_through_units(void)
{
    xlat_walker_config wc = walk_config(0, 0);
    xlat_target iommu = iommu_target_at(SLOW, &wc);
    xlat_link_config lc;
    xlat_link *link;
    xlat_link_config_init(&lc);
    lc.latency = 3;
    lc.latency_back = 2;
    lc.clock_num = 5;
    lc.clock_den = 7;
    ck_assert_int_eq(xlat_link_create(h.ctx, &lc, &link), XLAT_OK);
    ck_assert_int_eq(xlat_link_set_next(link, &iommu), XLAT_OK);
    xlat_target to_iommu = TEST_TARGET(link, link);
    xlat_tlb_config tc;
    xlat_tlb *l1;
    xlat_tlb_config_init(&tc);
    tc.latency = 2;
    tc.clock_num = 7;
    tc.clock_den = 5;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &tc, &l1), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_set_next(l1, &to_iommu), XLAT_OK);
    return TEST_TARGET(tlb, l1);
}

START_TEST(walk_through)
{
    xlat_target l1 = walk_through_units();
    send_at(&l1, 1, 1, 5);
    run_to(71);
    ck_assert_int_eq(h.answers[1], 0);
    ck_assert_uint_eq(h.start, 13);
    static const uint64_t reads[4] = {27, 41, 55, 69};
    ck_assert_int_eq(h.nreads, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(h.reads[i].cycle, reads[i]);
    run_to(72);
    expect(1, 1, 72);
    send_at(&l1, 73, 2, 5);
    send_at(&l1, 74, 3, 5);
    run_to(74);
    ck_assert_int_eq(h.answers[2], 0);
    send_at(&l1, 75, 4, 5);
    ck_assert_int_eq(h.answers[2] + h.answers[3], 2); /* answered at 75 */
    run_to(80);
    expect(2, 73, 75);
    expect(3, 74, 75);
    expect(4, 75, 77);
    ck_assert_uint_eq(xlat__events_overruns(h.ctx), 0);
}
END_TEST

/* ---- hosts answering inside their callbacks, or a cycle later ------------ */

/* The first cycle of the next period of the edges (every `den` cycles):
 * from there, e(k) and k0 repeat the tables' first columns, shifted. */
static uint64_t next_period(uint64_t den)
{
    return (xlat_now(h.ctx) + den - 1) / den * den;
}

/* A link at 7/5 (3 there, 3 back) over the host's target; id 1 at 1 (k0 1)
 * reaches the host at e(4) = 3 (each from the start of a period).
 *   inside: the host answers at 3 (k0 4), back at e(7) = 5
 *   later:  the host answers at 4 (k0 5), back at e(8) = 6              */
static void link_over_host(int later, uint64_t completed)
{
    host hs;
    host_init(&hs, h.ctx, later);
    xlat_target below = host_target(&hs);
    xlat_link_config lc;
    xlat_link *link;
    xlat_link_config_init(&lc);
    lc.latency = lc.latency_back = 3;
    lc.clock_num = 7;
    lc.clock_den = 5;
    ck_assert_int_eq(xlat_link_create(h.ctx, &lc, &link), XLAT_OK);
    ck_assert_int_eq(xlat_link_set_next(link, &below), XLAT_OK);
    xlat_target t = TEST_TARGET(link, link);
    uint64_t base = next_period(5);
    run_to(base + 1);
    ck_assert_int_eq(host_send(&hs, &t, 1, 0x1000, 1), XLAT_OK);
    host_run(&hs, 1, 20);
    ck_assert_int_eq(hs.answers[1], 1);
    ck_assert_uint_eq(hs.completed[1], base + completed);
    ck_assert_int_eq(hs.breaches, 0);
    xlat_link_destroy(link);
}

START_TEST(link_over_a_host)
{
    link_over_host(0, 5);
    link_over_host(1, 6);
}
END_TEST

/* A walker at 5/7 over the host's memory, with a page walk cache of
 * latency 2 (charged in the walker's cycles): id 1 at 1 (k0 0) issues its
 * first read at e(2) = 3 (each from the start of a period).
 *   inside: the host answers every read at once: answered at 3
 *   later:  each read takes one context cycle: 4, 5, 6, 7: answered at 7 */
static void walker_over_host(int later, uint64_t completed)
{
    host hs;
    host_init(&hs, h.ctx, later);
    xlat_pwc_config pc;
    xlat_pwc *pwc;
    xlat_pwc_config_init(&pc);
    pc.latency = 2;
    ck_assert_int_eq(xlat_pwc_create(h.ctx, &pc, &pwc), XLAT_OK);
    xlat_walker_config wc = walk_config(SLOW);
    wc.pwc = pwc;
    host_walker_config(&hs, &wc);
    xlat_walker *w;
    ck_assert_int_eq(xlat_walker_create(h.ctx, &wc, &w), XLAT_OK);
    hs.walker = w;
    xlat_target t = TEST_TARGET(walker, w);
    uint64_t base = next_period(7);
    run_to(base + 1);
    ck_assert_int_eq(host_send(&hs, &t, 1, 0x6000, 1), XLAT_OK);
    host_run(&hs, 1, 20);
    ck_assert_int_eq(hs.answers[1], 1);
    ck_assert_uint_eq(hs.completed[1], base + completed);
    ck_assert_uint_eq(hs.callouts, 4);
    ck_assert_int_eq(hs.breaches, 0);
    xlat_walker_destroy(w);
    xlat_pwc_destroy(pwc);
}

START_TEST(walker_over_a_host)
{
    walker_over_host(0, 3);
    walker_over_host(1, 7);
}
END_TEST

/* ---- the system builder -------------------------------------------------- */

/* One GPU at the context's clock (L1 1 cycle, L2 10, no link latency) and
 * an IOMMU at 5/7 (tlb_latency 4; its walker, from a 0/0 template, too):
 *   id 1 at 0: L1 miss forwarded at 1, L2 miss at 11, at the IOMMU at 11
 *   (k0 7); lookup at e(11) = 16; the walk from k0 11 reads at e(21) = 30,
 *   e(31) = 44, e(41) = 58, e(51) = 72; answered through the L2 and the L1
 *   at 72 (1:1: 11 + 4 + 40 = 55)
 *   id 2 at 80: an L1 hit, at 81                                          */
START_TEST(system_of_a_gpu_and_a_slower_iommu)
{
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = h.pt;
    wc.walkers = 1;
    wc.mem_latency = 10;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.tlb_latency = 4;
    ic.clock_num = 5;
    ic.clock_den = 7;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 1;
    sc.cus = 1;
    sc.iommu = &ic;
    xlat_system *sys;
    ck_assert_msg(xlat_system_create(h.ctx, &sc, &sys) == XLAT_OK, "%s", xlat_ctx_errmsg(h.ctx));
    xlat_req req = {.id = 1, .vaddr = 0x7000, .pasid = 1, .access = XLAT_ACCESS_READ};
    ck_assert_int_eq(xlat_system_translate(sys, &req, on_done, NULL), XLAT_OK);
    run_to(71);
    ck_assert_int_eq(h.answers[1], 0);
    run_to(80);
    expect(1, 0, 72);
    req.id = 2;
    ck_assert_int_eq(xlat_system_translate(sys, &req, on_done, NULL), XLAT_OK);
    run_to(90);
    expect(2, 80, 81);
}
END_TEST

/* ---- bad ratios ---------------------------------------------------------- */

/* Each creates one unit at num/den and returns what its create returned
 * (a unit it made is left to the context's destroy). */
static int create_tlb(uint32_t num, uint32_t den)
{
    xlat_tlb_config c;
    xlat_tlb *t;
    xlat_tlb_config_init(&c);
    c.name = "l1";
    c.clock_num = num;
    c.clock_den = den;
    return xlat_tlb_create(h.ctx, &c, &t);
}

static int create_fixed(uint32_t num, uint32_t den)
{
    xlat_fixed_config c;
    xlat_fixed *f;
    xlat_fixed_config_init(&c);
    c.clock_num = num;
    c.clock_den = den;
    return xlat_fixed_create(h.ctx, &c, &f);
}

static int create_link(uint32_t num, uint32_t den)
{
    xlat_link_config c;
    xlat_link *l;
    xlat_link_config_init(&c);
    c.clock_num = num;
    c.clock_den = den;
    return xlat_link_create(h.ctx, &c, &l);
}

static int create_walker(uint32_t num, uint32_t den)
{
    xlat_walker_config c = walk_config(num, den);
    xlat_walker *w;
    return xlat_walker_create(h.ctx, &c, &w);
}

/* The IOMMU's ratio is `iommu`, its walk template's `walk` (0: 0/0). */
static int create_iommu_with(const uint32_t iommu[2], const uint32_t walk[2])
{
    xlat_walker_config wc = walk_config(walk[0], walk[1]);
    xlat_iommu_config c;
    xlat_iommu *m;
    xlat_iommu_config_init(&c);
    c.walk = &wc;
    c.clock_num = iommu[0];
    c.clock_den = iommu[1];
    return xlat_iommu_create(h.ctx, &c, &m);
}

static const uint32_t one_to_one[2] = {0, 0};

static int create_iommu(uint32_t num, uint32_t den)
{
    const uint32_t r[2] = {num, den};
    return create_iommu_with(r, one_to_one);
}

static int create_iommu_walk(uint32_t num, uint32_t den)
{
    const uint32_t r[2] = {num, den};
    return create_iommu_with(one_to_one, r);
}

static int create_gmmu(uint32_t num, uint32_t den)
{
    xlat_gmmu_config c;
    xlat_gmmu *g;
    xlat_gmmu_config_init(&c);
    c.mode = XLAT_GMMU_CENTRALIZED;
    c.clock_num = num;
    c.clock_den = den;
    return xlat_gmmu_create(h.ctx, &c, &g);
}

/* A refusal for a bad ratio: its message names the unit and the field. */
static void refused(int rc, const char *named)
{
    const char *msg = xlat_ctx_errmsg(h.ctx);
    ck_assert_int_eq(rc, XLAT_ERR_INVAL);
    ck_assert_msg(strstr(msg, named), "%s", msg);
}

/* Every timed unit's create, and how its refusal names the unit. */
static const struct {
    const char *named;
    int (*create)(uint32_t num, uint32_t den);
} creates[] = {
    {"tlb l1: clock_", create_tlb},         {"fixed fixed: clock_", create_fixed},
    {"link link: clock_", create_link},     {"walker walker: clock_", create_walker},
    {"iommu iommu: clock_", create_iommu},  {"walker walker: clock_", create_iommu_walk},
    {"gmmu gmmu: clock_", create_gmmu},
};

/* One of the pair 0, or one above XLAT_CLOCK_RATIO_MAX: XLAT_ERR_INVAL,
 * and a message that names the unit and the field. The bounds themselves
 * are accepted. */
START_TEST(bad_ratios_refused)
{
    static const uint32_t bad[][2] = {{5, 0}, {0, 7}, {65537, 1}, {1, 65537}};
    static const uint32_t good[][2] = {{0, 0}, {65536, 1}, {1, 65536}, {7, 7}};
    for (size_t k = 0; k < sizeof(creates) / sizeof(creates[0]); k++) {
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
            refused(creates[k].create(bad[i][0], bad[i][1]), creates[k].named);
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
            ck_assert_int_eq(creates[k].create(good[i][0], good[i][1]), XLAT_OK);
    }
}
END_TEST

/* The builder refuses what a template's create refuses, and says which. */
START_TEST(bad_ratio_in_a_system_template)
{
    xlat_walker_config wc = walk_config(0, 0);
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_tlb_config l2;
    xlat_system_l2_config_init(&l2);
    l2.clock_num = 3;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = 1;
    sc.cus = 1;
    sc.iommu = &ic;
    sc.l2 = &l2;
    xlat_system *sys = NULL;
    refused(xlat_system_create(h.ctx, &sc, &sys), "gpu0.l2: clock_num 3 with clock_den 0");
    ck_assert_ptr_null(sys);
}
END_TEST

Suite *clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = test_case(s, "arithmetic");
    tcase_add_test(tc, edges_match_the_reference);
    tcase_add_test(tc, edges_far_from_zero);
    tc = test_case(s, "units");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fixed_answers_on_its_edges);
    tcase_add_test(tc, walker_reads_at_its_clock);
    tcase_add_test(tc, iommu_walkers_take_its_clock);
    tcase_add_test(tc, iommu_walk_template_keeps_its_clock);
    tcase_add_test(tc, tlb_ports_count_its_cycles);
    tcase_add_test(tc, gmmu_epochs_count_its_cycles);
    tcase_add_test(tc, walk_through);
    tcase_add_test(tc, link_over_a_host);
    tcase_add_test(tc, walker_over_a_host);
    tcase_add_test(tc, system_of_a_gpu_and_a_slower_iommu);
    tc = test_case(s, "bad ratios");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, bad_ratios_refused);
    tcase_add_test(tc, bad_ratio_in_a_system_template);
    return s;
}
