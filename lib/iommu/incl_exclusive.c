/* Exclusive (least-TLB §2.2): a translation lives in one level. A walk fills
 * only the L2, an IOMMU hit moves the entry into the requester's L2, and an
 * L2 victim moves into the IOMMU TLB, whose own victims are dropped. */
#include "incl.h"

static void victim_to_iommu(void *state, uint32_t gpu, const xlat_tlb_entry *e, uint32_t tag)
{
    const struct incl_services *sv = ((struct incl_base *)state)->sv;
    (void)tag;
    sv->st->victims_in++;
    sv->tlb_insert(sv->iommu, e, gpu);
}

const struct incl_policy xlat__incl_exclusive = {
    .name = "exclusive",
    .state_size = sizeof(struct incl_base),
    .init = xlat__incl_base_init,
    .on_hit = xlat__incl_move_on_hit,
    .on_l2_victim = victim_to_iommu,
};
