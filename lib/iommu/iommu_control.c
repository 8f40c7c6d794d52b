/* Shootdowns, inspection, preloading and counters of the IOMMU. */
#include "iommu_internal.h"

void xlat_iommu_flush(xlat_iommu *m)
{
    if (!m)
        return;
    xlat_tlb_flush(m->tlb);
    xlat_tlb_flush(m->tlb2);
    memset(m->occupancy, 0, sizeof(m->occupancy));
    /* least-TLB §4.4: an IOMMU TLB shootdown resets the tracker; spilled
     * entries become unreachable and age out of the L2s. */
    xlat__tracker_reset(m);
}

int xlat_iommu_invalidate(xlat_iommu *m, uint32_t pasid, uint64_t vaddr)
{
    if (!m)
        return XLAT_ERR_INVAL;
    int removed = xlat__iommu_remove(m, pasid, vaddr);
    for (uint32_t g = 0; g < m->cfg.gpus; g++) {
        xlat_tlb_entry e;
        if (!m->l2[g])
            continue;
        /* Only what an L2 held leaves the tracker: deleting a key from a
         * partition that never had it would delete the fingerprint of
         * another key that happens to share it. */
        while (xlat_tlb_probe(m->l2[g], pasid, vaddr, &e) == XLAT_OK) {
            m->incl->on_l2_gone(m, g, &e);
            xlat_tlb_invalidate(m->l2[g], pasid, vaddr);
            removed++;
        }
        /* Also when the L2 holds nothing yet: a miss of it may be in flight,
         * and its fill must not bring the old translation back. */
        xlat_tlb_invalidate(m->l2[g], pasid, vaddr);
    }
    if (m->cfg.walk.pwc)
        xlat_pwc_invalidate(m->cfg.walk.pwc, pasid, vaddr);
    return removed;
}

int xlat_iommu_preload(xlat_iommu *m, uint32_t source, const xlat_tlb_entry *e)
{
    if (!m || !e || source >= m->cfg.gpus)
        return xlat__fail(m ? m->ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_preload: %s",
                          !m || !e ? "NULL argument" : "source GPU out of range");
    if (e->page_shift < 12 || e->page_shift > 63)
        return xlat__fail(m->ctx, XLAT_ERR_INVAL, "xlat_iommu_preload: page_shift %u", e->page_shift);
    xlat_tlb_entry in = *e;
    in.flags = (uint16_t)m->cfg.spill_counter; /* a native victim of `source` */
    m->evictions[source]++; /* before the insert: a spill it sets off sees it */
    int rc = xlat__iommu_insert(m, &in, source);
    if (rc < 0)
        m->evictions[source]--; /* the IOMMU TLB refused it */
    return rc;
}

int xlat_iommu_preload_l2(xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (!m || !e || gpu >= m->cfg.gpus || !m->l2[gpu])
        return xlat__fail(m ? m->ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_preload_l2: %s",
                          !m || !e ? "NULL argument" : "no L2 attached for that GPU");
    xlat_tlb_entry in = *e;
    in.flags = (uint16_t)m->cfg.spill_counter;
    int rc = xlat_tlb_insert(m->l2[gpu], &in, NULL);
    if (rc < 0)
        return rc;
    m->incl->on_answer(m, gpu, &in); /* as if a walk had filled it */
    return XLAT_OK;
}

xlat_tlb *xlat_iommu_tlb(const xlat_iommu *m) { return m ? m->tlb : NULL; }

xlat_walker *xlat_iommu_walker(const xlat_iommu *m) { return m ? m->walker : NULL; }

uint64_t xlat_iommu_eviction_counter(const xlat_iommu *m, uint32_t gpu)
{
    if (!m || gpu >= m->cfg.gpus)
        return 0;
    return m->cfg.spill_rx == XLAT_SPILL_OCCUPANCY ? m->occupancy[gpu] : m->evictions[gpu];
}

void xlat_iommu_stats_get(const xlat_iommu *m, xlat_iommu_stats *out)
{
    if (!out)
        return;
    if (m)
        *out = m->st;
    else
        memset(out, 0, sizeof(*out));
}
