/* Randomized multi-GPU runs (tests/system_random.c) under every inclusion
 * policy: each accepted request answered once, with its own PASID's and
 * page's translation, never older than the mapping in force when it was
 * accepted, while the host remaps and shoots pages down and flushes GPUs
 * and the IOMMU; no TLB holds an old mapping at quiescent points; and the
 * policy's own machinery (victims, back-invalidations, remote hits,
 * spills) really ran. */
#include "testutil.h"
#include "system_random.h"

#define N 10000

typedef struct policy {
    const char *name;
    xlat_incl incl;
    bool multi;
    xlat_spill_rx rx;
    uint32_t gpus;
} policy;

static const policy policies[] = {
    {"mostly", XLAT_INCL_MOSTLY, false, XLAT_SPILL_CUMULATIVE, 4},
    {"inclusive", XLAT_INCL_INCLUSIVE, false, XLAT_SPILL_CUMULATIVE, 4},
    {"exclusive", XLAT_INCL_EXCLUSIVE, false, XLAT_SPILL_CUMULATIVE, 4},
    {"exclusive-1gpu", XLAT_INCL_EXCLUSIVE, false, XLAT_SPILL_CUMULATIVE, 1},
    {"least", XLAT_INCL_LEAST, false, XLAT_SPILL_CUMULATIVE, 4},
    {"least-multi-cumulative", XLAT_INCL_LEAST, true, XLAT_SPILL_CUMULATIVE, 4},
    {"least-multi-occupancy", XLAT_INCL_LEAST, true, XLAT_SPILL_OCCUPANCY, 4},
};

#define U(x) ((unsigned long long)(x))

static void run_clean(const policy *p, uint64_t seed, uint64_t n, system_random_result *r)
{
    system_random_run_rx(seed, n, p->gpus, 4, p->incl, p->multi, p->rx, r);
    ck_assert_msg(!r->setup, "%s seed %llu: setup failed", p->name, U(seed));
    ck_assert_msg(r->accepted == n && r->once == n && !r->duplicates && !r->missing,
                  "%s seed %llu: %llu accepted, %llu once, %llu twice, %llu never", p->name,
                  U(seed), U(r->accepted), U(r->once), U(r->duplicates), U(r->missing));
    ck_assert_msg(!r->wrong && !r->bad_status, "%s seed %llu: %llu wrong, %llu not OK", p->name,
                  U(seed), U(r->wrong), U(r->bad_status));
    ck_assert_msg(!r->stale && !r->stale_entries,
                  "%s seed %llu: %llu stale answers (first: request %llu), %llu stale TLB "
                  "entries at quiescent points", p->name, U(seed), U(r->stale),
                  U(r->first_stale_id), U(r->stale_entries));
    ck_assert_msg(r->remaps > 50 && r->gpu_flushes > 0, "%s seed %llu: %llu remaps, %llu flushes",
                  p->name, U(seed), U(r->remaps), U(r->gpu_flushes));
    ck_assert_uint_gt(r->walks, 0);
    ck_assert_uint_gt(r->tlb_hits, 0);
}

START_TEST(every_policy_is_sound)
{
    const policy *p = &policies[_i];
    system_random_result r;
    run_clean(p, 11 + (uint64_t)_i, N, &r);
    switch (p->incl) {
    case XLAT_INCL_MOSTLY:
        ck_assert_uint_eq(r.victims_in + r.remote_probes + r.spills + r.back_invalidations, 0);
        break;
    case XLAT_INCL_INCLUSIVE:
        ck_assert_uint_gt(r.back_invalidations, 0);
        break;
    case XLAT_INCL_EXCLUSIVE:
        ck_assert_uint_gt(r.victims_in, 0);
        ck_assert_uint_eq(r.remote_probes + r.spills, 0);
        if (p->gpus == 1) {
            ck_assert_uint_gt(r.excl_checks, 1);
            ck_assert_msg(r.excl_both == 0, "%llu translations in both the L2 and the IOMMU TLB",
                          U(r.excl_both));
        }
        break;
    case XLAT_INCL_LEAST:
        ck_assert_uint_gt(r.victims_in, 0);
        ck_assert_uint_gt(r.tracker_inserts, 0);
        ck_assert_uint_gt(r.remote_hits, 0);
        /* a remote hit wins against the walk it raced; that walk is dropped */
        ck_assert_uint_gt(r.late_discarded, 0);
        if (p->multi)
            ck_assert_uint_gt(r.spills, 0);
        else
            ck_assert_uint_eq(r.spills, 0);
        break;
    }
}
END_TEST

/* A small tracker (64 entries a GPU, 8-bit fingerprints) under least-TLB:
 * stale claims (after local flushes) and refused insertions happen and are
 * harmless. */
START_TEST(least_tracker_misses_are_harmless)
{
    system_random_result r;
    run_clean(&policies[4], 3, N, &r);
    ck_assert_uint_gt(r.remote_misses, 0);
}
END_TEST

Suite *system_random_suite(void)
{
    Suite *s = suite_create("system_random");
    TCase *tc = test_case(s, "random");
    tcase_add_loop_test(tc, every_policy_is_sound, 0,
                        (int)(sizeof(policies) / sizeof(policies[0])));
    tcase_add_test(tc, least_tracker_misses_are_harmless);
    return s;
}
