/* Strictly inclusive (least-TLB §2.2): filled like mostly-inclusive, but an
 * IOMMU TLB victim is invalidated in every L2 TLB, so an L2 only ever holds
 * what the IOMMU TLB holds. */
#include "incl.h"

static void back_invalidate(void *state, const xlat_tlb_entry *w)
{
    const struct incl_services *sv = ((struct incl_base *)state)->sv;
    for (uint32_t g = 0; g < sv->cfg->gpus; g++)
        if (sv->l2_invalidate(sv->iommu, g, w->pasid, w->vpn << w->page_shift) > 0)
            sv->st->back_invalidations++;
}

const struct incl_policy xlat__incl_inclusive = {
    .name = "inclusive",
    .state_size = sizeof(struct incl_base),
    .init = xlat__incl_base_init,
    .on_walk = xlat__incl_fill_on_walk,
    .on_iommu_victim = back_invalidate,
};
