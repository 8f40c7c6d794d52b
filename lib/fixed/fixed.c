/* The fixed-latency responder: every answer leaves `latency` cycles after
 * acceptance, translated by the host's function or an identity map. */
#include "delay.h"
#include "registry.h"
#include "unit_target.h"
#include "xlat/fixed.h"

struct fixed_pending {
    struct xlat_delay_item wait; /* first: the record is its delay item */
    xlat_done_fn done;
    void *user;
    xlat_resp resp;
};

struct xlat_fixed {
    struct xlat__unit unit;   /* records: the pending answers */
    struct xlat_delay answers; /* every answer waits `latency` cycles */
    xlat_fixed_config cfg;
    xlat_fixed_stats stats;
    struct xlat__reg reg;
};

void xlat_fixed_config_init_sized(xlat_fixed_config *out, size_t size)
{
    xlat_fixed_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "fixed";
    cfg->latency = 100;
    cfg->page_shift = 12;
    cfg->perm = XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U;
    xlat__config_out(out, size, &full, sizeof(full));
}

static void deliver(struct xlat_delay *line, struct xlat_delay_item *item);
static const struct xlat__reg_ops reg_ops;

static void fixed_free(xlat_fixed *f)
{
    xlat_ctx *ctx = f->unit.ctx;
    xlat__reg_remove(ctx, &f->reg);
    xlat__unit_fini(&f->unit);
    xlat__free(ctx, f, sizeof(*f));
}

int xlat_fixed_create(xlat_ctx *ctx, const xlat_fixed_config *cfg, xlat_fixed **out)
{
    xlat_fixed_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_fixed_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_fixed_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_FIXED_CONFIG_SIZE_V0, "xlat_fixed_config");
    if (rc == XLAT_OK)
        rc = xlat__clock_check(ctx, "fixed", c.name ? c.name : "fixed", c.clock_num, c.clock_den);
    if (rc != XLAT_OK)
        return rc;
    if (c.page_shift < 12 || c.page_shift > 63)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "fixed %s: page_shift %u is outside 12..63",
                          c.name ? c.name : "fixed", c.page_shift);
    if (c.perm & ~(XLAT_PERM_R | XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "fixed %s: unknown perm bits 0x%x",
                          c.name ? c.name : "fixed", c.perm);
    xlat_fixed *f = xlat__alloc(ctx, sizeof(*f));
    if (!f)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_fixed_create: out of memory");
    /* Bounded: exactly max_outstanding records, never more. Unbounded: the
     * pool doubles when more are in flight than ever before. One event (the
     * delay line's) serves every answer. */
    struct xlat__unit_spec spec = {
        .kind = "fixed", .name = c.name ? c.name : "fixed",
        .req_size = sizeof(struct fixed_pending),
        .reqs = c.max_outstanding ? c.max_outstanding : 64,
        .fixed = c.max_outstanding != 0, .events = 1,
        .clock_num = c.clock_num, .clock_den = c.clock_den,
    };
    if ((rc = xlat__unit_init(&f->unit, ctx, &spec)) != XLAT_OK) {
        xlat__free(ctx, f, sizeof(*f));
        return rc;
    }
    f->cfg = c;
    f->cfg.name = f->unit.name;
    xlat__delay_init(&f->answers, &f->unit, c.latency, deliver);
    xlat__reg_add(ctx, &f->reg, &reg_ops, f, f->unit.name, f->unit.id);
    *out = f;
    return XLAT_OK;
}

int xlat_fixed_destroy(xlat_fixed *f)
{
    if (!f)
        return XLAT_OK;
    int rc = xlat__reg_unheld(f->unit.ctx, &f->reg, "fixed");
    if (rc == XLAT_OK)
        fixed_free(f);
    return rc;
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

static void deliver(struct xlat_delay *line, struct xlat_delay_item *item)
{
    struct fixed_pending *p = (struct fixed_pending *)item;
    xlat_fixed *f = (xlat_fixed *)((char *)line - offsetof(xlat_fixed, answers));
    xlat_done_fn done = p->done;
    void *user = p->user;
    xlat_resp r = p->resp;
    r.completed = f->unit.ctx->now;
    xlat__unit_answered(&f->unit, r.completed - r.issued);
    xlat__unit_req_put(&f->unit, p);
    xlat__unit_wake(&f->unit);
    done(user, &r);
}

int xlat_fixed_translate(xlat_fixed *f, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!f || !req || !done)
        return xlat__fail(f ? f->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_fixed_translate: NULL %s", !f ? "fixed" : !req ? "req" : "done");
    int rc = xlat__req_check(f->unit.ctx, req, "xlat_fixed_translate");
    if (rc != XLAT_OK)
        return rc;
    /* Every field is set below (resp by xlat__resp_init, wait by the push). */
    struct fixed_pending *p = xlat__unit_req_take(&f->unit);
    if (!p && f->cfg.max_outstanding) {
        f->stats.refusals++;
        return xlat__unit_busy(&f->unit, "max_outstanding requests in flight");
    }
    if (!p)
        return xlat__fail(f->unit.ctx, XLAT_ERR_NOMEM, "fixed %s: out of memory", f->unit.name);
    p->done = done;
    p->user = user;
    xlat__resp_init(&p->resp, req, XLAT_OK, f->unit.id);
    p->resp.issued = f->unit.ctx->now;
    resolve(f, req, &p->resp);
    xlat__delay_push(&f->answers, &p->wait);
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
    return xlat__unit_wait(&f->unit, fn, user);
}

int xlat_fixed_get_target(xlat_fixed *f, xlat_target *out)
{
    if (!f)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fixed_get_target: NULL fixed");
    xlat_target mine = {sizeof(mine), target_translate, f, target_wait, f->unit.id};
    return xlat__target_get(f->unit.ctx, out, &mine, "xlat_fixed_get_target");
}

size_t xlat_fixed_outstanding(const xlat_fixed *f) { return f ? f->unit.reqs.in_use : 0; }

void xlat_fixed_stats_get(const xlat_fixed *f, xlat_fixed_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, f ? &f->stats : NULL, sizeof(f->stats));
}

void xlat_fixed_stats_reset(xlat_fixed *f)
{
    if (!f)
        return;
    memset(&f->stats, 0, sizeof(f->stats));
    xlat__unit_latency_reset(&f->unit);
}

/* Counters by name (doc/statistics.md): one line per member of xlat_fixed_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_fixed_stats, requests),
    XLAT__COUNTER(xlat_fixed_stats, refusals),
    XLAT__COUNTER(xlat_fixed_stats, faults),
};

static void stats_foreach(const void *f, const struct xlat__stats_sink *sink)
{
    xlat_fixed_stats st;
    xlat_fixed_stats_get(f, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *f) { xlat_fixed_stats_reset(f); }
static void destroy(void *f) { (void)xlat_fixed_destroy(f); }
static void latency(const void *f, xlat_latency_hist *out)
{
    *out = ((const xlat_fixed *)f)->unit.latency;
}

/* Unbounded, its pool grows to what its holders may send at once; bounded,
 * it refuses beyond max_outstanding and never grows. */
static int reserve(void *fixed, size_t in_flight)
{
    xlat_fixed *f = fixed;
    if (!f->cfg.max_outstanding && xlat__pool_reserve(&f->unit.reqs, in_flight) != XLAT_OK)
        return xlat__fail(f->unit.ctx, XLAT_ERR_NOMEM,
                          "fixed %s: out of memory for %zu requests in flight", f->unit.name,
                          in_flight);
    return XLAT_OK;
}

static const struct xlat__reg_ops reg_ops = {"fixed", stats_foreach, stats_reset, destroy,
                                             latency, reserve};
