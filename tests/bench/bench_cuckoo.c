/* Cuckoo filter throughput at the paper's operating point: 12-bit
 * fingerprints, 4-slot buckets, filled to 95% of 2^20 slots. */
#include "bench.h"

#define CF_SLOTS_LOG2 20
#define CF_KEYS 996147u  /* 95% of 2^20: the table gets exactly 2^18 buckets */
#define CF_PASSES 5      /* lookups repeat the key set to time long enough */
#define NEGATIVE(i) ((UINT64_C(1) << 63) | (uint64_t)(i))

/* Keys are 0 .. CF_KEYS - 1, never-inserted ones have bit 63 set; the
 * filter hashes keys, so consecutive keys land in random buckets. */
static double time_lookups(const xlat_cuckoo *cf, bool positive, uint64_t *hits)
{
    double t0 = bench_seconds();
    for (int pass = 0; pass < CF_PASSES; pass++)
        for (uint32_t i = 0; i < CF_KEYS; i++)
            *hits += xlat_cuckoo_contains(cf, positive ? (uint64_t)i : NEGATIVE(i));
    return bench_seconds() - t0;
}

static void report(xlat_cuckoo *cf, double t_insert)
{
    char note[128];
    const double ops = (double)CF_KEYS * CF_PASSES;
    double load = (double)xlat_cuckoo_count(cf) / (double)xlat_cuckoo_slots(cf);
    double bits = 8.0 * (double)xlat_cuckoo_memory(cf) / (double)xlat_cuckoo_count(cf);
    snprintf(note, sizeof(note), "to load %.3f, %.2f bits/item", load, bits);
    bench_row("cuckoo f12 b4 2^20 slots: insert", CF_KEYS, t_insert, note);

    uint64_t hits = 0;
    double t = time_lookups(cf, true, &hits);
    snprintf(note, sizeof(note), "%.1f%% found", 100.0 * (double)hits / ops);
    bench_row("cuckoo f12 b4 at 95% load: lookup, present", ops, t, note);

    hits = 0;
    t = time_lookups(cf, false, &hits);
    snprintf(note, sizeof(note), "false positives %.3f%% (expected %.3f%%: 2b·load/(2^f-1))",
             100.0 * (double)hits / ops, 100.0 * 8.0 * load / 4095.0);
    bench_row("cuckoo f12 b4 at 95% load: lookup, absent", ops, t, note);
    bench_sink += hits;
}

/* Inserts past 95% until the first XLAT_ERR_FULL, then removes every key. */
static void fill_and_drain(xlat_cuckoo *cf)
{
    char note[96];
    uint64_t k = CF_KEYS;
    while (xlat_cuckoo_insert(cf, k) == XLAT_OK)
        k++;
    snprintf(note, sizeof(note), "first FULL at load %.4f",
             (double)xlat_cuckoo_count(cf) / (double)xlat_cuckoo_slots(cf));
    double t0 = bench_seconds();
    for (uint64_t i = 0; i < k; i++)
        bench_sink += (uint64_t)xlat_cuckoo_remove(cf, i);
    bench_row("cuckoo f12 b4: remove all", (double)k, bench_seconds() - t0, note);
}

void bench_cuckoo(void)
{
    xlat_ctx *ctx;
    xlat_cuckoo *cf;
    xlat_cuckoo_config cfg;
    printf("\n-- cuckoo filter --\n");
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return;
    xlat_cuckoo_config_init(&cfg);
    cfg.capacity = CF_KEYS;
    if (xlat_cuckoo_create(ctx, &cfg, &cf) != XLAT_OK) {
        fprintf(stderr, "bench: %s\n", xlat_ctx_errmsg(ctx));
        xlat_ctx_destroy(ctx);
        return;
    }
    uint32_t failed = 0;
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < CF_KEYS; i++)
        failed += xlat_cuckoo_insert(cf, i) != XLAT_OK;
    double t_insert = bench_seconds() - t0;
    if (failed || xlat_cuckoo_slots(cf) != (size_t)1 << CF_SLOTS_LOG2)
        fprintf(stderr, "bench: cuckoo: %u inserts failed, %zu slots\n", failed,
                xlat_cuckoo_slots(cf));
    report(cf, t_insert);
    fill_and_drain(cf);
    xlat_cuckoo_destroy(cf);
    xlat_ctx_destroy(ctx);
}
