/**
 * @file barre_alloc.h
 * @brief Barre Chord's group allocation: a data object's pages placed over
 *        chiplets so that each coalescing group sits on the same local
 *        frame of every member chiplet, and page migration out of a group.
 */
#ifndef XLAT_BARRE_ALLOC_H
#define XLAT_BARRE_ALLOC_H

#include "common.h"
#include "barre.h"
#include "pagetable.h"
#include "physmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup barre_alloc Barre Chord: group allocation
 * @brief The driver side of "Barre Chord: Efficient Virtual Memory
 *        Translation for Multi-Chip-Module GPUs" (§IV-C, §IV-G, §V-B, §VI):
 *        a LASP-style allocation that maps each coalescing group on a
 *        commonly free local frame, writes the group information into the
 *        PTEs and returns the object's PEC entry.
 *
 * Chiplet g is the ::xlat_physmem region that starts at frame
 * `base_pfn[g]`; a page's local frame is its global frame minus that base.
 * Pages are laid out chiplet-major per round (Figure 7a): page i of the
 * object is in round `i / (positions * interlv_gran)`, at position
 * `(i / interlv_gran) % positions` (on chiplet `gpu_map[position]`), offset
 * `i % interlv_gran`; the pages of one round with the same offset form a
 * group. Expansion (max_merge > 1, at most 4 chiplets, the expanded PTE
 * layout) merges up to `max_merge` adjacent groups of a round onto
 * consecutive common frames. A group with no common frame, or of one page,
 * is placed by default on its chiplet and has zero group bits, so that no
 * PEC calculation ever counts it as a member (doc/barre.md, "Group
 * allocation").
 *
 * @code
 * xlat_barre_alloc_config c;
 * xlat_barre_alloc_config_init(&c);
 * c.mem = mem; c.pt = pt; c.chiplets = 4; c.max_merge = 1;   // Barre, no expansion
 * for (int g = 0; g < 4; g++) c.base_pfn[g] = 0xA000 + 0x1000 * g;
 * xlat_barre_alloc *a;
 * xlat_barre_alloc_create(ctx, &c, &a);
 * xlat_barre_object o;
 * xlat_barre_object_init(&o);
 * o.pasid = 1; o.start_vpn = 0x1; o.pages = 12; o.interlv_gran = 3;   // Figure 7a's data 1
 * xlat_pec_entry d;
 * xlat_barre_alloc_map(a, &o, pec, &d);   // maps 0x1..0xC, inserts d into the PEC buffer
 * xlat_barre_migration m;
 * xlat_barre_alloc_migrate(a, &d, 0x5, 0, &m);   // 0x5 leaves its group; invalidate m.vpn[]
 * xlat_barre_alloc_destroy(a);
 * @endcode
 * @{
 */

/** @brief Most chiplets an allocator spreads objects over (the Barre PTE layout's bitmap). */
#define XLAT_BARRE_MAX_CHIPLETS 8
/** @brief Most adjacent groups one expanded group merges (the 2-bit \#merged field: 4Merge). */
#define XLAT_BARRE_MAX_MERGE 4
/** @brief Most pages one group holds: 4 chiplets x 4 merged groups (or 8 x 1). */
#define XLAT_BARRE_GROUP_MAX 16

/** @brief How an object's pages are spread over its chiplets (§VII-H6). */
typedef enum xlat_barre_placement {
    /** LASP: `interlv_gran` consecutive pages per chiplet per round. */
    XLAT_BARRE_LASP = 0,
    /** Round-robin: one page per chiplet per round (`interlv_gran` is taken as 1). */
    XLAT_BARRE_ROUND_ROBIN = 1,
    /** Kernel-wide chunking: one round, ceil(pages / positions) consecutive
     *  pages per chiplet (`interlv_gran` is that chunk). */
    XLAT_BARRE_CHUNKED = 2
} xlat_barre_placement;

/** @brief An allocator's configuration; fill with xlat_barre_alloc_config_init(). */
typedef struct xlat_barre_alloc_config {
    uint32_t        struct_size; /**< sizeof(xlat_barre_alloc_config), set by init. */
    const char     *name;        /**< for statistics (copied; NULL: "barre_alloc") */
    xlat_physmem   *mem;         /**< the chiplets' memory (required; held, not owned) */
    xlat_pagetable *pt;          /**< where objects are mapped (required; held, not owned) */
    uint32_t        chiplets;    /**< 1..::XLAT_BARRE_MAX_CHIPLETS (default 4); 4 at most when max_merge > 1 */
    /** First global frame of chiplet g's region: each must be the first
     *  frame of a distinct region of `mem` (required). */
    uint64_t        base_pfn[XLAT_BARRE_MAX_CHIPLETS];
    /** Adjacent groups merged at most, 1..::XLAT_BARRE_MAX_MERGE (default 2,
     *  the paper's F-Barre-2Merge). Above 1 the PTEs take the expanded
     *  layout (xlat_coal_encode() with `expanded`); 1 is Barre's layout. */
    uint32_t        max_merge;
    /** When some group finds no common frame: false (default) places that
     *  group by default; true places the whole object by default. */
    bool            whole_object_fallback;
} xlat_barre_alloc_config;

/** @brief Smallest `struct_size` xlat_barre_alloc_create() accepts (through `whole_object_fallback`). */
#define XLAT_BARRE_ALLOC_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_barre_alloc_config, whole_object_fallback)

/** @brief One data object to allocate; fill with xlat_barre_object_init(). */
typedef struct xlat_barre_object {
    uint32_t struct_size;           /**< sizeof(xlat_barre_object), set by init. */
    uint32_t pasid;                 /**< its address space */
    uint64_t start_vpn;             /**< its first page (4 KiB pages) */
    uint64_t pages;                 /**< its size in pages, >= 1 */
    xlat_barre_placement placement; /**< default ::XLAT_BARRE_LASP */
    uint32_t interlv_gran;          /**< LASP's pages per chiplet per round (default 1) */
    /** Chiplet of member position k (GPU_map, Figure 10): distinct chiplets
     *  of the allocator; ignored when `positions` is 0. */
    uint8_t  gpu_map[XLAT_BARRE_MAX_CHIPLETS];
    uint8_t  positions;             /**< entries of gpu_map; 0 (default): every chiplet, ascending */
    uint8_t  perm;                  /**< XLAT_PERM_* of its pages (default R | W) */
} xlat_barre_object;

/** @brief Smallest `struct_size` xlat_barre_alloc_map() accepts (through `perm`). */
#define XLAT_BARRE_OBJECT_SIZE_V0 XLAT_SIZE_THROUGH(xlat_barre_object, perm)

/** @brief What a migration changed: the pages whose translation or group
 *         information a host must invalidate (TLB entries, F-Barre filter
 *         items), the migrated page first. */
typedef struct xlat_barre_migration {
    uint64_t old_pfn; /**< the migrated page's frame before */
    uint64_t new_pfn; /**< and after */
    uint32_t count;   /**< valid entries of `vpn` (1 for a page outside any group) */
    uint64_t vpn[XLAT_BARRE_GROUP_MAX]; /**< the migrated page, then every other member of its old group */
} xlat_barre_migration;

/** @brief Counters of an allocator (xlat_barre_alloc_stats_get(), xlat_stats_foreach()). */
typedef struct xlat_barre_alloc_stats {
    uint64_t objects;         /**< objects mapped */
    uint64_t pages;           /**< pages mapped */
    uint64_t groups;          /**< coalescing groups made (a merged group counts once) */
    uint64_t merged_groups;   /**< of them, merged from two or more adjacent groups */
    uint64_t grouped_pages;   /**< pages mapped inside a group */
    uint64_t default_pages;   /**< pages placed by default (zero group bits) */
    uint64_t fallback_groups; /**< groups that found no common frame */
    uint64_t whole_fallbacks; /**< objects placed wholly by default */
    uint64_t unmapped;        /**< objects unmapped */
    uint64_t migrations;      /**< pages migrated */
    uint64_t regrouped;       /**< other members' PTEs rewritten by migrations */
} xlat_barre_alloc_stats;

/** @brief A group allocator over a physical memory and a page table. */
typedef struct xlat_barre_alloc xlat_barre_alloc;

/**
 * @brief xlat_barre_alloc_config_init() for a caller whose ::xlat_barre_alloc_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_barre_alloc_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_barre_alloc_config_init_sized(xlat_barre_alloc_config *cfg, size_t size);

/**
 * @brief Defaults: 4 chiplets, 2Merge, per-group fallback, no memory or
 *        page table, bases 0.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_barre_alloc_config_init(xlat_barre_alloc_config *cfg)
{
    xlat_barre_alloc_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create an allocator on `ctx`.
 * @param ctx the context (allocator, error messages).
 * @param cfg the configuration (copied).
 * @param out receives the handle; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument, `mem` or `pt`, a `struct_size`
 *         below the pinned size, chiplets outside 1..8 (1..4 with
 *         max_merge > 1), max_merge outside 1..4, a base that is not the
 *         first frame of a region, two chiplets on one region
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_barre_alloc_create(xlat_ctx *ctx, const xlat_barre_alloc_config *cfg,
                                     xlat_barre_alloc **out);

/**
 * @brief Destroy an allocator; the mappings it made stay. NULL does nothing.
 * @param a the allocator, or NULL.
 * @return ::XLAT_OK: nothing holds an allocator.
 */
XLAT_API int xlat_barre_alloc_destroy(xlat_barre_alloc *a);

/**
 * @brief xlat_barre_object_init() for a caller whose ::xlat_barre_object is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_barre_object_init(), which passes the caller's own sizeof.
 * @param o the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_barre_object_init_sized(xlat_barre_object *o, size_t size);

/**
 * @brief Defaults: pasid 0, start 0, 0 pages (to set), LASP with
 *        interlv_gran 1, every chiplet ascending, read and write.
 * @param o the object to fill; NULL does nothing.
 */
static inline void xlat_barre_object_init(xlat_barre_object *o)
{
    xlat_barre_object_init_sized(o, sizeof(*o));
}

/**
 * @brief Allocate and map data object `o` (§IV-G): each group on the lowest
 *        local frame free on all its chiplets (merged where the consecutive
 *        frames are), its group information in the PTEs, and its PEC entry.
 *        May allocate (a plan of the object's frames, freed before return).
 *
 * Frames are found and taken first, then pages are mapped. On failure the
 * pages mapped so far are unmapped and every frame taken is freed; page-table
 * nodes the maps created stay, as after xlat_pagetable_unmap().
 * @param a the allocator.
 * @param o the object.
 * @param pec a PEC buffer to record the entry in, or NULL. A full buffer
 *        refusing it is no failure: the object is mapped, and only
 *        coalescing is lost (the buffer counts the refusal).
 * @param out receives the object's PEC entry (may be NULL).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL `a` or `o`, a bad `struct_size`, 0 pages,
 *         pages beyond the virtual address width, interlv_gran 0 for LASP,
 *         positions above the chiplets, a GPU_map naming a chiplet twice
 *         or outside the allocator, an unknown placement or `perm` bit
 * @retval XLAT_ERR_UNSUPPORTED an object struct from a newer libxlat
 * @retval XLAT_ERR_EXIST a page of the object is mapped already
 * @retval XLAT_ERR_FULL a chiplet has no free frame for a page, or the
 *         page table's node region none for a node
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_barre_alloc_map(xlat_barre_alloc *a, const xlat_barre_object *o,
                                  xlat_pec_buffer *pec, xlat_pec_entry *out);

/**
 * @brief Unmap every page of object `d` and free its frames; remove its
 *        entry from `pec` when given.
 * @param a the allocator.
 * @param d the object's PEC entry (from xlat_barre_alloc_map()).
 * @param pec a PEC buffer holding it, or NULL.
 * @return the number of pages unmapped (pages of the range not mapped any
 *         more are skipped), or ::XLAT_ERR_INVAL for a NULL argument, an
 *         empty range, or a range reaching beyond the page table's virtual
 *         addresses.
 */
XLAT_API int xlat_barre_alloc_unmap(xlat_barre_alloc *a, const xlat_pec_entry *d,
                                    xlat_pec_buffer *pec);

/**
 * @brief Migrate page `vpn` of object `d` to a free frame of chiplet `to`,
 *        taking it out of its group (§VI; "Support for on-demand paging &
 *        migration"). Its PTE loses its group bits; the other members are
 *        rewritten so that no PEC calculation from any of them counts the
 *        page: the chiplet's bit leaves the migrated page's column, and the
 *        merged columns before and after it become groups of their own.
 * @param a the allocator.
 * @param d the object's PEC entry (its pasid, range and GPU_map).
 * @param vpn the page to move.
 * @param to the chiplet to move it to (its own: another frame of it).
 * @param out receives what changed (may be NULL): the host invalidates
 *        every listed page's TLB entries and filter items. The object's PEC
 *        entry stays right.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL `a` or `d`, `vpn` outside `d`, `to` not a
 *         chiplet, a `d` the allocator could not have made (its range
 *         reaching beyond the page table's virtual addresses included)
 * @retval XLAT_ERR_NOT_FOUND `vpn` is not mapped
 * @retval XLAT_ERR_FULL chiplet `to` has no free frame
 */
XLAT_API int xlat_barre_alloc_migrate(xlat_barre_alloc *a, const xlat_pec_entry *d,
                                      uint64_t vpn, uint32_t to, xlat_barre_migration *out);

/**
 * @brief Whether the allocator writes the expanded PTE layout (max_merge > 1),
 *        the `expanded` argument xlat_coal_decode() needs for its PTEs.
 * @param a the allocator (NULL: false).
 * @return true for the expanded layout, false for Barre's.
 */
XLAT_API bool xlat_barre_alloc_expanded(const xlat_barre_alloc *a);

/**
 * @brief Read the counters.
 * @param a the allocator (NULL: zeros).
 * @param out receives at most `out_size` bytes of ::xlat_barre_alloc_stats;
 *        what a newer caller's struct has beyond it is zeroed.
 * @param out_size sizeof the caller's struct.
 */
XLAT_API void xlat_barre_alloc_stats_get(const xlat_barre_alloc *a, xlat_barre_alloc_stats *out,
                                         size_t out_size);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_BARRE_ALLOC_H */
