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
 * xlat_mcm_preset(&mcm, sizeof(mcm), XLAT_MCM_BASELINE);
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
 * @brief A whole MCM-GPU configuration: the system's and every template it
 *        points to. `system.l1`, `system.l2` and `system.iommu` lead to the
 *        members below, and `iommu.walk` to `walk`, so the struct must be
 *        filled where it is used: a copy's pointers still lead to the
 *        original. xlat_system_create() copies everything, so the struct may
 *        go once it returns.
 */
typedef struct xlat_mcm_config {
    xlat_system_config system; /**< chiplets, CUs, PCIe latency, shared L2 */
    xlat_tlb_config    l1;     /**< every CU's L1 TLB */
    xlat_tlb_config    l2;     /**< every chiplet's L2 TLB (the shared one's with XLAT_MCM_SHARED_L2) */
    xlat_iommu_config  iommu;  /**< the IOMMU */
    xlat_walker_config walk;   /**< its walkers: `pt` is the caller's to set */
    /** One-way cycles of a message on the inter-chiplet mesh (Table II: 32, at
     *  768 GB/s). No unit of the baseline sends one; F-Barre's peer messages do. */
    uint32_t           chiplet_latency;
} xlat_mcm_config;

/**
 * @brief Fill `cfg` with the MCM-GPU of `variant`.
 *
 * The 500-cycle walk is 4 reads of 125 cycles (xlat_iommu_walker_config_init()):
 * it holds for a 4-level page table (x86-64's), without a page walk cache;
 * a table of L levels walks in 125 x L cycles. The IOMMU admits walkers +
 * queue_entries ATS requests (64): the walks in service and the walk queue,
 * so a request beyond them waits in the PCIe link (the walk queue's
 * back-pressure), also with an IOMMU TLB.
 *
 * @param cfg the configuration to fill; everything is set, `walk.pt` NULL.
 * @param cfg_size sizeof(*cfg) as the caller was built: the struct nests
 *        other configurations, so any other size (a host built against
 *        another libxlat) is refused.
 * @param variant the baseline or a comparison point.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `cfg`, or `variant` not an ::xlat_mcm_variant
 *         (`cfg` is left as it was)
 * @retval XLAT_ERR_UNSUPPORTED `cfg_size` is not this library's
 *         sizeof(xlat_mcm_config) (`cfg` is left as it was)
 */
XLAT_API int xlat_mcm_preset(xlat_mcm_config *cfg, size_t cfg_size, xlat_mcm_variant variant);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_MCM_H */
