/* The fixed-latency responder: exact latency, identity map, host resolver,
 * bounded outstanding requests, and its error paths. */
#include "newer_config.h"
#include "testutil.h"

static xlat_resp last;
static int answers;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    last = *r;
    answers++;
}

static xlat_fixed *make(xlat_ctx *ctx, uint32_t latency, uint32_t max, uint8_t shift)
{
    xlat_fixed_config fc;
    xlat_fixed *f = NULL;
    xlat_fixed_config_init(&fc);
    fc.latency = latency;
    fc.max_outstanding = max;
    fc.page_shift = shift;
    fc.pfn_offset = 0x10;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &f), XLAT_OK);
    return f;
}

START_TEST(identity_map_after_latency)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_fixed *f = make(ctx, 7, 2, 21);
    answers = 0;
    xlat_req req = {.id = 9, .vaddr = 0x40123456, .pasid = 4, .access = XLAT_ACCESS_EXEC};
    ck_assert_int_eq(xlat_fixed_translate(f, &req, on_done, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_translate(f, &req, on_done, NULL), XLAT_OK);
    ck_assert_int_eq(xlat_fixed_translate(f, &req, on_done, NULL), XLAT_ERR_AGAIN);
    ck_assert_uint_eq(xlat_fixed_outstanding(f), 2);
    xlat_advance(ctx, 6);
    ck_assert_int_eq(answers, 0);
    xlat_tick(ctx);
    ck_assert_int_eq(answers, 2);
    ck_assert_uint_eq(last.completed, 7);
    ck_assert_uint_eq(last.page_shift, 21);
    ck_assert_uint_eq(last.pfn, (0x40123456ull >> 21) + 0x10);
    ck_assert_uint_eq(last.paddr, (last.pfn << 21) | (0x40123456ull & 0x1FFFFF));
    ck_assert_uint_eq(last.pasid, 4);
    ck_assert_str_eq(test_resolver(ctx, &last), "fixed");
    xlat_fixed_stats st;
    xlat_fixed_stats_get(f, &st, sizeof(st));
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.refusals, 1);
    xlat_fixed_stats_reset(f);
    xlat_fixed_stats_get(f, &st, sizeof(st));
    ck_assert_uint_eq(st.requests, 0);
    xlat_fixed_destroy(f);
    xlat_ctx_destroy(ctx);
}
END_TEST

static int bad_shift(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    (void)user;
    (void)pasid;
    (void)vaddr;
    out->page_shift = 3;
    return XLAT_OK;
}

START_TEST(resolver_answers_checked)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_fixed_config fc;
    xlat_fixed *f;
    xlat_fixed_config_init(&fc);
    fc.latency = 0;
    fc.resolve = bad_shift;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &f), XLAT_OK);
    answers = 0;
    xlat_req req = {.id = 1, .vaddr = 0x1000};
    ck_assert_int_eq(xlat_fixed_translate(f, &req, on_done, NULL), XLAT_OK);
    xlat_advance(ctx, 0);
    ck_assert_int_eq(answers, 1);
    ck_assert_int_eq(last.status, XLAT_ERR_INVAL);
    xlat_fixed_stats st;
    xlat_fixed_stats_get(f, &st, sizeof(st));
    ck_assert_uint_eq(st.faults, 1);
    xlat_fixed_destroy(f);
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(errors)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    xlat_fixed_config fc;
    xlat_fixed *f = NULL;
    xlat_fixed_config_init(&fc);
    ck_assert_int_eq(xlat_fixed_create(NULL, &fc, &f), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fixed_create(ctx, NULL, &f), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, NULL), XLAT_ERR_INVAL);
    fc.page_shift = 11;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &f), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "page_shift 11"));
    xlat_fixed_config_init(&fc);
    fc.struct_size = 4;
    ck_assert_int_eq(xlat_fixed_create(ctx, &fc, &f), XLAT_ERR_INVAL);
    XLAT_TEST_NEWER(xlat_fixed_config) newer = {.cfg = fc};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    ck_assert_int_eq(xlat_fixed_create(ctx, &newer.cfg, &f), XLAT_ERR_UNSUPPORTED);
    ck_assert_ptr_null(f);
    xlat_req req = {0};
    ck_assert_int_eq(xlat_fixed_translate(NULL, &req, on_done, NULL), XLAT_ERR_INVAL);
    ck_assert_uint_eq(xlat_fixed_outstanding(NULL), 0);
    xlat_fixed_stats st = {.requests = 3};
    xlat_fixed_stats_get(NULL, &st, sizeof(st));
    ck_assert_uint_eq(st.requests, 0);
    xlat_fixed_stats_reset(NULL);
    xlat_fixed_destroy(NULL);
    xlat_fixed_config_init(NULL);

    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *c2 = test_ctx(1, &ca);
    xlat_fixed_config_init(&fc);
    size_t base = ca.live_bytes;
    for (long n = 0; n < 3; n++) {
        ca.fail_after = n;
        ck_assert_int_eq(xlat_fixed_create(c2, &fc, &f), XLAT_ERR_NOMEM);
        ck_assert_uint_eq(ca.live_bytes, base);
    }
    ca.fail_after = -1;
    xlat_ctx_destroy(c2);
    xlat_ctx_destroy(ctx);
}
END_TEST

Suite *fixed_suite(void)
{
    Suite *s = suite_create("fixed");
    TCase *tc = test_case(s, "responder");
    tcase_add_test(tc, identity_map_after_latency);
    tcase_add_test(tc, resolver_answers_checked);
    tcase_add_test(tc, errors);
    return s;
}
