/*
 * The reference hierarchy: L1 TLB (16 sets x 4 ways, 1 cycle, 8 MSHRs) ->
 * L2 TLB (128 sets x 12 ways, 8 cycles, 16 MSHRs) -> 8 walkers over a
 * 5-level page table with per-level walk caches of 2, 4, 8 and 32 entries
 * (levels 5, 4, 3, 2) -> memory answering every read in 100 cycles. One
 * address space, 4 KiB pages, at most 8 translations outstanding.
 */
#include <string.h>

#include "bench.h"

#define OUTSTANDING 8
#define REQUESTS 1000000
#define BASE_VA 0x7f0000000000ull

typedef struct ref {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *walkers;
    xlat_tlb *l1, *l2;
    uint64_t outstanding, done;
} ref;

/* splitmix64 as the workload defines it; idx = high 64 bits of z * n. */
static uint64_t next_idx(uint64_t *state, uint64_t n)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (uint64_t)(((unsigned __int128)z * n) >> 64);
}

static xlat_tlb *tlb(xlat_ctx *ctx, const char *name, uint32_t sets, uint32_t ways,
                     uint32_t latency, uint32_t mshrs)
{
    xlat_tlb_config c;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&c);
    c.name = name;
    c.entries = sets * ways;
    c.ways = ways;
    c.latency = latency;
    c.mshrs = mshrs;
    xlat_tlb_create(ctx, &c, &t);
    return t;
}

static int build(ref *r, uint64_t pages)
{
    xlat_region_config region = {.base_pfn = 0x100, .frames = 1ull << 22};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = 1;
    pc.region = &region;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.levels = 5;
    xlat_pwc_config wcc;
    xlat_pwc_config_init(&wcc);
    wcc.levels = 5;
    wcc.entries[5] = 2;
    wcc.entries[4] = 4;
    wcc.entries[3] = 8;
    wcc.entries[2] = 32;
    if (xlat_ctx_create(NULL, &r->ctx) || xlat_physmem_create(r->ctx, &pc, &r->mem))
        return -1;
    tc.mem = r->mem;
    if (xlat_pagetable_create(r->ctx, &tc, &r->pt) || xlat_pwc_create(r->ctx, &wcc, &r->pwc))
        return -1;
    for (uint64_t i = 0; i < pages; i++) {
        uint64_t pfn;
        if (xlat_physmem_place(r->mem, i, 0, 1, &pfn) ||
            xlat_pagetable_map(r->pt, 1, BASE_VA + 4096 * i, pfn, 12, XLAT_PERM_R | XLAT_PERM_W))
            return -1;
    }
    xlat_walker_config w;
    xlat_walker_config_init(&w);
    w.pt = r->pt;
    w.pwc = r->pwc;
    w.walkers = 8;
    w.mem_latency = 100;
    if (xlat_walker_create(r->ctx, &w, &r->walkers))
        return -1;
    r->l1 = tlb(r->ctx, "l1", 16, 4, 1, 8);
    r->l2 = tlb(r->ctx, "l2", 128, 12, 8, 16);
    xlat_target to_l2 = BENCH_TARGET(tlb, r->l2), to_walk = BENCH_TARGET(walker, r->walkers);
    if (!r->l1 || !r->l2 || xlat_tlb_set_next(r->l1, &to_l2) || xlat_tlb_set_next(r->l2, &to_walk))
        return -1;
    return 0;
}

static void destroy(ref *r)
{
    xlat_tlb_destroy(r->l1);
    xlat_tlb_destroy(r->l2);
    xlat_walker_destroy(r->walkers);
    xlat_pwc_destroy(r->pwc);
    xlat_pagetable_destroy(r->pt);
    xlat_physmem_destroy(r->mem);
    xlat_ctx_destroy(r->ctx);
}

static void on_done(void *user, const xlat_resp *resp)
{
    ref *r = user;
    (void)resp;
    r->outstanding--;
    r->done++;
}

static double rate(uint64_t hits, uint64_t accesses)
{
    return accesses ? 100.0 * (double)hits / (double)accesses : 0.0;
}

static void report(const ref *r, const char *name, double seconds, uint64_t checksum)
{
    xlat_tlb_stats s1, s2;
    xlat_walker_stats ws;
    xlat_pwc_stats ps;
    xlat_tlb_stats_get(r->l1, &s1, sizeof(s1));
    xlat_tlb_stats_get(r->l2, &s2, sizeof(s2));
    xlat_walker_stats_get(r->walkers, &ws, sizeof(ws));
    xlat_pwc_stats_get(r->pwc, &ps, sizeof(ps));
    printf("reference %-7s %10.0f translations/s  %11llu cycles  L1 %5.1f%%  L2 %5.1f%%  "
           "PWC L5/L4/L3/L2 %llu/%llu/%llu/%llu of %llu  walks %llu  reads %llu  checksum %llu\n",
           name, (double)r->done / seconds, (unsigned long long)xlat_now(r->ctx),
           rate(s1.hits, s1.accesses), rate(s2.hits, s2.accesses),
           (unsigned long long)ps.hits[5], (unsigned long long)ps.hits[4],
           (unsigned long long)ps.hits[3], (unsigned long long)ps.hits[2],
           (unsigned long long)ps.lookups, (unsigned long long)ws.walks,
           (unsigned long long)ws.reads, (unsigned long long)checksum);
}

typedef struct ref_load {
    ref *r;
    uint64_t pages;
    uint64_t checksum;
} ref_load;

/* Sends `n` requests, at most OUTSTANDING in flight, and waits for the last. */
static void send_all(void *arg, uint64_t n)
{
    ref_load *load = arg;
    ref *r = load->r;
    uint64_t state = 0x5EED, sent = 0, idx = next_idx(&state, load->pages);
    while (sent < n) {
        xlat_req req = {.id = sent, .pasid = 1, .vaddr = BASE_VA + 4096 * idx};
        if (r->outstanding < OUTSTANDING && xlat_tlb_translate(r->l1, &req, on_done, r) == XLAT_OK) {
            load->checksum = load->checksum * 31 + idx;
            r->outstanding++;
            if (++sent < n)
                idx = next_idx(&state, load->pages);
            continue;
        }
        if (r->outstanding < OUTSTANDING)
            xlat_tick(r->ctx); /* the L1 port is taken this cycle */
        else /* all 8 in flight: skip to the next thing that happens */
            xlat_advance(r->ctx, xlat_next_event(r->ctx) - xlat_now(r->ctx));
    }
    while (r->outstanding)
        xlat_advance(r->ctx, xlat_next_event(r->ctx) - xlat_now(r->ctx));
}

/* The footprint of each workload, in pages. */
static const struct {
    const char *name;
    uint64_t pages;
    uint64_t checksum; /* of the first REQUESTS requests */
} workloads[] = {
    {"hot", 48, 6384284099268454351ull},
    {"stlb", 1024, 3258672654187949947ull},
    {"random", 262144, 1637027414539993970ull},
};

/* Times `n` requests of workload `w` on a new hierarchy (NULL r->ctx and a
 * message on stderr when it cannot be built). */
static double measure(ref *r, unsigned w, uint64_t n, uint64_t *checksum)
{
    if (build(r, workloads[w].pages) != 0) {
        fprintf(stderr, "bench reference %s: %s\n", workloads[w].name, xlat_ctx_errmsg(r->ctx));
        return -1;
    }
    ref_load load = {r, workloads[w].pages, 0};
    double dt = bench_kernel_ops(send_all, &load, n);
    *checksum = load.checksum;
    return dt;
}

double bench_reference_kernel(const char *workload, uint64_t n)
{
    for (unsigned w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++) {
        if (strcmp(workload, workloads[w].name) != 0)
            continue;
        ref r = {0};
        uint64_t checksum;
        double dt = measure(&r, w, n, &checksum);
        destroy(&r);
        return dt;
    }
    return -1;
}

static void run(unsigned w)
{
    ref r = {0};
    uint64_t checksum = 0;
    double dt = measure(&r, w, REQUESTS, &checksum);
    if (dt >= 0) {
        report(&r, workloads[w].name, dt, checksum);
        if (checksum != workloads[w].checksum)
            printf("reference %s: WORKLOAD CHECKSUM MISMATCH (expected %llu)\n",
                   workloads[w].name, (unsigned long long)workloads[w].checksum);
    }
    destroy(&r);
}

void bench_reference(void)
{
    printf("\n-- reference hierarchy: L1 64 (16x4) -> L2 1536 (128x12) -> 8 walkers, 5-level, "
           "PWC 2/4/8/32 -> 100-cycle memory; 8 outstanding, 1M requests --\n");
    for (unsigned w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++)
        run(w);
}
