/*
 * GMMU bypass, the predictor of "Dynamic GMMU Bypass for Address
 * Translation in Multi-GPU Systems" (§4, §6): two counters of requests that
 * touched local and remote pages, an L/T ratio at the end of each sampling
 * epoch, and the route of the next epoch. Also the table of modes.
 */
#include "gmmu_internal.h"

/* §2.3: the centralized design sends every miss to the IOMMU (a fixed
 * bypass), the distributed one walks locally first (bypass disabled); §4
 * chooses per epoch. */
static const struct gmmu_mode_ops modes[] = {
    [XLAT_GMMU_CENTRALIZED] = {"centralized", 0, 0, 0, XLAT_GMMU_ROUTE_BYPASS},
    [XLAT_GMMU_DISTRIBUTED] = {"distributed", 0, 1, 0, XLAT_GMMU_ROUTE_LOCAL},
    [XLAT_GMMU_DYNAMIC] = {"dynamic", 1, 1, 0, XLAT_GMMU_ROUTE_LOCAL},
    [XLAT_GMMU_IDEAL] = {"ideal", 0, 1, 1, XLAT_GMMU_ROUTE_LOCAL},
};

const struct gmmu_mode_ops *xlat__gmmu_mode_ops(xlat_gmmu_mode mode)
{
    if ((unsigned)mode >= sizeof(modes) / sizeof(modes[0]))
        return NULL;
    return &modes[mode];
}

xlat_gmmu_routing xlat__gmmu_route_for(const xlat_gmmu *g, const xlat_req *req)
{
    if (g->mode->dynamic)
        return g->epoch.route; /* §4: the last epoch's prediction */
    if (g->mode->oracle) /* §3: "can predict the exact destination for each request" */
        return g->cfg.oracle(g->cfg.oracle_user, g->cfg.gpu, req) ? XLAT_GMMU_ROUTE_LOCAL
                                                                  : XLAT_GMMU_ROUTE_BYPASS;
    return g->mode->fixed;
}

static uint64_t min_samples(const xlat_gmmu_config *c)
{
    return c->min_samples ? c->min_samples : 1;
}

xlat_gmmu_routing xlat_gmmu_decide(const xlat_gmmu_config *cfg, uint64_t local, uint64_t remote,
                                   xlat_gmmu_routing current)
{
    if (!cfg)
        return current;
    /* §4 says nothing of an epoch without requests: there is no ratio, so
     * the route stays (min_samples generalises this, note §A.6). */
    uint64_t total = local > UINT64_MAX - remote ? UINT64_MAX : local + remote;
    if (total < min_samples(cfg))
        return current;
    double ratio = (double)local / ((double)local + (double)remote);
    /* §4: "larger than a threshold (T1)" disables the bypass, "smaller than
     * a threshold (T2)" enables it, and "between T1 and T2" sends to both;
     * the comparisons are strict, so a ratio equal to T1 or T2 is parallel.
     * A ratio that is exactly T1 in reals rounds to the same double as T1. */
    if (ratio > cfg->t1)
        return XLAT_GMMU_ROUTE_LOCAL;
    if (ratio < cfg->t2)
        return XLAT_GMMU_ROUTE_BYPASS;
    return XLAT_GMMU_ROUTE_PARALLEL;
}

void xlat__gmmu_epoch_init(struct gmmu_epoch *e, const xlat_gmmu_config *c, uint64_t now)
{
    memset(e, 0, sizeof(*e));
    e->index = now / c->epoch_cycles;
    e->route = c->initial_route;
}

void xlat__gmmu_epoch_count(struct gmmu_epoch *e, const xlat_gmmu_config *c, int local)
{
    uint32_t max = c->counter_bits >= 32 ? UINT32_MAX : (1u << c->counter_bits) - 1u;
    uint32_t *mine = local ? &e->cnt_local : &e->cnt_remote;
    if (local)
        e->seen_local++;
    else
        e->seen_remote++;
    if (*mine == max) {
        /* §6.3 gives two 8-bit counters and no overflow rule; a 10 µs epoch
         * can see more than 255 misses. Halving both keeps L/T. */
        if (c->overflow == XLAT_GMMU_OVERFLOW_SATURATE)
            return;
        e->cnt_local >>= 1;
        e->cnt_remote >>= 1;
    }
    (*mine)++;
}

/* §6.2, Fig. 6: an epoch run with a route predicted from an extreme ratio
 * is right for the requests whose locality matches the prediction. The
 * paper gives no formula; this is the note's §D.3 reconstruction. */
static void score(const struct gmmu_epoch *e, xlat_gmmu_stats *st)
{
    uint64_t total = e->seen_local + e->seen_remote;
    if (!e->predicted || total == 0 || e->route == XLAT_GMMU_ROUTE_PARALLEL)
        return;
    int local = e->route == XLAT_GMMU_ROUTE_LOCAL;
    uint64_t hits = local ? e->seen_local : e->seen_remote;
    double acc = (double)hits / (double)total;
    if (local) {
        st->pred_local_epochs++;
        st->pred_local_hits += hits;
        st->pred_local_total += total;
        st->pred_local_acc_sum += acc;
    } else {
        st->pred_remote_epochs++;
        st->pred_remote_hits += hits;
        st->pred_remote_total += total;
        st->pred_remote_acc_sum += acc;
    }
}

void xlat__gmmu_epoch_roll(struct gmmu_epoch *e, const xlat_gmmu_config *c, uint64_t now,
                           xlat_gmmu_stats *st, int report)
{
    uint64_t now_index = now / c->epoch_cycles;
    if (now_index <= e->index)
        return;
    xlat_gmmu_epoch ended = {
        .index = e->index, .local = e->seen_local, .remote = e->seen_remote,
        .counter_local = e->cnt_local, .counter_remote = e->cnt_remote, .route = e->route,
    };
    int held = (uint64_t)e->cnt_local + e->cnt_remote < min_samples(c);
    /* §4: the ratio of this epoch predicts the next one. */
    ended.next = xlat_gmmu_decide(c, e->cnt_local, e->cnt_remote, e->route);
    score(e, st);
    /* The epochs between it and now saw no answer (every answer rolls the
     * epochs first), so each of them keeps the route. */
    uint64_t idle = now_index - e->index - 1;
    st->epochs += 1 + idle;
    st->epochs_held += (uint64_t)held + idle;
    st->decisions[ended.next] += 1 + idle;
    e->predicted |= !held;
    e->route = ended.next;
    e->index = now_index;
    e->cnt_local = e->cnt_remote = 0;
    e->seen_local = e->seen_remote = 0;
    /* Last, with the state settled: the callback may send new requests. */
    if (report && c->epoch_fn && ended.local + ended.remote)
        c->epoch_fn(c->epoch_user, &ended);
}

int xlat__gmmu_locality(const xlat_gmmu *g, const struct gmmu_req *r, int side,
                        const xlat_resp *resp)
{
    if (resp->status != XLAT_OK && resp->status != XLAT_ERR_PERM)
        return -1; /* no page was touched */
    /* §3: the GMMU's page table holds local pages only, so its walk is the
     * locality test: a hit is local, a miss remote. */
    if (side == SIDE_GMMU)
        return 1;
    if (r->side[SIDE_GMMU].state == SIDE_DONE && !r->side[SIDE_GMMU].valid)
        return 0;
    /* Bypassed (or beaten in parallel) the walk says nothing: the physical
     * address the IOMMU returned tells whose memory holds the page. */
    if (g->cfg.is_local)
        return g->cfg.is_local(g->cfg.locality_user, g->cfg.gpu, resp->paddr) ? 1 : 0;
    if (g->cfg.local_size)
        return resp->paddr >= g->cfg.local_base &&
               resp->paddr - g->cfg.local_base < g->cfg.local_size;
    return -1;
}

/* ---- queries: the predictor as of now ------------------------------------- */

/* The predictor as it will be once the epochs ended by now are evaluated;
 * `st` (may be NULL) receives their counts too. */
struct gmmu_epoch xlat__gmmu_epoch_now(const xlat_gmmu *g, xlat_gmmu_stats *st)
{
    struct gmmu_epoch e = g->epoch;
    xlat_gmmu_stats scratch;
    memset(&scratch, 0, sizeof(scratch));
    xlat__gmmu_epoch_roll(&e, &g->cfg, xlat__unit_cycle(&g->u), st ? st : &scratch, 0);
    return e;
}

xlat_gmmu_routing xlat_gmmu_route(const xlat_gmmu *g)
{
    if (!g)
        return XLAT_GMMU_ROUTE_LOCAL;
    if (!g->mode->dynamic)
        return g->mode->fixed;
    return xlat__gmmu_epoch_now(g, NULL).route;
}

int xlat_gmmu_counters(const xlat_gmmu *g, uint32_t *local, uint32_t *remote)
{
    if (!g)
        return XLAT_ERR_INVAL;
    struct gmmu_epoch e = xlat__gmmu_epoch_now(g, NULL);
    if (local)
        *local = e.cnt_local;
    if (remote)
        *remote = e.cnt_remote;
    return XLAT_OK;
}
