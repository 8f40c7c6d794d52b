/* TLB structure throughput: functional lookups and inserts, and bytes per entry. */
#include "bench.h"

static xlat_tlb *make(xlat_ctx *ctx, uint32_t entries, uint32_t ways)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.entries = entries;
    cfg.ways = ways;
    if (xlat_tlb_create(ctx, &cfg, &t) != XLAT_OK) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(ctx));
        return NULL;
    }
    return t;
}

/* Fills `t` with `pages` random pages, then looks up random pages drawn
 * from twice as many (about half hit once the TLB is full). */
static void lookups(const char *label, uint32_t entries, uint32_t ways)
{
    xlat_ctx *ctx;
    xlat_ctx_create(NULL, &ctx);
    xlat_tlb *t = make(ctx, entries, ways);
    if (!t)
        return;
    uint64_t state = 1, pages = (uint64_t)entries * 2, hits = 0;
    for (uint64_t i = 0; i < pages; i++) {
        xlat_tlb_entry e = {.pasid = 1, .vpn = i, .pfn = i, .page_shift = 12};
        xlat_tlb_insert(t, &e, NULL);
    }
    const uint64_t n = entries > 1000 ? 20000000 : 50000000;
    double t0 = bench_seconds();
    for (uint64_t i = 0; i < n; i++) {
        uint64_t vpn = bench_rand(&state) % pages;
        if (xlat_tlb_lookup(t, 1, vpn << 12, NULL) == XLAT_OK)
            hits++;
    }
    double dt = bench_seconds() - t0;
    char note[96];
    snprintf(note, sizeof(note), "hit rate %.1f%%, %.1f bytes/entry",
             100.0 * (double)hits / (double)n, (double)xlat_tlb_memory(t) / entries);
    bench_row(label, (double)n, dt, note);
    bench_sink += hits;
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}

static void inserts(const char *label, uint32_t entries, uint32_t ways, uint64_t n)
{
    xlat_ctx *ctx;
    xlat_ctx_create(NULL, &ctx);
    xlat_tlb *t = make(ctx, entries, ways);
    if (!t)
        return;
    uint64_t state = 2, evictions = 0;
    double t0 = bench_seconds();
    for (uint64_t i = 0; i < n; i++) {
        xlat_tlb_entry e = {.pasid = 1, .vpn = bench_rand(&state) >> 20, .pfn = i, .page_shift = 12};
        evictions += (uint64_t)(xlat_tlb_insert(t, &e, NULL) == 1);
    }
    double dt = bench_seconds() - t0;
    char note[96];
    snprintf(note, sizeof(note), "%zu entries held, %.1f bytes/entry", xlat_tlb_count(t),
             (double)xlat_tlb_memory(t) / (double)xlat_tlb_count(t));
    bench_row(label, (double)n, dt, note);
    bench_sink += evictions;
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
}

void bench_tlb(void)
{
    printf("\n-- TLB (functional) --\n");
    lookups("lookup, 32-entry fully associative", 32, 32);
    lookups("lookup, 4096-entry 64-way", 4096, 64);
    inserts("insert, 4096-entry 64-way (evicting)", 4096, 64, 10000000);
    inserts("insert, unbounded, 1M distinct pages", 0, 0, 1000000);
    inserts("insert, unbounded, 4M distinct pages", 0, 0, 4000000);
}
