/*
 * Per-walker queues, shared by static partitioning, DWS and DWS++
 * ("Improving GPU Multi-tenancy with Page Walk Stealing" §VI-B): "the
 * monolithic page walk queue ... is divided equally into per-walker queues",
 * queue w belongs to walker w, and walker w to one tenant (its owner).
 */
#include "walker_internal.h"

int xlat__pw_init(struct xlat_walker *p)
{
    /* §VI-B initialization: every FWA entry starts at the size of one
     * walker's queue; walkers are split equally among the tenants. */
    uint32_t cap = xlat__walk_queue_cap(p);
    for (uint32_t w = 0; w < p->nqueues; w++)
        p->queue[w].cap = cap;
    xlat__assign_walkers(p);
    return XLAT_OK;
}

/* The foreign walks a request of `tenant` queued at w waits behind now:
 * other tenants' walks in that queue, and w's walk if it is another
 * tenant's (the interleaving of §IV-A, Table III). */
static uint64_t waits_behind(const struct xlat_walker *p, uint32_t w, uint32_t tenant)
{
    const struct walk_req *busy = p->unit[w].r;
    return xlat__queue_foreign(p, w, tenant) + (busy && busy->tenant != tenant);
}

/* §VI-B arrival, steps 1-4: queue at the owned walker with the most free
 * slots (highest FWA count), lowest id on ties. Full everywhere: refuse,
 * which back-pressures this tenant only. */
static int enqueue(struct xlat_walker *p, struct walk_req *r)
{
    int w = xlat__least_loaded(p, r->tenant);
    if (w < 0)
        return XLAT_ERR_AGAIN;
    r->interleave = waits_behind(p, (uint32_t)w, r->tenant);
    xlat__queue_push(p, (uint32_t)w, r);
    return -1;
}

/* The walks of w's owner queued at w now wait behind a foreign walk too:
 * the authors' simulator charges them to the stealer's tenant at the steal. */
static void charge_steal(struct xlat_walker *p, uint32_t w, uint32_t thief_of)
{
    for (struct walk_req *r = p->queue[w].head; r; r = r->qnext) {
        xlat_walker_tenant_stats *st = &p->tenant[r->tenant].st;
        if (r->tenant == thief_of)
            continue;
        r->interleave++;
        st->interleave++;
        if (r->interleave > st->interleave_max)
            st->interleave_max = r->interleave;
    }
}

int xlat__pw_arrive(struct xlat_walker *p, struct walk_req *r, bool may_start, bool idle_steal,
                    bool *stolen)
{
    *stolen = false;
    if (!may_start)
        return enqueue(p, r);
    int w = xlat__idle_walker(p, (int32_t)r->tenant);
    if (w >= 0)
        return w;
    /* The paper acts only at arrival and completion, so a walker that found
     * nothing to steal would sleep through later arrivals of other tenants;
     * an idle walker takes the arrival instead (a steal). */
    if (idle_steal && (w = xlat__idle_walker(p, -1)) >= 0) {
        *stolen = true;
        charge_steal(p, (uint32_t)w, r->tenant);
        return w;
    }
    return enqueue(p, r);
}

/* The first request of queue q that may start now, taken off the queue. */
static struct walk_req *take(struct xlat_walker *p, int q)
{
    struct walk_req *r = q < 0 ? NULL : xlat__queue_first_eligible(p, (uint32_t)q);
    if (r)
        xlat__queue_remove(p, r);
    return r;
}

struct walk_req *xlat__pw_serve_owner(struct xlat_walker *p, uint32_t w)
{
    /* §VI-B completion step 1: the head of its own queue; step 3a: else the
     * owner's queue with the most requests (not a steal). */
    struct walk_req *r = take(p, (int)w);
    return r ? r : take(p, xlat__fullest_queue(p, p->unit[w].owner));
}

int xlat__pw_victim(struct xlat_walker *p, uint32_t self)
{
    /* §VI-C: with more than two tenants, "steal from the tenant with most
     * pending walks". Tenants whose queued walks are all held back
     * (coalescing, defer hook) have nothing to steal. */
    int best = -1;
    uint64_t most = 0;
    for (uint32_t t = 0; t < p->cfg.tenants; t++) {
        if (t == self || p->tenant[t].queued <= most)
            continue;
        if (xlat__fullest_queue(p, t) < 0)
            continue;
        most = p->tenant[t].queued;
        best = (int)t;
    }
    return best;
}

struct walk_req *xlat__pw_steal(struct xlat_walker *p, uint32_t w, int victim, bool *stolen)
{
    /* §VI-B step 3b: "steps similar to those in 3a" on the target tenant:
     * the head of its fullest queue. */
    struct walk_req *r = victim < 0 ? NULL : take(p, xlat__fullest_queue(p, (uint32_t)victim));
    if (!r)
        return NULL;
    *stolen = true;
    charge_steal(p, w, r->tenant);
    return r;
}
