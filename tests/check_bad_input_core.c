/* Bad input of the core (ctx.h, common.h, stats.h, target.h, version.h)
 * and of the pure helpers (pagetable.h's PTE bits, mcm.h, experimental.h's
 * decision functions): one row per case, run by tests/check_bad_input.c. */
#include "bad_input_world.h"
#include "newer_config.h"
#include "xlat/experimental.h"

#define NEVER_ID 999999u /* no unit of any context has this id */

static void bi_event(void *user)
{
    (void)user;
}

static void bi_stat(void *user, uint32_t unit_id, const char *kind, const char *name,
                    const char *counter, uint64_t value)
{
    (void)user, (void)unit_id, (void)kind, (void)name, (void)counter, (void)value;
}

static void *bi_no_alloc(void *user, size_t size, size_t align)
{
    (void)user, (void)size, (void)align;
    return NULL;
}

static const xlat_allocator bi_half_allocator = {.alloc = bi_no_alloc, .free = NULL};

/* A context config from a newer libxlat that sets a member this one lacks. */
static int bi_newer_ctx(bi_world *w)
{
    XLAT_TEST_NEWER(xlat_ctx_config) n;
    memset(&n, 0, sizeof(n));
    n.cfg = w->ctxc;
    n.cfg.struct_size = sizeof(n);
    n.newer[3] = 1;
    return xlat_ctx_create(&n.cfg, &w->o_ctx);
}

static int bi_latency(bi_world *w, uint32_t unit, void *out, size_t size)
{
    return xlat_unit_latency_get(w->ctx, unit, out, size);
}

#define FIXED_ID xlat_unit_id(w->ctx, w->fixed)
#define HIST (&(xlat_latency_hist){0})
#define GMMU_CFG (&w->gmmuc)

#define BI_CASES(X)                                                                                \
    X(strerror_unknown, BI_DOC, NULL, BI_IS(strlen(xlat_strerror(-999)) > 0))                      \
    X(strerror_positive, BI_DOC, NULL, BI_IS(strlen(xlat_strerror(12345)) > 0))                    \
    X(ctx_config_init_null, BI_DOC, NULL, BI_VOID(xlat_ctx_config_init_sized(NULL, 64)))           \
    X(ctx_config_init_tiny, BI_DOC, NULL,                                                          \
      (w->ctxc.struct_size = 7, xlat_ctx_config_init_sized(&w->ctxc, 2), BI_IS(w->ctxc.struct_size == 7))) \
    X(ctx_create_null_out, XLAT_ERR_INVAL, NULL, xlat_ctx_create(&w->ctxc, NULL))                   \
    X(ctx_create_small_struct, XLAT_ERR_INVAL, NULL,                                               \
      (w->ctxc.struct_size = 3, xlat_ctx_create(&w->ctxc, &w->o_ctx)))                             \
    X(ctx_create_zero_struct, XLAT_ERR_INVAL, NULL,                                                \
      (w->ctxc.struct_size = 0, xlat_ctx_create(&w->ctxc, &w->o_ctx)))                             \
    X(ctx_create_newer, XLAT_ERR_UNSUPPORTED, NULL, bi_newer_ctx(w))                               \
    X(ctx_create_half_allocator, XLAT_ERR_INVAL, NULL,                                             \
      (w->ctxc.allocator = &bi_half_allocator, xlat_ctx_create(&w->ctxc, &w->o_ctx)))              \
    X(ctx_destroy_null, BI_DOC, NULL, BI_VOID(xlat_ctx_destroy(NULL)))                             \
    X(ctx_errmsg_null, BI_DOC, NULL, BI_IS(strcmp(xlat_ctx_errmsg(NULL), "invalid context") == 0)) \
    X(now_null, BI_DOC, NULL, BI_IS(xlat_now(NULL) == 0))                                          \
    X(tick_null, XLAT_ERR_INVAL, NULL, xlat_tick(NULL))                                            \
    X(advance_null, XLAT_ERR_INVAL, NULL, xlat_advance(NULL, 1))                                   \
    X(advance_past_the_end, XLAT_ERR_INVAL, "cycles", xlat_advance(w->ctx, UINT64_MAX))            \
    X(next_event_null, BI_DOC, NULL, BI_IS(xlat_next_event(NULL) == XLAT_NEVER))                   \
    X(schedule_null_ctx, XLAT_ERR_INVAL, NULL, xlat_schedule(NULL, 1, bi_event, NULL))             \
    X(schedule_null_fn, XLAT_ERR_INVAL, "fn", xlat_schedule(w->ctx, 1, NULL, NULL))                \
    X(schedule_past_the_end, XLAT_ERR_INVAL, "delay",                                              \
      xlat_schedule(w->ctx, UINT64_MAX, bi_event, NULL))                                           \
    X(ctx_seed_null, BI_DOC, NULL, BI_IS(xlat_ctx_seed(NULL) == 0))                                \
    X(pending_events_null, BI_DOC, NULL, BI_IS(xlat_pending_events(NULL) == 0))                    \
    X(stats_foreach_null_ctx, XLAT_ERR_INVAL, NULL, xlat_stats_foreach(NULL, bi_stat, NULL))       \
    X(stats_foreach_null_fn, XLAT_ERR_INVAL, "fn", xlat_stats_foreach(w->ctx, NULL, NULL))         \
    X(unit_stats_foreach_null_ctx, XLAT_ERR_INVAL, NULL,                                           \
      xlat_unit_stats_foreach(NULL, 1, bi_stat, NULL))                                             \
    X(unit_stats_foreach_null_fn, XLAT_ERR_INVAL, "fn",                                            \
      xlat_unit_stats_foreach(w->ctx, FIXED_ID, NULL, NULL))                                       \
    X(unit_stats_foreach_unknown, XLAT_ERR_NOT_FOUND, "id",                                   \
      xlat_unit_stats_foreach(w->ctx, NEVER_ID, bi_stat, NULL))                                    \
    X(stats_reset_null_ctx, XLAT_ERR_INVAL, NULL, xlat_stats_reset(NULL, 0))                       \
    X(stats_reset_unknown, XLAT_ERR_NOT_FOUND, "id", xlat_stats_reset(w->ctx, NEVER_ID))      \
    X(unit_latency_get_null_ctx, XLAT_ERR_INVAL, NULL,                                             \
      xlat_unit_latency_get(NULL, 1, HIST, sizeof(xlat_latency_hist)))                             \
    X(unit_latency_get_null_out, XLAT_ERR_INVAL, "out",                                            \
      bi_latency(w, FIXED_ID, NULL, sizeof(xlat_latency_hist)))                                    \
    X(unit_latency_get_unknown, XLAT_ERR_NOT_FOUND, "id",                                     \
      bi_latency(w, NEVER_ID, HIST, sizeof(xlat_latency_hist)))                                    \
    X(unit_latency_get_cuckoo, XLAT_ERR_UNSUPPORTED, "cuckoo",                                    \
      bi_latency(w, xlat_unit_id(w->ctx, w->cf), HIST, sizeof(xlat_latency_hist)))                 \
    X(unit_id_null, BI_DOC, NULL,                                                                  \
      BI_IS(xlat_unit_id(NULL, w->tlb) == 0 && xlat_unit_id(w->ctx, NULL) == 0))                   \
    X(unit_id_stranger, BI_DOC, NULL, BI_IS(xlat_unit_id(w->ctx, &w->u64) == 0))                   \
    X(unit_name_unknown, BI_DOC, NULL,                                                             \
      BI_IS(!xlat_unit_name(w->ctx, NEVER_ID) && !xlat_unit_name(NULL, FIXED_ID)))                 \
    X(unit_kind_unknown, BI_DOC, NULL,                                                             \
      BI_IS(!xlat_unit_kind(w->ctx, NEVER_ID) && !xlat_unit_kind(NULL, FIXED_ID)))                 \
    X(target_translate_null, XLAT_ERR_INVAL, NULL,                                                 \
      xlat_target_translate(NULL, &w->req, bi_never_done, NULL))                                   \
    X(target_translate_no_fn, XLAT_ERR_INVAL, NULL,                                                \
      xlat_target_translate(&w->target, &w->req, bi_never_done, NULL))                             \
    X(target_translate_null_req, XLAT_ERR_INVAL, NULL,                                             \
      (w->target = TEST_TARGET(fixed, w->fixed),                                                   \
       xlat_target_translate(&w->target, NULL, bi_never_done, NULL)))                              \
    X(target_translate_null_done, XLAT_ERR_INVAL, NULL,                                            \
      (w->target = TEST_TARGET(fixed, w->fixed), xlat_target_translate(&w->target, &w->req, NULL, NULL))) \
    X(target_translate_small_struct, XLAT_ERR_INVAL, NULL,                                         \
      (w->target = TEST_TARGET(fixed, w->fixed), w->target.struct_size = 4,                        \
       xlat_target_translate(&w->target, &w->req, bi_never_done, NULL)))                           \
    X(access_perm_out_of_range, BI_DOC, NULL,                                                      \
      BI_IS(xlat_access_perm((xlat_access)99) == 0 && xlat_access_perm((xlat_access)-1) == 0))     \
    X(version_number, BI_DOC, NULL, BI_IS(xlat_version_number() == XLAT_VERSION_NUMBER))          \
    X(version_string, BI_DOC, NULL, BI_IS(!strcmp(xlat_version_string(), XLAT_VERSION_STRING)))    \
    X(pte_pfn_wide, BI_DOC, NULL, BI_IS(xlat_pte_pfn(xlat_pte_set_pfn(0, ~0ull)) == (1ull << 40) - 1)) \
    X(pte_set_pfn_keeps_bits, BI_DOC, NULL,                                                        \
      BI_IS(xlat_pte_set_pfn(~0ull, 0) == ~XLAT_PTE_PFN_MASK))                                     \
    X(pte_perm_absent, BI_DOC, NULL, BI_IS(xlat_pte_perm(0) == 0))                                 \
    X(pte_avail_low_wide, BI_DOC, NULL, BI_IS(xlat_pte_avail_low(xlat_pte_set_avail_low(0, 0xff)) == 7)) \
    X(pte_avail_high_wide, BI_DOC, NULL,                                                           \
      BI_IS(xlat_pte_avail_high(xlat_pte_set_avail_high(0, ~0u)) == 2047))                         \
    X(mcm_preset_bad_variant, XLAT_ERR_INVAL, NULL,                                                \
      xlat_mcm_preset(&(xlat_mcm_config){0}, (xlat_mcm_variant)99))                                \
    X(mcm_preset_null, XLAT_ERR_INVAL, NULL, xlat_mcm_preset(NULL, XLAT_MCM_BASELINE))             \
    X(mcm_preset_parts_null_part, XLAT_ERR_INVAL, NULL,                                            \
      xlat_mcm_preset_parts(XLAT_MCM_BASELINE, &w->sysc, NULL, &w->tlbc, &w->iommuc, &w->walkc))   \
    X(mcm_preset_parts_small_struct, XLAT_ERR_INVAL, NULL,                                         \
      (w->tlbc.struct_size = 4, xlat_mcm_preset_parts(XLAT_MCM_BASELINE, &w->sysc, &w->tlbc,       \
                                                      &w->tlbc, &w->iommuc, &w->walkc)))           \
    X(dwspp_threshold_null, BI_DOC, NULL, BI_IS(xlat_dwspp_threshold(NULL, 5, 1) == 1.0))          \
    X(dwspp_should_steal_null, BI_DOC, NULL,                                                       \
      BI_IS(!xlat_dwspp_should_steal(NULL, 0.5, false, 0, 4, 0, 8, 8, 8)))                         \
    X(walker_diff_thres_null, BI_DOC, NULL, BI_IS(xlat_walker_diff_thres(NULL, 0) == 1.0))         \
    X(walker_diff_thres_tenant, BI_DOC, NULL, BI_IS(xlat_walker_diff_thres(w->walker, 99) == 1.0)) \
    X(gmmu_decide_null, BI_DOC, NULL,                                                              \
      BI_IS(xlat_gmmu_decide(NULL, 1, 100, XLAT_GMMU_ROUTE_PARALLEL) == XLAT_GMMU_ROUTE_PARALLEL)) \
    X(gmmu_decide_bad_route, BI_DOC, NULL,                                                         \
      BI_IS(xlat_gmmu_decide(GMMU_CFG, 0, 0, XLAT_GMMU_ROUTE_BYPASS) == XLAT_GMMU_ROUTE_BYPASS))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_core_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
