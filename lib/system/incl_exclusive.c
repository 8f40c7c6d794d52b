/* Exclusive (least-TLB §2.2): a translation lives in one level. A walk fills
 * only the L2, an IOMMU hit moves the entry into the requester's L2, and an
 * L2 victim moves into the IOMMU TLB, whose own victims are dropped. */
#include "incl_policies.h"

static void victim_to_iommu(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    m->st.victims_in++;
    xlat__iommu_insert(m, e, gpu);
}

const struct incl_ops xlat__incl_exclusive = {
    .name = "exclusive",
    .on_hit = xlat__incl_move_on_hit,
    .on_walk = xlat__incl_no_fill_on_walk,
    .on_answer = xlat__incl_nothing_on_answer,
    .on_l2_victim = victim_to_iommu,
    .on_iommu_victim = xlat__incl_drop_iommu_victim,
    .remote_gpu = xlat__incl_no_remote,
    .on_remote = xlat__incl_no_remote_result,
    .on_l2_gone = xlat__incl_nothing_on_l2_gone,
};
