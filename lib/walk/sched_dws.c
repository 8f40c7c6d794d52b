/* DWS, dynamic page walk stealing ("Improving GPU Multi-tenancy with Page
 * Walk Stealing" §VI-B): per-walker queues, an arrival queues at the least
 * loaded walker of its tenant, and a free walker steals another tenant's
 * walk only when its owner has nothing queued. A walk therefore waits
 * behind at most one foreign walk. */
#include "walker_internal.h"

static int dws_init(struct xlat_walker *p)
{
    return xlat__pw_init(p);
}

static int dws_arrive(struct xlat_walker *p, struct walk_req *r, bool may_start, bool *stolen)
{
    return xlat__pw_arrive(p, r, may_start, p->cfg.idle_steal, stolen);
}

static struct walk_req *dws_select(struct xlat_walker *p, uint32_t w, bool *stolen)
{
    *stolen = false;
    struct walk_req *r = xlat__pw_serve_owner(p, w);
    if (r)
        return r;
    /* §VI-B step 3b: PEND_WALKS of the owner is zero, so steal. */
    return xlat__pw_steal(p, w, xlat__pw_victim(p, p->unit[w].owner), stolen);
}

const struct walk_sched_ops xlat__sched_dws = {
    .name = "dws",
    .init = dws_init,
    .arrive = dws_arrive,
    .select = dws_select,
};
