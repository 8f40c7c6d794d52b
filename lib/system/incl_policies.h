/* The shared steps of lib/system/incl_common.c, for the policy tables. */
#ifndef XLAT_INCL_POLICIES_H
#define XLAT_INCL_POLICIES_H

#include "../iommu/iommu_internal.h"

void xlat__incl_nothing_on_hit(struct xlat_iommu *m, const xlat_tlb_entry *e);
void xlat__incl_move_on_hit(struct xlat_iommu *m, const xlat_tlb_entry *e);
void xlat__incl_fill_on_walk(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t gpu);
void xlat__incl_no_fill_on_walk(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t gpu);
void xlat__incl_nothing_on_answer(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
void xlat__incl_drop_l2_victim(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
void xlat__incl_drop_iommu_victim(struct xlat_iommu *m, const xlat_tlb_entry *e);
int xlat__incl_no_remote(struct xlat_iommu *m, const struct iommu_req *r);
void xlat__incl_no_remote_result(struct xlat_iommu *m, uint32_t gpu, const xlat_req *req, bool hit,
                                 const xlat_tlb_entry *e);
void xlat__incl_nothing_on_l2_gone(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);

#endif
