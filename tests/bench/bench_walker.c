/* Walker throughput, and the reference hierarchy that sets libxlat's speed
 * beside other simulators. */
#include "bench.h"

typedef struct world {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *walkers;
    uint64_t done;
} world;

static void on_done(void *user, const xlat_resp *r)
{
    (void)r;
    ((world *)user)->done++;
}

static int build_table(world *w, uint32_t levels, uint64_t pages, uint64_t base, uint64_t stride)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_region_config region = {.base_pfn = 0x100, .frames = 1ull << 22};
    pc.regions = 1;
    pc.region = &region;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.levels = levels;
    if (xlat_ctx_create(NULL, &w->ctx) != XLAT_OK ||
        xlat_physmem_create(w->ctx, &pc, &w->mem) != XLAT_OK)
        return -1;
    tc.mem = w->mem;
    if (xlat_pagetable_create(w->ctx, &tc, &w->pt) != XLAT_OK)
        return -1;
    for (uint64_t i = 0; i < pages; i++) {
        uint64_t pfn;
        if (xlat_physmem_place(w->mem, i, 0, 1, &pfn) != XLAT_OK ||
            xlat_pagetable_map(w->pt, 1, base + i * stride, pfn, 12, XLAT_PERM_R | XLAT_PERM_W))
            return -1;
    }
    return 0;
}

static void destroy(world *w)
{
    xlat_walker_destroy(w->walkers);
    xlat_pwc_destroy(w->pwc);
    xlat_pagetable_destroy(w->pt);
    xlat_physmem_destroy(w->mem);
    xlat_ctx_destroy(w->ctx);
}

/* Random walks over 65536 sparse pages, keeping the buffer full. */
static void walks(uint32_t walkers, bool pwc, bool coalesce)
{
    world w = {0};
    const uint64_t pages = 65536, stride = 64 * 4096, n = 400000;
    if (build_table(&w, 4, pages, 0x10000000000ull, stride) != 0) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(w.ctx));
        destroy(&w);
        return;
    }
    if (pwc) {
        xlat_pwc_config c;
        xlat_pwc_config_init(&c);
        xlat_pwc_create(w.ctx, &c, &w.pwc);
    }
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w.pt;
    wc.pwc = w.pwc;
    wc.walkers = walkers;
    wc.coalesce = coalesce;
    xlat_walker_create(w.ctx, &wc, &w.walkers);
    uint64_t state = 9, sent = 0;
    double t0 = bench_seconds();
    while (sent < n) {
        xlat_req req = {.id = sent, .pasid = 1,
                        .vaddr = 0x10000000000ull + (bench_rand(&state) % pages) * stride};
        if (xlat_walker_translate(w.walkers, &req, on_done, &w) == XLAT_OK)
            sent++;
        else
            xlat_advance(w.ctx, xlat_next_event(w.ctx) - xlat_now(w.ctx));
    }
    xlat_advance(w.ctx, 1000000);
    double dt = bench_seconds() - t0;
    xlat_walker_stats st;
    xlat_walker_stats_get(w.walkers, &st, sizeof(st));
    char label[96], note[96];
    snprintf(label, sizeof(label), "walks, 4-level, PWC %s, %u walkers%s", pwc ? "on " : "off",
             walkers, coalesce ? ", coalescing" : "");
    snprintf(note, sizeof(note), "%.2f reads/walk, %llu cycles", (double)st.reads / (double)st.completed,
             (unsigned long long)xlat_now(w.ctx));
    bench_row(label, (double)w.done, dt, note);
    destroy(&w);
}

/* The irregular mix of the queued rows: a bounded set of hot neighbourhoods
 * (64 lines of 8 pages, 1 MiB apart) and 65536 sparse pages, each alone in
 * its line (256 KiB apart). */
#define HOT_BASE 0x20000000000ull
#define SPARSE_BASE 0x10000000000ull
#define SPARSE_PAGES 65536ull
#define SPARSE_STRIDE (64 * 4096ull)

static int map_hot(world *w)
{
    for (uint64_t i = 0; i < 64 * 8; i++) {
        uint64_t pfn, va = HOT_BASE + (i / 8) * (1ull << 20) + (i % 8) * 4096;
        if (xlat_physmem_place(w->mem, SPARSE_PAGES + i, 0, 1, &pfn) != XLAT_OK ||
            xlat_pagetable_map(w->pt, 1, va, pfn, 12, XLAT_PERM_R | XLAT_PERM_W))
            return -1;
    }
    return 0;
}

static uint64_t mixed_vaddr(uint64_t *state)
{
    uint64_t x = bench_rand(state);
    if (x & 1)
        return SPARSE_BASE + ((x >> 1) % SPARSE_PAGES) * SPARSE_STRIDE;
    uint64_t i = (x >> 1) % (64 * 8);
    return HOT_BASE + (i / 8) * (1ull << 20) + (i % 8) * 4096;
}

/* A coalescing pool of 4 walkers under `sched` with `n` requests queued at
 * once (the buffer holds them all), drained to completion: the
 * neighbourhood scans of every read and pick are what grows with the
 * queue. */
static void queued(uint64_t n, xlat_walk_sched sched)
{
    world w = {0};
    if (build_table(&w, 4, SPARSE_PAGES, SPARSE_BASE, SPARSE_STRIDE) != 0 || map_hot(&w) != 0) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(w.ctx));
        destroy(&w);
        return;
    }
    xlat_walker_config wc;
    xlat_walker_config_init(&wc);
    wc.pt = w.pt;
    wc.walkers = 4;
    wc.queue_entries = (uint32_t)n;
    wc.coalesce = true;
    wc.sched = sched;
    if (xlat_walker_create(w.ctx, &wc, &w.walkers) != XLAT_OK) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(w.ctx));
        destroy(&w);
        return;
    }
    uint64_t state = 11;
    double t0 = bench_seconds();
    for (uint64_t id = 0; id < n; id++) {
        xlat_req req = {.id = id, .pasid = 1, .vaddr = mixed_vaddr(&state)};
        if (xlat_walker_translate(w.walkers, &req, on_done, &w) != XLAT_OK)
            fprintf(stderr, "bench: request %llu refused\n", (unsigned long long)id);
    }
    while (w.done < n && xlat_next_event(w.ctx) != XLAT_NEVER)
        xlat_advance(w.ctx, xlat_next_event(w.ctx) - xlat_now(w.ctx));
    double dt = bench_seconds() - t0;
    char label[96], note[96];
    snprintf(label, sizeof(label), "coalescing, 4 walkers%s, %llu queued at once",
             sched == XLAT_SCHED_DWS ? " (DWS)" : "", (unsigned long long)n);
    snprintf(note, sizeof(note), "%.3f s, %.2f us/request, %llu cycles", dt,
             dt * 1e6 / (double)n, (unsigned long long)xlat_now(w.ctx));
    bench_row(label, (double)w.done, dt, note);
    destroy(&w);
}

static void bench_walker_queued(void)
{
    printf("\n-- coalescing walker queue drained (irregular: 64 hot lines + 65536 sparse pages) --\n");
    queued(10000, XLAT_SCHED_FCFS);
    queued(30000, XLAT_SCHED_FCFS);
    queued(100000, XLAT_SCHED_FCFS);
    queued(10000, XLAT_SCHED_DWS);
    queued(100000, XLAT_SCHED_DWS);
}

void bench_walker(void)
{
    printf("\n-- page-table walkers (100-cycle reads) --\n");
    walks(8, false, false);
    walks(8, true, false);
    walks(64, false, false);
    walks(64, true, false);
    walks(64, true, true);
    bench_walker_queued();
}
