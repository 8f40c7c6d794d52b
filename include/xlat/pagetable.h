/**
 * @file pagetable.h
 * @brief Radix page tables in simulated physical memory, one per PASID,
 *        with x86-64 page-table entries.
 */
#ifndef XLAT_PAGETABLE_H
#define XLAT_PAGETABLE_H

#include "common.h"
#include "physmem.h"
#include "tlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup pagetable Page tables
 * @brief x86-64 style radix page tables whose nodes are frames of an
 *        ::xlat_physmem, so every walk step reads a real physical address.
 *
 * Levels are numbered from the leaf: level 1 holds the 4 KiB PTEs, level
 * `levels` is the root (4 for x86-64, 5 with LA57). An entry of level k
 * maps 2^(page_shift + bits_per_level * (k - 1)) bytes; a level-2 entry with
 * the page-size bit set maps a 2 MiB page, a level-3 one a 1 GiB page.
 * Any other present entry above level 1 points to a node (PS is ignored
 * above level 3). Nodes are 4 KiB frames; a node of 2^bits_per_level
 * entries uses the first 8 x 2^bits_per_level bytes of its frame.
 * Virtual addresses are not sign-extended: they must lie below
 * 2^(page_shift + bits_per_level x levels).
 *
 * Entries follow x86-64: a node pointer is P | R/W | U/S plus the node's
 * frame; a leaf is P, R/W for ::XLAT_PERM_W, U/S for ::XLAT_PERM_U, NX
 * without ::XLAT_PERM_X, PS above level 1, and the page's physical address.
 * The software-available bits (9..11, 52..62) belong to the host: map and
 * protect keep whatever is there; unmap clears the whole entry.
 *
 * @code
 * xlat_pagetable_config c;
 * xlat_pagetable_config_init(&c);
 * c.mem = mem;                                   // an xlat_physmem
 * xlat_pagetable *pt;
 * xlat_pagetable_create(ctx, &c, &pt);
 * xlat_pagetable_map(pt, 1, 0x7f0000000000, 0x4242, 12, XLAT_PERM_R | XLAT_PERM_W);
 * xlat_walk_trace w;
 * xlat_pagetable_walk(pt, 1, 0x7f0000000123, &w);   // 4 steps, w.pfn == 0x4242
 * @endcode
 * @{
 */

/** @brief Most levels a page table may have. */
#define XLAT_PT_MAX_LEVELS 6

/** @name x86-64 page-table entry bits
 *  @{ */
#define XLAT_PTE_PRESENT  (UINT64_C(1) << 0)  /**< P: the entry is valid. */
#define XLAT_PTE_WRITABLE (UINT64_C(1) << 1)  /**< R/W: writes allowed. */
#define XLAT_PTE_USER     (UINT64_C(1) << 2)  /**< U/S: user accesses allowed. */
#define XLAT_PTE_ACCESSED (UINT64_C(1) << 5)  /**< A: set by hardware on use. */
#define XLAT_PTE_DIRTY    (UINT64_C(1) << 6)  /**< D: set by hardware on write (leaves). */
#define XLAT_PTE_PS       (UINT64_C(1) << 7)  /**< PS: a large page (levels 2 and 3). */
#define XLAT_PTE_NX       (UINT64_C(1) << 63) /**< XD/NX: no instruction fetch. */
#define XLAT_PTE_PFN_MASK UINT64_C(0x000FFFFFFFFFF000) /**< bits 12..51: frame address. */
/** @} */

/**
 * @brief The frame number held in `pte` (bits 12..51, shifted down).
 * @param pte a page-table entry.
 * @return the 40-bit frame number.
 */
XLAT_API uint64_t xlat_pte_pfn(uint64_t pte);
/**
 * @brief `pte` with its frame number replaced by `pfn` (which must fit 40 bits).
 * @param pte a page-table entry.
 * @param pfn the new frame number; bits above the 40 that fit are dropped.
 * @return the new entry; every other bit of `pte` is kept.
 */
XLAT_API uint64_t xlat_pte_set_pfn(uint64_t pte, uint64_t pfn);
/**
 * @brief Permissions allowed by a leaf entry.
 * @param pte a page-table entry.
 * @return XLAT_PERM_* bits (R when present, W, U, X unless NX); 0 when the
 *         entry is not present.
 */
XLAT_API uint8_t xlat_pte_perm(uint64_t pte);
/**
 * @brief The three software-available bits 9..11.
 * @param pte a page-table entry.
 * @return their value, 0..7.
 */
XLAT_API uint32_t xlat_pte_avail_low(uint64_t pte);
/**
 * @brief `pte` with bits 9..11 set to `value`.
 * @param pte a page-table entry.
 * @param value the new bits (only its low 3 bits are used).
 * @return the new entry; every other bit of `pte` is kept.
 */
XLAT_API uint64_t xlat_pte_set_avail_low(uint64_t pte, uint32_t value);
/**
 * @brief The eleven software-available bits 52..62.
 * @param pte a page-table entry.
 * @return their value, 0..2047.
 */
XLAT_API uint32_t xlat_pte_avail_high(uint64_t pte);
/**
 * @brief `pte` with bits 52..62 set to `value`.
 * @param pte a page-table entry.
 * @param value the new bits (only its low 11 bits are used).
 * @return the new entry; every other bit of `pte` is kept.
 */
XLAT_API uint64_t xlat_pte_set_avail_high(uint64_t pte, uint32_t value);

/** @brief Configuration; fill with xlat_pagetable_config_init(). */
typedef struct xlat_pagetable_config {
    uint32_t      struct_size;    /**< sizeof(xlat_pagetable_config), set by init. */
    xlat_physmem *mem;            /**< frames for nodes come from here (required; not owned) */
    uint32_t      levels;         /**< 2..::XLAT_PT_MAX_LEVELS (default 4) */
    uint32_t      bits_per_level; /**< index bits per level, 1..9 (default 9: 512 entries of 8 bytes) */
    uint32_t      page_shift;     /**< base page, 12 (default) */
    uint32_t      node_region;    /**< region of `mem` that nodes are allocated from (default 0) */
} xlat_pagetable_config;

/**
 * @brief Smallest `struct_size` xlat_pagetable_create() accepts: the size of the first
 *        released ::xlat_pagetable_config (its members through `node_region`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_PAGETABLE_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_pagetable_config, node_region)

/** @brief One step of a walk. */
typedef struct xlat_walk_step {
    uint8_t  level;       /**< level of the entry read (levels .. 1) */
    uint64_t node_pfn;    /**< frame of the node holding it */
    uint64_t entry_paddr; /**< physical address of the 8-byte entry */
    uint64_t line_paddr;  /**< the 64-byte line that holds it */
    uint64_t value;       /**< the entry */
} xlat_walk_step;

/** @brief A complete functional walk. */
typedef struct xlat_walk_trace {
    int      status;      /**< ::XLAT_OK, or ::XLAT_ERR_FAULT at a non-present entry */
    uint32_t steps;       /**< entries read */
    xlat_walk_step step[XLAT_PT_MAX_LEVELS]; /**< from the root down */
    uint8_t  stop_level;  /**< level of the last entry read (the leaf, or where it faulted) */
    uint8_t  page_shift;  /**< page size of the translation (status OK) */
    uint64_t pfn;         /**< frame number of the page, in units of its size */
    uint8_t  perm;        /**< XLAT_PERM_* of the leaf */
} xlat_walk_trace;

/** @brief Counters and sizes. */
typedef struct xlat_pagetable_stats {
    uint64_t address_spaces;                      /**< PASIDs with a root */
    uint64_t nodes[XLAT_PT_MAX_LEVELS + 1];       /**< nodes per level (index = level) */
    uint64_t bytes;                               /**< page-table memory: nodes x node size */
    uint64_t mapped[XLAT_PT_MAX_LEVELS + 1];      /**< leaf mappings per level */
} xlat_pagetable_stats;

/**
 * @brief xlat_pagetable_config_init() for a caller whose ::xlat_pagetable_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_pagetable_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_pagetable_config_init_sized(xlat_pagetable_config *cfg, size_t size);

/**
 * @brief Defaults: x86-64 4-level, 9 bits per level, 4 KiB pages, region 0.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_pagetable_config_init(xlat_pagetable_config *cfg)
{
    xlat_pagetable_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create an empty set of page tables on `ctx`.
 * @param ctx the context.
 * @param cfg the configuration (copied).
 * @param out receives the handle.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments or `mem`, levels outside 2..6,
 *         bits_per_level outside 1..9, page_shift not 12, levels x bits + 12
 *         beyond 57 bits, a bad node region.
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat.
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_pagetable_create(xlat_ctx *ctx, const xlat_pagetable_config *cfg,
                                   xlat_pagetable **out);

/**
 * @brief Destroy, returning every node frame to the physical memory. NULL does nothing.
 * @param pt the page tables, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a walker pool configured with it still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_pagetable_destroy(xlat_pagetable *pt);

/**
 * @brief Map the page at `vaddr` of `pasid` to frame `pfn` (in units of the
 *        page size). Missing nodes are allocated (the root on first use).
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr start of the page, aligned to its size.
 * @param pfn physical frame of the page, in units of 2^page_shift bytes.
 * @param page_shift 12 (4 KiB), 21 (2 MiB) or 30 (1 GiB) with the default geometry.
 * @param perm XLAT_PERM_*; R is implied by presence.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `pt`, misaligned address, a page size this
 *         geometry cannot map, an address beyond the virtual address width,
 *         a frame beyond 52 bits, unknown `perm` bits
 * @retval XLAT_ERR_EXIST overlaps an existing mapping (of any size). A node
 *         below a large page's entry that maps nothing any more (left by
 *         unmap) is no overlap: the page replaces it and its nodes are freed.
 * @retval XLAT_ERR_FULL fewer free frames in the node region than the new
 *         nodes need; the table and the physical memory are unchanged
 * @retval XLAT_ERR_NOMEM the table and the physical memory are unchanged
 */
XLAT_API int xlat_pagetable_map(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr, uint64_t pfn,
                                uint8_t page_shift, uint8_t perm);

/**
 * @brief Remove the mapping of the page that starts at `vaddr` (any size):
 *        its entry becomes 0. Nodes stay allocated.
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr start of the mapped page.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND nothing is mapped there
 * @retval XLAT_ERR_INVAL `vaddr` is inside a mapped page but not its start;
 *         NULL `pt`
 */
XLAT_API int xlat_pagetable_unmap(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr);

/**
 * @brief Map every base page of [vaddr, vaddr + bytes) of `pasid`, each on
 *        a frame of the table's physical memory (xlat_pagetable_config::mem)
 *        that its placement policy chooses (xlat_physmem_place(), with
 *        `requester` as the local region): the helper a host calls instead
 *        of a loop of its own. All or nothing: on any failure the pages
 *        mapped by this call are unmapped and their frames freed.
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr the range's start, aligned to the base page.
 * @param bytes the range's size, > 0 (rounded up to whole base pages).
 * @param requester the region local placement takes frames from (the GPU
 *        that touches the range first).
 * @param perm XLAT_PERM_* of every page.
 * @return the number of pages mapped (> 0), or ::XLAT_ERR_INVAL (NULL `pt`,
 *         a misaligned or empty range, bad `perm` or `requester`),
 *         ::XLAT_ERR_EXIST (a page of the range is mapped already),
 *         ::XLAT_ERR_FULL (no frame left) or ::XLAT_ERR_NOMEM; after a
 *         failure nothing of the range is mapped by this call.
 */
XLAT_API int64_t xlat_pagetable_map_range(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                          uint64_t bytes, uint32_t requester, uint8_t perm);

/**
 * @brief Change the permissions of the page that contains `vaddr` (its R/W,
 *        U/S and NX bits; every other bit stays).
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr any address inside the page.
 * @param perm the new XLAT_PERM_* bits.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND nothing is mapped there
 * @retval XLAT_ERR_INVAL NULL `pt`, unknown `perm` bits
 */
XLAT_API int xlat_pagetable_protect(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                    uint8_t perm);

/**
 * @brief Set the software-available bits 52..62 of the leaf entry of the
 *        page that contains `vaddr` (every other bit stays): where Barre
 *        Chord's group information lives (xlat_coal_encode()). A walk or a
 *        lookup returns them as xlat_meta::coal_info.
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr any address inside the page.
 * @param value the new bits (only its low 11 bits are used).
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND nothing is mapped there
 * @retval XLAT_ERR_INVAL NULL `pt`
 */
XLAT_API int xlat_pagetable_set_avail_high(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                           uint32_t value);

/**
 * @brief Functional translation of `vaddr` (no timing, no statistics).
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr any address inside the page (bytes).
 * @param out receives the translation as a TLB entry (may be NULL); `vpn`
 *        and `pfn` are in units of the page size, `meta` is zeroed but for
 *        `coal_info`, the leaf's bits 52..62.
 * @retval XLAT_OK
 * @retval XLAT_ERR_FAULT not mapped
 * @retval XLAT_ERR_INVAL NULL `pt`
 */
XLAT_API int xlat_pagetable_lookup(const xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                   xlat_tlb_entry *out);

/**
 * @brief Walk `vaddr` from the root, reporting every entry read. A PASID
 *        without a root, or an address beyond the virtual address width,
 *        faults before reading anything (0 steps, stop_level 0).
 * @param pt the page tables.
 * @param pasid the address space.
 * @param vaddr the address to translate (bytes).
 * @param out receives the trace; `out->status` is ::XLAT_OK or ::XLAT_ERR_FAULT.
 * @return the same status, or ::XLAT_ERR_INVAL for NULL arguments.
 */
XLAT_API int xlat_pagetable_walk(const xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                                 xlat_walk_trace *out);

/**
 * @brief Frame of the root node of `pasid`.
 * @param pt the page tables.
 * @param pasid the address space.
 * @param root_pfn receives the root's frame number on success.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND the address space has no mapping yet
 * @retval XLAT_ERR_INVAL NULL `pt` or `root_pfn`
 */
XLAT_API int xlat_pagetable_root(const xlat_pagetable *pt, uint32_t pasid, uint64_t *root_pfn);

/**
 * @brief Read the 8-byte entry at physical address `paddr` (one step of a walk).
 * @param pt the page tables.
 * @param paddr physical address of the entry, a multiple of 8.
 * @param value receives the entry on success.
 * @retval XLAT_OK and `*value`
 * @retval XLAT_ERR_NOT_FOUND `paddr` is not inside a page-table node (nor
 *         inside the used part of a narrow node's frame)
 * @retval XLAT_ERR_INVAL NULL or a misaligned address
 */
XLAT_API int xlat_pagetable_read(const xlat_pagetable *pt, uint64_t paddr, uint64_t *value);

/**
 * @brief Overwrite the entry at `paddr` (for hosts and mechanisms that keep
 *        information in the software-available bits). Node pointers are the
 *        table's own: a write must keep an entry that points to a node
 *        pointing to the same node (present, same frame, no PS at levels
 *        2..3), and cannot turn any other entry into a node pointer. Leaves
 *        written this way count as mappings.
 * @param pt the page tables.
 * @param paddr physical address of the entry, a multiple of 8.
 * @param value the new entry.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND not inside a node
 * @retval XLAT_ERR_PERM the write would change or create a node pointer
 * @retval XLAT_ERR_INVAL NULL `pt` or a misaligned address
 */
XLAT_API int xlat_pagetable_write(xlat_pagetable *pt, uint64_t paddr, uint64_t value);

/**
 * @brief Index of `vaddr` in the node of `level`.
 * @param pt the page tables, or NULL.
 * @param vaddr a virtual address (bytes).
 * @param level a level, 1..levels (1 holds the 4 KiB leaves).
 * @return the index, 0 .. 2^bits_per_level - 1; 0 for a level outside
 *         1..levels or NULL.
 */
XLAT_API uint32_t xlat_pagetable_index(const xlat_pagetable *pt, uint64_t vaddr, uint32_t level);

/**
 * @brief Size of what one entry of `level` maps.
 * @param pt the page tables, or NULL.
 * @param level a level, 1..levels.
 * @return log2 of the bytes (12 for level 1 by default); 0 for a level
 *         outside 1..levels or NULL.
 */
XLAT_API uint32_t xlat_pagetable_level_shift(const xlat_pagetable *pt, uint32_t level);

/**
 * @brief Number of levels.
 * @param pt the page tables, or NULL.
 * @return xlat_pagetable_config::levels; 0 for NULL.
 */
XLAT_API uint32_t xlat_pagetable_levels(const xlat_pagetable *pt);

/**
 * @brief Copy the counters into `*out`.
 * @param pt the page tables (NULL: zeros).
 * @param out receives the counters, an ::xlat_pagetable_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_pagetable_stats_get(const xlat_pagetable *pt, xlat_pagetable_stats *out,
                                       size_t out_size);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_PAGETABLE_H */
