/* Answers, counters, inspection and the event trace of the walker pool. */
#include "walker_internal.h"

_Static_assert(XLAT_WALK_HIST_BUCKETS == XLAT_LATENCY_BUCKETS,
               "the queue and service histograms have the latency histogram's buckets");

void xlat__walk_count_answer(struct xlat_walker *p, const struct walk_req *r)
{
    uint64_t queued = r->start - r->arrival, service = p->unit.ctx->now - r->start;
    xlat_walker_tenant_stats *t = &p->tenant[r->tenant].st;
    p->st.completed++;
    p->st.queue_cycles += queued;
    p->st.service_cycles += service;
    p->st.queue_hist[xlat__latency_bucket(queued)]++;
    p->st.service_hist[xlat__latency_bucket(service)]++;
    xlat__unit_answered(&p->unit, queued + service); /* from arrival to now */
    t->completed++;
    t->queue_cycles += queued;
    t->service_cycles += service;
}

/* The response for `r` from leaf entry `pte` of `level`. */
static void make_resp(const struct xlat_walker *p, const struct walk_req *r, uint64_t pte,
                      uint32_t level, int status, xlat_resp *out)
{
    xlat__resp_init(out, &r->req, status, p->unit.id);
    out->issued = r->arrival;
    out->completed = p->unit.ctx->now;
    if (status != XLAT_OK)
        return;
    uint32_t shift = xlat_pagetable_level_shift(p->pt, level);
    xlat_tlb_entry e = {.pasid = r->req.pasid, .page_shift = (uint8_t)shift,
                        .vpn = r->req.vaddr >> shift, .pfn = xlat_pte_pfn(pte) >> (shift - 12),
                        .perm = xlat_pte_perm(pte),
                        .meta = {.coal_info = (uint16_t)xlat_pte_avail_high(pte)}};
    xlat__resp_translate(out, &e, r->req.vaddr, r->req.access);
}

void xlat__walk_answer(struct xlat_walker *p, struct walk_req *r, uint64_t pte, uint32_t level,
                       int status)
{
    xlat_resp resp;
    make_resp(p, r, pte, level, status, &resp);
    xlat__walk_count_answer(p, r);
    xlat__walk_trace(p, XLAT_WALK_DONE, r, -1, 0, 0, resp.status);
    xlat_done_fn done = r->done;
    void *user = r->user;
    xlat__unit_req_put(&p->unit, r);
    if (p->starved) { /* a sender was refused for want of this record */
        p->starved = false;
        xlat__unit_wake(&p->unit);
    }
    done(user, &resp);
}

void xlat__walk_trace(struct xlat_walker *p, xlat_walk_event_kind kind, const struct walk_req *r,
                      int32_t w, uint32_t level, uint64_t line, int status)
{
    if (!p->cfg.trace_fn)
        return;
    xlat_walk_event ev = {
        .kind = kind, .cycle = p->unit.ctx->now, .id = r->req.id, .tenant = r->tenant,
        .walker = w, .level = level, .line_paddr = line, .status = status,
        .stolen = w >= 0 && kind == XLAT_WALK_START && p->walker[w].stolen,
    };
    p->cfg.trace_fn(p->cfg.trace_user, &ev);
}

void xlat__walk_info(const struct xlat_walker *p, const struct walk_req *r, xlat_walk_info *out)
{
    (void)p;
    memset(out, 0, sizeof(*out));
    out->id = r->req.id;
    out->pasid = r->req.pasid;
    out->vaddr = r->req.vaddr;
    out->tenant = r->tenant;
    out->arrival = r->arrival;
    out->queue = r->queue;
    out->walker = -1;
    out->level = r->pl;
    out->node_pfn = r->pl ? r->pa : 0;
}

size_t xlat_walker_buffered(const xlat_walker *p) { return p ? p->buffered : 0; }

uint32_t xlat_walker_busy(const xlat_walker *p) { return p ? p->busy : 0; }

int xlat_walker_buffered_info(const xlat_walker *p, size_t index, xlat_walk_info *out,
                              size_t out_size)
{
    if (!p || !out)
        return xlat__fail(p ? p->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_walker_buffered_info: NULL %s", p ? "out" : "pool");
    const struct walk_req *r = p->pending_head;
    while (r && index--)
        r = r->pnext;
    if (!r)
        return XLAT_ERR_NOT_FOUND;
    xlat_walk_info info;
    xlat__walk_info(p, r, &info);
    info.cl = p->cfg.coalesce && xlat__walk_cl(p, r);
    xlat__copy_out(out, out_size, &info, sizeof(info));
    return XLAT_OK;
}

int xlat_walker_service_info(const xlat_walker *p, uint32_t w, xlat_walk_info *out,
                             size_t out_size)
{
    if (!p || !out)
        return xlat__fail(p ? p->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_walker_service_info: NULL %s", p ? "out" : "pool");
    if (w >= p->cfg.walkers)
        return xlat__fail(p->unit.ctx, XLAT_ERR_INVAL,
                          "xlat_walker_service_info: no walker %u (walkers: %u)", w,
                          p->cfg.walkers);
    const struct walker *u = &p->walker[w];
    if (!u->r)
        return XLAT_ERR_NOT_FOUND;
    xlat_walk_info info;
    xlat__walk_info(p, u->r, &info);
    info.queue = -1;
    info.walker = (int32_t)w;
    info.level = u->level;
    info.node_pfn = u->node_pfn;
    info.stolen = u->stolen;
    xlat__copy_out(out, out_size, &info, sizeof(info));
    return XLAT_OK;
}

void xlat_walker_stats_get(const xlat_walker *p, xlat_walker_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, p ? &p->st : NULL, sizeof(p->st));
}

int xlat_walker_tenant_stats_get(const xlat_walker *p, uint32_t tenant,
                                 xlat_walker_tenant_stats *out, size_t out_size)
{
    if (!p || !out)
        return xlat__fail(p ? p->unit.ctx : NULL, XLAT_ERR_INVAL,
                          "xlat_walker_tenant_stats_get: NULL %s", p ? "out" : "pool");
    if (tenant >= p->cfg.tenants)
        return xlat__fail(p->unit.ctx, XLAT_ERR_INVAL,
                          "xlat_walker_tenant_stats_get: no tenant %u (tenants: %u)", tenant,
                          p->cfg.tenants);
    xlat_walker_tenant_stats st = p->tenant[tenant].st;
    st.queued = p->tenant[tenant].queued;
    xlat__copy_out(out, out_size, &st, sizeof(st));
    return XLAT_OK;
}

void xlat_walker_stats_reset(xlat_walker *p)
{
    if (!p)
        return;
    memset(&p->st, 0, sizeof(p->st));
    xlat__unit_latency_reset(&p->unit);
    for (uint32_t t = 0; t < WALK_MAX_TENANTS; t++) {
        uint64_t in_service = p->tenant[t].st.in_service;
        memset(&p->tenant[t].st, 0, sizeof(p->tenant[t].st));
        p->tenant[t].st.in_service = in_service;
    }
}

/* Counters by name (doc/statistics.md): one line per member of
 * xlat_walker_stats; reads_level and pwc_hits by level, the histograms by
 * bucket. The per-tenant figures stay with xlat_walker_tenant_stats_get(). */
#define BY_LEVEL(m)                                                                         \
    XLAT__COUNTER_AT4(xlat_walker_stats, m, 0, 1, 2, 3),                                    \
        XLAT__COUNTER_AT(xlat_walker_stats, m, 4), XLAT__COUNTER_AT(xlat_walker_stats, m, 5), \
        XLAT__COUNTER_AT(xlat_walker_stats, m, 6)
_Static_assert(XLAT__ARRAY_LEN(xlat_walker_stats, reads_level) == 7 &&
                   XLAT__ARRAY_LEN(xlat_walker_stats, pwc_hits) == 7 &&
                   XLAT__ARRAY_LEN(xlat_walker_stats, queue_hist) == 32 &&
                   XLAT__ARRAY_LEN(xlat_walker_stats, service_hist) == 32,
               "the table below names every element");
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_walker_stats, requests),
    XLAT__COUNTER(xlat_walker_stats, refusals),
    XLAT__COUNTER(xlat_walker_stats, walks),
    XLAT__COUNTER(xlat_walker_stats, completed),
    XLAT__COUNTER(xlat_walker_stats, faults),
    XLAT__COUNTER(xlat_walker_stats, reads),
    BY_LEVEL(reads_level),
    XLAT__COUNTER(xlat_walker_stats, pwc_lookups),
    BY_LEVEL(pwc_hits),
    XLAT__COUNTER(xlat_walker_stats, coalesced),
    XLAT__COUNTER(xlat_walker_stats, partial_coalesces),
    XLAT__COUNTER(xlat_walker_stats, stolen),
    XLAT__COUNTER(xlat_walker_stats, mem_retries),
    XLAT__COUNTER(xlat_walker_stats, queue_cycles),
    XLAT__COUNTER(xlat_walker_stats, service_cycles),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 0, 1, 2, 3),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 4, 5, 6, 7),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 8, 9, 10, 11),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 12, 13, 14, 15),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 16, 17, 18, 19),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 20, 21, 22, 23),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 24, 25, 26, 27),
    XLAT__COUNTER_AT4(xlat_walker_stats, queue_hist, 28, 29, 30, 31),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 0, 1, 2, 3),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 4, 5, 6, 7),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 8, 9, 10, 11),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 12, 13, 14, 15),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 16, 17, 18, 19),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 20, 21, 22, 23),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 24, 25, 26, 27),
    XLAT__COUNTER_AT4(xlat_walker_stats, service_hist, 28, 29, 30, 31),
    XLAT__COUNTER(xlat_walker_stats, pec_answers),
    XLAT__COUNTER(xlat_walker_stats, pec_multicast),
    XLAT__COUNTER(xlat_walker_stats, rotations),
};

static void stats_foreach(const void *p, const struct xlat__stats_sink *sink)
{
    xlat_walker_stats st;
    xlat_walker_stats_get(p, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *p) { xlat_walker_stats_reset(p); }
static void destroy(void *p) { (void)xlat_walker_destroy(p); }
static void latency(const void *p, xlat_latency_hist *out)
{
    *out = ((const xlat_walker *)p)->unit.latency;
}

const struct xlat__reg_ops xlat__walker_reg_ops = {"walker", stats_foreach, stats_reset, destroy,
                                                   latency, NULL};
