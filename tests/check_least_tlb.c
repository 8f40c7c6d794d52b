/* The walk-throughs of "Improving Address Translation in Multi-GPUs via
 * Sharing and Spilling aware TLB Design": Figure 10 (single application)
 * and Figure 13 (multiple applications), step by step, for least-TLB and
 * the mostly-inclusive baseline: who answers each request, the L2 and IOMMU
 * TLB contents (LRU to MRU; * marks a spilled guest), the tracker and the
 * counters. */
#include "least_fixture.h"

#include <stdio.h>
#include <xlat/experimental.h> /* xlat_iommu_tracked */

static least_fixture f;

static void teardown(void) { lf_destroy(&f); }

typedef struct step {
    uint32_t gpu;
    uint64_t vpn;
    const char *outcome;
    const char *l2[LF_GPUS];
    const char *iommu;
    const char *tracker[LF_GPUS]; /* NULL: not checked */
    uint64_t counter[LF_GPUS];    /* all zero: not checked */
} step;

static void check_state(const step *s, int n)
{
    char buf[256];
    for (uint32_t g = 0; g < LF_GPUS; g++)
        ck_assert_msg(!strcmp(lf_contents(&f, f.l2[g], buf, sizeof(buf)), s->l2[g]),
                      "step %d: gpu%u L2 is [%s], expected [%s]", n, g, buf, s->l2[g]);
    ck_assert_msg(!strcmp(lf_contents(&f, xlat_iommu_tlb(f.iommu), buf, sizeof(buf)), s->iommu),
                  "step %d: IOMMU TLB is [%s], expected [%s]", n, buf, s->iommu);
    for (uint32_t g = 0; g < LF_GPUS && s->tracker[0]; g++)
        ck_assert_msg(!strcmp(lf_tracker(&f, g, buf, sizeof(buf)), s->tracker[g]),
                      "step %d: tracker %u is {%s}, expected {%s}", n, g, buf, s->tracker[g]);
    bool counters = s->counter[0] || s->counter[1] || s->counter[2] || s->counter[3];
    for (uint32_t g = 0; g < LF_GPUS && counters; g++)
        ck_assert_msg(xlat_iommu_eviction_counter(f.iommu, g) == s->counter[g],
                      "step %d: counter %u is %llu, expected %llu", n, g,
                      (unsigned long long)xlat_iommu_eviction_counter(f.iommu, g),
                      (unsigned long long)s->counter[g]);
}

static void run_steps(const step *steps, int n)
{
    check_state(&steps[0], 0);
    for (int i = 1; i < n; i++) {
        const char *who = lf_access(&f, steps[i].gpu, steps[i].vpn);
        ck_assert_msg(!strcmp(who, steps[i].outcome), "step %d: %s, expected %s", i, who,
                      steps[i].outcome);
        check_state(&steps[i], i);
    }
}

static void fig10_start(xlat_incl incl)
{
    lf_build(&f, 1, 4, incl, false, XLAT_SPILL_CUMULATIVE);
    for (uint32_t g = 0; g < LF_GPUS; g++)
        lf_preload_l2(&f, g, g + 1);
}

/* Figure 10 under least-TLB, step by step. */
static const step fig10_least_steps[] = {
    {0, 0, "", {"0x1", "0x2", "0x3", "0x4"}, "", {"0x1", "0x2", "0x3", "0x4"}, {0}},
    {0, 0x5, "WALK", {"0x5", "0x2", "0x3", "0x4"}, "0x1", {"0x5", "0x2", "0x3", "0x4"}, {0}},
    {1, 0x1, "IOMMU", {"0x5", "0x1", "0x3", "0x4"}, "0x2", {"0x5", "0x1", "0x3", "0x4"}, {0}},
    {2, 0x1, "REMOTE(1)", {"0x5", "0x1", "0x1", "0x4"}, "0x2 0x3",
     {"0x5", "0x1", "0x1", "0x4"}, {0}},
    {3, 0x1, "REMOTE(1)", {"0x5", "0x1", "0x1", "0x1"}, "0x2 0x3 0x4",
     {"0x5", "0x1", "0x1", "0x1"}, {0}},
    /* The extract's extra step: 0x2 moves out of the IOMMU, 0x5 moves in. */
    {0, 0x2, "IOMMU", {"0x2", "0x1", "0x1", "0x1"}, "0x3 0x4 0x5",
     {"0x2", "0x1", "0x1", "0x1"}, {0}},
};

START_TEST(figure10_least_tlb)
{
    fig10_start(XLAT_INCL_LEAST);
    run_steps(fig10_least_steps, 6);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.walk_answers, 1);
    ck_assert_uint_eq(st.tlb_hits, 2);
    ck_assert_uint_eq(st.remote_hits, 2);
    ck_assert_uint_eq(st.late_discarded, 2); /* the walks the remote hits beat */
}
END_TEST

static int host_victims;
static void host_heard(void *user, xlat_tlb *tlb, const xlat_tlb_entry *victim)
{
    (void)tlb;
    (void)victim;
    (*(int *)user)++;
}

/* The host sets its own eviction hook on every L2 after the IOMMU was
 * attached, and adds and removes a listener: least-TLB still hears every
 * victim (Figure 10 unchanged), and so does the host. */
START_TEST(figure10_with_host_eviction_hooks)
{
    fig10_start(XLAT_INCL_LEAST);
    int other = 0;
    host_victims = 0;
    for (uint32_t g = 0; g < LF_GPUS; g++) {
        xlat_tlb_set_evict_fn(f.l2[g], host_heard, &host_victims);
        ck_assert_int_eq(xlat_tlb_evict_listen(f.l2[g], host_heard, &other), XLAT_OK);
        ck_assert_int_eq(xlat_tlb_evict_unlisten(f.l2[g], host_heard, &other), XLAT_OK);
    }
    run_steps(fig10_least_steps, 6);
    ck_assert_int_eq(host_victims, 5); /* one victim per step after the first */
    ck_assert_int_eq(other, 0);
}
END_TEST

START_TEST(figure10_baseline)
{
    fig10_start(XLAT_INCL_MOSTLY);
    for (uint32_t g = 0; g < LF_GPUS; g++)
        lf_preload_iommu(&f, g, g + 1);
    static const step steps[] = {
        {0, 0, "", {"0x1", "0x2", "0x3", "0x4"}, "0x1 0x2 0x3 0x4", {NULL}, {0}},
        {0, 0x5, "WALK", {"0x5", "0x2", "0x3", "0x4"}, "0x2 0x3 0x4 0x5", {NULL}, {0}},
        {1, 0x1, "WALK", {"0x5", "0x1", "0x3", "0x4"}, "0x3 0x4 0x5 0x1", {NULL}, {0}},
        {2, 0x1, "IOMMU", {"0x5", "0x1", "0x1", "0x4"}, "0x3 0x4 0x5 0x1", {NULL}, {0}},
        {3, 0x1, "IOMMU", {"0x5", "0x1", "0x1", "0x1"}, "0x3 0x4 0x5 0x1", {NULL}, {0}},
    };
    run_steps(steps, 5);
}
END_TEST

static void fig13_start(xlat_incl incl, xlat_spill_rx rx)
{
    lf_build(&f, 2, 8, incl, true, rx);
    static const uint64_t l2[LF_GPUS][2] = {{0x1, 0x2}, {0x3, 0}, {0x4, 0x5}, {0x6, 0}};
    for (uint32_t g = 0; g < LF_GPUS ; g++)
        for (int i = 0; i < 2; i++)
            if (l2[g][i])
                lf_preload_l2(&f, g, l2[g][i]);
    static const struct {
        uint32_t source;
        uint64_t vpn;
    } iommu[] = {{0, 0x7}, {0, 0x8}, {1, 0x9}, {2, 0xA}, {2, 0xB}, {2, 0xC}, {3, 0xD}, {0, 0xE}};
    for (int i = 0; i < 8; i++)
        lf_preload_iommu(&f, iommu[i].source, iommu[i].vpn);
}

static const step fig13_least[] = {
    {0, 0, "", {"0x1 0x2", "0x3", "0x4 0x5", "0x6"}, "0x7 0x8 0x9 0xA 0xB 0xC 0xD 0xE",
     {"", "", "", ""}, {3, 1, 3, 1}},
    {2, 0x11, "WALK", {"0x1 0x2", "0x3 0x7*", "0x5 0x11", "0x6"},
     "0x8 0x9 0xA 0xB 0xC 0xD 0xE 0x4", {"", "0x7", "", ""}, {3, 1, 4, 1}},
    {2, 0x7, "REMOTE(1)", {"0x1 0x2", "0x3 0x8*", "0x11 0x7", "0x6"},
     "0x9 0xA 0xB 0xC 0xD 0xE 0x4 0x5", {"", "0x8", "", ""}, {3, 1, 5, 1}},
    {1, 0x12, "WALK", {"0x1 0x2", "0x8* 0x12", "0x11 0x7", "0x6 0x9*"},
     "0xA 0xB 0xC 0xD 0xE 0x4 0x5 0x3", {"", "0x8", "", "0x9"}, {3, 2, 5, 1}},
    {1, 0x13, "WALK", {"0x1 0x2", "0x12 0x13", "0x11 0x7", "0x6 0x9*"},
     "0xA 0xB 0xC 0xD 0xE 0x4 0x5 0x3", {"", "", "", "0x9"}, {3, 2, 5, 1}},
};

START_TEST(figure13_least_tlb_cumulative)
{
    fig13_start(XLAT_INCL_LEAST, XLAT_SPILL_CUMULATIVE);
    run_steps(fig13_least, 5);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.walk_answers, 3);
    ck_assert_uint_eq(st.remote_hits, 1);
    ck_assert_uint_eq(st.spills, 3);
    ck_assert_uint_eq(st.victims_dropped, 1); /* 0x8, spilled, leaves GPU1 for good */
}
END_TEST

/* The occupancy reading of §4.3 (fewest IOMMU entries, excluding the
 * entry's own GPU, ties to the emptier L2) picks the same receivers. */
START_TEST(figure13_least_tlb_occupancy)
{
    fig13_start(XLAT_INCL_LEAST, XLAT_SPILL_OCCUPANCY);
    step steps[5];
    memcpy(steps, fig13_least, sizeof(steps));
    static const uint64_t occ[5][LF_GPUS] = {
        {3, 1, 3, 1}, {2, 1, 4, 1}, {1, 1, 5, 1}, {1, 1, 5, 1}, {1, 1, 5, 1}};
    for (int i = 0; i < 5; i++)
        memcpy(steps[i].counter, occ[i], sizeof(occ[i]));
    run_steps(steps, 5);
}
END_TEST

START_TEST(figure13_baseline)
{
    fig13_start(XLAT_INCL_MOSTLY, XLAT_SPILL_CUMULATIVE);
    static const step steps[] = {
        {0, 0, "", {"0x1 0x2", "0x3", "0x4 0x5", "0x6"}, "0x7 0x8 0x9 0xA 0xB 0xC 0xD 0xE",
         {NULL}, {0}},
        {2, 0x11, "WALK", {"0x1 0x2", "0x3", "0x5 0x11", "0x6"},
         "0x8 0x9 0xA 0xB 0xC 0xD 0xE 0x11", {NULL}, {0}},
        {2, 0x7, "WALK", {"0x1 0x2", "0x3", "0x11 0x7", "0x6"},
         "0x9 0xA 0xB 0xC 0xD 0xE 0x11 0x7", {NULL}, {0}},
        {1, 0x12, "WALK", {"0x1 0x2", "0x3 0x12", "0x11 0x7", "0x6"},
         "0xA 0xB 0xC 0xD 0xE 0x11 0x7 0x12", {NULL}, {0}},
        {1, 0x13, "WALK", {"0x1 0x2", "0x12 0x13", "0x11 0x7", "0x6"},
         "0xB 0xC 0xD 0xE 0x11 0x7 0x12 0x13", {NULL}, {0}},
    };
    run_steps(steps, 5);
}
END_TEST

/* Inclusive: an IOMMU TLB victim leaves every L2 too (back-invalidation). */
START_TEST(inclusive_back_invalidates)
{
    lf_build(&f, 1, 2, XLAT_INCL_INCLUSIVE, false, XLAT_SPILL_CUMULATIVE);
    static const step steps[] = {
        {0, 0, "", {"", "", "", ""}, "", {NULL}, {0}},
        {0, 0x1, "WALK", {"0x1", "", "", ""}, "0x1", {NULL}, {0}},
        {1, 0x2, "WALK", {"0x1", "0x2", "", ""}, "0x1 0x2", {NULL}, {0}},
        {2, 0x3, "WALK", {"", "0x2", "0x3", ""}, "0x2 0x3", {NULL}, {0}},
        {0, 0x1, "WALK", {"0x1", "", "0x3", ""}, "0x3 0x1", {NULL}, {0}},
    };
    run_steps(steps, 5);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.back_invalidations, 2);
}
END_TEST

/* Exclusive: a walk fills only the L2, an L2 victim moves into the IOMMU
 * TLB, an IOMMU hit moves it out again; no tracker, no remote lookups. */
START_TEST(exclusive_moves)
{
    lf_build(&f, 1, 2, XLAT_INCL_EXCLUSIVE, false, XLAT_SPILL_CUMULATIVE);
    static const step steps[] = {
        {0, 0, "", {"", "", "", ""}, "", {NULL}, {0}},
        {0, 0x1, "WALK", {"0x1", "", "", ""}, "", {NULL}, {0}},
        {0, 0x2, "WALK", {"0x2", "", "", ""}, "0x1", {NULL}, {0}},
        {1, 0x1, "IOMMU", {"0x2", "0x1", "", ""}, "", {NULL}, {0}},
        {2, 0x1, "WALK", {"0x2", "0x1", "0x1", ""}, "", {NULL}, {0}},
    };
    run_steps(steps, 5);
}
END_TEST

/* A spill's own victim can set off another spill: GPU 0's fill of 0x4
 * evicts 0x1 into the IOMMU TLB, whose victim 0x3 is spilled to GPU 1;
 * that spill evicts GPU 1's 0x2 into the IOMMU TLB, whose victim 0x1 is
 * spilled to GPU 2. One victim, a chain of two spills (the counter stayed
 * at 1: the chain was restarted for every queued victim). */
START_TEST(spill_chain)
{
    lf_build(&f, 1, 1, XLAT_INCL_LEAST, true, XLAT_SPILL_CUMULATIVE);
    lf_preload_l2(&f, 0, 0x1);
    lf_preload_l2(&f, 1, 0x2);
    lf_preload_iommu(&f, 0, 0x3);
    static const step steps[] = {
        {0, 0, "", {"0x1", "0x2", "", ""}, "0x3", {"", "", "", ""}, {1, 0, 0, 0}},
        {0, 0x4, "WALK", {"0x4", "0x3*", "0x1*", ""}, "0x2", {"", "0x3", "0x1", ""}, {2, 1, 0, 0}},
    };
    run_steps(steps, 2);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.spills, 2);
    ck_assert_uint_eq(st.max_spill_chain, 2);
    /* A second, independent victim starts a chain of its own. */
    ck_assert_str_eq(lf_access(&f, 3, 0x5), "WALK");
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.max_spill_chain, 2);
}
END_TEST

static xlat_meta meta_of(xlat_tlb *t, uint64_t vpn)
{
    xlat_tlb_entry e;
    ck_assert_int_eq(xlat_tlb_probe(t, 1, vpn << 12, &e), XLAT_OK);
    return e.meta;
}

/* The chain above, read through the typed metadata (§4.2, N = 1): the
 * answer leaves the IOMMU native with full credit and no home; an IOMMU
 * TLB entry's home is the GPU whose L2 evicted it; a spilled guest has
 * used its credit, has no home and is marked spilled. */
START_TEST(spill_metadata)
{
    lf_build(&f, 1, 1, XLAT_INCL_LEAST, true, XLAT_SPILL_CUMULATIVE);
    lf_preload_l2(&f, 0, 0x1);
    lf_preload_l2(&f, 1, 0x2);
    lf_preload_iommu(&f, 0, 0x3);
    ck_assert_str_eq(lf_access(&f, 0, 0x4), "WALK");
    xlat_meta m = f.last.meta;
    ck_assert(m.spill_credit == 1 && !m.spilled && m.home_gpu == 0);
    m = meta_of(f.l2[0], 0x4);
    ck_assert(m.spill_credit == 1 && !m.spilled && m.home_gpu == 0);
    m = meta_of(xlat_iommu_tlb(f.iommu), 0x2);
    ck_assert(m.spill_credit == 1 && !m.spilled && m.home_gpu == 1);
    m = meta_of(f.l2[1], 0x3);
    ck_assert(m.spill_credit == 0 && m.spilled && m.home_gpu == 0);
    m = meta_of(f.l2[2], 0x1);
    ck_assert(m.spill_credit == 0 && m.spilled && m.home_gpu == 0);
    ck_assert_uint_eq(m.object_id | m.coal_info, 0); /* least-TLB sets no Barre field */
}
END_TEST

/* The requester's new entry and a spill into the same L2 set: the L2 fills
 * the requester's entry first (its victim reaches the IOMMU from inside
 * that fill), and the spill it sets off lands afterwards at MRU, one above
 * the new entry (doc/least-tlb.md). Occupancy rule: GPU 1's 0x3 leaves the
 * IOMMU TLB and every other GPU has one entry there and a full L2, so the
 * lowest id, the requester GPU 0, receives it. */
START_TEST(spill_into_the_requesters_set)
{
    lf_build(&f, 2, 3, XLAT_INCL_LEAST, true, XLAT_SPILL_OCCUPANCY);
    static const uint64_t l2[LF_GPUS][2] = {{0x1, 0x2}, {0, 0}, {0x8, 0x9}, {0xA, 0xB}};
    for (uint32_t g = 0; g < LF_GPUS; g++)
        for (int i = 0; i < 2; i++)
            if (l2[g][i])
                lf_preload_l2(&f, g, l2[g][i]);
    lf_preload_iommu(&f, 1, 0x3);
    lf_preload_iommu(&f, 2, 0x5);
    lf_preload_iommu(&f, 3, 0x6);
    static const step steps[] = {
        {0, 0, "", {"0x1 0x2", "", "0x8 0x9", "0xA 0xB"}, "0x3 0x5 0x6", {"", "", "", ""},
         {0, 1, 1, 1}},
        {0, 0x4, "WALK", {"0x4 0x3*", "0x5*", "0x8 0x9", "0xA 0xB"}, "0x6 0x1 0x2",
         {"0x3", "0x5", "", ""}, {2, 0, 0, 1}},
    };
    run_steps(steps, 2);
}
END_TEST

/* The tracker of 130 GPUs (partitions in three 64-GPU words of its
 * holding mask): an IOMMU miss finds the lowest GPU other than the
 * requester whose partition holds the page, across the words; a partition
 * emptied by a shootdown, or the whole tracker reset by a flush, is asked
 * no more (no probe goes out). */
static uint64_t remote_probes(void)
{
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    return st.remote_probes;
}

START_TEST(tracker_across_many_gpus)
{
    lf_build_gpus(&f, LF_MAX_GPUS, 2, 4, XLAT_INCL_LEAST, false, XLAT_SPILL_CUMULATIVE);
    lf_preload_l2(&f, 129, 0x5);
    ck_assert_str_eq(lf_access(&f, 0, 0x5), "REMOTE(129)");
    lf_preload_l2(&f, 129, 0x6);
    lf_preload_l2(&f, 70, 0x6);
    ck_assert_str_eq(lf_access(&f, 1, 0x6), "REMOTE(70)");
    lf_preload_l2(&f, 64, 0x7);
    ck_assert_str_eq(lf_access(&f, 63, 0x7), "REMOTE(64)");
    lf_preload_l2(&f, 63, 0x8);
    ck_assert_str_eq(lf_access(&f, 64, 0x8), "REMOTE(63)");
    ck_assert_uint_eq(remote_probes(), 4);
    /* The page only GPU 129 holds leaves it: a request for it walks. */
    ck_assert_int_eq(xlat_iommu_invalidate(f.iommu, 1, 0x5 << 12), 2); /* 129's, 0's */
    ck_assert_str_eq(lf_access(&f, 2, 0x5), "WALK");
    ck_assert_uint_eq(remote_probes(), 4);
    /* A flush resets every partition, though the L2s keep their entries. */
    lf_preload_l2(&f, 100, 0x9);
    ck_assert(xlat_iommu_tracked(f.iommu, 100, 1, 0x9 << 12));
    ck_assert_int_ge(xlat_iommu_flush(f.iommu), 0);
    ck_assert(!xlat_iommu_tracked(f.iommu, 100, 1, 0x9 << 12));
    ck_assert_str_eq(lf_access(&f, 0, 0x9), "WALK");
    ck_assert_str_eq(lf_access(&f, 1, 0x7), "WALK");
    ck_assert_uint_eq(remote_probes(), 4);
    /* Tracking starts again from the fills after the flush. */
    ck_assert_str_eq(lf_access(&f, 99, 0x9), "REMOTE(0)");
    ck_assert_uint_eq(remote_probes(), 5);
}
END_TEST

/* A 2 MiB entry of region r that maps the frames the fixture's 4 KiB
 * entries do: 4 KiB page v at frame 0x1000 + v. */
static xlat_tlb_entry huge_page(uint64_t r)
{
    xlat_tlb_entry e = {.pasid = 1, .vpn = r, .pfn = (0x1000 + (r << 9)) >> 9, .page_shift = 21,
                        .perm = XLAT_PERM_R | XLAT_PERM_W};
    return e;
}

/* Each partition is asked for the keys of the page sizes it holds: GPU 65
 * holds a 2 MiB page alone (one key, of 2 MiB), GPU 66 a 2 MiB page and a
 * 4 KiB one (both keys), GPU 67 a 4 KiB page; a find answers the lowest
 * GPU whose partition holds the request's page in any size, both while
 * every partition in use holds one size (2 MiB: one key for all) and
 * while they hold several. */
START_TEST(tracker_asks_each_partitions_page_sizes)
{
    lf_build_gpus(&f, LF_MAX_GPUS, 2, 4, XLAT_INCL_LEAST, false, XLAT_SPILL_CUMULATIVE);
    xlat_tlb_entry region0 = huge_page(0), region2 = huge_page(2);
    ck_assert_int_eq(xlat_iommu_preload_l2(f.iommu, 65, &region0), XLAT_OK);
    ck_assert_str_eq(lf_access(&f, 1, 0x8), "REMOTE(65)");   /* region 0's key */
    lf_preload_l2(&f, 67, 0x207);
    ck_assert_str_eq(lf_access(&f, 0, 0x207), "REMOTE(67)"); /* 65: region 1's key, no */
    ck_assert_int_eq(xlat_iommu_preload_l2(f.iommu, 66, &region2), XLAT_OK);
    lf_preload_l2(&f, 66, 0x209);
    lf_preload_l2(&f, 67, 0x209);
    ck_assert_str_eq(lf_access(&f, 2, 0x209), "REMOTE(66)"); /* its 4 KiB key */
    ck_assert_str_eq(lf_access(&f, 3, 0x405), "REMOTE(66)"); /* its 2 MiB key */
    ck_assert_uint_eq(remote_probes(), 4);
}
END_TEST

/* ---- a host-written L2 behind the IOMMU's L2 port ------------------------
 * Not an xlat_tlb: a fully associative LRU array of the host's, reached by
 * the IOMMU only through an xlat_l2_port (probes answered 100 cycles later
 * by the host's own event), reporting its victims with xlat_iommu_l2_victim
 * and filling itself from the IOMMU's answers. */

typedef struct host_l2 {
    uint32_t gpu, cap, n;
    xlat_tlb_entry e[4]; /* LRU first */
} host_l2;

static host_l2 hl2[LF_GPUS];
/* The host L2 whose probe answer is being delivered, and the one that
 * delivered the last answer (NULL: none): a host's L2 is no unit, so the
 * IOMMU's answer to its remote hit names resolver 0, and the test knows
 * which L2 it was from here. */
static const host_l2 *hprobing, *hanswered;

typedef struct host_probe {
    host_l2 *l2;
    uint32_t pasid;
    uint64_t vaddr;
    xlat_l2_answer_fn answer;
    void *actx;
} host_probe;

static host_probe hprobe[16];
static int hprobes;

static int host_find(const host_l2 *l2, uint32_t pasid, uint64_t vaddr)
{
    for (uint32_t i = 0; i < l2->n; i++)
        if (l2->e[i].pasid == pasid && l2->e[i].vpn == vaddr >> l2->e[i].page_shift)
            return (int)i;
    return -1;
}

static void host_remove(host_l2 *l2, uint32_t i)
{
    memmove(&l2->e[i], &l2->e[i + 1], (l2->n - i - 1) * sizeof(l2->e[0]));
    l2->n--;
}

static int host_insert(void *user, const xlat_tlb_entry *e)
{
    host_l2 *l2 = user;
    int i = host_find(l2, e->pasid, e->vpn << e->page_shift);
    if (i >= 0)
        host_remove(l2, (uint32_t)i);
    int evicted = l2->n == l2->cap;
    xlat_tlb_entry victim = l2->e[0];
    if (evicted)
        host_remove(l2, 0);
    l2->e[l2->n++] = *e;
    if (evicted)
        ck_assert_int_eq(xlat_iommu_l2_victim(f.iommu, l2->gpu, &victim), XLAT_OK);
    return evicted;
}

static void host_probe_arrives(void *arg)
{
    host_probe *p = arg;
    int i = host_find(p->l2, p->pasid, p->vaddr);
    hprobing = p->l2; /* the IOMMU answers a hit inside this call */
    p->answer(p->actx, i >= 0 ? &p->l2->e[i] : NULL);
    hprobing = NULL;
}

static int host_probe_send(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_answer_fn answer,
                           void *actx)
{
    host_probe *p = &hprobe[hprobes++ % 16];
    *p = (host_probe){user, pasid, vaddr, answer, actx};
    return xlat_schedule(f.ctx, 100, host_probe_arrives, p);
}

static int host_invalidate(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_gone_fn gone,
                           void *gctx)
{
    host_l2 *l2 = user;
    int i, removed = 0;
    while ((i = host_find(l2, pasid, vaddr)) >= 0) {
        xlat_tlb_entry e = l2->e[i];
        host_remove(l2, (uint32_t)i);
        if (gone)
            gone(gctx, &e);
        removed++;
    }
    return removed;
}

static size_t host_count(void *user) { return ((host_l2 *)user)->n; }

static void host_l2_attach(uint32_t g, uint32_t cap)
{
    host_l2 *l2 = &hl2[g];
    memset(l2, 0, sizeof(*l2));
    l2->gpu = g;
    l2->cap = cap;
    xlat_l2_port port = {.struct_size = sizeof(port), .probe = host_probe_send, .probe_user = l2, .insert = host_insert,
                         .insert_user = l2, .invalidate = host_invalidate,
                         .invalidate_user = l2, .count = host_count, .count_user = l2};
    ck_assert_int_eq(xlat_iommu_attach_l2_port(f.iommu, g, &port), XLAT_OK);
}

static void host_answer(void *user, const xlat_resp *r)
{
    host_l2 *l2 = user;
    ck_assert_int_eq(r->status, XLAT_OK);
    xlat_tlb_entry e = {.pasid = r->pasid, .vpn = r->vaddr >> r->page_shift, .pfn = r->pfn,
                        .page_shift = r->page_shift, .perm = r->perm, .meta = r->meta};
    host_insert(l2, &e);
    hanswered = hprobing;
    f.last = *r;
    f.answers++;
}

/* GPU g's access to `vpn`: who answered, as lf_access() says it. */
static const char *host_access(uint32_t g, uint64_t vpn)
{
    static char out[16];
    host_l2 *l2 = &hl2[g];
    int i = host_find(l2, 1, vpn << 12);
    if (i >= 0) {
        host_insert(l2, &l2->e[i]); /* to MRU */
        return "L2";
    }
    xlat_req req = {.id = vpn, .vaddr = vpn << 12 | 0x18, .pasid = 1, .gpu = (uint16_t)g};
    int before = f.answers;
    ck_assert_int_eq(xlat_iommu_translate(f.iommu, &req, host_answer, l2), XLAT_OK);
    while (f.answers == before)
        ck_assert_int_eq(xlat_advance(f.ctx, xlat_next_event(f.ctx) - xlat_now(f.ctx)), XLAT_OK);
    xlat_advance(f.ctx, 1000);
    ck_assert_uint_eq(f.last.pfn, 0x1000 + vpn);
    const char *who = test_resolver(f.ctx, &f.last);
    if (!strcmp(who, "iommu"))
        return "IOMMU";
    if (!strcmp(who, "host")) { /* resolver 0: a host L2's remote hit */
        ck_assert_ptr_nonnull(hanswered);
        snprintf(out, sizeof(out), "REMOTE(%u)", hanswered->gpu);
        return out;
    }
    return "WALK";
}

static const char *host_contents(uint32_t g, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < hl2[g].n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s0x%llX", used ? " " : "",
                                 (unsigned long long)hl2[g].e[i].vpn);
    return buf;
}

/* least-TLB's Figure 10 with host-written L2s: the same outcomes, L2 and
 * IOMMU TLB contents and tracker as figure10_least_tlb, and the remote hits
 * answered after the host port's 100 cycles. */
START_TEST(figure10_host_l2)
{
    lf_build(&f, 1, 4, XLAT_INCL_LEAST, false, XLAT_SPILL_CUMULATIVE);
    for (uint32_t g = 0; g < LF_GPUS; g++)
        host_l2_attach(g, 1);
    for (uint32_t g = 0; g < LF_GPUS; g++)
        lf_preload_l2(&f, g, g + 1);
    static const step steps[] = {
        {0, 0, "", {"0x1", "0x2", "0x3", "0x4"}, "", {"0x1", "0x2", "0x3", "0x4"}, {0}},
        {0, 0x5, "WALK", {"0x5", "0x2", "0x3", "0x4"}, "0x1", {"0x5", "0x2", "0x3", "0x4"}, {0}},
        {1, 0x1, "IOMMU", {"0x5", "0x1", "0x3", "0x4"}, "0x2", {"0x5", "0x1", "0x3", "0x4"}, {0}},
        {2, 0x1, "REMOTE(1)", {"0x5", "0x1", "0x1", "0x4"}, "0x2 0x3",
         {"0x5", "0x1", "0x1", "0x4"}, {0}},
        {3, 0x1, "REMOTE(1)", {"0x5", "0x1", "0x1", "0x1"}, "0x2 0x3 0x4",
         {"0x5", "0x1", "0x1", "0x1"}, {0}},
        {0, 0x2, "IOMMU", {"0x2", "0x1", "0x1", "0x1"}, "0x3 0x4 0x5",
         {"0x2", "0x1", "0x1", "0x1"}, {0}},
    };
    char buf[256];
    for (int i = 0; i < 6; i++) {
        const step *st = &steps[i];
        if (i > 0) {
            const char *who = host_access(st->gpu, st->vpn);
            ck_assert_msg(!strcmp(who, st->outcome), "step %d: %s, expected %s", i, who,
                          st->outcome);
            if (!strncmp(who, "REMOTE", 6))
                ck_assert_uint_eq(f.last.completed - f.last.issued, 200 + 100);
        }
        for (uint32_t g = 0; g < LF_GPUS; g++) {
            ck_assert_str_eq(host_contents(g, buf, sizeof(buf)), st->l2[g]);
            ck_assert_str_eq(lf_tracker(&f, g, buf, sizeof(buf)), st->tracker[g]);
        }
        ck_assert_str_eq(lf_contents(&f, xlat_iommu_tlb(f.iommu), buf, sizeof(buf)), st->iommu);
    }
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st, sizeof(st));
    ck_assert_uint_eq(st.walk_answers, 1);
    ck_assert_uint_eq(st.tlb_hits, 2);
    ck_assert_uint_eq(st.remote_hits, 2);
    ck_assert_uint_eq(st.late_discarded, 2);
    /* A shootdown reaches the host L2s through the port, and the tracker. */
    ck_assert_int_eq(xlat_iommu_invalidate(f.iommu, 1, 1 << 12), 3);
    ck_assert_str_eq(host_contents(1, buf, sizeof(buf)), "");
    ck_assert_str_eq(lf_tracker(&f, 1, buf, sizeof(buf)), "");
}
END_TEST

Suite *least_tlb_suite(void)
{
    Suite *s = suite_create("least_tlb");
    TCase *tc = test_case(s, "walkthroughs");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, figure10_least_tlb);
    tcase_add_test(tc, figure10_with_host_eviction_hooks);
    tcase_add_test(tc, figure10_baseline);
    tcase_add_test(tc, figure13_least_tlb_cumulative);
    tcase_add_test(tc, figure13_least_tlb_occupancy);
    tcase_add_test(tc, figure13_baseline);
    tcase_add_test(tc, inclusive_back_invalidates);
    tcase_add_test(tc, exclusive_moves);
    tcase_add_test(tc, spill_chain);
    tcase_add_test(tc, spill_metadata);
    tcase_add_test(tc, spill_into_the_requesters_set);
    tcase_add_test(tc, figure10_host_l2);
    tcase_add_test(tc, tracker_across_many_gpus);
    tcase_add_test(tc, tracker_asks_each_partitions_page_sizes);
    return s;
}
