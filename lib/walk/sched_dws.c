/* DWS, dynamic page walk stealing ("Improving GPU Multi-tenancy with Page
 * Walk Stealing" §VI-B): per-walker queues, an arrival queues at the least
 * loaded walker of its tenant, and a free walker steals another tenant's
 * walk only when its owner has nothing queued. A walk therefore waits
 * behind at most one foreign walk. */
#include "walk_sched.h"

/* DWS's state: walker ownership and whether an arrival may take an idle
 * walker of another tenant. */
struct dws_state {
    struct pw_state pw;
    bool idle_steal;
};

static size_t dws_state_size(const xlat_walker_config *cfg)
{
    return sizeof(struct dws_state) + xlat__pw_arrays_size(cfg);
}

static int dws_init(void *state, xlat_ctx *ctx, const xlat_walker_config *cfg)
{
    struct dws_state *s = state;
    (void)ctx;
    s->idle_steal = cfg->idle_steal;
    xlat__pw_init(&s->pw, cfg, s + 1);
    return XLAT_OK;
}

static int dws_arrive(void *state, struct walk_req *r, bool may_start, int32_t *thief)
{
    struct dws_state *s = state;
    return xlat__pw_arrive(&s->pw, r, may_start, s->idle_steal, thief);
}

static struct walk_req *dws_select(void *state, uint32_t w, int32_t *thief)
{
    struct dws_state *s = state;
    *thief = -1;
    struct walk_req *r = xlat__pw_serve_owner(&s->pw, w);
    if (r)
        return r;
    /* §VI-B step 3b: PEND_WALKS of the owner is zero, so steal. */
    return xlat__pw_steal(&s->pw, w, xlat__pw_victim(&s->pw, s->pw.owner[w]), thief);
}

const struct walk_sched_ops xlat__sched_dws = {
    .name = "dws",
    .queues = xlat__pw_queues,
    .state_size = dws_state_size,
    .init = dws_init,
    .arrive = dws_arrive,
    .select = dws_select,
};
