/* The oldest stamp of a set (lib/tlb/repl_oldest.h), LRU's and FIFO's
 * victim: every form of the search against a plain loop, on sets of 1 to
 * 132 ways whose stamps repeat (ties go to the lowest way) and straddle
 * 2^63 (where a signed compare would put them in the wrong order). The
 * TLB's victims with it are checked against the reference model in
 * check_tlb_model.c. */
#include "testutil.h"

#include "../lib/tlb/repl_oldest.h"

#define MAX_WAYS 132

/* The lowest way of the smallest stamp: what every form must answer. */
static uint32_t plain_oldest(const uint64_t *state, uint32_t ways)
{
    uint32_t victim = 0;
    for (uint32_t w = 1; w < ways; w++)
        if (state[w] < state[victim])
            victim = w;
    return victim;
}

/* Stamps from a few values, so that the smallest repeats, around 0 and
 * around 2^63; or from the whole range. */
static void random_stamps(uint64_t *s, uint64_t *state, uint32_t ways)
{
    static const uint64_t few[] = {0, 1, 2, INT64_MAX, (uint64_t)INT64_MAX + 1,
                                   (uint64_t)INT64_MAX + 2, UINT64_MAX - 1, UINT64_MAX};
    bool repeat = test_rand(s) % 2;
    for (uint32_t w = 0; w < ways; w++)
        state[w] = repeat ? few[test_rand(s) % 8] : test_rand(s);
}

/* Calls check(state, ways) on 300 random sets of each width. */
static void over_random_sets(uint64_t seed, uint32_t from, uint32_t step,
                             void (*check)(const uint64_t *state, uint32_t ways))
{
    uint64_t state[MAX_WAYS];
    for (uint32_t ways = from; ways <= MAX_WAYS; ways += step) {
        for (int k = 0; k < 300; k++) {
            random_stamps(&seed, state, ways);
            check(state, ways);
        }
    }
}

static void check_scalar(const uint64_t *state, uint32_t ways)
{
    uint32_t want = plain_oldest(state, ways);
    ck_assert_uint_eq(xlat__repl_oldest_narrow(state, ways), want);
    if (ways >= 2)
        ck_assert_uint_eq(xlat__repl_oldest_chains(state, ways), want);
    ck_assert_uint_eq(xlat__repl_oldest(state, ways), want);
}

START_TEST(scalar_searches_match_a_plain_loop)
{
    over_random_sets(11, 1, 1, check_scalar);
}
END_TEST

static void check_vector(const uint64_t *state, uint32_t ways)
{
    ck_assert_uint_eq(xlat__repl_oldest_vector(state, ways), plain_oldest(state, ways));
}

/* On a host without AVX2 the vector form is the scalar one, which this
 * checks all the same. */
START_TEST(vector_search_matches_a_plain_loop)
{
    over_random_sets(12, XLAT_REPL_VECTOR_MIN_WAYS, 4, check_vector);
}
END_TEST

/* The oldest in every place of a 128-way set, the same stamp twice (the
 * lower of the two wins), on either side of way 64 (the vector form's
 * second pass reads 64 ways at a time). */
START_TEST(oldest_in_every_place_of_a_wide_set)
{
    uint64_t state[128];
    for (uint32_t at = 0; at < 128; at++) {
        for (uint32_t w = 0; w < 128; w++)
            state[w] = 1000 + w;
        state[at] = 7;
        ck_assert_uint_eq(xlat__repl_oldest(state, 128), at);
        ck_assert_uint_eq(xlat__repl_oldest_vector(state, 128), at);
        uint32_t twin = 127 - at;
        state[twin] = 7;
        uint32_t lower = at < twin ? at : twin;
        ck_assert_uint_eq(xlat__repl_oldest(state, 128), lower);
        ck_assert_uint_eq(xlat__repl_oldest_vector(state, 128), lower);
    }
}
END_TEST

Suite *repl_oldest_suite(void)
{
    Suite *s = suite_create("repl_oldest");
    TCase *tc = test_case(s, "oldest");
    tcase_add_test(tc, scalar_searches_match_a_plain_loop);
    tcase_add_test(tc, vector_search_matches_a_plain_loop);
    tcase_add_test(tc, oldest_in_every_place_of_a_wide_set);
    return s;
}
