/* The cuckoo filter: sizing, packing at every width, no false negatives, the
 * false-positive bound, duplicates, rollback of a failed insert, seeds and
 * every error path. Inserted keys are below 2^63; keys never inserted have
 * bit 63 set, so the two sets never meet. */
#include <math.h>
#include <string.h>

#include "newer_config.h"
#include "testutil.h"

#include "../lib/cuckoo/cuckoo_lookup.h"

#define NEVER_INSERTED(i) ((UINT64_C(1) << 63) | (uint64_t)(i))

static xlat_cuckoo *make(xlat_ctx *ctx, uint32_t capacity, uint32_t fp_bits, uint32_t bucket_size)
{
    xlat_cuckoo_config cfg;
    xlat_cuckoo *cf = NULL;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = capacity;
    cfg.fp_bits = fp_bits;
    cfg.bucket_size = bucket_size;
    int rc = xlat_cuckoo_create(ctx, &cfg, &cf);
    ck_assert_msg(rc == XLAT_OK, "create: %s", xlat_ctx_errmsg(ctx));
    return cf;
}

/* Inserts first, first + 1, ... until the first XLAT_ERR_FULL; returns how
 * many went in (keys first .. first + n - 1). */
static uint64_t fill_until_full(xlat_cuckoo *cf, uint64_t first)
{
    uint64_t k = first;
    int rc;
    while ((rc = xlat_cuckoo_insert(cf, k)) == XLAT_OK)
        k++;
    ck_assert_int_eq(rc, XLAT_ERR_FULL);
    return k - first;
}

/* The hot loops below assert once at the end: every Check assertion that
 * passes still writes a mark to the runner, which is slow in a loop. */

/* Inserts first .. first + n - 1, stopping at the first failure; returns
 * how many went in. */
static uint64_t insert_keys(xlat_cuckoo *cf, uint64_t first, uint64_t n)
{
    uint64_t i = 0;
    while (i < n && xlat_cuckoo_insert(cf, first + i) == XLAT_OK)
        i++;
    return i;
}

/* Removes keys first, first + step, ... below first + n; returns how many
 * removes returned `want`. */
static uint64_t remove_keys(xlat_cuckoo *cf, uint64_t first, uint64_t n, uint64_t step, int want)
{
    uint64_t hits = 0;
    for (uint64_t k = first; k < first + n; k += step)
        hits += xlat_cuckoo_remove(cf, k) == want;
    return hits;
}

/* The first key of first, first + step, ... below first + n that is not
 * found, or first + n when all are. */
static uint64_t first_missing(const xlat_cuckoo *cf, uint64_t first, uint64_t n, uint64_t step)
{
    for (uint64_t k = first; k < first + n; k += step)
        if (!xlat_cuckoo_contains(cf, k))
            return k;
    return first + n;
}

static void assert_all_present(const xlat_cuckoo *cf, uint64_t first, uint64_t n)
{
    uint64_t k = first_missing(cf, first, n, 1);
    ck_assert_msg(k == first + n, "false negative for key %llu", (unsigned long long)k);
}

static double load_of(const xlat_cuckoo *cf)
{
    return (double)xlat_cuckoo_count(cf) / (double)xlat_cuckoo_slots(cf);
}

/* ---- configuration and errors ---------------------------------------- */

START_TEST(test_config_init)
{
    xlat_cuckoo_config cfg;
    memset(&cfg, 0xAB, sizeof(cfg));
    xlat_cuckoo_config_init(&cfg);
    ck_assert_uint_eq(cfg.struct_size, sizeof(cfg));
    ck_assert_uint_eq(cfg.capacity, 1024);
    ck_assert_uint_eq(cfg.fp_bits, 12);
    ck_assert_uint_eq(cfg.bucket_size, 4);
    ck_assert_uint_eq(cfg.max_kicks, 500);
    xlat_cuckoo_config_init(NULL);
}
END_TEST

/* Creates with `cfg`, expects `rc` and a message containing `needle`, and
 * checks that the handle was not written. */
static void expect_create_fails(xlat_ctx *ctx, const xlat_cuckoo_config *cfg, int rc,
                                const char *needle)
{
    xlat_cuckoo *sentinel = (xlat_cuckoo *)&sentinel;
    xlat_cuckoo *cf = sentinel;
    ck_assert_int_eq(xlat_cuckoo_create(ctx, cfg, &cf), rc);
    ck_assert_ptr_eq(cf, sentinel);
    ck_assert_msg(strstr(xlat_ctx_errmsg(ctx), needle) != NULL, "message \"%s\" lacks \"%s\"",
                  xlat_ctx_errmsg(ctx), needle);
}

START_TEST(test_create_errors)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_cuckoo_config cfg, bad;
    xlat_cuckoo *cf = NULL;
    xlat_cuckoo_config_init(&cfg);
    ck_assert_int_eq(xlat_cuckoo_create(NULL, &cfg, &cf), XLAT_ERR_INVAL);
    ck_assert_ptr_null(cf);
    expect_create_fails(ctx, NULL, XLAT_ERR_INVAL, "cfg is NULL");
    ck_assert_int_eq(xlat_cuckoo_create(ctx, &cfg, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "out is NULL"));

    const struct { uint32_t capacity, fp_bits, bucket_size, max_kicks; const char *needle; } cases[] = {
        {0, 12, 4, 500, "capacity is 0"},
        {1024, 3, 4, 500, "fp_bits 3 is outside 4..32"},
        {1024, 33, 4, 500, "fp_bits 33 is outside 4..32"},
        {1024, 0, 4, 500, "fp_bits 0"},
        {1024, 12, 0, 500, "bucket_size 0 is outside 1..8"},
        {1024, 12, 9, 500, "bucket_size 9 is outside 1..8"},
        {1024, 12, 4, 0, "max_kicks is 0"},
        {UINT32_MAX, 32, 1, 500, "more than 2^32 buckets"}, /* 2^34 at 45% load */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bad = cfg;
        bad.capacity = cases[i].capacity;
        bad.fp_bits = cases[i].fp_bits;
        bad.bucket_size = cases[i].bucket_size;
        bad.max_kicks = cases[i].max_kicks;
        expect_create_fails(ctx, &bad, XLAT_ERR_INVAL, cases[i].needle);
    }
    bad = cfg;
    bad.struct_size = sizeof(bad) - 1;
    expect_create_fails(ctx, &bad, XLAT_ERR_INVAL, "struct_size");
    bad.struct_size = 0;
    expect_create_fails(ctx, &bad, XLAT_ERR_INVAL, "struct_size");
    XLAT_TEST_NEWER(xlat_cuckoo_config) newer = {.cfg = bad};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    expect_create_fails(ctx, &newer.cfg, XLAT_ERR_UNSUPPORTED, "newer");
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_null_safe)
{
    xlat_cuckoo_destroy(NULL);
    xlat_cuckoo_clear(NULL);
    ck_assert_uint_eq(xlat_cuckoo_count(NULL), 0);
    ck_assert_uint_eq(xlat_cuckoo_slots(NULL), 0);
    ck_assert_uint_eq(xlat_cuckoo_fp_bits(NULL), 0);
    ck_assert_uint_eq(xlat_cuckoo_memory(NULL), 0);
    ck_assert_uint_eq(xlat_cuckoo_digest(NULL), 0);
    ck_assert(!xlat_cuckoo_contains(NULL, 1));
    ck_assert_int_eq(xlat_cuckoo_insert(NULL, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_cuckoo_insert_unique(NULL, 1), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_cuckoo_remove(NULL, 1), XLAT_ERR_INVAL);
}
END_TEST

/* Every allocation of create fails in turn, with nothing leaked; once it
 * succeeds, no call allocates again, and destroy returns every byte. */
START_TEST(test_nomem_and_no_alloc_after_create)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(3, &ca);
    size_t base_live = ca.live_bytes;
    xlat_cuckoo_config cfg;
    xlat_cuckoo *cf = NULL;
    xlat_cuckoo_config_init(&cfg);
    long k;
    for (k = 0; k < 16; k++) {
        ca.fail_after = k;
        int rc = xlat_cuckoo_create(ctx, &cfg, &cf);
        if (rc == XLAT_OK)
            break;
        ck_assert_int_eq(rc, XLAT_ERR_NOMEM);
        ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "out of memory"));
        ck_assert_uint_eq(ca.live_bytes, base_live);
    }
    ck_assert_int_eq(k, 3); /* handle, table, undo log */
    ca.fail_after = 0;      /* any further allocation would now fail */
    size_t allocs = ca.allocs;
    uint64_t n = fill_until_full(cf, 0);
    /* Past the first FULL another key may still find room: insert until
     * one does not. */
    int rc = XLAT_OK;
    for (uint64_t extra = 1; rc == XLAT_OK && extra < 1000; extra++)
        rc = xlat_cuckoo_insert_unique(cf, NEVER_INSERTED(extra));
    ck_assert(rc == XLAT_ERR_FULL || rc == XLAT_ERR_EXIST);
    ck_assert_uint_eq(remove_keys(cf, 0, n, 2, XLAT_OK), (n + 1) / 2);
    (void)xlat_cuckoo_contains(cf, 1);
    (void)xlat_cuckoo_digest(cf);
    xlat_cuckoo_clear(cf);
    ck_assert_uint_eq(ca.allocs, allocs);
    xlat_cuckoo_destroy(cf);
    ck_assert_uint_eq(ca.live_bytes, base_live);
    ca.fail_after = -1;
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

/* ---- sizing and memory -------------------------------------------------- */

START_TEST(test_sizing)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    /* Sized at 45%, 84%, 92% and 95% load for 1, 2, 3 and 4+ slots: e.g.
     * 3891 keys fit 1024 4-slot buckets (3891 / 4096 = 0.9500), 3892 do not.
     * Even one key takes 3 slots at 45%, hence 4 1-slot buckets. */
    const struct { uint32_t capacity, bucket_size; size_t slots; } cases[] = {
        {1, 4, 4},        {1024, 4, 2048},  {3891, 4, 4096},  {3892, 4, 8192},
        {1, 1, 4},        {460, 1, 1024},   {461, 1, 2048},   {1, 2, 2},
        {860, 2, 1024},   {861, 2, 2048},   {1413, 3, 1536},  {1414, 3, 3072},
        {7782, 8, 8192},  {7783, 8, 16384}, {996147, 4, 1u << 20},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        xlat_cuckoo *cf = make(ctx, cases[i].capacity, 12, cases[i].bucket_size);
        ck_assert_msg(xlat_cuckoo_slots(cf) == cases[i].slots,
                      "capacity %u, b %u: %zu slots, expected %zu", cases[i].capacity,
                      cases[i].bucket_size, xlat_cuckoo_slots(cf), cases[i].slots);
        ck_assert_uint_eq(xlat_cuckoo_count(cf), 0);
        xlat_cuckoo_destroy(cf);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

/* The table is bit-packed: slots × fp_bits / 8 bytes, rounded up to whole
 * 64-bit words, plus the handle and the max_kicks-byte undo log. */
START_TEST(test_memory)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    for (uint32_t f = 4; f <= 32; f++) {
        xlat_cuckoo *cf = make(ctx, 100000, f, 4);
        ck_assert_uint_eq(xlat_cuckoo_fp_bits(cf), f);
        size_t table = (xlat_cuckoo_slots(cf) * f + 63) / 64 * 8;
        size_t mem = xlat_cuckoo_memory(cf);
        ck_assert_msg(mem >= table + 500 && mem <= table + 500 + 512,
                      "f %u: %zu bytes for a %zu-byte table", f, mem, table);
        ck_assert_uint_eq(xlat_cuckoo_slots(cf), 1u << 17);
        xlat_cuckoo_destroy(cf);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

/* ---- membership --------------------------------------------------------- */

START_TEST(test_basic)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_cuckoo *cf = make(ctx, 1024, 12, 4);
    ck_assert(!xlat_cuckoo_contains(cf, 42));
    ck_assert_int_eq(xlat_cuckoo_remove(cf, 42), XLAT_ERR_NOT_FOUND);
    ck_assert_int_eq(xlat_cuckoo_insert(cf, 42), XLAT_OK);
    ck_assert(xlat_cuckoo_contains(cf, 42));
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 1);
    ck_assert_int_eq(xlat_cuckoo_insert_unique(cf, 42), XLAT_ERR_EXIST);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 1);
    ck_assert_int_eq(xlat_cuckoo_insert_unique(cf, 43), XLAT_OK);
    ck_assert_int_eq(xlat_cuckoo_remove(cf, 42), XLAT_OK);
    ck_assert_int_eq(xlat_cuckoo_remove(cf, 43), XLAT_OK);
    ck_assert(!xlat_cuckoo_contains(cf, 42)); /* empty table: no false positive possible */
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 0);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* Each width 4..32 packs differently (fields straddling words at most
 * widths); with 1, 3, 4 and 8 slots per bucket, the keys that went in are
 * all found, after inserts and after removing every other one; removing
 * the rest empties the table. */
static void check_width(xlat_ctx *ctx, uint32_t f, uint32_t b)
{
    xlat_cuckoo *cf = make(ctx, 1500, f, b);
    uint64_t empty = xlat_cuckoo_digest(cf);
    uint64_t n = insert_keys(cf, 0, 1500);
    if (b >= 3) /* the capacity is a promise at these sizes */
        ck_assert_msg(n == 1500, "f %u b %u: FULL after %llu keys", f, b, (unsigned long long)n);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), n);
    assert_all_present(cf, 0, n);
    ck_assert_uint_eq(remove_keys(cf, 0, n, 2, XLAT_OK), (n + 1) / 2);
    uint64_t lost = first_missing(cf, 1, n > 0 ? n - 1 : 0, 2);
    ck_assert_msg(lost >= n, "f %u b %u: key %llu lost", f, b, (unsigned long long)lost);
    ck_assert_uint_eq(remove_keys(cf, 1, n > 0 ? n - 1 : 0, 2, XLAT_OK), n / 2);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 0);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), empty);
    xlat_cuckoo_destroy(cf);
}

START_TEST(test_no_false_negatives_every_width)
{
    static const uint32_t bucket_sizes[] = {1, 3, 4, 8};
    xlat_ctx *ctx = test_ctx(11, NULL);
    for (uint32_t f = 4; f <= 32; f++)
        for (size_t i = 0; i < 4; i++)
            check_width(ctx, f, bucket_sizes[i]);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* With 4-slot buckets the first FULL comes at >= 90% load (paper §5.1:
 * about 95%); every key that went in is still there afterwards. */
START_TEST(test_load_b4)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        xlat_ctx *ctx = test_ctx(seed, NULL);
        xlat_cuckoo *cf = make(ctx, 15564, 12, 4);
        ck_assert_uint_eq(xlat_cuckoo_slots(cf), 16384);
        uint64_t n = fill_until_full(cf, 0);
        ck_assert_uint_eq(xlat_cuckoo_count(cf), n);
        ck_assert_msg(load_of(cf) >= 0.90, "seed %llu: first FULL at load %.4f",
                      (unsigned long long)seed, load_of(cf));
        assert_all_present(cf, 0, n);
        xlat_cuckoo_destroy(cf);
        xlat_ctx_destroy(ctx);
    }
}
END_TEST

/* Other bucket sizes reach their sizing targets before the first FULL. */
START_TEST(test_load_other_sizes)
{
    static const struct { uint32_t b; double load; } cases[] = {
        {1, 0.45}, {2, 0.84}, {3, 0.92}, {8, 0.95}};
    xlat_ctx *ctx = test_ctx(5, NULL);
    for (size_t i = 0; i < 4; i++) {
        xlat_cuckoo *cf = make(ctx, 4000, 16, cases[i].b);
        uint64_t n = fill_until_full(cf, 0);
        ck_assert_msg(load_of(cf) >= cases[i].load, "b %u: first FULL at load %.4f",
                      cases[i].b, load_of(cf));
        assert_all_present(cf, 0, n);
        xlat_cuckoo_destroy(cf);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

/* A lookup compares the fingerprint with at most 2b stored ones, each equal
 * with probability 1/(2^f - 1) (fingerprint 0 is reserved), so the rate is
 * at most 2·b·load/(2^f - 1); allow 3 binomial sigmas. A rate far below
 * it would mean fingerprints wider than configured. */
static void check_fpr(uint32_t f, uint32_t probes)
{
    xlat_ctx *ctx = test_ctx(21, NULL);
    xlat_cuckoo *cf = make(ctx, 15564, f, 4);
    (void)fill_until_full(cf, 0);
    uint32_t hits = 0;
    for (uint32_t i = 0; i < probes; i++)
        hits += xlat_cuckoo_contains(cf, NEVER_INSERTED(i));
    double bound = 2.0 * 4 * load_of(cf) / (double)((UINT64_C(1) << f) - 1);
    if (bound > 1)
        bound = 1;
    double sigma = sqrt(bound * (1 - bound) / probes);
    double rate = (double)hits / probes;
    ck_assert_msg(rate <= bound + 3 * sigma, "f %u: FPR %.5f above %.5f + 3 x %.5f", f, rate,
                  bound, sigma);
    ck_assert_msg(rate >= bound / 2 - 3 * sigma, "f %u: FPR %.5f far below %.5f", f, rate,
                  bound);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}

START_TEST(test_false_positive_rate)
{
    check_fpr(4, 20000);
    check_fpr(6, 50000);
    check_fpr(8, 100000);
    check_fpr(12, 400000);
}
END_TEST

/* ---- duplicates and deletion ------------------------------------------- */

START_TEST(test_duplicates)
{
    xlat_ctx *ctx = test_ctx(2, NULL);
    xlat_cuckoo *cf = make(ctx, 4096, 32, 4);
    ck_assert_uint_eq(insert_keys(cf, 0, 2000), 2000);
    const uint64_t key = NEVER_INSERTED(7);
    ck_assert_int_eq(xlat_cuckoo_insert(cf, key), XLAT_OK);
    ck_assert_int_eq(xlat_cuckoo_insert(cf, key), XLAT_OK);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 2002);
    ck_assert_int_eq(xlat_cuckoo_remove(cf, key), XLAT_OK);
    ck_assert(xlat_cuckoo_contains(cf, key));
    ck_assert_int_eq(xlat_cuckoo_remove(cf, key), XLAT_OK);
    /* 32-bit fingerprints: no other key shares its fingerprint here */
    ck_assert(!xlat_cuckoo_contains(cf, key));
    ck_assert_int_eq(xlat_cuckoo_remove(cf, key), XLAT_ERR_NOT_FOUND);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 2000);
    assert_all_present(cf, 0, 2000);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* Inserts `key` until FULL and checks the count of copies, that the failing
 * insert changed nothing, and that the copies all come out again. */
static void check_copies(xlat_cuckoo *cf, uint64_t key, uint64_t expected, uint64_t others)
{
    uint64_t copies = 0;
    while (copies < 64 && xlat_cuckoo_insert(cf, key) == XLAT_OK)
        copies++;
    ck_assert_uint_eq(copies, expected);
    uint64_t digest = xlat_cuckoo_digest(cf);
    size_t count = xlat_cuckoo_count(cf);
    ck_assert_int_eq(xlat_cuckoo_insert(cf, key), XLAT_ERR_FULL);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), digest);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), count);
    assert_all_present(cf, 0, others);
    for (uint64_t i = 0; i < copies; i++)
        ck_assert_int_eq(xlat_cuckoo_remove(cf, key), XLAT_OK); /* at most 16 */
    ck_assert_int_eq(xlat_cuckoo_remove(cf, key), XLAT_ERR_NOT_FOUND);
    assert_all_present(cf, 0, others);
}

/* A key has 2b slots over its two buckets, so copy 2b + 1 fails (paper:
 * "kb + 1" insertions with k = 2) and leaves everything else in place. */
START_TEST(test_duplicate_limit)
{
    xlat_ctx *ctx = test_ctx(4, NULL);
    for (uint32_t b = 1; b <= 8; b++) {
        xlat_cuckoo *cf = make(ctx, 60000, 32, b); /* >= 16384 buckets */
        ck_assert_uint_eq(insert_keys(cf, 0, 20000), 20000);
        /* For this seed neither key has coinciding buckets (a chance of
         * 1 in the bucket count); test_duplicate_limit_one_bucket covers it. */
        check_copies(cf, NEVER_INSERTED(1), 2 * b, 20000);
        check_copies(cf, NEVER_INSERTED(2), 2 * b, 20000);
        ck_assert_uint_eq(xlat_cuckoo_count(cf), 20000);
        xlat_cuckoo_destroy(cf);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

/* With one bucket, i1 == i2 for every key: a key has b slots, not 2b, and
 * it is neither counted nor found twice. (1-slot buckets never come as a
 * single bucket: see test_sizing.) */
START_TEST(test_duplicate_limit_one_bucket)
{
    xlat_ctx *ctx = test_ctx(4, NULL);
    for (uint32_t b = 2; b <= 8; b++) {
        xlat_cuckoo *cf = make(ctx, 1, 32, b);
        ck_assert_uint_eq(xlat_cuckoo_slots(cf), b);
        check_copies(cf, 99, b, 0);
        ck_assert_uint_eq(xlat_cuckoo_count(cf), 0);
        ck_assert_uint_eq(insert_keys(cf, 0, b), b);
        ck_assert_int_eq(xlat_cuckoo_insert(cf, b), XLAT_ERR_FULL);
        ck_assert_uint_eq(xlat_cuckoo_count(cf), b);
        assert_all_present(cf, 0, b);
        xlat_cuckoo_destroy(cf);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

/* Removing keys never inserted, whose fingerprints match nothing (32 bits),
 * returns NOT_FOUND and changes nothing. */
START_TEST(test_remove_never_inserted)
{
    xlat_ctx *ctx = test_ctx(6, NULL);
    xlat_cuckoo *cf = make(ctx, 4096, 32, 4);
    ck_assert_uint_eq(insert_keys(cf, 0, 3000), 3000);
    uint64_t digest = xlat_cuckoo_digest(cf);
    ck_assert_uint_eq(remove_keys(cf, NEVER_INSERTED(0), 10000, 1, XLAT_ERR_NOT_FOUND), 10000);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), digest);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 3000);
    assert_all_present(cf, 0, 3000);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_insert_remove_all)
{
    xlat_ctx *ctx = test_ctx(8, NULL);
    xlat_cuckoo *cf = make(ctx, 15564, 12, 4);
    uint64_t empty = xlat_cuckoo_digest(cf);
    ck_assert_uint_eq(insert_keys(cf, 0, 15564), 15564);
    assert_all_present(cf, 0, 15564);
    ck_assert_uint_eq(remove_keys(cf, 0, 15564, 1, XLAT_OK), 15564);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 0);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), empty); /* every slot is empty again */
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* ---- full table: rollback ----------------------------------------------- */

/* Past the first FULL, every further failing insert (long kick chains with
 * cycles) leaves the table byte-identical, as the digest shows, the count
 * unchanged and every key present; the successes in between go in. */
START_TEST(test_full_rollback)
{
    xlat_ctx *ctx = test_ctx(9, NULL);
    xlat_cuckoo *cf = make(ctx, 3891, 8, 4);
    uint64_t n = fill_until_full(cf, 0);
    uint64_t present[64], npresent = 0, fulls = 0;
    for (uint64_t k = n; k < n + 300 && npresent < 64; k++) {
        uint64_t digest = xlat_cuckoo_digest(cf);
        size_t count = xlat_cuckoo_count(cf);
        int rc = xlat_cuckoo_insert(cf, k);
        if (rc == XLAT_OK) {
            present[npresent++] = k;
            continue;
        }
        ck_assert_int_eq(rc, XLAT_ERR_FULL);
        fulls++;
        ck_assert_uint_eq(xlat_cuckoo_digest(cf), digest);
        ck_assert_uint_eq(xlat_cuckoo_count(cf), count);
    }
    ck_assert_uint_gt(fulls, 100);
    assert_all_present(cf, 0, n);
    for (uint64_t i = 0; i < npresent; i++)
        ck_assert(xlat_cuckoo_contains(cf, present[i]));
    ck_assert_uint_eq(xlat_cuckoo_count(cf), n + npresent);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* With max_kicks 1 a failure undoes exactly one kick, the smallest case. */
START_TEST(test_full_rollback_one_kick)
{
    xlat_ctx *ctx = test_ctx(10, NULL);
    xlat_cuckoo_config cfg;
    xlat_cuckoo *cf;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = 200;
    cfg.max_kicks = 1;
    ck_assert_int_eq(xlat_cuckoo_create(ctx, &cfg, &cf), XLAT_OK);
    uint64_t k = 0, fulls = 0, in = 0;
    for (; fulls < 50; k++) {
        uint64_t digest = xlat_cuckoo_digest(cf);
        if (xlat_cuckoo_insert(cf, k) == XLAT_OK) {
            in++;
            continue;
        }
        fulls++;
        ck_assert_uint_eq(xlat_cuckoo_digest(cf), digest);
    }
    ck_assert_uint_eq(xlat_cuckoo_count(cf), in);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* ---- seeds and clear -------------------------------------------------- */

static void run_seed(uint64_t seed, uint64_t *full_at, uint64_t *digest)
{
    xlat_ctx *ctx = test_ctx(seed, NULL);
    xlat_cuckoo *cf = make(ctx, 3891, 12, 4);
    *full_at = fill_until_full(cf, 0);
    *digest = xlat_cuckoo_digest(cf);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}

START_TEST(test_reproducible)
{
    uint64_t full[4], digest[4], again_full, again_digest;
    for (uint64_t s = 0; s < 4; s++)
        run_seed(100 + s, &full[s], &digest[s]);
    run_seed(100, &again_full, &again_digest);
    ck_assert_uint_eq(again_full, full[0]);
    ck_assert_uint_eq(again_digest, digest[0]);
    bool full_differs = false;
    for (int s = 1; s < 4; s++) {
        ck_assert_uint_ne(digest[s], digest[0]);
        full_differs |= full[s] != full[0];
    }
    ck_assert(full_differs);
}
END_TEST

/* Two filters on one context draw different streams: same keys, other
 * hashes, hence other false positives. */
START_TEST(test_filters_differ_on_one_ctx)
{
    xlat_ctx *ctx = test_ctx(12, NULL);
    xlat_cuckoo *a = make(ctx, 1000, 8, 4), *b = make(ctx, 1000, 8, 4);
    ck_assert_uint_eq(insert_keys(a, 0, 1000), 1000);
    ck_assert_uint_eq(insert_keys(b, 0, 1000), 1000);
    ck_assert_uint_ne(xlat_cuckoo_digest(a), xlat_cuckoo_digest(b));
    unsigned differ = 0;
    for (uint32_t i = 0; i < 10000; i++)
        differ += xlat_cuckoo_contains(a, NEVER_INSERTED(i)) !=
                  xlat_cuckoo_contains(b, NEVER_INSERTED(i));
    ck_assert_uint_gt(differ, 100);
    xlat_cuckoo_destroy(a);
    xlat_cuckoo_destroy(b);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* clear empties the filter and restarts its kick choices: filling it again
 * fails at the same key with the same table. */
START_TEST(test_clear)
{
    xlat_ctx *ctx = test_ctx(13, NULL);
    xlat_cuckoo *cf = make(ctx, 3891, 12, 4);
    uint64_t empty = xlat_cuckoo_digest(cf);
    uint64_t n = fill_until_full(cf, 0);
    uint64_t full_digest = xlat_cuckoo_digest(cf);
    xlat_cuckoo_clear(cf);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), 0);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), empty);
    ck_assert_uint_eq(remove_keys(cf, 0, n, 1, XLAT_ERR_NOT_FOUND), n);
    ck_assert_uint_eq(fill_until_full(cf, 0), n);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), full_digest);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* ---- every shape against a plain reference set ------------------------- */

/* Copies of keys 0 .. SHAPE_KEYS - 1 the filter should hold, kept by a
 * plain array beside it. */
#define SHAPE_KEYS 300
#define SHAPE_SPARE_FIRST 1000 /* keys inserted to reach FULL */

typedef struct ref_set {
    uint8_t copies[SHAPE_SPARE_FIRST + 4096];
    size_t total;
} ref_set;

/* Keys the reference holds at least once that the filter does not find. */
static uint32_t false_negatives(const xlat_cuckoo *cf, const ref_set *ref)
{
    uint32_t missing = 0;
    for (uint64_t k = 0; k < sizeof(ref->copies); k++)
        missing += ref->copies[k] && !xlat_cuckoo_contains(cf, k);
    return missing;
}

/* insert(), held to the reference: XLAT_OK adds one copy, XLAT_ERR_FULL
 * changes nothing (the digest says so); returns the status. */
static int insert_checked(xlat_cuckoo *cf, ref_set *ref, uint64_t key, uint32_t *bad)
{
    uint64_t before = xlat_cuckoo_digest(cf);
    int rc = xlat_cuckoo_insert(cf, key);
    if (rc == XLAT_OK) {
        ref->copies[key]++;
        ref->total++;
    } else {
        *bad += rc != XLAT_ERR_FULL || xlat_cuckoo_digest(cf) != before;
    }
    return rc;
}

/* Duplicates, insert_unique and removes of one copy at a time. */
static void check_copy_rules(xlat_cuckoo *cf, ref_set *ref, uint64_t n, uint32_t *bad)
{
    for (uint64_t k = 0; k < 10 && k < n; k++)
        (void)insert_checked(cf, ref, k, bad);
    for (uint64_t k = 0; k < 20 && k < n; k++) {
        uint64_t before = xlat_cuckoo_digest(cf);
        *bad += xlat_cuckoo_insert_unique(cf, k) != XLAT_ERR_EXIST;
        *bad += xlat_cuckoo_digest(cf) != before;
    }
    *bad += xlat_cuckoo_count(cf) != ref->total;
    /* Each remove takes exactly one copy: a key held twice is still found. */
    for (uint64_t k = 0; k < n; k += k < 10 ? 1 : 3) {
        while (ref->copies[k] > 0) {
            *bad += xlat_cuckoo_remove(cf, k) != XLAT_OK;
            ref->copies[k]--;
            ref->total--;
            *bad += xlat_cuckoo_count(cf) != ref->total;
            *bad += ref->copies[k] > 0 && !xlat_cuckoo_contains(cf, k);
        }
    }
}

/* Inserts, copies and removes, then fresh keys until three FULLs, each of
 * which must leave the table as it was; then clear and a replay of the
 * first inserts, which must give the same table again. */
static void check_shape_against_ref(xlat_ctx *ctx, uint32_t f, uint32_t b)
{
    static ref_set ref;
    uint32_t bad = 0, fulls = 0;
    memset(&ref, 0, sizeof(ref));
    xlat_cuckoo *cf = make(ctx, SHAPE_KEYS, f, b);
    uint64_t empty = xlat_cuckoo_digest(cf), n = 0;
    while (n < SHAPE_KEYS && insert_checked(cf, &ref, n, &bad) == XLAT_OK)
        n++;
    if (b >= 3) /* the capacity is a promise at these sizes */
        ck_assert_msg(n == SHAPE_KEYS, "f %u b %u: FULL after %llu keys", f, b,
                      (unsigned long long)n);
    uint64_t filled = xlat_cuckoo_digest(cf);
    ck_assert_uint_eq(false_negatives(cf, &ref), 0);
    check_copy_rules(cf, &ref, n, &bad);
    ck_assert_uint_eq(false_negatives(cf, &ref), 0);
    for (uint64_t k = SHAPE_SPARE_FIRST; fulls < 3 && k < sizeof(ref.copies); k++)
        fulls += insert_checked(cf, &ref, k, &bad) == XLAT_ERR_FULL;
    ck_assert_msg(bad == 0 && fulls == 3, "f %u b %u: %u wrong answers, %u FULLs", f, b, bad,
                  fulls);
    ck_assert_uint_eq(xlat_cuckoo_count(cf), ref.total);
    ck_assert_uint_eq(false_negatives(cf, &ref), 0);
    xlat_cuckoo_clear(cf);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), empty);
    ck_assert_uint_eq(insert_keys(cf, 0, n), n);
    ck_assert_uint_eq(xlat_cuckoo_digest(cf), filled);
    xlat_cuckoo_destroy(cf);
}

/* Every width with 4-slot buckets (the specialised 4, 8, 9, 12 and 16 bits
 * among them), every bucket size with 12 bits, and a few more. */
START_TEST(test_every_shape_against_reference)
{
    static const uint32_t more[][2] = {{9, 8}, {16, 2}, {4, 1}, {8, 3}, {32, 8}, {5, 7}};
    xlat_ctx *ctx = test_ctx(31, NULL);
    for (uint32_t f = 4; f <= 32; f++)
        check_shape_against_ref(ctx, f, 4);
    for (uint32_t b = 1; b <= 8; b++)
        check_shape_against_ref(ctx, 12, b);
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
        check_shape_against_ref(ctx, more[i][0], more[i][1]);
    xlat_ctx_destroy(ctx);
}
END_TEST

/* The hashes, slot choices and kicks are part of the model: least-TLB's
 * tracker and F-Barre's filters answer through them, and their exact tests
 * depend on them. These digests pin them (one mix per key, multiply-shift
 * fingerprint and alternate bucket): a change shows here first. */
START_TEST(test_state_pinned)
{
    static const struct {
        uint32_t f, b;
        uint64_t inserted;
        size_t count;
        uint64_t digest;
    } cases[] = {
        {4, 4, 971, 776, UINT64_C(0x53e5c60b6117647e)},
        {8, 4, 1004, 803, UINT64_C(0x888601d96c8644ad)},
        {9, 4, 1000, 800, UINT64_C(0x2737503a851ce0ae)},
        {12, 4, 989, 791, UINT64_C(0xea52b0d33e1c843f)},
        {16, 4, 1004, 803, UINT64_C(0x03240042857a8634)},
        {12, 3, 729, 583, UINT64_C(0x19a2fefe4e4a671b)},
        {13, 4, 1005, 804, UINT64_C(0xef3d7709dede095b)},
        {32, 8, 1019, 815, UINT64_C(0xecc30774cea2c062)},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        xlat_ctx *ctx = test_ctx(7, NULL);
        xlat_cuckoo *cf = make(ctx, 500, cases[i].f, cases[i].b);
        uint64_t n = fill_until_full(cf, 0);
        ck_assert_uint_eq(remove_keys(cf, 0, n, 5, XLAT_OK), (n + 4) / 5);
        ck_assert_msg(n == cases[i].inserted && xlat_cuckoo_count(cf) == cases[i].count &&
                          xlat_cuckoo_digest(cf) == cases[i].digest,
                      "f %u b %u: %llu inserted, count %zu, digest %016llx", cases[i].f,
                      cases[i].b, (unsigned long long)n, xlat_cuckoo_count(cf),
                      (unsigned long long)xlat_cuckoo_digest(cf));
        xlat_cuckoo_destroy(cf);
        xlat_ctx_destroy(ctx);
    }
}
END_TEST

/* Lookups of absent keys, pinned per shape: the specialised shapes' lane
 * tests (and f = 12, b = 4's lookup without the shape table) must answer
 * exactly as they did, false positives included. */
START_TEST(test_false_positives_pinned)
{
    static const struct {
        uint32_t f, b, found;
    } cases[] = {
        {4, 4, 44044}, {8, 4, 2876}, {9, 4, 1405}, {12, 4, 143}, {16, 4, 11},
        {13, 4, 75}, {12, 3, 143},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        xlat_ctx *ctx = test_ctx(11, NULL);
        xlat_cuckoo *cf = make(ctx, 4000, cases[i].f, cases[i].b);
        ck_assert_uint_eq(insert_keys(cf, 0, 3800), 3800);
        uint32_t found = 0;
        for (uint64_t k = 0; k < 200000; k++)
            found += xlat_cuckoo_contains(cf, NEVER_INSERTED(k));
        ck_assert_msg(found == cases[i].found, "f %u b %u: %u false positives", cases[i].f,
                      cases[i].b, found);
        xlat_cuckoo_destroy(cf);
        xlat_ctx_destroy(ctx);
    }
}
END_TEST

/* xlat__cuckoo_first, the lookup of many filters of one configuration
 * (least-TLB's tracker partitions), answers what a loop of
 * xlat_cuckoo_contains() over the filters picked does: for every
 * specialised shape and the generic one, 130 filters (three words of
 * picks) half full, picks of none, one, some and all, keys held by some
 * filters and by none (false positives included, at 4 bits). */
START_TEST(test_first_of_many)
{
    static const uint32_t widths[] = {4, 8, 9, 12, 16, 7};
    enum { FILTERS = 130, WORDS = 3 };
    xlat_ctx *ctx = NULL;
    ck_assert_int_eq(xlat_ctx_create(NULL, &ctx), XLAT_OK);
    uint64_t rng = 11;
    for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
        void *cfs[FILTERS];
        for (uint32_t i = 0; i < FILTERS; i++) {
            cfs[i] = make(ctx, 64, widths[w], 4);
            for (uint64_t k = 0; k < 32; k++)
                ck_assert_int_eq(xlat_cuckoo_insert(cfs[i], i * 1000 + k), XLAT_OK);
        }
        for (int round = 0; round < 400; round++) {
            /* Rounds pick none, about one in 64, one in 3, and all. */
            static const uint64_t one_in[4] = {0, 64, 3, 1};
            uint64_t pick[WORDS] = {0};
            for (uint32_t i = 0; i < FILTERS; i++)
                if (one_in[round % 4] && test_rand(&rng) % one_in[round % 4] == 0)
                    pick[i / 64] |= 1ull << (i % 64);
            uint64_t key = round % 2 ? (test_rand(&rng) % FILTERS) * 1000 + test_rand(&rng) % 32
                                     : NEVER_INSERTED(test_rand(&rng));
            int64_t want = -1;
            for (uint32_t i = 0; i < FILTERS && want < 0; i++)
                if (pick[i / 64] >> (i % 64) & 1 && xlat_cuckoo_contains(cfs[i], key))
                    want = i;
            ck_assert_msg(xlat__cuckoo_first(cfs, pick, WORDS, key) == want,
                          "f=%u round %d: first %lld, a loop %lld", widths[w], round,
                          (long long)xlat__cuckoo_first(cfs, pick, WORDS, key), (long long)want);
        }
        for (uint32_t i = 0; i < FILTERS; i++)
            xlat_cuckoo_destroy(cfs[i]);
    }
    xlat_ctx_destroy(ctx);
}
END_TEST

Suite *cuckoo_suite(void)
{
    Suite *s = suite_create("cuckoo");
    TCase *tc = test_case(s, "config");
    tcase_add_test(tc, test_config_init);
    tcase_add_test(tc, test_create_errors);
    tcase_add_test(tc, test_null_safe);
    tcase_add_test(tc, test_nomem_and_no_alloc_after_create);
    tcase_add_test(tc, test_sizing);
    tcase_add_test(tc, test_memory);
    tc = test_case(s, "membership");
    tcase_add_test(tc, test_basic);
    tcase_add_test(tc, test_no_false_negatives_every_width);
    tcase_add_test(tc, test_load_b4);
    tcase_add_test(tc, test_load_other_sizes);
    tcase_add_test(tc, test_false_positive_rate);
    tcase_add_test(tc, test_duplicates);
    tcase_add_test(tc, test_duplicate_limit);
    tcase_add_test(tc, test_duplicate_limit_one_bucket);
    tcase_add_test(tc, test_remove_never_inserted);
    tcase_add_test(tc, test_insert_remove_all);
    tc = test_case(s, "full");
    tcase_add_test(tc, test_full_rollback);
    tcase_add_test(tc, test_full_rollback_one_kick);
    tc = test_case(s, "seeds");
    tcase_add_test(tc, test_reproducible);
    tcase_add_test(tc, test_filters_differ_on_one_ctx);
    tcase_add_test(tc, test_clear);
    tcase_add_test(tc, test_state_pinned);
    tcase_add_test(tc, test_false_positives_pinned);
    tc = test_case(s, "shapes");
    tcase_add_test(tc, test_every_shape_against_reference);
    tcase_add_test(tc, test_first_of_many);
    return s;
}
