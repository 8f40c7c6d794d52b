/*
 * Barre Chord's PEC logic and coalescing-aware walk scheduling in the walker
 * pool ("Barre Chord: Efficient Virtual Memory Translation for
 * Multi-Chip-Module GPUs" §IV-F, Example 4, Figure 7b, §V-C; the seed-001
 * note's §D.4, §D.6 and §D.10), timed to the cycle.
 *
 * Every timed case runs data 1 of Figure 7a (pages 0x1..0xC, three per
 * chiplet, chiplet g's memory at 0xA000 + g * 0x1000, local frames 0x75,
 * 0x88, 0x114) on 4-level walks of 4 reads of 125 cycles: a walk started at
 * t ends at t + 500. A walker's PEC logic answers the k-th member it takes
 * at the walk's end + k * pec_latency (1 by default).
 *
 * | case | walkers | sent at 0, in order | walked | answers (cycle) |
 * |---|---|---|---|---|
 * | D.4, PEC | 1 | 0x4 0xA 0x1 0x7 0x5 | 0x4 0x5 | 0x4 500, 0xA 501, 0x1 502, 0x7 503, 0x5 1000 |
 * | D.4, no PEC | 1 | same | all | 500, 1000, 1500, 2000, 2500 |
 * | D.4, multicast | 1 | same | 0x4 0x5 | 0x1 501, 0x7 502, 0xA 503 (position order), 0x5 1000 |
 * | D.6, baseline | 1 | 0x1 0x2 0x4 0x7 | all | 500, 1000, 1500, 2000 (makespan 2000, sum 5000) |
 * | D.6, PEC | 1 | same | 0x1 0x2 | 500, 1000, 501, 502 (makespan 1000, sum 2503) |
 * | D.6', PEC | 1 | 0x1 0x4 0x7 0xA | 0x1 | 500, 501, 502, 503 (sum 2006) |
 * | D.10, PEC FCFS | 2 | 0x1 0x4 0x2 0x5 | all | 500, 500, 1000, 1000 (makespan 1000) |
 * | D.10, coal_aware | 2 | same | 0x1 0x2 | 500, 501, 500, 501 (makespan 501) |
 *
 * D.10 with coal_aware: 0x1 starts on walker 0; 0x4 (gap 3 from 0x1) is held
 * back and queued; 0x2 (gap 1) starts on walker 1; 0x5 (gap 3 from 0x2) is
 * held back. The queue [0x4, 0x5] is all coalescible, so its front rotates
 * every cycle 1..500: 500 rotations, and at 500 it reads [0x4, 0x5] again.
 * Walker 0's PEC logic takes 0x4 (501), walker 1's takes 0x5 (501).
 */
#include "host.h"
#include "walk_fixture.h"

static const uint64_t base[4] = {0xA000, 0xB000, 0xC000, 0xD000};
static const uint64_t local[3] = {0x75, 0x88, 0x114};
static const xlat_pec_entry data1 = {.pasid = 1, .start_vpn = 0x1, .end_vpn = 0xC,
                                     .interlv_gran = 3, .gpu_map = {0, 1, 2, 3},
                                     .positions = 4};

static walk_fixture f;
static xlat_pec_buffer *pec;

static uint64_t data1_pfn(uint64_t vpn) { return base[(vpn - 1) / 3] + local[(vpn - 1) % 3]; }

/* A group built by hand: the page on its frame, its group information in
 * bits 52..62. */
static void map_member(xlat_pagetable *pt, uint32_t pasid, uint64_t vpn, uint64_t pfn,
                       const xlat_coal_info *ci)
{
    ck_assert_int_eq(xlat_pagetable_map(pt, pasid, vpn << 12, pfn, 12, XLAT_PERM_R | XLAT_PERM_W),
                     XLAT_OK);
    ck_assert_int_eq(xlat_pagetable_set_avail_high(pt, pasid, vpn << 12,
                                                   (uint32_t)(xlat_coal_encode(0, ci, false) >> 52)),
                     XLAT_OK);
}

/* Figure 7a's data 1, and its PEC entry (Example 3) in a PEC buffer. */
static void map_data1(xlat_ctx *ctx, xlat_pagetable *pt, xlat_pec_buffer **out)
{
    for (uint64_t v = 0x1; v <= 0xC; v++) {
        xlat_coal_info ci = {.bitmap = 0xF0, .inter = (uint8_t)((v - 1) / 3)};
        map_member(pt, 1, v, data1_pfn(v), &ci);
    }
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &pc, out), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_insert(*out, &data1), XLAT_OK);
}

static void setup(void)
{
    wf_memory(&f, NULL, 0);
    wf_table(&f);
    map_data1(f.ctx, f.pt, &pec);
}

static void teardown(void) { wf_destroy(&f); } /* the context destroys the PEC buffer */

/* A pool of `walkers` 500-cycle walkers with the PEC logic (pec_on) over data 1. */
static void pec_config(xlat_walker_config *c, uint32_t walkers, bool pec_on)
{
    xlat_walker_config_init(c);
    c->walkers = walkers;
    c->queue_entries = 16;
    c->mem_latency = 125;
    if (pec_on) {
        c->pec = pec;
        c->pec_base_pfn = base;
        c->pec_chiplets = 4;
    }
}

/* Sends the pages `vpns` at the current cycle (id = page) and runs to 5000. */
static void run(const uint64_t *vpns, int n)
{
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(wf_send(&f, vpns[i], vpns[i] << 12), XLAT_OK);
    ck_assert_int_eq(f.ndone, 0); /* never inside translate */
    wf_run_until(&f, 5000);
    ck_assert_int_eq(f.ndone, n);
}

/* Page `vpn` was answered at `cycle` with its own frame. */
static void answered(uint64_t vpn, uint64_t cycle)
{
    const xlat_resp *r = wf_done(&f, vpn);
    ck_assert_msg(r != NULL, "0x%llx unanswered", (unsigned long long)vpn);
    ck_assert_int_eq(r->status, XLAT_OK);
    ck_assert_msg(r->completed == cycle, "0x%llx at %llu, not %llu", (unsigned long long)vpn,
                  (unsigned long long)r->completed, (unsigned long long)cycle);
    ck_assert_uint_eq(r->paddr >> 12, data1_pfn(vpn));
}

/* Whether page `vpn` was walked (a START in the trace). */
static bool walked(uint64_t vpn)
{
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == XLAT_WALK_START && f.ev[i].id == vpn)
            return true;
    return false;
}

static xlat_walker_stats stats(void)
{
    xlat_walker_stats st;
    xlat_walker_stats_get(f.pool, &st, sizeof(st));
    return st;
}

static const uint64_t d4[5] = {0x4, 0xA, 0x1, 0x7, 0x5};

/* §D.4 / Example 4 as a timed walk: 0xA -> 0xD075 without a walk. */
START_TEST(d4_example4_timed)
{
    xlat_walker_config c;
    pec_config(&c, 1, true);
    wf_pool(&f, &c);
    run(d4, 5);
    answered(0x4, 500);
    answered(0xA, 501);
    answered(0x1, 502);
    answered(0x7, 503);
    answered(0x5, 1000);
    ck_assert(walked(0x4) && walked(0x5) && !walked(0xA) && !walked(0x1) && !walked(0x7));
    xlat_walker_stats st = stats();
    ck_assert_uint_eq(st.walks, 2);
    ck_assert_uint_eq(st.pec_answers, 3);
    ck_assert_uint_eq(st.completed, 5);
    ck_assert_uint_eq(st.service_cycles, 500 + 1 + 2 + 3 + 500); /* computed: PEC time only */
    ck_assert_uint_eq(wf_done(&f, 0xA)->meta.coal_info, 0x3F0); /* its own order 3, bitmap 1111 */
}
END_TEST

/* PEC off: the baseline's cycles, with no PEC buffer or with one that does
 * not know the object. */
START_TEST(pec_off_is_the_baseline)
{
    xlat_walker_config c;
    pec_config(&c, 1, _i == 1);
    if (_i == 1)
        ck_assert_int_eq(xlat_pec_buffer_clear(pec), 1);
    wf_pool(&f, &c);
    run(d4, 5);
    for (int i = 0; i < 5; i++)
        answered(d4[i], 500 * (uint64_t)(i + 1));
    ck_assert_uint_eq(stats().walks, 5);
    ck_assert_uint_eq(stats().pec_answers, 0);
}
END_TEST

/* pec_latency 4: members at +4, +8, +12; 0: in the walk's own cycle. */
START_TEST(pec_latency_per_answer)
{
    xlat_walker_config c;
    pec_config(&c, 1, true);
    c.pec_latency = _i ? 4 : 0;
    wf_pool(&f, &c);
    run(d4, 4);
    answered(0x4, 500);
    answered(0xA, 500 + c.pec_latency);
    answered(0x1, 500 + 2 * c.pec_latency);
    answered(0x7, 500 + 3 * c.pec_latency);
}
END_TEST

/* Multicast: the PEC logic goes through the group in position order, and a
 * member nobody asked for costs its slot all the same. */
START_TEST(multicast_position_order)
{
    xlat_walker_config c;
    pec_config(&c, 1, true);
    c.pec_multicast = true;
    wf_pool(&f, &c);
    run(d4, 5);
    answered(0x1, 501);
    answered(0x7, 502);
    answered(0xA, 503);
    answered(0x5, 1000);
    /* 0x4's group was all asked for; 0x5's walk computes 0x2, 0x8, 0xB for no one */
    ck_assert_uint_eq(stats().pec_multicast, 3);
}
END_TEST

/* Walk of 0x7 (position 2) with 0xA pending: without multicast 0xA comes at
 * 501; with it 0x1 and 0x4 are computed first, unrequested (501, 502). */
START_TEST(multicast_on_off)
{
    xlat_walker_config c;
    pec_config(&c, 1, true);
    c.pec_multicast = _i == 1;
    wf_pool(&f, &c);
    const uint64_t q[2] = {0x7, 0xA};
    run(q, 2);
    answered(0x7, 500);
    answered(0xA, _i ? 503 : 501);
    ck_assert_uint_eq(stats().pec_multicast, _i ? 2 : 0);
    ck_assert_uint_eq(stats().pec_answers, 1);
}
END_TEST

/* §D.6: the 4-entry queue of Figure 7b, baseline and Barre. */
START_TEST(d6_queue_walkthrough)
{
    xlat_walker_config c;
    pec_config(&c, 1, _i == 1);
    wf_pool(&f, &c);
    const uint64_t q[4] = {0x1, 0x2, 0x4, 0x7};
    run(q, 4);
    answered(0x1, 500);
    answered(0x2, 1000);
    answered(0x4, _i ? 501 : 1500);
    answered(0x7, _i ? 502 : 2000);
    ck_assert_uint_eq(stats().walks, _i ? 2 : 4);
}
END_TEST

/* §D.6 with one group: one walk serves four pages. */
START_TEST(d6_one_group_one_walk)
{
    xlat_walker_config c;
    pec_config(&c, 1, true);
    wf_pool(&f, &c);
    const uint64_t q[4] = {0x1, 0x4, 0x7, 0xA};
    run(q, 4);
    uint64_t sum = 0;
    for (int i = 0; i < 4; i++) {
        answered(q[i], 500 + (uint64_t)i);
        sum += wf_done(&f, q[i])->completed;
    }
    ck_assert_uint_eq(sum, 2006);
    ck_assert_uint_eq(stats().walks, 1);
}
END_TEST

/* §D.10: two walkers; FCFS (_i 0), coalescing-aware on FCFS (1) and on DWS
 * with per-walker queues (2). */
START_TEST(d10_coalescing_aware)
{
    xlat_walker_config c;
    pec_config(&c, 2, true);
    c.coal_aware = _i > 0;
    c.sched = _i == 2 ? XLAT_SCHED_DWS : XLAT_SCHED_FCFS;
    wf_pool(&f, &c);
    const uint64_t q[4] = {0x1, 0x4, 0x2, 0x5};
    run(q, 4);
    answered(0x1, 500);
    answered(0x2, _i ? 500 : 1000);
    answered(0x4, _i ? 501 : 500);
    answered(0x5, _i ? 501 : 1000);
    xlat_walker_stats st = stats();
    ck_assert_uint_eq(st.walks, _i ? 2 : 4);
    ck_assert_uint_eq(st.pec_answers, _i ? 2 : 0);
    /* FCFS: one queue [0x4, 0x5] rotating cycles 1..500; DWS: a request in
     * each walker's queue, nothing to rotate. */
    ck_assert_uint_eq(st.rotations, _i == 1 ? 500 : 0);
}
END_TEST

/* The rotation reorders: 0x7 and 0xB, held back by the walks of 0x1 and
 * 0x2, rotate behind 0x3 at cycles 11 and 12 (2 rotations; 0x3 leads from
 * then on); at 500 the PEC logics answer them, a freed walker takes 0x3, and
 * nothing deadlocks. */
START_TEST(rotation_never_deadlocks)
{
    xlat_walker_config c;
    pec_config(&c, 2, true);
    c.coal_aware = true;
    wf_pool(&f, &c);
    ck_assert_int_eq(wf_send(&f, 0x1, 0x1 << 12), XLAT_OK); /* walker 0, 0..500 */
    ck_assert_int_eq(wf_send(&f, 0x2, 0x2 << 12), XLAT_OK); /* walker 1, 0..500 */
    wf_run_until(&f, 10);
    ck_assert_int_eq(wf_send(&f, 0x7, 0x7 << 12), XLAT_OK); /* held: 0x1's group */
    ck_assert_int_eq(wf_send(&f, 0xB, 0xB << 12), XLAT_OK); /* held: 0x2's group */
    ck_assert_int_eq(wf_send(&f, 0x3, 0x3 << 12), XLAT_OK);
    wf_run_until(&f, 5000);
    answered(0x7, 501);
    answered(0xB, 501);
    answered(0x3, 1000); /* walked when a walker freed at 500 */
    ck_assert_uint_eq(stats().walks, 3);
    /* cycles 11..500 (queue [0x7, 0xB, 0x3]): one rotation each until 0x3 leads */
    ck_assert_uint_eq(stats().rotations, 2);
}
END_TEST

/* §A.6's last bullet: a second request of the walked page is not the PEC's;
 * it is walked again, as without PEC. */
START_TEST(identical_page_as_baseline)
{
    xlat_walker_config c;
    pec_config(&c, 1, _i == 1);
    wf_pool(&f, &c);
    ck_assert_int_eq(wf_send(&f, 1, 0x4 << 12), XLAT_OK);
    ck_assert_int_eq(wf_send(&f, 2, 0x4 << 12), XLAT_OK);
    wf_run_until(&f, 2000);
    ck_assert_uint_eq(wf_done(&f, 1)->completed, 500);
    ck_assert_uint_eq(wf_done(&f, 2)->completed, 1000);
    ck_assert_uint_eq(stats().walks, 2);
}
END_TEST

/* A host memory that answers inside mem_read (reads end in their own
 * cycle: the walk of 0x4 ends at 0) or a cycle later (4 reads: at 4). */
START_TEST(host_memory_now_or_later)
{
    host h;
    host_init(&h, f.ctx, _i);
    xlat_walker_config c;
    pec_config(&c, 1, true);
    host_memory_config(&h, &c);
    wf_pool(&f, &c);
    h.walker = f.pool;
    run(d4, 5);
    uint64_t end = _i ? 4 : 0;
    answered(0x4, end);
    answered(0xA, end + 1);
    answered(0x1, end + 2);
    answered(0x7, end + 3);
    answered(0x5, 2 * end);
    ck_assert_uint_eq(xlat__events_overruns(f.ctx), 0);
}
END_TEST

/* Errors: bad PEC options are refused, and the PEC buffer outlives its pool. */
START_TEST(bad_pec_config)
{
    xlat_walker_config c;
    xlat_walker *w = NULL;
    for (int k = 0; k < 6; k++) {
        pec_config(&c, 1, k < 4);
        c.pt = f.pt;
        if (k == 0)
            c.pec_base_pfn = NULL;
        if (k == 1)
            c.pec_chiplets = 0;
        if (k == 2)
            c.pec_chiplets = 17;
        if (k == 3)
            c.pec_latency = 1000001;
        c.pec_multicast = k == 4;
        c.coal_aware = k == 5;
        ck_assert_int_eq(xlat_walker_create(f.ctx, &c, &w), XLAT_ERR_INVAL);
        ck_assert_ptr_null(w);
    }
    /* the expanded layout over a buffer of Barre's: frames would be wrong */
    pec_config(&c, 1, true);
    c.pt = f.pt;
    c.pec_expanded = true;
    ck_assert_int_eq(xlat_walker_create(f.ctx, &c, &w), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(f.ctx), "layout"));
    pec_config(&c, 1, true);
    c.pt = f.pt;
    ck_assert_int_eq(xlat_walker_create(f.ctx, &c, &w), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(pec), XLAT_ERR_BUSY);
    ck_assert_int_eq(xlat_walker_destroy(w), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_destroy(pec), XLAT_OK);
}
END_TEST

/* The IOMMU with a PEC walker template answers Example 4: 0xA -> 0xD075
 * one cycle after 0x4's walk, without a walk of its own. */
START_TEST(iommu_example4)
{
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = f.pt;
    wc.walkers = 1;
    wc.pec = pec;
    wc.pec_base_pfn = base;
    wc.pec_chiplets = 4;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_iommu *m;
    ck_assert_msg(xlat_iommu_create(f.ctx, &ic, &m) == XLAT_OK, "%s", xlat_ctx_errmsg(f.ctx));
    xlat_target t = TEST_TARGET(iommu, m);
    host h;
    host_init(&h, f.ctx, 0);
    ck_assert_int_eq(host_send(&h, &t, 4, 0x4 << 12, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&h, &t, 10, 0xA << 12, 1), XLAT_OK);
    host_run(&h, 2, 5000);
    ck_assert_int_eq(h.answers[10], 1);
    ck_assert_int_eq(h.status[10], XLAT_OK);
    ck_assert_uint_eq(h.paddr[10] >> 12, 0xD075);
    ck_assert_uint_eq(h.paddr[4] >> 12, 0xB075);
    ck_assert_uint_eq(h.completed[10], h.completed[4] + 1);
    xlat_walker_stats st;
    xlat_walker_stats_get(xlat_iommu_walker(m), &st, sizeof(st));
    ck_assert_uint_eq(st.walks, 1);
    ck_assert_uint_eq(st.pec_answers, 1);
    ck_assert_int_eq(xlat_iommu_destroy(m), XLAT_OK);
}
END_TEST

/* ---- randomized: every computed frame is the page table's ------------- */

#define RAND_REQS 160

static struct {
    int answers[RAND_REQS];
    xlat_resp resp[RAND_REQS];
} rr;

static void rand_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_uint_lt(r->id, RAND_REQS);
    rr.answers[r->id]++;
    rr.resp[r->id] = *r;
}

/* A random object: C chiplets in a random gpu_map, `gran` pages each per
 * round, 1..3 rounds; group (round, j) on local frame 0x10 + round * gran + j.
 * With a hole, position `hole`'s pages are mapped apart (as after a
 * migration) and every member's bitmap lacks that chiplet. */
struct rand_object {
    xlat_pec_entry d;
    uint64_t base[8];
};

static void rand_object(xlat_pagetable *pt, uint64_t *seed, struct rand_object *o)
{
    uint8_t perm[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int i = 7; i > 0; i--) {
        int k = (int)(test_rand(seed) % (uint64_t)(i + 1));
        uint8_t t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    uint32_t chiplets = 2 + (uint32_t)(test_rand(seed) % 7), gran = 1 + (uint32_t)(test_rand(seed) % 4);
    uint32_t rounds = 1 + (uint32_t)(test_rand(seed) % 3);
    int hole = test_rand(seed) % 2 ? (int)(test_rand(seed) % chiplets) : -1;
    uint8_t bitmap = 0;
    for (uint32_t k = 0; k < chiplets; k++)
        bitmap |= (uint8_t)((int)k == hole ? 0 : 0x80 >> perm[k]);
    memset(o, 0, sizeof(*o));
    o->d = (xlat_pec_entry){.pasid = 1, .start_vpn = 0x1000 + test_rand(seed) % 0x100,
                            .interlv_gran = gran, .positions = (uint8_t)chiplets};
    memcpy(o->d.gpu_map, perm, chiplets);
    o->d.end_vpn = o->d.start_vpn + (uint64_t)rounds * chiplets * gran - 1;
    for (int g = 0; g < 8; g++)
        o->base[g] = 0x100000 + (uint64_t)g * 0x10000;
    for (uint64_t v = o->d.start_vpn; v <= o->d.end_vpn; v++) {
        uint64_t off = v - o->d.start_vpn, round = off / (chiplets * gran);
        uint32_t k = (uint32_t)(off % (chiplets * gran) / gran), j = (uint32_t)(off % gran);
        xlat_coal_info ci = {.bitmap = (int)k == hole ? 0 : bitmap, .inter = (uint8_t)k};
        uint64_t pfn = (int)k == hole ? 0x90000 + v : o->base[perm[k]] + 0x10 + round * gran + j;
        map_member(pt, 1, v, pfn, &ci);
    }
}

static void rand_pool(xlat_ctx *ctx, xlat_pagetable *pt, xlat_pec_buffer *buf,
                      const struct rand_object *o, uint64_t *seed, xlat_walker **out)
{
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = pt;
    c.walkers = 1 + (uint32_t)(test_rand(seed) % 4);
    c.queue_entries = 32;
    c.mem_latency = 5 + (uint32_t)(test_rand(seed) % 40);
    c.sched = test_rand(seed) % 2 ? XLAT_SCHED_DWS : XLAT_SCHED_FCFS;
    c.coalesce = test_rand(seed) % 4 == 0;
    c.pec = buf;
    c.pec_base_pfn = o->base;
    c.pec_chiplets = 8;
    c.pec_latency = (uint32_t)(test_rand(seed) % 3);
    c.pec_multicast = test_rand(seed) % 3 == 0;
    c.coal_aware = test_rand(seed) % 2;
    ck_assert_int_eq(xlat_walker_create(ctx, &c, out), XLAT_OK);
}

/* Random requests over the object, a few a cycle (refused ones retried):
 * each is answered once, OK, with the page table's frame and group info. */
START_TEST(random_frames_equal_lookup)
{
    uint64_t seed = 0xBA77E + (uint64_t)_i;
    xlat_ctx *ctx = test_ctx(seed, NULL);
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    struct rand_object o;
    rand_object(pt, &seed, &o);
    xlat_pec_buffer_config pc;
    xlat_pec_buffer_config_init(&pc);
    xlat_pec_buffer *buf;
    ck_assert_int_eq(xlat_pec_buffer_create(ctx, &pc, &buf), XLAT_OK);
    ck_assert_int_eq(xlat_pec_buffer_insert(buf, &o.d), XLAT_OK);
    xlat_walker *pool;
    rand_pool(ctx, pt, buf, &o, &seed, &pool);
    memset(&rr, 0, sizeof(rr));
    uint64_t pages = o.d.end_vpn - o.d.start_vpn + 1;
    for (uint64_t id = 0; id < RAND_REQS;) {
        for (uint64_t n = test_rand(&seed) % 4; n && id < RAND_REQS; n--) {
            uint64_t v = o.d.start_vpn + test_rand(&seed) % pages;
            xlat_req req = {.id = id, .vaddr = v << 12 | (id & 0xFFF), .pasid = 1};
            int rc = xlat_walker_translate(pool, &req, rand_done, NULL);
            ck_assert(rc == XLAT_OK || rc == XLAT_ERR_AGAIN);
            id += rc == XLAT_OK;
        }
        ck_assert_int_eq(xlat_advance(ctx, 1 + test_rand(&seed) % 8), XLAT_OK);
    }
    ck_assert_int_eq(xlat_advance(ctx, 100000), XLAT_OK);
    for (uint64_t id = 0; id < RAND_REQS; id++) {
        const xlat_resp *r = &rr.resp[id];
        ck_assert_int_eq(rr.answers[id], 1);
        ck_assert_int_eq(r->status, XLAT_OK);
        xlat_tlb_entry e;
        ck_assert_int_eq(xlat_pagetable_lookup(pt, 1, r->vaddr, &e), XLAT_OK);
        ck_assert_uint_eq(r->paddr >> 12, e.pfn);
        ck_assert_uint_eq(r->paddr & 0xFFF, id & 0xFFF);
        ck_assert_uint_eq(r->meta.coal_info, e.meta.coal_info);
    }
    xlat_walker_stats st;
    xlat_walker_stats_get(pool, &st, sizeof(st));
    ck_assert_uint_eq(st.completed, RAND_REQS);
    ck_assert_uint_eq(xlat__events_overruns(ctx), 0);
    xlat_ctx_destroy(ctx);
}
END_TEST

Suite *barre_pec_suite(void)
{
    Suite *s = suite_create("barre_pec");
    TCase *tc = test_case(s, "timed");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, d4_example4_timed);
    tcase_add_loop_test(tc, pec_off_is_the_baseline, 0, 2);
    tcase_add_loop_test(tc, pec_latency_per_answer, 0, 2);
    tcase_add_test(tc, multicast_position_order);
    tcase_add_loop_test(tc, multicast_on_off, 0, 2);
    tcase_add_loop_test(tc, d6_queue_walkthrough, 0, 2);
    tcase_add_test(tc, d6_one_group_one_walk);
    tcase_add_loop_test(tc, d10_coalescing_aware, 0, 3);
    tcase_add_test(tc, rotation_never_deadlocks);
    tcase_add_loop_test(tc, identical_page_as_baseline, 0, 2);
    tcase_add_loop_test(tc, host_memory_now_or_later, 0, 2);
    tcase_add_test(tc, bad_pec_config);
    tcase_add_test(tc, iommu_example4);
    tc = test_case(s, "random");
    tcase_add_loop_test(tc, random_frames_equal_lookup, 0, 40);
    return s;
}
