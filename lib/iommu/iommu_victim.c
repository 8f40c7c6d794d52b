/*
 * Victims and the services the inclusion policies use. L2 victims are
 * reported from inside the L2's own insert, so they are queued and handed
 * to the policy right after it, in order (a TLB must not be inserted into
 * from inside its own insert); victims of inserts the policy makes (a
 * spill) join the same queue, which bounds the chain effect's recursion.
 * IOMMU TLB victims go to the policy at once.
 */
#include "iommu_internal.h"

static void handle_victims(void *arg);

int xlat__iommu_victims_init(struct xlat_iommu *m)
{
    m->victims_cap = IOMMU_VICTIMS_PER_GPU * m->cfg.gpus;
    m->victims = xlat__calloc(m->u.ctx, m->victims_cap, sizeof(*m->victims));
    return m->victims ? XLAT_OK : XLAT_ERR_NOMEM;
}

/* Doubles the ring, keeping the order. Only outside an advance: a host
 * inserting into an L2 between ticks (a warm-up) may queue any number of
 * victims before the IOMMU hands them on at the next tick. */
static bool grow_victims(struct xlat_iommu *m)
{
    uint32_t cap = m->victims_cap * 2;
    struct iommu_victim *v = cap > m->victims_cap ? xlat__calloc(m->u.ctx, cap, sizeof(*v)) : NULL;
    if (!v)
        return false;
    for (uint32_t i = 0; i < m->victims_len; i++)
        v[i] = m->victims[(m->victims_head + i) % m->victims_cap];
    xlat__free(m->u.ctx, m->victims, m->victims_cap * sizeof(*v));
    m->victims = v;
    m->victims_cap = cap;
    m->victims_head = 0;
    return true;
}

/* Inside an advance the ring never grows: victims arrive there from fills
 * of the L2s, at most a few a cycle each, and are handed on in the same
 * cycle; one beyond 64 per GPU in a cycle is dropped and counted. */
int xlat__iommu_victim_push(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *victim)
{
    if (m->victims_len == m->victims_cap && (m->u.ctx->in_advance || !grow_victims(m))) {
        m->victims_lost++;
        return m->u.ctx->in_advance ? XLAT_ERR_AGAIN : XLAT_ERR_NOMEM;
    }
    struct iommu_victim *v = &m->victims[(m->victims_head + m->victims_len++) % m->victims_cap];
    v->gpu = gpu;
    v->tag = m->incl->victim_tag ? m->incl->victim_tag(m->incl_state) : 0;
    v->e = *victim;
    if (!m->victims_scheduled) { /* one hand-off at a time: one reserved event */
        m->victims_scheduled = true;
        xlat__unit_post(&m->u, 0, handle_victims, m);
    }
    return XLAT_OK;
}

void xlat__iommu_l2_evicted(void *user, xlat_tlb *l2, const xlat_tlb_entry *victim)
{
    const struct l2_listener *who = user;
    struct xlat_iommu *m = who->iommu;
    if (m->cfg.no_tlb) /* no IOMMU TLB: a victim has nowhere to go */
        return;
    xlat__iommu_victim_push(m, xlat__iommu_l2_gpu(m, who->gpu, l2), victim);
}

int xlat_iommu_l2_victim(xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *victim)
{
    if (!m || !victim || gpu >= m->cfg.gpus)
        return xlat__fail(m ? m->u.ctx : NULL, XLAT_ERR_INVAL, "xlat_iommu_l2_victim: %s",
                          !m ? "NULL iommu" : !victim ? "NULL victim" : "gpu out of range");
    int rc = xlat__iommu_victim_push(m, gpu, victim);
    if (rc == XLAT_ERR_AGAIN)
        return xlat__unit_busy(&m->u, "the victim queue is full");
    if (rc != XLAT_OK)
        return xlat__fail(m->u.ctx, rc, "iommu %s: out of memory for the victim queue", m->u.name);
    return XLAT_OK;
}

static void handle_victims(void *arg)
{
    struct xlat_iommu *m = arg;
    m->victims_scheduled = false;
    while (m->victims_len) {
        struct iommu_victim v = m->victims[m->victims_head];
        m->victims_head = (m->victims_head + 1) % m->victims_cap;
        m->victims_len--;
        if (m->incl->on_l2_victim)
            m->incl->on_l2_victim(m->incl_state, v.gpu, &v.e, v.tag);
    }
}

static void gone(struct xlat_iommu *m, const xlat_tlb_entry *e)
{
    if (m->incl->on_iommu_out)
        m->incl->on_iommu_out(m->incl_state, e);
}

int xlat__iommu_insert(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t source)
{
    xlat_tlb_entry in = *e, old, victim;
    if (!m->tlb)
        return XLAT_OK; /* no IOMMU TLB (no_tlb): a walk fills nothing here */
    in.meta.home_gpu = (uint16_t)source; /* the IOMMU entry remembers which GPU it came from */
    bool refresh = xlat_tlb_probe(m->tlb, e->pasid, e->vpn << e->page_shift, &old) == XLAT_OK &&
                   old.vpn == e->vpn && old.page_shift == e->page_shift;
    int rc = xlat_tlb_insert(m->tlb, &in, &victim);
    if (rc < 0)
        return rc; /* refused: nothing changed */
    if (refresh)
        gone(m, &old); /* refreshed in place: its source may change */
    if (m->incl->on_iommu_in)
        m->incl->on_iommu_in(m->incl_state, &in, source);
    if (rc == 1) {
        gone(m, &victim);
        if (m->incl->on_iommu_victim)
            m->incl->on_iommu_victim(m->incl_state, &victim);
    }
    if (m->tlb2) /* mostly-inclusive between the two levels */
        xlat_tlb_insert(m->tlb2, e, NULL);
    return XLAT_OK;
}

int xlat__iommu_remove(struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr)
{
    xlat_tlb_entry e;
    int removed = 0;
    while (m->tlb && xlat_tlb_probe(m->tlb, pasid, vaddr, &e) == XLAT_OK) {
        removed += xlat_tlb_invalidate(m->tlb, pasid, e.vpn << e.page_shift);
        gone(m, &e);
    }
    if (m->tlb2)
        removed += xlat_tlb_invalidate(m->tlb2, pasid, vaddr);
    return removed;
}

/* ---- the services table -------------------------------------------- */

static int sv_tlb_insert(void *iommu, const xlat_tlb_entry *e, uint32_t source)
{
    return xlat__iommu_insert(iommu, e, source);
}

static int sv_tlb_remove(void *iommu, uint32_t pasid, uint64_t vaddr)
{
    return xlat__iommu_remove(iommu, pasid, vaddr);
}

static const xlat_l2_port *port_of(void *iommu, uint32_t gpu)
{
    struct xlat_iommu *m = iommu;
    return gpu < m->cfg.gpus && m->port[gpu].probe ? &m->port[gpu] : NULL;
}

static bool sv_l2_attached(void *iommu, uint32_t gpu) { return port_of(iommu, gpu) != NULL; }

static int sv_l2_insert(void *iommu, uint32_t gpu, const xlat_tlb_entry *e)
{
    const xlat_l2_port *p = port_of(iommu, gpu);
    return p ? p->insert(p->insert_user, e) : XLAT_ERR_INVAL;
}

/* The entries removed from that L2 (>= 0), as xlat_tlb_invalidate(). */
static int sv_l2_invalidate(void *iommu, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    const xlat_l2_port *p = port_of(iommu, gpu);
    if (!p)
        return XLAT_ERR_INVAL;
    return p->invalidate(p->invalidate_user, pasid, vaddr, NULL, NULL);
}

static size_t sv_l2_count(void *iommu, uint32_t gpu)
{
    const xlat_l2_port *p = port_of(iommu, gpu);
    return p && p->count ? p->count(p->count_user) : 0;
}

void xlat__iommu_services_init(struct xlat_iommu *m)
{
    struct incl_services sv = {
        .iommu = m, .ctx = m->u.ctx, .name = m->u.name, .cfg = &m->cfg, .st = &m->st,
        .tlb_insert = sv_tlb_insert, .tlb_remove = sv_tlb_remove,
        .l2_attached = sv_l2_attached, .l2_insert = sv_l2_insert,
        .l2_invalidate = sv_l2_invalidate, .l2_count = sv_l2_count,
    };
    m->services = sv;
}
