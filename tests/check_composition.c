/*
 * The composition contract (doc/composition.md), unit by unit: each timed
 * unit is driven by a host that answers its call-outs inside the callback
 * and by one that answers a cycle later. Outcomes must be identical and
 * cycles exact (the later host adds one cycle per call-out on a request's
 * path); `done` never runs while the sender is inside translate, and a
 * completion callback cannot advance the clock.
 */
#include "host.h"

static const uint64_t PAGE = 4096;

/* The answers of a run, by request id. */
typedef struct outcome {
    int status[16];
    uint64_t paddr[16];
    uint64_t completed[16];
    int answers[16];
} outcome;

static void keep(const host *h, outcome *o)
{
    for (int i = 0; i < 16; i++) {
        o->status[i] = h->status[i];
        o->paddr[i] = h->paddr[i];
        o->completed[i] = h->completed[i];
        o->answers[i] = h->answers[i];
    }
    ck_assert_int_eq(h->breaches, 0);
    ck_assert_uint_eq(xlat__events_overruns(h->ctx), 0);
}

/* Same outcomes; every request's cycle is shifted by exactly shift[id]. */
static void same_outcomes(const outcome *in, const outcome *later, const int *shift, int n)
{
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(in->answers[i], 1);
        ck_assert_int_eq(later->answers[i], 1);
        ck_assert_int_eq(in->status[i], later->status[i]);
        ck_assert_uint_eq(in->paddr[i], later->paddr[i]);
        ck_assert_uint_eq(later->completed[i], in->completed[i] + (uint64_t)shift[i]);
    }
}

/* ---- fixed responder: no call-outs; answers only from tick ---- */

static void run_fixed(uint32_t latency, outcome *o)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    host h;
    host_init(&h, ctx, 0);
    xlat_fixed_config c;
    xlat_fixed_config_init(&c);
    c.latency = latency;
    c.max_outstanding = 2;
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(ctx, &c, &f), XLAT_OK);
    xlat_target t = xlat_fixed_target(f);
    ck_assert_int_eq(host_send(&h, &t, 0, 0 * PAGE, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&h, &t, 1, 5 * PAGE, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&h, &t, 2, 6 * PAGE, 1), XLAT_ERR_AGAIN);
    ck_assert_int_eq(host_answered(&h), 0); /* nothing answered inside the calls */
    host_run(&h, 2, 100);
    ck_assert_int_eq(host_send(&h, &t, 2, 6 * PAGE, 1), XLAT_OK);
    host_run(&h, 3, 100);
    keep(&h, o);
    xlat_fixed_destroy(f);
    xlat_ctx_destroy(ctx);
}

START_TEST(fixed_answers_from_tick)
{
    outcome o;
    run_fixed(0, &o);
    /* latency 0: answered at cycle 0 by the first tick, never in the call */
    ck_assert_uint_eq(o.completed[0], 0);
    ck_assert_uint_eq(o.completed[1], 0);
    ck_assert_uint_eq(o.completed[2], 1); /* sent after the tick to cycle 1 */
    run_fixed(7, &o);
    ck_assert_uint_eq(o.completed[0], 7);
    ck_assert_uint_eq(o.completed[1], 7);
    ck_assert_uint_eq(o.completed[2], 14);
    ck_assert_uint_eq(o.paddr[1], 5 * PAGE);
}
END_TEST

/* ---- link: its far side is the host ---- */

static void run_link(int later, outcome *o)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    host h;
    host_init(&h, ctx, later);
    xlat_link_config c;
    xlat_link_config_init(&c);
    c.latency = 3;
    c.latency_back = 2;
    xlat_link *l;
    ck_assert_int_eq(xlat_link_create(ctx, &c, &l), XLAT_OK);
    xlat_target far = host_target(&h), t = xlat_link_target(l);
    ck_assert_int_eq(xlat_link_set_next(l, &far), XLAT_OK);
    ck_assert_int_eq(host_send(&h, &t, 0, 1 * PAGE, 1), XLAT_OK);
    ck_assert_int_eq(host_send(&h, &t, 1, 2 * PAGE + 8, 1), XLAT_OK);
    xlat_tick(ctx);
    ck_assert_int_eq(host_send(&h, &t, 2, 3 * PAGE, 1), XLAT_OK);
    host_run(&h, 3, 100);
    keep(&h, o);
    xlat_link_destroy(l);
    xlat_ctx_destroy(ctx);
}

START_TEST(link_inside_and_later)
{
    outcome in, later;
    run_link(0, &in);
    run_link(1, &later);
    ck_assert_uint_eq(in.completed[0], 5); /* 3 there + 2 back */
    ck_assert_uint_eq(in.completed[1], 5);
    ck_assert_uint_eq(in.completed[2], 6);
    ck_assert_uint_eq(in.paddr[1], (0x102ull << 12) + 8);
    const int shift[] = {1, 1, 1};
    same_outcomes(&in, &later, shift, 3);
}
END_TEST

/* ---- timed TLB: its miss path is the host ---- */

static void run_tlb(int later, outcome *o)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    host h;
    host_init(&h, ctx, later);
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.entries = 8;
    c.ways = 8;
    c.latency = 2;
    c.mshrs = 2;
    c.ports = 4;
    xlat_tlb *tlb;
    ck_assert_int_eq(xlat_tlb_create(ctx, &c, &tlb), XLAT_OK);
    xlat_target next = host_target(&h), t = xlat_tlb_target(tlb);
    ck_assert_int_eq(xlat_tlb_set_next(tlb, &next), XLAT_OK);
    ck_assert_int_eq(host_send(&h, &t, 0, 0 * PAGE, 1), XLAT_OK);     /* miss */
    ck_assert_int_eq(host_send(&h, &t, 1, 1 * PAGE, 1), XLAT_OK);     /* miss */
    ck_assert_int_eq(host_send(&h, &t, 2, 0 * PAGE + 64, 1), XLAT_OK); /* joins 0 */
    ck_assert_int_eq(host_send(&h, &t, 3, 2 * PAGE, 1), XLAT_ERR_AGAIN); /* no MSHR */
    host_run(&h, 3, 100);
    uint64_t t0 = xlat_now(ctx);
    ck_assert_int_eq(host_send(&h, &t, 3, 0 * PAGE + 128, 1), XLAT_OK); /* hit */
    ck_assert_int_eq(host_send(&h, &t, 4, 2 * PAGE, 1), XLAT_OK);       /* miss */
    host_run(&h, 5, 100);
    keep(&h, o);
    ck_assert_uint_eq(o->completed[3], t0 + 2);
    xlat_tlb_destroy(tlb);
    xlat_ctx_destroy(ctx);
}

START_TEST(tlb_inside_and_later)
{
    outcome in, later;
    run_tlb(0, &in);
    run_tlb(1, &later);
    /* A miss leaves after the 2-cycle lookup; a host answering inside the
     * forward fills and answers in that same cycle. */
    ck_assert_uint_eq(in.completed[0], 2);
    ck_assert_uint_eq(in.completed[1], 2);
    ck_assert_uint_eq(in.completed[2], 2);
    ck_assert_uint_eq(in.completed[4], in.completed[3]);
    ck_assert_uint_eq(in.paddr[2], (0x100ull << 12) + 64);
    const int shift[] = {1, 1, 1, 1, 2};
    /* request 3 is a hit sent one cycle later in the later run (its misses
     * took a cycle more); request 4 starts then too and waits for the host */
    same_outcomes(&in, &later, shift, 5);
}
END_TEST

Suite *composition_suite(void)
{
    Suite *s = suite_create("composition");
    TCase *tc = test_case(s, "units");
    tcase_add_test(tc, fixed_answers_from_tick);
    tcase_add_test(tc, link_inside_and_later);
    tcase_add_test(tc, tlb_inside_and_later);
    return s;
}
