/* Steps several inclusion policies share. */
#include "incl_policies.h"

void xlat__incl_nothing_on_hit(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    (void)m;
    (void)e;
}

/* Exclusive filling: a hit leaves the IOMMU TLB for the requester's L2. */
void xlat__incl_move_on_hit(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    xlat__iommu_remove(m, e->pasid, e->vpn << e->page_shift);
}

void xlat__incl_fill_on_walk(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t gpu)
{
    xlat__iommu_insert(m, e, gpu);
    if (m->tlb2)
        xlat_tlb_insert(m->tlb2, e, NULL);
}

void xlat__incl_no_fill_on_walk(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t gpu)
{
    (void)m;
    (void)e;
    (void)gpu;
}

void xlat__incl_nothing_on_answer(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    (void)m;
    (void)gpu;
    (void)e;
}

void xlat__incl_drop_l2_victim(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    (void)m;
    (void)gpu;
    (void)e;
}

void xlat__incl_drop_iommu_victim(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    (void)m;
    (void)e;
}

int xlat__incl_no_remote(struct xlat_iommu *m, const struct iommu_req *r)
{
    (void)m;
    (void)r;
    return -1;
}

void xlat__incl_no_remote_result(struct xlat_iommu *m, uint32_t gpu, const xlat_req *req, bool hit,
                                 const xlat_tlb_entry *e)
{
    (void)m;
    (void)gpu;
    (void)req;
    (void)hit;
    (void)e;
}

void xlat__incl_nothing_on_l2_gone(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    (void)m;
    (void)gpu;
    (void)e;
}
