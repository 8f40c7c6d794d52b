#include "testutil.h"
#include "shootdown_run.h"

#include <stdlib.h>
#include <string.h>

#include "xlat/xlat.h"

#define SPACES 3
#define PAGES 96

/* The host's page table: a version per page, encoded into the frame so an
 * answer tells which mapping it came from. */
typedef struct host {
    uint64_t version[SPACES][PAGES];
    uint64_t *accept_version; /* per request id */
    uint32_t *seen;           /* completions per request id */
    shootdown_result *r;
} host;

static int resolve(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    host *h = user;
    uint64_t vpn = vaddr >> 12;
    out->pfn = h->version[pasid][vpn % PAGES] << 24 | (uint64_t)pasid << 20 | vpn;
    return XLAT_OK;
}

static void on_done(void *user, const xlat_resp *resp)
{
    host *h = user;
    uint64_t id = resp->id, vpn = resp->vaddr >> 12;
    if (h->seen[id]++)
        h->r->duplicates++;
    if (resp->status != XLAT_OK || (resp->pfn & 0xFFFFF) != vpn ||
        ((resp->pfn >> 20) & 0xF) != resp->pasid || id % SPACES != resp->pasid)
        h->r->wrong_space++;
    if ((resp->pfn >> 24) < h->accept_version[id])
        h->r->stale++;
}

static xlat_tlb *tlb(xlat_ctx *ctx, uint32_t entries, uint32_t ways, uint32_t lat, uint32_t mshrs)
{
    xlat_tlb_config c;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&c);
    c.entries = entries;
    c.ways = ways;
    c.latency = lat;
    c.mshrs = mshrs;
    c.ports = 2;
    xlat_tlb_create(ctx, &c, &t);
    return t;
}

/* The host remaps one page and shoots it down in both TLBs. */
static void remap(host *h, xlat_tlb *l1, xlat_tlb *l2, uint64_t *s)
{
    uint32_t pasid = (uint32_t)(test_rand(s) % SPACES);
    uint64_t vpn = test_rand(s) % PAGES;
    h->version[pasid][vpn]++;
    xlat_tlb_invalidate(l1, pasid, vpn << 12);
    xlat_tlb_invalidate(l2, pasid, vpn << 12);
    h->r->remaps++;
}

void shootdown_run(uint64_t seed, uint64_t requests, shootdown_result *r)
{
    host h;
    memset(&h, 0, sizeof(h));
    memset(r, 0, sizeof(*r));
    h.r = r;
    h.accept_version = calloc(requests, sizeof(*h.accept_version));
    h.seen = calloc(requests, sizeof(*h.seen));
    xlat_ctx_config cc;
    xlat_ctx *ctx;
    xlat_ctx_config_init(&cc);
    cc.seed = seed;
    xlat_ctx_create(&cc, &ctx);
    xlat_tlb *l1 = tlb(ctx, 16, 4, 1, 4), *l2 = tlb(ctx, 64, 8, 10, 8);
    xlat_fixed_config fc;
    xlat_fixed *mem;
    xlat_fixed_config_init(&fc);
    fc.latency = 40;
    fc.max_outstanding = 6;
    fc.resolve = resolve;
    fc.resolve_user = &h;
    xlat_fixed_create(ctx, &fc, &mem);
    xlat_target t2 = TEST_TARGET(tlb, l2), tm = TEST_TARGET(fixed, mem);
    xlat_tlb_set_next(l1, &t2);
    xlat_tlb_set_next(l2, &tm);
    uint64_t s = seed;
    while (r->accepted < requests) {
        for (int k = 0; k < 2 && r->accepted < requests; k++) {
            uint64_t id = r->accepted;
            uint32_t pasid = (uint32_t)(id % SPACES);
            uint64_t vpn = test_rand(&s) % PAGES;
            xlat_req req = {.id = id, .vaddr = vpn << 12 | (test_rand(&s) & 0xfff), .pasid = pasid};
            h.accept_version[id] = h.version[pasid][vpn];
            if (xlat_tlb_translate(l1, &req, on_done, &h) == XLAT_OK)
                r->accepted++;
        }
        if (test_rand(&s) % 16 == 0)
            remap(&h, l1, l2, &s);
        xlat_tick(ctx);
    }
    xlat_advance(ctx, 100000);
    for (uint64_t i = 0; i < requests; i++) {
        r->completed_once += h.seen[i] == 1;
        r->missing += h.seen[i] == 0;
    }
    xlat_tlb_destroy(l1);
    xlat_tlb_destroy(l2);
    xlat_fixed_destroy(mem);
    xlat_ctx_destroy(ctx);
    free(h.accept_version);
    free(h.seen);
}
