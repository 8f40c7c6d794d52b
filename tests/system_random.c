#include "testutil.h"
#include "system_random.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPACES 3       /* PASIDs 1..SPACES */
#define PAGES 64       /* pages per PASID: HOT shared ones, the rest private per GPU */
#define HOT 16
#define BASE 0x40000000ull
#define PENDING 8      /* refused requests the host holds for a retry */
#define QUIET_EVERY 4096

/* The frame of (version, pasid, page). */
static uint64_t frame(uint64_t version, uint32_t pasid, uint64_t page)
{
    return version << 24 | (uint64_t)pasid << 20 | page;
}

typedef struct pending {
    uint32_t gpu, cu, pasid;
    uint64_t page, offset;
} pending;

typedef struct host {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_system *sys;
    uint32_t gpus, cus;
    uint64_t version[SPACES + 1][PAGES];
    uint64_t *accept_version; /* per request id */
    uint64_t *page;           /* per request id */
    uint32_t *pasid;          /* per request id */
    uint32_t *seen;           /* answers per request id */
    uint64_t answered;        /* ids answered at least once */
    pending wait[PENDING];
    uint32_t waiting;
    uint64_t rng;
    system_random_result *r;
} host;

static void on_done(void *user, const xlat_resp *resp)
{
    host *h = user;
    system_random_result *r = h->r;
    uint64_t id = resp->id;
    if (id >= r->accepted) { /* an id never handed out */
        r->wrong++;
        return;
    }
    if (h->seen[id]++) {
        r->duplicates++;
        return;
    }
    h->answered++;
    if (resp->status != XLAT_OK) {
        r->bad_status++;
        return;
    }
    uint64_t page = h->page[id];
    uint32_t pasid = h->pasid[id];
    if (resp->pasid != pasid || resp->vaddr >> 12 != (BASE >> 12) + page ||
        (resp->pfn & 0xFFFFF) != page || ((resp->pfn >> 20) & 0xF) != pasid)
        r->wrong++;
    else if ((resp->pfn >> 24) < h->accept_version[id]) {
        if (!r->stale)
            r->first_stale_id = id;
        r->stale++;
    }
}

/* The host remaps one page (the next version) and shoots it down. */
static void remap(host *h)
{
    uint32_t pasid = 1 + (uint32_t)(test_rand(&h->rng) % SPACES);
    uint64_t page = test_rand(&h->rng) % PAGES, va = BASE + page * 4096;
    uint64_t v = ++h->version[pasid][page];
    if (xlat_pagetable_unmap(h->pt, pasid, va) != XLAT_OK ||
        xlat_pagetable_map(h->pt, pasid, va, frame(v, pasid, page), 12,
                           XLAT_PERM_R | XLAT_PERM_W) != XLAT_OK ||
        xlat_system_invalidate(h->sys, pasid, va) < 0)
        h->r->setup = 1;
    h->r->remaps++;
}

/* A new request: the hot set shared by every GPU, or the GPU's own pages. */
static pending draw(host *h, bool multi_app)
{
    pending p;
    p.gpu = (uint32_t)(test_rand(&h->rng) % h->gpus);
    p.cu = (uint32_t)(test_rand(&h->rng) % h->cus);
    uint64_t x = test_rand(&h->rng);
    if (multi_app && x % 4)
        p.pasid = 1 + p.gpu % SPACES;       /* mostly the GPU's own application */
    else
        p.pasid = (x >> 8) % 2 ? 1 : 1 + (uint32_t)((x >> 16) % SPACES);
    uint64_t per = (PAGES - HOT) / h->gpus ? (PAGES - HOT) / h->gpus : 1;
    if (test_rand(&h->rng) % 2)
        p.page = test_rand(&h->rng) % HOT;
    else
        p.page = HOT + (p.gpu * per + test_rand(&h->rng) % per) % (PAGES - HOT);
    p.offset = test_rand(&h->rng) & 0xff8;
    return p;
}

/* Offer the held requests, oldest first; accepted ones leave the list. */
static void offer(host *h, uint64_t limit)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->waiting; i++) {
        pending *p = &h->wait[i];
        uint64_t id = h->r->accepted;
        int rc = XLAT_ERR_AGAIN;
        if (id < limit) {
            xlat_req req = {.id = id, .vaddr = BASE + p->page * 4096 + p->offset,
                            .pasid = p->pasid, .gpu = (uint16_t)p->gpu, .cu = (uint16_t)p->cu};
            h->accept_version[id] = h->version[p->pasid][p->page];
            h->page[id] = p->page;
            h->pasid[id] = p->pasid;
            h->r->accepted++; /* before the call: an answer may come inside it */
            rc = xlat_system_translate(h->sys, &req, on_done, h);
            if (rc != XLAT_OK)
                h->r->accepted--;
        }
        if (rc == XLAT_ERR_AGAIN) {
            if (id < limit)
                h->r->refused++;
            h->wait[kept++] = *p;
        } else if (rc != XLAT_OK) {
            h->r->setup = 1;
        }
    }
    h->waiting = kept;
}

/* Run until every accepted request is answered and no unit has an event
 * left (bounded: a unit might keep a periodic event). */
static void drain(host *h)
{
    uint64_t after = 0;
    for (uint64_t guard = 0; guard < 100000000; guard++) {
        uint64_t next = xlat_next_event(h->ctx);
        if (next == XLAT_NEVER || (h->answered == h->r->accepted && ++after > 10000))
            break;
        xlat_advance(h->ctx, next - xlat_now(h->ctx));
    }
}

/* At a quiescent point: no TLB holds an old mapping, and with one GPU
 * under the exclusive policy no translation is in both its L2 and the
 * IOMMU TLB. */
static void quiet_check(host *h, xlat_incl incl)
{
    xlat_tlb *iotlb = xlat_iommu_tlb(xlat_system_iommu(h->sys));
    bool excl = incl == XLAT_INCL_EXCLUSIVE && h->gpus == 1;
    if (excl)
        h->r->excl_checks++;
    for (uint32_t pasid = 1; pasid <= SPACES; pasid++) {
        for (uint64_t page = 0; page < PAGES; page++) {
            uint64_t va = BASE + page * 4096;
            xlat_tlb_entry e;
            bool in_io = xlat_tlb_probe(iotlb, pasid, va, &e) == XLAT_OK;
            if (in_io && e.pfn != frame(h->version[pasid][page], pasid, page))
                h->r->stale_entries++;
            for (uint32_t g = 0; g < h->gpus; g++) {
                bool in_l2 = xlat_tlb_probe(xlat_system_l2(h->sys, g), pasid, va, &e) == XLAT_OK;
                if (in_l2 && e.pfn != frame(h->version[pasid][page], pasid, page))
                    h->r->stale_entries++;
                if (excl && in_l2 && in_io)
                    h->r->excl_both++;
                for (uint32_t c = 0; c < h->cus; c++)
                    if (xlat_tlb_probe(xlat_system_l1(h->sys, g, c), pasid, va, &e) == XLAT_OK &&
                        e.pfn != frame(h->version[pasid][page], pasid, page))
                        h->r->stale_entries++;
            }
        }
    }
}

static int build(host *h, uint64_t seed, xlat_incl incl, bool multi_app, xlat_spill_rx rx,
                 const xlat_allocator *alloc)
{
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.seed = seed;
    cc.allocator = alloc;
    if (xlat_ctx_create(&cc, &h->ctx) != XLAT_OK)
        return -1;
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    if (xlat_physmem_create(h->ctx, &pc, &h->mem) != XLAT_OK)
        return -1;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = h->mem;
    if (xlat_pagetable_create(h->ctx, &tc, &h->pt) != XLAT_OK)
        return -1;
    for (uint32_t pasid = 1; pasid <= SPACES; pasid++)
        for (uint64_t page = 0; page < PAGES; page++) {
            h->version[pasid][page] = 1;
            if (xlat_pagetable_map(h->pt, pasid, BASE + page * 4096, frame(1, pasid, page), 12,
                                   XLAT_PERM_R | XLAT_PERM_W) != XLAT_OK)
                return -1;
        }
    xlat_tlb_config l1, l2;
    xlat_system_l1_config_init(&l1);
    l1.entries = 8;
    l1.ways = 8;
    l1.latency = 1;
    l1.mshrs = 4;
    l1.ports = 1;
    xlat_system_l2_config_init(&l2);
    l2.entries = 32;
    l2.ways = 4;
    l2.latency = 10;
    l2.mshrs = 8;
    l2.ports = 2;
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = h->pt;
    wc.walkers = 8;
    wc.mem_latency = 20;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.buffer_entries = 32;
    ic.tlb_entries = 64;
    ic.tlb_ways = 8;
    ic.tlb_latency = 20;
    ic.inclusion = incl;
    ic.multi_app = multi_app;
    ic.spill_rx = rx;
    ic.remote_latency = 30;
    ic.tracker_entries = 64 * h->gpus;
    ic.tracker_fp_bits = 8;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = h->gpus;
    sc.cus = h->cus;
    sc.l1 = &l1;
    sc.l2 = &l2;
    sc.gpu_iommu_latency = 50;
    sc.iommu = &ic;
    return xlat_system_create(h->ctx, &sc, &h->sys) == XLAT_OK ? 0 : -1;
}

/* Folds one counter into the digest, as its text line would be. */
static void digest_counter(void *user, uint32_t unit_id, const char *unit_kind,
                           const char *unit_name, const char *counter, uint64_t value)
{
    system_random_result *r = user;
    char line[256];
    int n = snprintf(line, sizeof(line), "%u %s %s %s %llu\n", unit_id, unit_kind, unit_name,
                     counter, (unsigned long long)value);
    for (int i = 0; i < n && i < (int)sizeof(line); i++)
        r->stats_digest = (r->stats_digest ^ (uint8_t)line[i]) * 0x100000001b3ull;
    r->stats_counters++;
}

/* Every counter of every unit, and the host's view of the run. */
static void digest_run(host *h, system_random_result *r)
{
    r->stats_digest = 0xcbf29ce484222325ull;
    if (xlat_stats_foreach(h->ctx, digest_counter, r) != XLAT_OK)
        r->setup = 1;
    digest_counter(r, 0, "host", "run", "cycles", r->cycles);
    digest_counter(r, 0, "host", "run", "refused", r->refused);
}

void system_random_run_rx(uint64_t seed, uint64_t requests, uint32_t gpus, uint32_t cus,
                          xlat_incl incl, bool multi_app, xlat_spill_rx rx,
                          system_random_result *out)
{
    system_random_run_alloc(seed, requests, gpus, cus, incl, multi_app, rx, NULL, out);
}

void system_random_run_alloc(uint64_t seed, uint64_t requests, uint32_t gpus, uint32_t cus,
                             xlat_incl incl, bool multi_app, xlat_spill_rx rx,
                             const xlat_allocator *alloc, system_random_result *out)
{
    host *h = calloc(1, sizeof(*h));
    memset(out, 0, sizeof(*out));
    if (!h) {
        out->setup = 1;
        return;
    }
    h->r = out;
    h->gpus = gpus ? gpus : 1;
    h->cus = cus ? cus : 1;
    h->rng = seed * 0x2545F4914F6CDD1Dull + 7;
    h->accept_version = calloc(requests + 1, sizeof(*h->accept_version));
    h->page = calloc(requests + 1, sizeof(*h->page));
    h->pasid = calloc(requests + 1, sizeof(*h->pasid));
    h->seen = calloc(requests + 1, sizeof(*h->seen));
    if (!h->accept_version || !h->page || !h->pasid || !h->seen ||
        build(h, seed, incl, multi_app, rx, alloc) != 0) {
        out->setup = 1;
        goto done;
    }
    uint64_t next_quiet = QUIET_EVERY;
    while (out->accepted < requests && !out->setup) {
        for (int k = 0; k < 2 && h->waiting < PENDING; k++)
            h->wait[h->waiting++] = draw(h, multi_app);
        uint64_t before = out->accepted;
        offer(h, requests);
        /* host events, at rates per accepted request */
        for (uint64_t a = before; a < out->accepted; a++) {
            uint64_t x = test_rand(&h->rng);
            if (x % 48 == 0)
                remap(h);
            if ((x >> 8) % 2000 == 0 || a % 1500 == 1499) { /* random, and at least every 1500 */
                if (xlat_system_flush_gpu(h->sys, (uint32_t)((x >> 24) % h->gpus)) < 0)
                    out->setup = 1;
                out->gpu_flushes++;
            }
            if ((x >> 32) % 5000 == 0) {
                if (xlat_iommu_flush(xlat_system_iommu(h->sys)) < 0)
                    out->setup = 1;
                out->iommu_flushes++;
            }
        }
        xlat_tick(h->ctx);
        if (out->accepted >= next_quiet) {
            next_quiet += QUIET_EVERY;
            drain(h);
            quiet_check(h, incl);
        }
    }
    h->waiting = 0;
    drain(h);
    quiet_check(h, incl);
    for (uint64_t i = 0; i < out->accepted; i++) {
        out->once += h->seen[i] == 1;
        out->missing += h->seen[i] == 0;
    }
    out->cycles = xlat_now(h->ctx);
    xlat_iommu_stats st;
    xlat_iommu_stats_get(xlat_system_iommu(h->sys), &st, sizeof(st));
    out->tlb_hits = st.tlb_hits;
    out->walks = st.walks;
    out->walk_answers = st.walk_answers;
    out->remote_probes = st.remote_probes;
    out->remote_hits = st.remote_hits;
    out->remote_misses = st.remote_misses;
    out->late_discarded = st.late_discarded;
    out->spills = st.spills;
    out->victims_in = st.victims_in;
    out->victims_dropped = st.victims_dropped;
    out->back_invalidations = st.back_invalidations;
    out->tracker_inserts = st.tracker_inserts;
    out->tracker_full = st.tracker_full;
    digest_run(h, out);
done:
    xlat_system_destroy(h->sys);
    xlat_pagetable_destroy(h->pt);
    xlat_physmem_destroy(h->mem);
    xlat_ctx_destroy(h->ctx);
    free(h->accept_version);
    free(h->page);
    free(h->pasid);
    free(h->seen);
    free(h);
}

void system_random_run(uint64_t seed, uint64_t requests, uint32_t gpus, uint32_t cus,
                       xlat_incl incl, bool multi_app, system_random_result *out)
{
    system_random_run_rx(seed, requests, gpus, cus, incl, multi_app, XLAT_SPILL_CUMULATIVE, out);
}
