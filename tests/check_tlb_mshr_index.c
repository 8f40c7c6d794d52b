/* A timed TLB's MSHRs with and without their hash index (32 MSHRs and
 * more are indexed, fewer are scanned): the same requests must get the
 * same answers, merges and refusals either way, a page with two MSHRs
 * (one opened before an invalidation, one after) must free the right one,
 * and every MSHR must be usable again afterwards. Each test runs for 31
 * MSHRs (scanned) and for 32, 64 and 100 (indexed); the scan, which reads
 * a key only where its tag byte matches, is run against a model of the
 * busy keys for every way it compares tags (1 to 3 MSHRs one by one, 4 to
 * 16 in one block of 16, 17 to 31 in two). */
#include "testutil.h"

#define MAX_DONE 512
#define MEM_LATENCY 100

static const uint32_t mshr_counts[] = {31, 32, 64, 100};

static struct {
    xlat_ctx *ctx;
    xlat_tlb *tlb;
    xlat_fixed *mem;
    xlat_resp done[MAX_DONE];
    int n;
} h;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    ck_assert_int_lt(h.n, MAX_DONE);
    h.done[h.n++] = *r;
}

/* A TLB of `mshrs` MSHRs, as many ports (a whole burst in one cycle) and
 * latency 1, over a MEM_LATENCY-cycle responder. */
static void build(uint32_t mshrs)
{
    memset(&h, 0, sizeof(h));
    h.ctx = test_ctx(5, NULL);
    xlat_tlb_config cfg;
    xlat_tlb_config_init(&cfg);
    cfg.name = "tlb";
    cfg.entries = 1024;
    cfg.ways = 16;
    cfg.latency = 1;
    cfg.mshrs = mshrs;
    cfg.ports = mshrs + 2;
    ck_assert_int_eq(xlat_tlb_create(h.ctx, &cfg, &h.tlb), XLAT_OK);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = "mem";
    fc.latency = MEM_LATENCY;
    fc.pfn_offset = 0x100000;
    ck_assert_int_eq(xlat_fixed_create(h.ctx, &fc, &h.mem), XLAT_OK);
    xlat_target next = TEST_TARGET(fixed, h.mem);
    ck_assert_int_eq(xlat_tlb_set_next(h.tlb, &next), XLAT_OK);
}

static void teardown(void)
{
    ck_assert_int_eq(xlat_tlb_destroy(h.tlb), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_destroy(h.mem), XLAT_OK);
    xlat_ctx_destroy(h.ctx);
}

static int send(uint64_t id, uint32_t pasid, uint64_t page)
{
    xlat_req req = {.id = id, .vaddr = page << 12 | (id & 0xff) << 4, .pasid = pasid};
    return xlat_tlb_translate(h.tlb, &req, on_done, NULL);
}

static void run_until(uint64_t cycle) { xlat_advance(h.ctx, cycle - xlat_now(h.ctx)); }

static xlat_tlb_stats stats(void)
{
    xlat_tlb_stats s;
    xlat_tlb_stats_get(h.tlb, &s, sizeof(s));
    return s;
}

/* Page i of a burst: far apart, in two address spaces, so that the keys
 * differ in their high bits and pasids as well as their low bits. */
static uint64_t burst_page(uint32_t i) { return 0x7f000ull + (uint64_t)i * 0x10001ull; }
static uint32_t burst_pasid(uint32_t i) { return 1 + (i & 1); }

/* The id of the k-th answer to a burst of `mshrs` misses (ids first_id
 * ...) and one merged request on the page of the 8th: in the order sent,
 * the merged one right after the miss it joined. */
static uint64_t answer_id(uint32_t k, uint32_t mshrs, uint64_t first_id)
{
    if (k < 8)
        return first_id + k;
    return k == 8 ? first_id + mshrs : first_id + k - 1;
}

/* Every answer of the burst sent at `sent`: issued then, completed one
 * cycle (the TLB) plus MEM_LATENCY later, the responder's frame. */
static void check_burst(int first, uint32_t mshrs, uint64_t first_id, uint64_t sent)
{
    for (uint32_t k = 0; k <= mshrs; k++) {
        const xlat_resp *r = &h.done[first + (int)k];
        ck_assert_uint_eq(r->id, answer_id(k, mshrs, first_id));
        ck_assert_int_eq(r->status, XLAT_OK);
        ck_assert_uint_eq(r->issued, sent);
        ck_assert_uint_eq(r->completed, sent + 1 + MEM_LATENCY);
        ck_assert_uint_eq(r->paddr >> 12, (r->vaddr >> 12) + 0x100000);
    }
}

/* Sends a burst on every MSHR at `at`, checks one more page is refused
 * and a request on a page of the burst merges, and lets it all finish. */
static void fill_every_mshr(uint32_t mshrs, uint64_t first_id, uint64_t at)
{
    run_until(at);
    int first = h.n;
    uint64_t merges = stats().mshr_merges;
    for (uint32_t i = 0; i < mshrs; i++)
        ck_assert_int_eq(send(first_id + i, burst_pasid(i), burst_page(i)), XLAT_OK);
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), mshrs);
    ck_assert_int_eq(send(first_id + mshrs, 1, 0x5000), XLAT_ERR_AGAIN);
    ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "tlb tlb: every MSHR is busy");
    ck_assert_int_eq(send(first_id + mshrs, burst_pasid(7), burst_page(7)), XLAT_OK);
    ck_assert_uint_eq(stats().mshr_merges, merges + 1);
    run_until(at + 1 + MEM_LATENCY);
    ck_assert_int_eq(h.n, first + (int)mshrs + 1);
    check_burst(first, mshrs, first_id, at);
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), 0);
}

START_TEST(every_mshr_is_taken_refused_and_taken_again)
{
    uint32_t mshrs = mshr_counts[_i];
    build(mshrs);
    fill_every_mshr(mshrs, 0, 0);
    ck_assert_int_eq(xlat_tlb_flush(h.tlb), (int)mshrs); /* what the burst filled */
    fill_every_mshr(mshrs, 1000, 200); /* every MSHR free again: the same again */
    xlat_tlb_stats s = stats();
    ck_assert_uint_eq(s.misses, 2 * (mshrs + 1));
    ck_assert_uint_eq(s.mshr_merges, 2);
    ck_assert_uint_eq(s.refusals, 2);
    teardown();
}
END_TEST

/* A miss outstanding across an invalidation of its page is not joined: a
 * second MSHR opens for the same key, later misses join that one, and the
 * first one's completion frees the first (its fill dropped as stale). */
START_TEST(an_invalidated_page_gets_a_second_mshr)
{
    uint32_t mshrs = mshr_counts[_i];
    build(mshrs);
    ck_assert_int_eq(send(1, 3, 0x42), XLAT_OK);
    run_until(10);
    ck_assert_int_eq(xlat_tlb_invalidate(h.tlb, 3, 0x42000), 0); /* nothing held yet */
    ck_assert_int_eq(send(2, 3, 0x42), XLAT_OK); /* not joined: a second MSHR */
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), 2);
    run_until(20);
    ck_assert_int_eq(send(3, 3, 0x42), XLAT_OK); /* joins the second */
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), 2);
    ck_assert_uint_eq(stats().mshr_merges, 1);
    run_until(1 + MEM_LATENCY); /* the first answers, unfilled, and frees its MSHR */
    ck_assert_int_eq(h.n, 1);
    ck_assert_uint_eq(h.done[0].id, 1);
    ck_assert_int_eq(xlat_tlb_probe(h.tlb, 3, 0x42000, NULL), XLAT_ERR_NOT_FOUND);
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), 1);
    ck_assert_int_eq(send(4, 3, 0x42), XLAT_OK); /* still joins the second */
    ck_assert_uint_eq(stats().mshr_merges, 2);
    run_until(11 + MEM_LATENCY);
    ck_assert_int_eq(h.n, 4);
    for (int k = 1; k < 4; k++) {
        ck_assert_uint_eq(h.done[k].id, (uint64_t)k + 1);
        ck_assert_uint_eq(h.done[k].completed, 11 + MEM_LATENCY);
    }
    ck_assert_int_eq(xlat_tlb_probe(h.tlb, 3, 0x42000, NULL), XLAT_OK); /* the second filled */
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), 0);
    ck_assert_int_eq(xlat_tlb_flush(h.tlb), 1);
    fill_every_mshr(mshrs, 100, 200); /* and every MSHR is free */
    teardown();
}
END_TEST

static const uint32_t scanned_counts[] = {1, 2, 3, 4, 5, 8, 15, 16, 17, 31, 32};

/* Whether (pasid, page) is the key of one of the first `mshrs` burst
 * pages: the model of what the busy MSHRs hold. */
static bool busy_key(uint32_t mshrs, uint32_t pasid, uint64_t page)
{
    for (uint32_t i = 0; i < mshrs; i++)
        if (burst_page(i) == page && burst_pasid(i) == pasid)
            return true;
    return false;
}

/* With every MSHR busy, a miss merges exactly when its key is busy, and is
 * refused otherwise: over a thousand random keys (about n/255 of them share
 * a busy MSHR's 8-bit tag without its key), each busy page in the other
 * address space, and each busy key itself, once. */
START_TEST(a_full_scan_merges_only_busy_keys)
{
    uint32_t mshrs = scanned_counts[_i];
    build(mshrs);
    for (uint32_t i = 0; i < mshrs; i++)
        ck_assert_int_eq(send(i, burst_pasid(i), burst_page(i)), XLAT_OK);
    uint64_t state = mshrs, id = mshrs, merged = 0, refused = 0;
    for (uint32_t k = 0; k < 1000 + 2 * mshrs; k++) {
        uint32_t pasid = 1 + (uint32_t)(test_rand(&state) & 1);
        uint64_t page = test_rand(&state) >> 28;
        if (k >= 1000) { /* the busy pages, in the other space, then their own */
            uint32_t i = (k - 1000) % mshrs;
            page = burst_page(i);
            pasid = k < 1000 + mshrs ? 3 - burst_pasid(i) : burst_pasid(i);
        }
        bool merges = busy_key(mshrs, pasid, page);
        run_until(1 + k / 20); /* all before the burst completes (cycle 101) */
        int rc = send(id++, pasid, page);
        ck_assert_int_eq(rc, merges ? XLAT_OK : XLAT_ERR_AGAIN);
        if (!merges)
            ck_assert_str_eq(xlat_ctx_errmsg(h.ctx), "tlb tlb: every MSHR is busy");
        merged += merges;
        refused += !merges;
    }
    ck_assert_uint_eq(merged, mshrs);
    ck_assert_uint_eq(stats().mshr_merges, merged);
    ck_assert_uint_eq(stats().refusals, refused);
    run_until(2000);
    ck_assert_int_eq(h.n, (int)(mshrs + merged));
    ck_assert_uint_eq(xlat_tlb_mshrs_busy(h.tlb), 0);
    teardown();
}
END_TEST

Suite *tlb_mshr_index_suite(void)
{
    Suite *s = suite_create("tlb_mshr_index");
    TCase *tc = tcase_create("mshrs");
    int counts = (int)(sizeof(mshr_counts) / sizeof(mshr_counts[0]));
    tcase_add_loop_test(tc, every_mshr_is_taken_refused_and_taken_again, 0, counts);
    tcase_add_loop_test(tc, an_invalidated_page_gets_a_second_mshr, 0, counts);
    int scanned = (int)(sizeof(scanned_counts) / sizeof(scanned_counts[0]));
    tcase_add_loop_test(tc, a_full_scan_merges_only_busy_keys, 0, scanned);
    suite_add_tcase(s, tc);
    return s;
}
