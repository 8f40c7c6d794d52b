/* A fixed-latency link: requests cross after `latency` cycles, answers come
 * back after `latency_back`. Both directions are delay lines (one event
 * each, whatever the traffic), and requests the far side refuses wait in
 * order in the link, behind one retry, so the link's events are bounded by
 * three however many requests it carries. */

#include "delay.h"
#include "registry.h"
#include "unit_target.h"
#include "xlat/link.h"

struct link_req {
    struct xlat_delay_item wait; /* first: on one line at a time */
    struct link_req *next_blocked;
    struct xlat_link *link;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t accepted; /* the link's latency runs from here (resp.issued is the far side's) */
    xlat_resp resp;
};

struct xlat_link {
    struct xlat__unit unit;      /* records: requests in flight */
    struct xlat_delay there, back;
    xlat_link_config cfg;
    xlat_target next;
    struct link_req *blocked, *blocked_tail; /* refused by the far side, in order */
    int retry_armed;
    xlat_link_stats st;
    struct xlat__reg reg;
};

void xlat_link_config_init_sized(xlat_link_config *out, size_t size)
{
    xlat_link_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "link";
    xlat__config_out(out, size, &full, sizeof(full));
}

static void crossed(struct xlat_delay *line, struct xlat_delay_item *item);
static void came_back(struct xlat_delay *line, struct xlat_delay_item *item);
static const struct xlat__reg_ops reg_ops;

/* The link has no bound on requests in flight: its record pool doubles when
 * more are in flight than ever before (documented in link.h). */
int xlat_link_create(xlat_ctx *ctx, const xlat_link_config *cfg, xlat_link **out)
{
    xlat_link_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_link_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_link_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_LINK_CONFIG_SIZE_V0, "xlat_link_config");
    if (rc == XLAT_OK)
        rc = xlat__clock_check(ctx, "link", c.name ? c.name : "link", c.clock_num, c.clock_den);
    if (rc != XLAT_OK)
        return rc;
    struct xlat_link *l = xlat__alloc(ctx, sizeof(*l));
    if (!l)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_link_create: out of memory");
    struct xlat__unit_spec spec = {
        .kind = "link", .name = c.name ? c.name : "link", .req_size = sizeof(struct link_req),
        .reqs = 64, .events = 3, /* two delay lines and the retry */
        .clock_num = c.clock_num, .clock_den = c.clock_den,
    };
    if ((rc = xlat__unit_init(&l->unit, ctx, &spec)) != XLAT_OK) {
        xlat__free(ctx, l, sizeof(*l));
        return rc;
    }
    l->cfg = c;
    l->cfg.name = l->unit.name;
    xlat__delay_init(&l->there, &l->unit, c.latency, crossed);
    xlat__delay_init(&l->back, &l->unit, c.latency_back, came_back);
    xlat__reg_add(ctx, &l->reg, &reg_ops, l, l->unit.name, l->unit.id);
    *out = l;
    return XLAT_OK;
}

int xlat_link_destroy(xlat_link *l)
{
    if (!l)
        return XLAT_OK;
    xlat_ctx *ctx = l->unit.ctx;
    int rc = xlat__reg_unheld(ctx, &l->reg, "link");
    if (rc != XLAT_OK)
        return rc;
    xlat__reg_remove(ctx, &l->reg);
    xlat__target_release(ctx, &l->next, 0);
    xlat__unit_fini(&l->unit);
    xlat__free(ctx, l, sizeof(*l));
    return XLAT_OK;
}

int xlat_link_set_next(xlat_link *l, const xlat_target *next)
{
    if (!l || !next)
        return xlat__fail(l ? l->unit.ctx : NULL, XLAT_ERR_INVAL, "xlat_link_set_next: NULL %s",
                          l ? "next" : "link");
    /* 0: a link has no bound of its own on what it sends */
    return xlat__target_hold(l->unit.ctx, &l->next, next, 0, "xlat_link_set_next");
}

static void arrived(void *user, const xlat_resp *resp)
{
    struct link_req *r = user;
    r->resp = *resp;
    xlat__delay_push(&r->link->back, &r->wait);
}

static void came_back(struct xlat_delay *line, struct xlat_delay_item *item)
{
    struct link_req *r = (struct link_req *)item;
    struct xlat_link *l = r->link;
    (void)line;
    xlat_resp resp = r->resp;
    xlat_done_fn done = r->done;
    void *user = r->user;
    resp.completed = l->unit.ctx->now;
    l->st.answers++;
    l->st.in_flight--;
    xlat__unit_answered(&l->unit, resp.completed - r->accepted);
    xlat__unit_req_put(&l->unit, r);
    done(user, &resp);
}

static void retry_blocked(void *arg);

/* Hands the oldest blocked request to the far side while it accepts. */
static void send_blocked(struct xlat_link *l)
{
    while (l->blocked) {
        struct link_req *r = l->blocked;
        int rc = l->next.translate(l->next.unit, &r->req, arrived, r);
        if (rc == XLAT_ERR_AGAIN) {
            l->st.retries++;
            break;
        }
        l->blocked = r->next_blocked;
        if (!l->blocked)
            l->blocked_tail = NULL;
        if (rc != XLAT_OK) { /* refused for good: answer it, never lose it */
            xlat__resp_init(&r->resp, &r->req, rc, l->unit.id);
            r->resp.issued = r->accepted; /* the link is the unit that answers */
            xlat__delay_push(&l->back, &r->wait);
        }
    }
    if (l->blocked && !l->retry_armed) { /* wait for room on the far side */
        l->retry_armed = 1;
        if (!l->next.wait || l->next.wait(l->next.unit, retry_blocked, l) != XLAT_OK)
            xlat__unit_post(&l->unit, 1, retry_blocked, l);
    }
}

static void retry_blocked(void *arg)
{
    struct xlat_link *l = arg;
    l->retry_armed = 0;
    send_blocked(l);
}

static void crossed(struct xlat_delay *line, struct xlat_delay_item *item)
{
    struct link_req *r = (struct link_req *)item;
    struct xlat_link *l = r->link;
    (void)line;
    r->next_blocked = NULL;
    if (l->blocked_tail) /* keep the order: behind those already waiting */
        l->blocked_tail->next_blocked = r;
    else
        l->blocked = r;
    l->blocked_tail = r;
    if (!l->retry_armed)
        send_blocked(l);
}

int xlat_link_translate(xlat_link *l, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!l || !req || !done)
        return xlat__fail(l ? l->unit.ctx : NULL, XLAT_ERR_INVAL, "xlat_link_translate: NULL %s",
                          !l ? "link" : !req ? "req" : "done");
    int rc = xlat__req_check(l->unit.ctx, req, "xlat_link_translate");
    if (rc != XLAT_OK)
        return rc;
    if (!l->next.translate)
        return xlat__fail(l->unit.ctx, XLAT_ERR_STATE, "link %s: no far target", l->unit.name);
    /* Not zeroed: the fields below, then `wait` by the push, next_blocked
     * as it crosses and resp as it comes back, each before it is read. */
    struct link_req *r = xlat__unit_req_take(&l->unit);
    if (!r)
        return xlat__fail(l->unit.ctx, XLAT_ERR_NOMEM, "link %s: out of memory", l->unit.name);
    r->link = l;
    r->req = *req;
    r->done = done;
    r->user = user;
    r->accepted = l->unit.ctx->now;
    l->st.requests++;
    l->st.in_flight++;
    xlat__delay_push(&l->there, &r->wait);
    return XLAT_OK;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_link_translate(unit, req, done, user);
}

int xlat_link_get_target(xlat_link *l, xlat_target *out)
{
    if (!l)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_link_get_target: NULL link");
    /* No wait hook: a link never refuses for room. */
    xlat_target mine = {sizeof(mine), target_translate, l, NULL, l->unit.id};
    return xlat__target_get(l->unit.ctx, out, &mine, "xlat_link_get_target");
}

void xlat_link_stats_get(const xlat_link *l, xlat_link_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, l ? &l->st : NULL, sizeof(l->st));
}

void xlat_link_stats_reset(xlat_link *l)
{
    if (!l)
        return;
    uint64_t in_flight = l->st.in_flight; /* a gauge: the requests still owe answers */
    memset(&l->st, 0, sizeof(l->st));
    l->st.in_flight = in_flight;
    xlat__unit_latency_reset(&l->unit);
}

/* Counters by name (doc/statistics.md): one line per member of xlat_link_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_link_stats, requests),
    XLAT__COUNTER(xlat_link_stats, retries),
    XLAT__COUNTER(xlat_link_stats, answers),
    XLAT__COUNTER(xlat_link_stats, in_flight),
};

static void stats_foreach(const void *l, const struct xlat__stats_sink *sink)
{
    xlat_link_stats st;
    xlat_link_stats_get(l, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *l) { xlat_link_stats_reset(l); }
static void destroy(void *l) { (void)xlat_link_destroy(l); }
static void latency(const void *l, xlat_latency_hist *out)
{
    *out = ((const xlat_link *)l)->unit.latency;
}

/* Records for `in_flight` requests at once, what the units holding the link
 * as their next level may send (xlat__reg_ops::reserve): the pool grows
 * here, at wiring, never inside tick. */
static int reserve(void *link, size_t in_flight)
{
    xlat_link *l = link;
    if (xlat__pool_reserve(&l->unit.reqs, in_flight) != XLAT_OK)
        return xlat__fail(l->unit.ctx, XLAT_ERR_NOMEM,
                          "link %s: out of memory for %zu requests in flight", l->unit.name,
                          in_flight);
    return XLAT_OK;
}

static const struct xlat__reg_ops reg_ops = {"link", stats_foreach, stats_reset, destroy,
                                             latency, reserve};
