/**
 * @file mcm.h
 * @brief The MCM-GPU of "Barre Chord: Efficient Virtual Memory Translation
 *        for Multi-Chip-Module GPUs" (Table II) and its comparison points, as
 *        a filled system configuration.
 */
#ifndef XLAT_MCM_H
#define XLAT_MCM_H

#include "common.h"
#include "iommu.h"
#include "system.h"
#include "tlb.h"
#include "walker.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup mcm MCM-GPU presets
 * @brief Barre Chord's baseline MCM-GPU and the comparison points of its
 *        evaluation, as an ::xlat_system_config and the templates it points to.
 *
 * The baseline (Table II, §III-A): 4 chiplets of 64 CUs; per CU an L1 TLB
 * of 64 entries, fully associative, 1 cycle, 16 MSHRs, LRU; per chiplet an
 * L2 TLB of 512 entries, 16 ways, 10 cycles, 16 MSHRs; PCIe to the IOMMU,
 * 150 cycles each way; an IOMMU with no TLB, 16 walkers and a 48-entry
 * walk queue (FCFS), 500-cycle walks. See doc/barre.md.
 *
 * @code
 * xlat_mcm_config mcm;                                   // fill it where it lives
 * xlat_mcm_preset(&mcm, XLAT_MCM_BASELINE);
 * mcm.walk.pt = pt;                                      // a 4-level page table
 * xlat_system *sys;
 * xlat_system_create(ctx, &mcm.system, &sys);             // copies everything
 * @endcode
 * @{
 */

/** @brief Which system: the baseline or one comparison point (each differs from it in one way). */
typedef enum xlat_mcm_variant {
    /** Table II: no IOMMU TLB, 16 walkers, 48-entry walk queue, L2 with 16 MSHRs. */
    XLAT_MCM_BASELINE = 0,
    /** Fig 4: the L2 TLBs with 32 MSHRs. */
    XLAT_MCM_L2_MSHRS_X2 = 1,
    /** Fig 1, Fig 23: 8 walkers. */
    XLAT_MCM_WALKERS_8 = 2,
    /** Fig 1, Fig 23: 32 walkers. */
    XLAT_MCM_WALKERS_32 = 3,
    /** Fig 1: "infinite" walkers, ::XLAT_MCM_WALKERS_UNBOUNDED of them: no walk
     *  ever waits for a walker. */
    XLAT_MCM_WALKERS_INF = 4,
    /** §VII-J (Fig 27b): an IOMMU TLB of 2048 entries with a 200-cycle lookup. */
    XLAT_MCM_IOMMU_TLB = 5,
    /** §VII-A: least-TLB on the chiplets, its Local TLB tracker an exact set of
     *  1024 keys per chiplet (xlat_iommu_config::tracker_exact), over the IOMMU
     *  TLB of ::XLAT_MCM_IOMMU_TLB (least-TLB's victim TLB). */
    XLAT_MCM_LEAST = 6,
    /** §III-D (Fig 6): the oracle shared L2 TLB (xlat_system_config::shared_l2),
     *  4x the entries, ports and MSHRs of one chiplet's, its latency unchanged. */
    XLAT_MCM_SHARED_L2 = 7
} xlat_mcm_variant;

/**
 * @brief Walkers of ::XLAT_MCM_WALKERS_INF: at least as many as ATS requests
 *        can be in the IOMMU at once. Each holds an L2 MSHR until it is
 *        answered, so at most chiplets x L2 MSHRs are (64 in the baseline,
 *        128 with doubled MSHRs); 1024 covers 16 chiplets of 64 MSHRs.
 */
#define XLAT_MCM_WALKERS_UNBOUNDED 1024u

/**
 * @brief Fill the parts of an MCM-GPU configuration with `variant`: the
 *        system's configuration and the templates it points to, each a sized
 *        struct of the caller's, started by its own config_init (which sets
 *        its `struct_size`). At most each part's `struct_size` bytes are
 *        written, so a host built against another libxlat gets what its
 *        structs can hold; then `system->l1`, `system->l2` and
 *        `system->iommu` lead to the parts, `iommu->walk` to `walk`, and
 *        `walk->pt` is the caller's to set.
 *
 * The 500-cycle walk is 4 reads of 125 cycles (xlat_iommu_walker_config_init()):
 * it holds for a 4-level page table (x86-64's), without a page walk cache;
 * a table of L levels walks in 125 x L cycles. The IOMMU admits walkers +
 * queue_entries ATS requests (64): the walks in service and the walk queue,
 * so a request beyond them waits in the PCIe link (the walk queue's
 * back-pressure), also with an IOMMU TLB. xlat_system_config::chiplet_latency
 * is Table II's 32 (the mesh F-Barre's peer messages cross).
 * @param variant the baseline or a comparison point.
 * @param system the system's configuration.
 * @param l1 every CU's L1 TLB.
 * @param l2 every chiplet's L2 TLB (the shared one's with ::XLAT_MCM_SHARED_L2).
 * @param iommu the IOMMU.
 * @param walk its walkers.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL part, a part whose `struct_size` is below its
 *         first release's (not started by its config_init), or `variant` not
 *         an ::xlat_mcm_variant; nothing is written
 */
XLAT_API int xlat_mcm_preset_parts(xlat_mcm_variant variant, xlat_system_config *system,
                                   xlat_tlb_config *l1, xlat_tlb_config *l2,
                                   xlat_iommu_config *iommu, xlat_walker_config *walk);

/**
 * @brief A whole MCM-GPU configuration in one place: the system's and every
 *        template it points to. A convenience of this header (the library
 *        sees only its parts), filled where it is used: a copy's pointers
 *        still lead to the original. xlat_system_create() copies
 *        everything, so the struct may go once it returns.
 */
typedef struct xlat_mcm_config {
    xlat_system_config system; /**< chiplets, CUs, PCIe latency, mesh latency, shared L2 */
    xlat_tlb_config    l1;     /**< every CU's L1 TLB */
    xlat_tlb_config    l2;     /**< every chiplet's L2 TLB (the shared one's with XLAT_MCM_SHARED_L2) */
    xlat_iommu_config  iommu;  /**< the IOMMU */
    xlat_walker_config walk;   /**< its walkers: `pt` is the caller's to set */
} xlat_mcm_config;

/**
 * @brief Fill `cfg` with the MCM-GPU of `variant`: each part started by its
 *        config_init, then xlat_mcm_preset_parts().
 * @param cfg the configuration to fill; everything is set, `walk.pt` NULL.
 * @param variant the baseline or a comparison point.
 * @return what xlat_mcm_preset_parts() returns; ::XLAT_ERR_INVAL for a NULL `cfg`.
 */
static inline int xlat_mcm_preset(xlat_mcm_config *cfg, xlat_mcm_variant variant)
{
    if (!cfg)
        return XLAT_ERR_INVAL;
    xlat_system_config_init(&cfg->system);
    xlat_tlb_config_init(&cfg->l1);
    xlat_tlb_config_init(&cfg->l2);
    xlat_iommu_config_init(&cfg->iommu);
    xlat_walker_config_init(&cfg->walk);
    return xlat_mcm_preset_parts(variant, &cfg->system, &cfg->l1, &cfg->l2, &cfg->iommu,
                                 &cfg->walk);
}

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_MCM_H */
