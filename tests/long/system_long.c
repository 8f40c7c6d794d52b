/* Whole multi-GPU, multi-PASID systems under every inclusion policy, with
 * remaps and their shootdowns, GPU and IOMMU flushes (tests/system_random.c):
 * more than 10^8 requests, each answered once, right and never stale; and
 * one seed's statistics byte for byte the same in two runs and under two
 * allocators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "../system_random.h"
#include "system_long.h"

typedef struct policy {
    xlat_incl incl;
    bool multi;
    xlat_spill_rx rx;
    uint32_t gpus;
} policy;

static const policy policies[] = {
    {XLAT_INCL_MOSTLY, false, XLAT_SPILL_CUMULATIVE, 4},
    {XLAT_INCL_INCLUSIVE, false, XLAT_SPILL_CUMULATIVE, 8},
    {XLAT_INCL_EXCLUSIVE, false, XLAT_SPILL_CUMULATIVE, 4},
    {XLAT_INCL_EXCLUSIVE, false, XLAT_SPILL_CUMULATIVE, 1},
    {XLAT_INCL_LEAST, false, XLAT_SPILL_CUMULATIVE, 8},
    {XLAT_INCL_LEAST, true, XLAT_SPILL_CUMULATIVE, 4},
    {XLAT_INCL_LEAST, true, XLAT_SPILL_OCCUPANCY, 4},
};
#define POLICIES (sizeof(policies) / sizeof(policies[0]))

/* Requests per run, and runs per policy: 15 x 7 x 10^6 > 10^8. */
#define RUN_REQUESTS 1000000
#define SEEDS 15

static void check_invariants(const system_random_result *r, uint64_t seed, unsigned k)
{
    ck_assert_msg(!r->setup && r->once == r->accepted && r->accepted == RUN_REQUESTS &&
                      !r->duplicates && !r->missing && !r->wrong && !r->bad_status,
                  "seed %llu policy %u: setup %d, %llu once of %llu, %llu twice, %llu never, "
                  "%llu wrong, %llu not OK", (unsigned long long)seed, k, r->setup,
                  (unsigned long long)r->once, (unsigned long long)r->accepted,
                  (unsigned long long)r->duplicates, (unsigned long long)r->missing,
                  (unsigned long long)r->wrong, (unsigned long long)r->bad_status);
    ck_assert_msg(!r->stale && !r->stale_entries && !r->excl_both,
                  "seed %llu policy %u: %llu stale answers (first %llu), %llu stale entries, "
                  "%llu in both L2 and IOMMU TLB", (unsigned long long)seed, k,
                  (unsigned long long)r->stale, (unsigned long long)r->first_stale_id,
                  (unsigned long long)r->stale_entries, (unsigned long long)r->excl_both);
    ck_assert_uint_gt(r->remaps, 0);
    if (policies[k].incl == XLAT_INCL_LEAST)
        ck_assert_uint_gt(policies[k].multi ? r->spills : r->remote_hits, 0);
}

START_TEST(system_random_1e8)
{
    uint64_t requests = 0, remaps = 0, flushes = 0, refused = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        for (unsigned k = 0; k < POLICIES; k++) {
            system_random_result r;
            system_random_run_rx(seed, RUN_REQUESTS, policies[k].gpus, seed % 2 ? 4 : 3,
                                 policies[k].incl, policies[k].multi, policies[k].rx, &r);
            check_invariants(&r, seed, k);
            requests += r.accepted;
            remaps += r.remaps;
            flushes += r.gpu_flushes + r.iommu_flushes;
            refused += r.refused;
        }
    }
    ck_assert_uint_ge(requests, 100000000);
    printf("check-long: %llu requests, %llu remaps with shootdowns, %llu flushes, %llu "
           "refusals retried, %u policies x %d seeds: 0 lost, 0 duplicated, 0 wrong, 0 stale\n",
           (unsigned long long)requests, (unsigned long long)remaps,
           (unsigned long long)flushes, (unsigned long long)refused, (unsigned)POLICIES, SEEDS);
}
END_TEST

/* An allocator unlike malloc: every block comes from a larger one, at a
 * different offset, its bytes set to 0xA5, so that a run which read memory
 * it had not written, or depended on addresses, would not repeat. */
typedef struct poison_alloc {
    xlat_allocator hooks;
    size_t live, calls;
} poison_alloc;

static void *poison_take(void *user, size_t size, size_t align)
{
    poison_alloc *pa = user;
    size_t pad = 64 + 64 * (pa->calls++ % 7); /* a multiple of every align the library asks */
    if (align > 64 || size > SIZE_MAX - pad)
        return NULL;
    unsigned char *base = malloc(size + pad);
    if (!base)
        return NULL;
    memset(base, 0xA5, size + pad);
    memcpy(base + pad - sizeof(base), &base, sizeof(base));
    pa->live += size;
    return base + pad;
}

static void poison_give(void *user, void *ptr, size_t size)
{
    poison_alloc *pa = user;
    if (!ptr)
        return;
    unsigned char *base;
    memcpy(&base, (unsigned char *)ptr - sizeof(base), sizeof(base));
    memset(ptr, 0x5A, size);
    pa->live -= size;
    free(base);
}

/* The same seed: the same statistics, byte for byte (their digest and
 * count), under malloc twice and under the poisoning allocator. */
START_TEST(system_random_reproducible)
{
    static const unsigned picked[] = {0, 2, 4, 6};
    for (unsigned i = 0; i < sizeof(picked) / sizeof(picked[0]); i++) {
        const policy *p = &policies[picked[i]];
        poison_alloc pa = {{poison_take, poison_give, NULL}, 0, 0};
        pa.hooks.user = &pa;
        system_random_result a, b, c;
        system_random_run_alloc(99, 2000000, p->gpus, 4, p->incl, p->multi, p->rx, NULL, &a);
        system_random_run_alloc(99, 2000000, p->gpus, 4, p->incl, p->multi, p->rx, NULL, &b);
        system_random_run_alloc(99, 2000000, p->gpus, 4, p->incl, p->multi, p->rx, &pa.hooks,
                                &c);
        ck_assert_msg(!a.setup && !c.setup, "policy %u: setup failed", picked[i]);
        ck_assert_uint_gt(a.stats_counters, 100);
        ck_assert_msg(a.stats_digest == b.stats_digest && a.stats_counters == b.stats_counters,
                      "policy %u: two runs differ: %016llx vs %016llx", picked[i],
                      (unsigned long long)a.stats_digest, (unsigned long long)b.stats_digest);
        ck_assert_msg(a.stats_digest == c.stats_digest && a.stats_counters == c.stats_counters,
                      "policy %u: malloc and the poisoning allocator differ: %016llx vs %016llx",
                      picked[i], (unsigned long long)a.stats_digest,
                      (unsigned long long)c.stats_digest);
        ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
        ck_assert_int_eq(memcmp(&a, &c, sizeof(a)), 0);
        ck_assert_uint_gt(pa.calls, 0);
        ck_assert_uint_eq(pa.live, 0);
        printf("check-long: policy %u, 2000000 requests: %llu counters, digest %016llx in all "
               "three runs\n", picked[i], (unsigned long long)a.stats_counters,
               (unsigned long long)a.stats_digest);
    }
}
END_TEST

void system_long_add_tests(TCase *tc)
{
    tcase_add_test(tc, system_random_1e8);
    tcase_add_test(tc, system_random_reproducible);
}
