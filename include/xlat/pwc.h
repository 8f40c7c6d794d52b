/**
 * @file pwc.h
 * @brief Page walk caches: caches of upper-level page-table entries that let
 *        a walk skip levels.
 */
#ifndef XLAT_PWC_H
#define XLAT_PWC_H

#include "common.h"
#include "tlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup pwc Page walk caches
 * @brief Per-level (like Intel's paging-structure caches) or unified caches
 *        of upper-level entries, tagged by PASID and the virtual-address
 *        prefix of their level.
 *
 * An entry of level k (2 <= k <= levels) records the frame of the level k-1
 * node that the level-k entry for a virtual-address prefix points to; its tag
 * is (PASID, vaddr >> level_shift(k)). A lookup finds the deepest cached
 * level, so a hit on a level-2 entry leaves exactly one read (the leaf).
 *
 * @code
 * xlat_pwc_config c;
 * xlat_pwc_config_init(&c);            // x86-64 geometry, per level
 * c.entries[4] = 2; c.entries[3] = 4; c.entries[2] = 32;
 * xlat_pwc *pwc;
 * xlat_pwc_create(ctx, &c, &pwc);
 * xlat_pwc_fill(pwc, 1, va, 2, l1_node_pfn);
 * xlat_pwc_hit h;
 * xlat_pwc_lookup(pwc, 1, va, &h);     // h.next_level == 1, h.node_pfn == l1_node_pfn
 * @endcode
 * @{
 */

/** @brief Organisation of the cache. */
typedef enum xlat_pwc_org {
    XLAT_PWC_PER_LEVEL = 0, /**< One cache per level, sized by `entries[level]` / `ways[level]`. */
    XLAT_PWC_UNIFIED = 1    /**< One cache for all levels, sized by `entries[0]` / `ways[0]`. */
} xlat_pwc_org;

/** @brief Configuration; fill with xlat_pwc_config_init(). */
typedef struct xlat_pwc_config {
    uint32_t     struct_size;       /**< sizeof(xlat_pwc_config), set by init. */
    const char  *name;              /**< for statistics (copied; NULL: "pwc") */
    xlat_pwc_org org;               /**< default ::XLAT_PWC_PER_LEVEL */
    uint32_t     levels;            /**< page-table levels, as the walked table (default 4) */
    uint32_t     bits_per_level;    /**< as the walked table (default 9) */
    uint32_t     page_shift;        /**< as the walked table (default 12) */
    /** Entries per level (index = level, 2..levels), or entries[0] for a unified
     *  cache. 0 disables that level. Defaults: 16 per level, unified 32. */
    uint32_t     entries[8];
    /** Ways per level (index as `entries`); 0 means fully associative. */
    uint32_t     ways[8];
    xlat_repl    repl;              /**< replacement (default LRU) */
    uint32_t     latency;           /**< lookup latency in cycles, charged by walkers (default 1) */
} xlat_pwc_config;

/**
 * @brief Smallest `struct_size` xlat_pwc_create() accepts: the size of the first
 *        released ::xlat_pwc_config (its members through `latency`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_PWC_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_pwc_config, latency)

/** @brief The result of a hit. */
typedef struct xlat_pwc_hit {
    uint32_t level;      /**< level of the cached entry (2..levels) */
    uint32_t next_level; /**< level of the node to read next (= level - 1) */
    uint64_t node_pfn;   /**< frame of that node */
} xlat_pwc_hit;

/** @brief Counters. */
typedef struct xlat_pwc_stats {
    uint64_t lookups;     /**< lookups */
    uint64_t misses;      /**< lookups that hit no level */
    uint64_t hits[8];     /**< hits by level of the entry found (index = level) */
    uint64_t fills;       /**< fills (new entries and updates) */
    uint64_t evictions;   /**< entries evicted */
} xlat_pwc_stats;

/**
 * @brief xlat_pwc_config_init() for a caller whose ::xlat_pwc_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_pwc_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_pwc_config_init_sized(xlat_pwc_config *cfg, size_t size);

/**
 * @brief Defaults: x86-64 4-level geometry, per level, 16 entries fully associative each, LRU, latency 1.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_pwc_config_init(xlat_pwc_config *cfg)
{
    xlat_pwc_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a page walk cache.
 * @param ctx the context.
 * @param cfg the configuration (copied).
 * @param out receives the handle.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, a geometry outside the page table's
 *         limits, ways that do not divide entries, PLRU with ways not a power of two
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_pwc_create(xlat_ctx *ctx, const xlat_pwc_config *cfg, xlat_pwc **out);

/**
 * @brief Destroy; NULL does nothing.
 * @param pwc the cache, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a walker pool configured with it still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_pwc_destroy(xlat_pwc *pwc);

/**
 * @brief Find the deepest cached entry for `vaddr` (updates replacement and statistics).
 * @param pwc the cache.
 * @param pasid the address space.
 * @param vaddr the virtual address being walked.
 * @param out receives the hit (may be NULL).
 * @retval XLAT_OK a hit
 * @retval XLAT_ERR_NOT_FOUND no level hit
 * @retval XLAT_ERR_INVAL NULL `pwc`
 */
XLAT_API int xlat_pwc_lookup(xlat_pwc *pwc, uint32_t pasid, uint64_t vaddr, xlat_pwc_hit *out);

/**
 * @brief Like xlat_pwc_lookup() without changing state or statistics.
 * @param pwc the cache.
 * @param pasid the address space.
 * @param vaddr the virtual address being walked.
 * @param out receives the hit (may be NULL).
 * @retval XLAT_OK a hit
 * @retval XLAT_ERR_NOT_FOUND no level hit
 * @retval XLAT_ERR_INVAL NULL `pwc`
 */
XLAT_API int xlat_pwc_probe(const xlat_pwc *pwc, uint32_t pasid, uint64_t vaddr, xlat_pwc_hit *out);

/**
 * @brief Record that the level-`level` entry for `vaddr` points to node `node_pfn`.
 * @param pwc the cache.
 * @param pasid the address space.
 * @param vaddr a virtual address the entry covers.
 * @param level level of the page-table entry, 2..levels.
 * @param node_pfn frame of the node (at level - 1) the entry points to.
 * @retval XLAT_OK (also when the level is disabled: nothing is kept)
 * @retval XLAT_ERR_INVAL NULL, or `level` outside 2..levels
 */
XLAT_API int xlat_pwc_fill(xlat_pwc *pwc, uint32_t pasid, uint64_t vaddr, uint32_t level,
                           uint64_t node_pfn);

/**
 * @brief Remove every level's entry covering `vaddr` of `pasid`.
 * @param pwc the cache.
 * @param pasid the address space.
 * @param vaddr the virtual address.
 * @return the number of entries removed (>= 0), or ::XLAT_ERR_INVAL for a
 *         NULL `pwc`.
 */
XLAT_API int xlat_pwc_invalidate(xlat_pwc *pwc, uint32_t pasid, uint64_t vaddr);

/**
 * @brief Remove every entry of `pasid`.
 * @param pwc the cache.
 * @param pasid the address space.
 * @return the number of entries removed (>= 0), or ::XLAT_ERR_INVAL for a
 *         NULL `pwc`.
 */
XLAT_API int xlat_pwc_invalidate_pasid(xlat_pwc *pwc, uint32_t pasid);

/**
 * @brief Remove everything.
 * @param pwc the cache.
 * @return the number of entries removed, every level together (>= 0), or
 *         ::XLAT_ERR_INVAL for a NULL `pwc`.
 */
XLAT_API int xlat_pwc_flush(xlat_pwc *pwc);

/**
 * @brief The configured lookup latency.
 * @param pwc the cache, or NULL.
 * @return xlat_pwc_config::latency in cycles; 0 for NULL.
 */
XLAT_API uint32_t xlat_pwc_latency(const xlat_pwc *pwc);

/**
 * @brief The geometry the cache was created with (its tags are built from
 *        it, so it must be the walked table's).
 * @param pwc the cache.
 * @param levels receives the page-table levels (may be NULL).
 * @param bits_per_level receives the index bits per level (may be NULL).
 * @param page_shift receives the page shift in bits (may be NULL).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `pwc`
 */
XLAT_API int xlat_pwc_geometry(const xlat_pwc *pwc, uint32_t *levels, uint32_t *bits_per_level,
                               uint32_t *page_shift);

/**
 * @brief Copy the counters into `*out`.
 * @param pwc the page walk cache (NULL: zeros).
 * @param out receives the counters, an ::xlat_pwc_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_pwc_stats_get(const xlat_pwc *pwc, xlat_pwc_stats *out, size_t out_size);

/**
 * @brief Zero the counters.
 * @param pwc the cache; NULL does nothing.
 */
XLAT_API void xlat_pwc_stats_reset(xlat_pwc *pwc);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_PWC_H */
