/* The walker pool: configuration, acceptance of requests, the buffer of
 * pending requests, tenants and inspection. */
#include "walker_internal.h"

void xlat_walker_config_init(xlat_walker_config *cfg)
{
    if (!cfg)
        return;
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
    xlat_dwspp_preset(&cfg->dwspp, XLAT_DWSPP_DEFAULT);
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

static int check_config(xlat_ctx *ctx, const xlat_walker_config *c)
{
    const char *n = c->name ? c->name : "walker";
    if (!c->pt)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: no page table (cfg.pt)", n);
    if (!sched_ops(c->sched))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "walker %s: unknown scheduler %d", n,
                          (int)c->sched);
    if (!xlat__is_pow2(c->line_bytes) || c->line_bytes < 8 || c->line_bytes > 4096)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "walker %s: line_bytes %u is not a power of two in 8..4096", n,
                          c->line_bytes);
    int rc = check_pwc(ctx, c, n);
    return rc == XLAT_OK ? check_counts(ctx, c) : rc;
}

static void pool_free(struct xlat_walker *p)
{
    if (p->sched_ready && p->ops->fini)
        p->ops->fini(p->sched);
    xlat__free(p->ctx, p->sched, p->sched_size);
    xlat__pool_release(&p->reqs);
    xlat__waitq_release(&p->waitq);
    xlat__free(p->ctx, p->unit, p->cfg.walkers * sizeof(*p->unit));
    xlat__free(p->ctx, p->due, p->cfg.walkers * sizeof(*p->due));
    xlat__free(p->ctx, p->queue, p->nqueues * sizeof(*p->queue));
    xlat__strfree(p->ctx, p->name);
    xlat__free(p->ctx, p, sizeof(*p));
}

static int pool_init(struct xlat_walker *p)
{
    p->levels = xlat_pagetable_levels(p->pt);
    p->bits = xlat_pagetable_level_shift(p->pt, 2) - xlat_pagetable_level_shift(p->pt, 1);
    p->line_shift = (uint32_t)__builtin_ctz(p->cfg.line_bytes);
    /* A line holds 2^(line_shift - 3) entries, never more than a node's. */
    uint32_t per_line = p->line_shift - 3 < p->bits ? p->line_shift - 3 : p->bits;
    for (uint32_t level = 1; level <= p->levels; level++)
        p->nbh_shift[level] = xlat_pagetable_level_shift(p->pt, level) + per_line;
    p->nqueues = p->ops->queues(&p->cfg);
    p->unit = xlat__calloc(p->ctx, p->cfg.walkers, sizeof(*p->unit));
    p->queue = xlat__calloc(p->ctx, p->nqueues, sizeof(*p->queue));
    p->due = xlat__calloc(p->ctx, p->cfg.walkers, sizeof(*p->due));
    p->name = xlat__strdup(p->ctx, p->cfg.name ? p->cfg.name : "walker");
    if (!p->unit || !p->queue || !p->due || !p->name)
        return XLAT_ERR_NOMEM;
    p->cfg.name = p->name;
    for (uint32_t w = 0; w < p->cfg.walkers; w++)
        p->unit[w].pool = p;
    for (uint32_t q = 0; q < p->nqueues; q++)
        p->queue[q].cap = p->cfg.queue_entries / p->nqueues;
    size_t records = (size_t)p->cfg.queue_entries + p->cfg.walkers + 16;
    if (xlat__waitq_init(&p->waitq, p->ctx) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    return xlat__pool_init(&p->reqs, p->ctx, sizeof(struct walk_req), records);
}

/* The scheduler's state: state_size bytes, zeroed, its env filled. */
static int sched_alloc(struct xlat_walker *p)
{
    p->sched_size = p->ops->state_size(&p->cfg);
    p->sched = xlat__calloc(p->ctx, 1, p->sched_size);
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
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, sizeof(c), "xlat_walker_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    struct xlat_walker *p = xlat__alloc(ctx, sizeof(*p));
    if (!p)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_walker_create: out of memory");
    p->ctx = ctx;
    p->cfg = c;
    p->pt = c.pt;
    p->ops = sched_ops(c.sched);
    if (pool_init(p) != XLAT_OK || sched_alloc(p) != XLAT_OK) {
        pool_free(p);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_walker_create: out of memory");
    }
    if ((rc = p->ops->init(p->sched, ctx, &p->cfg)) != XLAT_OK) {
        pool_free(p); /* init failed: nothing for fini to release */
        return rc;
    }
    p->sched_ready = true;
    *out = p;
    return XLAT_OK;
}

static int owned_event(void *pool, xlat_event_fn fn, void *user)
{
    return xlat__walk_owns_event(pool, fn, user);
}

void xlat_walker_destroy(xlat_walker *p)
{
    if (!p)
        return;
    xlat__cancel_events(p->ctx, owned_event, p);
    pool_free(p);
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
    xlat__waitq_wake(&p->waitq); /* a buffer slot is free again */
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
        return xlat__fail(p ? p->ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_walker_set_tenant: %s", p ? "tenant out of range" : "NULL pool");
    for (uint32_t i = 0; i < p->tenant_map_len; i++) {
        if (p->tenant_map_pasid[i] == pasid) {
            p->tenant_map_tenant[i] = tenant;
            return XLAT_OK;
        }
    }
    if (p->tenant_map_len == WALK_MAX_TENANT_MAP)
        return xlat__fail(p->ctx, XLAT_ERR_FULL, "walker %s: more than %d tenant assignments",
                          p->name, WALK_MAX_TENANT_MAP);
    p->tenant_map_pasid[p->tenant_map_len] = pasid;
    p->tenant_map_tenant[p->tenant_map_len++] = tenant;
    return XLAT_OK;
}

static struct walk_req *new_request(struct xlat_walker *p, const xlat_req *req,
                                    xlat_done_fn done, void *user)
{
    struct walk_req *r = xlat__pool_get(&p->reqs);
    if (!r)
        return NULL;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->tenant = xlat__walk_tenant_of(p, req->pasid);
    r->queue = -1;
    r->arrival = p->ctx->now;
    return r;
}

/* Accepts `r` (or refuses it with XLAT_ERR_AGAIN) and starts or buffers it. */
static int accept(struct xlat_walker *p, struct walk_req *r)
{
    int32_t thief = -1;
    int w = p->ops->arrive(p->sched, r, xlat__walk_eligible(p, r), &thief);
    if (w == XLAT_ERR_AGAIN) {
        xlat__pool_put(&p->reqs, r);
        p->st.refusals++;
        return xlat__busy(p->ctx, "walker", p->name, "no buffer room");
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
        return xlat__fail(p ? p->ctx : NULL, XLAT_ERR_INVAL, "xlat_walker_translate: NULL %s",
                          !p ? "pool" : !req ? "req" : "done");
    struct walk_req *r = new_request(p, req, done, user);
    if (!r)
        return xlat__fail(p->ctx, XLAT_ERR_NOMEM, "walker %s: out of memory", p->name);
    /* Nothing answers while this is above us on the stack: the host's
     * mem_done / fault_resume calls from inside our call-outs are deferred
     * to tick (the completion rule of doc/walks.md). */
    p->translating++;
    int rc = accept(p, r);
    p->translating--;
    return rc;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_walker_translate(unit, req, done, user);
}

static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    struct xlat_walker *p = unit;
    return xlat__waitq_add(&p->waitq, fn, user);
}

xlat_target xlat_walker_target(xlat_walker *p)
{
    xlat_target t = {target_translate, p, target_wait};
    return t;
}
