/*
 * Page requests: a walk that finds a non-present entry becomes a PRI
 * request queued at the IOMMU; requests from all GPUs are handed to the
 * host in batches ("Improving Address Translation in Multi-GPUs via Sharing
 * and Spilling aware TLB Design" §2.1: the IOMMU batches page requests to
 * amortise the cost of handling them).
 */
#include "iommu_internal.h"

int xlat__iommu_faults_init(struct xlat_iommu *m)
{
    m->faults = xlat__calloc(m->u.ctx, m->cfg.fault_batch, sizeof(*m->faults));
    return m->faults ? XLAT_OK : XLAT_ERR_NOMEM;
}

static void deliver_batch(struct xlat_iommu *m)
{
    size_t n = m->nfaults;
    if (!n)
        return;
    m->nfaults = 0;
    m->st.fault_batches++;
    m->cfg.fault_fn(m->cfg.fault_user, m, m->faults, n);
}

static void fault_timeout(void *arg)
{
    struct xlat_iommu *m = arg;
    m->fault_timer = false;
    deliver_batch(m);
}

void xlat__iommu_walk_fault(void *user, xlat_walker *pool, const xlat_walk_fault *f)
{
    struct xlat_iommu *m = user;
    (void)pool;
    xlat_iommu_fault *q = &m->faults[m->nfaults++];
    q->token = f->token;
    q->id = f->id;
    q->pasid = f->pasid;
    q->vaddr = f->vaddr;
    q->access = f->access;
    q->gpu = f->gpu;
    m->st.faults++;
    if (m->nfaults == m->cfg.fault_batch || m->cfg.fault_timeout == 0) {
        deliver_batch(m);
    } else if (!m->fault_timer) { /* one timer at a time: one reserved event */
        m->fault_timer = true;
        xlat__unit_post(&m->u, m->cfg.fault_timeout, fault_timeout, m);
    }
}

int xlat_iommu_fault_done(xlat_iommu *m, uint64_t token, int status)
{
    if (!m)
        return XLAT_ERR_INVAL;
    return xlat_walker_fault_resume(m->walker, token, status);
}
