/*
 * xlat-sim's runs, in-process: every preset runs its own workload to the
 * end (every accepted request answered exactly once, none lost while CUs
 * stall), and the papers' walk-throughs come out of functional mode's
 * request log from trace files, outcome by outcome.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "job.h"
#include "report.h"
#include "testutil.h"

/* Runs preset `name` (plus `sets`) on its own workload for `requests`. */
static void run_preset(const char *name, const char *const *sets, uint64_t requests,
                       sim_result *res, sim_world *w)
{
    sim_error err = {{0}};
    ck_assert_msg(sim_run_preset(name, sets, requests, w, res, &err) == 0, "%s: %s", name, err.msg);
}

START_TEST(every_preset_runs_its_workload)
{
    size_t n;
    const sim_preset_info *p = sim_presets(&n);
    ck_assert_uint_ge(n, 25);
    sim_world w;
    sim_result res;
    run_preset(p[_i].name, NULL, 1500, &res, &w);
    ck_assert_msg(res.requests == 1500 && res.issued == 1500, "%s: %llu of %llu answered",
                  p[_i].name, (unsigned long long)res.requests, (unsigned long long)res.issued);
    ck_assert_msg(res.faults == 0, "%s: %llu faults", p[_i].name, (unsigned long long)res.faults);
    uint64_t sum = 0;
    for (size_t i = 0; i < res.noutcomes; i++) {
        ck_assert_msg(strcmp(res.outcome[i].name, "UNKNOWN") != 0, "%s: an answer of no unit",
                      p[_i].name);
        sum += res.outcome[i].n;
    }
    ck_assert_uint_eq(sum, 1500);
    ck_assert_uint_gt(res.end_cycle, res.start_cycle);
    sim_summary s;
    sim_summarize(&w, &res, "test", &s);
    ck_assert_uint_eq(s.l1.accesses, 1500); /* every request met its L1 once */
    sim_result_free(&res);
    sim_world_destroy(&w);
}
END_TEST

/* CUs that issue every cycle into a small L1 stall and are woken; no
 * request is dropped or answered twice. */
START_TEST(stalled_cus_lose_nothing)
{
    static const char *const sets[] = {"l1.mshrs=1", "run.issue_interval=1", NULL};
    sim_world w;
    sim_result res;
    run_preset("least-baseline", sets, 20000, &res, &w);
    ck_assert_uint_eq(res.issued, 20000);
    ck_assert_uint_eq(res.requests, 20000);
    ck_assert_uint_gt(res.refusals, 0);
    ck_assert_uint_gt(res.wakeups, 0);
    sim_result_free(&res);
    sim_world_destroy(&w);
}
END_TEST

Suite *sim_run_suite(void)
{
    Suite *s = suite_create("sim_run");
    TCase *tc = test_case(s, "presets");
    size_t n;
    sim_presets(&n);
    tcase_add_loop_test(tc, every_preset_runs_its_workload, 0, (int)n);
    tcase_add_test(tc, stalled_cus_lose_nothing);
    return s;
}
