/* GMMU throughput: requests routed through a GMMU in each mode, over a
 * local page table walked by 64 walkers (§5.1) and a fixed-latency IOMMU
 * path, with half the pages local. */
#include "bench.h"

#define BENCH_LOCAL_PAGES 4096ull
#define BENCH_PFN_BASE 0x100000ull

typedef struct gworld {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_walker *walkers;
    xlat_fixed *iommu;
    xlat_gmmu *gmmu;
    uint64_t done;
} gworld;

static void on_done(void *user, const xlat_resp *r)
{
    (void)r;
    ((gworld *)user)->done++;
}

static int build(gworld *w, xlat_gmmu_mode mode)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    if (xlat_ctx_create(NULL, &w->ctx) != XLAT_OK ||
        xlat_physmem_create(w->ctx, &pc, &w->mem) != XLAT_OK)
        return -1;
    tc.mem = w->mem;
    if (xlat_pagetable_create(w->ctx, &tc, &w->pt) != XLAT_OK)
        return -1;
    for (uint64_t i = 0; i < BENCH_LOCAL_PAGES; i++)
        if (xlat_pagetable_map(w->pt, 1, i << 12, BENCH_PFN_BASE + i, 12, XLAT_PERM_R) != XLAT_OK)
            return -1;
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w->pt;
    wc.walkers = 64;
    wc.queue_entries = 1024;
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 1100;
    fc.pfn_offset = BENCH_PFN_BASE;
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.mode = mode;
    gc.local_base = BENCH_PFN_BASE << 12;
    gc.local_size = BENCH_LOCAL_PAGES << 12;
    if (xlat_walker_create(w->ctx, &wc, &w->walkers) != XLAT_OK ||
        xlat_fixed_create(w->ctx, &fc, &w->iommu) != XLAT_OK)
        return -1;
    gc.walker = w->walkers;
    xlat_target t = BENCH_TARGET(fixed, w->iommu);
    if (xlat_gmmu_create(w->ctx, &gc, &w->gmmu) != XLAT_OK)
        return -1;
    return xlat_gmmu_set_iommu(w->gmmu, &t) == XLAT_OK ? 0 : -1;
}

static void destroy(gworld *w)
{
    xlat_gmmu_destroy(w->gmmu);
    xlat_walker_destroy(w->walkers);
    xlat_fixed_destroy(w->iommu);
    xlat_pagetable_destroy(w->pt);
    xlat_physmem_destroy(w->mem);
    xlat_ctx_destroy(w->ctx);
}

/* One request every 8 cycles (the walkers serve 64 per 400 cycles); runs
 * of 100000 cycles (10 epochs) alternate all-local and mostly-remote pages,
 * so that the dynamic route has something to follow. */
static void run(xlat_gmmu_mode mode, const char *what)
{
    gworld w = {0};
    const uint64_t n = 200000;
    if (build(&w, mode) != 0) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(w.ctx));
        destroy(&w);
        return;
    }
    uint64_t state = 5;
    double t0 = bench_seconds();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t page = bench_rand(&state) % BENCH_LOCAL_PAGES;
        if (((xlat_now(w.ctx) / 100000) & 1) && bench_rand(&state) % 8)
            page += BENCH_LOCAL_PAGES; /* remote */
        xlat_req req = {.id = i, .pasid = 1, .vaddr = page << 12};
        xlat_gmmu_translate(w.gmmu, &req, on_done, &w);
        xlat_advance(w.ctx, 8);
    }
    while (xlat_next_event(w.ctx) != XLAT_NEVER)
        xlat_advance(w.ctx, xlat_next_event(w.ctx) - xlat_now(w.ctx));
    double s = bench_seconds() - t0;
    xlat_gmmu_stats st;
    xlat_gmmu_stats_get(w.gmmu, &st, sizeof(st));
    char note[160];
    snprintf(note, sizeof(note), "walks %llu, IOMMU %llu, mean latency %.0f cycles",
             (unsigned long long)st.gmmu_walks, (unsigned long long)st.iommu_requests,
             st.completed ? (double)st.latency_cycles / (double)st.completed : 0.0);
    bench_row(what, (double)w.done, s, note);
    bench_sink += w.done;
    destroy(&w);
}

void bench_gmmu(void)
{
    printf("\n-- GMMU (64 walkers, IOMMU path 1100 cycles) --\n");
    run(XLAT_GMMU_CENTRALIZED, "gmmu centralized, requests");
    run(XLAT_GMMU_DISTRIBUTED, "gmmu distributed, requests");
    run(XLAT_GMMU_DYNAMIC, "gmmu dynamic bypass, requests");
}
