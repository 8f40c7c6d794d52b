/* FCFS: one shared queue in arrival order; an arrival starts at once on the
 * lowest free walker. The baseline of all five papers. */
#include "walk_sched.h"

static uint32_t fcfs_queues(const xlat_walker_config *cfg)
{
    (void)cfg;
    return 1;
}

static size_t fcfs_state_size(const xlat_walker_config *cfg)
{
    (void)cfg;
    return sizeof(struct walk_sched_env);
}

static int fcfs_init(void *state, xlat_ctx *ctx, const xlat_walker_config *cfg)
{
    (void)state;
    (void)ctx;
    (void)cfg;
    return XLAT_OK;
}

static int fcfs_arrive(void *state, struct walk_req *r, bool may_start, int32_t *thief)
{
    const struct walk_sched_env *e = state;
    *thief = -1;
    int64_t idle = may_start ? e->svc->first_idle(e->pool) : -1;
    if (idle >= 0)
        return (int)idle;
    uint32_t len = e->svc->len(e->pool, 0);
    if (len >= e->queue_cap)
        return XLAT_ERR_AGAIN;
    /* "Waits behind": the other tenants' walks queued ahead of it; the one
     * queue holds every queued walk, so that is all but the tenant's own. */
    e->svc->set_interleave(r, len - e->svc->tenant_queued(e->pool, e->svc->req_tenant(r)));
    e->svc->push(e->pool, 0, r);
    return -1;
}

static struct walk_req *fcfs_select(void *state, uint32_t w, int32_t *thief)
{
    const struct walk_sched_env *e = state;
    (void)w;
    *thief = -1;
    return e->svc->take(e->pool, 0);
}

const struct walk_sched_ops xlat__sched_fcfs = {
    .name = "fcfs",
    .queues = fcfs_queues,
    .state_size = fcfs_state_size,
    .init = fcfs_init,
    .arrive = fcfs_arrive,
    .select = fcfs_select,
};
