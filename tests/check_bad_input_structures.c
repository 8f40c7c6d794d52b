/* Bad input of the untimed structures and the TLB (tlb.h, cuckoo.h, pwc.h):
 * one row per case, run by tests/check_bad_input.c. */
#include "bad_input_world.h"

static void bi_evict(void *user, xlat_tlb *tlb, const xlat_tlb_entry *victim)
{
    (void)user, (void)tlb, (void)victim;
}

static void bi_entry_fn(void *user, const xlat_tlb_entry *e)
{
    (void)user, (void)e;
}

#define L1 xlat_system_l1(w->sys, 0, 0)
#define ENTRY(field, value) (w->e.field = (value), &w->e)
#define REQ(field, value) (w->req.field = (value), &w->req)
#define TLB_CFG(field, value) (w->tlbc.field = (value), xlat_tlb_create(w->ctx, &w->tlbc, &w->o_tlb))
#define TLB_CFG2(f1, v1, f2, v2) (w->tlbc.f1 = (v1), TLB_CFG(f2, v2))
#define CF_CFG(field, value) (w->cfc.field = (value), xlat_cuckoo_create(w->ctx, &w->cfc, &w->o_cf))
#define PWC_CFG(field, value) (w->pwcc.field = (value), xlat_pwc_create(w->ctx, &w->pwcc, &w->o_pwc))
#define HIT (&(xlat_pwc_hit){0})

#define BI_CASES(X)                                                                                \
    X(tlb_config_init_null, BI_DOC, NULL, BI_VOID(xlat_tlb_config_init_sized(NULL, 64)))           \
    X(tlb_config_init_tiny, BI_DOC, NULL,                                                          \
      (w->tlbc.entries = 5, xlat_tlb_config_init_sized(&w->tlbc, 3), BI_IS(w->tlbc.entries == 5))) \
    X(tlb_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_tlb_create(NULL, &w->tlbc, &w->o_tlb))       \
    X(tlb_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_tlb_create(w->ctx, NULL, &w->o_tlb))        \
    X(tlb_create_null_out, XLAT_ERR_INVAL, "out", xlat_tlb_create(w->ctx, &w->tlbc, NULL))        \
    X(tlb_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", TLB_CFG(struct_size, 0))           \
    X(tlb_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                       \
      BI_NEWER(xlat_tlb_config, w->tlbc, xlat_tlb_create, &w->o_tlb))                              \
    X(tlb_create_ways_0, XLAT_ERR_INVAL, "ways", TLB_CFG(ways, 0))                                 \
    X(tlb_create_ways_not_dividing, XLAT_ERR_INVAL, "ways", TLB_CFG(ways, 3))                      \
    X(tlb_create_ways_above_entries, XLAT_ERR_INVAL, "ways", TLB_CFG(ways, 32))                    \
    X(tlb_create_repl_99, XLAT_ERR_INVAL, "repl", TLB_CFG(repl, (xlat_repl)99))                    \
    X(tlb_create_plru_3_ways, XLAT_ERR_INVAL, "ways",                                              \
      (w->tlbc.repl = XLAT_REPL_PLRU, TLB_CFG2(entries, 12, ways, 3)))                             \
    X(tlb_create_index_99, XLAT_ERR_INVAL, "index", TLB_CFG(index, (xlat_tlb_index)99))            \
    X(tlb_create_mshrs_0, XLAT_ERR_INVAL, "mshrs", TLB_CFG(mshrs, 0))                              \
    X(tlb_create_ports_0, XLAT_ERR_INVAL, "ports", TLB_CFG(ports, 0))                              \
    X(tlb_create_clock_den_0, XLAT_ERR_INVAL, "clock", TLB_CFG2(clock_num, 3, clock_den, 0))       \
    X(tlb_create_huge, XLAT_ERR_NOMEM, "tlb", TLB_CFG2(entries, UINT32_MAX, ways, UINT32_MAX))     \
    X(tlb_create_huge_sets, XLAT_ERR_NOMEM, "tlb", TLB_CFG2(entries, UINT32_MAX, ways, 1))         \
    X(tlb_destroy_null, XLAT_OK, NULL, xlat_tlb_destroy(NULL))                                     \
    X(tlb_lookup_null, XLAT_ERR_INVAL, NULL, xlat_tlb_lookup(NULL, BI_PASID, BI_VA(0), &w->e))     \
    X(tlb_probe_null, XLAT_ERR_INVAL, NULL, xlat_tlb_probe(NULL, BI_PASID, BI_VA(0), &w->e))       \
    X(tlb_probe_unmapped, XLAT_ERR_NOT_FOUND, NULL,                                                \
      xlat_tlb_probe(w->tlb, BI_PASID, BI_UNMAPPED, &w->e))                                        \
    X(tlb_probe_other_pasid, XLAT_ERR_NOT_FOUND, NULL,                                             \
      xlat_tlb_probe(w->tlb, UINT32_MAX, BI_VA(0), &w->e))                                         \
    X(tlb_insert_null_tlb, XLAT_ERR_INVAL, NULL, xlat_tlb_insert(NULL, &w->e, NULL))               \
    X(tlb_insert_null_entry, XLAT_ERR_INVAL, "entry", xlat_tlb_insert(w->tlb, NULL, NULL))             \
    X(tlb_insert_shift_11, XLAT_ERR_INVAL, "page_shift",                                           \
      xlat_tlb_insert(w->tlb, ENTRY(page_shift, 11), NULL))                                        \
    X(tlb_insert_shift_64, XLAT_ERR_INVAL, "page_shift",                                           \
      xlat_tlb_insert(w->tlb, ENTRY(page_shift, 64), NULL))                                        \
    X(tlb_invalidate_null, XLAT_ERR_INVAL, NULL, xlat_tlb_invalidate(NULL, BI_PASID, BI_VA(0)))    \
    X(tlb_invalidate_unmapped, 0, NULL, xlat_tlb_invalidate(w->tlb, BI_PASID, BI_UNMAPPED))        \
    X(tlb_invalidate_pasid_null, XLAT_ERR_INVAL, NULL, xlat_tlb_invalidate_pasid(NULL, BI_PASID))  \
    X(tlb_invalidate_pasid_unknown, 0, NULL, xlat_tlb_invalidate_pasid(w->tlb, UINT32_MAX))        \
    X(tlb_flush_null, XLAT_ERR_INVAL, NULL, xlat_tlb_flush(NULL))                                  \
    X(tlb_count_null, BI_DOC, NULL, BI_IS(xlat_tlb_count(NULL) == 0))                              \
    X(tlb_capacity_null, BI_DOC, NULL, BI_IS(xlat_tlb_capacity(NULL) == 0))                        \
    X(tlb_name_null, BI_DOC, NULL, BI_IS(strcmp(xlat_tlb_name(NULL), "") == 0))                    \
    X(tlb_memory_null, BI_DOC, NULL, BI_IS(xlat_tlb_memory(NULL) == 0))                            \
    X(tlb_sets_null, BI_DOC, NULL, BI_IS(xlat_tlb_sets(NULL) == 0))                                \
    X(tlb_mshrs_busy_null, BI_DOC, NULL, BI_IS(xlat_tlb_mshrs_busy(NULL) == 0))                    \
    X(tlb_set_foreach_null_tlb, XLAT_ERR_INVAL, NULL,                                              \
      xlat_tlb_set_foreach(NULL, 0, bi_entry_fn, NULL))                                            \
    X(tlb_set_foreach_null_fn, XLAT_ERR_INVAL, "fn", xlat_tlb_set_foreach(w->tlb, 0, NULL, NULL))  \
    X(tlb_set_foreach_set_range, XLAT_ERR_INVAL, "set",                                            \
      xlat_tlb_set_foreach(w->tlb, 4, bi_entry_fn, NULL))                                          \
    X(tlb_set_foreach_set_max, XLAT_ERR_INVAL, "set",                                              \
      xlat_tlb_set_foreach(w->tlb, UINT32_MAX, bi_entry_fn, NULL))                                 \
    X(tlb_set_evict_fn_null, BI_DOC, NULL, BI_VOID(xlat_tlb_set_evict_fn(NULL, bi_evict, NULL)))   \
    X(tlb_evict_listen_null_tlb, XLAT_ERR_INVAL, NULL, xlat_tlb_evict_listen(NULL, bi_evict, NULL)) \
    X(tlb_evict_listen_null_fn, XLAT_ERR_INVAL, "fn", xlat_tlb_evict_listen(w->tlb, NULL, NULL))   \
    X(tlb_evict_unlisten_null_tlb, XLAT_ERR_INVAL, NULL,                                           \
      xlat_tlb_evict_unlisten(NULL, bi_evict, NULL))                                               \
    X(tlb_evict_unlisten_null_fn, XLAT_ERR_INVAL, "fn", xlat_tlb_evict_unlisten(w->tlb, NULL, NULL)) \
    X(tlb_evict_unlisten_unknown, XLAT_ERR_NOT_FOUND, "listener",                                        \
      xlat_tlb_evict_unlisten(w->tlb, bi_evict, w))                                                \
    X(tlb_set_next_null_tlb, XLAT_ERR_INVAL, NULL, xlat_tlb_set_next(NULL, NULL))                  \
    X(tlb_set_next_no_translate, XLAT_ERR_INVAL, "translate", xlat_tlb_set_next(w->tlb, &w->target)) \
    X(tlb_set_next_small_struct, XLAT_ERR_INVAL, "struct_size",                                    \
      (w->target = TEST_TARGET(fixed, w->fixed), w->target.struct_size = 2,                        \
       xlat_tlb_set_next(w->tlb, &w->target)))                                                     \
    X(tlb_translate_null_tlb, XLAT_ERR_INVAL, NULL,                                                \
      xlat_tlb_translate(NULL, &w->req, bi_never_done, NULL))                                      \
    X(tlb_translate_null_req, XLAT_ERR_INVAL, "req", xlat_tlb_translate(L1, NULL, bi_never_done, NULL)) \
    X(tlb_translate_null_done, XLAT_ERR_INVAL, "done", xlat_tlb_translate(L1, &w->req, NULL, NULL)) \
    X(tlb_translate_access_99, XLAT_ERR_INVAL, "access",                                           \
      xlat_tlb_translate(L1, REQ(access, (xlat_access)99), bi_never_done, NULL))                   \
    X(tlb_translate_access_past_atomic, XLAT_ERR_INVAL, "access",                                  \
      xlat_tlb_translate(L1, REQ(access, XLAT_ACCESS_ATOMIC + 1), bi_never_done, NULL))            \
    X(tlb_translate_untimed, XLAT_ERR_STATE, "xlat_tlb_set_next",                                  \
      xlat_tlb_translate(w->tlb, &w->req, bi_never_done, NULL))                                    \
    X(tlb_get_target_null_tlb, XLAT_ERR_INVAL, NULL, xlat_tlb_get_target(NULL, &w->target))        \
    X(tlb_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_tlb_get_target(L1, NULL))               \
    X(tlb_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                                 \
      (w->target.struct_size = 0, xlat_tlb_get_target(L1, &w->target)))                            \
    X(tlb_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_tlb_stats, xlat_tlb_stats_get))         \
    X(tlb_stats_get_nowhere, BI_DOC, NULL, BI_STATS_NOWHERE(xlat_tlb_stats, xlat_tlb_stats_get, w->tlb)) \
    X(tlb_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_tlb_stats_reset(NULL)))                     \
    X(cuckoo_config_init_null, BI_DOC, NULL, BI_VOID(xlat_cuckoo_config_init_sized(NULL, 64)))     \
    X(cuckoo_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_cuckoo_create(NULL, &w->cfc, &w->o_cf))   \
    X(cuckoo_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_cuckoo_create(w->ctx, NULL, &w->o_cf))   \
    X(cuckoo_create_null_out, XLAT_ERR_INVAL, "out", xlat_cuckoo_create(w->ctx, &w->cfc, NULL))    \
    X(cuckoo_create_struct_size_1, XLAT_ERR_INVAL, "struct_size", CF_CFG(struct_size, 1))         \
    X(cuckoo_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                    \
      BI_NEWER(xlat_cuckoo_config, w->cfc, xlat_cuckoo_create, &w->o_cf))                          \
    X(cuckoo_create_capacity_0, XLAT_ERR_INVAL, "capacity", CF_CFG(capacity, 0))                   \
    X(cuckoo_create_fp_bits_3, XLAT_ERR_INVAL, "fp_bits", CF_CFG(fp_bits, 3))                      \
    X(cuckoo_create_fp_bits_33, XLAT_ERR_INVAL, "fp_bits", CF_CFG(fp_bits, 33))                    \
    X(cuckoo_create_bucket_0, XLAT_ERR_INVAL, "bucket_size", CF_CFG(bucket_size, 0))               \
    X(cuckoo_create_bucket_9, XLAT_ERR_INVAL, "bucket_size", CF_CFG(bucket_size, 9))               \
    X(cuckoo_create_kicks_0, XLAT_ERR_INVAL, "max_kicks", CF_CFG(max_kicks, 0))                    \
    X(cuckoo_create_huge, XLAT_ERR_NOMEM, "table",                                                \
      (w->cfc.fp_bits = 32, CF_CFG(capacity, UINT32_MAX)))                                         \
    X(cuckoo_create_huge_kicks, XLAT_ERR_NOMEM, "undo", CF_CFG(max_kicks, UINT32_MAX))           \
    X(cuckoo_create_buckets_past_2_32, XLAT_ERR_INVAL, "capacity",                                   \
      (w->cfc.bucket_size = 1, w->cfc.fp_bits = 4, CF_CFG(capacity, UINT32_MAX)))                  \
    X(cuckoo_destroy_null, XLAT_OK, NULL, xlat_cuckoo_destroy(NULL))                               \
    X(cuckoo_insert_null, XLAT_ERR_INVAL, NULL, xlat_cuckoo_insert(NULL, 1))                       \
    X(cuckoo_insert_unique_null, XLAT_ERR_INVAL, NULL, xlat_cuckoo_insert_unique(NULL, 1))         \
    X(cuckoo_insert_unique_present, XLAT_ERR_EXIST, NULL, xlat_cuckoo_insert_unique(w->cf, 0x22))  \
    X(cuckoo_contains_null, BI_DOC, NULL, BI_IS(!xlat_cuckoo_contains(NULL, 0x11)))                \
    X(cuckoo_remove_null, XLAT_ERR_INVAL, NULL, xlat_cuckoo_remove(NULL, 0x11))                    \
    X(cuckoo_remove_absent, XLAT_ERR_NOT_FOUND, NULL, xlat_cuckoo_remove(w->cf, 0xdead))           \
    X(cuckoo_count_null, BI_DOC, NULL, BI_IS(xlat_cuckoo_count(NULL) == 0))                        \
    X(cuckoo_slots_null, BI_DOC, NULL, BI_IS(xlat_cuckoo_slots(NULL) == 0))                        \
    X(cuckoo_fp_bits_null, BI_DOC, NULL, BI_IS(xlat_cuckoo_fp_bits(NULL) == 0))                    \
    X(cuckoo_memory_null, BI_DOC, NULL, BI_IS(xlat_cuckoo_memory(NULL) == 0))                      \
    X(cuckoo_digest_null, BI_DOC, NULL, BI_IS(xlat_cuckoo_digest(NULL) == 0))                      \
    X(cuckoo_clear_null, BI_DOC, NULL, BI_VOID(xlat_cuckoo_clear(NULL)))                           \
    X(pwc_config_init_null, BI_DOC, NULL, BI_VOID(xlat_pwc_config_init_sized(NULL, 64)))           \
    X(pwc_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_pwc_create(NULL, &w->pwcc, &w->o_pwc))       \
    X(pwc_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_pwc_create(w->ctx, NULL, &w->o_pwc))        \
    X(pwc_create_null_out, XLAT_ERR_INVAL, "out", xlat_pwc_create(w->ctx, &w->pwcc, NULL))         \
    X(pwc_create_struct_size_2, XLAT_ERR_INVAL, "struct_size", PWC_CFG(struct_size, 2))           \
    X(pwc_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                       \
      BI_NEWER(xlat_pwc_config, w->pwcc, xlat_pwc_create, &w->o_pwc))                              \
    X(pwc_create_org_99, XLAT_ERR_INVAL, "org", PWC_CFG(org, (xlat_pwc_org)99))                    \
    X(pwc_create_levels_0, XLAT_ERR_INVAL, "levels", PWC_CFG(levels, 0))                           \
    X(pwc_create_levels_99, XLAT_ERR_INVAL, "levels", PWC_CFG(levels, 99))                         \
    X(pwc_create_bits_0, XLAT_ERR_INVAL, "bits_per_level", PWC_CFG(bits_per_level, 0))             \
    X(pwc_create_bits_64, XLAT_ERR_INVAL, "bits_per_level", PWC_CFG(bits_per_level, 64))           \
    X(pwc_create_page_shift_99, XLAT_ERR_INVAL, "page_shift", PWC_CFG(page_shift, 99))             \
    X(pwc_create_ways_not_dividing, XLAT_ERR_INVAL, "ways",                                        \
      (w->pwcc.entries[2] = 16, PWC_CFG(ways[2], 3)))                                              \
    X(pwc_create_repl_99, XLAT_ERR_INVAL, "repl", PWC_CFG(repl, (xlat_repl)99))                    \
    X(pwc_create_huge, XLAT_ERR_NOMEM, "pwc",                                                      \
      (w->pwcc.entries[2] = UINT32_MAX, PWC_CFG(ways[2], UINT32_MAX)))                             \
    X(pwc_create_huge_levels, XLAT_ERR_NOMEM, "pwc",                                               \
      (w->pwcc.entries[2] = w->pwcc.entries[3] = w->pwcc.entries[4] = UINT32_MAX, PWC_CFG(ways[4], 0))) \
    X(pwc_create_huge_unified, XLAT_ERR_NOMEM, "pwc",                                              \
      (w->pwcc.org = XLAT_PWC_UNIFIED, w->pwcc.ways[0] = 0, PWC_CFG(entries[0], UINT32_MAX)))      \
    X(pwc_destroy_null, XLAT_OK, NULL, xlat_pwc_destroy(NULL))                                     \
    X(pwc_lookup_null, XLAT_ERR_INVAL, NULL, xlat_pwc_lookup(NULL, BI_PASID, BI_VA(0), HIT))       \
    X(pwc_probe_null, XLAT_ERR_INVAL, NULL, xlat_pwc_probe(NULL, BI_PASID, BI_VA(0), HIT))         \
    X(pwc_probe_unmapped, XLAT_ERR_NOT_FOUND, NULL, xlat_pwc_probe(w->pwc, BI_PASID, BI_UNMAPPED, HIT)) \
    X(pwc_fill_null, XLAT_ERR_INVAL, NULL, xlat_pwc_fill(NULL, BI_PASID, BI_VA(0), 2, 1))          \
    X(pwc_fill_level_1, XLAT_ERR_INVAL, "level", xlat_pwc_fill(w->pwc, BI_PASID, BI_VA(0), 1, 1))  \
    X(pwc_fill_level_5, XLAT_ERR_INVAL, "level", xlat_pwc_fill(w->pwc, BI_PASID, BI_VA(0), 5, 1))  \
    X(pwc_fill_level_max, XLAT_ERR_INVAL, "level",                                                 \
      xlat_pwc_fill(w->pwc, BI_PASID, BI_VA(0), UINT32_MAX, 1))                                    \
    X(pwc_invalidate_null, XLAT_ERR_INVAL, NULL, xlat_pwc_invalidate(NULL, BI_PASID, BI_VA(0)))    \
    X(pwc_invalidate_unmapped, 0, NULL, xlat_pwc_invalidate(w->pwc, BI_PASID, BI_UNMAPPED))        \
    X(pwc_invalidate_pasid_null, XLAT_ERR_INVAL, NULL, xlat_pwc_invalidate_pasid(NULL, BI_PASID))  \
    X(pwc_invalidate_pasid_unknown, 0, NULL, xlat_pwc_invalidate_pasid(w->pwc, UINT32_MAX))        \
    X(pwc_flush_null, XLAT_ERR_INVAL, NULL, xlat_pwc_flush(NULL))                                  \
    X(pwc_latency_null, BI_DOC, NULL, BI_IS(xlat_pwc_latency(NULL) == 0))                          \
    X(pwc_geometry_null, XLAT_ERR_INVAL, NULL, xlat_pwc_geometry(NULL, &w->u32, NULL, NULL))       \
    X(pwc_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_pwc_stats, xlat_pwc_stats_get))         \
    X(pwc_stats_get_nowhere, BI_DOC, NULL, BI_STATS_NOWHERE(xlat_pwc_stats, xlat_pwc_stats_get, w->pwc)) \
    X(pwc_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_pwc_stats_reset(NULL)))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_struct_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
