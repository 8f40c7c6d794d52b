/**
 * @file physmem.h
 * @brief Simulated physical memory: regions of frames, a frame allocator per
 *        region and the placement policy that backs virtual pages.
 */
#ifndef XLAT_PHYSMEM_H
#define XLAT_PHYSMEM_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup physmem Physical memory
 * @brief Regions (e.g. one per GPU) with their base frame numbers, a frame
 *        allocator each, and a placement policy.
 *
 * @code
 * xlat_region_config r[2] = {{.base_pfn = 0x100000, .frames = 262144},   // 1 GiB each
 *                            {.base_pfn = 0x200000, .frames = 262144}};
 * xlat_physmem_config pc;
 * xlat_physmem_config_init(&pc);
 * pc.regions = 2; pc.region = r; pc.placement = XLAT_PLACE_ROUND_ROBIN;
 * xlat_physmem *mem;
 * xlat_physmem_create(ctx, &pc, &mem);
 * uint64_t pfn;
 * xlat_physmem_place(mem, vpn, 0, 1, &pfn);   // a 4 KiB frame for virtual page vpn
 * @endcode
 *
 * Frames are counted in units of the base page (4 KiB). Running out of
 * frames is ::XLAT_ERR_FULL, never a crash; a failing call changes nothing.
 * @{
 */

/** @brief Most regions a physical memory may have. */
#define XLAT_PHYSMEM_MAX_REGIONS 64

/** @brief Which region backs a virtual page. */
typedef enum xlat_placement {
    XLAT_PLACE_LOCAL = 0,       /**< First touch: the requester's region. */
    XLAT_PLACE_ROUND_ROBIN = 1, /**< Page i goes to region i mod regions (by virtual page number). */
    XLAT_PLACE_CHUNKED = 2      /**< `chunk_pages` consecutive virtual pages per region, in turn. */
} xlat_placement;

/** @brief One region of frames. */
typedef struct xlat_region_config {
    uint64_t base_pfn; /**< first frame number of the region */
    uint64_t frames;   /**< frames in the region (>= 1) */
} xlat_region_config;

/** @brief Configuration; fill with xlat_physmem_config_init(). */
typedef struct xlat_physmem_config {
    uint32_t struct_size;               /**< sizeof(xlat_physmem_config), set by init. */
    uint32_t regions;                   /**< number of regions, 1..::XLAT_PHYSMEM_MAX_REGIONS */
    const xlat_region_config *region;   /**< `regions` descriptions (copied); NULL: one default region */
    xlat_placement placement;           /**< default ::XLAT_PLACE_LOCAL */
    uint64_t chunk_pages;               /**< for ::XLAT_PLACE_CHUNKED (default 512) */
} xlat_physmem_config;

/**
 * @brief Smallest `struct_size` xlat_physmem_create() accepts: the size of the first
 *        released ::xlat_physmem_config (its members through `chunk_pages`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_PHYSMEM_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_physmem_config, chunk_pages)

/**
 * @brief xlat_physmem_config_init() for a caller whose ::xlat_physmem_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_physmem_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_physmem_config_init_sized(xlat_physmem_config *cfg, size_t size);

/**
 * @brief Defaults: one region of 2^20 frames (4 GiB) at frame 0x100, local placement.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_physmem_config_init(xlat_physmem_config *cfg)
{
    xlat_physmem_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a physical memory on `ctx`.
 * @param ctx the context (allocator, error messages).
 * @param cfg the configuration (copied).
 * @param out receives the handle on success.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, 0 or too many regions, a NULL
 *         `region` with more than one region, an empty region, overlapping
 *         regions, frames at or beyond 2^40 (52-bit physical addresses), an
 *         unknown placement, chunk_pages 0 with chunked placement.
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat.
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_physmem_create(xlat_ctx *ctx, const xlat_physmem_config *cfg, xlat_physmem **out);

/**
 * @brief Destroy; NULL does nothing. The page tables using it go first.
 * @param mem the memory, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a page table configured with it still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_physmem_destroy(xlat_physmem *mem);

/**
 * @brief Allocate `frames` contiguous free frames of `region`, the first a
 *        multiple of `align` frames (1 for a 4 KiB page, 512 for 2 MiB).
 *
 * Runs are first fit: the lowest suitable run. Single frames (`frames` and
 * `align` both 1) are next fit: the search starts after the last single
 * frame handed out and wraps around, so a fresh region hands out its
 * frames in ascending order.
 * @param mem the memory.
 * @param region region index.
 * @param frames how many frames (>= 1).
 * @param align alignment in frames, a power of two (>= 1).
 * @param pfn receives the first frame number.
 * @retval XLAT_OK
 * @retval XLAT_ERR_FULL no such run of free frames in the region
 * @retval XLAT_ERR_INVAL bad region, frames 0, align not a power of two, NULL
 */
XLAT_API int xlat_physmem_alloc(xlat_physmem *mem, uint32_t region, uint64_t frames,
                                uint64_t align, uint64_t *pfn);

/**
 * @brief Take the explicit frames [pfn, pfn + frames) ("this frame"). The
 *        range may run on from one region into an adjacent one.
 * @param mem the memory.
 * @param pfn the first frame number.
 * @param frames how many frames (>= 1).
 * @retval XLAT_OK
 * @retval XLAT_ERR_EXIST some of them are taken already
 * @retval XLAT_ERR_NOT_FOUND some of them lie outside every region (checked first)
 * @retval XLAT_ERR_INVAL NULL or frames 0
 */
XLAT_API int xlat_physmem_take(xlat_physmem *mem, uint64_t pfn, uint64_t frames);

/**
 * @brief Return frames [pfn, pfn + frames) to their region.
 * @param mem the memory.
 * @param pfn the first frame number.
 * @param frames how many frames (>= 1).
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND some of them are not allocated or lie outside
 *         every region (nothing is freed)
 * @retval XLAT_ERR_INVAL NULL or frames 0
 */
XLAT_API int xlat_physmem_free(xlat_physmem *mem, uint64_t pfn, uint64_t frames);

/**
 * @brief Back virtual page `vpn` (in units of the page being placed) with
 *        frames chosen by the placement policy.
 * @param mem the memory.
 * @param vpn virtual page number (for round-robin and chunked placement).
 * @param requester region of the requester (for local placement).
 * @param frames frames of the page: 1 (4 KiB), 512 (2 MiB), 262144 (1 GiB); aligned to itself.
 * @param pfn receives the first frame.
 * @retval XLAT_OK
 * @retval XLAT_ERR_FULL the chosen region has no room
 * @retval XLAT_ERR_INVAL NULL, a bad requester (checked under every policy),
 *         frames 0 or not a power of two
 */
XLAT_API int xlat_physmem_place(xlat_physmem *mem, uint64_t vpn, uint32_t requester,
                                uint64_t frames, uint64_t *pfn);

/**
 * @brief The region that holds frame `pfn`.
 * @param mem the memory.
 * @param pfn a frame number.
 * @param region receives the region index on success.
 * @retval XLAT_OK and `*region`
 * @retval XLAT_ERR_NOT_FOUND outside every region
 * @retval XLAT_ERR_INVAL NULL `mem` or `region`
 */
XLAT_API int xlat_physmem_region_of(const xlat_physmem *mem, uint64_t pfn, uint32_t *region);

/**
 * @brief Free frames left in a region.
 * @param mem the memory, or NULL.
 * @param region region index.
 * @return the number of free frames; 0 for a bad region or NULL.
 */
XLAT_API uint64_t xlat_physmem_free_frames(const xlat_physmem *mem, uint32_t region);

/**
 * @brief Number of regions.
 * @param mem the memory, or NULL.
 * @return the count; 0 for NULL.
 */
XLAT_API uint32_t xlat_physmem_regions(const xlat_physmem *mem);

/**
 * @brief Bytes of host memory the allocator holds (bitmaps and structure).
 * @param mem the memory, or NULL.
 * @return the size in bytes; 0 for NULL.
 */
XLAT_API size_t xlat_physmem_memory(const xlat_physmem *mem);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_PHYSMEM_H */
