/* The context: creation, configuration errors, allocator hooks, errmsg. */
#include "newer_config.h"
#include "testutil.h"

START_TEST(create_with_defaults)
{
    xlat_ctx *ctx = NULL;
    ck_assert_int_eq(xlat_ctx_create(NULL, &ctx), XLAT_OK);
    ck_assert_ptr_nonnull(ctx);
    ck_assert_uint_eq(xlat_now(ctx), 0);
    ck_assert_uint_eq(xlat_next_event(ctx), XLAT_NEVER);
    ck_assert_str_eq(xlat_ctx_errmsg(ctx), "");
    ck_assert_uint_eq(xlat_ctx_seed(ctx), 0);
    xlat_ctx_destroy(ctx);
    xlat_ctx_destroy(NULL);
}
END_TEST

START_TEST(config_errors)
{
    xlat_ctx_config cfg;
    xlat_ctx *ctx = (xlat_ctx *)0x1;
    xlat_ctx_config_init(&cfg);
    ck_assert_uint_eq(cfg.struct_size, sizeof(cfg));
    ck_assert_int_eq(xlat_ctx_create(&cfg, NULL), XLAT_ERR_INVAL);
    cfg.struct_size = 4;
    ck_assert_int_eq(xlat_ctx_create(&cfg, &ctx), XLAT_ERR_INVAL);
    XLAT_TEST_NEWER(xlat_ctx_config) newer = {.cfg = cfg};
    newer.cfg.struct_size = sizeof(newer);
    newer.newer[7] = 1; /* a member this libxlat does not know, set */
    ck_assert_int_eq(xlat_ctx_create(&newer.cfg, &ctx), XLAT_ERR_UNSUPPORTED);
    xlat_allocator half = {NULL, NULL, NULL};
    xlat_ctx_config_init(&cfg);
    cfg.allocator = &half;
    ck_assert_int_eq(xlat_ctx_create(&cfg, &ctx), XLAT_ERR_INVAL);
    ck_assert_ptr_eq(ctx, (xlat_ctx *)0x1); /* untouched on failure */
    xlat_ctx_config_init(NULL);
}
END_TEST

START_TEST(allocator_is_used_and_balanced)
{
    counting_alloc ca;
    counting_alloc_init(&ca);
    xlat_ctx *ctx = test_ctx(7, &ca);
    ck_assert_uint_gt(ca.allocs, 0);
    ck_assert_uint_eq(xlat_ctx_seed(ctx), 7);
    xlat_ctx_destroy(ctx);
    ck_assert_uint_eq(ca.allocs, ca.frees);
    ck_assert_uint_eq(ca.live_bytes, 0);
}
END_TEST

START_TEST(allocator_failure_is_nomem)
{
    counting_alloc ca;
    xlat_ctx_config cfg;
    xlat_ctx *ctx = NULL;
    for (long n = 0; n < 2; n++) {
        counting_alloc_init(&ca);
        ca.fail_after = n;
        xlat_ctx_config_init(&cfg);
        cfg.allocator = &ca.hooks;
        ck_assert_int_eq(xlat_ctx_create(&cfg, &ctx), XLAT_ERR_NOMEM);
        ck_assert_ptr_null(ctx);
        ck_assert_uint_eq(ca.live_bytes, 0);
    }
}
END_TEST

START_TEST(null_context_is_harmless)
{
    ck_assert_str_eq(xlat_ctx_errmsg(NULL), "invalid context");
    ck_assert_uint_eq(xlat_now(NULL), 0);
    ck_assert_uint_eq(xlat_next_event(NULL), XLAT_NEVER);
    ck_assert_uint_eq(xlat_pending_events(NULL), 0);
    ck_assert_int_eq(xlat_tick(NULL), XLAT_ERR_INVAL);
    ck_assert_int_eq(xlat_advance(NULL, 5), XLAT_ERR_INVAL);
}
END_TEST

static void noop(void *user) { (void)user; }

START_TEST(errmsg_describes_last_failure)
{
    xlat_ctx *ctx = test_ctx(1, NULL);
    ck_assert_int_eq(xlat_schedule(ctx, 1, NULL, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "fn is NULL"));
    ck_assert_int_eq(xlat_schedule(ctx, XLAT_NEVER, noop, NULL), XLAT_ERR_INVAL);
    ck_assert_ptr_nonnull(strstr(xlat_ctx_errmsg(ctx), "reaches XLAT_NEVER"));
    xlat_ctx_destroy(ctx);
}
END_TEST

START_TEST(access_permissions)
{
    ck_assert_uint_eq(xlat_access_perm(XLAT_ACCESS_READ), XLAT_PERM_R);
    ck_assert_uint_eq(xlat_access_perm(XLAT_ACCESS_WRITE), XLAT_PERM_W);
    ck_assert_uint_eq(xlat_access_perm(XLAT_ACCESS_EXEC), XLAT_PERM_X);
    ck_assert_uint_eq(xlat_access_perm(XLAT_ACCESS_ATOMIC), XLAT_PERM_R | XLAT_PERM_W);
    ck_assert_uint_eq(xlat_access_perm((xlat_access)9), 0);
    xlat_req req = {0};
    ck_assert_int_eq(xlat_target_translate(NULL, &req, NULL, NULL), XLAT_ERR_INVAL);
}
END_TEST

Suite *core_suite(void)
{
    Suite *s = suite_create("core");
    TCase *tc = test_case(s, "context");
    tcase_add_test(tc, create_with_defaults);
    tcase_add_test(tc, config_errors);
    tcase_add_test(tc, allocator_is_used_and_balanced);
    tcase_add_test(tc, allocator_failure_is_nomem);
    tcase_add_test(tc, null_context_is_harmless);
    tcase_add_test(tc, errmsg_describes_last_failure);
    tcase_add_test(tc, access_permissions);
    return s;
}
