#include "testutil.h"
#include "walk_random.h"

#include <stdlib.h>
#include <string.h>

#define PAGES 4096

typedef struct run {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *pool;
    uint32_t *seen;
    walk_random_result *out;
} run;

/* Page i of PASID p: clusters of 16 pages every 64 MiB, so neighborhoods
 * at every level are shared by some pages and not by others. */
static uint64_t page_va(uint64_t i) { return 0x100000000ull + (i / 16) * (64ull << 20) + (i % 16) * 4096 * 3; }

static void on_done(void *user, const xlat_resp *r)
{
    run *w = user;
    w->seen[r->id]++;
    xlat_tlb_entry e;
    int rc = xlat_pagetable_lookup(w->pt, r->pasid, r->vaddr, &e);
    if (rc != r->status || (rc == XLAT_OK && e.pfn != r->pfn))
        w->out->wrong++;
}

static int build(run *w, uint64_t seed, xlat_walk_sched sched, uint32_t tenants, uint32_t walkers,
                 bool coalesce, bool pwc)
{
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.seed = seed;
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    if (xlat_ctx_create(&cc, &w->ctx) || xlat_physmem_create(w->ctx, &pc, &w->mem))
        return -1;
    tc.mem = w->mem;
    if (xlat_pagetable_create(w->ctx, &tc, &w->pt))
        return -1;
    for (uint32_t pasid = 0; pasid < 4; pasid++)
        for (uint64_t i = 0; i < PAGES; i++)
            if ((i * 7 + pasid) % 13) /* about one page in 13 stays unmapped */
                if (xlat_pagetable_map(w->pt, pasid, page_va(i), 0x10000 + i * 4 + pasid, 12,
                                       XLAT_PERM_R))
                    return -1;
    xlat_pwc_config pwcc;
    xlat_pwc_config_init(&pwcc);
    if (pwc && xlat_pwc_create(w->ctx, &pwcc, &w->pwc))
        return -1;
    xlat_walker_config c;
    xlat_walker_config_init(&c);
    c.pt = w->pt;
    c.pwc = w->pwc;
    c.sched = sched;
    c.tenants = tenants;
    c.walkers = walkers;
    c.queue_entries = walkers * 32;
    c.mem_latency = 20;
    c.coalesce = coalesce;
    return xlat_walker_create(w->ctx, &c, &w->pool);
}

static void destroy(run *w)
{
    xlat_walker_destroy(w->pool);
    xlat_pwc_destroy(w->pwc);
    xlat_pagetable_destroy(w->pt);
    xlat_physmem_destroy(w->mem);
    xlat_ctx_destroy(w->ctx);
    free(w->seen);
}

/* A refused request is retried every cycle until taken, in order. */
static void send_all(run *w, uint64_t seed, uint64_t requests)
{
    uint64_t s = seed, id = 0;
    while (id < requests) {
        uint64_t burst = test_rand(&s) % 6;
        uint64_t base = test_rand(&s) % PAGES;
        for (uint64_t b = 0; b < burst && id < requests; b++) {
            uint32_t pasid = (uint32_t)(test_rand(&s) % 4);
            uint64_t page = (base + test_rand(&s) % 24) % PAGES;
            xlat_req req = {.id = id, .pasid = pasid, .vaddr = page_va(page) + (test_rand(&s) & 0xfff)};
            while (xlat_walker_translate(w->pool, &req, on_done, w) != XLAT_OK)
                xlat_tick(w->ctx);
            w->out->accepted++;
            id++;
        }
        xlat_advance(w->ctx, test_rand(&s) % 30);
    }
    xlat_advance(w->ctx, 10000000);
}

void walk_random_run(uint64_t seed, uint64_t requests, xlat_walk_sched sched, uint32_t tenants,
                     uint32_t walkers, bool coalesce, bool pwc, walk_random_result *out)
{
    run w;
    memset(&w, 0, sizeof(w));
    memset(out, 0, sizeof(*out));
    w.out = out;
    w.seen = calloc(requests, sizeof(*w.seen));
    if (!w.seen || build(&w, seed, sched, tenants, walkers, coalesce, pwc) != 0) {
        out->wrong = UINT64_MAX;
        destroy(&w);
        return;
    }
    send_all(&w, seed, requests);
    for (uint64_t i = 0; i < requests; i++) {
        out->once += w.seen[i] == 1;
        out->never += w.seen[i] == 0;
        out->twice_or_more += w.seen[i] > 1;
    }
    xlat_walker_stats st;
    xlat_walker_stats_get(w.pool, &st, sizeof(st));
    out->reads = st.reads;
    out->walks = st.walks;
    out->coalesced = st.coalesced;
    for (uint32_t t = 0; t < tenants && t < 4; t++) {
        xlat_walker_tenant_stats ts;
        xlat_walker_tenant_stats_get(w.pool, t, &ts, sizeof(ts));
        out->max_interleave[t] = ts.interleave_max;
    }
    destroy(&w);
}
