/* Bad input of the IOMMU and of whole systems (iommu.h, system.h and the
 * IOMMU's experimental.h calls): one row per case, run by
 * tests/check_bad_input.c. */
#include "bad_input_world.h"
#include "xlat/experimental.h"

#define REQ(field, value) (w->req.field = (value), &w->req)
#define ENTRY(field, value) (w->e.field = (value), &w->e)
#define IOMMU_CFG(field, value)                                                                    \
    (w->iommuc.field = (value), xlat_iommu_create(w->ctx, &w->iommuc, &w->o_iommu))
#define SYS_CFG(field, value) (w->sysc.field = (value), xlat_system_create(w->ctx, &w->sysc, &w->o_sys))
#define PORT_SIZE(size) (w->port.struct_size = (size), &w->port)
#define L2(g) xlat_system_l2(w->sys, (g))
#define OBJ_VPN 0x100 /* the page of the world's Barre object */
#define MIGRATION (&(xlat_barre_migration){0})

#define BI_CASES(X)                                                                                \
    X(iommu_config_init_null, BI_DOC, NULL, BI_VOID(xlat_iommu_config_init_sized(NULL, 64)))       \
    X(iommu_walker_config_init_null, BI_DOC, NULL,                                                 \
      BI_VOID(xlat_iommu_walker_config_init_sized(NULL, 64)))                                      \
    X(iommu_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_iommu_create(NULL, &w->iommuc, &w->o_iommu)) \
    X(iommu_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_iommu_create(w->ctx, NULL, &w->o_iommu))  \
    X(iommu_create_null_out, XLAT_ERR_INVAL, "out", xlat_iommu_create(w->ctx, &w->iommuc, NULL))   \
    X(iommu_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", IOMMU_CFG(struct_size, 0))       \
    X(iommu_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                     \
      BI_NEWER(xlat_iommu_config, w->iommuc, xlat_iommu_create, &w->o_iommu))                      \
    X(iommu_create_gpus_0, XLAT_ERR_INVAL, "gpus", IOMMU_CFG(gpus, 0))                             \
    X(iommu_create_gpus_1025, XLAT_ERR_INVAL, "gpus", IOMMU_CFG(gpus, 1025))                       \
    X(iommu_create_null_walk, XLAT_ERR_INVAL, "walk", IOMMU_CFG(walk, NULL))                       \
    X(iommu_create_walk_null_pt, XLAT_ERR_INVAL, "pt",                                             \
      (w->iommu_walkc.pt = NULL, IOMMU_CFG(gpus, 1)))                                              \
    X(iommu_create_walk_struct_size_0, XLAT_ERR_INVAL, "struct_size",                              \
      (w->iommu_walkc.struct_size = 0, IOMMU_CFG(gpus, 1)))                                        \
    X(iommu_create_inclusion_99, XLAT_ERR_INVAL, "inclusion", IOMMU_CFG(inclusion, (xlat_incl)99)) \
    X(iommu_create_tlb_ways_not_dividing, XLAT_ERR_INVAL, "ways", IOMMU_CFG(tlb_ways, 3))          \
    X(iommu_create_spill_rx_99, XLAT_ERR_INVAL, "spill_rx",                                        \
      (w->iommuc.inclusion = XLAT_INCL_LEAST, IOMMU_CFG(spill_rx, (xlat_spill_rx)99)))             \
    X(iommu_create_tracker_fp_bits_99, XLAT_ERR_INVAL, "fp_bits",                                  \
      (w->iommuc.inclusion = XLAT_INCL_LEAST, IOMMU_CFG(tracker_fp_bits, 99)))                     \
    X(iommu_create_buffer_0, XLAT_ERR_INVAL, "buffer_entries", IOMMU_CFG(buffer_entries, 0))       \
    X(iommu_create_huge_tlb, XLAT_ERR_NOMEM, "iommu",                                              \
      (w->iommuc.tlb_ways = UINT32_MAX, IOMMU_CFG(tlb_entries, UINT32_MAX)))                       \
    X(iommu_create_huge_buffer, XLAT_ERR_NOMEM, "iommu", IOMMU_CFG(buffer_entries, UINT32_MAX))    \
    X(iommu_create_huge_tracker, XLAT_ERR_NOMEM, "iommu",                                          \
      (w->iommuc.inclusion = XLAT_INCL_LEAST, IOMMU_CFG(tracker_entries, UINT32_MAX)))             \
    X(iommu_create_huge_tlb2, XLAT_ERR_NOMEM, "iommu",                                             \
      (w->iommuc.tlb2_ways = UINT32_MAX, IOMMU_CFG(tlb2_entries, UINT32_MAX)))                     \
    X(iommu_create_huge_fault_batch, XLAT_ERR_NOMEM, "iommu", IOMMU_CFG(fault_batch, UINT32_MAX))  \
    X(iommu_destroy_null, XLAT_OK, NULL, xlat_iommu_destroy(NULL))                                 \
    X(iommu_attach_l2_null_iommu, XLAT_ERR_INVAL, NULL, xlat_iommu_attach_l2(NULL, 0, w->tlb))     \
    X(iommu_attach_l2_null_l2, XLAT_ERR_INVAL, "l2", xlat_iommu_attach_l2(w->iommu, 0, NULL))      \
    X(iommu_attach_l2_gpu_range, XLAT_ERR_INVAL, "gpu", xlat_iommu_attach_l2(w->iommu, BI_GPUS, w->tlb)) \
    X(iommu_attach_l2_gpu_max, XLAT_ERR_INVAL, "gpu", xlat_iommu_attach_l2(w->iommu, UINT32_MAX, w->tlb)) \
    X(iommu_attach_l2_port_null_iommu, XLAT_ERR_INVAL, NULL,                                       \
      xlat_iommu_attach_l2_port(NULL, 0, &w->port))                                                \
    X(iommu_attach_l2_port_null_port, XLAT_ERR_INVAL, "port", xlat_iommu_attach_l2_port(w->iommu, 0, NULL)) \
    X(iommu_attach_l2_port_gpu_range, XLAT_ERR_INVAL, "gpu",                                       \
      xlat_iommu_attach_l2_port(w->iommu, BI_GPUS, &w->port))                                      \
    X(iommu_attach_l2_port_struct_size_0, XLAT_ERR_INVAL, "struct_size",                           \
      xlat_iommu_attach_l2_port(w->iommu, 0, PORT_SIZE(0)))                                        \
    X(iommu_l2_port_null_iommu, XLAT_ERR_INVAL, NULL, xlat_iommu_l2_port(NULL, 0, &w->port))       \
    X(iommu_l2_port_null_out, XLAT_ERR_INVAL, "out", xlat_iommu_l2_port(w->iommu, 0, NULL))        \
    X(iommu_l2_port_gpu_range, XLAT_ERR_INVAL, "gpu", xlat_iommu_l2_port(w->iommu, BI_GPUS, &w->port)) \
    X(iommu_l2_port_struct_size_0, XLAT_ERR_INVAL, "struct_size",                                  \
      xlat_iommu_l2_port(w->iommu, 0, PORT_SIZE(0)))                                               \
    X(iommu_l2_victim_null_iommu, XLAT_ERR_INVAL, NULL, xlat_iommu_l2_victim(NULL, 0, &w->e))      \
    X(iommu_l2_victim_null_victim, XLAT_ERR_INVAL, "victim", xlat_iommu_l2_victim(w->iommu, 0, NULL)) \
    X(iommu_l2_victim_gpu_range, XLAT_ERR_INVAL, "gpu", xlat_iommu_l2_victim(w->iommu, BI_GPUS, &w->e)) \
    X(iommu_translate_null_iommu, XLAT_ERR_INVAL, NULL,                                            \
      xlat_iommu_translate(NULL, &w->req, bi_never_done, NULL))                                    \
    X(iommu_translate_null_req, XLAT_ERR_INVAL, "req",                                             \
      xlat_iommu_translate(w->iommu, NULL, bi_never_done, NULL))                                   \
    X(iommu_translate_null_done, XLAT_ERR_INVAL, "done", xlat_iommu_translate(w->iommu, &w->req, NULL, NULL)) \
    X(iommu_translate_gpu_range, XLAT_ERR_INVAL, "gpu",                                            \
      xlat_iommu_translate(w->iommu, REQ(gpu, BI_GPUS), bi_never_done, NULL))                      \
    X(iommu_translate_access_99, XLAT_ERR_INVAL, "access",                                         \
      xlat_iommu_translate(w->iommu, REQ(access, (xlat_access)99), bi_never_done, NULL))           \
    X(iommu_get_target_null_iommu, XLAT_ERR_INVAL, NULL, xlat_iommu_get_target(NULL, &w->target))  \
    X(iommu_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_iommu_get_target(w->iommu, NULL))     \
    X(iommu_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                               \
      (w->target.struct_size = 0, xlat_iommu_get_target(w->iommu, &w->target)))                    \
    X(iommu_fault_done_null, XLAT_ERR_INVAL, NULL, xlat_iommu_fault_done(NULL, 1, XLAT_OK))        \
    X(iommu_fault_done_unknown, XLAT_ERR_NOT_FOUND, "token", xlat_iommu_fault_done(w->iommu, 777, XLAT_OK)) \
    X(iommu_flush_null, XLAT_ERR_INVAL, NULL, xlat_iommu_flush(NULL))                              \
    X(iommu_invalidate_null, XLAT_ERR_INVAL, NULL, xlat_iommu_invalidate(NULL, BI_PASID, BI_VA(0))) \
    X(iommu_invalidate_unmapped, 0, NULL, xlat_iommu_invalidate(w->iommu, BI_PASID, BI_UNMAPPED))  \
    X(iommu_tlb_null, BI_DOC, NULL, BI_IS(xlat_iommu_tlb(NULL) == NULL))                           \
    X(iommu_walker_null, BI_DOC, NULL, BI_IS(xlat_iommu_walker(NULL) == NULL))                     \
    X(iommu_eviction_counter_null, BI_DOC, NULL,                                                   \
      BI_IS(xlat_iommu_eviction_counter(NULL, 0) == 0 &&                                           \
            xlat_iommu_eviction_counter(w->iommu, UINT32_MAX) == 0))                               \
    X(iommu_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_iommu_stats, xlat_iommu_stats_get))   \
    X(iommu_stats_get_nowhere, BI_DOC, NULL,                                                       \
      BI_STATS_NOWHERE(xlat_iommu_stats, xlat_iommu_stats_get, w->iommu))                          \
    X(iommu_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_iommu_stats_reset(NULL)))                 \
    X(iommu_preload_null_iommu, XLAT_ERR_INVAL, NULL, xlat_iommu_preload(NULL, 0, &w->e))          \
    X(iommu_preload_null_entry, XLAT_ERR_INVAL, "entry", xlat_iommu_preload(w->iommu, 0, NULL))    \
    X(iommu_preload_source_range, XLAT_ERR_INVAL, "source", xlat_iommu_preload(w->iommu, BI_GPUS, &w->e)) \
    X(iommu_preload_shift_11, XLAT_ERR_INVAL, "page_shift",                                        \
      xlat_iommu_preload(w->iommu, 0, ENTRY(page_shift, 11)))                                      \
    X(iommu_preload_l2_null_iommu, XLAT_ERR_INVAL, NULL, xlat_iommu_preload_l2(NULL, 0, &w->e))    \
    X(iommu_preload_l2_null_entry, XLAT_ERR_INVAL, "entry", xlat_iommu_preload_l2(w->iommu, 0, NULL)) \
    X(iommu_preload_l2_gpu_range, XLAT_ERR_INVAL, "gpu",                                           \
      xlat_iommu_preload_l2(w->iommu, BI_GPUS, &w->e))                                             \
    X(iommu_preload_l2_shift_64, XLAT_ERR_INVAL, "page_shift",                                     \
      xlat_iommu_preload_l2(w->iommu, 0, ENTRY(page_shift, 64)))                                   \
    X(iommu_tracked_null, BI_DOC, NULL,                                                            \
      BI_IS(!xlat_iommu_tracked(NULL, 0, BI_PASID, BI_VA(1)) &&                                    \
            !xlat_iommu_tracked(w->iommu, UINT32_MAX, BI_PASID, BI_VA(1))))                        \
    X(system_config_init_null, BI_DOC, NULL, BI_VOID(xlat_system_config_init_sized(NULL, 64)))     \
    X(system_l1_config_init_null, BI_DOC, NULL, BI_VOID(xlat_system_l1_config_init_sized(NULL, 64))) \
    X(system_l2_config_init_null, BI_DOC, NULL, BI_VOID(xlat_system_l2_config_init_sized(NULL, 64))) \
    X(system_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_system_create(NULL, &w->sysc, &w->o_sys)) \
    X(system_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_system_create(w->ctx, NULL, &w->o_sys))  \
    X(system_create_null_out, XLAT_ERR_INVAL, "out", xlat_system_create(w->ctx, &w->sysc, NULL))   \
    X(system_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", SYS_CFG(struct_size, 0))        \
    X(system_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                    \
      BI_NEWER(xlat_system_config, w->sysc, xlat_system_create, &w->o_sys))                        \
    X(system_create_null_iommu, XLAT_ERR_INVAL, "iommu", SYS_CFG(iommu, NULL))                     \
    X(system_create_gpus_0, XLAT_ERR_INVAL, "gpus", SYS_CFG(gpus, 0))                              \
    X(system_create_gpus_1025, XLAT_ERR_INVAL, "gpus", SYS_CFG(gpus, 1025))                        \
    X(system_create_cus_0, XLAT_ERR_INVAL, "cus", SYS_CFG(cus, 0))                                 \
    X(system_create_cus_max, XLAT_ERR_INVAL, "cus", SYS_CFG(cus, UINT32_MAX))                      \
    X(system_create_l1_ways_0, XLAT_ERR_INVAL, "ways",                                             \
      (w->tlbc.ways = 0, SYS_CFG(l1, &w->tlbc)))                                                   \
    X(system_create_l2_struct_size_0, XLAT_ERR_INVAL, "struct_size",                               \
      (w->tlbc.struct_size = 0, SYS_CFG(l2, &w->tlbc)))                                            \
    X(system_create_gmmu_no_tables, XLAT_ERR_INVAL, "local_pt", SYS_CFG(gmmu, true))               \
    X(system_create_fbarre_shared_l2, XLAT_ERR_INVAL, "shared_l2",                                 \
      (w->sysc.shared_l2 = true, SYS_CFG(fbarre, &w->fbc)))                                        \
    X(system_create_shared_l2_ring, XLAT_ERR_INVAL, "shared_l2",                                  \
      (w->sysc.shared_l2 = true, SYS_CFG(probe_ring, true)))                                       \
    X(system_create_huge_l1, XLAT_ERR_NOMEM, "l1",                                                 \
      (w->tlbc.entries = UINT32_MAX, w->tlbc.ways = UINT32_MAX, SYS_CFG(l1, &w->tlbc)))            \
    X(system_create_1024_by_1024, XLAT_ERR_NOMEM, "l1",                                            \
      (w->tlbc.entries = w->tlbc.ways = 1u << 18, w->sysc.l1 = &w->tlbc, w->sysc.gpus = 1024,      \
       SYS_CFG(cus, 1024)))                                                                        \
    X(system_create_huge_l1_mshrs, XLAT_ERR_NOMEM, "l1",                                           \
      (w->tlbc.mshrs = UINT32_MAX, SYS_CFG(l1, &w->tlbc)))                                         \
    X(system_create_huge_l2_hits, XLAT_ERR_NOMEM, "l2",                                            \
      (w->tlbc.hits_in_flight = UINT32_MAX, SYS_CFG(l2, &w->tlbc)))                                \
    X(system_destroy_null, XLAT_OK, NULL, xlat_system_destroy(NULL))                               \
    X(system_translate_null_sys, XLAT_ERR_INVAL, NULL,                                             \
      xlat_system_translate(NULL, &w->req, bi_never_done, NULL))                                   \
    X(system_translate_null_req, XLAT_ERR_INVAL, "req",                                            \
      xlat_system_translate(w->sys, NULL, bi_never_done, NULL))                                    \
    X(system_translate_null_done, XLAT_ERR_INVAL, "done", xlat_system_translate(w->sys, &w->req, NULL, NULL)) \
    X(system_translate_gpu_range, XLAT_ERR_INVAL, "gpu",                                           \
      xlat_system_translate(w->sys, REQ(gpu, BI_GPUS), bi_never_done, NULL))                       \
    X(system_translate_cu_range, XLAT_ERR_INVAL, "cu",                                             \
      xlat_system_translate(w->sys, REQ(cu, 1), bi_never_done, NULL))                              \
    X(system_translate_access_99, XLAT_ERR_INVAL, "access",                                        \
      xlat_system_translate(w->sys, REQ(access, (xlat_access)99), bi_never_done, NULL))            \
    X(system_invalidate_null, XLAT_ERR_INVAL, NULL, xlat_system_invalidate(NULL, BI_PASID, BI_VA(0))) \
    X(system_invalidate_unmapped, 0, NULL, xlat_system_invalidate(w->sys, BI_PASID, BI_UNMAPPED))  \
    X(system_flush_gpu_null, XLAT_ERR_INVAL, NULL, xlat_system_flush_gpu(NULL, 0))                 \
    X(system_flush_gpu_range, XLAT_ERR_INVAL, "gpu", xlat_system_flush_gpu(w->sys, BI_GPUS))       \
    X(system_flush_gpu_max, XLAT_ERR_INVAL, "gpu", xlat_system_flush_gpu(w->sys, UINT32_MAX))      \
    X(system_flush_null, XLAT_ERR_INVAL, NULL, xlat_system_flush(NULL))                            \
    X(system_barre_migrate_null_sys, XLAT_ERR_INVAL, NULL,                                         \
      xlat_system_barre_migrate(NULL, w->ba, &w->pec_entry, OBJ_VPN, 1, MIGRATION))                \
    X(system_barre_migrate_null_alloc, XLAT_ERR_INVAL, "alloc",                                    \
      xlat_system_barre_migrate(w->sys, NULL, &w->pec_entry, OBJ_VPN, 1, MIGRATION))               \
    X(system_barre_migrate_to_range, XLAT_ERR_INVAL, "to",                                         \
      xlat_system_barre_migrate(w->sys, w->ba, &w->pec_entry, OBJ_VPN, 9, MIGRATION))              \
    X(system_barre_migrate_vpn_outside, XLAT_ERR_INVAL, "page",                                     \
      xlat_system_barre_migrate(w->sys, w->ba, &w->pec_entry, OBJ_VPN + 99, 1, MIGRATION))         \
    X(system_l1_range, BI_DOC, NULL,                                                               \
      BI_IS(!xlat_system_l1(NULL, 0, 0) && !xlat_system_l1(w->sys, BI_GPUS, 0) &&                  \
            !xlat_system_l1(w->sys, 0, 1)))                                                        \
    X(system_l2_range, BI_DOC, NULL, BI_IS(!xlat_system_l2(NULL, 0) && !L2(BI_GPUS)))              \
    X(system_fbarre_none, BI_DOC, NULL,                                                            \
      BI_IS(!xlat_system_fbarre(NULL, 0) && !xlat_system_fbarre(w->sys, 0)))                       \
    X(system_gmmu_none, BI_DOC, NULL, BI_IS(!xlat_system_gmmu(NULL, 0) && !xlat_system_gmmu(w->sys, 0))) \
    X(system_link_range, BI_DOC, NULL,                                                             \
      BI_IS(!xlat_system_link(NULL, 0) && !xlat_system_link(w->sys, BI_GPUS)))                     \
    X(system_iommu_null, BI_DOC, NULL, BI_IS(!xlat_system_iommu(NULL)))                            \
    X(system_gpus_null, BI_DOC, NULL, BI_IS(xlat_system_gpus(NULL) == 0))                          \
    X(system_gpu_memory_range, BI_DOC, NULL,                                                       \
      BI_IS(xlat_system_gpu_memory(NULL, 0) == 0 && xlat_system_gpu_memory(w->sys, BI_GPUS) == 0)) \
    X(system_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_system_stats, xlat_system_stats_get)) \
    X(system_stats_get_nowhere, BI_DOC, NULL,                                                      \
      BI_STATS_NOWHERE(xlat_system_stats, xlat_system_stats_get, w->sys))                          \
    X(system_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_system_stats_reset(NULL)))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_iommu_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
