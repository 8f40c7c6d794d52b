/* The GMMU bypass predictor ("Dynamic GMMU Bypass for Address Translation
 * in Multi-GPU Systems", §4, §6): the epoch decision vectors of the seed
 * note's §D.1, the note's epoch sequence through the timed unit, epoch
 * switching at the exact cycle, idle epochs, counter width and overflow,
 * and prediction accuracy (§D.3). */
#include <math.h>

#include "gmmu_fixture.h"
#include <xlat/experimental.h> /* preloads and the papers' rules, outside the stable API */

/* ---- §D.1: the epoch decision ----------------------------------------------- */

START_TEST(decision_vectors)
{
    static const struct {
        uint64_t l, r;
        xlat_gmmu_routing current, next;
    } v[] = {
        {90, 10, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_LOCAL},    /* 0.900 > T1 */
        {86, 14, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_LOCAL},    /* 0.860 */
        {85, 15, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},    /* 0.850: not > T1 */
        {17, 3, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},     /* 0.850 again */
        {50, 50, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},    /* middle band */
        {15, 85, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_PARALLEL},   /* 0.150: not < T2 */
        {3, 17, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_PARALLEL},    /* 0.150 again */
        {14, 86, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_BYPASS},   /* 0.140 < T2 */
        {0, 37, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_BYPASS},       /* all remote */
        {37, 0, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_LOCAL},       /* all local */
        {0, 0, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_LOCAL},         /* no ratio: held */
        {0, 0, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_BYPASS},
        {0, 0, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_PARALLEL},
        {200, 100, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_PARALLEL},  /* 0.667 */
        {5, 45, XLAT_GMMU_ROUTE_LOCAL, XLAT_GMMU_ROUTE_BYPASS},       /* the sequence below */
        {3, 30, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_BYPASS},
        {40, 40, XLAT_GMMU_ROUTE_BYPASS, XLAT_GMMU_ROUTE_PARALLEL},
        {95, 2, XLAT_GMMU_ROUTE_PARALLEL, XLAT_GMMU_ROUTE_LOCAL},
    };
    xlat_gmmu_config c;
    xlat_gmmu_config_init(&c);
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        ck_assert_msg(xlat_gmmu_decide(&c, v[i].l, v[i].r, v[i].current) == v[i].next,
                      "vector %zu: (%llu, %llu)", i, (unsigned long long)v[i].l,
                      (unsigned long long)v[i].r);
}
END_TEST

START_TEST(decision_edges)
{
    xlat_gmmu_config c;
    xlat_gmmu_config_init(&c);
    ck_assert_int_eq(xlat_gmmu_decide(NULL, 1, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_BYPASS);
    c.min_samples = 0; /* acts as 1 */
    ck_assert_int_eq(xlat_gmmu_decide(&c, 0, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_BYPASS);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 1, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_LOCAL);
    c.min_samples = 10;
    ck_assert_int_eq(xlat_gmmu_decide(&c, 9, 0, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_BYPASS);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 0, 10, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_BYPASS);
    ck_assert_int_eq(xlat_gmmu_decide(&c, UINT64_MAX, UINT64_MAX, XLAT_GMMU_ROUTE_LOCAL),
                     XLAT_GMMU_ROUTE_PARALLEL);
    c.min_samples = 1;
    c.t1 = c.t2 = 0.5; /* an empty middle band: only exactly 0.5 is parallel */
    ck_assert_int_eq(xlat_gmmu_decide(&c, 1, 1, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_PARALLEL);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 51, 49, XLAT_GMMU_ROUTE_BYPASS), XLAT_GMMU_ROUTE_LOCAL);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 49, 51, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_BYPASS);
    c.t1 = 1.0;
    c.t2 = 0.0; /* nothing is above 1 or below 0: always parallel */
    ck_assert_int_eq(xlat_gmmu_decide(&c, 5, 0, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_PARALLEL);
    ck_assert_int_eq(xlat_gmmu_decide(&c, 0, 5, XLAT_GMMU_ROUTE_LOCAL), XLAT_GMMU_ROUTE_PARALLEL);
}
END_TEST


static const struct {
    int l, r;
    xlat_gmmu_routing route;
} seq[] = {
    {5, 45, XLAT_GMMU_ROUTE_LOCAL},   {3, 30, XLAT_GMMU_ROUTE_BYPASS},
    {40, 40, XLAT_GMMU_ROUTE_BYPASS}, {0, 0, XLAT_GMMU_ROUTE_PARALLEL},
    {95, 2, XLAT_GMMU_ROUTE_PARALLEL},
};

/* The epoch log: every epoch but the idle one, each with its successor's route. */
static void check_sequence_log(void)
{
    static const uint64_t idx[4] = {0, 1, 2, 4};
    ck_assert_int_eq(gf.nlog, 4);
    for (int i = 0; i < 4; i++) {
        int e = (int)idx[i];
        ck_assert_uint_eq(gf.log[i].index, idx[i]);
        ck_assert_uint_eq(gf.log[i].local, (uint64_t)seq[e].l);
        ck_assert_uint_eq(gf.log[i].remote, (uint64_t)seq[e].r);
        ck_assert_int_eq(gf.log[i].route, seq[e].route);
        ck_assert_int_eq(gf.log[i].next, i < 3 ? seq[idx[i + 1]].route : XLAT_GMMU_ROUTE_LOCAL);
    }
}

static void check_sequence_stats(void)
{
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.epochs, 5);
    ck_assert_uint_eq(st.epochs_held, 1);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_LOCAL], 1);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_BYPASS], 2);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_PARALLEL], 2);
    /* §D.3: the two bypass epochs were predicted "remote". */
    ck_assert_uint_eq(st.pred_remote_epochs, 2);
    ck_assert_uint_eq(st.pred_remote_hits, 70);
    ck_assert_uint_eq(st.pred_remote_total, 113);
    ck_assert(fabs(st.pred_remote_acc_sum - (30.0 / 33.0 + 0.5)) < 1e-12);
    ck_assert_uint_eq(st.pred_local_epochs, 0); /* the first epoch's route was not predicted */
}

START_TEST(epoch_sequence)
{
    gf_d2_world();
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 2000);
    uint64_t id = 1;
    for (int e = 0; e < 5; e++) {
        gf_run_until((uint64_t)e * 2000);
        ck_assert_int_eq(xlat_gmmu_route(gf.g), seq[e].route);
        gf_send_mix(&id, seq[e].l, seq[e].r);
        gf_run_until((uint64_t)e * 2000 + 1999);
        ck_assert_int_eq(xlat_gmmu_route(gf.g), seq[e].route);
        uint32_t l, r;
        ck_assert_int_eq(xlat_gmmu_counters(gf.g, &l, &r), XLAT_OK);
        ck_assert_uint_eq(l, (uint32_t)seq[e].l);
        ck_assert_uint_eq(r, (uint32_t)seq[e].r);
    }
    ck_assert_int_eq(gf.ndone, (int)id - 1); /* every request answered inside its epoch */
    gf_run_until(10000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_LOCAL);
    check_sequence_stats();
    /* The log of epoch 4 is written at the first activity after it. */
    ck_assert_int_eq(gf.nlog, 3);
    gf_send(id, LOCAL_VA(0));
    check_sequence_log();
}
END_TEST

/* Epoch k is [k x E, (k+1) x E): a request at E - 1 takes the old route,
 * one at E the new; an answer at exactly E counts in the new epoch. */
START_TEST(epoch_switch_at_exact_cycle)
{
    gf_world(25, 8, 64, 300, 0);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 1000);
    gf_send(1, REMOTE_VA(0)); /* 100 + 300: remote, epoch 0 */
    gf_run_until(999);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_LOCAL);
    gf_send(2, REMOTE_VA(1)); /* still the local route: walks, answered at 1399 */
    gf_run_until(1000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_BYPASS);
    gf_send(3, REMOTE_VA(2)); /* bypass: no walk, answered at 1300 */
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.gmmu_walks, 2);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_LOCAL], 2);
    ck_assert_uint_eq(st.routed[XLAT_GMMU_ROUTE_BYPASS], 1);
    gf_run_until(1700);
    gf_send(4, LOCAL_VA(1)); /* bypass, answered at exactly 2000 */
    gf_run_until(1999);
    uint32_t l, r;
    xlat_gmmu_counters(gf.g, &l, &r);
    ck_assert_uint_eq(l, 0);
    ck_assert_uint_eq(r, 2);
    gf_run_until(2000);
    gf_expect(1, 400, XLAT_OK, "iommu");
    gf_expect(2, 1399, XLAT_OK, "iommu");
    gf_expect(3, 1300, XLAT_OK, "iommu");
    gf_expect(4, 2000, XLAT_OK, "iommu");
    xlat_gmmu_counters(gf.g, &l, &r);
    ck_assert_uint_eq(l, 1); /* epoch 2 */
    ck_assert_uint_eq(r, 0);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_BYPASS); /* from epoch 1's (0, 2) */
    st = gf_stats();
    ck_assert_uint_eq(st.epochs, 2);
    ck_assert_uint_eq(st.touched_local, 1);
    ck_assert_uint_eq(st.touched_remote, 3);
}
END_TEST

/* An idle stretch of epochs keeps the route, and is counted without being
 * walked epoch by epoch. */
START_TEST(idle_epochs_hold)
{
    gf_world(25, 8, 64, 300, 0);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_LOCAL, 1000);
    gf_send(1, REMOTE_VA(0));
    gf_run_until(1000000000ull);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_BYPASS);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.epochs, 1000000);
    ck_assert_uint_eq(st.epochs_held, 999999);
    ck_assert_uint_eq(st.decisions[XLAT_GMMU_ROUTE_BYPASS], 1000000);
    ck_assert_uint_eq(xlat_pending_events(gf.ctx), 0); /* no timer ticks while idle */
}
END_TEST

/* ---- counters and accuracy ------------------------------------------------- */

static void counters_after(uint32_t bits, xlat_gmmu_overflow policy, int nl, int nr,
                           uint32_t want_l, uint32_t want_r)
{
    gf_world(25, 8, 64, 10, 0);
    xlat_gmmu_config c;
    gf_cfg(&c, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 1000000);
    c.counter_bits = bits;
    c.overflow = policy;
    gf_with(&c);
    uint64_t id = 1;
    for (int i = 0; i < nl; i++, gf_run_until(xlat_now(gf.ctx) + 1))
        gf_send(id++, LOCAL_VA(i % LOCAL_PAGES));
    for (int i = 0; i < nr; i++, gf_run_until(xlat_now(gf.ctx) + 1))
        gf_send(id++, REMOTE_VA(i % 64));
    gf_drain();
    uint32_t l, r;
    xlat_gmmu_counters(gf.g, &l, &r);
    ck_assert_msg(l == want_l && r == want_r, "%u bits: (%u, %u), want (%u, %u)", bits, l, r,
                  want_l, want_r);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.touched_local, (uint64_t)nl);
    ck_assert_uint_eq(st.touched_remote, (uint64_t)nr);
    gf_teardown();
}

START_TEST(counter_width_and_overflow)
{
    /* 255 then halve to 127 and count: 128; R: halve (64, 127) and count. */
    counters_after(8, XLAT_GMMU_OVERFLOW_HALVE, 256, 256, 64, 128);
    counters_after(8, XLAT_GMMU_OVERFLOW_SATURATE, 256, 256, 255, 255);
    counters_after(8, XLAT_GMMU_OVERFLOW_HALVE, 200, 100, 200, 100); /* D.1: no overflow */
    counters_after(4, XLAT_GMMU_OVERFLOW_HALVE, 256, 256, 0, 8);
    counters_after(32, XLAT_GMMU_OVERFLOW_HALVE, 300, 20, 300, 20);
    counters_after(1, XLAT_GMMU_OVERFLOW_SATURATE, 3, 2, 1, 1);
}
END_TEST

/* §D.1: (200, 100) decides PARALLEL through the 8-bit counters. */
START_TEST(counted_epoch_decides)
{
    gf_world(25, 8, 64, 10, 0);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 1000);
    uint64_t id = 1;
    for (int i = 0; i < 300; i++, gf_run_until(xlat_now(gf.ctx) + 1))
        gf_send(id++, i % 3 == 2 ? REMOTE_VA(i % 64) : LOCAL_VA(i % LOCAL_PAGES));
    gf_run_until(1000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_PARALLEL);
    ck_assert_uint_eq(gf_stats().decisions[XLAT_GMMU_ROUTE_PARALLEL], 1);
}
END_TEST

/* §D.3: a route predicted from an extreme ratio scores the next epoch. */
START_TEST(prediction_accuracy)
{
    gf_world(25, 64, 256, 300, 0);
    gf_gmmu(XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_BYPASS, 2000);
    uint64_t id = 1;
    gf_send_mix(&id, 10, 0); /* epoch 0: initial route, not scored -> LOCAL */
    gf_run_until(2000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_LOCAL);
    gf_send_mix(&id, 30, 10); /* the note's example: 30/40 = 0.75 -> PARALLEL */
    gf_run_until(4000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_PARALLEL);
    gf_send_mix(&id, 0, 10); /* parallel epochs are not scored -> BYPASS */
    gf_run_until(6000);
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_BYPASS);
    gf_send_mix(&id, 1, 3);
    gf_run_until(8000);
    xlat_gmmu_stats st = gf_stats();
    ck_assert_uint_eq(st.pred_local_epochs, 1);
    ck_assert_uint_eq(st.pred_local_hits, 30);
    ck_assert_uint_eq(st.pred_local_total, 40);
    ck_assert(st.pred_local_acc_sum == 0.75);
    ck_assert_uint_eq(st.pred_remote_epochs, 1);
    ck_assert_uint_eq(st.pred_remote_hits, 3);
    ck_assert_uint_eq(st.pred_remote_total, 4);
    ck_assert(st.pred_remote_acc_sum == 0.75);
    gf_send(id, LOCAL_VA(0)); /* evaluates epoch 3 for real */
    xlat_gmmu_stats_reset(gf.g);
    st = gf_stats();
    ck_assert_uint_eq(st.epochs + st.requests + st.pred_remote_epochs, 0);
    /* The predictor stays: epoch 3's (1, 3) chose PARALLEL. */
    ck_assert_int_eq(xlat_gmmu_route(gf.g), XLAT_GMMU_ROUTE_PARALLEL);
}
END_TEST

Suite *gmmu_bypass_suite(void)
{
    Suite *s = suite_create("gmmu_bypass");
    TCase *tc = gf_case(s, "epoch decision");
    tcase_add_test(tc, decision_vectors);
    tcase_add_test(tc, decision_edges);
    tcase_add_test(tc, epoch_sequence);
    tcase_add_test(tc, epoch_switch_at_exact_cycle);
    tcase_add_test(tc, idle_epochs_hold);
    tcase_add_test(tc, counter_width_and_overflow);
    tcase_add_test(tc, counted_epoch_decides);
    tcase_add_test(tc, prediction_accuracy);
    return s;
}
