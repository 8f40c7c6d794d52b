/* make check-long: the randomized comparisons of make check, run for much
 * longer and over many seeds. */
#include <stdlib.h>

#include "../testutil.h"
#include "../tlb_model.h"
#include "../shootdown_run.h"
#include "../walk_random.h"
#include "../system_random.h"
#include "walk_sched_long.h"
#include "system_long.h"
#include "../barre_alloc_fixture.h"
#include "../barre_system_random.h"

START_TEST(tlb_long_against_model)
{
    static const uint32_t ways[] = {1, 2, 4, 8, 16, 64};
    for (int r = 0; r < 2; r++) {
        xlat_repl repl = r ? XLAT_REPL_FIFO : XLAT_REPL_LRU;
        for (unsigned w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
            for (uint64_t seed = 0; seed < 4; seed++) {
                uint64_t bad = tlb_model_run(77 + w + 100u * (unsigned)r + 1000 * seed,
                                             ways[w] * 32, ways[w], repl, 3000000);
                ck_assert_msg(bad == 0, "%llu disagreements at %u ways, policy %d",
                              (unsigned long long)bad, ways[w], repl);
            }
        }
    }
}
END_TEST

START_TEST(shootdowns_long)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        shootdown_result r;
        shootdown_run(seed, 500000, &r);
        ck_assert_msg(r.completed_once == r.accepted && r.duplicates == 0 && r.missing == 0,
                      "seed %llu: %llu accepted, %llu once, %llu twice, %llu never",
                      (unsigned long long)seed, (unsigned long long)r.accepted,
                      (unsigned long long)r.completed_once, (unsigned long long)r.duplicates,
                      (unsigned long long)r.missing);
        ck_assert_msg(r.stale == 0 && r.wrong_space == 0, "seed %llu: %llu stale, %llu wrong",
                      (unsigned long long)seed, (unsigned long long)r.stale,
                      (unsigned long long)r.wrong_space);
    }
}
END_TEST

/* Walker schedulers under bursty traffic of 2-4 tenants: every accepted
 * request is answered once and correctly, no walker idles beside work it
 * may take, and a walk waits behind at most one foreign walk under DWS
 * (DWS++: one per walk served from its queue while at most QUEUE_THRES full). */
START_TEST(walk_sched_long)
{
    static const xlat_walk_sched sched[] = {XLAT_SCHED_FCFS, XLAT_SCHED_PARTITION,
                                            XLAT_SCHED_DWS, XLAT_SCHED_DWSPP};
    uint64_t stolen[4] = {0};
    for (uint64_t seed = 1; seed <= 30; seed++) {
        for (unsigned k = 0; k < 4; k++) {
            for (uint32_t tenants = 2; tenants <= 4; tenants++) {
                walk_sched_long_result r;
                walk_sched_long_run(seed, sched[k], tenants, 20000, &r);
                ck_assert_msg(!r.setup, "seed %llu sched %d: setup", (unsigned long long)seed,
                              sched[k]);
                ck_assert_msg(r.once == r.accepted && !r.never && !r.twice && !r.wrong,
                              "seed %llu sched %d tenants %u: %llu once of %llu, %llu twice, "
                              "%llu never, %llu wrong", (unsigned long long)seed, sched[k],
                              tenants, (unsigned long long)r.once,
                              (unsigned long long)r.accepted, (unsigned long long)r.twice,
                              (unsigned long long)r.never, (unsigned long long)r.wrong);
                ck_assert_msg(!r.idle_with_work, "seed %llu sched %d tenants %u: idle walker",
                              (unsigned long long)seed, sched[k], tenants);
                ck_assert_msg(r.interleave_max <= r.interleave_bound,
                              "seed %llu sched %d tenants %u: interleave %llu > %llu",
                              (unsigned long long)seed, sched[k], tenants,
                              (unsigned long long)r.interleave_max,
                              (unsigned long long)r.interleave_bound);
                stolen[k] += r.stolen;
            }
        }
    }
    ck_assert_uint_eq(stolen[0] + stolen[1], 0);
    ck_assert_uint_gt(stolen[2], 0);
    ck_assert_uint_gt(stolen[3], 0);
}
END_TEST

/* Neighborhood coalescing against FCFS on the same traces: sound under
 * every scheduler, and never more reads than FCFS with the PWC off. */
START_TEST(coalescing_long)
{
    static const xlat_walk_sched sched[] = {XLAT_SCHED_FCFS, XLAT_SCHED_PARTITION,
                                            XLAT_SCHED_DWS, XLAT_SCHED_DWSPP};
    const uint64_t n = 40000;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        for (int pwc = 0; pwc < 2; pwc++) {
            walk_random_result base, nbh;
            xlat_walk_sched s = sched[seed % 4];
            walk_random_run(seed, n, s, 2, 8, false, pwc, &base);
            walk_random_run(seed, n, s, 2, 8, true, pwc, &nbh);
            ck_assert_msg(base.once == n && nbh.once == n && !base.wrong && !nbh.wrong,
                          "seed %llu: answers lost, repeated or wrong", (unsigned long long)seed);
            if (!pwc)
                ck_assert_msg(nbh.reads <= base.reads, "seed %llu: %llu reads > %llu",
                              (unsigned long long)seed, (unsigned long long)nbh.reads,
                              (unsigned long long)base.reads);
        }
    }
}
END_TEST

/* Barre Chord's group allocation: every frame a PEC calculation computes
 * from any page's walk is the walked frame, over many seeds. */
START_TEST(barre_alloc_long)
{
    for (uint64_t seed = 1; seed <= 25; seed++) {
        ba_random_result r;
        ba_random_run(seed, 400, &r);
        ck_assert_msg(r.wrong == 0 && r.leaked == 0, "seed %llu: %llu wrong frames, %llu leaks",
                      (unsigned long long)seed, (unsigned long long)r.wrong,
                      (unsigned long long)r.leaked);
    }
}
END_TEST

/* The Barre Chord MCM-GPU of tests/check_barre_system.c, over many seeds
 * and far longer streams. */
START_TEST(barre_system_long)
{
    for (uint64_t seed = 1; seed <= 8; seed++) {
        for (int expanded = 0; expanded < 2; expanded++) {
            bs_result r;
            bs_random_run(seed * 7919, expanded, 200000, &r);
            ck_assert_msg(r.answered_once == r.sent && r.twice == 0 && r.missing == 0 &&
                              r.wrong == 0,
                          "seed %llu, expanded %d: %llu sent, %llu once, %llu twice, %llu never,"
                          " %llu wrong", (unsigned long long)seed, expanded,
                          (unsigned long long)r.sent, (unsigned long long)r.answered_once,
                          (unsigned long long)r.twice, (unsigned long long)r.missing,
                          (unsigned long long)r.wrong);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("long");
    TCase *tc = test_case(s, "randomized");
    tcase_add_test(tc, tlb_long_against_model);
    tcase_add_test(tc, shootdowns_long);
    tcase_add_test(tc, walk_sched_long);
    tcase_add_test(tc, coalescing_long);
    system_long_add_tests(tc);
    tcase_add_test(tc, barre_alloc_long);
    tcase_add_test(tc, barre_system_long);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
