/* Mostly-inclusive, the baseline of least-TLB (§2.2): a walk fills the IOMMU
 * TLB and the L2 (the L2 fills itself from the answer); evictions at any
 * level invalidate nothing and an L2 victim is simply dropped. */
#include "incl.h"

const struct incl_policy xlat__incl_mostly = {
    .name = "mostly-inclusive",
    .state_size = sizeof(struct incl_base),
    .init = xlat__incl_base_init,
    .on_walk = xlat__incl_fill_on_walk,
};
