/*
 * Per-walker queues, shared by static partitioning, DWS and DWS++
 * ("Improving GPU Multi-tenancy with Page Walk Stealing" §VI-B): "the
 * monolithic page walk queue ... is divided equally into per-walker queues",
 * queue w belongs to walker w, and walker w to one tenant (its owner).
 * Ownership is the schedulers' state; the pool knows only queues.
 */
#include "walk_sched.h"

uint32_t xlat__pw_queues(const xlat_walker_config *cfg) { return cfg->walkers; }

size_t xlat__pw_arrays_size(const xlat_walker_config *cfg)
{
    return sizeof(uint32_t) * ((size_t)cfg->walkers + cfg->tenants);
}

void xlat__pw_init(struct pw_state *s, const xlat_walker_config *cfg, void *arrays)
{
    /* §VI-B initialization: every FWA entry starts at the size of one
     * walker's queue (the pool sizes the queues); walkers are split equally
     * among the tenants. */
    uint32_t n = cfg->walkers, t = cfg->tenants;
    s->owner = arrays;
    s->owned = s->owner + n;
    for (uint32_t w = 0; w < n; w++) {
        uint32_t owner = cfg->assign == XLAT_ASSIGN_INTERLEAVED ? w % t : w / (n / t);
        s->owner[w] = owner;
        s->owned[owner]++;
    }
}

/* Owned walker of `tenant` with the most free queue slots (lowest id on
 * ties); -1 if every owned queue is full. */
static int least_loaded(const struct pw_state *s, uint32_t tenant)
{
    const struct walk_sched_env *e = &s->env;
    int best = -1;
    uint32_t best_free = 0;
    for (uint32_t w = 0; w < e->walkers; w++) {
        if (s->owner[w] != tenant)
            continue;
        uint32_t free_slots = e->queue_cap - e->svc->len(e->pool, w);
        if (free_slots > best_free) {
            best_free = free_slots;
            best = (int)w;
        }
    }
    return best;
}

/* Walker of `tenant` whose queue holds the most requests among those with
 * one that may start now, -1 if none. */
static int fullest_queue(const struct pw_state *s, uint32_t tenant)
{
    const struct walk_sched_env *e = &s->env;
    int best = -1;
    uint32_t best_len = 0;
    for (uint32_t w = 0; w < e->walkers; w++) {
        uint32_t len = e->svc->len(e->pool, w);
        if (s->owner[w] != tenant || len <= best_len || !e->svc->has_eligible(e->pool, w))
            continue;
        best_len = len;
        best = (int)w;
    }
    return best;
}

/* Lowest idle walker owned by `tenant` (or any tenant if tenant < 0), -1 if none. */
static int idle_walker(const struct pw_state *s, int64_t tenant)
{
    const struct walk_sched_env *e = &s->env;
    if (tenant < 0)
        return (int)e->svc->first_idle(e->pool);
    for (uint32_t w = 0; w < e->walkers; w++)
        if (e->svc->walker_tenant(e->pool, w) < 0 && (tenant < 0 || s->owner[w] == tenant))
            return (int)w;
    return -1;
}

/* The foreign walks a request of `tenant` queued at w waits behind now:
 * other tenants' walks in that queue, and w's walk if it is another
 * tenant's (the interleaving of §IV-A, Table III). */
static uint64_t waits_behind(const struct pw_state *s, uint32_t w, uint32_t tenant)
{
    const struct walk_sched_env *e = &s->env;
    int64_t busy = e->svc->walker_tenant(e->pool, w);
    return e->svc->foreign(e->pool, w, tenant) + (busy >= 0 && busy != tenant);
}

/* §VI-B arrival, steps 1-4: queue at the owned walker with the most free
 * slots (highest FWA count), lowest id on ties. Full everywhere: refuse,
 * which back-pressures this tenant only. */
static int enqueue(struct pw_state *s, struct walk_req *r, uint32_t tenant)
{
    const struct walk_sched_env *e = &s->env;
    int w = least_loaded(s, tenant);
    if (w < 0)
        return XLAT_ERR_AGAIN;
    e->svc->set_interleave(r, waits_behind(s, (uint32_t)w, tenant));
    e->svc->push(e->pool, (uint32_t)w, r);
    return -1;
}

int xlat__pw_arrive(struct pw_state *s, struct walk_req *r, bool may_start, bool idle_steal,
                    int32_t *thief)
{
    const struct walk_sched_env *e = &s->env;
    uint32_t tenant = e->svc->req_tenant(r);
    *thief = -1;
    if (!may_start)
        return enqueue(s, r, tenant);
    int w = idle_walker(s, tenant);
    if (w >= 0)
        return w;
    /* The paper acts only at arrival and completion, so a walker that found
     * nothing to steal would sleep through later arrivals of other tenants;
     * an idle walker takes the arrival instead (a steal). The walks of w's
     * owner queued at w now wait behind a foreign walk too: the authors'
     * simulator charges them to the stealer's tenant at the steal. */
    if (idle_steal && (w = idle_walker(s, -1)) >= 0) {
        *thief = (int32_t)s->owner[w];
        e->svc->charge_interleave(e->pool, (uint32_t)w, tenant);
        return w;
    }
    return enqueue(s, r, tenant);
}

/* The first request of queue q that may start now, taken off the queue. */
static struct walk_req *take(struct pw_state *s, int q)
{
    return q < 0 ? NULL : s->env.svc->take(s->env.pool, (uint32_t)q);
}

struct walk_req *xlat__pw_serve_owner(struct pw_state *s, uint32_t w)
{
    /* §VI-B completion step 1: the head of its own queue; step 3a: else the
     * owner's queue with the most requests (not a steal). */
    struct walk_req *r = take(s, (int)w);
    return r ? r : take(s, fullest_queue(s, s->owner[w]));
}

int xlat__pw_victim(struct pw_state *s, uint32_t self)
{
    /* §VI-C: with more than two tenants, "steal from the tenant with most
     * pending walks". Tenants whose queued walks are all held back
     * (coalescing, defer hook) have nothing to steal. */
    const struct walk_sched_env *e = &s->env;
    int best = -1;
    uint64_t most = 0;
    for (uint32_t t = 0; t < e->tenants; t++) {
        uint64_t queued = e->svc->tenant_queued(e->pool, t);
        if (t == self || queued <= most || fullest_queue(s, t) < 0)
            continue;
        most = queued;
        best = (int)t;
    }
    return best;
}

struct walk_req *xlat__pw_steal(struct pw_state *s, uint32_t w, int victim, int32_t *thief)
{
    /* §VI-B step 3b: "steps similar to those in 3a" on the target tenant:
     * the head of its fullest queue. */
    struct walk_req *r = victim < 0 ? NULL : take(s, fullest_queue(s, (uint32_t)victim));
    if (!r)
        return NULL;
    *thief = (int32_t)s->owner[w];
    s->env.svc->charge_interleave(s->env.pool, w, s->env.svc->req_tenant(r));
    return r;
}
