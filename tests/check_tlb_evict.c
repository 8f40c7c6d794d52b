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
    xlat_tlb_stats_get(t, &st);
    ck_assert_uint_eq(st.inserts, 4);
    ck_assert_uint_eq(st.evictions, 2);
    xlat_tlb_destroy(t);
}
END_TEST

Suite *tlb_evict_suite(void)
{
    Suite *s = suite_create("tlb_evict");
    TCase *tc = test_case(s, "reentrancy");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, insert_from_evict_callback);
    return s;
}
