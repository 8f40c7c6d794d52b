/* A fixed-latency link: requests cross after `latency` cycles, answers come
 * back after `latency_back`. */
#include "internal.h"
#include "pool.h"

struct link_req {
    void *free_link; /* the pool's while free */
    struct xlat_link *link;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    xlat_resp resp;
};

struct xlat_link {
    xlat_ctx *ctx;
    char *name;
    xlat_link_config cfg;
    xlat_target next;
    struct xlat_pool reqs;
    xlat_link_stats st;
};

void xlat_link_config_init(xlat_link_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "link";
}

static void cross(void *arg);
static void come_back(void *arg);

static int owned_event(void *link, xlat_event_fn fn, void *user)
{
    return (fn == cross || fn == come_back) && ((struct link_req *)user)->link == link;
}

static void link_free(struct xlat_link *l)
{
    xlat__cancel_events(l->ctx, owned_event, l);
    xlat__pool_release(&l->reqs);
    xlat__strfree(l->ctx, l->name);
    xlat__free(l->ctx, l, sizeof(*l));
}

int xlat_link_create(xlat_ctx *ctx, const xlat_link_config *cfg, xlat_link **out)
{
    xlat_link_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_link_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_link_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, sizeof(c), "xlat_link_config");
    if (rc != XLAT_OK)
        return rc;
    struct xlat_link *l = xlat__alloc(ctx, sizeof(*l));
    if (!l)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_link_create: out of memory");
    l->ctx = ctx;
    l->cfg = c;
    l->name = xlat__strdup(ctx, c.name ? c.name : "link");
    l->cfg.name = l->name;
    if (!l->name || xlat__pool_init(&l->reqs, ctx, sizeof(struct link_req), 64) != XLAT_OK) {
        link_free(l);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_link_create: out of memory");
    }
    *out = l;
    return XLAT_OK;
}

void xlat_link_destroy(xlat_link *l)
{
    if (l)
        link_free(l);
}

int xlat_link_set_next(xlat_link *l, const xlat_target *next)
{
    if (!l || !next || !next->translate)
        return xlat__fail(l ? l->ctx : NULL, XLAT_ERR_INVAL, "xlat_link_set_next: %s",
                          l ? "target without a translate function" : "NULL link");
    l->next = *next;
    return XLAT_OK;
}

static void arrived(void *user, const xlat_resp *resp)
{
    struct link_req *r = user;
    r->resp = *resp;
    xlat_schedule(r->link->ctx, r->link->cfg.latency_back, come_back, r);
}

static void come_back(void *arg)
{
    struct link_req *r = arg;
    struct xlat_link *l = r->link;
    xlat_resp resp = r->resp;
    xlat_done_fn done = r->done;
    void *user = r->user;
    resp.completed = l->ctx->now;
    l->st.answers++;
    l->st.in_flight--;
    xlat__pool_put(&l->reqs, r);
    done(user, &resp);
}

static void cross(void *arg)
{
    struct link_req *r = arg;
    struct xlat_link *l = r->link;
    int rc = l->next.translate(l->next.unit, &r->req, arrived, r);
    if (rc == XLAT_ERR_AGAIN) {
        l->st.retries++;
        rc = xlat__target_retry(l->ctx, &l->next, cross, r); /* the far side is busy */
    }
    if (rc != XLAT_OK) { /* never lose an accepted request */
        memset(&r->resp, 0, sizeof(r->resp));
        r->resp.id = r->req.id;
        r->resp.vaddr = r->req.vaddr;
        r->resp.pasid = r->req.pasid;
        r->resp.status = rc;
        r->resp.resolver = l->name;
        come_back(r);
    }
}

int xlat_link_translate(xlat_link *l, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!l || !req || !done)
        return xlat__fail(l ? l->ctx : NULL, XLAT_ERR_INVAL, "xlat_link_translate: NULL %s",
                          !l ? "link" : !req ? "req" : "done");
    if (!l->next.translate)
        return xlat__fail(l->ctx, XLAT_ERR_STATE, "link %s: no far target", l->name);
    struct link_req *r = xlat__pool_get(&l->reqs);
    if (!r || xlat_schedule(l->ctx, l->cfg.latency, cross, r) != XLAT_OK) {
        if (r)
            xlat__pool_put(&l->reqs, r);
        return xlat__fail(l->ctx, XLAT_ERR_NOMEM, "link %s: out of memory", l->name);
    }
    r->link = l;
    r->req = *req;
    r->done = done;
    r->user = user;
    l->st.requests++;
    l->st.in_flight++;
    return XLAT_OK;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_link_translate(unit, req, done, user);
}

xlat_target xlat_link_target(xlat_link *l)
{
    xlat_target t = {target_translate, l, NULL}; /* a link never refuses for room */
    return t;
}

void xlat_link_stats_get(const xlat_link *l, xlat_link_stats *out)
{
    if (!out)
        return;
    if (l)
        *out = l->st;
    else
        memset(out, 0, sizeof(*out));
}
