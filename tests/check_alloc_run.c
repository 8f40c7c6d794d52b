/*
 * Allocation failure everywhere: each scenario of tests/alloc_run_*.c is
 * run once per allocation it makes, with that allocation failing (and
 * again with every allocation from it on failing). See tests/alloc_run.h
 * for what each run must still hold. Every test prints its failure points,
 * and the suite their sum ("alloc_run: N failure points over M scenarios").
 */
#include "alloc_run.h"

#define RUN_TEST(name)                                                                        \
    START_TEST(run_##name) { ar_loop(#name, ar_scenario_##name); }                            \
    END_TEST

RUN_TEST(tlb)
RUN_TEST(link)
RUN_TEST(link_deep)
RUN_TEST(fixed_deep)
RUN_TEST(cuckoo)
RUN_TEST(pagetable)
RUN_TEST(pwc)
RUN_TEST(walker_fcfs)
RUN_TEST(walker_coalesce)
RUN_TEST(walker_partition)
RUN_TEST(walker_dws)
RUN_TEST(walker_dwspp)
RUN_TEST(gmmu_distributed)
RUN_TEST(gmmu_dynamic)
RUN_TEST(gmmu_centralized)
RUN_TEST(iommu_least)
RUN_TEST(iommu_exclusive)
RUN_TEST(system_mostly)
RUN_TEST(system_inclusive)
RUN_TEST(system_exclusive)
RUN_TEST(system_least)
RUN_TEST(system_least_multi_app)
RUN_TEST(system_probe_ring)
RUN_TEST(system_gmmu)
RUN_TEST(system_deep)
RUN_TEST(barre)
RUN_TEST(fbarre)

Suite *alloc_run_suite(void)
{
    Suite *s = suite_create("alloc_run");
    TCase *tc = test_case(s, "every scenario");
    tcase_add_unchecked_fixture(tc, ar_totals_begin, ar_totals_end);
    tcase_add_test(tc, run_tlb);
    tcase_add_test(tc, run_link);
    tcase_add_test(tc, run_link_deep);
    tcase_add_test(tc, run_fixed_deep);
    tcase_add_test(tc, run_cuckoo);
    tcase_add_test(tc, run_pagetable);
    tcase_add_test(tc, run_pwc);
    tcase_add_test(tc, run_walker_fcfs);
    tcase_add_test(tc, run_walker_coalesce);
    tcase_add_test(tc, run_walker_partition);
    tcase_add_test(tc, run_walker_dws);
    tcase_add_test(tc, run_walker_dwspp);
    tcase_add_test(tc, run_gmmu_distributed);
    tcase_add_test(tc, run_gmmu_dynamic);
    tcase_add_test(tc, run_gmmu_centralized);
    tcase_add_test(tc, run_iommu_least);
    tcase_add_test(tc, run_iommu_exclusive);
    tcase_add_test(tc, run_system_mostly);
    tcase_add_test(tc, run_system_inclusive);
    tcase_add_test(tc, run_system_exclusive);
    tcase_add_test(tc, run_system_least);
    tcase_add_test(tc, run_system_least_multi_app);
    tcase_add_test(tc, run_system_probe_ring);
    tcase_add_test(tc, run_system_gmmu);
    tcase_add_test(tc, run_system_deep);
    tcase_add_test(tc, run_barre);
    tcase_add_test(tc, run_fbarre);
    return s;
}
