/* Static partitioning ("Improving GPU Multi-tenancy with Page Walk
 * Stealing" §VII-D): walkers and queue slots split equally among tenants
 * like DWS, but a walker only ever serves its owner, even when idle. */
#include "walk_sched.h"

static size_t partition_state_size(const xlat_walker_config *cfg)
{
    return sizeof(struct pw_state) + xlat__pw_arrays_size(cfg);
}

static int partition_init(void *state, xlat_ctx *ctx, const xlat_walker_config *cfg)
{
    struct pw_state *s = state;
    (void)ctx;
    xlat__pw_init(s, cfg, s + 1);
    return XLAT_OK;
}

static int partition_arrive(void *state, struct walk_req *r, bool may_start, int32_t *thief)
{
    return xlat__pw_arrive(state, r, may_start, false, thief);
}

static struct walk_req *partition_select(void *state, uint32_t w, int32_t *thief)
{
    *thief = -1;
    return xlat__pw_serve_owner(state, w);
}

const struct walk_sched_ops xlat__sched_partition = {
    .name = "partition",
    .queues = xlat__pw_queues,
    .state_size = partition_state_size,
    .init = partition_init,
    .arrive = partition_arrive,
    .select = partition_select,
};
