/* The fixed-latency responder: every answer leaves `latency` cycles after
 * acceptance, translated by the host's function or an identity map. */
#include "internal.h"
#include "pool.h"
#include "waitq.h"

struct fixed_pending {
    void *free_link; /* used by the pool while free */
    xlat_fixed *fixed;
    xlat_done_fn done;
    void *user;
    xlat_resp resp;
};

struct xlat_fixed {
    xlat_ctx *ctx;
    char *name;
    xlat_fixed_config cfg;
    struct xlat_pool pending;
    struct xlat_waitq waitq; /* senders refused at max_outstanding */
    xlat_fixed_stats stats;
};

void xlat_fixed_config_init(xlat_fixed_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "fixed";
    cfg->latency = 100;
    cfg->page_shift = 12;
    cfg->perm = XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U;
}

static void deliver(void *arg);

static int owned_event(void *fixed, xlat_event_fn fn, void *user)
{
    return fn == deliver && ((struct fixed_pending *)user)->fixed == fixed;
}

static void fixed_free(xlat_fixed *f)
{
    xlat__cancel_events(f->ctx, owned_event, f);
    xlat__pool_release(&f->pending);
    xlat__waitq_release(&f->waitq);
    xlat__strfree(f->ctx, f->name);
    xlat__free(f->ctx, f, sizeof(*f));
}

int xlat_fixed_create(xlat_ctx *ctx, const xlat_fixed_config *cfg, xlat_fixed **out)
{
    xlat_fixed_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_fixed_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_fixed_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, sizeof(c), "xlat_fixed_config");
    if (rc != XLAT_OK)
        return rc;
    if (c.page_shift < 12 || c.page_shift > 63)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "fixed %s: page_shift %u is outside 12..63",
                          c.name ? c.name : "fixed", c.page_shift);
    xlat_fixed *f = xlat__alloc(ctx, sizeof(*f));
    if (!f)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_fixed_create: out of memory");
    f->ctx = ctx;
    f->cfg = c;
    f->name = xlat__strdup(ctx, c.name ? c.name : "fixed");
    f->cfg.name = f->name;
    size_t initial = c.max_outstanding ? c.max_outstanding : 64;
    if (!f->name || xlat__pool_init(&f->pending, ctx, sizeof(struct fixed_pending), initial) ||
        xlat__waitq_init(&f->waitq, ctx)) {
        fixed_free(f);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_fixed_create: out of memory");
    }
    *out = f;
    return XLAT_OK;
}

void xlat_fixed_destroy(xlat_fixed *f)
{
    if (f)
        fixed_free(f);
}

/* The translation of `req`, from the host's function or the identity map. */
static void resolve(const xlat_fixed *f, const xlat_req *req, xlat_resp *r)
{
    xlat_tlb_entry e = {0};
    e.pasid = req->pasid;
    e.page_shift = f->cfg.page_shift;
    e.vpn = req->vaddr >> e.page_shift;
    e.perm = f->cfg.perm;
    e.pfn = e.vpn + f->cfg.pfn_offset;
    int status = f->cfg.resolve ? f->cfg.resolve(f->cfg.resolve_user, req->pasid, req->vaddr, &e)
                                : XLAT_OK;
    if (status == XLAT_OK && (e.page_shift < 12 || e.page_shift > 63))
        status = XLAT_ERR_INVAL; /* a host resolver gave an impossible page size */
    r->status = status;
    if (status != XLAT_OK)
        return;
    xlat__resp_translate(r, &e, req->vaddr, req->access);
}

static void deliver(void *arg)
{
    struct fixed_pending *p = arg;
    xlat_fixed *f = p->fixed;
    xlat_done_fn done = p->done;
    void *user = p->user;
    xlat_resp r = p->resp;
    r.completed = f->ctx->now;
    xlat__pool_put(&f->pending, p);
    xlat__waitq_wake(&f->waitq);
    done(user, &r);
}

int xlat_fixed_translate(xlat_fixed *f, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!f || !req || !done)
        return xlat__fail(f ? f->ctx : NULL, XLAT_ERR_INVAL, "xlat_fixed_translate: NULL %s",
                          !f ? "fixed" : !req ? "req" : "done");
    if (f->cfg.max_outstanding && f->pending.in_use >= f->cfg.max_outstanding) {
        f->stats.refusals++;
        return xlat__busy(f->ctx, "fixed", f->name, "max_outstanding requests in flight");
    }
    struct fixed_pending *p = xlat__pool_get(&f->pending);
    if (!p || xlat_schedule(f->ctx, f->cfg.latency, deliver, p) != XLAT_OK) {
        if (p)
            xlat__pool_put(&f->pending, p);
        return xlat__fail(f->ctx, XLAT_ERR_NOMEM, "fixed %s: out of memory", f->name);
    }
    p->fixed = f;
    p->done = done;
    p->user = user;
    p->resp.id = req->id;
    p->resp.vaddr = req->vaddr;
    p->resp.pasid = req->pasid;
    p->resp.issued = f->ctx->now;
    p->resp.resolver = f->name;
    resolve(f, req, &p->resp);
    f->stats.requests++;
    if (p->resp.status != XLAT_OK)
        f->stats.faults++;
    return XLAT_OK;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_fixed_translate(unit, req, done, user);
}

static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    xlat_fixed *f = unit;
    return xlat__waitq_add(&f->waitq, fn, user);
}

xlat_target xlat_fixed_target(xlat_fixed *f)
{
    xlat_target target = {target_translate, f, target_wait};
    return target;
}

size_t xlat_fixed_outstanding(const xlat_fixed *f) { return f ? f->pending.in_use : 0; }

void xlat_fixed_stats_get(const xlat_fixed *f, xlat_fixed_stats *out)
{
    if (!out)
        return;
    if (f)
        *out = f->stats;
    else
        memset(out, 0, sizeof(*out));
}

void xlat_fixed_stats_reset(xlat_fixed *f)
{
    if (f)
        memset(&f->stats, 0, sizeof(f->stats));
}
