/* Bad input of Barre Chord's pieces (barre.h, barre_alloc.h, fbarre.h):
 * one row per case, run by tests/check_bad_input.c. */
#include "bad_input_world.h"

#define OBJ_VPN 0x100 /* the world's Barre object: PASID 2, pages 0x100..0x103 */
#define PEC_CFG(field, value) (w->pecc.field = (value), xlat_pec_buffer_create(w->ctx, &w->pecc, &w->o_pec))
#define BA_CFG(field, value) (w->bac.field = (value), xlat_barre_alloc_create(w->ctx, &w->bac, &w->o_ba))
#define OBJ(field, value) (w->obj.field = (value), &w->obj)
#define MAP(o) xlat_barre_alloc_map(w->ba, (o), w->pec, &w->pec_entry)
#define ENTRY_WITH(field, value) (w->pec_entry.field = (value), &w->pec_entry)
#define FB_CFG(field, value) (w->fbc.field = (value), xlat_fbarre_create(w->ctx, &w->fbc, &w->o_fb))
#define MESH_CFG(field, value)                                                                     \
    (w->meshc.field = (value), xlat_fbarre_mesh_create(w->ctx, &w->meshc, &w->o_mesh))
#define FIXED_TARGET (w->target = TEST_TARGET(fixed, w->fixed), &w->target)
#define PEC_OUT (&(xlat_pec_entry){0})
#define MIGRATION (&(xlat_barre_migration){0})
#define BASES ((const uint64_t[]){0xA000, 0xB000})
#define MSG_FROM(g) xlat_fbarre_msg_encode(&(xlat_fbarre_msg){.add = true, .sender = (g), .vpn = 0x300})

static void bi_deliver(void *user, uint32_t pasid, uint64_t msg)
{
    (void)user, (void)pasid, (void)msg;
}

static int bi_pec_source(void *user, uint32_t pasid, uint64_t vpn, xlat_pec_entry *out)
{
    (void)user, (void)pasid, (void)vpn, (void)out;
    return XLAT_ERR_NOT_FOUND;
}

#define BI_CASES(X)                                                                                \
    X(coal_encode_null, BI_DOC, NULL, BI_IS(xlat_coal_encode(~0ull, NULL, false) == (~0ull & ~(0x7ffull << 52)))) \
    X(coal_decode_null, BI_DOC, NULL, BI_VOID(xlat_coal_decode(~0ull, true, NULL)))                \
    X(pec_calc_null_entry, XLAT_ERR_INVAL, NULL,                                                   \
      xlat_pec_calc(NULL, BASES, OBJ_VPN, 0xA000, &w->coal, OBJ_VPN + 1, &w->u64))                 \
    X(pec_calc_null_out, XLAT_ERR_INVAL, NULL,                                                     \
      xlat_pec_calc(&w->pec_entry, BASES, OBJ_VPN, 0xA000, &w->coal, OBJ_VPN + 1, NULL))           \
    X(pec_calc_gran_0, XLAT_ERR_INVAL, NULL,                                                       \
      xlat_pec_calc(ENTRY_WITH(interlv_gran, 0), BASES, OBJ_VPN, 0xA000, &w->coal, OBJ_VPN + 1, &w->u64)) \
    X(pec_calc_positions_99, XLAT_ERR_INVAL, NULL,                                                 \
      xlat_pec_calc(ENTRY_WITH(positions, 99), BASES, OBJ_VPN, 0xA000, &w->coal, OBJ_VPN + 1, &w->u64)) \
    X(pec_calc_outside, XLAT_ERR_NOT_FOUND, NULL,                                                  \
      xlat_pec_calc(&w->pec_entry, BASES, OBJ_VPN, 0xA000, &w->coal, OBJ_VPN + 99, &w->u64))       \
    X(pec_buffer_config_init_null, BI_DOC, NULL, BI_VOID(xlat_pec_buffer_config_init_sized(NULL, 64))) \
    X(pec_buffer_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_pec_buffer_create(NULL, &w->pecc, &w->o_pec)) \
    X(pec_buffer_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_pec_buffer_create(w->ctx, NULL, &w->o_pec)) \
    X(pec_buffer_create_null_out, XLAT_ERR_INVAL, "out", xlat_pec_buffer_create(w->ctx, &w->pecc, NULL)) \
    X(pec_buffer_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", PEC_CFG(struct_size, 0))    \
    X(pec_buffer_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                \
      BI_NEWER(xlat_pec_buffer_config, w->pecc, xlat_pec_buffer_create, &w->o_pec))                \
    X(pec_buffer_create_entries_0, XLAT_ERR_INVAL, "entries", PEC_CFG(entries, 0))                 \
    X(pec_buffer_create_entries_1025, XLAT_ERR_INVAL, "entries", PEC_CFG(entries, 1025))           \
    X(pec_buffer_create_entries_max, XLAT_ERR_INVAL, "entries", PEC_CFG(entries, UINT32_MAX))      \
    X(pec_buffer_destroy_null, XLAT_OK, NULL, xlat_pec_buffer_destroy(NULL))                       \
    X(pec_buffer_insert_null_pec, XLAT_ERR_INVAL, NULL, xlat_pec_buffer_insert(NULL, &w->pec_entry)) \
    X(pec_buffer_insert_null_entry, XLAT_ERR_INVAL, "entry", xlat_pec_buffer_insert(w->pec, NULL)) \
    X(pec_buffer_insert_end_below_start, XLAT_ERR_INVAL, "end_vpn",                                \
      xlat_pec_buffer_insert(w->pec, ENTRY_WITH(end_vpn, OBJ_VPN - 1)))                            \
    X(pec_buffer_insert_gran_0, XLAT_ERR_INVAL, "interlv_gran",                                    \
      xlat_pec_buffer_insert(w->pec, ENTRY_WITH(interlv_gran, 0)))                                 \
    X(pec_buffer_insert_positions_99, XLAT_ERR_INVAL, "positions",                                 \
      xlat_pec_buffer_insert(w->pec, ENTRY_WITH(positions, 99)))                                   \
    X(pec_buffer_lookup_null, XLAT_ERR_INVAL, NULL, xlat_pec_buffer_lookup(NULL, 2, OBJ_VPN, PEC_OUT)) \
    X(pec_buffer_remove_null, XLAT_ERR_INVAL, NULL, xlat_pec_buffer_remove(NULL, 2, OBJ_VPN))      \
    X(pec_buffer_remove_absent, 0, NULL, xlat_pec_buffer_remove(w->pec, 2, 0x9999))                \
    X(pec_buffer_clear_null, XLAT_ERR_INVAL, NULL, xlat_pec_buffer_clear(NULL))                    \
    X(pec_buffer_count_null, BI_DOC, NULL, BI_IS(xlat_pec_buffer_count(NULL) == 0))                \
    X(pec_buffer_expanded_null, BI_DOC, NULL, BI_IS(!xlat_pec_buffer_expanded(NULL)))              \
    X(pec_buffer_stats_get_null, BI_DOC, NULL,                                                     \
      BI_STATS_NULL(xlat_pec_buffer_stats, xlat_pec_buffer_stats_get))                             \
    X(pec_buffer_stats_get_nowhere, BI_DOC, NULL,                                                  \
      BI_STATS_NOWHERE(xlat_pec_buffer_stats, xlat_pec_buffer_stats_get, w->pec))                  \
    X(barre_alloc_config_init_null, BI_DOC, NULL, BI_VOID(xlat_barre_alloc_config_init_sized(NULL, 64))) \
    X(barre_alloc_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_barre_alloc_create(NULL, &w->bac, &w->o_ba)) \
    X(barre_alloc_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_barre_alloc_create(w->ctx, NULL, &w->o_ba)) \
    X(barre_alloc_create_null_out, XLAT_ERR_INVAL, "out", xlat_barre_alloc_create(w->ctx, &w->bac, NULL)) \
    X(barre_alloc_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", BA_CFG(struct_size, 0))    \
    X(barre_alloc_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                               \
      BI_NEWER(xlat_barre_alloc_config, w->bac, xlat_barre_alloc_create, &w->o_ba))                \
    X(barre_alloc_create_null_mem, XLAT_ERR_INVAL, "mem", BA_CFG(mem, NULL))                       \
    X(barre_alloc_create_null_pt, XLAT_ERR_INVAL, "pt", BA_CFG(pt, NULL))                          \
    X(barre_alloc_create_chiplets_0, XLAT_ERR_INVAL, "chiplets", BA_CFG(chiplets, 0))              \
    X(barre_alloc_create_chiplets_9, XLAT_ERR_INVAL, "chiplets", BA_CFG(chiplets, 9))              \
    X(barre_alloc_create_chiplets_max, XLAT_ERR_INVAL, "chiplets", BA_CFG(chiplets, UINT32_MAX))   \
    X(barre_alloc_create_base_outside, XLAT_ERR_INVAL, "base_pfn", BA_CFG(base_pfn[1], 0x1))       \
    X(barre_alloc_create_max_merge_8, XLAT_ERR_INVAL, "chiplets",                                  \
      (w->bac.max_merge = 2, BA_CFG(chiplets, 8)))                                                 \
    X(barre_alloc_destroy_null, XLAT_OK, NULL, xlat_barre_alloc_destroy(NULL))                     \
    X(barre_object_init_null, BI_DOC, NULL, BI_VOID(xlat_barre_object_init_sized(NULL, 64)))       \
    X(barre_alloc_map_null_alloc, XLAT_ERR_INVAL, NULL,                                            \
      xlat_barre_alloc_map(NULL, &w->obj, w->pec, &w->pec_entry))                                  \
    X(barre_alloc_map_null_object, XLAT_ERR_INVAL, "object", MAP(NULL))                            \
    X(barre_alloc_map_struct_size_0, XLAT_ERR_INVAL, "struct_size", MAP(OBJ(struct_size, 0)))      \
    X(barre_alloc_map_pages_0, XLAT_ERR_INVAL, "pages", MAP(OBJ(pages, 0)))                        \
    X(barre_alloc_map_pages_wrap, XLAT_ERR_INVAL, "pages", MAP(OBJ(pages, UINT64_MAX)))            \
    X(barre_alloc_map_placement_99, XLAT_ERR_INVAL, "placement",                                   \
      MAP(OBJ(placement, (xlat_barre_placement)99)))                                               \
    X(barre_alloc_map_too_big, XLAT_ERR_FULL, "chiplet", MAP(OBJ(pages, 100000)))                   \
    X(barre_alloc_map_exists, XLAT_ERR_EXIST, "mapped",                                            \
      (w->obj.pasid = 2, MAP(OBJ(start_vpn, OBJ_VPN + 2))))                                        \
    X(barre_alloc_unmap_null_alloc, XLAT_ERR_INVAL, NULL,                                          \
      xlat_barre_alloc_unmap(NULL, &w->pec_entry, w->pec))                                         \
    X(barre_alloc_unmap_null_entry, XLAT_ERR_INVAL, "object", xlat_barre_alloc_unmap(w->ba, NULL, w->pec)) \
    X(barre_alloc_unmap_reversed, XLAT_ERR_INVAL, "end_vpn",                                       \
      xlat_barre_alloc_unmap(w->ba, ENTRY_WITH(end_vpn, 0), w->pec))                               \
    X(barre_alloc_migrate_null_alloc, XLAT_ERR_INVAL, NULL,                                        \
      xlat_barre_alloc_migrate(NULL, &w->pec_entry, OBJ_VPN, 1, MIGRATION))                        \
    X(barre_alloc_migrate_null_entry, XLAT_ERR_INVAL, "object",                                         \
      xlat_barre_alloc_migrate(w->ba, NULL, OBJ_VPN, 1, MIGRATION))                                \
    X(barre_alloc_migrate_vpn_outside, XLAT_ERR_INVAL, "page",                                     \
      xlat_barre_alloc_migrate(w->ba, &w->pec_entry, OBJ_VPN + 99, 1, MIGRATION))                  \
    X(barre_alloc_migrate_to_range, XLAT_ERR_INVAL, "chiplet",                                     \
      xlat_barre_alloc_migrate(w->ba, &w->pec_entry, OBJ_VPN, 2, MIGRATION))                       \
    X(barre_alloc_migrate_to_max, XLAT_ERR_INVAL, "chiplet",                                       \
      xlat_barre_alloc_migrate(w->ba, &w->pec_entry, OBJ_VPN, UINT32_MAX, MIGRATION))              \
    X(barre_alloc_expanded_null, BI_DOC, NULL, BI_IS(!xlat_barre_alloc_expanded(NULL)))            \
    X(barre_alloc_stats_get_null, BI_DOC, NULL,                                                    \
      BI_STATS_NULL(xlat_barre_alloc_stats, xlat_barre_alloc_stats_get))                           \
    X(barre_alloc_stats_get_nowhere, BI_DOC, NULL,                                                 \
      BI_STATS_NOWHERE(xlat_barre_alloc_stats, xlat_barre_alloc_stats_get, w->ba))                 \
    X(fbarre_config_init_null, BI_DOC, NULL, BI_VOID(xlat_fbarre_config_init_sized(NULL, 64)))     \
    X(fbarre_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_fbarre_create(NULL, &w->fbc, &w->o_fb))   \
    X(fbarre_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_fbarre_create(w->ctx, NULL, &w->o_fb))   \
    X(fbarre_create_null_out, XLAT_ERR_INVAL, "out", xlat_fbarre_create(w->ctx, &w->fbc, NULL))    \
    X(fbarre_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", FB_CFG(struct_size, 0))         \
    X(fbarre_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                    \
      BI_NEWER(xlat_fbarre_config, w->fbc, xlat_fbarre_create, &w->o_fb))                          \
    X(fbarre_create_chiplets_1, XLAT_ERR_INVAL, "chiplets", FB_CFG(chiplets, 1))                   \
    X(fbarre_create_chiplets_9, XLAT_ERR_INVAL, "chiplets", FB_CFG(chiplets, 9))                   \
    X(fbarre_create_chiplet_range, XLAT_ERR_INVAL, "chiplet", FB_CFG(chiplet, 2))                  \
    X(fbarre_create_rows_3, XLAT_ERR_INVAL, "filter_rows", FB_CFG(filter_rows, 3))                 \
    X(fbarre_create_rows_0, XLAT_ERR_INVAL, "filter_rows", FB_CFG(filter_rows, 0))                 \
    X(fbarre_create_ways_0, XLAT_ERR_INVAL, "filter_ways", FB_CFG(filter_ways, 0))                 \
    X(fbarre_create_ways_9, XLAT_ERR_INVAL, "filter_ways", FB_CFG(filter_ways, 9))                 \
    X(fbarre_create_fp_bits_3, XLAT_ERR_INVAL, "fp_bits", FB_CFG(fp_bits, 3))                      \
    X(fbarre_create_fp_bits_33, XLAT_ERR_INVAL, "fp_bits", FB_CFG(fp_bits, 33))                    \
    X(fbarre_create_msgs_per_cycle_0, XLAT_ERR_INVAL, "msgs_per_cycle", FB_CFG(msgs_per_cycle, 0)) \
    X(fbarre_create_drop_prob_2, XLAT_ERR_INVAL, "drop_prob", FB_CFG(drop_prob, 2.0))              \
    X(fbarre_create_drop_prob_negative, XLAT_ERR_INVAL, "drop_prob", FB_CFG(drop_prob, -0.5))      \
    X(fbarre_create_max_outstanding_0, XLAT_ERR_INVAL, "max_outstanding", FB_CFG(max_outstanding, 0)) \
    X(fbarre_create_peer_slots_0, XLAT_ERR_INVAL, "peer_slots", FB_CFG(peer_slots, 0))             \
    X(fbarre_create_rows_2_31, XLAT_ERR_INVAL, "filter_rows", FB_CFG(filter_rows, 1u << 31))       \
    X(fbarre_create_huge_outstanding, XLAT_ERR_NOMEM, "fbarre", FB_CFG(max_outstanding, UINT32_MAX)) \
    X(fbarre_create_huge_queue, XLAT_ERR_INVAL, "msg_queue", FB_CFG(msg_queue, UINT32_MAX))           \
    X(fbarre_create_huge_peer_slots, XLAT_ERR_NOMEM, "fbarre", FB_CFG(peer_slots, UINT32_MAX))     \
    X(fbarre_create_pec_0, XLAT_ERR_INVAL, "pec_entries", FB_CFG(pec_entries, 0))                  \
    X(fbarre_create_huge_pec, XLAT_ERR_INVAL, "pec_entries", FB_CFG(pec_entries, UINT32_MAX))      \
    X(fbarre_mesh_create_huge, XLAT_ERR_NOMEM, "mesh",                                           \
      (w->fbc.max_outstanding = UINT32_MAX, MESH_CFG(chiplets, 8)))                                \
    X(fbarre_destroy_null, XLAT_OK, NULL, xlat_fbarre_destroy(NULL))                               \
    X(fbarre_attach_l2_null, XLAT_ERR_INVAL, NULL, xlat_fbarre_attach_l2(NULL, w->tlb))            \
    X(fbarre_set_next_null_fb, XLAT_ERR_INVAL, NULL, xlat_fbarre_set_next(NULL, FIXED_TARGET))     \
    X(fbarre_set_next_no_translate, XLAT_ERR_INVAL, "translate", xlat_fbarre_set_next(w->fb, &w->target)) \
    X(fbarre_set_next_small_struct, XLAT_ERR_INVAL, "struct_size",                                 \
      (w->target = TEST_TARGET(fixed, w->fixed), w->target.struct_size = 1,                        \
       xlat_fbarre_set_next(w->fb, &w->target)))                                                   \
    X(fbarre_set_peer_null_fb, XLAT_ERR_INVAL, NULL,                                               \
      xlat_fbarre_set_peer(NULL, 1, FIXED_TARGET, bi_deliver, NULL))                               \
    X(fbarre_set_peer_self, XLAT_ERR_INVAL, "peer",                                                \
      xlat_fbarre_set_peer(w->fb, 0, FIXED_TARGET, bi_deliver, NULL))                              \
    X(fbarre_set_peer_range, XLAT_ERR_INVAL, "peer",                                               \
      xlat_fbarre_set_peer(w->fb, 2, FIXED_TARGET, bi_deliver, NULL))                              \
    X(fbarre_set_peer_max, XLAT_ERR_INVAL, "peer",                                                 \
      xlat_fbarre_set_peer(w->fb, UINT32_MAX, FIXED_TARGET, bi_deliver, NULL))                     \
    X(fbarre_set_peer_no_translate, XLAT_ERR_INVAL, "translate",                                   \
      xlat_fbarre_set_peer(w->fb, 1, &w->target, bi_deliver, NULL))                                \
    X(fbarre_set_pec_source_null, XLAT_ERR_INVAL, NULL, xlat_fbarre_set_pec_source(NULL, bi_pec_source, NULL)) \
    X(fbarre_pec_from_buffer_null, XLAT_ERR_INVAL, NULL, xlat_fbarre_pec_from_buffer(NULL, 2, OBJ_VPN, PEC_OUT)) \
    X(fbarre_get_target_null_fb, XLAT_ERR_INVAL, NULL, xlat_fbarre_get_target(NULL, &w->target))   \
    X(fbarre_get_target_null_out, XLAT_ERR_INVAL, "out", xlat_fbarre_get_target(w->fb, NULL))      \
    X(fbarre_get_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                              \
      (w->target.struct_size = 0, xlat_fbarre_get_target(w->fb, &w->target)))                      \
    X(fbarre_get_peer_target_null_fb, XLAT_ERR_INVAL, NULL,                                        \
      xlat_fbarre_get_peer_target(NULL, &w->target))                                               \
    X(fbarre_get_peer_target_null_out, XLAT_ERR_INVAL, "out", xlat_fbarre_get_peer_target(w->fb, NULL)) \
    X(fbarre_get_peer_target_struct_size_0, XLAT_ERR_INVAL, "struct_size",                         \
      (w->target.struct_size = 0, xlat_fbarre_get_peer_target(w->fb, &w->target)))                 \
    X(fbarre_l2_inserted_null_fb, XLAT_ERR_INVAL, NULL, xlat_fbarre_l2_inserted(NULL, &w->e))      \
    X(fbarre_l2_inserted_null_entry, XLAT_ERR_INVAL, "entry", xlat_fbarre_l2_inserted(w->fb, NULL)) \
    X(fbarre_l2_removed_null_fb, XLAT_ERR_INVAL, NULL, xlat_fbarre_l2_removed(NULL, &w->e))        \
    X(fbarre_l2_removed_null_entry, XLAT_ERR_INVAL, "entry", xlat_fbarre_l2_removed(w->fb, NULL))  \
    X(fbarre_receive_null, BI_DOC, NULL, BI_VOID(xlat_fbarre_receive(NULL, 2, MSG_FROM(1))))       \
    X(fbarre_receive_from_self, BI_DOC, NULL, BI_VOID(xlat_fbarre_receive(w->fb, 2, MSG_FROM(0)))) \
    X(fbarre_receive_from_beyond, BI_DOC, NULL, BI_VOID(xlat_fbarre_receive(w->fb, 2, MSG_FROM(7)))) \
    X(fbarre_shootdown_null, XLAT_ERR_INVAL, NULL, xlat_fbarre_shootdown(NULL))                    \
    X(fbarre_filter_contains_range, BI_DOC, NULL,                                                  \
      BI_IS(!xlat_fbarre_filter_contains(NULL, 0, 2, OBJ_VPN) &&                                   \
            !xlat_fbarre_filter_contains(w->fb, 2, 2, OBJ_VPN) &&                                  \
            !xlat_fbarre_filter_contains(w->fb, UINT32_MAX, 2, OBJ_VPN)))                          \
    X(fbarre_filter_count_range, BI_DOC, NULL,                                                     \
      BI_IS(xlat_fbarre_filter_count(NULL, 0) == 0 && xlat_fbarre_filter_count(w->fb, 2) == 0 &&   \
            xlat_fbarre_filter_count(w->fb, UINT32_MAX) == 0))                                     \
    X(fbarre_pec_lookup_null, XLAT_ERR_INVAL, NULL, xlat_fbarre_pec_lookup(NULL, 2, OBJ_VPN, PEC_OUT)) \
    X(fbarre_msg_encode_null, BI_DOC, NULL, BI_IS(xlat_fbarre_msg_encode(NULL) == 0))              \
    X(fbarre_msg_decode_null, BI_DOC, NULL, BI_VOID(xlat_fbarre_msg_decode(~0ull, NULL)))          \
    X(fbarre_stats_get_null, BI_DOC, NULL, BI_STATS_NULL(xlat_fbarre_stats, xlat_fbarre_stats_get)) \
    X(fbarre_stats_get_nowhere, BI_DOC, NULL,                                                      \
      BI_STATS_NOWHERE(xlat_fbarre_stats, xlat_fbarre_stats_get, w->fb))                           \
    X(fbarre_stats_reset_null, BI_DOC, NULL, BI_VOID(xlat_fbarre_stats_reset(NULL)))               \
    X(fbarre_mesh_config_init_null, BI_DOC, NULL, BI_VOID(xlat_fbarre_mesh_config_init_sized(NULL, 64))) \
    X(fbarre_mesh_create_null_ctx, XLAT_ERR_INVAL, NULL,                                           \
      xlat_fbarre_mesh_create(NULL, &w->meshc, &w->o_mesh))                                        \
    X(fbarre_mesh_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_fbarre_mesh_create(w->ctx, NULL, &w->o_mesh)) \
    X(fbarre_mesh_create_null_out, XLAT_ERR_INVAL, "out", xlat_fbarre_mesh_create(w->ctx, &w->meshc, NULL)) \
    X(fbarre_mesh_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", MESH_CFG(struct_size, 0))  \
    X(fbarre_mesh_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                               \
      BI_NEWER(xlat_fbarre_mesh_config, w->meshc, xlat_fbarre_mesh_create, &w->o_mesh))            \
    X(fbarre_mesh_create_chiplets_1, XLAT_ERR_INVAL, "chiplets", MESH_CFG(chiplets, 1))            \
    X(fbarre_mesh_create_chiplets_max, XLAT_ERR_INVAL, "chiplets", MESH_CFG(chiplets, UINT32_MAX)) \
    X(fbarre_mesh_create_bad_chiplet, XLAT_ERR_INVAL, "fp_bits",                                   \
      (w->fbc.fp_bits = 99, MESH_CFG(chiplets, 2)))                                                \
    X(fbarre_mesh_destroy_null, XLAT_OK, NULL, xlat_fbarre_mesh_destroy(NULL))                     \
    X(fbarre_mesh_chiplet_range, BI_DOC, NULL,                                                     \
      BI_IS(!xlat_fbarre_mesh_chiplet(NULL, 0) && !xlat_fbarre_mesh_chiplet(w->mesh, 2) &&         \
            !xlat_fbarre_mesh_chiplet(w->mesh, UINT32_MAX)))                                       \
    X(fbarre_mesh_shootdown_null, XLAT_ERR_INVAL, NULL, xlat_fbarre_mesh_shootdown(NULL))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_barre_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
