/* The walker pool: configuration, acceptance of requests, the buffer of
 * pending requests, tenants and inspection. */
#include "walker_internal.h"
#include "walker_target.h"
#include "unit_target.h"

void xlat_walker_config_init_sized(xlat_walker_config *out, size_t size)
{
    xlat_walker_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "walker";
    cfg->walkers = 8;
    cfg->queue_entries = 256;
    cfg->mem_latency = 100;
    cfg->line_bytes = 64;
    cfg->sched = XLAT_SCHED_FCFS;
    cfg->tenants = 1;
    cfg->assign = XLAT_ASSIGN_CONTIGUOUS;
    cfg->idle_steal = true;
    cfg->coalesce_fill_pwc = true;
    cfg->pec_latency = 1;
    xlat__config_out(out, size, &full, sizeof(full));
}

/* The pool's own copy of the DWS++ template (Table IV without one); an
 * older host's shorter template keeps the defaults in the fields it lacks. */
static int copy_dwspp(xlat_ctx *ctx, xlat_walker_config *c, xlat_dwspp_config *d)
{
    xlat_dwspp_preset(d, XLAT_DWSPP_DEFAULT);
    int rc = c->dwspp ? xlat__config_copy(ctx, d, sizeof(*d), c->dwspp, XLAT_DWSPP_CONFIG_SIZE_V0,
                                          "xlat_walker_config.dwspp")
                      : XLAT_OK;
    d->struct_size = sizeof(*d);
    c->dwspp = d;
    return rc;
}

static const struct walk_sched_ops *sched_ops(xlat_walk_sched s)
{
    switch (s) {
    case XLAT_SCHED_FCFS: return &xlat__sched_fcfs;
    case XLAT_SCHED_PARTITION: return &xlat__sched_partition;
    case XLAT_SCHED_DWS: return &xlat__sched_dws;
    case XLAT_SCHED_DWSPP: return &xlat__sched_dwspp;
    default: return NULL;
    }
}

static int check_counts(xlat_ctx *ctx, const xlat_walker_config *c)
{
    const char *n = c->name ? c->name : "walker";
    bool per_walker = c->sched != XLAT_SCHED_FCFS;
    if (c->walkers == 0 || c->walkers > (1u << 20))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: walkers must be 1..2^20, not %u", n,
                          c->walkers);
    if (c->queue_entries == 0 || (per_walker && c->queue_entries < c->walkers))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: queue_entries %u leaves a walker without a queue slot", n,
                          c->queue_entries);
    if (c->tenants == 0 || c->tenants > WALK_MAX_TENANTS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: tenants must be 1..%d, not %u", n,
                          WALK_MAX_TENANTS, c->tenants);
    if (per_walker && c->walkers % c->tenants)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: %u walkers cannot be split equally among %u tenants", n,
                          c->walkers, c->tenants);
    return XLAT_OK;
}

/* A PWC is tagged by the prefixes of its own geometry: under another one
 * it would answer with nodes of other addresses. */
static int check_pwc(xlat_ctx *ctx, const xlat_walker_config *c, const char *n)
{
    uint32_t levels, bits, shift;
    if (!c->pwc || xlat_pwc_geometry(c->pwc, &levels, &bits, &shift) != XLAT_OK)
        return XLAT_OK;
    uint32_t pt_levels = xlat_pagetable_levels(c->pt);
    uint32_t pt_shift = xlat_pagetable_level_shift(c->pt, 1);
    uint32_t pt_bits = xlat_pagetable_level_shift(c->pt, 2) - pt_shift;
    if (levels == pt_levels && bits == pt_bits && shift == pt_shift)
        return XLAT_OK;
    return xlat__fail(ctx, XLAT_ERR_INVAL,
                      "walker %s: the page walk cache's geometry (%u levels, %u bits per level, "
                      "page shift %u) differs from the page table's (%u, %u, %u)",
                      n, levels, bits, shift, pt_levels, pt_bits, pt_shift);
}

#define PEC_MAX_CHIPLETS 16
#define PEC_MAX_LATENCY 1000000u

/* Barre Chord's options: a PEC buffer needs the chiplets' base frames, and
 * multicast and the rotation need a PEC buffer. */
static int check_pec(xlat_ctx *ctx, const xlat_walker_config *c, const char *n)
{
    if (c->pec_latency > PEC_MAX_LATENCY)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: pec_latency %u is above %u", n,
                          c->pec_latency, PEC_MAX_LATENCY);
    if (!c->pec && (c->pec_multicast || c->coal_aware))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: %s needs a PEC buffer (cfg.pec)", n,
                          c->coal_aware ? "coal_aware" : "pec_multicast");
    if (c->pec && (!c->pec_base_pfn || c->pec_chiplets == 0 ||
                   c->pec_chiplets > PEC_MAX_CHIPLETS))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: the PEC logic needs pec_base_pfn and pec_chiplets in 1..%d "
                          "(pec_chiplets %u%s)", n, PEC_MAX_CHIPLETS, c->pec_chiplets,
                          c->pec_base_pfn ? "" : ", pec_base_pfn NULL");
    if (c->pec && c->pec_expanded != xlat_pec_buffer_expanded(c->pec))
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: pec_expanded is %s, its PEC buffer's layout %s: a frame "
                          "computed in the wrong layout would be wrong", n,
                          c->pec_expanded ? "true" : "false",
                          xlat_pec_buffer_expanded(c->pec) ? "expanded" : "Barre's");
    return XLAT_OK;
}

static int check_config(xlat_ctx *ctx, const xlat_walker_config *c)
{
    const char *n = c->name ? c->name : "walker";
    if (!c->pt)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: no page table (cfg.pt)", n);
    if (!sched_ops(c->sched))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: unknown scheduler (sched) %d", n,
                          (int)c->sched);
    if ((unsigned)c->assign > XLAT_ASSIGN_INTERLEAVED)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: unknown walker assignment (assign) %d",
                          n, (int)c->assign);
    if (!xlat__is_pow2(c->line_bytes) || c->line_bytes < 8 || c->line_bytes > 4096)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: line_bytes %u is not a power of two in 8..4096", n,
                          c->line_bytes);
    int rc = check_pwc(ctx, c, n);
    if (rc == XLAT_OK)
        rc = check_pec(ctx, c, n);
    if (rc == XLAT_OK)
        rc = xlat__clock_check(ctx, "walker", n, c->clock_num, c->clock_den);
    return rc == XLAT_OK ? check_counts(ctx, c) : rc;
}

/* `ctx` is passed: the skeleton may not be set up yet. */
static void pool_free(struct xlat_walker *p, xlat_ctx *ctx)
{
    xlat__reg_remove(ctx, &p->reg);
    xlat__release_id(ctx, p->held_pt);
    xlat__release_id(ctx, p->held_pwc);
    xlat__release_id(ctx, p->held_pec);
    xlat__pec_free(p, ctx);
    xlat__nbh_free(p, ctx);
    if (p->sched_ready && p->ops->fini)
        p->ops->fini(p->sched);
    xlat__free(ctx, p->sched, p->sched_size);
    xlat__pool_release(&p->waits);
    xlat__free(ctx, p->walker, p->cfg.walkers * sizeof(*p->walker));
    xlat__free(ctx, p->due, p->cfg.walkers * sizeof(*p->due));
    xlat__free(ctx, p->reads, p->cfg.walkers * sizeof(*p->reads));
    xlat__free(ctx, p->idle, idle_words(p) * sizeof(*p->idle));
    xlat__free(ctx, p->queue, p->nqueues * sizeof(*p->queue));
    xlat__unit_fini(&p->unit); /* cancels the pool's events by its id */
    xlat__free(ctx, p, sizeof(*p));
}

/*
 * The most events the pool can have pending at once:
 * - one per walker. A walker's events are its read's completion (a
 *   mem_done deferred out of a call-out; a fixed-latency read waits in the
 *   pool's ring instead, whose one event is counted in the slot of a walker
 *   reading there, since that walker has no event of its own), a read delayed
 *   by the PWC or retried after the memory model refused it, a fault raised
 *   from tick, and a deferred fault_resume. Each is posted only from a state
 *   the walker leaves when posting it (reading, about to read, faulted), and
 *   the next can be posted only once it has fired, so at most one is pending.
 * - one drain event (drain_pending guards it): same-cycle completions in
 *   walker-id order, failures decided inside translate, a parked neighbour
 *   resumed during a kick. Neighbour faults are raised from inside it.
 * - one per wait record: a sender's wake-up is pending only while the
 *   sender holds one of the WALK_WAITERS records (target_wait).
 * - with a PEC buffer, one per walker's PEC logic: its lane's armed event
 *   (pec.c; `armed` guards it).
 */
static size_t walker_events(const xlat_walker_config *c)
{
    size_t lanes = c->pec ? c->walkers : 0;
    return (size_t)c->walkers + 1 + WALK_WAITERS + lanes;
}

/* The skeleton: requests in flight are bounded by the buffer and the
 * walkers, so their records are a fixed pool and translate refuses with
 * XLAT_ERR_AGAIN when it is empty. */
static int unit_init(struct xlat_walker *p, xlat_ctx *ctx, const xlat_walker_config *c)
{
    struct xlat__unit_spec spec = {
        .kind = "walker", .name = c->name ? c->name : "walker",
        .req_size = sizeof(struct walk_req),
        .reqs = (size_t)c->queue_entries + c->walkers, .fixed = 1,
        .events = walker_events(c),
        .clock_num = c->clock_num, .clock_den = c->clock_den,
    };
    return xlat__unit_init(&p->unit, ctx, &spec);
}

static void geometry_init(struct xlat_walker *p)
{
    p->levels = xlat_pagetable_levels(p->pt);
    p->bits = xlat_pagetable_level_shift(p->pt, 2) - xlat_pagetable_level_shift(p->pt, 1);
    p->line_shift = (uint32_t)__builtin_ctz(p->cfg.line_bytes);
    /* A line holds 2^(line_shift - 3) entries, never more than a node's. */
    uint32_t per_line = p->line_shift - 3 < p->bits ? p->line_shift - 3 : p->bits;
    for (uint32_t level = 1; level <= p->levels; level++)
        p->nbh_shift[level] = xlat_pagetable_level_shift(p->pt, level) + per_line;
}

static int pool_init(struct xlat_walker *p, xlat_ctx *ctx)
{
    geometry_init(p);
    p->nqueues = p->ops->queues(&p->cfg);
    p->walker = xlat__calloc(ctx, p->cfg.walkers, sizeof(*p->walker));
    p->queue = xlat__calloc(ctx, p->nqueues, sizeof(*p->queue));
    p->due = xlat__calloc(ctx, p->cfg.walkers, sizeof(*p->due));
    p->reads = xlat__calloc(ctx, p->cfg.walkers, sizeof(*p->reads));
    p->idle = xlat__calloc(ctx, idle_words(p), sizeof(*p->idle));
    if (!p->walker || !p->queue || !p->due || !p->reads || !p->idle)
        return XLAT_ERR_NOMEM;
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        p->walker[w].pool = p;
        p->walker[w].index = w;
        p->idle[w / 64] |= 1ull << (w % 64);
    }
    for (uint32_t q = 0; q < p->nqueues; q++)
        p->queue[q].cap = p->cfg.queue_entries / p->nqueues;
    if (p->cfg.coalesce && xlat__nbh_init(p, ctx) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    return xlat__pool_init_fixed(&p->waits, ctx, sizeof(struct walk_wait), WALK_WAITERS);
}

/* The scheduler's state: state_size bytes, zeroed, its env filled. */
static int sched_alloc(struct xlat_walker *p, xlat_ctx *ctx)
{
    p->sched_size = p->ops->state_size(&p->cfg);
    p->sched = xlat__calloc(ctx, 1, p->sched_size);
    if (!p->sched)
        return XLAT_ERR_NOMEM;
    struct walk_sched_env *e = p->sched;
    e->pool = p;
    e->svc = &xlat__walk_services;
    e->walkers = p->cfg.walkers;
    e->tenants = p->cfg.tenants;
    e->queue_cap = p->cfg.queue_entries / p->nqueues;
    return XLAT_OK;
}

void *xlat__walk_sched_state(const struct xlat_walker *p, const struct walk_sched_ops *ops)
{
    return p && p->ops == ops ? p->sched : NULL;
}

int xlat_walker_create(xlat_ctx *ctx, const xlat_walker_config *cfg, xlat_walker **out)
{
    xlat_walker_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_walker_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_walker_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_WALKER_CONFIG_SIZE_V0, "xlat_walker_config");
    xlat_dwspp_config dwspp;
    if (rc == XLAT_OK)
        rc = copy_dwspp(ctx, &c, &dwspp);
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    struct xlat_walker *p = xlat__alloc(ctx, sizeof(*p));
    if (!p)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_walker_create: out of memory");
    p->cfg = c;
    p->dwspp = dwspp;
    p->cfg.dwspp = &p->dwspp;
    p->pt = c.pt;
    p->ops = sched_ops(c.sched);
    if (pool_init(p, ctx) != XLAT_OK || sched_alloc(p, ctx) != XLAT_OK ||
        xlat__pec_init(p, ctx) != XLAT_OK) {
        pool_free(p, ctx);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_walker_create: out of memory");
    }
    p->cfg.name = c.name ? c.name : "walker"; /* the skeleton's copy replaces it */
    if ((rc = p->ops->init(p->sched, ctx, &p->cfg)) != XLAT_OK) {
        pool_free(p, ctx); /* init failed: nothing for fini to release */
        return rc;
    }
    p->sched_ready = true;
    /* Last: the event reservation may grow the context's event pool, which
     * a later failure would not give back. */
    if ((rc = unit_init(p, ctx, &c)) != XLAT_OK) {
        pool_free(p, ctx);
        return rc;
    }
    p->cfg.name = p->unit.name;
    xlat__reg_add(ctx, &p->reg, &xlat__walker_reg_ops, p, p->unit.name, p->unit.id);
    p->held_pt = xlat__hold_handle(ctx, c.pt);
    p->held_pwc = xlat__hold_handle(ctx, c.pwc);
    p->held_pec = xlat__hold_handle(ctx, c.pec);
    *out = p;
    return XLAT_OK;
}

int xlat_walker_destroy(xlat_walker *p)
{
    if (!p)
        return XLAT_OK;
    int rc = xlat__reg_unheld(p->unit.ctx, &p->reg, "walker");
    if (rc == XLAT_OK)
        pool_free(p, p->unit.ctx);
    return rc;
}

void xlat__pending_add(struct xlat_walker *p, struct walk_req *r)
{
    r->pnext = NULL;
    r->pprev = p->pending_tail;
    if (p->pending_tail)
        p->pending_tail->pnext = r;
    else
        p->pending_head = r;
    p->pending_tail = r;
    p->buffered++;
    if (p->nbh.ready)
        xlat__nbh_add(p, r);
}

void xlat__pending_remove(struct xlat_walker *p, struct walk_req *r)
{
    if (r->pprev)
        r->pprev->pnext = r->pnext;
    else
        p->pending_head = r->pnext;
    if (r->pnext)
        r->pnext->pprev = r->pprev;
    else
        p->pending_tail = r->pprev;
    r->pnext = r->pprev = NULL;
    p->buffered--;
    if (r->nbh)
        xlat__nbh_remove(p, r);
    xlat__unit_wake(&p->unit); /* a buffer slot is free again */
}

uint32_t xlat__walk_tenant_of(const struct xlat_walker *p, uint32_t pasid)
{
    for (uint32_t i = 0; i < p->tenant_map_len; i++)
        if (p->tenant_map_pasid[i] == pasid)
            return p->tenant_map_tenant[i];
    return pasid % p->cfg.tenants;
}

int xlat_walker_set_tenant(xlat_walker *p, uint32_t pasid, uint32_t tenant)
{
    if (!p || tenant >= p->cfg.tenants)
        return xlat__fail(p ? p->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_walker_set_tenant: %s", p ? "tenant out of range" : "NULL pool");
    for (uint32_t i = 0; i < p->tenant_map_len; i++) {
        if (p->tenant_map_pasid[i] == pasid) {
            p->tenant_map_tenant[i] = tenant;
            return XLAT_OK;
        }
    }
    if (p->tenant_map_len == WALK_MAX_TENANT_MAP)
        return xlat__fail(p->unit.ctx, XLAT_ERR_FULL, "walker %s: more than %d tenant assignments",
                          p->unit.name, WALK_MAX_TENANT_MAP);
    p->tenant_map_pasid[p->tenant_map_len] = pasid;
    p->tenant_map_tenant[p->tenant_map_len++] = tenant;
    return XLAT_OK;
}

static struct walk_req *new_request(struct xlat_walker *p, const xlat_req *req,
                                    xlat_done_fn done, void *user)
{
    struct walk_req *r = xlat__unit_req_take(&p->unit);
    if (!r)
        return NULL;
    /* The rest zeroed, as stores inline rather than a call to memset. */
    *r = (struct walk_req){.req = *req,
                           .done = done,
                           .user = user,
                           .tenant = xlat__walk_tenant_of(p, req->pasid),
                           .queue = -1,
                           .arrival = p->unit.ctx->now};
    return r;
}

/* Accepts `r` (or refuses it with XLAT_ERR_AGAIN) and starts or buffers it. */
static int accept(struct xlat_walker *p, struct walk_req *r)
{
    int32_t thief = -1;
    int w = p->ops->arrive(p->sched, r, xlat__walk_eligible(p, r), &thief);
    if (w == XLAT_ERR_AGAIN) {
        xlat__unit_req_put(&p->unit, r);
        p->st.refusals++;
        return xlat__unit_busy(&p->unit, "no buffer room");
    }
    p->st.requests++;
    p->tenant[r->tenant].st.requests++;
    xlat__walk_trace(p, XLAT_WALK_ARRIVE, r, w, 0, 0, XLAT_OK);
    if (w >= 0) {
        xlat__walk_start(p, (uint32_t)w, r, thief);
    } else {
        xlat__pending_add(p, r);
        p->tenant[r->tenant].st.interleave += r->interleave;
        if (r->interleave > p->tenant[r->tenant].st.interleave_max)
            p->tenant[r->tenant].st.interleave_max = r->interleave;
        if (p->busy < p->cfg.walkers)
            xlat__walk_kick(p);
    }
    return XLAT_OK;
}

int xlat_walker_translate(xlat_walker *p, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!p || !req || !done)
        return xlat__fail(p ? p->unit.ctx : NULL, XLAT_ERR_INVAL, "xlat_walker_translate: NULL %s",
                          !p ? "pool" : !req ? "req" : "done");
    int rc = xlat__req_check(p->unit.ctx, req, "xlat_walker_translate");
    if (rc != XLAT_OK)
        return rc;
    struct walk_req *r = new_request(p, req, done, user);
    if (!r) {
        /* Every record is held: the buffer is full, or answers under way
         * still hold theirs. Woken when one is released. */
        p->starved = true;
        p->st.refusals++;
        return xlat__unit_busy(&p->unit, "no buffer room (every request record is in use)");
    }
    /* Nothing answers while this is above us on the stack: the host's
     * mem_done / fault_resume calls from inside our call-outs are deferred
     * to tick (the completion rule of doc/walks.md). */
    p->translating++;
    rc = accept(p, r);
    p->translating--;
    return rc;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_walker_translate(unit, req, done, user);
}

/* A sender's wake-up: the wait record is released before the sender runs. */
static void woken(void *arg)
{
    struct walk_wait *wt = arg;
    xlat_event_fn fn = wt->fn;
    void *user = wt->user;
    xlat__pool_put(&wt->pool->waits, wt);
    fn(user);
}

/* Each waiting sender holds a wait record until its wake-up has run, so the
 * wake-ups pending at once are bounded by WALK_WAITERS (the event budget).
 * Beyond that the sender is told to poll (XLAT_ERR_AGAIN). */
static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    struct xlat_walker *p = unit;
    struct walk_wait *wt = xlat__pool_get(&p->waits);
    if (!wt)
        return XLAT_ERR_AGAIN;
    wt->pool = p;
    wt->fn = fn;
    wt->user = user;
    int rc = xlat__unit_wait(&p->unit, woken, wt);
    if (rc != XLAT_OK)
        xlat__pool_put(&p->waits, wt);
    return rc;
}

xlat_target xlat__walker_target(xlat_walker *p)
{
    xlat_target t = {sizeof(t), target_translate, p, target_wait, p->unit.id};
    return t;
}

int xlat_walker_get_target(xlat_walker *p, xlat_target *out)
{
    if (!p)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_walker_get_target: NULL walker");
    xlat_target mine = xlat__walker_target(p);
    return xlat__target_get(p->unit.ctx, out, &mine, "xlat_walker_get_target");
}
