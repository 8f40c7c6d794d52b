/* Bad input of physical memory and page tables (physmem.h, pagetable.h):
 * one row per case, run by tests/check_bad_input.c. */
#include "bad_input_world.h"

#define MEM_CFG(field, value) (w->memc.field = (value), xlat_physmem_create(w->ctx, &w->memc, &w->o_mem))
#define REGION(i, field, value) (w->region[i].field = (value), MEM_CFG(regions, 2))
#define PT_CFG(field, value) (w->ptc.field = (value), xlat_pagetable_create(w->ctx, &w->ptc, &w->o_pt))
#define MAP(va, pfn, shift, perm) xlat_pagetable_map(w->pt, BI_PASID, (va), (pfn), (shift), (perm))
#define RW (XLAT_PERM_R | XLAT_PERM_W)
#define TRACE (&(xlat_walk_trace){0})
#define NODE_PFN 0x40000ull /* the first frame of the node region: the root */

#define BI_CASES(X)                                                                                \
    X(physmem_config_init_null, BI_DOC, NULL, BI_VOID(xlat_physmem_config_init_sized(NULL, 64)))   \
    X(physmem_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_physmem_create(NULL, &w->memc, &w->o_mem)) \
    X(physmem_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_physmem_create(w->ctx, NULL, &w->o_mem)) \
    X(physmem_create_null_out, XLAT_ERR_INVAL, "out", xlat_physmem_create(w->ctx, &w->memc, NULL))  \
    X(physmem_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", MEM_CFG(struct_size, 0))       \
    X(physmem_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                   \
      BI_NEWER(xlat_physmem_config, w->memc, xlat_physmem_create, &w->o_mem))                      \
    X(physmem_create_regions_0, XLAT_ERR_INVAL, "regions", MEM_CFG(regions, 0))                    \
    X(physmem_create_regions_max, XLAT_ERR_INVAL, "regions", MEM_CFG(regions, UINT32_MAX))         \
    X(physmem_create_frames_0, XLAT_ERR_INVAL, "frames", REGION(1, frames, 0))                     \
    X(physmem_create_region_wraps, XLAT_ERR_INVAL, "frames", REGION(1, frames, UINT64_MAX))        \
    X(physmem_create_regions_overlap, XLAT_ERR_INVAL, "overlap", REGION(1, base_pfn, 0x900010))    \
    X(physmem_create_placement_99, XLAT_ERR_INVAL, "placement", MEM_CFG(placement, (xlat_placement)99)) \
    X(physmem_create_chunk_0, XLAT_ERR_INVAL, "chunk_pages",                                       \
      (w->memc.placement = XLAT_PLACE_CHUNKED, MEM_CFG(chunk_pages, 0)))                           \
    X(physmem_create_beyond_2_40, XLAT_ERR_INVAL, "region", REGION(1, frames, 1ull << 40))        \
    X(physmem_create_huge, XLAT_ERR_NOMEM, "region", REGION(1, frames, 1ull << 39))               \
    X(physmem_destroy_null, XLAT_OK, NULL, xlat_physmem_destroy(NULL))                             \
    X(physmem_alloc_null_mem, XLAT_ERR_INVAL, NULL, xlat_physmem_alloc(NULL, 0, 1, 1, &w->u64))   \
    X(physmem_alloc_null_pfn, XLAT_ERR_INVAL, "pfn", xlat_physmem_alloc(w->mem, 0, 1, 1, NULL))    \
    X(physmem_alloc_region_99, XLAT_ERR_INVAL, "region", xlat_physmem_alloc(w->mem, 99, 1, 1, &w->u64)) \
    X(physmem_alloc_frames_0, XLAT_ERR_INVAL, "frames", xlat_physmem_alloc(w->mem, 0, 0, 1, &w->u64)) \
    X(physmem_alloc_align_3, XLAT_ERR_INVAL, "align", xlat_physmem_alloc(w->mem, 0, 1, 3, &w->u64)) \
    X(physmem_alloc_align_0, XLAT_ERR_INVAL, "align", xlat_physmem_alloc(w->mem, 0, 1, 0, &w->u64)) \
    X(physmem_alloc_frames_max, XLAT_ERR_FULL, "frames",                                               \
      xlat_physmem_alloc(w->mem, 0, UINT64_MAX, 1, &w->u64))                                       \
    X(physmem_take_null, XLAT_ERR_INVAL, NULL, xlat_physmem_take(NULL, 0xA000, 1))                 \
    X(physmem_take_frames_0, XLAT_ERR_INVAL, "frames", xlat_physmem_take(w->mem, 0xA000, 0))       \
    X(physmem_take_outside, XLAT_ERR_NOT_FOUND, "frames", xlat_physmem_take(w->mem, 0x1, 1))           \
    X(physmem_take_wraps, XLAT_ERR_NOT_FOUND, "frames", xlat_physmem_take(w->mem, 0xA000, UINT64_MAX)) \
    X(physmem_take_taken, XLAT_ERR_EXIST, "frames", xlat_physmem_take(w->mem, NODE_PFN, 1))            \
    X(physmem_free_null, XLAT_ERR_INVAL, NULL, xlat_physmem_free(NULL, 0xA000, 1))                 \
    X(physmem_free_frames_0, XLAT_ERR_INVAL, "frames", xlat_physmem_free(w->mem, 0xA000, 0))       \
    X(physmem_free_free, XLAT_ERR_NOT_FOUND, "frames", xlat_physmem_free(w->mem, 0xA0F0, 1))           \
    X(physmem_free_wraps, XLAT_ERR_NOT_FOUND, "frames", xlat_physmem_free(w->mem, NODE_PFN, UINT64_MAX)) \
    X(physmem_place_null_mem, XLAT_ERR_INVAL, NULL, xlat_physmem_place(NULL, 1, 0, 1, &w->u64))   \
    X(physmem_place_null_pfn, XLAT_ERR_INVAL, "pfn", xlat_physmem_place(w->mem, 1, 0, 1, NULL))    \
    X(physmem_place_requester_99, XLAT_ERR_INVAL, "requester",                                     \
      xlat_physmem_place(w->mem, 1, 99, 1, &w->u64))                                               \
    X(physmem_place_frames_0, XLAT_ERR_INVAL, "frames", xlat_physmem_place(w->mem, 1, 0, 0, &w->u64)) \
    X(physmem_region_of_null_mem, XLAT_ERR_INVAL, NULL, xlat_physmem_region_of(NULL, 0xA000, &w->u32)) \
    X(physmem_region_of_null_out, XLAT_ERR_INVAL, "region", xlat_physmem_region_of(w->mem, 0xA000, NULL)) \
    X(physmem_region_of_outside, XLAT_ERR_NOT_FOUND, NULL, xlat_physmem_region_of(w->mem, 1, &w->u32)) \
    X(physmem_free_frames_null, BI_DOC, NULL,                                                      \
      BI_IS(xlat_physmem_free_frames(NULL, 0) == 0 && xlat_physmem_free_frames(w->mem, 99) == 0))  \
    X(physmem_regions_null, BI_DOC, NULL, BI_IS(xlat_physmem_regions(NULL) == 0))                  \
    X(physmem_memory_null, BI_DOC, NULL, BI_IS(xlat_physmem_memory(NULL) == 0))                    \
    X(pagetable_config_init_null, BI_DOC, NULL, BI_VOID(xlat_pagetable_config_init_sized(NULL, 64))) \
    X(pagetable_create_null_ctx, XLAT_ERR_INVAL, NULL, xlat_pagetable_create(NULL, &w->ptc, &w->o_pt)) \
    X(pagetable_create_null_cfg, XLAT_ERR_INVAL, "cfg", xlat_pagetable_create(w->ctx, NULL, &w->o_pt)) \
    X(pagetable_create_null_out, XLAT_ERR_INVAL, "out", xlat_pagetable_create(w->ctx, &w->ptc, NULL)) \
    X(pagetable_create_struct_size_0, XLAT_ERR_INVAL, "struct_size", PT_CFG(struct_size, 0))      \
    X(pagetable_create_newer, XLAT_ERR_UNSUPPORTED, "struct_size",                                 \
      BI_NEWER(xlat_pagetable_config, w->ptc, xlat_pagetable_create, &w->o_pt))                    \
    X(pagetable_create_null_mem, XLAT_ERR_INVAL, "mem", PT_CFG(mem, NULL))                         \
    X(pagetable_create_levels_1, XLAT_ERR_INVAL, "levels", PT_CFG(levels, 1))                      \
    X(pagetable_create_levels_7, XLAT_ERR_INVAL, "levels", PT_CFG(levels, 7))                      \
    X(pagetable_create_node_region_99, XLAT_ERR_INVAL, "node_region", PT_CFG(node_region, 99))     \
    X(pagetable_destroy_null, XLAT_OK, NULL, xlat_pagetable_destroy(NULL))                         \
    X(pagetable_map_null, XLAT_ERR_INVAL, NULL,                                                    \
      xlat_pagetable_map(NULL, BI_PASID, BI_UNMAPPED, 1, 12, RW))                                  \
    X(pagetable_map_misaligned, XLAT_ERR_INVAL, "vaddr", MAP(BI_UNMAPPED + 8, 1, 12, RW))          \
    X(pagetable_map_shift_13, XLAT_ERR_INVAL, "page_shift", MAP(BI_UNMAPPED, 1, 13, RW))           \
    X(pagetable_map_shift_255, XLAT_ERR_INVAL, "page_shift", MAP(BI_UNMAPPED, 1, 255, RW))         \
    X(pagetable_map_perm_bits, XLAT_ERR_INVAL, "perm", MAP(BI_UNMAPPED, 1, 12, 0xf0))              \
    X(pagetable_map_pfn_wide, XLAT_ERR_INVAL, "pfn", MAP(BI_UNMAPPED, 1ull << 41, 12, RW))         \
    X(pagetable_map_noncanonical, XLAT_ERR_INVAL, "vaddr", MAP(1ull << 48, 1, 12, RW))             \
    X(pagetable_map_exists, XLAT_ERR_EXIST, "vaddr", MAP(BI_VA(2), 1, 12, RW))                     \
    X(pagetable_map_huge_over_small, XLAT_ERR_EXIST, "vaddr", MAP(BI_VA(0), 0x200, 21, RW))        \
    X(pagetable_unmap_null, XLAT_ERR_INVAL, NULL, xlat_pagetable_unmap(NULL, BI_PASID, BI_VA(0)))  \
    X(pagetable_unmap_unmapped, XLAT_ERR_NOT_FOUND, "vaddr",                                       \
      xlat_pagetable_unmap(w->pt, BI_PASID, BI_UNMAPPED))                                          \
    X(pagetable_unmap_other_pasid, XLAT_ERR_NOT_FOUND, "vaddr",                                    \
      xlat_pagetable_unmap(w->pt, UINT32_MAX, BI_VA(0)))                                           \
    X(pagetable_unmap_inside, XLAT_ERR_INVAL, "vaddr",                                             \
      xlat_pagetable_unmap(w->pt, BI_PASID, BI_VA(0) + 0x10))                                      \
    X(pagetable_map_range_null, XLAT_ERR_INVAL, NULL,                                              \
      xlat_pagetable_map_range(NULL, BI_PASID, BI_UNMAPPED, 4096, 0, RW))                          \
    X(pagetable_map_range_bytes_0, XLAT_ERR_INVAL, "bytes",                                        \
      xlat_pagetable_map_range(w->pt, BI_PASID, BI_UNMAPPED, 0, 0, RW))                            \
    X(pagetable_map_range_wraps, XLAT_ERR_INVAL, "bytes",                                          \
      xlat_pagetable_map_range(w->pt, BI_PASID, BI_UNMAPPED, UINT64_MAX, 0, RW))                   \
    X(pagetable_map_range_requester_99, XLAT_ERR_INVAL, "requester",                               \
      xlat_pagetable_map_range(w->pt, BI_PASID, BI_UNMAPPED, 4096, 99, RW))                        \
    X(pagetable_map_range_perm_bits, XLAT_ERR_INVAL, "perm",                                       \
      xlat_pagetable_map_range(w->pt, BI_PASID, BI_UNMAPPED, 4096, 0, 0xf0))                       \
    X(pagetable_map_range_region_fills, XLAT_ERR_FULL, "page",                                     \
      xlat_pagetable_map_range(w->pt, BI_PASID, 1ull << 32, 1ull << 30, 0, RW))                    \
    X(pagetable_map_range_absurd, XLAT_ERR_FULL, "page",                                           \
      xlat_pagetable_map_range(w->pt, BI_PASID, 1ull << 32, 1ull << 46, 0, RW))                    \
    X(pagetable_map_range_overlap, XLAT_ERR_EXIST, "vaddr",                                        \
      xlat_pagetable_map_range(w->pt, BI_PASID, BI_VA(6), 4 * 4096, 0, RW))                        \
    X(pagetable_protect_null, XLAT_ERR_INVAL, NULL,                                                \
      xlat_pagetable_protect(NULL, BI_PASID, BI_VA(0), XLAT_PERM_R))                               \
    X(pagetable_protect_perm_bits, XLAT_ERR_INVAL, "perm",                                         \
      xlat_pagetable_protect(w->pt, BI_PASID, BI_VA(0), 0x80))                                     \
    X(pagetable_protect_unmapped, XLAT_ERR_NOT_FOUND, "vaddr",                                     \
      xlat_pagetable_protect(w->pt, BI_PASID, BI_UNMAPPED, XLAT_PERM_R))                           \
    X(pagetable_set_avail_high_null, XLAT_ERR_INVAL, NULL,                                         \
      xlat_pagetable_set_avail_high(NULL, BI_PASID, BI_VA(0), 1))                                  \
    X(pagetable_set_avail_high_unmapped, XLAT_ERR_NOT_FOUND, "vaddr",                              \
      xlat_pagetable_set_avail_high(w->pt, BI_PASID, BI_UNMAPPED, 1))                              \
    X(pagetable_lookup_null, XLAT_ERR_INVAL, NULL,                                                 \
      xlat_pagetable_lookup(NULL, BI_PASID, BI_VA(0), &w->e))                                      \
    X(pagetable_lookup_unmapped, XLAT_ERR_FAULT, NULL,                                             \
      xlat_pagetable_lookup(w->pt, BI_PASID, BI_UNMAPPED, &w->e))                                  \
    X(pagetable_walk_null_pt, XLAT_ERR_INVAL, NULL, xlat_pagetable_walk(NULL, BI_PASID, BI_VA(0), TRACE)) \
    X(pagetable_walk_null_out, XLAT_ERR_INVAL, "out", xlat_pagetable_walk(w->pt, BI_PASID, BI_VA(0), NULL)) \
    X(pagetable_walk_unmapped, XLAT_ERR_FAULT, NULL,                                               \
      xlat_pagetable_walk(w->pt, BI_PASID, BI_UNMAPPED, TRACE))                                    \
    X(pagetable_root_null_pt, XLAT_ERR_INVAL, NULL, xlat_pagetable_root(NULL, BI_PASID, &w->u64))  \
    X(pagetable_root_null_out, XLAT_ERR_INVAL, "root_pfn", xlat_pagetable_root(w->pt, BI_PASID, NULL)) \
    X(pagetable_root_unknown_pasid, XLAT_ERR_NOT_FOUND, NULL,                                   \
      xlat_pagetable_root(w->pt, UINT32_MAX, &w->u64))                                             \
    X(pagetable_read_null_pt, XLAT_ERR_INVAL, NULL, xlat_pagetable_read(NULL, 0, &w->u64))         \
    X(pagetable_read_null_value, XLAT_ERR_INVAL, "value",                                          \
      xlat_pagetable_read(w->pt, NODE_PFN << 12, NULL))                                            \
    X(pagetable_read_misaligned, XLAT_ERR_INVAL, "paddr",                                          \
      xlat_pagetable_read(w->pt, (NODE_PFN << 12) + 3, &w->u64))                                   \
    X(pagetable_read_outside, XLAT_ERR_NOT_FOUND, "paddr", xlat_pagetable_read(w->pt, 0x1000, &w->u64)) \
    X(pagetable_write_null, XLAT_ERR_INVAL, NULL, xlat_pagetable_write(NULL, NODE_PFN << 12, 0))    \
    X(pagetable_write_misaligned, XLAT_ERR_INVAL, "paddr",                                         \
      xlat_pagetable_write(w->pt, (NODE_PFN << 12) + 4, 0))                                        \
    X(pagetable_write_outside, XLAT_ERR_NOT_FOUND, "paddr", xlat_pagetable_write(w->pt, 0x1000, 0)) \
    X(pagetable_write_node_pointer, XLAT_ERR_PERM, "node",                                         \
      xlat_pagetable_write(w->pt, NODE_PFN << 12, 0))                                              \
    X(pagetable_index_bad_level, BI_DOC, NULL,                                                     \
      BI_IS(xlat_pagetable_index(w->pt, ~0ull, 0) == 0 && xlat_pagetable_index(w->pt, ~0ull, 5) == 0 && \
            xlat_pagetable_index(NULL, ~0ull, 1) == 0))                                            \
    X(pagetable_level_shift_bad_level, BI_DOC, NULL,                                               \
      BI_IS(xlat_pagetable_level_shift(w->pt, 0) == 0 &&                                           \
            xlat_pagetable_level_shift(w->pt, UINT32_MAX) == 0 &&                                  \
            xlat_pagetable_level_shift(NULL, 1) == 0))                                             \
    X(pagetable_levels_null, BI_DOC, NULL, BI_IS(xlat_pagetable_levels(NULL) == 0))                \
    X(pagetable_stats_get_null, BI_DOC, NULL,                                                      \
      BI_STATS_NULL(xlat_pagetable_stats, xlat_pagetable_stats_get))                               \
    X(pagetable_stats_get_nowhere, BI_DOC, NULL,                                                   \
      BI_STATS_NOWHERE(xlat_pagetable_stats, xlat_pagetable_stats_get, w->pt))

BI_CASES(BI_DEFINE)

static const bi_case bi_rows[] = {BI_CASES(BI_ROW)};

const bi_case *bi_mem_cases(size_t *n)
{
    *n = sizeof(bi_rows) / sizeof(bi_rows[0]);
    return bi_rows;
}
