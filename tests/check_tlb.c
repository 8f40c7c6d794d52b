/* The TLB as a structure: replacement sequences, matching, invalidation,
 * unbounded growth and every error path. */
#include "newer_config.h"
#include "testutil.h"

static xlat_ctx *ctx;

static void setup(void) { ctx = test_ctx(11, NULL); }
static void teardown(void) { xlat_ctx_destroy(ctx); }

static xlat_tlb *make_tlb(uint32_t entries, uint32_t ways, xlat_repl repl)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.repl = repl;
    ck_assert_msg(xlat_tlb_create(ctx, &cfg, &t) == XLAT_OK, "%s", xlat_ctx_errmsg(ctx));
    return t;
}

static xlat_tlb_entry page(uint32_t pasid, uint64_t vpn)
{
    xlat_tlb_entry e = {0};
    e.pasid = pasid;
    e.vpn = vpn;
    e.pfn = 0x1000 + vpn;
    e.page_shift = 12;
    e.perm = XLAT_PERM_R | XLAT_PERM_W;
    return e;
}

/* Runs a trace of 4 KiB vpns with insert-on-miss; writes 'H'/'M' per access
 * and the evicted vpns. */
static void run_trace(xlat_tlb *t, const uint64_t *vpn, int n, char *hm, uint64_t *victims,
                      int *nvict)
{
    *nvict = 0;
    for (int i = 0; i < n; i++) {
        if (xlat_tlb_lookup(t, 1, vpn[i] << 12, NULL) == XLAT_OK) {
            hm[i] = 'H';
            continue;
        }
        hm[i] = 'M';
        xlat_tlb_entry e = page(1, vpn[i]), v;
        if (xlat_tlb_insert(t, &e, &v) == 1)
            victims[(*nvict)++] = v.vpn;
    }
    hm[n] = 0;
}

static const uint64_t trace[] = {1, 2, 3, 1, 4, 2, 5, 1, 2, 3};

START_TEST(lru_sequence)
{
    xlat_tlb *t = make_tlb(3, 3, XLAT_REPL_LRU);
    char hm[16];
    uint64_t v[16];
    int nv;
    run_trace(t, trace, 10, hm, v, &nv);
    ck_assert_str_eq(hm, "MMMHMMMMHM");
    const uint64_t want[] = {2, 3, 1, 4, 5};
    ck_assert_int_eq(nv, 5);
    for (int i = 0; i < nv; i++)
        ck_assert_uint_eq(v[i], want[i]);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.accesses, 10);
    ck_assert_uint_eq(st.hits, 2);
    ck_assert_uint_eq(st.misses, 8);
    ck_assert_uint_eq(st.evictions, 5);
    ck_assert_uint_eq(st.inserts, 8);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(fifo_sequence)
{
    xlat_tlb *t = make_tlb(3, 3, XLAT_REPL_FIFO);
    char hm[16];
    uint64_t v[16];
    int nv;
    run_trace(t, trace, 10, hm, v, &nv);
    ck_assert_str_eq(hm, "MMMHMHMMMM");
    const uint64_t want[] = {1, 2, 3, 4, 5};
    ck_assert_int_eq(nv, 5);
    for (int i = 0; i < nv; i++)
        ck_assert_uint_eq(v[i], want[i]);
    xlat_tlb_destroy(t);
}
END_TEST

static int insert_vpn(xlat_tlb *t, uint64_t vpn, uint64_t *victim)
{
    xlat_tlb_entry e = page(1, vpn), v;
    int rc = xlat_tlb_insert(t, &e, &v);
    *victim = rc == 1 ? v.vpn : UINT64_MAX;
    return rc;
}

START_TEST(plru_victims)
{
    /* Tree bits point at the victim half; filling ways 0..3 leaves the tree
     * pointing at way 0. Hand-computed: victims a, c, d, e. */
    xlat_tlb *t = make_tlb(4, 4, XLAT_REPL_PLRU);
    uint64_t v;
    for (uint64_t vpn = 0xa; vpn <= 0xd; vpn++)
        ck_assert_int_eq(insert_vpn(t, vpn, &v), 0);
    ck_assert_int_eq(insert_vpn(t, 0xe, &v), 1);
    ck_assert_uint_eq(v, 0xa);
    ck_assert_int_eq(insert_vpn(t, 0xf, &v), 1);
    ck_assert_uint_eq(v, 0xc);
    ck_assert_int_eq(xlat_tlb_lookup(t, 1, 0xbull << 12, NULL), XLAT_OK);
    ck_assert_int_eq(insert_vpn(t, 0x10, &v), 1);
    ck_assert_uint_eq(v, 0xd);
    ck_assert_int_eq(insert_vpn(t, 0x11, &v), 1);
    ck_assert_uint_eq(v, 0xe);
    xlat_tlb_destroy(t);
}
END_TEST

static void victims_with_seed(uint64_t seed, uint64_t *out, int n)
{
    xlat_ctx *c = test_ctx(seed, NULL);
    xlat_tlb_config cfg;
    xlat_tlb *t;
    xlat_tlb_config_init(&cfg);
    cfg.entries = 16;
    cfg.ways = 16;
    cfg.repl = XLAT_REPL_RANDOM;
    ck_assert_int_eq(xlat_tlb_create(c, &cfg, &t), XLAT_OK);
    for (uint64_t vpn = 0; vpn < 16; vpn++)
        ck_assert_int_eq(insert_vpn(t, vpn, &out[0]), 0);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(insert_vpn(t, 100 + (uint64_t)i, &out[i]), 1);
        ck_assert_int_eq(xlat_tlb_probe(t, 1, out[i] << 12, NULL), XLAT_ERR_NOT_FOUND);
    }
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(c);
}

START_TEST(random_is_reproducible_from_seed)
{
    uint64_t a[32], b[32], c[32];
    victims_with_seed(5, a, 32);
    victims_with_seed(5, b, 32);
    victims_with_seed(6, c, 32);
    ck_assert_mem_eq(a, b, sizeof(a));
    ck_assert_int_ne(memcmp(a, c, sizeof(a)), 0);
}
END_TEST

START_TEST(modulo_index_places_by_set)
{
    xlat_tlb *t = make_tlb(8, 2, XLAT_REPL_LRU); /* 4 sets */
    uint64_t v;
    ck_assert_uint_eq(xlat_tlb_sets(t), 4);
    ck_assert_int_eq(insert_vpn(t, 1, &v), 0);
    ck_assert_int_eq(insert_vpn(t, 5, &v), 0);
    ck_assert_int_eq(insert_vpn(t, 2, &v), 0); /* another set: no eviction */
    ck_assert_int_eq(insert_vpn(t, 9, &v), 1); /* set 1 is full */
    ck_assert_uint_eq(v, 1);
    ck_assert_uint_eq(xlat_tlb_count(t), 3);
    ck_assert_uint_eq(xlat_tlb_capacity(t), 8);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(non_power_of_two_sets)
{
    xlat_tlb *t = make_tlb(12, 4, XLAT_REPL_LRU); /* 3 sets: vpn % 3 */
    uint64_t v;
    for (uint64_t vpn = 0; vpn < 12; vpn += 3)
        ck_assert_int_eq(insert_vpn(t, vpn, &v), 0);
    ck_assert_int_eq(insert_vpn(t, 12, &v), 1);
    ck_assert_uint_eq(v, 0);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(update_in_place_makes_most_recent)
{
    xlat_tlb *t = make_tlb(2, 2, XLAT_REPL_LRU);
    uint64_t v;
    insert_vpn(t, 1, &v);
    insert_vpn(t, 2, &v);
    xlat_tlb_entry e = page(1, 1);
    e.pfn = 0x777;
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    ck_assert_uint_eq(xlat_tlb_count(t), 2);
    ck_assert_int_eq(insert_vpn(t, 3, &v), 1);
    ck_assert_uint_eq(v, 2); /* 1 was made most recent by the update */
    xlat_tlb_entry got;
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 0x1000, &got), XLAT_OK);
    ck_assert_uint_eq(got.pfn, 0x777);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.updates, 1);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(probe_changes_nothing)
{
    xlat_tlb *t = make_tlb(2, 2, XLAT_REPL_LRU);
    uint64_t v;
    insert_vpn(t, 1, &v);
    insert_vpn(t, 2, &v);
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 0x1000, NULL), XLAT_OK); /* no LRU update */
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 0x9000, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(insert_vpn(t, 3, &v), 1);
    ck_assert_uint_eq(v, 1);
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.accesses, 0);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(several_page_sizes_and_pasids)
{
    xlat_tlb *t = make_tlb(64, 4, XLAT_REPL_LRU);
    xlat_tlb_entry big = {.pasid = 3, .vpn = 0x40000000ull >> 21, .pfn = 0x7, .page_shift = 21,
                          .perm = XLAT_PERM_R};
    xlat_tlb_entry huge = {.pasid = 3, .vpn = 2, .pfn = 0x9, .page_shift = 30, .perm = XLAT_PERM_R};
    xlat_tlb_entry small = page(3, 0x40000); /* 0x40000000 as a 4 KiB page */
    ck_assert_int_eq(xlat_tlb_insert(t, &big, NULL), 0);
    ck_assert_int_eq(xlat_tlb_insert(t, &huge, NULL), 0);
    xlat_tlb_entry got;
    ck_assert_int_eq(xlat_tlb_lookup(t, 3, 0x401FF123ull, &got), XLAT_OK);
    ck_assert_uint_eq(got.page_shift, 21);
    ck_assert_uint_eq(got.pfn, 0x7);
    ck_assert_int_eq(xlat_tlb_lookup(t, 3, 0x8ABCDEF0ull, &got), XLAT_OK);
    ck_assert_uint_eq(got.page_shift, 30);
    /* The smallest page size present is tried first. */
    ck_assert_int_eq(xlat_tlb_insert(t, &small, NULL), 0);
    ck_assert_int_eq(xlat_tlb_lookup(t, 3, 0x40000010ull, &got), XLAT_OK);
    ck_assert_uint_eq(got.page_shift, 12);
    /* Another address space never sees them. */
    ck_assert_int_eq(xlat_tlb_lookup(t, 4, 0x401FF123ull, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_lookup(t, 4, 0x40000010ull, NULL), XLAT_ERR_NOT_FOUND);
    /* Invalidating an address removes every size that covers it. */
    ck_assert_int_eq(xlat_tlb_invalidate(t, 3, 0x40000010ull), 2); /* 4 KiB and 2 MiB */
    ck_assert_int_eq(xlat_tlb_probe(t, 3, 0x40000010ull, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_invalidate(t, 3, 0x40000010ull), 0);
    ck_assert_uint_eq(xlat_tlb_count(t), 1);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(invalidate_pasid_and_flush)
{
    xlat_tlb *t = make_tlb(16, 4, XLAT_REPL_LRU);
    for (uint64_t vpn = 0; vpn < 6; vpn++) {
        xlat_tlb_entry e = page(vpn % 2 ? 7 : 8, vpn);
        xlat_tlb_insert(t, &e, NULL);
    }
    ck_assert_int_eq(xlat_tlb_invalidate_pasid(t, 7), 3);
    ck_assert_int_eq(xlat_tlb_invalidate_pasid(t, 7), 0);
    ck_assert_uint_eq(xlat_tlb_count(t), 3);
    ck_assert_int_eq(xlat_tlb_lookup(t, 7, 1ull << 12, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_lookup(t, 8, 2ull << 12, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_tlb_flush(t), 3);
    ck_assert_uint_eq(xlat_tlb_count(t), 0);
    ck_assert_int_eq(xlat_tlb_lookup(t, 8, 2ull << 12, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_tlb_flush(t), 0); /* an empty TLB: nothing removed */
    xlat_tlb_stats st;
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.invalidations, 6);
    xlat_tlb_stats_reset(t);
    xlat_tlb_stats_get(t, &st, sizeof(st));
    ck_assert_uint_eq(st.invalidations, 0);
    xlat_tlb_destroy(t);
}
END_TEST

typedef struct seen {
    uint64_t vpn[64];
    int n;
} seen;

static void collect(void *user, const xlat_tlb_entry *e)
{
    seen *s = user;
    s->vpn[s->n++] = e->vpn;
}

static void on_evict(void *user, xlat_tlb *t, const xlat_tlb_entry *victim)
{
    (void)t;
    collect(user, victim);
}

START_TEST(foreach_order_and_evict_callback)
{
    xlat_tlb *t = make_tlb(4, 4, XLAT_REPL_LRU);
    seen ev = {{0}, 0}, order = {{0}, 0};
    xlat_tlb_set_evict_fn(t, on_evict, &ev);
    uint64_t v;
    for (uint64_t vpn = 1; vpn <= 4; vpn++)
        insert_vpn(t, vpn, &v);
    xlat_tlb_lookup(t, 1, 2ull << 12, NULL);
    ck_assert_int_eq(xlat_tlb_set_foreach(t, 0, collect, &order), XLAT_OK);
    const uint64_t lru_to_mru[] = {1, 3, 4, 2};
    ck_assert_int_eq(order.n, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(order.vpn[i], lru_to_mru[i]);
    insert_vpn(t, 5, &v);
    insert_vpn(t, 6, &v);
    ck_assert_int_eq(ev.n, 2);
    ck_assert_uint_eq(ev.vpn[0], 1);
    ck_assert_uint_eq(ev.vpn[1], 3);
    ck_assert_int_eq(xlat_tlb_set_foreach(t, 1, collect, &order), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_set_foreach(t, 0, NULL, NULL), XLAT_ERR_INVAL);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(unbounded_never_evicts)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *c = test_ctx(2, &ca);
    xlat_tlb_config cfg;
    xlat_tlb *t;
    xlat_tlb_config_init(&cfg);
    cfg.entries = 0;
    cfg.name = "ideal";
    ck_assert_int_eq(xlat_tlb_create(c, &cfg, &t), XLAT_OK);
    ck_assert_str_eq(xlat_tlb_name(t), "ideal");
    for (uint64_t i = 0; i < 100000; i++) {
        xlat_tlb_entry e = page((uint32_t)(i % 3), i * 7);
        ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    }
    ck_assert_uint_eq(xlat_tlb_count(t), 100000);
    ck_assert_uint_ge(xlat_tlb_capacity(t), 100000);
    for (uint64_t i = 0; i < 100000; i++)
        ck_assert_int_eq(xlat_tlb_probe(t, (uint32_t)(i % 3), (i * 7) << 12, NULL), XLAT_OK);
    /* A failed growth leaves the table as it was. */
    size_t cap = xlat_tlb_capacity(t);
    ca.fail_after = 0;
    int rc = 0;
    uint64_t i = 100000;
    for (; rc >= 0 && xlat_tlb_capacity(t) == cap; i++) {
        xlat_tlb_entry e = page(0, i * 7);
        rc = xlat_tlb_insert(t, &e, NULL);
    }
    ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
    ck_assert_uint_eq(xlat_tlb_count(t), (size_t)(i - 1));
    ck_assert_uint_eq(xlat_tlb_capacity(t), cap);
    ca.fail_after = -1;
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(c);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

START_TEST(hashed_index)
{
    xlat_tlb_config cfg;
    xlat_tlb *t;
    xlat_tlb_config_init(&cfg);
    cfg.entries = 64;
    cfg.ways = 4;
    cfg.index = XLAT_TLB_INDEX_HASH;
    ck_assert_int_eq(xlat_tlb_create(ctx, &cfg, &t), XLAT_OK);
    /* vpns 0, 16, 32, ... all share set 0 under modulo; hashed, they spread. */
    int evictions = 0;
    for (uint64_t k = 0; k < 8; k++)
        evictions += xlat_tlb_insert(t, &(xlat_tlb_entry){.pasid = 1, .vpn = k * 16, .pfn = k,
                                                          .page_shift = 12}, NULL);
    ck_assert_int_lt(evictions, 4);
    for (uint64_t k = 0; k < 8; k++)
        if (xlat_tlb_probe(t, 1, (k * 16) << 12, NULL) != XLAT_OK)
            evictions--;
    ck_assert_int_eq(evictions, 0);
    xlat_tlb_destroy(t);
}
END_TEST

static int create_rc(uint32_t entries, uint32_t ways, int repl, uint32_t mshrs, uint32_t ports)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.repl = (xlat_repl)repl;
    cfg.mshrs = mshrs;
    cfg.ports = ports;
    int rc = xlat_tlb_create(ctx, &cfg, &t);
    xlat_tlb_destroy(t);
    return rc;
}

START_TEST(config_errors)
{
    ck_assert_int_eq(create_rc(16, 0, XLAT_REPL_LRU, 1, 1), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "ways must be >= 1"));
    ck_assert_int_eq(create_rc(16, 3, XLAT_REPL_LRU, 1, 1), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "must divide entries"));
    ck_assert_int_eq(create_rc(12, 6, XLAT_REPL_PLRU, 1, 1), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "power-of-two"));
    ck_assert_int_eq(create_rc(16, 4, 17, 1, 1), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "unknown replacement"));
    ck_assert_int_eq(create_rc(16, 4, XLAT_REPL_LRU, 0, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(16, 4, XLAT_REPL_LRU, 1, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(create_rc(12, 12, XLAT_REPL_FIFO, 1, 1), XLAT_OK);
    ck_assert_int_eq(create_rc(0, 0, XLAT_REPL_LRU, 1, 1), XLAT_OK);

    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    ck_assert_int_eq(xlat_tlb_create(NULL, &cfg, &t), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_create(ctx, NULL, &t), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_create(ctx, &cfg, NULL), XLAT_ERR_INVAL);
    cfg.index = (xlat_tlb_index)5;
    ck_assert_int_eq(xlat_tlb_create(ctx, &cfg, &t), XLAT_ERR_INVAL);
    xlat_tlb_config_init(&cfg);
    cfg.struct_size = 8;
    ck_assert_int_eq(xlat_tlb_create(ctx, &cfg, &t), XLAT_ERR_INVAL);
    XLAT_TEST_NEWER(xlat_tlb_config) newer = {.cfg = cfg};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    ck_assert_int_eq(xlat_tlb_create(ctx, &newer.cfg, &t), XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_null(t);
    xlat_tlb_config_init(NULL);
}
END_TEST

START_TEST(entry_and_null_errors)
{
    xlat_tlb *t = make_tlb(16, 4, XLAT_REPL_LRU);
    xlat_tlb_entry e = page(1, 1);
    e.page_shift = 11;
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "page_shift 11"));
    e.page_shift = 64;
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), XLAT_ERR_INVAL);
    e = page(1, 1ull << 52); /* 64 - 12 bits at most */
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_insert(t, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_insert(NULL, &e, NULL), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_tlb_count(t), 0);
    ck_assert_int_eq(xlat_tlb_lookup(NULL, 1, 0, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_probe(NULL, 1, 0, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_invalidate(NULL, 1, 0), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_invalidate_pasid(NULL, 1), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_tlb_count(NULL), 0);
    ck_assert_uint_eq(xlat_tlb_capacity(NULL), 0);
    ck_assert_uint_eq(xlat_tlb_memory(NULL), 0);
    ck_assert_str_eq(xlat_tlb_name(NULL), "");
    ck_assert_int_eq(xlat_tlb_set_foreach(NULL, 0, collect, NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_tlb_flush(NULL), XLAT_ERR_INVAL);
    xlat_tlb_stats_reset(NULL);
    xlat_tlb_set_evict_fn(NULL, NULL, NULL);
    xlat_tlb_stats st = {.hits = 5};
    xlat_tlb_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.hits, 0);
    xlat_tlb_stats_get(t, NULL, 0);
    xlat_tlb_destroy(NULL);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(create_out_of_memory)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *c = test_ctx(1, &ca);
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    size_t base = ca.live_bytes;
    for (long n = 0; n < 8; n++) {
        xlat_tlb *t = NULL;
        ca.fail_after = n;
        int rc = xlat_tlb_create(c, &cfg, &t);
        ca.fail_after = -1;
        if (rc == XLAT_OK) {
            xlat_tlb_destroy(t);
            break;
        }
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_ptr_null(t);
        ck_assert_uint_eq(ca.live_bytes, base);
    }
    xlat_ctx_destroy(c);
}
END_TEST

static void assert_meta(const xlat_meta *m, uint32_t object_id, uint16_t home, uint16_t coal,
                        uint8_t credit, uint8_t spilled)
{
    ck_assert_uint_eq(m->object_id, object_id);
    ck_assert_uint_eq(m->home_gpu, home);
    ck_assert_uint_eq(m->coal_info, coal);
    ck_assert_uint_eq(m->spill_credit, credit);
    ck_assert_uint_eq(m->spilled, spilled);
}

/* Every field of an entry's metadata comes back as it went in (each one
 * at its widest value), from a lookup, a probe and as a victim, in a set-
 * associative and in an unbounded TLB; an update in place replaces it. */
static void meta_round_trip(xlat_tlb *t, bool evicts)
{
    xlat_tlb_entry e = page(1, 1), got, v;
    e.meta = (xlat_meta){.object_id = 0xFEEDBEEF, .home_gpu = 0xFFFF, .coal_info = 0x3FF,
                         .spill_credit = 0xFF, .spilled = 1};
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    ck_assert_int_eq(xlat_tlb_lookup(t, 1, 0x1000, &got), XLAT_OK);
    assert_meta(&got.meta, 0xFEEDBEEF, 0xFFFF, 0x3FF, 0xFF, 1);
    e.meta = (xlat_meta){.object_id = 7, .home_gpu = 3, .coal_info = 0x155, .spill_credit = 2};
    ck_assert_int_eq(xlat_tlb_insert(t, &e, NULL), 0);
    ck_assert_int_eq(xlat_tlb_probe(t, 1, 0x1000, &got), XLAT_OK);
    assert_meta(&got.meta, 7, 3, 0x155, 2, 0);
    if (!evicts)
        return;
    xlat_tlb_entry other = page(1, 2);
    ck_assert_int_eq(xlat_tlb_insert(t, &other, &v), 1);
    ck_assert_uint_eq(v.vpn, 1);
    assert_meta(&v.meta, 7, 3, 0x155, 2, 0);
}

START_TEST(metadata_round_trips)
{
    xlat_tlb *t = make_tlb(1, 1, XLAT_REPL_LRU);
    meta_round_trip(t, true);
    xlat_tlb_destroy(t);
    t = make_tlb(0, 0, XLAT_REPL_LRU);
    meta_round_trip(t, false);
    xlat_tlb_destroy(t);
}
END_TEST

START_TEST(memory_per_entry)
{
    xlat_tlb *t = make_tlb(4096, 64, XLAT_REPL_LRU);
    size_t bytes = xlat_tlb_memory(t);
    /* 32-byte ways plus an 8-byte LRU stamp each, and a fixed part. */
    ck_assert_uint_ge(bytes, 4096 * 40);
    ck_assert_uint_le(bytes, 4096 * 40 + 16384);
    xlat_tlb_destroy(t);
}
END_TEST

Suite *tlb_suite(void)
{
    Suite *s = suite_create("tlb");
    TCase *tc = test_case(s, "replacement");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, lru_sequence);
    tcase_add_test(tc, fifo_sequence);
    tcase_add_test(tc, plru_victims);
    tcase_add_test(tc, random_is_reproducible_from_seed);
    tcase_add_test(tc, modulo_index_places_by_set);
    tcase_add_test(tc, non_power_of_two_sets);
    tcase_add_test(tc, update_in_place_makes_most_recent);
    tcase_add_test(tc, probe_changes_nothing);
    tc = test_case(s, "contents");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, several_page_sizes_and_pasids);
    tcase_add_test(tc, invalidate_pasid_and_flush);
    tcase_add_test(tc, foreach_order_and_evict_callback);
    tcase_add_test(tc, unbounded_never_evicts);
    tcase_add_test(tc, hashed_index);
    tcase_add_test(tc, memory_per_entry);
    tcase_add_test(tc, metadata_round_trips);
    tc = test_case(s, "errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, config_errors);
    tcase_add_test(tc, entry_and_null_errors);
    tcase_add_test(tc, create_out_of_memory);
    return s;
}
