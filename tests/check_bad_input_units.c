/* Bad input of the timed units (fixed.h, link.h, walker.h, gmmu.h): one row
 * per case, run by tests/check_bad_input.c. */
#include "bad_input_world.h"

#define REQ(field, value) (w->req.field = (value), &w->req)
#define FIX_CFG(field, value) (w->fixc.field = (value), xlat_fixed_create(w->ctx, &w->fixc, &w->o_fixed))
#define LINK_CFG(field, value) (w->linkc.field = (value), xlat_link_create(w->ctx, &w->linkc, &w->o_link))
#define WALK_CFG(field, value)                                                                     \
    (w->walkc.field = (value), xlat_walker_create(w->ctx, &w->walkc, &w->o_walker))
#define DWSPP_CFG(field, value)                                                                    \
    (w->walkc.sched = XLAT_SCHED_DWSPP, w->walkc.tenants = 2, w->walkc.dwspp = &w->dwsppc,         \
     w->dwsppc.field = (value), xlat_walker_create(w->ctx, &w->walkc, &w->o_walker))
#define GMMU_CFG(field, value) (w->gmmuc.field = (value), xlat_gmmu_create(w->ctx, &w->gmmuc, &w->o_gmmu))
#define FIXED_TARGET (w->target = TEST_TARGET(fixed, w->fixed), &w->target)
#define INFO (&(xlat_walk_info){0})
#define TENANT_STATS (&(xlat_walker_tenant_stats){0})

/* A variant that is not one gets the default ladder (walker.h). */
static bool bi_dwspp_is_default(xlat_dwspp_variant variant)
{
    xlat_dwspp_config a, b;
    xlat_dwspp_preset(&a, variant);
    xlat_dwspp_preset(&b, XLAT_DWSPP_DEFAULT);
    return a.epoch_length == b.epoch_length && a.queue_thres == b.queue_thres &&
           a.ratio[0] == b.ratio[0] && a.diff_thres[4] == b.diff_thres[4] &&
           a.strict_bounds == b.strict_bounds;
}

#define BI_CASES(X)                                                                                \
    X(fixed_config_init_null, BI_DOC, NULL, BI_VOID(xlat_fixed_config_init_sized(NULL, 64)))       \
    X(fixed_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_fixed_create(NULL, &w->fixc, &w->o_fixed)) \
    X(fixed_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_fixed_create(w->ctx, NULL, &w->o_fixed))  \
    X(fixed_create_null_out, XLAT_ERR_INVAL, "out", xlat_fixed_create(w->ctx, &w->fixc, NULL))     \
    X(fixed_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", FIX_CFG(struct_size, 0))         \
    X(fixed_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                     \
      BI_NEWER(xlat_fixed_config, w->fixc, xlat_fixed_create, &w->o_fixed))                        \
    X(fixed_create_page_shift_11, XLAT_ERR_INVAL, "page_shift", FIX_CFG(page_shift, 11))           \
    X(fixed_create_page_shift_64, XLAT_ERR_INVAL, "page_shift", FIX_CFG(page_shift, 64))           \
    X(fixed_create_perm_bits, XLAT_ERR_INVAL, "perm", FIX_CFG(perm, 0xf0))                         \
    X(fixed_create_clock_num_0, XLAT_ERR_INVAL, "clock", (w->fixc.clock_den = 2, FIX_CFG(clock_num, 0))) \
    X(fixed_create_clock_huge, XLAT_ERR_INVAL, "clock_num",                                            \
      (w->fixc.clock_den = 1, FIX_CFG(clock_num, UINT32_MAX)))                                     \
    X(fixed_create_huge, XLAT_ERR_NOMEM, "fixed", FIX_CFG(max_outstanding, UINT32_MAX))            \
    X(fixed_destroy_null, XLAT_OK, NULL, xlat_fixed_destroy(NULL))                                 \
    X(fixed_translate_null_fixed, XLAT_ERR_INVAL, NULL,                                            \
      xlat_fixed_translate(NULL, &w->req, bi_never_done, NULL))                                    \
    X(fixed_translate_null_req, XLAT_ERR_INVAL, "req",                                             \
      xlat_fixed_translate(w->fixed, NULL, bi_never_done, NULL))                                   \
    X(fixed_translate_null_done, XLAT_ERR_INVAL, "done", xlat_fixed_translate(w->fixed, &w->req, NULL, NULL)) \
    X(fixed_translate_access_99, XLAT_ERR_INVAL, "access",                                         \
      xlat_fixed_translate(w->fixed, REQ(access, (xlat_access)99), bi_never_done, NULL))           \
    X(fixed_translate_access_past_atomic, XLAT_ERR_INVAL, "access",                                \
      xlat_fixed_translate(w->fixed, REQ(access, XLAT_ACCESS_ATOMIC + 1), bi_never_done, NULL))    \
    X(fixed_get_target_null_fixed, XLAT_ERR_INVAL, NULL, xlat_fixed_get_target(NULL, &w->target))  \
    X(fixed_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_fixed_get_target(w->fixed, NULL))     \
    X(fixed_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                               \
      (w->target.struct_size = 0, xlat_fixed_get_target(w->fixed, &w->target)))                    \
    X(fixed_get_target_struct_size_huge, XLAT_ERR_INVAL, "struct_size",                            \
      (w->target.struct_size = UINT32_MAX, xlat_fixed_get_target(w->fixed, &w->target)))           \
    X(fixed_outstanding_null, BI_DOC, NULL, BI_IS(xlat_fixed_outstanding(NULL) == 0))              \
    X(fixed_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_fixed_stats, xlat_fixed_stats_get))   \
    X(fixed_stats_get_nowhere, BI_DOC, NULL,                                                       \
      BI_STATS_NOWHERE(xlat_fixed_stats, xlat_fixed_stats_get, w->fixed))                          \
    X(fixed_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_fixed_stats_reset(NULL)))                 \
    X(link_config_init_null, BI_DOC, NULL, BI_VOID(xlat_link_config_init_sized(NULL, 64)))         \
    X(link_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_link_create(NULL, &w->linkc, &w->o_link))   \
    X(link_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_link_create(w->ctx, NULL, &w->o_link))     \
    X(link_create_null_out, XLAT_ERR_INVAL, "out", xlat_link_create(w->ctx, &w->linkc, NULL))      \
    X(link_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", LINK_CFG(struct_size, 0))         \
    X(link_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                      \
      BI_NEWER(xlat_link_config, w->linkc, xlat_link_create, &w->o_link))                          \
    X(link_create_clock_den_0, XLAT_ERR_INVAL, "clock", (w->linkc.clock_num = 1, LINK_CFG(clock_den, 0))) \
    X(link_destroy_null, XLAT_OK, NULL, xlat_link_destroy(NULL))                                   \
    X(link_set_next_null_link, XLAT_ERR_INVAL, NULL, xlat_link_set_next(NULL, FIXED_TARGET))       \
    X(link_set_next_null_next, XLAT_ERR_INVAL, "next", xlat_link_set_next(w->link, NULL))          \
    X(link_set_next_no_translate, XLAT_ERR_INVAL, "translate",                                     \
      xlat_link_set_next(w->link, &w->target))                                                     \
    X(link_set_next_small_struct, XLAT_ERR_INVAL, "struct_size",                                   \
      (w->target = TEST_TARGET(fixed, w->fixed), w->target.struct_size = 3, xlat_link_set_next(w->link, &w->target)))          \
    X(link_translate_null_link, XLAT_ERR_INVAL, NULL,                                              \
      xlat_link_translate(NULL, &w->req, bi_never_done, NULL))                                     \
    X(link_translate_null_req, XLAT_ERR_INVAL, "req", xlat_link_translate(w->link, NULL, bi_never_done, NULL)) \
    X(link_translate_null_done, XLAT_ERR_INVAL, "done", xlat_link_translate(w->link, &w->req, NULL, NULL)) \
    X(link_translate_access_99, XLAT_ERR_INVAL, "access",                                          \
      xlat_link_translate(w->link, REQ(access, (xlat_access)99), bi_never_done, NULL))             \
    X(link_get_target_null_link, XLAT_ERR_INVAL, NULL, xlat_link_get_target(NULL, &w->target))     \
    X(link_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_link_get_target(w->link, NULL))        \
    X(link_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                                \
      (w->target.struct_size = 0, xlat_link_get_target(w->link, &w->target)))                      \
    X(link_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_link_stats, xlat_link_stats_get))      \
    X(link_stats_get_nowhere, BI_DOC, NULL,                                                        \
      BI_STATS_NOWHERE(xlat_link_stats, xlat_link_stats_get, w->link))                             \
    X(link_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_link_stats_reset(NULL)))                   \
    X(dwspp_preset_null, BI_DOC, NULL, BI_VOID(xlat_dwspp_preset_sized(NULL, 64, XLAT_DWSPP_DEFAULT))) \
    X(dwspp_preset_bad_variant, BI_DOC, NULL, BI_IS(bi_dwspp_is_default((xlat_dwspp_variant)99)))  \
    X(walker_config_init_null, BI_DOC, NULL, BI_VOID(xlat_walker_config_init_sized(NULL, 64)))     \
    X(walker_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_walker_create(NULL, &w->walkc, &w->o_walker)) \
    X(walker_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_walker_create(w->ctx, NULL, &w->o_walker)) \
    X(walker_create_null_out, XLAT_ERR_INVAL, "out", xlat_walker_create(w->ctx, &w->walkc, NULL))  \
    X(walker_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", WALK_CFG(struct_size, 0))       \
    X(walker_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                    \
      BI_NEWER(xlat_walker_config, w->walkc, xlat_walker_create, &w->o_walker))                    \
    X(walker_create_null_pt, XLAT_ERR_INVAL, "pt", WALK_CFG(pt, NULL))                             \
    X(walker_create_walkers_0, XLAT_ERR_INVAL, "walkers", WALK_CFG(walkers, 0))                    \
    X(walker_create_queue_0, XLAT_ERR_INVAL, "queue_entries", WALK_CFG(queue_entries, 0))          \
    X(walker_create_line_bytes_3, XLAT_ERR_INVAL, "line_bytes", WALK_CFG(line_bytes, 3))           \
    X(walker_create_line_bytes_8192, XLAT_ERR_INVAL, "line_bytes", WALK_CFG(line_bytes, 8192))     \
    X(walker_create_sched_99, XLAT_ERR_INVAL, "sched", WALK_CFG(sched, (xlat_walk_sched)99))       \
    X(walker_create_tenants_0, XLAT_ERR_INVAL, "tenants", WALK_CFG(tenants, 0))                    \
    X(walker_create_tenants_65, XLAT_ERR_INVAL, "tenants", WALK_CFG(tenants, 65))                  \
    X(walker_create_assign_99, XLAT_ERR_INVAL, "assign", WALK_CFG(assign, (xlat_walker_assign)99)) \
    X(walker_create_dwspp_struct_size, XLAT_ERR_INVAL, "struct_size", DWSPP_CFG(struct_size, 4))   \
    X(walker_create_dwspp_epoch_0, XLAT_ERR_INVAL, "epoch_length", DWSPP_CFG(epoch_length, 0))     \
    X(walker_create_walkers_max, XLAT_ERR_INVAL, "walkers",                                                \
      (w->walkc.walkers = UINT32_MAX, WALK_CFG(queue_entries, UINT32_MAX)))                        \
    X(walker_create_huge_queue, XLAT_ERR_NOMEM, "walker", WALK_CFG(queue_entries, UINT32_MAX))     \
    X(walker_create_huge_pool, XLAT_ERR_NOMEM, "walker",                                           \
      (w->walkc.walkers = 1u << 20, WALK_CFG(queue_entries, 1u << 30)))                            \
    X(walker_create_huge_tenants_queue, XLAT_ERR_NOMEM, "walker",                                  \
      (w->walkc.sched = XLAT_SCHED_PARTITION, w->walkc.tenants = 64, w->walkc.walkers = 64,        \
       WALK_CFG(queue_entries, UINT32_MAX)))                                                       \
    X(walker_destroy_null, XLAT_OK, NULL, xlat_walker_destroy(NULL))                               \
    X(walker_translate_null_pool, XLAT_ERR_INVAL, NULL,                                            \
      xlat_walker_translate(NULL, &w->req, bi_never_done, NULL))                                   \
    X(walker_translate_null_req, XLAT_ERR_INVAL, "req",                                            \
      xlat_walker_translate(w->walker, NULL, bi_never_done, NULL))                                 \
    X(walker_translate_null_done, XLAT_ERR_INVAL, "done",                                          \
      xlat_walker_translate(w->walker, &w->req, NULL, NULL))                                       \
    X(walker_translate_access_99, XLAT_ERR_INVAL, "access",                                        \
      xlat_walker_translate(w->walker, REQ(access, (xlat_access)99), bi_never_done, NULL))         \
    X(walker_get_target_null_walker, XLAT_ERR_INVAL, NULL, xlat_walker_get_target(NULL, &w->target)) \
    X(walker_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_walker_get_target(w->walker, NULL))  \
    X(walker_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                              \
      (w->target.struct_size = 0, xlat_walker_get_target(w->walker, &w->target)))                  \
    X(walker_mem_done_null, XLAT_ERR_INVAL, NULL, xlat_walker_mem_done(NULL, 1))                   \
    X(walker_mem_done_unknown, XLAT_ERR_NOT_FOUND, "token", xlat_walker_mem_done(w->walker, 12345)) \
    X(walker_fault_resume_null, XLAT_ERR_INVAL, NULL, xlat_walker_fault_resume(NULL, 1, XLAT_OK))  \
    X(walker_fault_resume_unknown, XLAT_ERR_NOT_FOUND, "token",                                    \
      xlat_walker_fault_resume(w->walker, 12345, XLAT_OK))                                         \
    X(walker_set_tenant_null, XLAT_ERR_INVAL, NULL, xlat_walker_set_tenant(NULL, 1, 0))            \
    X(walker_set_tenant_range, XLAT_ERR_INVAL, "tenant", xlat_walker_set_tenant(w->walker, 1, 1))  \
    X(walker_set_tenant_max, XLAT_ERR_INVAL, "tenant",                                             \
      xlat_walker_set_tenant(w->walker, 1, UINT32_MAX))                                            \
    X(walker_buffered_null, BI_DOC, NULL, BI_IS(xlat_walker_buffered(NULL) == 0))                  \
    X(walker_busy_null, BI_DOC, NULL, BI_IS(xlat_walker_busy(NULL) == 0))                          \
    X(walker_buffered_info_null_pool, XLAT_ERR_INVAL, NULL,                                        \
      xlat_walker_buffered_info(NULL, 0, INFO, sizeof(xlat_walk_info)))                            \
    X(walker_buffered_info_null_out, XLAT_ERR_INVAL, "out",                                        \
      xlat_walker_buffered_info(w->walker, 0, NULL, sizeof(xlat_walk_info)))                       \
    X(walker_buffered_info_index, XLAT_ERR_NOT_FOUND, NULL,                                     \
      xlat_walker_buffered_info(w->walker, SIZE_MAX, INFO, sizeof(xlat_walk_info)))                \
    X(walker_service_info_null_pool, XLAT_ERR_INVAL, NULL,                                         \
      xlat_walker_service_info(NULL, 0, INFO, sizeof(xlat_walk_info)))                             \
    X(walker_service_info_null_out, XLAT_ERR_INVAL, "out",                                         \
      xlat_walker_service_info(w->walker, 0, NULL, sizeof(xlat_walk_info)))                        \
    X(walker_service_info_no_walker, XLAT_ERR_INVAL, "walker",                                     \
      xlat_walker_service_info(w->walker, 2, INFO, sizeof(xlat_walk_info)))                        \
    X(walker_service_info_idle, XLAT_ERR_NOT_FOUND, NULL,                                          \
      xlat_walker_service_info(w->walker, 0, INFO, sizeof(xlat_walk_info)))                        \
    X(walker_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_walker_stats, xlat_walker_stats_get)) \
    X(walker_stats_get_nowhere, BI_DOC, NULL,                                                      \
      BI_STATS_NOWHERE(xlat_walker_stats, xlat_walker_stats_get, w->walker))                       \
    X(walker_tenant_stats_get_null_pool, XLAT_ERR_INVAL, NULL,                                     \
      xlat_walker_tenant_stats_get(NULL, 0, TENANT_STATS, sizeof(xlat_walker_tenant_stats)))       \
    X(walker_tenant_stats_get_null_out, XLAT_ERR_INVAL, "out",                                     \
      xlat_walker_tenant_stats_get(w->walker, 0, NULL, sizeof(xlat_walker_tenant_stats)))          \
    X(walker_tenant_stats_get_tenant, XLAT_ERR_INVAL, "tenant",                                    \
      xlat_walker_tenant_stats_get(w->walker, 1, TENANT_STATS, sizeof(xlat_walker_tenant_stats)))  \
    X(walker_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_walker_stats_reset(NULL)))               \
    X(gmmu_config_init_null, BI_DOC, NULL, BI_VOID(xlat_gmmu_config_init_sized(NULL, 64)))         \
    X(gmmu_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_gmmu_create(NULL, &w->gmmuc, &w->o_gmmu))   \
    X(gmmu_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_gmmu_create(w->ctx, NULL, &w->o_gmmu))     \
    X(gmmu_create_null_out, XLAT_ERR_INVAL, "out", xlat_gmmu_create(w->ctx, &w->gmmuc, NULL))      \
    X(gmmu_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", GMMU_CFG(struct_size, 0))         \
    X(gmmu_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                      \
      BI_NEWER(xlat_gmmu_config, w->gmmuc, xlat_gmmu_create, &w->o_gmmu))                          \
    X(gmmu_create_mode_99, XLAT_ERR_INVAL, "mode", GMMU_CFG(mode, (xlat_gmmu_mode)99))             \
    X(gmmu_create_route_99, XLAT_ERR_INVAL, "initial_route",                                       \
      GMMU_CFG(initial_route, (xlat_gmmu_routing)99))                                              \
    X(gmmu_create_overflow_99, XLAT_ERR_INVAL, "overflow",                                         \
      GMMU_CFG(overflow, (xlat_gmmu_overflow)99))                                                  \
    X(gmmu_create_null_walker, XLAT_ERR_INVAL, "walker", GMMU_CFG(walker, NULL))                   \
    X(gmmu_create_counter_bits_0, XLAT_ERR_INVAL, "counter_bits", GMMU_CFG(counter_bits, 0))       \
    X(gmmu_create_counter_bits_33, XLAT_ERR_INVAL, "counter_bits", GMMU_CFG(counter_bits, 33))     \
    X(gmmu_create_t2_above_t1, XLAT_ERR_INVAL, "t2", (w->gmmuc.t1 = 0.2, GMMU_CFG(t2, 0.8)))       \
    X(gmmu_create_epoch_0, XLAT_ERR_INVAL, "epoch_cycles",                                         \
      (w->gmmuc.mode = XLAT_GMMU_DYNAMIC, GMMU_CFG(epoch_cycles, 0)))                              \
    X(gmmu_create_ideal_no_oracle, XLAT_ERR_INVAL, "oracle", GMMU_CFG(mode, XLAT_GMMU_IDEAL))      \
    X(gmmu_create_huge, XLAT_ERR_NOMEM, "gmmu", GMMU_CFG(max_outstanding, UINT32_MAX))             \
    X(gmmu_destroy_null, XLAT_OK, NULL, xlat_gmmu_destroy(NULL))                                   \
    X(gmmu_set_iommu_null_gmmu, XLAT_ERR_INVAL, NULL, xlat_gmmu_set_iommu(NULL, FIXED_TARGET))     \
    X(gmmu_set_iommu_no_translate, XLAT_ERR_INVAL, "translate",                                    \
      xlat_gmmu_set_iommu(w->gmmu, &w->target))                                                    \
    X(gmmu_set_iommu_small_struct, XLAT_ERR_INVAL, "struct_size",                                  \
      (w->target = TEST_TARGET(fixed, w->fixed), w->target.struct_size = 1, xlat_gmmu_set_iommu(w->gmmu, &w->target)))         \
    X(gmmu_translate_null_gmmu, XLAT_ERR_INVAL, NULL,                                              \
      xlat_gmmu_translate(NULL, &w->req, bi_never_done, NULL))                                     \
    X(gmmu_translate_null_req, XLAT_ERR_INVAL, "req", xlat_gmmu_translate(w->gmmu, NULL, bi_never_done, NULL)) \
    X(gmmu_translate_null_done, XLAT_ERR_INVAL, "done", xlat_gmmu_translate(w->gmmu, &w->req, NULL, NULL)) \
    X(gmmu_translate_access_99, XLAT_ERR_INVAL, "access",                                          \
      xlat_gmmu_translate(w->gmmu, REQ(access, (xlat_access)99), bi_never_done, NULL))             \
    X(gmmu_get_target_null_gmmu, XLAT_ERR_INVAL, NULL, xlat_gmmu_get_target(NULL, &w->target))     \
    X(gmmu_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_gmmu_get_target(w->gmmu, NULL))        \
    X(gmmu_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                                \
      (w->target.struct_size = 0, xlat_gmmu_get_target(w->gmmu, &w->target)))                      \
    X(gmmu_route_null, BI_DOC, NULL, BI_IS(xlat_gmmu_route(NULL) == XLAT_GMMU_ROUTE_LOCAL))        \
    X(gmmu_counters_null, XLAT_ERR_INVAL, NULL, xlat_gmmu_counters(NULL, &w->u32, &w->u32b))       \
    X(gmmu_outstanding_null, BI_DOC, NULL, BI_IS(xlat_gmmu_outstanding(NULL) == 0))                \
    X(gmmu_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_gmmu_stats, xlat_gmmu_stats_get))      \
    X(gmmu_stats_get_nowhere, BI_DOC, NULL,                                                        \
      BI_STATS_NOWHERE(xlat_gmmu_stats, xlat_gmmu_stats_get, w->gmmu))                             \
    X(gmmu_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_gmmu_stats_reset(NULL)))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_unit_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
