/*
 * What happens to victims: an L2 victim may enter the IOMMU TLB (exclusive,
 * least-TLB), and an IOMMU TLB victim may be spilled into another GPU's L2
 * (least-TLB multi-application mode, §4.2) or invalidated in every L2
 * (inclusive). L2 victims are reported from inside the L2's own insert, so
 * they are queued and handled right after it, in order; a spill's own
 * victims join the same queue, which bounds the chain effect's recursion.
 */
#include "iommu_internal.h"

static void handle_victims(void *arg);

int xlat__iommu_victims_init(struct xlat_iommu *m)
{
    m->victims_cap = 64;
    m->victims = xlat__calloc(m->ctx, m->victims_cap, sizeof(*m->victims));
    return m->victims ? XLAT_OK : XLAT_ERR_NOMEM;
}

static int gpu_of(const struct xlat_iommu *m, const xlat_tlb *l2)
{
    for (uint32_t g = 0; g < m->cfg.gpus; g++)
        if (m->l2[g] == l2)
            return (int)g;
    return -1;
}

/* Doubles the ring, keeping the order; a victim is never dropped for room. */
static bool grow_victims(struct xlat_iommu *m)
{
    uint32_t cap = m->victims_cap * 2;
    struct iommu_victim *v = xlat__calloc(m->ctx, cap, sizeof(*v));
    if (!v)
        return false;
    for (uint32_t i = 0; i < m->victims_len; i++)
        v[i] = m->victims[(m->victims_head + i) % m->victims_cap];
    xlat__free(m->ctx, m->victims, m->victims_cap * sizeof(*v));
    m->victims = v;
    m->victims_cap = cap;
    m->victims_head = 0;
    return true;
}

void xlat__iommu_l2_evicted(void *user, xlat_tlb *l2, const xlat_tlb_entry *victim)
{
    struct xlat_iommu *m = user;
    int gpu = gpu_of(m, l2);
    if (gpu < 0)
        return;
    if (m->l2_prev_fn[gpu])
        m->l2_prev_fn[gpu](m->l2_prev_user[gpu], l2, victim);
    if (m->victims_len == m->victims_cap && !grow_victims(m))
        return;
    struct iommu_victim *v = &m->victims[(m->victims_head + m->victims_len++) % m->victims_cap];
    v->gpu = (uint32_t)gpu;
    v->chain = m->chain;
    v->e = *victim;
    if (!m->victims_scheduled && xlat_schedule(m->ctx, 0, handle_victims, m) == XLAT_OK)
        m->victims_scheduled = true;
}

static void handle_victims(void *arg)
{
    struct xlat_iommu *m = arg;
    m->victims_scheduled = false;
    while (m->victims_len) {
        struct iommu_victim v = m->victims[m->victims_head];
        m->victims_head = (m->victims_head + 1) % m->victims_cap;
        m->victims_len--;
        /* A spill's own victim carries its chain on: a spill it sets off
         * is one link longer. */
        m->chain = v.chain;
        m->incl->on_l2_victim(m, v.gpu, &v.e);
        m->chain = 0;
    }
}

static void count_out(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    if (e->aux < IOMMU_MAX_GPUS && m->occupancy[e->aux])
        m->occupancy[e->aux]--;
}

int xlat__iommu_insert(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t source)
{
    xlat_tlb_entry in = *e, old, victim;
    in.aux = source; /* the IOMMU entry remembers which GPU it came from */
    bool refresh = xlat_tlb_probe(m->tlb, e->pasid, e->vpn << e->page_shift, &old) == XLAT_OK &&
                   old.vpn == e->vpn && old.page_shift == e->page_shift;
    int rc = xlat_tlb_insert(m->tlb, &in, &victim);
    if (rc < 0)
        return rc; /* refused: nothing changed */
    if (refresh)
        count_out(m, &old); /* refreshed in place: its source may change */
    m->occupancy[source]++;
    if (rc == 1) {
        count_out(m, &victim);
        m->incl->on_iommu_victim(m, &victim);
    }
    return XLAT_OK;
}

int xlat__iommu_remove(struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr)
{
    xlat_tlb_entry e;
    int removed = 0;
    while (xlat_tlb_probe(m->tlb, pasid, vaddr, &e) == XLAT_OK) {
        count_out(m, &e);
        xlat_tlb_invalidate(m->tlb, pasid, e.vpn << e.page_shift);
        removed++;
    }
    if (m->tlb2 && xlat_tlb_invalidate(m->tlb2, pasid, vaddr) == XLAT_OK)
        removed++;
    return removed;
}

/* Is GPU g a better receiver than the best so far? (least-TLB §4.2) */
static bool better(const struct xlat_iommu *m, uint32_t g, int best)
{
    if (best < 0)
        return true;
    const uint64_t *count = m->cfg.spill_rx == XLAT_SPILL_OCCUPANCY ? m->occupancy : m->evictions;
    if (count[g] != count[best])
        return count[g] < count[best];
    /* Occupancy ties go to the GPU whose L2 holds fewer valid entries. */
    return m->cfg.spill_rx == XLAT_SPILL_OCCUPANCY &&
           xlat_tlb_count(m->l2[g]) < xlat_tlb_count(m->l2[best]);
}

int xlat__spill_receiver(const struct xlat_iommu *m, uint32_t owner)
{
    int best = -1;
    for (uint32_t g = 0; g < m->cfg.gpus; g++) {
        if (!m->l2[g] || (m->cfg.exclude_owner && g == owner))
            continue;
        if (better(m, g, best))
            best = (int)g;
    }
    return best;
}

void xlat__iommu_spill(struct xlat_iommu *m, const xlat_tlb_entry *w)
{
    uint32_t sc = w->flags & IOMMU_SC_MASK;
    int rx = sc ? xlat__spill_receiver(m, (uint32_t)w->aux) : -1;
    if (rx < 0)
        return; /* no credit left, or nowhere to go: the victim is dropped */
    xlat_tlb_entry guest = *w;
    guest.flags = (uint16_t)((sc - 1) | IOMMU_SPILLED);
    guest.aux = 0;
    m->st.spills++;
    uint32_t outer = m->chain;
    if (outer + 1 > m->st.max_spill_chain)
        m->st.max_spill_chain = outer + 1;
    xlat__tracker_add(m, (uint32_t)rx, &guest);
    m->chain = outer + 1;
    xlat_tlb_insert(m->l2[rx], &guest, NULL); /* its own victim joins the queue */
    m->chain = outer;
}

void xlat__iommu_back_invalidate(struct xlat_iommu *m, const xlat_tlb_entry *w)
{
    for (uint32_t g = 0; g < m->cfg.gpus; g++)
        if (m->l2[g] && xlat_tlb_invalidate(m->l2[g], w->pasid, w->vpn << w->page_shift) == XLAT_OK)
            m->st.back_invalidations++;
}
