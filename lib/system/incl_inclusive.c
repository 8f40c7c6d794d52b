/* Strictly inclusive (least-TLB §2.2): filled like mostly-inclusive, but an
 * IOMMU TLB victim is invalidated in every L2 TLB, so an L2 only ever holds
 * what the IOMMU TLB holds. */
#include "incl_policies.h"

static void back_invalidate(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    xlat__iommu_back_invalidate(m, e);
}

const struct incl_ops xlat__incl_inclusive = {
    .name = "inclusive",
    .on_hit = xlat__incl_nothing_on_hit,
    .on_walk = xlat__incl_fill_on_walk,
    .on_answer = xlat__incl_nothing_on_answer,
    .on_l2_victim = xlat__incl_drop_l2_victim,
    .on_iommu_victim = back_invalidate,
    .remote_gpu = xlat__incl_no_remote,
    .on_remote = xlat__incl_no_remote_result,
    .on_l2_gone = xlat__incl_nothing_on_l2_gone,
};
