/* Mostly-inclusive, the baseline of least-TLB (§2.2): a walk fills the IOMMU
 * TLB and the L2 (the L2 fills itself from the answer); evictions at any
 * level invalidate nothing and an L2 victim is simply dropped. */
#include "incl_policies.h"

const struct incl_ops xlat__incl_mostly = {
    .name = "mostly-inclusive",
    .on_hit = xlat__incl_nothing_on_hit,
    .on_walk = xlat__incl_fill_on_walk,
    .on_answer = xlat__incl_nothing_on_answer,
    .on_l2_victim = xlat__incl_drop_l2_victim,
    .on_iommu_victim = xlat__incl_drop_iommu_victim,
    .remote_gpu = xlat__incl_no_remote,
    .on_remote = xlat__incl_no_remote_result,
    .on_l2_gone = xlat__incl_nothing_on_l2_gone,
};
