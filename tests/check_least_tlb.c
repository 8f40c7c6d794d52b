/* The walk-throughs of "Improving Address Translation in Multi-GPUs via
 * Sharing and Spilling aware TLB Design": Figure 10 (single application)
 * and Figure 13 (multiple applications), step by step, for least-TLB and
 * the mostly-inclusive baseline: who answers each request, the L2 and IOMMU
 * TLB contents (LRU to MRU; * marks a spilled guest), the tracker and the
 * counters. */
#include "least_fixture.h"

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

START_TEST(figure10_least_tlb)
{
    fig10_start(XLAT_INCL_LEAST);
    static const step steps[] = {
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
    run_steps(steps, 6);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(f.iommu, &st);
    ck_assert_uint_eq(st.walk_answers, 1);
    ck_assert_uint_eq(st.tlb_hits, 2);
    ck_assert_uint_eq(st.remote_hits, 2);
    ck_assert_uint_eq(st.late_discarded, 2); /* the walks the remote hits beat */
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
    xlat_iommu_stats_get(f.iommu, &st);
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
    xlat_iommu_stats_get(f.iommu, &st);
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
    xlat_iommu_stats_get(f.iommu, &st);
    ck_assert_uint_eq(st.spills, 2);
    ck_assert_uint_eq(st.max_spill_chain, 2);
    /* A second, independent victim starts a chain of its own. */
    ck_assert_str_eq(lf_access(&f, 3, 0x5), "WALK");
    xlat_iommu_stats_get(f.iommu, &st);
    ck_assert_uint_eq(st.max_spill_chain, 2);
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

Suite *least_tlb_suite(void)
{
    Suite *s = suite_create("least_tlb");
    TCase *tc = test_case(s, "walkthroughs");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, figure10_least_tlb);
    tcase_add_test(tc, figure10_baseline);
    tcase_add_test(tc, figure13_least_tlb_cumulative);
    tcase_add_test(tc, figure13_least_tlb_occupancy);
    tcase_add_test(tc, figure13_baseline);
    tcase_add_test(tc, inclusive_back_invalidates);
    tcase_add_test(tc, exclusive_moves);
    tcase_add_test(tc, spill_chain);
    tcase_add_test(tc, spill_into_the_requesters_set);
    return s;
}
