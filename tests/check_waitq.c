/* A unit's wait queue (lib/core/waitq.h): the senders it refused wait in
 * the order they came, up to its capacity (then XLAT_ERR_AGAIN); a wake
 * posts every one of them as an event of the current cycle, oldest first,
 * and empties the queue. The oldest waiter lives in the queue itself and
 * the others in an array of capacity - 1, so that a queue of one
 * allocates nothing and a failed array is XLAT_ERR_NOMEM. */
#include "testutil.h"

#include "unit.h"

/* What the wake-ups did: which waiter, at which cycle, in order. */
static struct {
    xlat_ctx *ctx;
    int n;
    int tag[16];
    uint64_t cycle[16];
} woken;

static void on_wake(void *user)
{
    ck_assert_int_lt(woken.n, 16);
    woken.tag[woken.n] = (int)(intptr_t)user;
    woken.cycle[woken.n++] = xlat_now(woken.ctx);
}

static struct xlat__unit waiting_unit;

/* Wakes the unit from inside tick, as a unit does when room frees. */
static void wake_now(void *user)
{
    (void)user;
    xlat__unit_wake(&waiting_unit);
}

static xlat_ctx *unit_of(size_t waiters, counting_alloc *ca)
{
    xlat_ctx *ctx = test_ctx(1, ca);
    struct xlat__unit_spec spec = {.kind = "waiting", .req_size = 16, .reqs = 1, .events = 1,
                                   .waiters = waiters};
    ck_assert_int_eq(xlat__unit_init(&waiting_unit, ctx, &spec), XLAT_OK);
    memset(&woken, 0, sizeof(woken));
    woken.ctx = ctx;
    return ctx;
}

static void wait_tags(int from, int to)
{
    for (int tag = from; tag <= to; tag++)
        ck_assert_int_eq(xlat__unit_wait(&waiting_unit, on_wake, (void *)(intptr_t)tag), XLAT_OK);
}

/* One tick in which the unit is woken: every waiter runs in that cycle. */
static void tick_with_wake(xlat_ctx *ctx)
{
    ck_assert_int_eq(xlat_schedule(ctx, 1, wake_now, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tick(ctx), XLAT_OK);
}

static void assert_woken(const int *tags, int n, uint64_t cycle)
{
    ck_assert_int_eq(woken.n, n);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(woken.tag[i], tags[i]);
        ck_assert_uint_eq(woken.cycle[i], cycle);
    }
}

START_TEST(a_wake_runs_every_waiter_in_order_then_the_queue_is_empty)
{
    xlat_ctx *ctx = unit_of(3, NULL);
    wait_tags(1, 3);
    ck_assert_int_eq(xlat__unit_wait(&waiting_unit, on_wake, (void *)4), XLAT_ERR_AGAIN);
    tick_with_wake(ctx);
    assert_woken((const int[]){1, 2, 3}, 3, 1);
    ck_assert(xlat__waitq_empty(&waiting_unit.waitq));
    /* Filled again after the wake: the first waiter is the new oldest. */
    woken.n = 0;
    wait_tags(5, 7);
    tick_with_wake(ctx);
    assert_woken((const int[]){5, 6, 7}, 3, 2);
    tick_with_wake(ctx); /* nobody waits: nothing runs */
    ck_assert_int_eq(woken.n, 3);
    xlat__unit_fini(&waiting_unit);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(a_queue_of_one_allocates_nothing)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = unit_of(1, &ca);
    ck_assert_ptr_null(waiting_unit.waitq.rest);
    ck_assert_uint_eq(xlat__waitq_bytes(&waiting_unit.waitq), 0);
    wait_tags(1, 1);
    ck_assert_int_eq(xlat__unit_wait(&waiting_unit, on_wake, (void *)2), XLAT_ERR_AGAIN);
    tick_with_wake(ctx);
    assert_woken((const int[]){1}, 1, 1);
    xlat__unit_fini(&waiting_unit);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

START_TEST(the_array_holds_all_but_the_first)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = unit_of(5, &ca);
    ck_assert_uint_eq(xlat__waitq_bytes(&waiting_unit.waitq), 4 * sizeof(struct xlat_waiter));
    ck_assert_uint_eq(xlat__unit_bytes(&waiting_unit),
                      xlat__pool_bytes(&waiting_unit.reqs) + 4 * sizeof(struct xlat_waiter));
    wait_tags(1, 5);
    ck_assert_int_eq(xlat__unit_wait(&waiting_unit, on_wake, (void *)6), XLAT_ERR_AGAIN);
    tick_with_wake(ctx);
    assert_woken((const int[]){1, 2, 3, 4, 5}, 5, 1);
    size_t live = ca.live_bytes;
    xlat__unit_fini(&waiting_unit);
    ck_assert_uint_lt(ca.live_bytes, live);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

START_TEST(no_memory_for_the_array_is_nomem)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(1, &ca);
    struct xlat_waitq q;
    ca.fail_after = 0;
    ca.fail_once = 1;
    ck_assert_int_eq(xlat__waitq_init(&q, ctx, 4), XLAT_ERR_NOMEM);
    ck_assert_uint_eq(ca.failed, 1);
    ck_assert_ptr_null(q.rest);
    ck_assert_uint_eq(xlat__waitq_bytes(&q), 0);
    ck_assert_int_eq(xlat__waitq_add(&q, on_wake, NULL), XLAT_ERR_AGAIN); /* holds nobody */
    xlat__waitq_release(&q);
    /* A queue of one needs no allocation, so a failing allocator is no
     * matter. */
    ca.fail_after = 0;
    ca.fail_once = 1;
    ck_assert_int_eq(xlat__waitq_init(&q, ctx, 1), XLAT_OK);
    ck_assert_uint_eq(ca.failed, 1); /* the refusal is still pending: nothing was asked */
    ck_assert_int_eq(xlat__waitq_add(&q, on_wake, NULL), XLAT_OK);
    xlat__waitq_release(&q);
    ca.fail_after = -1;
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

Suite *waitq_suite(void)
{
    Suite *s = suite_create("waitq");
    TCase *tc = tcase_create("waitq");
    tcase_add_test(tc, a_wake_runs_every_waiter_in_order_then_the_queue_is_empty);
    tcase_add_test(tc, a_queue_of_one_allocates_nothing);
    tcase_add_test(tc, the_array_holds_all_but_the_first);
    tcase_add_test(tc, no_memory_for_the_array_is_nomem);
    suite_add_tcase(s, tc);
    return s;
}
