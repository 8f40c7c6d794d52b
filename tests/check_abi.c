/* Sized getters across struct versions: a host built against an older,
 * shorter struct gets the counters it knows and nothing is written past
 * them; one built against a newer, longer struct gets the library's
 * counters and zeros in the fields this libxlat does not know. */
#include "testutil.h"

#define CANARY 0xA5
#define FILL 0xFF

/* Bytes [from, to) of `p` all hold `byte`. */
static bool all_bytes(const void *p, size_t from, size_t to, unsigned char byte)
{
    const unsigned char *b = p;
    for (size_t i = from; i < to; i++)
        if (b[i] != byte)
            return false;
    return true;
}

/*
 * Checks getter `get(h, out, out_size)` of struct `type` against `full`,
 * the library's own copy: a host one counter shorter (the struct without
 * its last uint64_t) gets exactly that prefix and the canary after it is
 * intact; a host two counters longer gets `full` and zeros; size 0 and a
 * NULL out write nothing. The buffers are uint64_t arrays so that every
 * struct view of them is aligned.
 */
#define CHECK_SIZED(get, h, type, full)                                                      \
    do {                                                                                     \
        const size_t sized_shorter_ = sizeof(type) - sizeof(uint64_t);                       \
        uint64_t sized_small_[sizeof(type) / 8 + 2];                                         \
        memset(sized_small_, CANARY, sizeof(sized_small_));                                  \
        get(h, (type *)sized_small_, sized_shorter_);                                        \
        ck_assert(memcmp(sized_small_, &(full), sized_shorter_) == 0);                       \
        ck_assert(all_bytes(sized_small_, sized_shorter_, sizeof(sized_small_), CANARY));    \
        uint64_t sized_big_[sizeof(type) / 8 + 2];                                           \
        memset(sized_big_, FILL, sizeof(sized_big_));                                        \
        get(h, (type *)sized_big_, sizeof(sized_big_));                                      \
        ck_assert(memcmp(sized_big_, &(full), sizeof(type)) == 0);                           \
        ck_assert(all_bytes(sized_big_, sizeof(type), sizeof(sized_big_), 0));               \
        memset(sized_big_, FILL, sizeof(sized_big_));                                        \
        get(h, (type *)sized_big_, 0);                                                       \
        ck_assert(all_bytes(sized_big_, 0, sizeof(sized_big_), FILL));                       \
        get(h, NULL, sizeof(type));                                                          \
    } while (0)

static void on_done(void *user, const xlat_resp *r)
{
    (void)r;
    (*(int *)user)++;
}

/* ---- TLB: the hand-written older and newer structs ---------------------- */

/* xlat_tlb_stats as a host built before `faults` was added declares it. */
typedef struct old_tlb_stats {
    uint64_t accesses, hits, misses, mshr_merges, refusals, inserts, updates, evictions,
        invalidations;
} old_tlb_stats;

/* ... and as a host built against a libxlat with two more counters. */
typedef struct new_tlb_stats {
    xlat_tlb_stats known;
    uint64_t later[2];
} new_tlb_stats;

/* A 4-entry fully associative TLB after 6 inserts (2 evictions), one
 * update, 5 lookups (3 hits) and one invalidation. */
static xlat_tlb *busy_tlb(xlat_ctx *ctx)
{
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.entries = c.ways = 4;
    xlat_tlb *t;
    ck_assert_int_eq(xlat_tlb_create(ctx, &c, &t), XLAT_OK);
    for (uint64_t vpn = 1; vpn <= 6; vpn++) {
        xlat_tlb_entry e = {.pasid = 1, .vpn = vpn, .pfn = 0x100 + vpn, .page_shift = 12,
                            .perm = XLAT_PERM_R};
        ck_assert_int_ge(xlat_tlb_insert(t, &e, NULL), 0);
    }
    xlat_tlb_entry again = {.pasid = 1, .vpn = 6, .pfn = 0x206, .page_shift = 12,
                            .perm = XLAT_PERM_R};
    ck_assert_int_ge(xlat_tlb_insert(t, &again, NULL), 0);
    for (uint64_t vpn = 2; vpn <= 6; vpn++) /* 2 was evicted: a miss */
        xlat_tlb_lookup(t, 1, vpn << 12, NULL);
    xlat_tlb_lookup(t, 1, 9 << 12, NULL);
    ck_assert_int_eq(xlat_tlb_invalidate(t, 1, 3 << 12), 1);
    return t;
}

START_TEST(tlb_stats_older_host)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_tlb *t = busy_tlb(ctx);
    struct {
        old_tlb_stats st;
        unsigned char canary[16];
    } buf;
    memset(&buf, CANARY, sizeof(buf));
    xlat_tlb_stats_get(t, (xlat_tlb_stats *)&buf.st, sizeof(buf.st));
    ck_assert_uint_eq(buf.st.accesses, 6);
    ck_assert_uint_eq(buf.st.hits, 4);
    ck_assert_uint_eq(buf.st.misses, 2);
    ck_assert_uint_eq(buf.st.mshr_merges, 0);
    ck_assert_uint_eq(buf.st.refusals, 0);
    ck_assert_uint_eq(buf.st.inserts, 6);
    ck_assert_uint_eq(buf.st.updates, 1);
    ck_assert_uint_eq(buf.st.evictions, 2);
    ck_assert_uint_eq(buf.st.invalidations, 1);
    ck_assert(all_bytes(buf.canary, 0, sizeof(buf.canary), CANARY));
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(tlb_stats_newer_host)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_tlb *t = busy_tlb(ctx);
    new_tlb_stats big;
    memset(&big, FILL, sizeof(big));
    xlat_tlb_stats_get(t, &big.known, sizeof(big));
    ck_assert_uint_eq(big.known.accesses, 6);
    ck_assert_uint_eq(big.known.hits, 4);
    ck_assert_uint_eq(big.known.misses, 2);
    ck_assert_uint_eq(big.known.inserts, 6);
    ck_assert_uint_eq(big.known.updates, 1);
    ck_assert_uint_eq(big.known.evictions, 2);
    ck_assert_uint_eq(big.known.invalidations, 1);
    ck_assert_uint_eq(big.known.faults, 0);
    ck_assert_uint_eq(big.later[0], 0);
    ck_assert_uint_eq(big.later[1], 0);
    xlat_tlb_stats full;
    xlat_tlb_stats_get(t, &full, sizeof(full));
    CHECK_SIZED(xlat_tlb_stats_get, t, xlat_tlb_stats, full);
    xlat_tlb_stats_get(NULL, &big.known, sizeof(big)); /* NULL tlb: zeros, extras too */
    ck_assert(all_bytes(&big, 0, sizeof(big), 0));
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* ---- walker: info getters and counters ----------------------------------- */

/* xlat_walk_info as a host built before `cl` and `stolen` declares it. */
typedef struct old_walk_info {
    uint64_t id;
    uint32_t pasid;
    uint64_t vaddr;
    uint32_t tenant;
    uint64_t arrival;
    int32_t queue;
    int32_t walker;
    uint32_t level;
    uint64_t node_pfn;
} old_walk_info;

/* xlat_walker_tenant_stats without its last counter, `in_service`. */
typedef struct old_tenant_stats {
    uint64_t requests, completed, queue_cycles, service_cycles, stolen, steals, interleave,
        interleave_max, queued;
} old_tenant_stats;

static struct {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_walker *pool;
} w;

/* One walker at cycle 0: request 1 (page 0x40000000) walks, request 2
 * waits in the buffer. */
static void walker_setup(void)
{
    w.ctx = test_ctx(2, NULL);
    test_table(w.ctx, &w.mem, &w.pt);
    for (uint64_t p = 0; p < 2; p++)
        ck_assert_int_eq(xlat_pagetable_map(w.pt, 1, 0x40000000 + p * 4096, 0x500 + p, 12,
                                            XLAT_PERM_R), XLAT_OK);
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = w.pt;
    c.walkers = 1;
    ck_assert_int_eq(xlat_walker_create(w.ctx, &c, &w.pool), XLAT_OK);
    static int answers;
    for (uint64_t id = 1; id <= 2; id++) {
        xlat_req req = {.id = id, .vaddr = 0x40000000 + (id - 1) * 4096, .pasid = 1};
        ck_assert_int_eq(xlat_walker_translate(w.pool, &req, on_done, &answers), XLAT_OK);
    }
}

static void walker_teardown(void)
{
    xlat_walker_destroy(w.pool);
    xlat_pagetable_destroy(w.pt);
    xlat_physmem_destroy(w.mem);
    xlat_ctx_destroy(w.ctx);
}

START_TEST(walker_service_info_older_and_newer_host)
{
    xlat_walk_info full;
    ck_assert_int_eq(xlat_walker_service_info(w.pool, 0, &full, sizeof(full)), XLAT_OK);
    struct {
        old_walk_info info;
        unsigned char canary[16];
    } buf;
    memset(&buf, CANARY, sizeof(buf));
    ck_assert_int_eq(xlat_walker_service_info(w.pool, 0, (xlat_walk_info *)&buf.info,
                                              sizeof(buf.info)), XLAT_OK);
    ck_assert_uint_eq(buf.info.id, 1);
    ck_assert_uint_eq(buf.info.pasid, 1);
    ck_assert_uint_eq(buf.info.vaddr, 0x40000000);
    ck_assert_uint_eq(buf.info.tenant, 0);
    ck_assert_uint_eq(buf.info.arrival, 0);
    ck_assert_int_eq(buf.info.queue, -1);
    ck_assert_int_eq(buf.info.walker, 0);
    ck_assert_uint_eq(buf.info.level, 4);
    ck_assert_uint_eq(buf.info.node_pfn, full.node_pfn);
    ck_assert_uint_ne(buf.info.node_pfn, 0);
    ck_assert(all_bytes(buf.canary, 0, sizeof(buf.canary), CANARY));
    struct {
        xlat_walk_info known;
        uint64_t later[2];
    } big;
    memset(&big, FILL, sizeof(big));
    ck_assert_int_eq(xlat_walker_service_info(w.pool, 0, &big.known, sizeof(big)), XLAT_OK);
    ck_assert(memcmp(&big.known, &full, offsetof(xlat_walk_info, stolen) + 1) == 0);
    ck_assert_uint_eq(big.later[0], 0);
    ck_assert_uint_eq(big.later[1], 0);
    /* Size 0 writes nothing and still answers. */
    memset(&big, FILL, sizeof(big));
    ck_assert_int_eq(xlat_walker_service_info(w.pool, 0, &big.known, 0), XLAT_OK);
    ck_assert(all_bytes(&big, 0, sizeof(big), FILL));
    ck_assert_int_eq(xlat_walker_buffered_info(w.pool, 0, &big.known, sizeof(big)), XLAT_OK);
    ck_assert_uint_eq(big.known.id, 2);
    ck_assert_int_eq(big.known.walker, -1);
    ck_assert_uint_eq(big.later[0], 0);
    ck_assert_uint_eq(big.later[1], 0);
}
END_TEST

START_TEST(walker_tenant_stats_older_and_newer_host)
{
    struct {
        old_tenant_stats st;
        unsigned char canary[16];
    } buf;
    memset(&buf, CANARY, sizeof(buf));
    ck_assert_int_eq(xlat_walker_tenant_stats_get(w.pool, 0, (xlat_walker_tenant_stats *)&buf.st,
                                                  sizeof(buf.st)), XLAT_OK);
    ck_assert_uint_eq(buf.st.requests, 2);
    ck_assert_uint_eq(buf.st.completed, 0);
    ck_assert_uint_eq(buf.st.queued, 1);
    ck_assert(all_bytes(buf.canary, 0, sizeof(buf.canary), CANARY));
    struct {
        xlat_walker_tenant_stats known;
        uint64_t later[2];
    } big;
    memset(&big, FILL, sizeof(big));
    ck_assert_int_eq(xlat_walker_tenant_stats_get(w.pool, 0, &big.known, sizeof(big)), XLAT_OK);
    ck_assert_uint_eq(big.known.requests, 2);
    ck_assert_uint_eq(big.known.queued, 1);
    ck_assert_uint_eq(big.known.in_service, 1);
    ck_assert_uint_eq(big.later[0], 0);
    ck_assert_uint_eq(big.later[1], 0);
}
END_TEST

START_TEST(walker_stats_sized)
{
    xlat_advance(w.ctx, 1000); /* both walks end: 4 reads each */
    xlat_walker_stats full;
    xlat_walker_stats_get(w.pool, &full, sizeof(full));
    ck_assert_uint_eq(full.requests, 2);
    ck_assert_uint_eq(full.walks, 2);
    ck_assert_uint_eq(full.completed, 2);
    ck_assert_uint_eq(full.reads, 8);
    CHECK_SIZED(xlat_walker_stats_get, w.pool, xlat_walker_stats, full);
}
END_TEST

/* ---- three more units ---------------------------------------------------- */

START_TEST(fixed_stats_sized)
{
    xlat_ctx *ctx = test_ctx(3, NULL);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 5;
    fc.max_outstanding = 2;
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &f), XLAT_OK);
    int answers = 0;
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    for (int i = 0; i < 3; i++)
        xlat_fixed_translate(f, &req, on_done, &answers);
    xlat_fixed_stats full;
    xlat_fixed_stats_get(f, &full, sizeof(full));
    ck_assert_uint_eq(full.requests, 2);
    ck_assert_uint_eq(full.refusals, 1);
    ck_assert_uint_eq(full.faults, 0);
    CHECK_SIZED(xlat_fixed_stats_get, f, xlat_fixed_stats, full);
    xlat_fixed_destroy(f);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(link_stats_sized)
{
    xlat_ctx *ctx = test_ctx(4, NULL);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 5;
    xlat_fixed *f;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &f), XLAT_OK);
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.latency = lc.latency_back = 10;
    xlat_link *l;
    ck_assert_int_eq(xlat_link_create(ctx, &lc, &l), XLAT_OK);
    xlat_target t = TEST_TARGET(fixed, f);
    ck_assert_int_eq(xlat_link_set_next(l, &t), XLAT_OK);
    int answers = 0;
    xlat_req req = {.id = 1, .vaddr = 0x1000, .pasid = 1};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(xlat_link_translate(l, &req, on_done, &answers), XLAT_OK);
    xlat_advance(ctx, 25); /* 10 there, 5 at the responder, 10 back */
    ck_assert_int_eq(answers, 3);
    ck_assert_int_eq(xlat_link_translate(l, &req, on_done, &answers), XLAT_OK);
    xlat_link_stats full;
    xlat_link_stats_get(l, &full, sizeof(full));
    ck_assert_uint_eq(full.requests, 4);
    ck_assert_uint_eq(full.retries, 0);
    ck_assert_uint_eq(full.answers, 3);
    ck_assert_uint_eq(full.in_flight, 1);
    CHECK_SIZED(xlat_link_stats_get, l, xlat_link_stats, full);
    xlat_link_destroy(l);
    xlat_fixed_destroy(f);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(pagetable_stats_sized)
{
    xlat_ctx *ctx = test_ctx(5, NULL);
    xlat_physmem *mem;
    xlat_pagetable *pt;
    test_table(ctx, &mem, &pt);
    for (uint64_t p = 0; p < 3; p++)
        ck_assert_int_eq(xlat_pagetable_map(pt, 1, 0x40000000 + p * 4096, 0x500 + p, 12,
                                            XLAT_PERM_R), XLAT_OK);
    xlat_pagetable_stats full;
    xlat_pagetable_stats_get(pt, &full, sizeof(full));
    ck_assert_uint_eq(full.address_spaces, 1);
    for (uint32_t k = 1; k <= 4; k++)
        ck_assert_uint_eq(full.nodes[k], 1);
    ck_assert_uint_eq(full.bytes, 4 * 4096);
    ck_assert_uint_eq(full.mapped[1], 3);
    CHECK_SIZED(xlat_pagetable_stats_get, pt, xlat_pagetable_stats, full);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(ctx);
}
END_TEST

Suite *abi_suite(void)
{
    Suite *s = suite_create("abi");
    TCase *tc = test_case(s, "tlb");
    tcase_add_test(tc, tlb_stats_older_host);
    tcase_add_test(tc, tlb_stats_newer_host);
    tc = test_case(s, "walker");
    tcase_add_checked_fixture(tc, walker_setup, walker_teardown);
    tcase_add_test(tc, walker_service_info_older_and_newer_host);
    tcase_add_test(tc, walker_tenant_stats_older_and_newer_host);
    tcase_add_test(tc, walker_stats_sized);
    tc = test_case(s, "units");
    tcase_add_test(tc, fixed_stats_sized);
    tcase_add_test(tc, link_stats_sized);
    tcase_add_test(tc, pagetable_stats_sized);
    return s;
}
