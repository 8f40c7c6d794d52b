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
#include "incl_least.h"

static int least_init(void *state, const struct incl_services *sv)
{
    struct least *s = state;
    if (sv->cfg->spill_counter > LEAST_SC_MAX)
        return xlat__fail(sv->ctx, XLAT_ERR_INVAL, "iommu %s: spill_counter must be <= %u",
                          sv->name, LEAST_SC_MAX);
    s->base.sv = sv;
    s->gpus = sv->cfg->gpus;
    return xlat__tracker_init(s);
}

static void least_fini(void *state) { xlat__tracker_release(state); }

/* A translation leaving for an L2 is native, with full spill credit. */
static void native(void *state, xlat_tlb_entry *e)
{
    struct least *s = state;
    e->meta.spill_credit = (uint8_t)s->base.sv->cfg->spill_counter;
    e->meta.spilled = 0;
}

static void track_fill(void *state, uint32_t gpu, const xlat_tlb_entry *e)
{
    xlat__tracker_add(state, gpu, e);
}

static uint32_t victim_tag(void *state) { return ((struct least *)state)->chain; }

/* Algorithm 1, Insert(): the L2 victim leaves the tracker for the IOMMU TLB. */
static void single_l2_victim(void *state, uint32_t gpu, const xlat_tlb_entry *e, uint32_t tag)
{
    struct least *s = state;
    (void)tag;
    xlat__tracker_del(s, gpu, e);
    s->base.sv->st->victims_in++;
    s->evictions[gpu]++;
    s->base.sv->tlb_insert(s->base.sv->iommu, e, gpu);
}

/* Algorithm 2, Insert(): a native victim (or one with spill credit left)
 * enters the IOMMU TLB; a spilled one without credit is abandoned. A spill
 * its insert sets off is one link longer than the chain behind the victim. */
static void multi_l2_victim(void *state, uint32_t gpu, const xlat_tlb_entry *e, uint32_t tag)
{
    struct least *s = state;
    bool spilled = e->meta.spilled;
    uint8_t sc = e->meta.spill_credit;
    if (spilled)
        xlat__tracker_del(s, gpu, e);
    if (spilled && sc == 0) {
        s->base.sv->st->victims_dropped++;
        return;
    }
    xlat_tlb_entry in = *e;
    in.meta.spilled = 0; /* back in the IOMMU TLB with the credit it has left */
    s->base.sv->st->victims_in++;
    if (!spilled)
        s->evictions[gpu]++; /* the Eviction Counter counts native victims */
    s->chain = tag;
    s->base.sv->tlb_insert(s->base.sv->iommu, &in, gpu);
    s->chain = 0;
}

static void iommu_in(void *state, const xlat_tlb_entry *e, uint32_t source)
{
    (void)e;
    ((struct least *)state)->occupancy[source]++;
}

static void iommu_out(void *state, const xlat_tlb_entry *e)
{
    struct least *s = state;
    if (e->meta.home_gpu < s->gpus && s->occupancy[e->meta.home_gpu])
        s->occupancy[e->meta.home_gpu]--;
}

static void spill_victim(void *state, const xlat_tlb_entry *e) { xlat__least_spill(state, e); }

static int tracked_gpu(void *state, const xlat_req *req)
{
    return xlat__tracker_find(state, req->pasid, req->vaddr, req->gpu);
}

/* Single-app: a remote hit leaves the remote copy where it is (sharing); a
 * false positive drops what the tracker claimed, whatever its size. */
static void single_remote(void *state, uint32_t gpu, const xlat_req *req, bool hit,
                          const xlat_tlb_entry *e)
{
    (void)e;
    if (!hit)
        xlat__tracker_forget(state, gpu, req->pasid, req->vaddr);
}

/* Multi-app: the spilled entry leaves its receiver for the requester. */
static void multi_remote(void *state, uint32_t gpu, const xlat_req *req, bool hit,
                         const xlat_tlb_entry *e)
{
    struct least *s = state;
    if (!hit) {
        xlat__tracker_forget(s, gpu, req->pasid, req->vaddr);
        return;
    }
    xlat__tracker_del(s, gpu, e);
    s->base.sv->l2_invalidate(s->base.sv->iommu, gpu, e->pasid, e->vpn << e->page_shift);
}

/* Single-app tracks every L2 entry; multi-app only the spilled guests. */
static void single_l2_gone(void *state, uint32_t gpu, const xlat_tlb_entry *e)
{
    xlat__tracker_del(state, gpu, e);
}

static void multi_l2_gone(void *state, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (e->meta.spilled)
        xlat__tracker_del(state, gpu, e);
}

/* least-TLB §4.4: an IOMMU TLB shootdown resets the tracker; spilled
 * entries become unreachable and age out of the L2s. */
static void flushed(void *state)
{
    struct least *s = state;
    memset(s->occupancy, 0, s->gpus * sizeof(*s->occupancy));
    xlat__tracker_reset(s);
}

/* As if GPU `source`'s L2 had evicted `e`: its Eviction Counter counts it
 * before the insert (a spill that sets off sees it), unless refused. */
static int preload(void *state, uint32_t source, const xlat_tlb_entry *e)
{
    struct least *s = state;
    s->evictions[source]++;
    int rc = s->base.sv->tlb_insert(s->base.sv->iommu, e, source);
    if (rc < 0)
        s->evictions[source]--;
    return rc;
}

static uint64_t counter(const void *state, uint32_t gpu)
{
    const struct least *s = state;
    return s->base.sv->cfg->spill_rx == XLAT_SPILL_OCCUPANCY ? s->occupancy[gpu] : s->evictions[gpu];
}

static bool tracked(const void *state, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    return xlat__tracker_holds(state, gpu, pasid, vaddr);
}

const struct incl_policy xlat__incl_least = {
    .name = "least-inclusive",
    .state_size = sizeof(struct least),
    .state_per_gpu = LEAST_PER_GPU,
    .init = least_init,
    .fini = least_fini,
    .native = native,
    .on_hit = xlat__incl_move_on_hit,
    .on_answer = track_fill,
    .on_l2_victim = single_l2_victim,
    .on_iommu_in = iommu_in,
    .on_iommu_out = iommu_out,
    .remote_gpu = tracked_gpu,
    .on_remote = single_remote,
    .on_l2_gone = single_l2_gone,
    .on_flush = flushed,
    .preload = preload,
    .counter = counter,
    .tracked = tracked,
};

const struct incl_policy xlat__incl_least_multi = {
    .name = "least-inclusive (multi-application)",
    .state_size = sizeof(struct least),
    .state_per_gpu = LEAST_PER_GPU,
    .init = least_init,
    .fini = least_fini,
    .native = native,
    .on_hit = xlat__incl_move_on_hit,
    .victim_tag = victim_tag,
    .on_l2_victim = multi_l2_victim,
    .on_iommu_in = iommu_in,
    .on_iommu_out = iommu_out,
    .on_iommu_victim = spill_victim,
    .remote_gpu = tracked_gpu,
    .on_remote = multi_remote,
    .on_l2_gone = multi_l2_gone,
    .on_flush = flushed,
    .preload = preload,
    .counter = counter,
    .tracked = tracked,
};
