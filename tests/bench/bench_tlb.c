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

/* ---- a fully associative lookup beside a plain scan of its array ------ */

/* The speed of light for a 32-entry fully associative lookup: the same
 * 32-byte entries as the TLB's ways (vpn, pfn, pasid, ..., page shift),
 * scanned four at a time with one branch on whether any of the four has
 * the vpn (what a vectorising compiler makes of it), then the match
 * confirmed on pasid and page size. No statistics, no replacement update,
 * no call through a handle: what is left of a lookup when the TLB's own
 * work is taken out. */
typedef struct fa_way {
    uint64_t vpn, pfn;
    uint32_t pasid, object_id;
    uint16_t home_gpu, coal_info;
    uint8_t page_shift, perm, spill_credit, spilled;
} fa_way;

#define FA_WAYS 32

__attribute__((noinline)) static int fa_scan(const fa_way *w, uint32_t pasid, uint64_t vpn)
{
    for (int i = 0; i < FA_WAYS; i += 4) {
        if ((w[i].vpn == vpn) | (w[i + 1].vpn == vpn) | (w[i + 2].vpn == vpn) |
            (w[i + 3].vpn == vpn))
            for (int j = i; j < i + 4; j++)
                if (w[j].vpn == vpn && w[j].pasid == pasid && w[j].page_shift == 12)
                    return j;
    }
    return -1;
}

typedef struct fa_load {
    xlat_tlb *t;       /* NULL: scan `ways` instead */
    const fa_way *ways;
    uint64_t hits;
} fa_load;

/* Random pages of twice the entries: about half hit. */
static void fa_lookups(void *arg, uint64_t n)
{
    fa_load *l = arg;
    uint64_t state = 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t vpn = bench_rand(&state) % (2 * FA_WAYS);
        l->hits += l->t ? xlat_tlb_lookup(l->t, 1, vpn << 12, NULL) == XLAT_OK
                        : fa_scan(l->ways, 1, vpn) >= 0;
    }
}

/* Seconds for `n` lookups in a full 32-entry fully associative TLB (or, with
 * `scan`, in a plain array of the same entries). */
double bench_fa_kernel(bool scan, uint64_t n)
{
    xlat_ctx *ctx;
    static fa_way ways[FA_WAYS];
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return -1;
    xlat_tlb *t = make(ctx, FA_WAYS, FA_WAYS);
    for (uint64_t i = 0; t && i < 2 * FA_WAYS; i++) { /* the second half evicts the first */
        xlat_tlb_entry e = {.pasid = 1, .vpn = i, .pfn = i, .page_shift = 12};
        xlat_tlb_insert(t, &e, NULL);
        ways[i % FA_WAYS] = (fa_way){.vpn = i, .pfn = i, .pasid = 1, .page_shift = 12};
    }
    fa_load load = {scan ? NULL : t, ways, 0};
    double dt = t ? bench_kernel_ops(fa_lookups, &load, n) : -1;
    bench_sink += load.hits;
    xlat_tlb_destroy(t);
    xlat_ctx_destroy(ctx);
    return dt;
}

/* Interleaved rounds; the median of the per-round ratios. */
static void fa_versus_scan(void)
{
    enum { ROUNDS = 7 };
    const uint64_t n = 10000000;
    double ratio[ROUNDS], best_lib = 1e9, best_scan = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        double lib = bench_fa_kernel(false, n), scan = bench_fa_kernel(true, n);
        ratio[r] = lib / scan;
        best_lib = lib < best_lib ? lib : best_lib;
        best_scan = scan < best_scan ? scan : best_scan;
    }
    char note[96];
    snprintf(note, sizeof(note), "%.1f ns a lookup, %.2fx the plain scan (median of %d rounds)",
             best_lib / (double)n * 1e9, bench_median(ratio, ROUNDS), ROUNDS);
    bench_row("lookup, 32-entry FA, beside a scan of its array", (double)n, best_lib, note);
    snprintf(note, sizeof(note), "%.1f ns a lookup", best_scan / (double)n * 1e9);
    bench_row("  the plain scan of 32 entries (speed of light)", (double)n, best_scan, note);
}

void bench_tlb(void)
{
    printf("\n-- TLB (functional) --\n");
    lookups("lookup, 32-entry fully associative", 32, 32);
    lookups("lookup, 4096-entry 64-way", 4096, 64);
    fa_versus_scan();
    inserts("insert, 4096-entry 64-way (evicting)", 4096, 64, 10000000);
    inserts("insert, unbounded, 1M distinct pages", 0, 0, 1000000);
    inserts("insert, unbounded, 4M distinct pages", 0, 0, 4000000);
}
