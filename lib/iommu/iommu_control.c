/* Shootdowns, inspection, preloading and counters of the IOMMU. */
#include "iommu_internal.h"

int xlat_iommu_flush(xlat_iommu *m)
{
    if (!m)
        return XLAT_ERR_INVAL;
    int removed = m->tlb ? xlat_tlb_flush(m->tlb) : 0;
    if (m->tlb2)
        removed += xlat_tlb_flush(m->tlb2);
    if (m->incl->on_flush)
        m->incl->on_flush(m->incl_state);
    return removed;
}

struct gone_ctx {
    struct xlat_iommu *m;
    uint32_t gpu;
};

/* The policy hears only of what an L2 held: least-TLB deleting a key from a
 * partition that never had it would delete the fingerprint of another key
 * that happens to share it. */
static void l2_gone(void *ctx, const xlat_tlb_entry *e)
{
    struct gone_ctx *g = ctx;
    if (g->m->incl->on_l2_gone)
        g->m->incl->on_l2_gone(g->m->incl_state, g->gpu, e);
}

int xlat_iommu_invalidate(xlat_iommu *m, uint32_t pasid, uint64_t vaddr)
{
    if (!m)
        return XLAT_ERR_INVAL;
    int removed = xlat__iommu_remove(m, pasid, vaddr);
    for (uint32_t g = 0; g < m->cfg.gpus; g++) {
        const xlat_l2_port *p = &m->port[g];
        struct gone_ctx gc = {m, g};
        int n = p->invalidate ? p->invalidate(p->invalidate_user, pasid, vaddr, l2_gone, &gc) : 0;
        removed += n > 0 ? n : 0;
    }
    if (m->cfg.walk->pwc)
        xlat_pwc_invalidate(m->cfg.walk->pwc, pasid, vaddr);
    return removed;
}

int xlat_iommu_preload(xlat_iommu *m, uint32_t source, const xlat_tlb_entry *e)
{
    if (!m || !e || source >= m->cfg.gpus)
        return xlat__fail(m ? m->u.ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_preload: %s",
                          !m ? "NULL iommu" : !e ? "NULL entry" : "source GPU out of range");
    if (e->page_shift < 12 || e->page_shift > 63)
        return xlat__fail(m->u.ctx, XLAT_ERR_INVAL, "xlat_iommu_preload: page_shift %u", e->page_shift);
    if (!m->tlb)
        return xlat__fail(m->u.ctx, XLAT_ERR_INVAL, "xlat_iommu_preload: iommu %s has no TLB",
                          m->u.name);
    xlat_tlb_entry in = *e;
    xlat__iommu_native(m, &in); /* a native victim of `source` */
    if (m->incl->preload)
        return m->incl->preload(m->incl_state, source, &in);
    return xlat__iommu_insert(m, &in, source);
}

int xlat_iommu_preload_l2(xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (!m || !e)
        return xlat__fail(m ? m->u.ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_preload_l2: NULL %s",
                          !m ? "iommu" : "entry");
    if (gpu >= m->cfg.gpus || !m->port[gpu].insert)
        return xlat__fail(m->u.ctx, XLAT_ERR_INVAL,
                          "xlat_iommu_preload_l2: no L2 attached for that GPU (gpu %u)", gpu);
    xlat_tlb_entry in = *e;
    xlat__iommu_native(m, &in);
    int rc = m->port[gpu].insert(m->port[gpu].insert_user, &in);
    if (rc < 0)
        return rc;
    if (m->incl->on_answer)
        m->incl->on_answer(m->incl_state, gpu, &in); /* as if a walk had filled it */
    return XLAT_OK;
}

xlat_tlb *xlat_iommu_tlb(const xlat_iommu *m) { return m ? m->tlb : NULL; }

xlat_walker *xlat_iommu_walker(const xlat_iommu *m) { return m ? m->walker : NULL; }

uint64_t xlat_iommu_eviction_counter(const xlat_iommu *m, uint32_t gpu)
{
    if (!m || gpu >= m->cfg.gpus)
        return 0;
    return m->incl->counter ? m->incl->counter(m->incl_state, gpu) : 0;
}

void xlat_iommu_stats_get(const xlat_iommu *m, xlat_iommu_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, m ? &m->st : NULL, sizeof(m->st));
}

bool xlat_iommu_tracked(const xlat_iommu *m, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    return m && gpu < m->cfg.gpus && m->incl->tracked &&
           m->incl->tracked(m->incl_state, gpu, pasid, vaddr);
}

void xlat_iommu_stats_reset(xlat_iommu *m)
{
    if (!m)
        return;
    memset(&m->st, 0, sizeof(m->st));
    xlat__unit_latency_reset(&m->u);
}

/* Counters by name (doc/statistics.md): one line per member of xlat_iommu_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_iommu_stats, requests),
    XLAT__COUNTER(xlat_iommu_stats, refusals),
    XLAT__COUNTER(xlat_iommu_stats, tlb_hits),
    XLAT__COUNTER(xlat_iommu_stats, tlb2_hits),
    XLAT__COUNTER(xlat_iommu_stats, walks),
    XLAT__COUNTER(xlat_iommu_stats, walk_answers),
    XLAT__COUNTER(xlat_iommu_stats, remote_probes),
    XLAT__COUNTER(xlat_iommu_stats, remote_hits),
    XLAT__COUNTER(xlat_iommu_stats, remote_misses),
    XLAT__COUNTER(xlat_iommu_stats, late_discarded),
    XLAT__COUNTER(xlat_iommu_stats, faults),
    XLAT__COUNTER(xlat_iommu_stats, fault_batches),
    XLAT__COUNTER(xlat_iommu_stats, victims_in),
    XLAT__COUNTER(xlat_iommu_stats, victims_dropped),
    XLAT__COUNTER(xlat_iommu_stats, spills),
    XLAT__COUNTER(xlat_iommu_stats, back_invalidations),
    XLAT__COUNTER(xlat_iommu_stats, tracker_inserts),
    XLAT__COUNTER(xlat_iommu_stats, tracker_full),
    XLAT__COUNTER(xlat_iommu_stats, max_spill_chain),
    XLAT__COUNTER(xlat_iommu_stats, walks_aborted),
};

static void stats_foreach(const void *m, const struct xlat__stats_sink *sink)
{
    xlat_iommu_stats st;
    xlat_iommu_stats_get(m, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *m) { xlat_iommu_stats_reset(m); }

static void destroy(void *m)
{
    xlat__iommu_forget_holds(m);
    (void)xlat_iommu_destroy(m);
}

static void latency(const void *m, xlat_latency_hist *out)
{
    *out = ((const xlat_iommu *)m)->u.latency;
}

const struct xlat__reg_ops xlat__iommu_reg_ops = {"iommu", stats_foreach, stats_reset, destroy,
                                                  latency, NULL};
