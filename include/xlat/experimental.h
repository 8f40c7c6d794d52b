/**
 * @file experimental.h
 * @brief Experimental helpers, outside the stability promise: a paper's
 *        rules on their own, a unit's internal state, and preloads.
 *
 * xlat.h does not include this header: a host that wants these helpers
 * includes <xlat/experimental.h> itself, knowing that any of them may change
 * its signature or meaning, or go away, in any release, MINOR or PATCH
 * (doc/abi.md, "What is stable"). They are exported from the same library
 * and named like the rest; only this header marks them apart, as zstd's
 * ZSTD_STATIC_LINKING_ONLY section does.
 *
 * What a host needs to build and run a model is in the stable headers: the
 * DWS++ parameters (::xlat_dwspp_config, xlat_dwspp_preset()) stay in
 * walker.h, the GMMU's routing and counters in gmmu.h.
 */
#ifndef XLAT_EXPERIMENTAL_H
#define XLAT_EXPERIMENTAL_H

#include "common.h"
#include "tlb.h"
#include "walker.h"
#include "gmmu.h"
#include "iommu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup experimental Experimental helpers
 * @brief Outside the stability promise (doc/abi.md): for tests, for checking
 *        a model against its paper, and for reproducing a paper's starting
 *        state.
 *
 * @code
 * #include <xlat/xlat.h>
 * #include <xlat/experimental.h>  // not included by xlat.h
 *
 * xlat_tlb_entry e = {.pasid = 1, .vpn = 0x42, .pfn = 0x900, .page_shift = 12};
 * xlat_iommu_preload(iommu, 0, &e);  // warm the IOMMU TLB as GPU0's victim
 * @endcode
 * @{
 */

/** @name Page Walk Stealing (DWS++): the rules of "Improving GPU
 *  Multi-tenancy with Page Walk Stealing" §VI-B on their own
 *  @{ */

/**
 * @brief DIFF_THRES for an epoch in which the busier tenant enqueued `more`
 *        walks and the other `fewer` (the ratio ladder of Table IV). A ratio
 *        with `fewer` = 0 is infinite.
 * @param cfg the parameters (ratio, diff_thres, strict_bounds).
 * @param more arrivals of one tenant in the epoch.
 * @param fewer arrivals of the other; the two may be given in either order.
 * @return the rung's DIFF_THRES (`diff_thres[4]` beyond the last bound or
 *         when `fewer` is 0); 1.0 ("no stealing") for a NULL `cfg`.
 */
XLAT_API double xlat_dwspp_threshold(const xlat_dwspp_config *cfg, uint64_t more, uint64_t fewer);

/**
 * @brief The DWS++ steal decision of a walker whose owner has walks queued.
 * @param cfg parameters (queue_thres).
 * @param diff_thres the current DIFF_THRES.
 * @param is_stolen the walker's last walk was stolen (no consecutive steals).
 * @param own_queue_len walks waiting in the walker's own queue.
 * @param queue_cap capacity of one walker's queue.
 * @param own_queued walks of the owner queued anywhere.
 * @param own_capacity the normaliser of `own_queued`: the pool passes all
 *        the entries of the page walk queue (queue_cap x walkers), as §VI-B
 *        divides the difference of the tenants' pending walks by "the number
 *        of entries in the page walk queues"; a tenant's own slots give
 *        per-tenant occupancies instead.
 * @param other_queued walks of the other tenant queued anywhere.
 * @param other_capacity the normaliser of `other_queued` (as `own_capacity`).
 * @return true to steal from the other tenant, false to serve the owner.
 */
XLAT_API bool xlat_dwspp_should_steal(const xlat_dwspp_config *cfg, double diff_thres,
                                      bool is_stolen, uint32_t own_queue_len, uint32_t queue_cap,
                                      uint64_t own_queued, uint64_t own_capacity,
                                      uint64_t other_queued, uint64_t other_capacity);

/**
 * @brief The current DIFF_THRES of `tenant` in a DWS++ pool: 1.0 ("no
 *        stealing") until the first epoch ends, then the rung of the ratio
 *        ladder its arrivals fell on (Table IV). Read-only, for tests and
 *        statistics.
 * @param pool the pool (any scheduler; only DWS++ changes the value).
 * @param tenant a tenant below xlat_walker_config::tenants.
 * @return the threshold; 1.0 for NULL, a tenant out of range or another scheduler.
 */
XLAT_API double xlat_walker_diff_thres(const xlat_walker *pool, uint32_t tenant);

/** @} */

/** @name GMMU bypass: the rule of "Dynamic GMMU Bypass for Address
 *  Translation in Multi-GPU Systems" §4 on its own
 *  @{ */

/**
 * @brief The §4 decision alone: the route that follows an epoch with
 *        `local` and `remote` counted requests.
 * @param cfg supplies t1, t2 and min_samples.
 * @param local the epoch's L.
 * @param remote the epoch's R.
 * @param current the route in force, kept when local + remote < min_samples.
 * @return ::XLAT_GMMU_ROUTE_LOCAL when L/(L+R) > t1, ::XLAT_GMMU_ROUTE_BYPASS
 *         when it is < t2, else ::XLAT_GMMU_ROUTE_PARALLEL; `current` for a
 *         NULL `cfg`.
 */
XLAT_API xlat_gmmu_routing xlat_gmmu_decide(const xlat_gmmu_config *cfg, uint64_t local,
                                            uint64_t remote, xlat_gmmu_routing current);

/** @} */

/** @name IOMMU: preloads and the least-TLB tracker
 *  @{ */

/**
 * @brief Put `e` into the IOMMU TLB as if GPU `source`'s L2 had evicted it
 *        (its Eviction Counter and occupancy count it); for warming up and
 *        for reproducing a paper's starting state.
 * @param iommu the IOMMU.
 * @param source the GPU whose victim it counts as, below xlat_iommu_config::gpus.
 * @param e the translation (copied).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL, a bad source or page_shift, an IOMMU without a
 *         TLB (xlat_iommu_config::no_tlb), or an entry the
 *         IOMMU TLB refuses (a vpn too wide for its page size); nothing is
 *         inserted or counted
 * @retval XLAT_ERR_NOMEM an unbounded IOMMU TLB could not grow (nothing counted)
 */
XLAT_API int xlat_iommu_preload(xlat_iommu *iommu, uint32_t source, const xlat_tlb_entry *e);

/**
 * @brief Put `e` into GPU `gpu`'s attached L2 TLB as if a walk had filled it
 *        (the tracker records it in single-application least-TLB).
 * @param iommu the IOMMU.
 * @param gpu the GPU, below xlat_iommu_config::gpus.
 * @param e the translation (copied).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL, a bad GPU, no L2 attached, or an entry the TLB refuses
 * @return otherwise the negative code of the port's `insert` (for the default
 *         port over a TLB, xlat_tlb_insert()'s: ::XLAT_ERR_NOMEM when an
 *         unbounded TLB cannot grow); nothing is tracked then.
 */
XLAT_API int xlat_iommu_preload_l2(xlat_iommu *iommu, uint32_t gpu, const xlat_tlb_entry *e);

/**
 * @brief Whether GPU `gpu`'s tracker partition reports (pasid, vaddr) as present.
 * @param iommu the IOMMU, or NULL.
 * @param gpu the GPU.
 * @param pasid the address space.
 * @param vaddr the virtual address.
 * @return the tracker's answer (it may have false positives); false for
 *         NULL, a GPU out of range, or an inclusion policy without a tracker.
 */
XLAT_API bool xlat_iommu_tracked(const xlat_iommu *iommu, uint32_t gpu, uint32_t pasid,
                                 uint64_t vaddr);

/** @} */

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_EXPERIMENTAL_H */
