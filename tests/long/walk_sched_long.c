#include "../testutil.h"
#include "walk_sched_long.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SPACES 4
#define PAGES 1024
#define RING 128

/* One tenant's host side: an on/off source and the requests it has made
 * that the pool has not taken yet (a refused head is retried every cycle). */
typedef struct source {
    uint64_t ring[RING];
    uint32_t head, len;
    bool on;
    uint64_t rate; /* requests per million cycles while on */
    uint32_t flip; /* state changes per 1000 cycles */
} source;

typedef struct run {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *pool;
    xlat_walker_config cfg;
    xlat_dwspp_config dwspp; /* cfg.dwspp points here */
    uint32_t *seen;
    uint32_t *page;
    uint64_t next_id, requests, s;
    source src[SPACES];
    walk_sched_long_result *r;
} run;

/* Groups of 32 pages, one group per 2 MiB region every 6 MiB: walks share
 * upper levels (and PWC entries) with some pages and not with others. */
static uint64_t page_va(uint32_t i) { return 0x200000000ull + (i / 32) * (6ull << 20) + (i % 32) * 12288; }

static uint64_t page_pfn(uint32_t pasid, uint32_t i) { return 0x100000 + pasid * PAGES + i; }

static void on_done(void *user, const xlat_resp *resp)
{
    run *w = user;
    w->seen[resp->id]++;
    uint32_t i = w->page[resp->id];
    if (resp->status != XLAT_OK || resp->pfn != page_pfn(resp->pasid, i) ||
        resp->vaddr >> 12 != page_va(i) >> 12)
        w->r->wrong++;
}

static int build_memory(run *w, uint64_t seed)
{
    xlat_ctx_config cc;
    xlat_physmem_config pc;
    xlat_pagetable_config tc;
    xlat_ctx_config_init(&cc);
    cc.seed = seed;
    xlat_physmem_config_init(&pc);
    xlat_pagetable_config_init(&tc);
    if (xlat_ctx_create(&cc, &w->ctx) || xlat_physmem_create(w->ctx, &pc, &w->mem))
        return -1;
    tc.mem = w->mem;
    if (xlat_pagetable_create(w->ctx, &tc, &w->pt))
        return -1;
    for (uint32_t pasid = 0; pasid < SPACES; pasid++)
        for (uint32_t i = 0; i < PAGES; i++)
            if (xlat_pagetable_map(w->pt, pasid, page_va(i), page_pfn(pasid, i), 12, XLAT_PERM_R))
                return -1;
    return 0;
}

/* A random pool shape for `sched`: 1-4 walkers a tenant, 1-12 queue slots
 * a walker, with or without a PWC, either ownership, DWS++ presets. */
static int build_pool(run *w, xlat_walk_sched sched, uint32_t tenants)
{
    xlat_walker_config *c = &w->cfg;
    xlat_walker_config_init(c);
    c->pt = w->pt;
    c->sched = sched;
    c->tenants = tenants;
    c->walkers = tenants * (1 + (uint32_t)(test_rand(&w->s) % 4));
    c->queue_entries = c->walkers * (1 + (uint32_t)(test_rand(&w->s) % 12));
    c->queue_entries += (uint32_t)(test_rand(&w->s) % c->walkers); /* a remainder goes unused */
    c->mem_latency = 5 + (uint32_t)(test_rand(&w->s) % 26);
    c->assign = test_rand(&w->s) % 2 ? XLAT_ASSIGN_INTERLEAVED : XLAT_ASSIGN_CONTIGUOUS;
    c->idle_steal = test_rand(&w->s) % 4 != 0;
    xlat_dwspp_preset(&w->dwspp, (xlat_dwspp_variant)(test_rand(&w->s) % 3));
    w->dwspp.epoch_length = (uint32_t[]){200, 50, 8}[test_rand(&w->s) % 3];
    w->dwspp.strict_bounds = test_rand(&w->s) % 2;
    c->dwspp = &w->dwspp;
    xlat_pwc_config pc;
    xlat_pwc_config_init(&pc);
    if (test_rand(&w->s) % 2 && xlat_pwc_create(w->ctx, &pc, &w->pwc))
        return -1;
    c->pwc = w->pwc;
    return xlat_walker_create(w->ctx, c, &w->pool);
}

/* Offered load 0.3-1.5 times what the walkers serve without a PWC, half
 * of it from tenant 0 (the heavy one) and the rest split at random; a
 * source is on about half the time, in bursts. */
static void build_sources(run *w, uint32_t tenants)
{
    const xlat_walker_config *c = &w->cfg;
    uint64_t serve = 1000000ull * c->walkers / (4 * c->mem_latency); /* walks per Mcycle */
    uint64_t load = serve * (30 + test_rand(&w->s) % 121) / 100;
    uint64_t weight[SPACES], total = 0;
    for (uint32_t t = 0; t < tenants; t++)
        total += weight[t] = 1 + test_rand(&w->s) % 100;
    for (uint32_t t = 0; t < tenants; t++) {
        source *s = &w->src[t];
        uint64_t share = t == 0 ? load / 2 : load / 2 * weight[t] / (total - weight[0]);
        s->rate = 2 * share + 1;
        s->flip = 2 + (uint32_t)(test_rand(&w->s) % 30);
        s->on = test_rand(&w->s) % 2;
    }
}

static void generate(run *w, uint32_t tenants)
{
    for (uint32_t t = 0; t < tenants && w->next_id < w->requests; t++) {
        source *s = &w->src[t];
        if (test_rand(&w->s) % 1000 < s->flip)
            s->on = !s->on;
        if (!s->on || s->len == RING || test_rand(&w->s) % 1000000 >= s->rate)
            continue;
        uint64_t id = w->next_id++;
        w->page[id] = (uint32_t)(test_rand(&w->s) % PAGES);
        s->ring[(s->head + s->len++) % RING] = id;
    }
}

/* Each tenant sends its waiting requests, oldest first, until refused. */
static void send_ready(run *w, uint32_t tenants)
{
    for (uint32_t t = 0; t < tenants; t++) {
        source *s = &w->src[t];
        while (s->len) {
            uint64_t id = s->ring[s->head];
            uint32_t i = w->page[id];
            xlat_req req = {.id = id, .pasid = t, .vaddr = page_va(i) + (id & 0xff8),
                            .access = XLAT_ACCESS_READ};
            if (xlat_walker_translate(w->pool, &req, on_done, w) != XLAT_OK)
                break;
            w->r->accepted++;
            s->head = (s->head + 1) % RING;
            s->len--;
        }
    }
}

static uint32_t owner_of(const xlat_walker_config *c, uint32_t w)
{
    return c->assign == XLAT_ASSIGN_INTERLEAVED ? w % c->tenants
                                                : w / (c->walkers / c->tenants);
}

/* Work conservation: a walker that could take a queued walk is busy. With
 * stealing (and FCFS) that is any walker; with a partition, the tenant's. */
static bool conserving(run *w)
{
    const xlat_walker_config *c = &w->cfg;
    if (c->sched != XLAT_SCHED_PARTITION)
        return !xlat_walker_buffered(w->pool) || xlat_walker_busy(w->pool) == c->walkers;
    xlat_walk_info info;
    for (uint32_t k = 0; k < c->walkers; k++) {
        xlat_walker_tenant_stats st;
        xlat_walker_tenant_stats_get(w->pool, owner_of(c, k), &st, sizeof(st));
        if (st.queued && xlat_walker_service_info(w->pool, k, &info, sizeof(info)) != XLAT_OK)
            return false;
    }
    return true;
}

static uint64_t interleave_bound(const xlat_walker_config *c)
{
    uint32_t cap = c->queue_entries / c->walkers;
    switch (c->sched) {
    case XLAT_SCHED_PARTITION: return 0;
    case XLAT_SCHED_DWS: return 1;
    /* One steal between two walks served from the walker's queue, and only
     * while it holds at most QUEUE_THRES x cap walks. */
    case XLAT_SCHED_DWSPP: return (uint64_t)(c->dwspp->queue_thres * cap) + 1;
    default: return UINT64_MAX;
    }
}

static void tally(run *w, uint32_t tenants)
{
    walk_sched_long_result *r = w->r;
    for (uint64_t id = 0; id < w->requests; id++) {
        r->once += w->seen[id] == 1;
        r->never += w->seen[id] == 0;
        r->twice += w->seen[id] > 1;
    }
    xlat_walker_stats st;
    xlat_walker_stats_get(w->pool, &st, sizeof(st));
    r->stolen = st.stolen;
    for (uint32_t t = 0; t < tenants; t++) {
        xlat_walker_tenant_stats ts;
        xlat_walker_tenant_stats_get(w->pool, t, &ts, sizeof(ts));
        if (ts.interleave_max > r->interleave_max)
            r->interleave_max = ts.interleave_max;
    }
    r->interleave_bound = interleave_bound(&w->cfg);
}

static void destroy(run *w)
{
    xlat_walker_destroy(w->pool);
    xlat_pwc_destroy(w->pwc);
    xlat_pagetable_destroy(w->pt);
    xlat_physmem_destroy(w->mem);
    xlat_ctx_destroy(w->ctx);
    free(w->seen);
    free(w->page);
}

void walk_sched_long_run(uint64_t seed, xlat_walk_sched sched, uint32_t tenants,
                         uint64_t requests, walk_sched_long_result *r)
{
    run w;
    memset(&w, 0, sizeof(w));
    memset(r, 0, sizeof(*r));
    w.r = r;
    w.s = seed * 0x5851F42D4C957F2Dull + sched * 31 + tenants;
    w.requests = requests;
    w.seen = calloc(requests, sizeof(*w.seen));
    w.page = calloc(requests, sizeof(*w.page));
    if (!w.seen || !w.page || tenants > SPACES || build_memory(&w, seed) ||
        build_pool(&w, sched, tenants)) {
        r->setup = 1;
        destroy(&w);
        return;
    }
    build_sources(&w, tenants);
    while (r->accepted < requests) {
        xlat_tick(w.ctx); /* the pool's events of this cycle come first */
        generate(&w, tenants);
        send_ready(&w, tenants);
        r->idle_with_work += !conserving(&w);
    }
    xlat_advance(w.ctx, 1000000);
    tally(&w, tenants);
    destroy(&w);
}
