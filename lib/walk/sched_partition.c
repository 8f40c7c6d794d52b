/* Static partitioning ("Improving GPU Multi-tenancy with Page Walk
 * Stealing" §VII-D): walkers and queue slots split equally among tenants
 * like DWS, but a walker only ever serves its owner, even when idle. */
#include "walker_internal.h"

static int partition_init(struct xlat_walker *p)
{
    return xlat__pw_init(p);
}

static int partition_arrive(struct xlat_walker *p, struct walk_req *r, bool may_start,
                            bool *stolen)
{
    return xlat__pw_arrive(p, r, may_start, false, stolen);
}

static struct walk_req *partition_select(struct xlat_walker *p, uint32_t w, bool *stolen)
{
    *stolen = false;
    return xlat__pw_serve_owner(p, w);
}

const struct walk_sched_ops xlat__sched_partition = {
    .name = "partition",
    .init = partition_init,
    .arrive = partition_arrive,
    .select = partition_select,
};
