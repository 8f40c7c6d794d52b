/*
 * DWS++ ("Improving GPU Multi-tenancy with Page Walk Stealing" §VI-B,
 * "Enhancement for DWS++", Tables IV and VII): DWS, plus a walker may steal
 * while its owner still has walks queued when the other tenant's queues are
 * much fuller (DIFF_THRES), its own queue is short enough (QUEUE_THRES) and
 * its last walk was not stolen. DIFF_THRES follows the tenants' arrival
 * ratio over epochs of a fixed number of arrivals.
 */
#include <math.h>

#include "walker_internal.h"

static bool ladder_ok(const xlat_dwspp_config *c)
{
    /* NaN fails every comparison below, so it is refused too. */
    if (c->epoch_length == 0 || !(c->queue_thres >= 0.0 && c->queue_thres <= 1.0))
        return false;
    for (int i = 0; i < 4; i++)
        if (!(c->ratio[i] >= 1.0 && isfinite(c->ratio[i])) || (i && c->ratio[i] <= c->ratio[i - 1]))
            return false;
    for (int i = 0; i < 5; i++)
        if (!(c->diff_thres[i] >= 0.0))
            return false;
    return true;
}

static int dwspp_init(struct xlat_walker *p)
{
    if (!ladder_ok(&p->cfg.dwspp))
        return xlat__fail(p->ctx, XLAT_ERR_INVAL,
                          "walker %s: bad DWS++ ladder (epoch_length 0, ratios not increasing "
                          "from 1, a negative DIFF_THRES or QUEUE_THRES outside 0..1)",
                          p->name);
    return xlat__pw_init(p);
}

/* The tenant the others compare their arrivals with (§VI-C: "first finding
 * the tenant that has the most pending walks"); ties go to the one with the
 * most arrivals this epoch, then to the lowest id. */
static uint32_t epoch_reference(const struct xlat_walker *p)
{
    uint32_t best = 0;
    for (uint32_t t = 1; t < p->cfg.tenants; t++) {
        const struct walk_tenant *a = &p->tenant[t], *b = &p->tenant[best];
        if (a->queued > b->queued || (a->queued == b->queued && a->enq_epoch > b->enq_epoch))
            best = t;
    }
    return best;
}

/* End of an epoch: "the ratio of page walks enqueued by tenants is
 * calculated by dividing the larger of the per-tenant ENQ_EPOCH values by
 * the smaller one" and sets DIFF_THRES from the ladder (Table IV). */
static void end_epoch(struct xlat_walker *p)
{
    const xlat_dwspp_config *c = &p->cfg.dwspp;
    uint32_t n = p->cfg.tenants;
    if (n == 2) {
        double th = xlat_dwspp_threshold(c, p->tenant[0].enq_epoch, p->tenant[1].enq_epoch);
        p->tenant[0].diff_thres = p->tenant[1].diff_thres = th;
    } else {
        uint64_t ref = p->tenant[epoch_reference(p)].enq_epoch;
        for (uint32_t t = 0; t < n; t++)
            p->tenant[t].diff_thres = xlat_dwspp_threshold(c, ref, p->tenant[t].enq_epoch);
    }
    p->epoch = 0;
    for (uint32_t t = 0; t < n; t++)
        p->tenant[t].enq_epoch = 0;
}

static int dwspp_arrive(struct xlat_walker *p, struct walk_req *r, bool may_start, bool *stolen)
{
    int w = xlat__pw_arrive(p, r, may_start, p->cfg.idle_steal, stolen);
    if (w == XLAT_ERR_AGAIN)
        return w; /* refused: nothing was taken, so nothing arrived */
    /* "When a new page walk request arrives, the global EPOCH counter and
     * the per-tenant ENQ_EPOCH in the TWM are incremented." */
    p->tenant[r->tenant].enq_epoch++;
    if (++p->epoch >= p->cfg.dwspp.epoch_length)
        end_epoch(p);
    return w;
}

/* The DWS++ test of walker w against tenant v, the one with the most
 * queued walks: occupancies are per tenant (queued / its queue slots). */
static bool steal_early(const struct xlat_walker *p, uint32_t w, uint32_t v)
{
    const struct walk_unit *u = &p->unit[w];
    const struct walk_tenant *own = &p->tenant[u->owner], *other = &p->tenant[v];
    uint64_t cap = xlat__walk_queue_cap(p);
    return xlat_dwspp_should_steal(&p->cfg.dwspp, own->diff_thres, u->is_stolen,
                                   p->queue[w].len, (uint32_t)cap, own->queued,
                                   cap * own->walkers, other->queued, cap * other->walkers);
}

static struct walk_req *dwspp_select(struct xlat_walker *p, uint32_t w, bool *stolen)
{
    *stolen = false;
    uint32_t owner = p->unit[w].owner;
    int victim = xlat__pw_victim(p, owner);
    /* The owner has walks pending: steal only if the DWS++ test says so. */
    if (p->tenant[owner].queued && victim >= 0 && steal_early(p, w, (uint32_t)victim))
        return xlat__pw_steal(p, w, victim, stolen);
    struct walk_req *r = xlat__pw_serve_owner(p, w);
    if (r)
        return r;
    /* Nothing of the owner's: plain DWS stealing, whatever is_stolen says. */
    return xlat__pw_steal(p, w, victim, stolen);
}

double xlat_walker_diff_thres(const xlat_walker *p, uint32_t tenant)
{
    if (!p || tenant >= p->cfg.tenants)
        return 1.0;
    return p->tenant[tenant].diff_thres;
}

const struct walk_sched_ops xlat__sched_dwspp = {
    .name = "dwspp",
    .init = dwspp_init,
    .arrive = dwspp_arrive,
    .select = dwspp_select,
};
