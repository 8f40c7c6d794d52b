/**
 * @file barre.h
 * @brief Barre Chord's coalescing groups: the group information in a PTE
 *        and the PEC calculation of a member's frame.
 */
#ifndef XLAT_BARRE_H
#define XLAT_BARRE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup barre Barre Chord: coalescing groups
 * @brief Pages of one data object mapped on the same local frame of every
 *        chiplet, so that one walk gives every member's frame
 *        ("Barre Chord: Efficient Virtual Memory Translation for
 *        Multi-Chip-Module GPUs" §IV, §V-B).
 *
 * A coalescing group holds at most one page per chiplet (Barre), or, in
 * expanded mode, `merged + 1` consecutive pages per chiplet on consecutive
 * local frames (F-Barre's contiguity-aware expansion, at most 4 chiplets).
 * The group information sits in the PTE's software-available bits 52..62
 * (doc/barre.md has the layout, the paper leaving the exact positions
 * open):
 *
 * | mode | bits | field |
 * |---|---|---|
 * | Barre (≤ 8 chiplets) | 59..52 | `bitmap`: bit 59 is chiplet 0, bit 52 chiplet 7 |
 * | Barre | 62..60 | `inter` |
 * | expanded (≤ 4 chiplets) | 55..52 | `bitmap`: bit 55 is chiplet 0 |
 * | expanded | 57..56 | `inter` |
 * | expanded | 59..58 | `intra` |
 * | expanded | 61..60 | `merged` |
 *
 * @code
 * // Example 4 of the paper: the walk of 0x4 gave 0xB075 (order 1 of data 1)
 * xlat_pec_entry d = {.pasid = 1, .start_vpn = 0x1, .end_vpn = 0xC, .interlv_gran = 3,
 *                     .gpu_map = {0, 1, 2, 3}, .positions = 4};
 * const uint64_t base[4] = {0xA000, 0xB000, 0xC000, 0xD000};
 * xlat_coal_info ci = {.bitmap = 0xF0, .inter = 1};
 * uint64_t pfn;
 * xlat_pec_calc(&d, base, 0x4, 0xB075, &ci, 0xA, &pfn);   // XLAT_OK, pfn == 0xD075
 * @endcode
 * @{
 */

/** @brief A page's coalescing group information, as a PTE carries it. */
typedef struct xlat_coal_info {
    /** coal_bitmap: bit (7 - g) set for chiplet g (chiplet 0 leftmost), 8
     *  chiplets at most; in expanded mode bit (3 - g), 4 chiplets at most. */
    uint8_t bitmap;
    uint8_t inter;  /**< inter-GPU coalescing order: the page's position in its group */
    uint8_t intra;  /**< intra-GPU coalescing order (expanded mode; else 0) */
    uint8_t merged; /**< the \#merged_coal_groups field: merged groups - 1 (expanded mode; else 0) */
} xlat_coal_info;

/** @brief A data object's PEC buffer entry (§IV-E, Example 3). */
typedef struct xlat_pec_entry {
    uint32_t pasid;               /**< the address space of the data object */
    uint64_t start_vpn;           /**< its first page */
    uint64_t end_vpn;             /**< its last page (inclusive) */
    uint32_t interlv_gran;        /**< consecutive pages per chiplet (LASP's interleaving) */
    uint8_t  gpu_map[16];         /**< chiplet of the k-th member position */
    uint8_t  positions;           /**< valid entries of gpu_map */
} xlat_pec_entry;

/**
 * @brief Write the group information `ci` into `pte`'s bits 52..62; the
 *        frame and flag bits (0..51, 63) are untouched.
 * @param pte the PTE.
 * @param ci the group information; fields wider than their bits are cut to
 *        them (see the group's table). NULL clears the bits.
 * @param expanded the expanded (F-Barre, ≤ 4 chiplets) layout, else Barre's.
 * @return the PTE with the group information.
 */
XLAT_API uint64_t xlat_coal_encode(uint64_t pte, const xlat_coal_info *ci, bool expanded);

/**
 * @brief Read the group information from `pte`'s bits 52..62.
 * @param pte the PTE.
 * @param expanded the layout to read (as written by xlat_coal_encode()).
 * @param out receives the fields (`intra` and `merged` 0 in Barre's
 *        layout); NULL does nothing.
 */
XLAT_API void xlat_coal_decode(uint64_t pte, bool expanded, xlat_coal_info *out);

/**
 * @brief PEC calculation (§IV-F, §V-B): the frame of pending page `q`
 *        from the walk of page `vpn` of the same group.
 *
 * With `g = d->interlv_gran`, the group's first page is
 * `first = vpn - ci->intra - g * ci->inter`; `q` at `dq = q - first` has
 * position `dq / g` and intra order `dq % g`. It is a member when it lies in
 * the data object, after `first`, at an intra order of at most
 * `ci->merged`, at a position below `d->positions` whose chiplet
 * (`d->gpu_map[position]`) is set in `ci->bitmap`. Its frame is then
 * `pfn - base_pfn[gpu_map[ci->inter]] - ci->intra + base_pfn[gpu_map[position]] + intra`.
 * Barre's case is `intra = merged = 0`. Testing the chiplet's bit rather
 * than `position < popcount(bitmap)` (the paper's bound) gives the same
 * answer for every group the allocator builds, and stays right for a group
 * a migration left with a hole. The bitmap's layout follows from the bits
 * themselves: a group whose chiplets are all below 4 sets bits 7..4 in
 * Barre's layout and bits 3..0 in the expanded one, and a group with a
 * chiplet of 4 or more is Barre's.
 *
 * @param d the data object's PEC entry.
 * @param base_pfn base_pfn[g] is chiplet g's first global frame (an array of
 *        at least max(gpu_map) + 1 frames).
 * @param vpn the walked page.
 * @param pfn its frame (global).
 * @param ci its group information. Whether it is expanded does not matter:
 *        Barre's layout decodes with intra = merged = 0.
 * @param q the pending page.
 * @param pfn_out receives q's frame when it is a member.
 * @retval XLAT_OK q is a member; `*pfn_out` is its frame.
 * @retval XLAT_ERR_NOT_FOUND q is not a member (another data object, a gap
 *         that is not a multiple, outside the group, an intra order beyond
 *         `merged`), or the walked page is not a member of `d` either.
 * @retval XLAT_ERR_INVAL a NULL argument, `interlv_gran` 0, `positions`
 *         above 16, or `ci->inter` not a position of `d`.
 */
XLAT_API int xlat_pec_calc(const xlat_pec_entry *d, const uint64_t *base_pfn, uint64_t vpn,
                           uint64_t pfn, const xlat_coal_info *ci, uint64_t q,
                           uint64_t *pfn_out);

/**
 * @brief The PEC buffer: one ::xlat_pec_entry per data object, found by
 *        (pasid, vpn) (§IV-E; the IOMMU's shared one in Barre, one per
 *        chiplet in F-Barre).
 *
 * Five entries by default (the paper's benchmarks use at most five large
 * data objects). A new object goes to a free entry; when none is free it
 * replaces the entry of the smallest object (end - start) that is smaller
 * than it, and is refused when every entry holds a larger or equal one
 * (the paper: "a new data overwrites an entry having smaller data's
 * information"; which smaller entry, and what happens when none is, it
 * leaves open: doc/barre.md). An object already held (same pasid and
 * start) is updated in place.
 */
typedef struct xlat_pec_buffer xlat_pec_buffer;

/** @brief Configuration of a PEC buffer; fill with xlat_pec_buffer_config_init(). */
typedef struct xlat_pec_buffer_config {
    uint32_t    struct_size; /**< sizeof(xlat_pec_buffer_config), set by init. */
    const char *name;        /**< for statistics (copied; NULL: "pec") */
    uint32_t    entries;     /**< data objects held, 1..1024 (default 5) */
    /** The PTE layout of the group information its objects' pages carry:
     *  the expanded one (F-Barre's merged groups), else Barre's (default).
     *  The layout travels with the buffer, so that the allocator filling it
     *  and the units computing frames from it cannot disagree on it
     *  (xlat_barre_alloc_map(), xlat_walker_config::pec_expanded and
     *  xlat_fbarre_config::expanded must match it, or they refuse). */
    bool        expanded;
} xlat_pec_buffer_config;

/** @brief Smallest `struct_size` xlat_pec_buffer_create() accepts (through `entries`). */
#define XLAT_PEC_BUFFER_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_pec_buffer_config, entries)

/** @brief Counters of a PEC buffer (xlat_pec_buffer_stats_get(), xlat_stats_foreach()). */
typedef struct xlat_pec_buffer_stats {
    uint64_t lookups;   /**< xlat_pec_buffer_lookup() calls */
    uint64_t hits;      /**< of them, found an entry */
    uint64_t inserts;   /**< objects inserted or updated */
    uint64_t evictions; /**< smaller objects replaced by a larger one */
    uint64_t refusals;  /**< objects refused: full of larger ones */
    uint64_t removals;  /**< entries removed (xlat_pec_buffer_remove(), clear) */
} xlat_pec_buffer_stats;

/**
 * @brief xlat_pec_buffer_config_init() for a caller whose ::xlat_pec_buffer_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_pec_buffer_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_pec_buffer_config_init_sized(xlat_pec_buffer_config *cfg, size_t size);

/**
 * @brief Defaults: 5 entries, named "pec".
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_pec_buffer_config_init(xlat_pec_buffer_config *cfg)
{
    xlat_pec_buffer_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a PEC buffer on `ctx`.
 * @param ctx the context (its allocator).
 * @param cfg the configuration (copied).
 * @param out receives the handle; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument, a `struct_size` below the pinned
 *         size, or `entries` outside 1..1024
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_pec_buffer_create(xlat_ctx *ctx, const xlat_pec_buffer_config *cfg,
                                    xlat_pec_buffer **out);

/**
 * @brief Destroy a PEC buffer. NULL does nothing.
 * @param pec the buffer, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a walker pool configured with it (xlat_walker_config::pec)
 *         or a system given it as its chiplets' PEC source
 *         (xlat_system_config::fbarre_pec) still holds it; nothing was
 *         destroyed (doc/composition.md, "Tearing down")
 */
XLAT_API int xlat_pec_buffer_destroy(xlat_pec_buffer *pec);

/**
 * @brief Record data object `e` (copied), by the replacement rule above.
 * @param pec the buffer.
 * @param e the object's entry.
 * @retval XLAT_OK inserted, updated, or placed over a smaller object
 * @retval XLAT_ERR_FULL every entry holds an object at least as large
 * @retval XLAT_ERR_INVAL NULL, `end_vpn` below `start_vpn`,
 *         `interlv_gran` 0, `positions` 0 or above 16
 */
XLAT_API int xlat_pec_buffer_insert(xlat_pec_buffer *pec, const xlat_pec_entry *e);

/**
 * @brief The entry of the data object of (pasid, vpn).
 * @param pec the buffer.
 * @param pasid the address space.
 * @param vpn a page of the object.
 * @param out receives the entry (may be NULL).
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND no object holds that page
 * @retval XLAT_ERR_INVAL NULL `pec`
 */
XLAT_API int xlat_pec_buffer_lookup(xlat_pec_buffer *pec, uint32_t pasid, uint64_t vpn,
                                    xlat_pec_entry *out);

/**
 * @brief Forget the object of (pasid, vpn) (a migration or a free changed it).
 * @param pec the buffer.
 * @param pasid the address space.
 * @param vpn a page of the object.
 * @return the number of entries removed (0 or 1), or ::XLAT_ERR_INVAL for NULL.
 */
XLAT_API int xlat_pec_buffer_remove(xlat_pec_buffer *pec, uint32_t pasid, uint64_t vpn);

/**
 * @brief Forget every object (a shootdown).
 * @param pec the buffer.
 * @return the number of entries removed, or ::XLAT_ERR_INVAL for NULL.
 */
XLAT_API int xlat_pec_buffer_clear(xlat_pec_buffer *pec);

/**
 * @brief Objects held now.
 * @param pec the buffer (NULL: 0).
 * @return the number of valid entries.
 */
XLAT_API uint32_t xlat_pec_buffer_count(const xlat_pec_buffer *pec);

/**
 * @brief The PTE layout of the buffer's objects (xlat_pec_buffer_config::expanded).
 * @param pec the buffer (NULL: false).
 * @return true for the expanded layout, false for Barre's.
 */
XLAT_API bool xlat_pec_buffer_expanded(const xlat_pec_buffer *pec);

/**
 * @brief Read the counters.
 * @param pec the buffer (NULL: zeros).
 * @param out receives at most `out_size` bytes of ::xlat_pec_buffer_stats;
 *        what a newer caller's struct has beyond it is zeroed.
 * @param out_size sizeof the caller's struct.
 */
XLAT_API void xlat_pec_buffer_stats_get(const xlat_pec_buffer *pec, xlat_pec_buffer_stats *out,
                                        size_t out_size);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_BARRE_H */
