/* Timed hierarchy throughput: L1 -> L2 -> 100-cycle responder, measured in
 * completed translations per host second. */
#include "bench.h"

typedef struct rig {
    xlat_ctx *ctx;
    xlat_tlb *l1, *l2;
    xlat_fixed *mem;
    uint64_t done;
} rig;

static void on_done(void *user, const xlat_resp *r)
{
    (void)r;
    ((rig *)user)->done++;
}

static xlat_tlb *tlb(xlat_ctx *ctx, uint32_t entries, uint32_t ways, uint32_t latency,
                     uint32_t mshrs, uint32_t ports)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.latency = latency;
    cfg.mshrs = mshrs;
    cfg.ports = ports;
    xlat_tlb_create(ctx, &cfg, &t);
    return t;
}

static void build(rig *r)
{
    xlat_ctx_create(NULL, &r->ctx);
    r->l1 = tlb(r->ctx, 32, 32, 1, 8, 4);
    r->l2 = tlb(r->ctx, 512, 16, 10, 16, 4);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    xlat_fixed_create(r->ctx, &fc, &r->mem);
    xlat_target t2 = BENCH_TARGET(tlb, r->l2), tm = BENCH_TARGET(fixed, r->mem);
    xlat_tlb_set_next(r->l1, &t2);
    xlat_tlb_set_next(r->l2, &tm);
}

static void destroy(rig *r)
{
    xlat_tlb_destroy(r->l1);
    xlat_tlb_destroy(r->l2);
    xlat_fixed_destroy(r->mem);
    xlat_ctx_destroy(r->ctx);
}

/* Warms both levels with every page, then clears L1's counters. */
static void warm(rig *r, uint64_t pages)
{
    for (uint64_t p = 0; p < pages; p++) {
        xlat_req req = {.id = p, .vaddr = p << 12, .pasid = 1};
        while (xlat_tlb_translate(r->l1, &req, on_done, r) != XLAT_OK)
            xlat_tick(r->ctx);
    }
    xlat_advance(r->ctx, 1000);
    xlat_tlb_stats_reset(r->l1);
    r->done = 0;
}

typedef struct timed_load {
    rig *r;
    uint64_t pages;
} timed_load;

/* Sends `n` requests over the load's pages, as many per cycle as L1
 * accepts, and lets the last ones finish. */
static void send_all(void *arg, uint64_t n)
{
    timed_load *load = arg;
    rig *r = load->r;
    uint64_t state = 3, sent = 0;
    while (sent < n) {
        xlat_req req = {.id = sent, .vaddr = (bench_rand(&state) % load->pages) << 12, .pasid = 1};
        if (xlat_tlb_translate(r->l1, &req, on_done, r) == XLAT_OK)
            sent++;
        else
            xlat_tick(r->ctx);
    }
    xlat_advance(r->ctx, 1000);
}

/* Builds the rig, warms it and times `n` requests over `pages` pages. */
static double measure(rig *r, uint64_t pages, uint64_t n)
{
    build(r);
    warm(r, pages);
    timed_load load = {r, pages};
    return bench_kernel_ops(send_all, &load, n);
}

double bench_timed_kernel(uint64_t pages, uint64_t n)
{
    rig r = {0};
    double dt = measure(&r, pages, n);
    destroy(&r);
    return dt;
}

static void run(const char *label, uint64_t pages, uint64_t n)
{
    rig r = {0};
    double dt = measure(&r, pages, n);
    xlat_tlb_stats s;
    xlat_tlb_stats_get(r.l1, &s, sizeof(s));
    char note[96];
    snprintf(note, sizeof(note), "L1 hit rate %.1f%%, %llu cycles",
             100.0 * (double)s.hits / (double)s.accesses, (unsigned long long)xlat_now(r.ctx));
    bench_row(label, (double)r.done, dt, note);
    destroy(&r);
}

void bench_timed(void)
{
    printf("\n-- timed hierarchy: L1 (32, 4 ports) -> L2 (512, 16-way) -> 100-cycle responder --\n");
    run("translations, L1 hits (16 pages)", 16, 20000000);
    run("translations, L1 misses hitting L2 (400 pages)", 400, 5000000);
}
