/* The event engine: order, same-cycle rules, idle time, growth, allocation. */
#include "testutil.h"

#include "unit.h"

#define MAX_LOG 4096

typedef struct fired_event {
    uint64_t cycle;
    int tag;
} fired_event;

static struct {
    xlat_ctx *ctx;
    fired_event log[MAX_LOG];
    int n;
} g;

static void record(void *user)
{
    ck_assert_int_lt(g.n, MAX_LOG);
    g.log[g.n].cycle = xlat_now(g.ctx);
    g.log[g.n].tag = (int)(intptr_t)user;
    g.n++;
}

static void setup(void)
{
    memset(&g, 0, sizeof(g));
    g.ctx = test_ctx(1, NULL);
}

static void teardown(void) { xlat_ctx_destroy(g.ctx); }

START_TEST(same_cycle_fires_in_schedule_order)
{
    ck_assert_int_eq(xlat_schedule(g.ctx, 5, record, (void *)1), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, 3, record, (void *)2), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, 5, record, (void *)3), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, 3, record, (void *)4), XLAT_OK);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 4);
    ck_assert_uint_eq(xlat_next_event(g.ctx), 3);
    ck_assert_int_eq(xlat_advance(g.ctx, 10), XLAT_OK);
    ck_assert_int_eq(g.n, 4);
    const fired_event want[] = {{3, 2}, {3, 4}, {5, 1}, {5, 3}};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(g.log[i].cycle, want[i].cycle);
        ck_assert_int_eq(g.log[i].tag, want[i].tag);
    }
    ck_assert_uint_eq(xlat_now(g.ctx), 10);
    ck_assert_uint_eq(xlat_next_event(g.ctx), XLAT_NEVER);
}
END_TEST

static void chain(void *user)
{
    record(user);
    int depth = (int)(intptr_t)user;
    if (depth < 3)
        ck_assert_int_eq(xlat_schedule(g.ctx, 0, chain, (void *)(intptr_t)(depth + 1)), XLAT_OK);
}

START_TEST(delay_zero_from_callback_fires_same_advance)
{
    xlat_schedule(g.ctx, 2, chain, (void *)1);
    xlat_schedule(g.ctx, 2, record, (void *)9);
    ck_assert_int_eq(xlat_advance(g.ctx, 2), XLAT_OK);
    /* 1 fires, schedules 2 behind 9 (FIFO), 2 schedules 3. */
    const fired_event want[] = {{2, 1}, {2, 9}, {2, 2}, {2, 3}};
    ck_assert_int_eq(g.n, 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(g.log[i].cycle, want[i].cycle);
        ck_assert_int_eq(g.log[i].tag, want[i].tag);
    }
}
END_TEST

START_TEST(advance_zero_runs_what_is_due_now)
{
    xlat_advance(g.ctx, 7);
    xlat_schedule(g.ctx, 0, record, (void *)5);
    ck_assert_uint_eq(xlat_next_event(g.ctx), 7);
    ck_assert_int_eq(xlat_advance(g.ctx, 0), XLAT_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(g.log[0].cycle, 7);
    ck_assert_uint_eq(xlat_now(g.ctx), 7);
}
END_TEST

START_TEST(tick_is_advance_by_one)
{
    xlat_schedule(g.ctx, 1, record, (void *)1);
    ck_assert_int_eq(xlat_tick(g.ctx), XLAT_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(xlat_now(g.ctx), 1);
}
END_TEST

/* Advances that stay inside the wheel position's span of level 0 (cycles
 * 0-63 here) fire the target's slot directly when nothing is due before
 * it; one that passes an event of the span goes cycle by cycle. Both, and
 * an advance across the span's end, fire each event at its cycle and in
 * the order it was scheduled. */
START_TEST(advances_inside_the_span_of_level_zero)
{
    static const struct {
        uint64_t delay;
        int tag;
    } at[] = {{3, 1}, {10, 2}, {10, 3}, {20, 4}, {63, 5}, {64, 6}, {70, 7}, {200, 8}};
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
        ck_assert_int_eq(xlat_schedule(g.ctx, at[i].delay, record, (void *)(intptr_t)at[i].tag),
                         XLAT_OK);
    ck_assert_int_eq(xlat_advance(g.ctx, 2), XLAT_OK); /* nothing due up to 2 */
    ck_assert_int_eq(g.n, 0);
    ck_assert_int_eq(xlat_advance(g.ctx, 8), XLAT_OK); /* to 10, passing 3 */
    ck_assert_int_eq(g.n, 3);
    ck_assert_int_eq(xlat_advance(g.ctx, 10), XLAT_OK); /* to 20, the next event */
    ck_assert_int_eq(xlat_advance(g.ctx, 5), XLAT_OK);  /* to 25, nothing there */
    ck_assert_int_eq(g.n, 4);
    ck_assert_int_eq(xlat_schedule(g.ctx, 3, record, (void *)9), XLAT_OK); /* at 28 */
    ck_assert_uint_eq(xlat_next_event(g.ctx), 28);
    ck_assert_int_eq(xlat_advance(g.ctx, 3), XLAT_OK);
    ck_assert_int_eq(xlat_advance(g.ctx, 35), XLAT_OK); /* to 63, the span's last cycle */
    ck_assert_int_eq(xlat_advance(g.ctx, 1), XLAT_OK);  /* across the span's end */
    ck_assert_int_eq(xlat_advance(g.ctx, 6), XLAT_OK);
    ck_assert_uint_eq(xlat_next_event(g.ctx), 200);
    ck_assert_int_eq(xlat_advance(g.ctx, xlat_next_event(g.ctx) - xlat_now(g.ctx)), XLAT_OK);
    static const fired_event want[] = {{3, 1},  {10, 2}, {10, 3}, {20, 4}, {28, 9},
                                       {63, 5}, {64, 6}, {70, 7}, {200, 8}};
    ck_assert_int_eq(g.n, (int)(sizeof(want) / sizeof(want[0])));
    for (int i = 0; i < g.n; i++) {
        ck_assert_uint_eq(g.log[i].cycle, want[i].cycle);
        ck_assert_int_eq(g.log[i].tag, want[i].tag);
    }
    ck_assert_uint_eq(xlat_now(g.ctx), 200);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 0);
}
END_TEST

START_TEST(idle_time_and_far_events)
{
    const uint64_t far = 1000000000000ull; /* 10^12 cycles ahead */
    ck_assert_int_eq(xlat_advance(g.ctx, 1000000000ull), XLAT_OK);
    ck_assert_uint_eq(xlat_now(g.ctx), 1000000000ull);
    xlat_schedule(g.ctx, far, record, (void *)1);
    xlat_schedule(g.ctx, 1, record, (void *)2);
    ck_assert_uint_eq(xlat_next_event(g.ctx), 1000000001ull);
    xlat_advance(g.ctx, 1);
    ck_assert_uint_eq(xlat_next_event(g.ctx), 1000000000ull + far);
    xlat_advance(g.ctx, far - 2);
    ck_assert_int_eq(g.n, 1);
    xlat_advance(g.ctx, 1);
    ck_assert_int_eq(g.n, 2);
    ck_assert_uint_eq(g.log[1].cycle, 1000000000ull + far);
    /* The far end of the clock: the last cycle before XLAT_NEVER. */
    uint64_t left = XLAT_NEVER - 1 - xlat_now(g.ctx);
    ck_assert_int_eq(xlat_schedule(g.ctx, left, record, (void *)3), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, left + 1, record, (void *)4), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_advance(g.ctx, left + 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_advance(g.ctx, left), XLAT_OK);
    ck_assert_int_eq(g.n, 3);
    ck_assert_uint_eq(g.log[2].cycle, XLAT_NEVER - 1);
}
END_TEST

/* Events on both sides of every digit's boundary (level 0 is bits 0-5,
 * level 1 bits 6-13, then 6 bits a level), scheduled far ones first from
 * a few positions of the wheel: each fires at its cycle, in cycle order. */
START_TEST(events_at_every_digit_boundary)
{
    static const uint64_t starts[] = {0, 1000003, (1u << 14) - 1, (1ull << 20) + 63};
    ck_assert_int_eq(xlat_advance(g.ctx, starts[_i]), XLAT_OK);
    uint64_t now = xlat_now(g.ctx);
    int tag = 0;
    for (int bit = 50; bit >= 2; bit--)
        for (int side = 1; side >= -1; side--) {
            uint64_t delay = (1ull << bit) + (uint64_t)(int64_t)side;
            ck_assert_int_eq(xlat_schedule(g.ctx, delay, record, (void *)(intptr_t)tag++), XLAT_OK);
        }
    ck_assert_int_eq(xlat_advance(g.ctx, (1ull << 50) + 1), XLAT_OK);
    ck_assert_int_eq(g.n, tag);
    for (int i = 0; i < g.n; i++) {
        int t = g.log[i].tag;
        uint64_t delay = (1ull << (50 - t / 3)) + 1 - (uint64_t)(t % 3);
        ck_assert_uint_eq(g.log[i].cycle, now + delay);
        if (i > 0)
            ck_assert_uint_lt(g.log[i - 1].cycle, g.log[i].cycle);
    }
}
END_TEST

static void reenter(void *user)
{
    int *rc = user;
    rc[0] = xlat_advance(g.ctx, 1);
    rc[1] = xlat_tick(g.ctx);
}

START_TEST(advance_from_callback_is_refused)
{
    int rc[2] = {0, 0};
    xlat_schedule(g.ctx, 1, reenter, rc);
    ck_assert_int_eq(xlat_advance(g.ctx, 3), XLAT_OK);
    ck_assert_int_eq(rc[0], XLAT_ERR_STATE);
    ck_assert_int_eq(rc[1], XLAT_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(g.ctx), "inside a callback"));
    ck_assert_uint_eq(xlat_now(g.ctx), 3);
}
END_TEST

/* A reference model: every event carries its due cycle and a sequence
 * number; firing must be sorted by (cycle, sequence) and exact. */
static struct {
    uint64_t seq_fired;
    uint64_t state;
    uint64_t bad;
    size_t fired;
    int near; /* delays of a few cycles (random_delay) */
} ref;

typedef struct ref_event {
    uint64_t due, seq;
} ref_event;

static ref_event ref_pool[20000];
static size_t ref_used;
static uint64_t ref_seq;
static uint64_t last_due, last_seq;

static uint64_t next_rand(void)
{
    uint64_t z = (ref.state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t random_delay(void)
{
    if (ref.near) /* a tick's reach: the span of level 0 and the next few */
        return next_rand() % 8 ? next_rand() % 4 : next_rand() % 200;
    switch (next_rand() % 4) {
    case 0: return next_rand() % 4;
    case 1: return next_rand() % 100;
    case 2: return next_rand() % 10000;
    default: return next_rand() % 5000000;
    }
}

static void ref_fire(void *user);

static void ref_schedule(void)
{
    if (ref_used == sizeof(ref_pool) / sizeof(ref_pool[0]))
        return;
    ref_event *e = &ref_pool[ref_used++];
    uint64_t d = random_delay();
    e->due = xlat_now(g.ctx) + d;
    e->seq = ref_seq++;
    ck_assert_int_eq(xlat_schedule(g.ctx, d, ref_fire, e), XLAT_OK);
}

static void ref_fire(void *user)
{
    ref_event *e = user;
    if (e->due != xlat_now(g.ctx))
        ref.bad++;
    if (ref.fired && (e->due < last_due || (e->due == last_due && e->seq < last_seq)))
        ref.bad++;
    last_due = e->due;
    last_seq = e->seq;
    ref.fired++;
    if (next_rand() % 3 == 0)
        ref_schedule();
}

START_TEST(random_schedule_matches_reference)
{
    memset(&ref, 0, sizeof(ref));
    ref.state = 42 + (uint64_t)_i;
    ref_used = 0;
    ref_seq = 0;
    for (int i = 0; i < 3000; i++)
        ref_schedule();
    while (xlat_pending_events(g.ctx)) {
        uint64_t next = xlat_next_event(g.ctx);
        ck_assert_uint_ge(next, xlat_now(g.ctx));
        uint64_t step = next_rand() % 2 ? next - xlat_now(g.ctx) : next_rand() % 20000;
        ck_assert_int_eq(xlat_advance(g.ctx, step), XLAT_OK);
        if (next_rand() % 8 == 0)
            ref_schedule();
    }
    ck_assert_uint_eq(ref.bad, 0);
    ck_assert_uint_eq(ref.fired, ref_used);
}
END_TEST

/* The same model driven the way most hosts drive a context: a tick a
 * cycle, events a few cycles ahead (across the ends of level 0's span),
 * delay-0 events the host posts between ticks, and now and then a jump to
 * the next event. */
START_TEST(random_ticks_match_reference)
{
    memset(&ref, 0, sizeof(ref));
    ref.state = 7 + (uint64_t)_i;
    ref.near = 1;
    ref_used = 0;
    ref_seq = 0;
    for (int i = 0; i < 200; i++)
        ref_schedule();
    while (xlat_pending_events(g.ctx) || xlat_now(g.ctx) < 5000) {
        uint64_t r = next_rand() % 64;
        if (r == 0 && xlat_pending_events(g.ctx))
            ck_assert_int_eq(xlat_advance(g.ctx, xlat_next_event(g.ctx) - xlat_now(g.ctx)),
                             XLAT_OK);
        else
            ck_assert_int_eq(xlat_tick(g.ctx), XLAT_OK);
        if (r < 4 && xlat_now(g.ctx) < 5000)
            ref_schedule(); /* delay 0 among them: the ready queue at the next tick */
    }
    ck_assert_uint_eq(ref.bad, 0);
    ck_assert_uint_eq(ref.fired, ref_used);
    ck_assert_uint_ge(xlat_now(g.ctx), 5000); /* many spans of level 0 */
    ck_assert_uint_gt(ref.fired, 500);
}
END_TEST

/* A tick at the last cycles of the clock, and one past it. */
START_TEST(tick_at_the_end_of_the_clock)
{
    ck_assert_int_eq(xlat_advance(g.ctx, XLAT_NEVER - 3), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, 1, record, (void *)1), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, 2, record, (void *)2), XLAT_OK);
    ck_assert_int_eq(xlat_tick(g.ctx), XLAT_OK);
    ck_assert_int_eq(xlat_tick(g.ctx), XLAT_OK);
    ck_assert_int_eq(g.n, 2);
    ck_assert_uint_eq(g.log[0].cycle, XLAT_NEVER - 2);
    ck_assert_uint_eq(g.log[1].cycle, XLAT_NEVER - 1);
    ck_assert_int_eq(xlat_tick(g.ctx), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(g.ctx), "reach XLAT_NEVER"));
    ck_assert_uint_eq(xlat_now(g.ctx), XLAT_NEVER - 1);
    ck_assert_int_eq(xlat_tick(NULL), XLAT_ERR_INVAL);
}
END_TEST

static void count_fire(void *user) { (*(uint64_t *)user)++; }
static void count_fire_noop(void *user) { (void)user; }

START_TEST(pool_grows_geometrically_then_stops_allocating)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    uint64_t fired = 0;
    size_t before = ca.allocs;
    for (int i = 0; i < 10000; i++)
        ck_assert_int_eq(xlat_schedule(ctx, (uint64_t)(i % 97), count_fire, &fired), XLAT_OK);
    /* 64 -> 16384 nodes: eight doublings, not one allocation per event. */
    ck_assert_uint_eq(ca.allocs - before, 8);
    xlat_advance(ctx, 100);
    ck_assert_uint_eq(fired, 10000);
    before = ca.allocs;
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < 10000; i++)
            xlat_schedule(ctx, (uint64_t)(i % 1000), count_fire, &fired);
        xlat_advance(ctx, 1000);
    }
    ck_assert_uint_eq(fired, 1010000);
    ck_assert_uint_eq(ca.allocs, before); /* a million events, no allocation */
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* A pool of 300,000 pending events grows in chunks of more than 4 MiB,
 * the ones the engine advises for huge pages (event.c): each event still
 * fires at its own cycle, in (cycle, schedule order), exactly once. Event
 * i is due at big_due(i), spread over a million cycles. */
#define BIG_POOL 300000u

/* Events i = 0, 1, ... due at seq.due(i), scheduled in that order: each
 * must fire at its cycle, in (cycle, i) order. */
static struct {
    uint64_t (*due)(uint64_t i);
    uint64_t fired, bad, last_due, last_i;
} seq;

static void seq_start(uint64_t (*due)(uint64_t i))
{
    memset(&seq, 0, sizeof(seq));
    seq.due = due;
}

static void seq_fire(void *user)
{
    uint64_t i = (uint64_t)(uintptr_t)user, due = seq.due(i);
    if (due != xlat_now(g.ctx) ||
        (seq.fired && (due < seq.last_due || (due == seq.last_due && i < seq.last_i))))
        seq.bad++;
    seq.last_due = due;
    seq.last_i = i;
    seq.fired++;
}

static uint64_t big_due(uint64_t i) { return 1 + i * 7919u % 1000003u; }

START_TEST(big_pool_fires_each_event_in_order)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    g.ctx = test_ctx(1, &ca); /* the case has no fixture: seq_fire reads the clock from g */
    seq_start(big_due);
    for (uint64_t i = 0; i < BIG_POOL; i++)
        ck_assert_int_eq(xlat_schedule(g.ctx, big_due(i), seq_fire, (void *)(uintptr_t)i), XLAT_OK);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), BIG_POOL);
    ck_assert_int_eq(xlat_advance(g.ctx, 1000003), XLAT_OK);
    ck_assert_uint_eq(seq.fired, BIG_POOL);
    ck_assert_uint_eq(seq.bad, 0);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 0);
    ck_assert_uint_ge(ca.largest, (size_t)4 << 20); /* a chunk the engine advised */
    xlat_ctx_destroy(g.ctx);
    g.ctx = NULL;
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

START_TEST(schedule_failure_is_nomem_and_changes_nothing)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    uint64_t fired = 0;
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(xlat_schedule(ctx, 1, count_fire, &fired), XLAT_OK);
    ca.fail_after = 0;
    ck_assert_int_eq(xlat_schedule(ctx, 1, count_fire, &fired), XLAT_ERR_NOMEM);
    ck_assert_uint_eq(xlat_pending_events(ctx), 64);
    xlat_advance(ctx, 1);
    ck_assert_uint_eq(fired, 64);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(destroy_with_pending_events)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    uint64_t fired = 0;
    for (int i = 0; i < 500; i++)
        xlat_schedule(ctx, (uint64_t)i * 1000, count_fire, &fired);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(fired, 0);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST


/* ---- blocks, ghosts and cancelling --------------------------------------- */

/* Events of one cycle come from a far level (re-filed down through every
 * level between), from a near one, from the ready queue; many enough to
 * span several blocks of every list. They fire in the order scheduled. */
static int order_next;
static void in_order(void *user)
{
    ck_assert_int_eq((int)(intptr_t)user, order_next);
    order_next++;
}

static void post_more_now(void *user)
{
    int base = (int)(intptr_t)user;
    in_order(user);
    for (int i = 1; i <= 20; i++)
        ck_assert_int_eq(xlat_schedule(g.ctx, 0, in_order, (void *)(intptr_t)(base + i)), XLAT_OK);
}

START_TEST(same_cycle_order_across_levels_and_blocks)
{
    const uint64_t due = (1ull << 20) + 12345;
    int tag = 0;
    order_next = 0;
    for (int i = 0; i < 50; i++) /* level 3, with other cycles between them */
        for (uint64_t d = due - 2; d <= due + 2; d++)
            ck_assert_int_eq(xlat_schedule(g.ctx, d, d == due ? in_order : count_fire_noop,
                                           d == due ? (void *)(intptr_t)tag++ : NULL), XLAT_OK);
    ck_assert_int_eq(xlat_advance(g.ctx, due - 3000), XLAT_OK); /* levels 2, 1 re-filed */
    for (int i = 0; i < 50; i++)
        ck_assert_int_eq(xlat_schedule(g.ctx, 3000, in_order, (void *)(intptr_t)tag++), XLAT_OK);
    ck_assert_int_eq(xlat_advance(g.ctx, 2990), XLAT_OK);
    for (int i = 0; i < 49; i++)
        ck_assert_int_eq(xlat_schedule(g.ctx, 10, in_order, (void *)(intptr_t)tag++), XLAT_OK);
    ck_assert_int_eq(xlat_schedule(g.ctx, 10, post_more_now, (void *)(intptr_t)tag), XLAT_OK);
    tag += 21;
    ck_assert_uint_eq(xlat_next_event(g.ctx), due - 2);
    ck_assert_int_eq(xlat_advance(g.ctx, 20), XLAT_OK);
    ck_assert_int_eq(order_next, tag);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 0);
}
END_TEST

/* A bare unit on the skeleton, posting its own events. */
static struct xlat__unit *bare_unit(xlat_ctx *ctx, size_t events)
{
    static struct xlat__unit units[8];
    static int next;
    struct xlat__unit *u = &units[next++ % 8];
    struct xlat__unit_spec spec = {.kind = "bare", .req_size = 16, .reqs = 1, .events = events};
    ck_assert_int_eq(xlat__unit_init(u, ctx, &spec), XLAT_OK);
    return u;
}

static void must_not_fire(void *user)
{
    (void)user;
    ck_abort_msg("a destroyed unit's event fired");
}

START_TEST(destroyed_unit_events_never_fire)
{
    struct xlat__unit *u = bare_unit(g.ctx, 100);
    for (uint64_t i = 0; i < 100; i++) /* every level, and the ready queue */
        xlat__unit_post(u, i == 0 ? 0 : 1ull << (i % 40), must_not_fire, NULL);
    xlat_schedule(g.ctx, 1ull << 30, record, (void *)7);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 101);
    xlat__unit_fini(u);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 1);
    ck_assert_uint_eq(xlat_next_event(g.ctx), 1ull << 30); /* the ghosts before it are passed */
    ck_assert_int_eq(xlat_advance(g.ctx, (1ull << 40) + 1), XLAT_OK);
    ck_assert_int_eq(g.n, 1);
    ck_assert_uint_eq(g.log[0].cycle, 1ull << 30);
    ck_assert_uint_eq(g.ctx->wheel.ghosts, 0);
    ck_assert_uint_eq(xlat__events_overruns(g.ctx), 0);
}
END_TEST

/* A tick whose callback destroys the only unit with events pending: its
 * events become ghosts, nothing will run, and the tick drops them all (as
 * an advance does), so the pool promises them no room. */
static struct xlat__unit *tick_doomed;
static void fini_tick_doomed(void *user)
{
    (void)user;
    xlat__unit_fini(tick_doomed);
}

START_TEST(tick_drops_the_ghosts_its_callbacks_leave)
{
    tick_doomed = bare_unit(g.ctx, 10);
    for (uint64_t i = 0; i < 10; i++)
        xlat__unit_post(tick_doomed, 2 + (i << 12), must_not_fire, NULL);
    ck_assert_int_eq(xlat_schedule(g.ctx, 1, fini_tick_doomed, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tick(g.ctx), XLAT_OK);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 0);
    ck_assert_uint_eq(g.ctx->wheel.ghosts, 0);
    ck_assert_uint_eq(xlat_next_event(g.ctx), XLAT_NEVER);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(xlat_tick(g.ctx), XLAT_OK);
    ck_assert_uint_eq(xlat_now(g.ctx), 101);
}
END_TEST

static int answers;
static void count_answer(void *user, const xlat_resp *r)
{
    (void)user;
    (void)r;
    answers++;
}

/* A unit destroyed from inside a callback: its answer, queued for this
 * very cycle, does not come; the ready queue is empty again for the
 * units still there. */
static xlat_fixed *doomed;
static void destroy_doomed(void *user)
{
    (void)user;
    ck_assert(!xlat__ready_empty(g.ctx));
    ck_assert_int_eq(xlat_fixed_destroy(doomed), XLAT_OK);
    ck_assert(xlat__ready_empty(g.ctx));
}

START_TEST(unit_destroyed_in_callback_answers_nothing)
{
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 0;
    ck_assert_int_eq(xlat_fixed_create(g.ctx, &fc, &doomed), XLAT_OK);
    answers = 0;
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    ck_assert_int_eq(xlat_schedule(g.ctx, 0, destroy_doomed, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_translate(doomed, &req, count_answer, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_advance(g.ctx, 10), XLAT_OK);
    ck_assert_int_eq(answers, 0);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 0);
}
END_TEST

/* Units created and destroyed with events pending, without time passing:
 * their budgets come back, their ghosts are counted, and the pool does not
 * grow for them round after round. */
START_TEST(pool_accounting_after_cancel)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    size_t reserved = ctx->wheel.reserved, live = 0, capacity = 0;
    for (int round = 0; round < 2000; round++) {
        struct xlat__unit *u = bare_unit(ctx, 40);
        for (uint64_t i = 0; i < 40; i++)
            xlat__unit_post(u, 1 + i * 977, must_not_fire, NULL);
        ck_assert_uint_eq(xlat_pending_events(ctx), 40);
        xlat__unit_fini(u);
        ck_assert_uint_eq(xlat_pending_events(ctx), 0);
        ck_assert_uint_eq(ctx->wheel.reserved, reserved);
        ck_assert_uint_le(ctx->wheel.ghosts + ctx->wheel.reserved, ctx->wheel.capacity);
        if (round == 10) {
            live = ca.live_bytes;
            capacity = ctx->wheel.capacity;
        }
    }
    /* Ghosts are dropped rather than grown for. */
    ck_assert_uint_eq(ca.live_bytes, live);
    ck_assert_uint_eq(ctx->wheel.capacity, capacity);
    ck_assert_uint_le(ctx->wheel.owner_count, 2);
    ck_assert_int_eq(xlat_advance(ctx, 1u << 20), XLAT_OK);
    ck_assert_uint_eq(ctx->wheel.ghosts, 0);
    ck_assert_uint_eq(ctx->wheel.owner_count, 0);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* The pool's promise holds however the events spread: a unit posts its
 * whole budget, each event alone in a slot of its own at every level,
 * into a pool the host filled to the brim, from inside advance: nothing
 * overruns and nothing is allocated. */
static struct xlat__unit *spreader;
static void spread(void *user)
{
    (void)user;
    for (unsigned level = 0; level < XLAT_WHEEL_LEVELS - 1; level++)
        for (uint64_t digit = 1; digit < xlat__wheel_slots_at(level); digit++)
            xlat__unit_post(spreader, digit << xlat__wheel_shift(level), count_fire, user);
}

START_TEST(no_allocation_in_tick_at_the_worst_spread)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    size_t budget = 1;
    for (unsigned level = 0; level < XLAT_WHEEL_LEVELS - 1; level++)
        budget += xlat__wheel_slots_at(level) - 1;
    uint64_t fired = 0;
    spreader = bare_unit(ctx, budget);
    xlat__unit_post(spreader, 1, spread, &fired);
    uint64_t fillers = 0;
    while (ctx->wheel.reserved + ctx->wheel.host_pending < ctx->wheel.capacity) {
        ck_assert_int_eq(xlat_schedule(ctx, 5 + fillers % 3000, count_fire_noop, NULL), XLAT_OK);
        fillers++;
    }
    size_t allocs = ca.allocs;
    ck_assert_int_eq(xlat_advance(ctx, 1), XLAT_OK);
    ck_assert_uint_eq(xlat_pending_events(ctx), budget - 1 + fillers);
    ck_assert_int_eq(xlat_advance(ctx, 1ull << 62), XLAT_OK); /* every level re-filed */
    ck_assert_uint_eq(fired, budget - 1);
    ck_assert_uint_eq(ca.allocs, allocs);
    ck_assert_uint_eq(xlat__events_overruns(ctx), 0);
    ck_assert_uint_eq(xlat_pending_events(ctx), 0);
    xlat__unit_fini(spreader);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* Eleven events in every slot of every level but the top (near and far
 * alike hold fewer, so each list reaches its second small block) use
 * nearly every small block the pool carves, from every chunk it grew:
 * a chunk's blocks are carved in address order and no further, so no
 * block is handed out twice and each event fires at its cycle, in
 * order. */
#define EVERY_SLOT_MAX 10000

static uint64_t every_slot_due[EVERY_SLOT_MAX];

static uint64_t every_slot_due_of(uint64_t i) { return every_slot_due[i]; }

/* Every block the pool holds is in one place: a list, a free list, or
 * the rest of a chunk not carved yet. */
static void check_blocks(const struct xlat_wheel *w)
{
    size_t held[2] = {0, 0};
    for (unsigned s = 0; s <= XLAT_WHEEL_SLOTS_ALL; s++) {
        const struct xlat_event_list *l = s < XLAT_WHEEL_SLOTS_ALL ? &w->slot[s].list : &w->ready;
        for (const struct xlat_event_block *b = l->head; b; b = b->next)
            held[b->big]++;
    }
    for (int k = 0; k < 2; k++) /* small, big */
        for (const struct xlat_event_block *b = w->free_blocks[k]; b; b = b->next)
            held[k]++;
    ck_assert_uint_eq(held[0] + xlat__wheel_uncarved(w, 0), w->small_blocks);
    ck_assert_uint_eq(held[1] + xlat__wheel_uncarved(w, 1), w->big_blocks);
}

START_TEST(eleven_events_in_every_slot_fire_in_order)
{
    size_t n = 0;
    seq_start(every_slot_due_of);
    for (unsigned level = 0; level < XLAT_WHEEL_LEVELS - 1; level++)
        for (uint64_t digit = 1; digit < xlat__wheel_slots_at(level); digit++)
            for (int k = 0; k < 11; k++) {
                ck_assert_uint_lt(n, EVERY_SLOT_MAX);
                every_slot_due[n] = digit << xlat__wheel_shift(level);
                ck_assert_int_eq(xlat_schedule(g.ctx, every_slot_due[n], seq_fire,
                                               (void *)(uintptr_t)n),
                                 XLAT_OK);
                n++;
            }
    ck_assert_uint_eq(xlat_pending_events(g.ctx), n);
    check_blocks(&g.ctx->wheel);
    ck_assert_int_eq(xlat_advance(g.ctx, 1ull << 40), XLAT_OK); /* through level 6 */
    check_blocks(&g.ctx->wheel);
    ck_assert_int_eq(xlat_advance(g.ctx, 1ull << 62), XLAT_OK);
    check_blocks(&g.ctx->wheel);
    ck_assert_uint_eq(seq.fired, n);
    ck_assert_uint_eq(seq.bad, 0);
}
END_TEST

/* Cancelling by function keeps the others in their order. */
static int selected(void *match_user, xlat_event_fn fn, void *user)
{
    return fn == in_order && ((intptr_t)user % 3) == (intptr_t)match_user;
}

static uint64_t order_cycle;
static void in_order_skipping(void *user)
{
    int tag = (int)(intptr_t)user;
    if (xlat_now(g.ctx) != order_cycle) { /* a new cycle: its own order */
        order_cycle = xlat_now(g.ctx);
        order_next = -1;
    }
    ck_assert_int_ne(tag % 3, 1);
    ck_assert_int_gt(tag, order_next);
    order_next = tag;
}

START_TEST(cancel_by_function_keeps_order)
{
    order_next = -1;
    order_cycle = 0;
    for (int i = 0; i < 300; i++)
        xlat_schedule(g.ctx, (uint64_t)(i % 2) * 100 + 50, i % 3 == 1 ? in_order : in_order_skipping,
                      (void *)(intptr_t)i);
    xlat__cancel_events(g.ctx, selected, (void *)(intptr_t)1);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 200);
    ck_assert_int_eq(xlat_advance(g.ctx, 100), XLAT_OK); /* the even ones, at 50 */
    ck_assert_int_eq(xlat_advance(g.ctx, 100), XLAT_OK);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 0);
}
END_TEST

/* Far entries (2^38 cycles or more from the wheel's position) keep their
 * whole cycle, in lists of their own format: a cancel compacts those
 * lists, and the events left fire at their cycles, in (cycle, schedule)
 * order, as they are re-filed level by level into near ones. */
static const uint64_t far_due[] = {1ull << 38, (1ull << 38) + 5, (1ull << 44) + 3,
                                   (1ull << 50) + 1, (1ull << 50) + 1, 1000};

static uint64_t far_cycle(int tag)
{
    int k = tag % 6;
    return far_due[k] + (uint64_t)(tag / 6);
}

static int is_must_not_fire(void *match_user, xlat_event_fn fn, void *user)
{
    (void)match_user;
    (void)user;
    return fn == must_not_fire;
}

START_TEST(cancel_keeps_far_events_at_their_cycles)
{
    for (int tag = 0; tag < 60; tag++)
        ck_assert_int_eq(xlat_schedule(g.ctx, far_cycle(tag), tag % 5 % 2 ? must_not_fire : record,
                                       (void *)(intptr_t)tag),
                         XLAT_OK);
    xlat__cancel_events(g.ctx, is_must_not_fire, NULL);
    ck_assert_uint_eq(xlat_pending_events(g.ctx), 36); /* tags 1 and 3 mod 5 go */
    ck_assert_int_eq(xlat_advance(g.ctx, (1ull << 50) + 20), XLAT_OK);
    ck_assert_int_eq(g.n, 36);
    for (int i = 0; i < g.n; i++) {
        ck_assert_uint_eq(g.log[i].cycle, far_cycle(g.log[i].tag));
        if (i)
            ck_assert(g.log[i].cycle > g.log[i - 1].cycle ||
                      (g.log[i].cycle == g.log[i - 1].cycle && g.log[i].tag > g.log[i - 1].tag));
    }
}
END_TEST

Suite *event_suite(void)
{
    Suite *s = suite_create("event");
    TCase *tc = test_case(s, "order");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, same_cycle_fires_in_schedule_order);
    tcase_add_test(tc, delay_zero_from_callback_fires_same_advance);
    tcase_add_test(tc, advance_zero_runs_what_is_due_now);
    tcase_add_test(tc, tick_is_advance_by_one);
    tcase_add_test(tc, advances_inside_the_span_of_level_zero);
    tcase_add_test(tc, idle_time_and_far_events);
    tcase_add_loop_test(tc, events_at_every_digit_boundary, 0, 4);
    tcase_add_test(tc, advance_from_callback_is_refused);
    tcase_add_loop_test(tc, random_schedule_matches_reference, 0, 5);
    tcase_add_loop_test(tc, random_ticks_match_reference, 0, 5);
    tcase_add_test(tc, tick_at_the_end_of_the_clock);
    tc = test_case(s, "memory");
    tcase_add_test(tc, pool_grows_geometrically_then_stops_allocating);
    tcase_add_test(tc, big_pool_fires_each_event_in_order);
    tcase_add_test(tc, schedule_failure_is_nomem_and_changes_nothing);
    tcase_add_test(tc, destroy_with_pending_events);
    tc = test_case(s, "cancel");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, same_cycle_order_across_levels_and_blocks);
    tcase_add_test(tc, destroyed_unit_events_never_fire);
    tcase_add_test(tc, unit_destroyed_in_callback_answers_nothing);
    tcase_add_test(tc, tick_drops_the_ghosts_its_callbacks_leave);
    tcase_add_test(tc, pool_accounting_after_cancel);
    tcase_add_test(tc, no_allocation_in_tick_at_the_worst_spread);
    tcase_add_test(tc, cancel_by_function_keeps_order);
    tcase_add_test(tc, cancel_keeps_far_events_at_their_cycles);
    tcase_add_test(tc, eleven_events_in_every_slot_fire_in_order);
    return s;
}
