/**
 * @file system.h
 * @brief Whole multi-GPU translation systems from one configuration: per-CU
 *        L1 TLBs, a shared L2 TLB per GPU, links, and the shared IOMMU.
 */
#ifndef XLAT_SYSTEM_H
#define XLAT_SYSTEM_H

#include "common.h"
#include "gmmu.h"
#include "iommu.h"
#include "barre_alloc.h"
#include "fbarre.h"
#include "link.h"
#include "target.h"
#include "tlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup system Multi-GPU systems
 * @brief Builds G GPUs (or MCM chiplets) with C CUs each: a private L1 TLB
 *        per CU, a shared L2 TLB per GPU, optionally the L2 TLB probing ring
 *        and a GMMU per GPU, a link per GPU to a shared IOMMU; one call
 *        translates.
 *
 * A miss travels L1 -> L2 -> (ring stop) -> (GMMU) -> link -> IOMMU.
 *
 * @code
 * xlat_physmem_config pc;                    // the frames the page table maps to
 * xlat_physmem_config_init(&pc);
 * xlat_physmem *mem;
 * xlat_physmem_create(ctx, &pc, &mem);
 * xlat_pagetable_config tc;
 * xlat_pagetable_config_init(&tc);
 * tc.mem = mem;
 * xlat_pagetable *pt;
 * xlat_pagetable_create(ctx, &tc, &pt);
 * xlat_pagetable_map_range(pt, 1, va, 1 << 20, 0, XLAT_PERM_R | XLAT_PERM_W);  // 256 pages
 * xlat_walker_config wc;
 * xlat_iommu_walker_config_init(&wc);
 * wc.pt = pt;
 * xlat_iommu_config ic;
 * xlat_iommu_config_init(&ic);
 * ic.walk = &wc;
 * ic.inclusion = XLAT_INCL_LEAST;
 * xlat_system_config sc;
 * xlat_system_config_init(&sc);              // least-TLB's Table 2 system
 * sc.iommu = &ic;                            // the templates are copied at create
 * xlat_system *sys;
 * xlat_system_create(ctx, &sc, &sys);
 * xlat_req req = {.id = 1, .vaddr = va, .pasid = 1, .gpu = 2, .cu = 17};
 * xlat_system_translate(sys, &req, on_done, NULL);
 * @endcode
 *
 * **Clocks.** Each unit runs at the clock its template sets
 * (xlat_tlb_config::clock_num / clock_den and the same fields of the IOMMU,
 * its walk template, the GMMU and its walk template): a system of GPUs at
 * the context's clock and an IOMMU at 5/7 of it sets `clock_num = 5,
 * clock_den = 7` in the IOMMU's template alone. The IOMMU's and the GMMUs'
 * walkers take their owner's clock when their template leaves it 0/0. The
 * links and the probing-ring stops the builder makes run at the context's
 * clock: `gpu_iommu_latency` and `probe_latency` are context cycles. See
 * @ref clocks.
 *
 * Every unit stays reachable through its handle (xlat_system_l1(),
 * xlat_system_l2(), xlat_system_link(), xlat_system_iommu()) for statistics
 * and inspection; the system owns them.
 * @{
 */

/** @brief Configuration; fill with xlat_system_config_init(). */
typedef struct xlat_system_config {
    uint32_t          struct_size;       /**< sizeof(xlat_system_config), set by init. */
    uint32_t          gpus;              /**< GPUs (or chiplets), 1..1024 (default 4) */
    uint32_t          cus;               /**< CUs per GPU, 1..1024 (default 64) */
    /** Template of every CU's L1 TLB (name ignored); copied at create, honouring
     *  its own struct_size. NULL: xlat_system_l1_config_init()'s defaults. */
    const xlat_tlb_config *l1;
    /** Template of every GPU's L2 TLB (name ignored); copied at create, honouring
     *  its own struct_size. NULL: xlat_system_l2_config_init()'s defaults. */
    const xlat_tlb_config *l2;
    /** Template of the IOMMU (required, with its walk template and walk->pt; NULL is
     *  ::XLAT_ERR_INVAL); its `gpus` is set from `gpus`. Copied at create with its
     *  walkers' template, each honouring its own struct_size. */
    const xlat_iommu_config *iommu;
    uint32_t          gpu_iommu_latency; /**< one-way cycles of each GPU's link to the IOMMU (default 0) */
    bool              probe_ring;        /**< least-TLB §5.5 baseline: an L2 miss first probes the
                                              L2 TLBs of the GPU's two ring neighbours */
    uint32_t          probe_latency;     /**< cycles from an L2 miss to the probes' answers (default 0) */
    bool              gmmu;              /**< give every GPU a GMMU ("Dynamic GMMU Bypass for Address
                                              Translation in Multi-GPU Systems") between its L2 (or
                                              its probing-ring stop) and its link */
    xlat_pagetable *const *local_pt;     /**< with `gmmu`: `gpus` local page tables, one per GPU */
    /** With `gmmu`: template of each GMMU's walkers (name and pt set by the builder, pt
     *  from local_pt); copied at create, honouring its own struct_size. NULL:
     *  xlat_walker_config_init()'s defaults. */
    const xlat_walker_config *gmmu_walk;
    /** With `gmmu`: template of each GMMU (name, gpu and walker set by the builder; a
     *  dynamic GMMU needs its locality source); copied at create, honouring its own
     *  struct_size. NULL: xlat_gmmu_config_init()'s defaults. */
    const xlat_gmmu_config *gmmu_cfg;
    /** One L2 TLB shared by every GPU (default false): the "oracle shared L2 TLB"
     *  of "Barre Chord: Efficient Virtual Memory Translation for Multi-Chip-Module
     *  GPUs" §III-D (Fig 6), one physical TLB with no inter-chip cost. Every CU's
     *  L1 misses into it, it is built from the `l2` template as it stands (the
     *  paper's 4x entries and 4x processing bandwidth are the template's to set;
     *  xlat_mcm_preset() does), and its misses go down GPU 0's link, each
     *  request keeping its own xlat_req::gpu. It is GPU 0's L2 for the IOMMU
     *  (victims, probes, shootdowns). xlat_system_l2() returns it for every GPU;
     *  xlat_system_link() returns NULL for the GPUs above 0, which have no link;
     *  xlat_system_flush_gpu() empties it with any GPU's L1s;
     *  xlat_system_gpu_memory() counts it in GPU 0's bytes. Refused
     *  (::XLAT_ERR_INVAL) with `probe_ring`, `gmmu` or a least-TLB IOMMU, whose
     *  per-GPU L2s it does away with. */
    bool              shared_l2;
    /** F-Barre ("Barre Chord: Efficient Virtual Memory Translation for
     *  Multi-Chip-Module GPUs" §V-A): with a template, every GPU (chiplet)
     *  gets an ::xlat_fbarre unit between its L2 and what lies below it,
     *  the units meshed by links of `chiplet_latency` cycles
     *  (xlat_fbarre_mesh_create()). The template is copied at create,
     *  honouring its own struct_size; its `chiplets`, `chiplet` and `name`
     *  are set by the builder, its `base_pfn` and `expanded` are the host's
     *  (the chiplets' frames and the allocator's layout). 2..8 GPUs; refused
     *  with `shared_l2`. NULL (the default): none. */
    const xlat_fbarre_config *fbarre;
    /** With `fbarre`: one-way cycles of the links between chiplets (0: 32,
     *  Table II's inter-chip network). */
    uint32_t          chiplet_latency;
    /** With `fbarre`: the PEC buffer the units fill their own from as ATS
     *  answers arrive (xlat_fbarre_pec_from_buffer(); normally the IOMMU's,
     *  the walk template's `pec`). NULL: they compute frames only for the
     *  data objects nothing told them of, that is none. Not owned: the
     *  system holds it, so it outlives the system. */
    xlat_pec_buffer  *fbarre_pec;
} xlat_system_config;

/**
 * @brief Smallest `struct_size` xlat_system_create() accepts: the size of the first
 *        released ::xlat_system_config (its members through `gmmu_cfg`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_SYSTEM_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_system_config, gmmu_cfg)

/** @brief Counters of a system as a whole (each unit has its own). */
typedef struct xlat_system_stats {
    uint64_t requests;     /**< requests accepted by xlat_system_translate() */
    uint64_t refusals;     /**< requests an L1 refused */
    uint64_t probes;       /**< probing ring: L2 misses that probed the neighbours */
    uint64_t probe_hits;   /**< of those, answered by a neighbour */
} xlat_system_stats;

/**
 * @brief xlat_system_config_init() for a caller whose ::xlat_system_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_system_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_system_config_init_sized(xlat_system_config *cfg, size_t size);

/**
 * @brief Defaults: least-TLB's Table 2: 4 GPUs of 64 CUs, the L1 and L2 TLBs
 *        of xlat_system_l1_config_init() and xlat_system_l2_config_init()
 *        (every template NULL), no link latency. `iommu` is left NULL: point
 *        it at a template filled by xlat_iommu_config_init().
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_system_config_init(xlat_system_config *cfg)
{
    xlat_system_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief xlat_system_l1_config_init() for a caller whose ::xlat_tlb_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_system_l1_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_system_l1_config_init_sized(xlat_tlb_config *cfg, size_t size);

/**
 * @brief The L1 TLB a NULL xlat_system_config::l1 stands for: xlat_tlb_config_init()
 *        with 16 entries, fully associative, 1 cycle (least-TLB's Table 2).
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_system_l1_config_init(xlat_tlb_config *cfg)
{
    xlat_system_l1_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief xlat_system_l2_config_init() for a caller whose ::xlat_tlb_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_system_l2_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_system_l2_config_init_sized(xlat_tlb_config *cfg, size_t size);

/**
 * @brief The L2 TLB a NULL xlat_system_config::l2 stands for: xlat_tlb_config_init()
 *        with 512 entries, 16 ways, 10 cycles (least-TLB's Table 2), 16 MSHRs, 4 ports.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_system_l2_config_init(xlat_tlb_config *cfg)
{
    xlat_system_l2_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Build the system and wire it.
 * @param ctx the context.
 * @param cfg the configuration (copied, with every template it points to).
 * @param out receives the handle.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, no IOMMU template, gpus outside 1..1024,
 *         cus outside 1..1024, `shared_l2` with `probe_ring`, `gmmu`,
 *         `fbarre` or a least-TLB IOMMU, `fbarre` with gpus outside 2..8,
 *         or a unit's configuration its create refuses (the message names it)
 * @retval XLAT_ERR_UNSUPPORTED a config or template from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_system_create(xlat_ctx *ctx, const xlat_system_config *cfg, xlat_system **out);

/**
 * @brief Destroy the system and every unit it built. NULL does nothing.
 * @param sys the system, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit outside the system was given one of the
 *         units it built as its next level (through xlat_system_l2(),
 *         xlat_system_iommu(), ... and their get_target) and still holds
 *         it; nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_system_destroy(xlat_system *sys);

/**
 * @brief Translate `req` from CU `req->cu` of GPU `req->gpu` (through its L1).
 * @param sys the system.
 * @param req the request (copied); `gpu` and `cu` choose the L1.
 * @param done called once with the answer.
 * @param user passed back to `done`.
 * @retval XLAT_OK accepted; `done` is called exactly once
 * @retval XLAT_ERR_AGAIN the L1 refused it (port or MSHRs busy); nothing was taken
 * @retval XLAT_ERR_INVAL NULL arguments, a GPU or CU out of range, or
 *         `req->access` not an ::xlat_access (refused by the L1)
 */
XLAT_API int xlat_system_translate(xlat_system *sys, const xlat_req *req, xlat_done_fn done,
                                   void *user);

/**
 * @brief Shoot down one page of `pasid` everywhere: every L1 and L2 TLB, the
 *        IOMMU TLB, the tracker and the walk cache.
 * @param sys the system.
 * @param pasid the address space.
 * @param vaddr an address inside the page.
 * @return the number of entries removed (>= 0): those of every L1 TLB,
 *         plus what xlat_iommu_invalidate() counts (entries of the IOMMU
 *         TLBs and the L2 TLBs; the walk cache's are not counted); or
 *         ::XLAT_ERR_INVAL for a NULL `sys`.
 */
XLAT_API int xlat_system_invalidate(xlat_system *sys, uint32_t pasid, uint64_t vaddr);

/**
 * @brief Local TLB shootdown of GPU `gpu`: its L1s and L2 are emptied; the
 *        IOMMU's tracker is left as it is (least-TLB §4.4).
 * @param sys the system.
 * @param gpu the GPU, below xlat_system_config::gpus.
 * @return the number of entries removed from its L1 and L2 TLBs (>= 0), or
 *         a negative code:
 * @retval XLAT_ERR_INVAL NULL or gpu out of range
 */
XLAT_API int xlat_system_flush_gpu(xlat_system *sys, uint32_t gpu);

/**
 * @brief Empty every TLB of the system: every GPU's L1s and L2, as
 *        xlat_system_flush_gpu(), then the IOMMU, as xlat_iommu_flush()
 *        (its TLBs and the tracker); with F-Barre, every chiplet's filters
 *        and PEC buffer too (xlat_fbarre_shootdown()). The walk caches are
 *        the host's (xlat_walker_config::pwc): xlat_pwc_flush() empties them.
 * @param sys the system.
 * @return the number of entries removed (>= 0), or ::XLAT_ERR_INVAL for a
 *         NULL `sys`.
 */
XLAT_API int xlat_system_flush(xlat_system *sys);

/**
 * @brief Migrate page `vpn` of Barre object `d` to chiplet `to` and shoot
 *        down everything that cached its old group information:
 *        xlat_barre_alloc_migrate(), then xlat_system_invalidate() of every
 *        page it lists (the page and the other members of its old group),
 *        so that no chiplet, L2 or PEC calculation can hand out the old
 *        frame ("Barre Chord: Efficient Virtual Memory Translation for
 *        Multi-Chip-Module GPUs" §VI). Call it with no request of those pages
 *        in flight, as any shootdown.
 * @param sys the system whose TLBs cache the object's pages.
 * @param alloc the allocator that mapped the object.
 * @param d the object's PEC entry.
 * @param vpn the page to move.
 * @param to the chiplet to move it to.
 * @param out receives what changed (may be NULL), as xlat_barre_alloc_migrate().
 * @return the number of TLB entries removed (>= 0), or what
 *         xlat_barre_alloc_migrate() returned (nothing was shot down), or
 *         ::XLAT_ERR_INVAL for a NULL `sys`.
 */
XLAT_API int xlat_system_barre_migrate(xlat_system *sys, xlat_barre_alloc *alloc,
                                       const xlat_pec_entry *d, uint64_t vpn, uint32_t to,
                                       xlat_barre_migration *out);

/**
 * @brief CU `cu` of GPU `gpu`'s L1 TLB.
 * @param sys the system, or NULL.
 * @param gpu the GPU.
 * @param cu the compute unit.
 * @return the TLB, owned by the system; NULL for NULL or out of range.
 */
XLAT_API xlat_tlb *xlat_system_l1(const xlat_system *sys, uint32_t gpu, uint32_t cu);
/**
 * @brief GPU `gpu`'s L2 TLB.
 * @param sys the system, or NULL.
 * @param gpu the GPU.
 * @return the TLB, owned by the system (the one shared TLB for every GPU with
 *         xlat_system_config::shared_l2); NULL for NULL or out of range.
 */
XLAT_API xlat_tlb *xlat_system_l2(const xlat_system *sys, uint32_t gpu);
/**
 * @brief GPU `gpu`'s F-Barre unit (xlat_system_config::fbarre).
 * @param sys the system, or NULL.
 * @param gpu the GPU (chiplet).
 * @return the unit, owned by the system; NULL without F-Barre, for NULL or
 *         out of range.
 */
XLAT_API xlat_fbarre *xlat_system_fbarre(const xlat_system *sys, uint32_t gpu);
/**
 * @brief GPU `gpu`'s GMMU.
 * @param sys the system, or NULL.
 * @param gpu the GPU.
 * @return the GMMU, owned by the system; NULL for NULL, out of range, or a
 *         system built without GMMUs.
 */
XLAT_API xlat_gmmu *xlat_system_gmmu(const xlat_system *sys, uint32_t gpu);
/**
 * @brief GPU `gpu`'s link to the IOMMU.
 * @param sys the system, or NULL.
 * @param gpu the GPU.
 * @return the link, owned by the system; NULL for NULL, out of range, or a
 *         GPU above 0 with xlat_system_config::shared_l2.
 */
XLAT_API xlat_link *xlat_system_link(const xlat_system *sys, uint32_t gpu);
/**
 * @brief The shared IOMMU.
 * @param sys the system, or NULL.
 * @return the IOMMU, owned by the system; NULL for NULL.
 */
XLAT_API xlat_iommu *xlat_system_iommu(const xlat_system *sys);
/**
 * @brief Number of GPUs.
 * @param sys the system, or NULL.
 * @return xlat_system_config::gpus; 0 for NULL.
 */
XLAT_API uint32_t xlat_system_gpus(const xlat_system *sys);
/**
 * @brief Bytes of host memory the TLBs of one GPU hold (its L1s and L2).
 * @param sys the system, or NULL.
 * @param gpu the GPU.
 * @return the sum of xlat_tlb_memory() over them; 0 for NULL or out of range.
 */
XLAT_API size_t xlat_system_gpu_memory(const xlat_system *sys, uint32_t gpu);
/**
 * @brief Copy the system counters into `*out`.
 * @param sys the system (NULL: zeros).
 * @param out receives the counters, an ::xlat_system_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_system_stats_get(const xlat_system *sys, xlat_system_stats *out,
                                    size_t out_size);

/**
 * @brief Zero the system's own counters and latency histogram (its
 *        probing-ring stops'; see xlat_unit_latency_get()). Its TLBs, links,
 *        GMMUs and IOMMU keep theirs: reset every unit at once with
 *        xlat_stats_reset().
 * @param sys the system; NULL does nothing.
 */
XLAT_API void xlat_system_stats_reset(xlat_system *sys);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_SYSTEM_H */
