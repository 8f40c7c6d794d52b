/*
 * least-inclusive, the least-TLB policy ("Improving Address Translation in
 * Multi-GPUs via Sharing and Spilling aware TLB Design" §4): translations
 * enter only the L2, an L2 victim goes to the IOMMU TLB (a victim TLB), an
 * IOMMU hit moves the entry out to the requester, and the Local TLB tracker
 * lets an IOMMU miss be served by another GPU's L2 while the walk runs.
 *
 * Single-application mode (Algorithm 1) tracks every L2 fill and keeps a
 * remote copy where it is. Multi-application mode (Algorithm 2) tracks
 * spills only: an IOMMU victim with spill credit goes to the L2 of the GPU
 * the receiver rule picks, a spilled entry evicted from its receiver is
 * dropped, and a remote hit moves the spilled entry back to its owner.
 */
#include "incl_policies.h"

static void track_fill(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    xlat__tracker_add(m, gpu, e);
}

/* Algorithm 1, Insert(): the L2 victim leaves the tracker for the IOMMU TLB. */
static void single_l2_victim(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    xlat__tracker_del(m, gpu, e);
    m->st.victims_in++;
    m->evictions[gpu]++;
    xlat__iommu_insert(m, e, gpu);
}

/* Algorithm 2, Insert(): a native victim (or one with spill credit left)
 * enters the IOMMU TLB; a spilled one without credit is abandoned. */
static void multi_l2_victim(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    bool spilled = e->flags & IOMMU_SPILLED;
    uint32_t sc = e->flags & IOMMU_SC_MASK;
    if (spilled)
        xlat__tracker_del(m, gpu, e);
    if (spilled && sc == 0) {
        m->st.victims_dropped++;
        return;
    }
    xlat_tlb_entry in = *e;
    in.flags = (uint16_t)sc;
    m->st.victims_in++;
    if (!spilled)
        m->evictions[gpu]++; /* the Eviction Counter counts native victims */
    xlat__iommu_insert(m, &in, gpu);
}

static void spill_victim(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    xlat__iommu_spill(m, e);
}

static int tracked_gpu(struct xlat_iommu *m, const struct iommu_req *r)
{
    return xlat__tracker_find(m, r->req.pasid, r->req.vaddr, r->req.gpu);
}

static void forget_remote(struct xlat_iommu *m, uint32_t gpu, const xlat_req *req,
                          const xlat_tlb_entry *e, bool hit)
{
    if (hit) {
        xlat__tracker_del(m, gpu, e);
        return;
    }
    /* A false positive: drop what the tracker claimed, whatever its size. */
    xlat__tracker_forget(m, gpu, req->pasid, req->vaddr);
}

/* Single-app: a remote hit leaves the remote copy where it is (sharing). */
static void single_remote(struct xlat_iommu *m, uint32_t gpu, const xlat_req *req, bool hit,
                          const xlat_tlb_entry *e)
{
    if (!hit)
        forget_remote(m, gpu, req, e, false);
}

/* Multi-app: the spilled entry leaves its receiver for the requester. */
static void multi_remote(struct xlat_iommu *m, uint32_t gpu, const xlat_req *req, bool hit,
                         const xlat_tlb_entry *e)
{
    forget_remote(m, gpu, req, e, hit);
    if (hit)
        xlat_tlb_invalidate(m->l2[gpu], e->pasid, e->vpn << e->page_shift);
}

/* Single-app tracks every L2 entry; multi-app only the spilled guests. */
static void single_l2_gone(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    xlat__tracker_del(m, gpu, e);
}

static void multi_l2_gone(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (e->flags & IOMMU_SPILLED)
        xlat__tracker_del(m, gpu, e);
}

const struct incl_ops xlat__incl_least = {
    .name = "least-inclusive",
    .on_hit = xlat__incl_move_on_hit,
    .on_walk = xlat__incl_no_fill_on_walk,
    .on_answer = track_fill,
    .on_l2_victim = single_l2_victim,
    .on_iommu_victim = xlat__incl_drop_iommu_victim,
    .remote_gpu = tracked_gpu,
    .on_remote = single_remote,
    .on_l2_gone = single_l2_gone,
};

const struct incl_ops xlat__incl_least_multi = {
    .name = "least-inclusive (multi-application)",
    .on_hit = xlat__incl_move_on_hit,
    .on_walk = xlat__incl_no_fill_on_walk,
    .on_answer = xlat__incl_nothing_on_answer,
    .on_l2_victim = multi_l2_victim,
    .on_iommu_victim = spill_victim,
    .remote_gpu = tracked_gpu,
    .on_remote = multi_remote,
    .on_l2_gone = multi_l2_gone,
};
