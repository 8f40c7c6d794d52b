/* A TLB's eviction reports: callbacks that call back into the same TLB. */
#include "testutil.h"

static xlat_ctx *ctx;

static void setup(void) { ctx = test_ctx(5, NULL); }
static void teardown(void) { xlat_ctx_destroy(ctx); }

static xlat_tlb *make_tlb(uint32_t entries, uint32_t ways)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    ck_assert_msg(xlat_tlb_create(ctx, &cfg, &t) == XLAT_OK, "%s", xlat_ctx_errmsg(ctx));
    return t;
}

static xlat_tlb_entry page(uint64_t vpn)
{
    xlat_tlb_entry e = {.pasid = 1, .vpn = vpn, .pfn = 0x1000 + vpn, .page_shift = 12,
                        .perm = XLAT_PERM_R};
    return e;
}

/* What a listener heard, in order, and what it does on its first call. */
typedef struct heard {
    const char *tag;
    char log[64];
    int n;
    uint64_t reinsert; /* nonzero: insert this vpn into the TLB once */
} heard;

static void note(heard *h, const xlat_tlb_entry *v)
{
    ck_assert_int_lt(h->n, 60);
    h->log[h->n++] = h->tag[0];
    h->log[h->n++] = (char)('0' + v->vpn % 10);
    h->log[h->n] = '\0';
}

static void on_evict(void *user, xlat_tlb *t, const xlat_tlb_entry *v)
{
    heard *h = user;
    note(h, v);
    if (h->reinsert) {
        xlat_tlb_entry e = page(h->reinsert);
        h->reinsert = 0;
        ck_assert_int_ge(xlat_tlb_insert(t, &e, NULL), 0);
    }
}

static void count_entry(void *user, const xlat_tlb_entry *e)
{
    (void)e;
    (*(size_t *)user)++;
}

static size_t entries_in_sets(const xlat_tlb *t)
{
    size_t n = 0;
    for (uint32_t s = 0; s < xlat_tlb_sets(t); s++)
        ck_assert_int_eq(xlat_tlb_set_foreach(t, s, count_entry, &n), XLAT_OK);
    return n;
}

/* The callback inserts into the same full set: the outer insert must not
 * overwrite what the callback put in the victim's way. */
START_TEST(insert_from_evict_callback)
{
    xlat_tlb *t = make_tlb(2, 2);
    heard h = {.tag = "a", .reinsert = 9};
    xlat_tlb_set_evict_fn(t, on_evict, &h);
    xlat_tlb_entry e1 = page(1), e2 = page(2), e3 = page(3), v;
    ck_assert_int_eq(xlat_tlb_insert(t, &e1, NULL), 0);
    ck_assert_int_eq(xlat_tlb_insert(t, &e2, NULL), 0);
    ck_assert_int_eq(xlat_tlb_insert(t, &e3, &v), 1);
    ck_assert_uint_eq(v.vpn, 1);
    ck_assert_uint_eq(xlat_tlb_count(t), 2);
    ck_assert_uint_eq(entries_in_sets(t), 2);
    /* 3 replaced 1; the callback's 9 then evicted 2, the LRU of {2, 3}. */
    ck_assert_str_eq(h.log, "a1a2");
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 3ull << 12, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 9ull << 12, NULL), XLAT_OK);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.inserts, 4);
    ck_assert_uint_eq(st.evictions, 2);
    xlat_tlb_destroy(t);
}
END_TEST

static void fill(xlat_tlb *t, uint64_t from, uint64_t to)
{
    for (uint64_t vpn = from; vpn <= to; vpn++) {
        xlat_tlb_entry e = page(vpn);
        ck_assert_int_ge(xlat_tlb_insert(t, &e, NULL), 0);
    }
}

/* The slot first, then the listeners in the order they were added. */
START_TEST(listeners_hear_every_eviction_in_order)
{
    xlat_tlb *t = make_tlb(2, 2);
    heard a = {.tag = "a"}, b = {.tag = "b"}, slot = {.tag = "s"};
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &a), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &b), XLAT_OK);
    fill(t, 1, 4); /* evicts 1, then 2 */
    ck_assert_str_eq(a.log, "a1a2");
    ck_assert_str_eq(b.log, "b1b2");
    /* The slot, then a listener added after the others left. */
    heard shared = {.tag = "x"};
    xlat_tlb_set_evict_fn(t, on_evict, &slot);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, on_evict, &a), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, on_evict, &b), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &shared), XLAT_OK);
    fill(t, 5, 5); /* evicts 3 */
    ck_assert_str_eq(slot.log, "s3");
    ck_assert_str_eq(shared.log, "x3");
    ck_assert_str_eq(a.log, "a1a2");
    xlat_tlb_destroy(t);
}
END_TEST

/* Listeners that append to one log, to see their relative order. */
static char order_log[64];
static void order_first(void *user, xlat_tlb *t, const xlat_tlb_entry *v)
{
    (void)user, (void)t, (void)v;
    strcat(order_log, "1");
}
static void order_second(void *user, xlat_tlb *t, const xlat_tlb_entry *v)
{
    (void)user, (void)t, (void)v;
    strcat(order_log, "2");
}
static void order_slot(void *user, xlat_tlb *t, const xlat_tlb_entry *v)
{
    (void)user, (void)t, (void)v;
    strcat(order_log, "s");
}

START_TEST(slot_then_registration_order)
{
    xlat_tlb *t = make_tlb(1, 1);
    order_log[0] = '\0';
    ck_assert_int_eq(xlat_tlb_evict_listen(t, order_second, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, order_first, NULL), XLAT_OK);
    xlat_tlb_set_evict_fn(t, order_slot, NULL);
    fill(t, 1, 2);
    ck_assert_str_eq(order_log, "s21");
    xlat_tlb_destroy(t);
}
END_TEST

/* Removing one listener, or replacing or emptying the slot, never
 * disconnects another listener. */
START_TEST(removing_one_keeps_the_others)
{
    xlat_tlb *t = make_tlb(1, 1);
    heard a = {.tag = "a"}, b = {.tag = "b"}, s1 = {.tag = "s"}, s2 = {.tag = "t"};
    xlat_tlb_set_evict_fn(t, on_evict, &s1);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &a), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &b), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, on_evict, &a), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, on_evict, &a), XLAT_ERR_NOT_FOUND);
    xlat_tlb_set_evict_fn(t, on_evict, &s2); /* a host takes the slot over */
    fill(t, 1, 2);
    ck_assert_str_eq(a.log, "");
    ck_assert_str_eq(b.log, "b1");
    ck_assert_str_eq(s1.log, "");
    ck_assert_str_eq(s2.log, "t1");
    xlat_tlb_set_evict_fn(t, NULL, NULL);
    fill(t, 3, 3);
    ck_assert_str_eq(b.log, "b1b2");
    ck_assert_str_eq(s2.log, "t1");
    ck_assert_int_eq(xlat_tlb_evict_listen(NULL, on_evict, &a), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, NULL, &a), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(NULL, on_evict, &a), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, NULL, &a), XLAT_ERR_INVAL);
    xlat_tlb_destroy(t);
}
END_TEST

/* Two listeners, the first of which inserts into the same set: the count
 * stays equal to the entries in the sets, and the second listener hears
 * both evictions. */
START_TEST(listener_inserting_keeps_count)
{
    xlat_tlb *t = make_tlb(4, 2);
    heard a = {.tag = "a", .reinsert = 8}, b = {.tag = "b"};
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &a), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &b), XLAT_OK);
    fill(t, 0, 3); /* set 0: 0, 2; set 1: 1, 3 */
    fill(t, 4, 4); /* evicts 0; a inserts 8 into set 0, which evicts 2 */
    ck_assert_uint_eq(xlat_tlb_count(t), 4);
    ck_assert_uint_eq(entries_in_sets(t), 4);
    ck_assert_str_eq(a.log, "a0a2");
    ck_assert_str_eq(b.log, "b2b0"); /* the nested report reaches b first */
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 4ull << 12, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 8ull << 12, NULL), XLAT_OK);
    xlat_tlb_destroy(t);
}
END_TEST

/* A listener that removes itself and the one after it: neither is called
 * again, the others are. */
static heard *victim_of_removal;
static void remove_self_and_next(void *user, xlat_tlb *t, const xlat_tlb_entry *v)
{
    note(user, v);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, remove_self_and_next, user), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, on_evict, victim_of_removal), XLAT_OK);
}

START_TEST(listener_removes_listeners)
{
    xlat_tlb *t = make_tlb(1, 1);
    heard a = {.tag = "a"}, b = {.tag = "b"}, c = {.tag = "c"};
    victim_of_removal = &b;
    ck_assert_int_eq(xlat_tlb_evict_listen(t, remove_self_and_next, &a), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &b), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &c), XLAT_OK);
    fill(t, 1, 3);
    ck_assert_str_eq(a.log, "a1");
    ck_assert_str_eq(b.log, "");
    ck_assert_str_eq(c.log, "c1c2");
    xlat_tlb_destroy(t);
}
END_TEST

/* Timed fills report to the listeners too. */
static void on_done(void *user, const xlat_resp *r)
{
    (void)r;
    (*(int *)user)++;
}

START_TEST(timed_fills_reach_listeners)
{
    xlat_tlb *t = make_tlb(1, 1);
    xlat_fixed *mem;
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 5;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &mem), XLAT_OK);
    xlat_target tm = TEST_TARGET(fixed, mem);
    ck_assert_int_eq(xlat_tlb_set_next(t, &tm), XLAT_OK);
    heard a = {.tag = "a"};
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &a), XLAT_OK);
    int answered = 0;
    for (uint64_t vpn = 1; vpn <= 3; vpn++) {
        xlat_req req = {.id = vpn, .vaddr = vpn << 12, .pasid = 1};
        ck_assert_int_eq(xlat_tlb_translate(t, &req, on_done, &answered), XLAT_OK);
        xlat_advance(ctx, 10);
    }
    ck_assert_int_eq(answered, 3);
    ck_assert_str_eq(a.log, "a1a2");
    xlat_tlb_destroy(t);
    xlat_fixed_destroy(mem);
}
END_TEST

/* Adding a listener may allocate; a failure adds nothing. */
START_TEST(listen_out_of_memory)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *c = test_ctx(1, &ca);
    xlat_tlb_config cfg;
    xlat_tlb *t;
    xlat_tlb_config_init(&cfg);
    cfg.entries = cfg.ways = 1;
    ck_assert_int_eq(xlat_tlb_create(c, &cfg, &t), XLAT_OK);
    heard a = {.tag = "a"};
    size_t before = xlat_tlb_memory(t);
    ca.fail_after = 0;
    ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &a), XLAT_ERR_NOMEM);
    ca.fail_after = -1;
    ck_assert_uint_eq(xlat_tlb_memory(t), before);
    ck_assert_int_eq(xlat_tlb_evict_unlisten(t, on_evict, &a), XLAT_ERR_NOT_FOUND);
    for (int i = 0; i < 3; i++) /* room for 2, then 4: memory is reported */
        ck_assert_int_eq(xlat_tlb_evict_listen(t, on_evict, &a), XLAT_OK);
    ck_assert_uint_eq(xlat_tlb_memory(t), before + 4 * 2 * sizeof(void *));
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(c);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

Suite *tlb_evict_suite(void)
{
    Suite *s = suite_create("tlb_evict");
    TCase *tc = test_case(s, "reentrancy");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, insert_from_evict_callback);
    tcase_add_test(tc, listener_inserting_keeps_count);
    tcase_add_test(tc, listener_removes_listeners);
    tc = test_case(s, "listeners");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, listeners_hear_every_eviction_in_order);
    tcase_add_test(tc, slot_then_registration_order);
    tcase_add_test(tc, removing_one_keeps_the_others);
    tcase_add_test(tc, timed_fills_reach_listeners);
    tcase_add_test(tc, listen_out_of_memory);
    return s;
}
