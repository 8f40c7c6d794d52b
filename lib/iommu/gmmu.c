/*
 * The GMMU of "Dynamic GMMU Bypass for Address Translation in Multi-GPU
 * Systems": routes a GPU's L2 TLB misses to its own walkers, to the IOMMU,
 * or to both (§2.3, §4), and answers each accepted request exactly once.
 * The route of a request is fixed at acceptance; each side (the local walk,
 * the IOMMU) is sent, retried while refused, and answered at most once; the
 * record lives until both sides and its events are done with it.
 */
#include "gmmu_internal.h"
#include "unit_target.h"
#include "../walk/walker_target.h"

void xlat_gmmu_config_init_sized(xlat_gmmu_config *out, size_t size)
{
    xlat_gmmu_config full, *cfg = &full;
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
    cfg->max_outstanding = XLAT_GMMU_DEFAULT_OUTSTANDING;
    xlat__config_out(out, size, &full, sizeof(full));
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
    return xlat__clock_check(ctx, "gmmu", n, c->clock_num, c->clock_den);
}

/* ---- create and destroy -------------------------------------------------- */

static void drain_gmmu(void *arg);
static void drain_iommu(void *arg);

/* A retry woken by a unit below is posted as that unit's event (or the
 * host's), so destroy looks for it by function as well as by owner. */
static int woken_drain(void *gmmu, xlat_event_fn fn, void *user)
{
    return (fn == drain_gmmu || fn == drain_iommu) && user == gmmu;
}

/* The records the GMMU tracks at once: its admission bound. */
static size_t record_bound(const xlat_gmmu_config *c)
{
    return c->max_outstanding ? c->max_outstanding : XLAT_GMMU_DEFAULT_OUTSTANDING;
}

static void gmmu_free(xlat_gmmu *g)
{
    xlat_ctx *ctx = g->u.ctx;
    xlat__reg_remove(ctx, &g->reg);
    xlat__target_release(ctx, &g->iommu, record_bound(&g->cfg));
    xlat__release_id(ctx, g->held_walker);
    xlat__cancel_events(ctx, woken_drain, g);
    xlat__unit_fini(&g->u);
    xlat__free(ctx, g, sizeof(*g));
}

/*
 * The most events the GMMU can have pending at once (doc/gmmu.md):
 * - one delivery per record: an answer chosen inside xlat_gmmu_translate()
 *   leaves through an event, once per request;
 * - one retry per side: a side's queue has at most one retry scheduled;
 * - one wake of refused senders put off to the next cycle.
 * The skeleton adds one wake-up per slot of its wait queue: senders are
 * woken at most once a cycle, so the wake-ups of one wake have all fired
 * before the next.
 */
static int gmmu_init(xlat_gmmu *g, xlat_ctx *ctx, const xlat_gmmu_config *c)
{
    struct xlat__unit_spec spec = {
        .kind = "gmmu", .name = c->name ? c->name : "gmmu",
        .req_size = sizeof(struct gmmu_req), .reqs = record_bound(c), .fixed = 1,
        .events = record_bound(c) + 2 + 1,
        .clock_num = c->clock_num, .clock_den = c->clock_den,
    };
    return xlat__unit_init(&g->u, ctx, &spec);
}

int xlat_gmmu_create(xlat_ctx *ctx, const xlat_gmmu_config *cfg, xlat_gmmu **out)
{
    xlat_gmmu_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_gmmu_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_gmmu_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_GMMU_CONFIG_SIZE_V0, "xlat_gmmu_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_gmmu *g = xlat__alloc(ctx, sizeof(*g));
    if (!g)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_gmmu_create: out of memory");
    rc = gmmu_init(g, ctx, &c);
    if (rc != XLAT_OK) {
        xlat__free(ctx, g, sizeof(*g));
        return rc;
    }
    g->cfg = c;
    g->cfg.name = g->u.name;
    g->mode = xlat__gmmu_mode_ops(c.mode);
    g->woke_at = XLAT_NEVER;
    xlat__gmmu_epoch_init(&g->epoch, &g->cfg, xlat__unit_cycle(&g->u));
    xlat__reg_add(ctx, &g->reg, &xlat__gmmu_reg_ops, g, g->u.name, g->u.id);
    g->held_walker = xlat__hold_handle(ctx, c.walker);
    *out = g;
    return XLAT_OK;
}

int xlat_gmmu_destroy(xlat_gmmu *g)
{
    if (!g)
        return XLAT_OK;
    int rc = xlat__reg_unheld(g->u.ctx, &g->reg, "gmmu");
    if (rc == XLAT_OK)
        gmmu_free(g);
    return rc;
}

int xlat_gmmu_set_iommu(xlat_gmmu *g, const xlat_target *iommu)
{
    if (!g)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_gmmu_set_iommu: NULL gmmu");
    return xlat__target_hold(g->u.ctx, &g->iommu, iommu, record_bound(&g->cfg),
                             "xlat_gmmu_set_iommu");
}

/* ---- room for refused senders ---------------------------------------------- */

static void rewake_event(void *arg);

/* A record freed: the senders refused for want of one retry. The skeleton
 * posts one wake-up per waiter; waking at most once a cycle keeps them
 * within the budget, and a record freed after this cycle's wake wakes the
 * ones refused since at the next cycle. */
static void wake_senders(xlat_gmmu *g)
{
    if (xlat__waitq_empty(&g->u.waitq))
        return;
    if (g->woke_at != g->u.ctx->now) {
        g->woke_at = g->u.ctx->now;
        xlat__unit_wake(&g->u);
    } else if (!g->rewake) {
        g->rewake = 1;
        xlat__unit_post(&g->u, 1, rewake_event, g);
    }
}

static void rewake_event(void *arg)
{
    xlat_gmmu *g = arg;
    g->rewake = 0;
    wake_senders(g);
}

/* ---- answering ----------------------------------------------------------- */

/* Statistics and the predictor's counters for an answer leaving now from
 * `side`; `local` is its locality (xlat__gmmu_locality). */
static void count_answer(xlat_gmmu *g, int side, int local, const xlat_resp *out)
{
    xlat_gmmu_stats *st = &g->stats;
    st->completed++;
    if (side == SIDE_GMMU)
        st->local++;
    else
        st->remote++;
    if (out->status != XLAT_OK && out->status != XLAT_ERR_PERM)
        st->failed++;
    uint64_t cycles = out->completed - out->issued;
    st->latency_cycles += cycles;
    xlat__unit_answered(&g->u, cycles);
    if (local < 0)
        return;
    if (local)
        st->touched_local++;
    else
        st->touched_remote++;
    if (g->mode->dynamic) {
        /* §4 counts per epoch: the answer belongs to the epoch it leaves in.
         * The roll may call the epoch callback: the answer is counted after. */
        xlat__gmmu_epoch_roll(&g->epoch, &g->cfg, xlat__unit_cycle(&g->u), st, 1);
        xlat__gmmu_epoch_count(&g->epoch, &g->cfg, local);
    }
}

/* Nothing can reach `r` any more once it is answered: no side out, no event. */
static int finished(const struct gmmu_req *r)
{
    return !r->events && r->side[SIDE_GMMU].state != SIDE_PENDING &&
           r->side[SIDE_IOMMU].state != SIDE_PENDING;
}

static void release(struct gmmu_req *r)
{
    xlat_gmmu *g = r->g;
    xlat__unit_req_put(&g->u, r);
    wake_senders(g);
}

/* Keeps `resp` in the record, past the call that brought it. */
static void hold_resp(struct gmmu_req *r, const xlat_resp *resp)
{
    if (resp != &r->held)
        r->held = *resp;
}

/* The chosen answer outlives the callback that brought it. */
static void keep_answer(struct gmmu_req *r)
{
    hold_resp(r, r->answer);
    r->answer = &r->held;
}

/* Hands the chosen answer to the sender. Everything the GMMU keeps is
 * settled first (the record freed when nothing else holds it), so that a
 * sender may send again, or query the GMMU, from inside `done`. */
static void deliver(struct gmmu_req *r)
{
    xlat_gmmu *g = r->g;
    int side = r->final_side;
    xlat_resp out = *r->answer;
    out.id = r->req.id;
    out.vaddr = r->req.vaddr;
    out.pasid = r->req.pasid;
    out.issued = r->issued;
    out.completed = g->u.ctx->now;
    int local = xlat__gmmu_locality(g, r, side, &out);
    xlat_done_fn done = r->done;
    void *user = r->user;
    r->deferred = 0;
    g->unanswered--;
    if (finished(r))
        release(r);
    count_answer(g, side, local, &out);
    done(user, &out);
}

/* Delivers a chosen answer and frees `r` once nothing can reach it; does
 * nothing while a call still uses the record or inside translate (whose
 * answer leaves through an event). Every entry point ends here, and
 * nothing touches `r` after it. */
static void settle(struct gmmu_req *r)
{
    if (r->hold || r->starting) {
        if (r->deferred)
            keep_answer(r); /* delivered after the call that brought it */
        return;
    }
    if (r->deferred)
        deliver(r);
    else if (r->answered && finished(r))
        release(r);
}

/* `resp`, the answer of `side`, is the request's answer; settle() delivers
 * it (before `resp` goes out of scope, or after keep_answer()). */
static void choose(struct gmmu_req *r, int side, const xlat_resp *resp)
{
    xlat_gmmu_stats *st = &r->g->stats;
    r->answered = 1;
    r->deferred = 1;
    r->final_side = (uint8_t)side;
    r->answer = resp;
    /* §4: in parallel only one answer is used; the other is "discarded". */
    if (r->route == XLAT_GMMU_ROUTE_PARALLEL) {
        if (side == SIDE_GMMU)
            st->discarded_iommu++;
        else
            st->discarded_gmmu++;
    }
}

static void side_send(struct gmmu_req *r, int side);

static void side_answer(struct gmmu_req *r, int side, const xlat_resp *resp)
{
    struct gmmu_side *sd = &r->side[side];
    sd->state = SIDE_DONE;
    sd->valid = resp->status == XLAT_OK || resp->status == XLAT_ERR_PERM;
    if (r->answered)
        return; /* the late one of a parallel pair, counted when the first won */
    if (sd->valid) {
        choose(r, side, resp);
        return;
    }
    if (side == SIDE_GMMU && r->route == XLAT_GMMU_ROUTE_LOCAL) {
        /* §2.3, Fig. 2 ③: the local walk found nothing, so the page is not
         * in this GPU's memory: ask the IOMMU. */
        side_send(r, SIDE_IOMMU);
        return;
    }
    /* §4: a GMMU miss is dropped in favour of the IOMMU's answer; an
     * invalid IOMMU answer waits for a walk that may still find the page
     * (kept: it is the answer if the walk finds nothing either). */
    if (r->side[!side].state == SIDE_PENDING) {
        hold_resp(r, resp);
        return;
    }
    if (side == SIDE_GMMU && r->side[SIDE_IOMMU].state == SIDE_DONE)
        choose(r, SIDE_IOMMU, &r->held); /* the IOMMU's invalid answer, kept above */
    else
        choose(r, side, resp);
}

/* An answer made here: a missing IOMMU, or a downstream error. */
static void own_answer(struct gmmu_req *r, int side, int status)
{
    xlat_resp a;
    xlat__resp_init(&a, &r->req, status, r->g->u.id);
    a.issued = a.completed = r->g->u.ctx->now;
    side_answer(r, side, &a);
    if (r->deferred)
        keep_answer(r); /* `a` ends here; settle() runs later */
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
    uint64_t *taken = side == SIDE_GMMU ? &st->gmmu_walks : &st->iommu_requests;
    (*taken)++; /* counted before the call: the unit below may answer inside it */
    r->hold++;  /* ... and the record must outlive that answer */
    int rc = send_down(r, side);
    r->hold--;
    if (rc == XLAT_OK)
        return 1;
    (*taken)--;
    if (rc != XLAT_ERR_AGAIN) {
        own_answer(r, side, rc);
        return 1;
    }
    if (side == SIDE_GMMU)
        st->gmmu_retries++;
    else
        st->iommu_retries++;
    return 0;
}

/* The head of `side`'s queue is retried when the unit below has room,
 * through its wait hook, or next cycle when it has no hook or its hook
 * refuses. Cannot fail: the poll is one of the GMMU's reserved events. */
static void retry_later(xlat_gmmu *g, int side)
{
    xlat_target below = side == SIDE_GMMU ? xlat__walker_target(g->cfg.walker) : g->iommu;
    xlat_event_fn fn = side == SIDE_GMMU ? drain_gmmu : drain_iommu;
    if (!below.wait || below.wait(below.unit, fn, g) != XLAT_OK)
        xlat__unit_post(&g->u, 1, fn, g);
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
    if (!w->scheduled) {
        w->scheduled = 1; /* set before the wait hook is called */
        retry_later(g, side);
    }
}

static struct gmmu_req *wait_pop(struct gmmu_wait *w, int side)
{
    struct gmmu_req *r = w->head;
    w->head = r->wait_next[side];
    if (!w->head)
        w->tail = NULL;
    return r;
}

/* Puts a refused head back where it was. */
static void wait_unpop(struct gmmu_wait *w, struct gmmu_req *r, int side)
{
    r->wait_next[side] = w->head;
    w->head = r;
    if (!w->tail)
        w->tail = r;
}

static void side_send(struct gmmu_req *r, int side)
{
    r->side[side].state = SIDE_PENDING;
    /* Refused requests go first, in arrival order; a refusal is retried,
     * never lost. */
    if (r->g->wait[side].head || !side_try(r, side))
        wait_push(r, side);
}

/* Retries the head of `side`'s queue until the unit below refuses again.
 * Each request leaves the queue before it is sent, so that an answer or a
 * new request arriving inside the call finds the queue as it is. */
static void drain(xlat_gmmu *g, int side)
{
    struct gmmu_wait *w = &g->wait[side];
    w->scheduled = 0;
    while (w->head) {
        struct gmmu_req *r = wait_pop(w, side);
        if (r->answered) {
            r->side[side].state = SIDE_IDLE; /* the other side won meanwhile: no duplicate (§4) */
        } else if (!side_try(r, side)) {
            wait_unpop(w, r, side);
            break;
        }
        settle(r);
    }
    if (w->head && !w->scheduled) {
        w->scheduled = 1;
        retry_later(g, side);
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

int xlat_gmmu_translate(xlat_gmmu *g, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!g || !req || !done)
        return xlat__fail(g ? g->u.ctx : NULL, XLAT_ERR_INVAL, "xlat_gmmu_translate: NULL %s",
                          !g ? "gmmu" : !req ? "req" : "done");
    int rc = xlat__req_check(g->u.ctx, req, "xlat_gmmu_translate");
    if (rc != XLAT_OK)
        return rc;
    /* Admission: a record for every request in flight, from a pool sized
     * at create, so that nothing later can fail for want of one. */
    struct gmmu_req *r = xlat__unit_req_take(&g->u);
    if (!r) {
        g->stats.refusals++;
        return xlat__unit_busy(&g->u, "max_outstanding requests in flight");
    }
    memset(r, 0, offsetof(struct gmmu_req, held));
    if (g->mode->dynamic) /* §4: the route in force is the last epoch's prediction */
        xlat__gmmu_epoch_roll(&g->epoch, &g->cfg, xlat__unit_cycle(&g->u), &g->stats, 1);
    r->g = g;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->issued = g->u.ctx->now;
    r->route = xlat__gmmu_route_for(g, req);
    g->stats.requests++;
    g->stats.routed[r->route]++;
    g->unanswered++;
    r->starting = 1;
    start(r);
    r->starting = 0;
    if (r->deferred) { /* answered inside the calls below: never from inside this call */
        r->events++;
        xlat__unit_post(&g->u, 0, deliver_event, r);
    }
    return XLAT_OK;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_gmmu_translate(unit, req, done, user);
}

static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    return xlat__unit_wait(&((xlat_gmmu *)unit)->u, fn, user);
}

int xlat_gmmu_get_target(xlat_gmmu *g, xlat_target *out)
{
    if (!g)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_gmmu_get_target: NULL gmmu");
    xlat_target mine = {sizeof(mine), target_translate, g, target_wait, g->u.id};
    return xlat__target_get(g->u.ctx, out, &mine, "xlat_gmmu_get_target");
}

/* ---- queries -------------------------------------------------------------- */

size_t xlat_gmmu_outstanding(const xlat_gmmu *g) { return g ? g->unanswered : 0; }

void xlat_gmmu_stats_get(const xlat_gmmu *g, xlat_gmmu_stats *out, size_t out_size)
{
    if (!out || !g) {
        xlat__copy_out(out, out_size, NULL, sizeof(xlat_gmmu_stats));
        return;
    }
    xlat_gmmu_stats st = g->stats;
    if (g->mode->dynamic)
        (void)xlat__gmmu_epoch_now(g, &st);
    xlat__copy_out(out, out_size, &st, sizeof(st));
}

void xlat_gmmu_stats_reset(xlat_gmmu *g)
{
    if (!g)
        return;
    memset(&g->stats, 0, sizeof(g->stats));
    xlat__unit_latency_reset(&g->u);
}
