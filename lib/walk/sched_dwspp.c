/*
 * DWS++ ("Improving GPU Multi-tenancy with Page Walk Stealing" §VI-B,
 * "Enhancement for DWS++", Tables IV and VII): DWS, plus a walker may steal
 * while its owner still has walks queued when the other tenant's queues are
 * much fuller (DIFF_THRES), its own queue is short enough (QUEUE_THRES) and
 * its last walk was not stolen. DIFF_THRES follows the tenants' arrival
 * ratio over epochs of a fixed number of arrivals.
 */
#include <math.h>

#include "walk_sched.h"
#include "dwspp_rules.h"

/* DWS++'s state: DWS's ownership, the epoch counters (EPOCH, ENQ_EPOCH),
 * each tenant's DIFF_THRES and each walker's is_stolen bit. The arrays
 * live in the same block, after the struct. */
struct dwspp_state {
    struct pw_state pw;
    xlat_dwspp_config c;
    bool idle_steal;
    uint64_t epoch;         /* arrivals in the current epoch */
    uint64_t *enq_epoch;    /* per tenant: arrivals this epoch */
    double *diff_thres;     /* per tenant: 1.0 ("no stealing") before the first epoch */
    uint8_t *is_stolen;     /* per walker: its last walk was stolen */
};

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

static size_t dwspp_state_size(const xlat_walker_config *cfg)
{
    return sizeof(struct dwspp_state) + (sizeof(uint64_t) + sizeof(double)) * cfg->tenants +
           xlat__pw_arrays_size(cfg) + cfg->walkers;
}

static int dwspp_init(void *state, xlat_ctx *ctx, const xlat_walker_config *cfg)
{
    struct dwspp_state *s = state;
    if (!ladder_ok(cfg->dwspp))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: bad DWS++ ladder (epoch_length 0, ratios not increasing "
                          "from 1, a negative DIFF_THRES or QUEUE_THRES outside 0..1)",
                          cfg->name);
    s->c = *cfg->dwspp;
    s->idle_steal = cfg->idle_steal;
    s->enq_epoch = (uint64_t *)(s + 1);
    s->diff_thres = (double *)(s->enq_epoch + cfg->tenants);
    uint32_t *owners = (uint32_t *)(s->diff_thres + cfg->tenants);
    xlat__pw_init(&s->pw, cfg, owners);
    s->is_stolen = (uint8_t *)(owners + cfg->walkers + cfg->tenants);
    for (uint32_t t = 0; t < cfg->tenants; t++)
        s->diff_thres[t] = 1.0; /* no extra stealing before the first epoch */
    return XLAT_OK;
}

/* The tenant the others compare their arrivals with (§VI-C: "first finding
 * the tenant that has the most pending walks"); ties go to the one with the
 * most arrivals this epoch, then to the lowest id. */
static uint32_t epoch_reference(const struct dwspp_state *s)
{
    const struct walk_sched_env *e = &s->pw.env;
    uint32_t best = 0;
    for (uint32_t t = 1; t < e->tenants; t++) {
        uint64_t a = e->svc->tenant_queued(e->pool, t), b = e->svc->tenant_queued(e->pool, best);
        if (a > b || (a == b && s->enq_epoch[t] > s->enq_epoch[best]))
            best = t;
    }
    return best;
}

/* End of an epoch: "the ratio of page walks enqueued by tenants is
 * calculated by dividing the larger of the per-tenant ENQ_EPOCH values by
 * the smaller one" and sets DIFF_THRES from the ladder (Table IV). */
static void end_epoch(struct dwspp_state *s)
{
    uint32_t n = s->pw.env.tenants;
    if (n == 2) {
        double th = xlat_dwspp_threshold(&s->c, s->enq_epoch[0], s->enq_epoch[1]);
        s->diff_thres[0] = s->diff_thres[1] = th;
    } else {
        uint64_t ref = s->enq_epoch[epoch_reference(s)];
        for (uint32_t t = 0; t < n; t++)
            s->diff_thres[t] = xlat_dwspp_threshold(&s->c, ref, s->enq_epoch[t]);
    }
    s->epoch = 0;
    for (uint32_t t = 0; t < n; t++)
        s->enq_epoch[t] = 0;
}

static int dwspp_arrive(void *state, struct walk_req *r, bool may_start, int32_t *thief)
{
    struct dwspp_state *s = state;
    int w = xlat__pw_arrive(&s->pw, r, may_start, s->idle_steal, thief);
    if (w == XLAT_ERR_AGAIN)
        return w; /* refused: nothing was taken, so nothing arrived */
    if (w >= 0)
        s->is_stolen[w] = *thief >= 0; /* set by a steal, cleared by serving the owner */
    /* "When a new page walk request arrives, the global EPOCH counter and
     * the per-tenant ENQ_EPOCH in the TWM are incremented." */
    s->enq_epoch[s->pw.env.svc->req_tenant(r)]++;
    if (++s->epoch >= s->c.epoch_length)
        end_epoch(s);
    return w;
}

/* The DWS++ test of walker w against tenant v, the one with the most
 * queued walks. The difference of the tenants' pending walks is normalised
 * by all the entries of the page walk queue (§VI-B: "computing the
 * difference between the per-tenant PEND_WALKS counters ... and dividing it
 * by the number of entries in the page walk queues"; "normalizes that by
 * the number of entries in the page walk queue"), not by each tenant's
 * share, which would make the test N times easier to pass with N tenants. */
static bool steal_early(const struct dwspp_state *s, uint32_t w, uint32_t v)
{
    const struct walk_sched_env *e = &s->pw.env;
    uint32_t own = s->pw.owner[w];
    uint64_t cap = e->queue_cap, entries = cap * e->walkers;
    return xlat_dwspp_should_steal(&s->c, s->diff_thres[own], s->is_stolen[w],
                                   e->svc->len(e->pool, w), (uint32_t)cap,
                                   e->svc->tenant_queued(e->pool, own), entries,
                                   e->svc->tenant_queued(e->pool, v), entries);
}

static struct walk_req *choose(struct dwspp_state *s, uint32_t w, int32_t *thief)
{
    const struct walk_sched_env *e = &s->pw.env;
    uint32_t owner = s->pw.owner[w];
    int victim = xlat__pw_victim(&s->pw, owner);
    /* The owner has walks pending: steal only if the DWS++ test says so. */
    if (e->svc->tenant_queued(e->pool, owner) && victim >= 0 &&
        steal_early(s, w, (uint32_t)victim))
        return xlat__pw_steal(&s->pw, w, victim, thief);
    struct walk_req *r = xlat__pw_serve_owner(&s->pw, w);
    if (r)
        return r;
    /* Nothing of the owner's: plain DWS stealing, whatever is_stolen says. */
    return xlat__pw_steal(&s->pw, w, victim, thief);
}

static struct walk_req *dwspp_select(void *state, uint32_t w, int32_t *thief)
{
    struct dwspp_state *s = state;
    *thief = -1;
    struct walk_req *r = choose(s, w, thief);
    if (r)
        s->is_stolen[w] = *thief >= 0;
    return r;
}

const struct walk_sched_ops xlat__sched_dwspp = {
    .name = "dwspp",
    .queues = xlat__pw_queues,
    .state_size = dwspp_state_size,
    .init = dwspp_init,
    .arrive = dwspp_arrive,
    .select = dwspp_select,
};

double xlat_walker_diff_thres(const xlat_walker *p, uint32_t tenant)
{
    const struct dwspp_state *s = xlat__walk_sched_state(p, &xlat__sched_dwspp);
    if (!s || tenant >= s->pw.env.tenants)
        return 1.0;
    return s->diff_thres[tenant];
}
