/*
 * L2 ports: the IOMMU reaches every GPU's L2 TLB through an xlat_l2_port
 * (probe / insert / invalidate, each with its own user), so a host can put
 * its interconnect or its own L2 in between. The default port wraps an
 * xlat_tlb: a probe is answered `remote_latency` cycles later from what the
 * TLB holds then, inserts and invalidations act at once.
 */
#include "iommu_internal.h"
#include "unit_target.h"
#include "../tlb/tlb_id.h"

/* The TLB is read when the probe arrives, so a change meanwhile is seen. */
static void probe_arrived(void *arg)
{
    struct tlb_probe *p = arg;
    struct tlb_port *tp = p->tp;
    xlat_tlb_entry e;
    bool hit = tp->tlb && xlat_tlb_probe(tp->tlb, p->pasid, p->vaddr, &e) == XLAT_OK;
    xlat_l2_answer_fn answer = p->answer;
    void *actx = p->actx;
    xlat__pool_put(&tp->iommu->probes, p); /* free before calling out */
    answer(actx, hit ? &e : NULL);
}

static int tlb_probe(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_answer_fn answer,
                     void *actx)
{
    struct tlb_port *tp = user;
    struct xlat_iommu *m = tp->iommu;
    struct tlb_probe *p = xlat__pool_get(&m->probes);
    if (!p) /* only a host calling the port itself can run it dry */
        return xlat__unit_busy(&m->u, "every default-port probe is in flight");
    *p = (struct tlb_probe){.tp = tp, .pasid = pasid, .vaddr = vaddr, .answer = answer,
                            .actx = actx};
    xlat__unit_post(&m->u, m->cfg.remote_latency, probe_arrived, p);
    return XLAT_OK;
}

/* After its TLB was destroyed, a default port a host kept a copy of (to
 * wrap it) has nothing to act on: inserts are refused, the rest is empty. */
static int tlb_insert(void *user, const xlat_tlb_entry *e)
{
    xlat_tlb *t = ((struct tlb_port *)user)->tlb;
    return t ? xlat_tlb_insert(t, e, NULL) : XLAT_ERR_STATE;
}

static int tlb_invalidate(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_gone_fn gone,
                          void *gctx)
{
    xlat_tlb *t = ((struct tlb_port *)user)->tlb;
    xlat_tlb_entry e;
    int removed = 0;
    if (!t)
        return 0;
    while (xlat_tlb_probe(t, pasid, vaddr, &e) == XLAT_OK) {
        removed += xlat_tlb_invalidate(t, pasid, vaddr);
        if (gone)
            gone(gctx, &e);
    }
    /* Also when the TLB holds nothing yet: a miss of it may be in flight,
     * and its fill must not bring the old translation back. */
    xlat_tlb_invalidate(t, pasid, vaddr);
    return removed;
}

static size_t tlb_count(void *user)
{
    xlat_tlb *t = ((struct tlb_port *)user)->tlb;
    return t ? xlat_tlb_count(t) : 0;
}

void xlat__iommu_tlb_port(struct xlat_iommu *m, uint32_t gpu, xlat_tlb *l2)
{
    struct tlb_port *tp = &m->tlb_port[gpu];
    tp->iommu = m;
    tp->tlb = l2;
    xlat_l2_port p = {
        .struct_size = sizeof(p), .probe = tlb_probe, .probe_user = tp, .insert = tlb_insert, .insert_user = tp,
        .invalidate = tlb_invalidate, .invalidate_user = tp, .count = tlb_count,
        .count_user = tp, .unit = xlat__tlb_id(l2),
    };
    m->port[gpu] = p;
}

void xlat__iommu_tlb_port_gone(struct xlat_iommu *m, uint32_t gpu)
{
    struct tlb_port *tp = &m->tlb_port[gpu];
    if (m->port[gpu].probe_user == tp)
        memset(&m->port[gpu], 0, sizeof(m->port[gpu]));
    tp->tlb = NULL;
}

static const struct xlat__sized port_kind = {"xlat_l2_port", "XLAT_L2_PORT_INIT",
                                             XLAT_L2_PORT_SIZE_V0};

int xlat_iommu_attach_l2_port(xlat_iommu *m, uint32_t gpu, const xlat_l2_port *port)
{
    static const char who[] = "xlat_iommu_attach_l2_port";
    if (!m || !port || gpu >= m->cfg.gpus)
        return xlat__fail(m ? m->u.ctx : NULL, XLAT_ERR_INVAL, "%s: %s", who,
                          !m ? "NULL iommu" : !port ? "NULL port" : "gpu out of range");
    xlat_l2_port p = XLAT_L2_PORT_INIT;
    int rc = xlat__config_copy(m->u.ctx, &p, sizeof(p), port, port_kind.min_size, who);
    if (rc != XLAT_OK)
        return rc;
    if (!p.probe || !p.insert || !p.invalidate)
        return xlat__fail(m->u.ctx, XLAT_ERR_INVAL, "%s: probe, insert and invalidate are required",
                          who);
    p.struct_size = sizeof(p);
    m->port[gpu] = p;
    return XLAT_OK;
}

int xlat_iommu_l2_port(const xlat_iommu *m, uint32_t gpu, xlat_l2_port *out)
{
    if (!m)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_iommu_l2_port: NULL iommu");
    if (gpu >= m->cfg.gpus || !m->port[gpu].probe)
        return xlat__fail(m->u.ctx, XLAT_ERR_INVAL,
                          "xlat_iommu_l2_port: no L2 attached for that GPU (gpu %u)", gpu);
    return xlat__sized_get(m->u.ctx, out, &m->port[gpu], sizeof(*out), &port_kind,
                           "xlat_iommu_l2_port");
}
