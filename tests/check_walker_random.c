/* Randomized walker invariants (short runs; make check-long runs more):
 * every accepted request is answered exactly once and correctly, and with
 * the PWC off neighborhood coalescing never reads more than FCFS. */
#include "testutil.h"
#include "walk_random.h"

static void assert_sound(const walk_random_result *r, uint64_t n)
{
    ck_assert_uint_eq(r->accepted, n);
    ck_assert_uint_eq(r->once, n);
    ck_assert_uint_eq(r->never, 0);
    ck_assert_uint_eq(r->twice_or_more, 0);
    ck_assert_uint_eq(r->wrong, 0);
}

START_TEST(coalescing_never_reads_more_without_pwc)
{
    const uint64_t n = 6000;
    walk_random_result fcfs, nbh;
    walk_random_run(100 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, false, false, &fcfs);
    walk_random_run(100 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, true, false, &nbh);
    assert_sound(&fcfs, n);
    assert_sound(&nbh, n);
    ck_assert_uint_le(nbh.reads, fcfs.reads);
    ck_assert_uint_gt(nbh.coalesced, 0);
}
END_TEST

START_TEST(coalescing_with_pwc_is_sound)
{
    const uint64_t n = 6000;
    walk_random_result fcfs, nbh;
    walk_random_run(200 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, false, true, &fcfs);
    walk_random_run(200 + (uint64_t)_i, n, XLAT_SCHED_FCFS, 1, 8, true, true, &nbh);
    assert_sound(&fcfs, n);
    assert_sound(&nbh, n);
    ck_assert_uint_gt(fcfs.reads, 0);
    ck_assert_uint_gt(nbh.reads, 0);
}
END_TEST

Suite *walker_random_suite(void)
{
    Suite *s = suite_create("walker_random");
    TCase *tc = test_case(s, "invariants");
    tcase_add_loop_test(tc, coalescing_never_reads_more_without_pwc, 0, 3);
    tcase_add_loop_test(tc, coalescing_with_pwc_is_sound, 0, 2);
    return s;
}
