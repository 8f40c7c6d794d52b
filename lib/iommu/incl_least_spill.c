/*
 * least-TLB multi-application mode (§4.2): an IOMMU TLB victim with spill
 * credit goes to the L2 of the GPU the receiver rule picks. A spill's own
 * victim is handled like any other L2 victim, so spills can chain; each
 * queued victim carries the number of spills behind it (its tag).
 */
#include "incl_least.h"

/* Is GPU g a better receiver than the best so far? */
static bool better(const struct least *s, uint32_t g, int best)
{
    if (best < 0)
        return true;
    bool occ = s->base.sv->cfg->spill_rx == XLAT_SPILL_OCCUPANCY;
    const uint64_t *count = occ ? s->occupancy : s->evictions;
    if (count[g] != count[best])
        return count[g] < count[best];
    /* Occupancy ties go to the GPU whose L2 holds fewer valid entries. */
    return occ && s->base.sv->l2_count(s->base.sv->iommu, g) < s->base.sv->l2_count(s->base.sv->iommu, (uint32_t)best);
}

int xlat__spill_receiver(const struct least *s, uint32_t owner)
{
    int best = -1;
    for (uint32_t g = 0; g < s->gpus; g++) {
        if (!s->base.sv->l2_attached(s->base.sv->iommu, g) || (s->base.sv->cfg->exclude_owner && g == owner))
            continue;
        if (better(s, g, best))
            best = (int)g;
    }
    return best;
}

void xlat__least_spill(struct least *s, const xlat_tlb_entry *w)
{
    uint8_t sc = w->meta.spill_credit;
    int rx = sc ? xlat__spill_receiver(s, w->meta.home_gpu) : -1;
    if (rx < 0)
        return; /* no credit left, or nowhere to go: the victim is dropped */
    xlat_tlb_entry guest = *w;
    guest.meta.spill_credit = (uint8_t)(sc - 1);
    guest.meta.spilled = 1;
    guest.meta.home_gpu = 0;
    s->base.sv->st->spills++;
    uint32_t outer = s->chain;
    if (outer + 1 > s->base.sv->st->max_spill_chain)
        s->base.sv->st->max_spill_chain = outer + 1;
    xlat__tracker_add(s, (uint32_t)rx, &guest);
    s->chain = outer + 1; /* the tag of the victim this insert may evict */
    s->base.sv->l2_insert(s->base.sv->iommu, (uint32_t)rx, &guest);
    s->chain = outer;
}
