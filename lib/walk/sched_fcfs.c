/* FCFS: one shared queue in arrival order; an arrival starts at once on the
 * lowest free walker. The baseline of all five papers. */
#include "walker_internal.h"

static int fcfs_init(struct xlat_walker *p)
{
    p->queue[0].cap = p->cfg.queue_entries;
    return XLAT_OK;
}

static int fcfs_arrive(struct xlat_walker *p, struct walk_req *r, bool may_start, bool *stolen)
{
    int w = may_start ? xlat__idle_walker(p, -1) : -1;
    *stolen = false;
    if (w >= 0)
        return w;
    if (p->queue[0].len >= p->queue[0].cap)
        return XLAT_ERR_AGAIN;
    /* "Waits behind": the other tenants' walks queued ahead of it; the one
     * queue holds every queued walk, so that is all but the tenant's own. */
    r->interleave = p->queue[0].len - p->tenant[r->tenant].queued;
    xlat__queue_push(p, 0, r);
    return -1;
}

static struct walk_req *fcfs_select(struct xlat_walker *p, uint32_t w, bool *stolen)
{
    (void)w;
    *stolen = false;
    struct walk_req *r = xlat__queue_first_eligible(p, 0);
    if (r)
        xlat__queue_remove(p, r);
    return r;
}

const struct walk_sched_ops xlat__sched_fcfs = {
    .name = "fcfs",
    .init = fcfs_init,
    .arrive = fcfs_arrive,
    .select = fcfs_select,
};
