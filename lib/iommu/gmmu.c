/*
 * The GMMU of "Dynamic GMMU Bypass for Address Translation in Multi-GPU
 * Systems": routes a GPU's L2 TLB misses to its own walkers, to the IOMMU,
 * or to both (§2.3, §4), and answers each accepted request exactly once.
 * The route of a request is fixed at acceptance; each side (the local walk,
 * the IOMMU) is sent, retried while refused, and answered at most once; the
 * record lives until both sides and its events are done with it.
 */
#include "gmmu_internal.h"

#define GMMU_INITIAL_REQS 64 /* grows by doubling, see pool.h */

void xlat_gmmu_config_init(xlat_gmmu_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "gmmu";
    cfg->mode = XLAT_GMMU_DISTRIBUTED;
    cfg->epoch_cycles = 10000; /* §6.1: 10 µs at the 1 GHz of Table 1 */
    cfg->t1 = 0.85;            /* §4, §6.1 */
    cfg->t2 = 0.15;
    cfg->initial_route = XLAT_GMMU_ROUTE_LOCAL;
    cfg->counter_bits = 8; /* §6.3: two 8-bit counters */
    cfg->overflow = XLAT_GMMU_OVERFLOW_HALVE;
    cfg->min_samples = 1;
}

static int in_unit(double t) { return t >= 0.0 && t <= 1.0; } /* false for NaN */

static int check_predictor(xlat_ctx *ctx, const xlat_gmmu_config *c, const char *n)
{
    if (!in_unit(c->t1) || !in_unit(c->t2))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: t1 %g and t2 %g must lie in [0, 1]", n,
                          c->t1, c->t2);
    if (c->t2 > c->t1)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: t2 %g is above t1 %g", n, c->t2, c->t1);
    if (c->epoch_cycles == 0)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: epoch_cycles is 0", n);
    if (c->counter_bits < 1 || c->counter_bits > 32)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: counter_bits must be 1..32, not %u", n,
                          c->counter_bits);
    if ((unsigned)c->initial_route >= XLAT_GMMU_ROUTES)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: unknown initial_route %d", n,
                          (int)c->initial_route);
    if ((unsigned)c->overflow > XLAT_GMMU_OVERFLOW_SATURATE)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: unknown overflow policy %d", n,
                          (int)c->overflow);
    return XLAT_OK;
}

static int check_config(xlat_ctx *ctx, const xlat_gmmu_config *c)
{
    const char *n = c->name ? c->name : "gmmu";
    const struct gmmu_mode_ops *m = xlat__gmmu_mode_ops(c->mode);
    if (!m)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: unknown mode %d", n, (int)c->mode);
    int rc = check_predictor(ctx, c, n);
    if (rc != XLAT_OK)
        return rc;
    if (m->needs_walker && !c->walker)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: %s mode walks, but cfg.walker is NULL",
                          n, m->name);
    /* Bypassed requests never walk locally, so only the address the IOMMU
     * returns can say whether they were local (§4 counts both kinds). */
    if (m->dynamic && !c->is_local && !c->local_size)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "gmmu %s: dynamic mode needs is_local or local_size to count"
                          " bypassed requests", n);
    if (m->oracle && !c->oracle)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "gmmu %s: ideal mode needs cfg.oracle", n);
    return XLAT_OK;
}

static void drain_gmmu(void *arg);
static void drain_iommu(void *arg);
static void deliver_event(void *arg);

static int owned_event(void *gmmu, xlat_event_fn fn, void *user)
{
    if (fn == drain_gmmu || fn == drain_iommu)
        return user == gmmu;
    return fn == deliver_event && ((struct gmmu_req *)user)->g == gmmu;
}

static void gmmu_free(xlat_gmmu *g)
{
    xlat__cancel_events(g->ctx, owned_event, g);
    xlat__pool_release(&g->reqs);
    xlat__strfree(g->ctx, g->name);
    xlat__free(g->ctx, g, sizeof(*g));
}

int xlat_gmmu_create(xlat_ctx *ctx, const xlat_gmmu_config *cfg, xlat_gmmu **out)
{
    xlat_gmmu_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_gmmu_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_gmmu_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, sizeof(c), "xlat_gmmu_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_gmmu *g = xlat__alloc(ctx, sizeof(*g));
    if (!g)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_gmmu_create: out of memory");
    g->ctx = ctx;
    g->cfg = c;
    g->mode = xlat__gmmu_mode_ops(c.mode);
    g->name = xlat__strdup(ctx, c.name ? c.name : "gmmu");
    g->cfg.name = g->name;
    if (!g->name ||
        xlat__pool_init(&g->reqs, ctx, sizeof(struct gmmu_req), GMMU_INITIAL_REQS) != XLAT_OK) {
        gmmu_free(g);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_gmmu_create: out of memory");
    }
    xlat__gmmu_epoch_init(&g->epoch, &g->cfg, ctx->now);
    *out = g;
    return XLAT_OK;
}

void xlat_gmmu_destroy(xlat_gmmu *g)
{
    if (g)
        gmmu_free(g);
}

int xlat_gmmu_set_iommu(xlat_gmmu *g, const xlat_target *iommu)
{
    if (!g || (iommu && !iommu->translate))
        return xlat__fail(g ? g->ctx : NULL, XLAT_ERR_INVAL, "xlat_gmmu_set_iommu: %s",
                          g ? "target without a translate function" : "NULL gmmu");
    if (iommu)
        g->iommu = *iommu;
    else
        memset(&g->iommu, 0, sizeof(g->iommu));
    return XLAT_OK;
}

/* ---- answering ----------------------------------------------------------- */

/* Statistics and the predictor's counters for an answer leaving now. */
static void count_answer(xlat_gmmu *g, const struct gmmu_req *r, const xlat_resp *out)
{
    xlat_gmmu_stats *st = &g->stats;
    st->completed++;
    if (r->final_side == SIDE_GMMU)
        st->local++;
    else
        st->remote++;
    if (out->status != XLAT_OK && out->status != XLAT_ERR_PERM)
        st->failed++;
    st->latency_cycles += out->completed - r->issued;
    int local = xlat__gmmu_locality(g, r, r->final_side, out);
    if (local < 0)
        return;
    if (local)
        st->touched_local++;
    else
        st->touched_remote++;
    if (g->mode->dynamic) {
        /* §4 counts per epoch: the answer belongs to the epoch it leaves in. */
        xlat__gmmu_epoch_roll(&g->epoch, &g->cfg, g->ctx->now, st, 1);
        xlat__gmmu_epoch_count(&g->epoch, &g->cfg, local);
    }
}

static void deliver(struct gmmu_req *r)
{
    xlat_gmmu *g = r->g;
    xlat_resp out = r->final;
    r->deferred = 0;
    out.id = r->req.id;
    out.vaddr = r->req.vaddr;
    out.pasid = r->req.pasid;
    out.issued = r->issued;
    out.completed = g->ctx->now;
    g->unanswered--;
    count_answer(g, r, &out);
    r->done(r->user, &out);
}

/* Frees `r` once it is answered and nothing can reach it any more; hands
 * over an answer that had to wait. Every entry point ends here. */
static void settle(struct gmmu_req *r)
{
    if (r->hold || r->starting)
        return;
    if (r->deferred)
        deliver(r);
    if (!r->answered || r->events || r->side[SIDE_GMMU].state == SIDE_PENDING ||
        r->side[SIDE_IOMMU].state == SIDE_PENDING)
        return;
    xlat__pool_put(&r->g->reqs, r);
}

/* The answer of `side` is the request's answer. */
static void choose(struct gmmu_req *r, int side)
{
    xlat_gmmu_stats *st = &r->g->stats;
    r->answered = 1;
    r->final_side = (uint8_t)side;
    r->final = r->side[side].resp;
    /* §4: in parallel only one answer is used; the other is "discarded". */
    if (r->route == XLAT_GMMU_ROUTE_PARALLEL) {
        if (side == SIDE_GMMU)
            st->discarded_iommu++;
        else
            st->discarded_gmmu++;
    }
    if (r->starting)
        r->deferred = 1; /* never call `done` from inside xlat_gmmu_translate */
    else
        deliver(r);
}

static void side_send(struct gmmu_req *r, int side);

static void side_answer(struct gmmu_req *r, int side, const xlat_resp *resp)
{
    struct gmmu_side *sd = &r->side[side];
    sd->state = SIDE_DONE;
    sd->valid = resp->status == XLAT_OK || resp->status == XLAT_ERR_PERM;
    sd->resp = *resp;
    if (r->answered)
        return; /* the late one of a parallel pair, counted when the first won */
    if (sd->valid) {
        choose(r, side);
        return;
    }
    if (side == SIDE_GMMU && r->route == XLAT_GMMU_ROUTE_LOCAL) {
        /* §2.3, Fig. 2 ③: the local walk found nothing, so the page is not
         * in this GPU's memory: ask the IOMMU. */
        side_send(r, SIDE_IOMMU);
        return;
    }
    /* §4: a GMMU miss is dropped in favour of the IOMMU's answer; an
     * invalid IOMMU answer waits for a walk that may still find the page. */
    if (r->side[!side].state == SIDE_PENDING)
        return;
    choose(r, r->side[SIDE_IOMMU].state == SIDE_DONE ? SIDE_IOMMU : side);
}

/* An answer made here: a missing IOMMU, or a downstream error. */
static void own_answer(struct gmmu_req *r, int side, int status)
{
    xlat_resp a;
    memset(&a, 0, sizeof(a));
    a.id = r->req.id;
    a.vaddr = r->req.vaddr;
    a.pasid = r->req.pasid;
    a.status = status;
    a.issued = a.completed = r->g->ctx->now;
    a.resolver = r->g->name;
    side_answer(r, side, &a);
}

static void gmmu_done(void *user, const xlat_resp *resp)
{
    struct gmmu_req *r = user;
    if (resp->status != XLAT_OK && resp->status != XLAT_ERR_PERM)
        r->g->stats.wasted_walks++; /* §3: an "unnecessary page table walk" */
    side_answer(r, SIDE_GMMU, resp);
    settle(r);
}

static void iommu_done(void *user, const xlat_resp *resp)
{
    struct gmmu_req *r = user;
    side_answer(r, SIDE_IOMMU, resp);
    settle(r);
}

static int send_down(struct gmmu_req *r, int side)
{
    xlat_gmmu *g = r->g;
    if (side == SIDE_GMMU)
        return xlat_walker_translate(g->cfg.walker, &r->req, gmmu_done, r);
    if (!g->iommu.translate)
        return XLAT_ERR_NOT_FOUND; /* no path to the IOMMU: documented answer */
    return g->iommu.translate(g->iommu.unit, &r->req, iommu_done, r);
}

/* One attempt to hand `r` to `side`: 1 when it was taken (or answered
 * with an error), 0 when refused with XLAT_ERR_AGAIN. */
static int side_try(struct gmmu_req *r, int side)
{
    xlat_gmmu_stats *st = &r->g->stats;
    r->hold++; /* the unit below may answer inside this call */
    int rc = send_down(r, side);
    r->hold--;
    if (rc == XLAT_ERR_AGAIN) {
        if (side == SIDE_GMMU)
            st->gmmu_retries++;
        else
            st->iommu_retries++;
        return 0;
    }
    if (rc != XLAT_OK)
        own_answer(r, side, rc);
    else if (side == SIDE_GMMU)
        st->gmmu_walks++;
    else
        st->iommu_requests++;
    return 1;
}

/* The head of `side`'s queue is retried when the unit below has room
 * (through its wait hook), or next cycle when it has no hook. */
static int schedule_drain(xlat_gmmu *g, int side)
{
    xlat_target below = side == SIDE_GMMU ? xlat_walker_target(g->cfg.walker) : g->iommu;
    return xlat__target_retry(g->ctx, &below, side == SIDE_GMMU ? drain_gmmu : drain_iommu, g);
}

static void wait_pop(struct gmmu_wait *w, int side)
{
    w->head = w->head->wait_next[side];
    if (!w->head)
        w->tail = NULL;
}

/* Puts `r` at the tail of `side`'s queue; the head is retried when the
 * unit below has room. */
static void wait_push(struct gmmu_req *r, int side)
{
    xlat_gmmu *g = r->g;
    struct gmmu_wait *w = &g->wait[side];
    r->wait_next[side] = NULL;
    if (w->tail)
        w->tail->wait_next[side] = r;
    else
        w->head = r;
    w->tail = r;
    if (w->scheduled)
        return;
    if (schedule_drain(g, side) == XLAT_OK) {
        w->scheduled = 1;
    } else if (w->head == r) {
        wait_pop(w, side); /* alone and no event to retry it: answer rather than lose it */
        own_answer(r, side, XLAT_ERR_NOMEM);
    } /* else a drain is running: it schedules the next one or answers them all */
}

static void side_send(struct gmmu_req *r, int side)
{
    r->side[side].state = SIDE_PENDING;
    /* Refused requests go first, in arrival order; a refusal is retried
     * next cycle, never lost. */
    if (r->g->wait[side].head || !side_try(r, side))
        wait_push(r, side);
}

/* Retries the head of `side`'s queue until the unit below refuses again. */
static void drain(xlat_gmmu *g, int side)
{
    struct gmmu_wait *w = &g->wait[side];
    w->scheduled = 0;
    while (w->head) {
        struct gmmu_req *r = w->head;
        int cancel = r->answered; /* the other side won meanwhile: no duplicate (§4) */
        if (!cancel && !side_try(r, side))
            break;
        wait_pop(w, side);
        if (cancel)
            r->side[side].state = SIDE_IDLE;
        settle(r);
    }
    if (!w->head || w->scheduled)
        return;
    if (schedule_drain(g, side) == XLAT_OK) {
        w->scheduled = 1;
        return;
    }
    while (w->head) { /* no event to retry with: answer rather than lose them */
        struct gmmu_req *r = w->head;
        wait_pop(w, side);
        if (r->answered)
            r->side[side].state = SIDE_IDLE;
        else
            own_answer(r, side, XLAT_ERR_NOMEM);
        settle(r);
    }
}

static void drain_gmmu(void *arg) { drain(arg, SIDE_GMMU); }

static void drain_iommu(void *arg) { drain(arg, SIDE_IOMMU); }

static void deliver_event(void *arg)
{
    struct gmmu_req *r = arg;
    r->events--;
    settle(r);
}

/* ---- accepting ------------------------------------------------------------ */

/* Sends a new request where its route says (§2.3, §4). */
static void start(struct gmmu_req *r)
{
    xlat_gmmu_routing route = r->route;
    if (route == XLAT_GMMU_ROUTE_PARALLEL) {
        r->g->stats.parallel++;
        /* Both are in flight from the start, so that a GMMU miss answered
         * inside the walker's call waits for the IOMMU. */
        r->side[SIDE_IOMMU].state = SIDE_PENDING;
    }
    if (route != XLAT_GMMU_ROUTE_BYPASS)
        side_send(r, SIDE_GMMU);
    if (route == XLAT_GMMU_ROUTE_LOCAL)
        return;
    if (r->answered)
        r->side[SIDE_IOMMU].state = SIDE_IDLE; /* the walk answered at once */
    else
        side_send(r, SIDE_IOMMU);
}

/* Completes acceptance; an answer chosen during start() leaves through an
 * event this same cycle. */
static int accept(xlat_gmmu *g, struct gmmu_req *r)
{
    if (r->deferred) {
        int rc = xlat_schedule(g->ctx, 0, deliver_event, r);
        if (rc == XLAT_OK)
            r->events++;
        else if (!r->events && r->side[SIDE_GMMU].state != SIDE_PENDING &&
                 r->side[SIDE_IOMMU].state != SIDE_PENDING) {
            xlat__pool_put(&g->reqs, r); /* nothing below holds it: refuse */
            return xlat__fail(g->ctx, XLAT_ERR_NOMEM, "gmmu %s: out of memory for an event",
                              g->name);
        }
        /* else the answer leaves with the next event of a side still out */
    }
    g->stats.requests++;
    g->stats.routed[r->route]++;
    g->unanswered++;
    return XLAT_OK;
}

int xlat_gmmu_translate(xlat_gmmu *g, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!g || !req || !done)
        return xlat__fail(g ? g->ctx : NULL, XLAT_ERR_INVAL, "xlat_gmmu_translate: NULL %s",
                          !g ? "gmmu" : !req ? "req" : "done");
    if (g->cfg.max_outstanding && g->unanswered >= g->cfg.max_outstanding) {
        g->stats.refusals++;
        return xlat__fail(g->ctx, XLAT_ERR_AGAIN, "gmmu %s: %u requests outstanding at cycle %llu",
                          g->name, g->cfg.max_outstanding, (unsigned long long)g->ctx->now);
    }
    if (g->mode->dynamic) /* §4: the route in force is the last epoch's prediction */
        xlat__gmmu_epoch_roll(&g->epoch, &g->cfg, g->ctx->now, &g->stats, 1);
    struct gmmu_req *r = xlat__pool_get(&g->reqs);
    if (!r)
        return xlat__fail(g->ctx, XLAT_ERR_NOMEM, "gmmu %s: out of memory for a request",
                          g->name);
    r->g = g;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->issued = g->ctx->now;
    r->route = xlat__gmmu_route_for(g, req);
    r->starting = 1;
    start(r);
    r->starting = 0;
    return accept(g, r);
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_gmmu_translate(unit, req, done, user);
}

xlat_target xlat_gmmu_target(xlat_gmmu *g)
{
    xlat_target target = {target_translate, g, NULL};
    return target;
}

/* ---- queries -------------------------------------------------------------- */

size_t xlat_gmmu_outstanding(const xlat_gmmu *g) { return g ? g->unanswered : 0; }

void xlat_gmmu_stats_get(const xlat_gmmu *g, xlat_gmmu_stats *out)
{
    if (!out)
        return;
    if (!g) {
        memset(out, 0, sizeof(*out));
        return;
    }
    *out = g->stats;
    if (g->mode->dynamic)
        (void)xlat__gmmu_epoch_now(g, out);
}

void xlat_gmmu_stats_reset(xlat_gmmu *g)
{
    if (g)
        memset(&g->stats, 0, sizeof(g->stats));
}
