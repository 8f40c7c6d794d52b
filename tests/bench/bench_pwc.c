/* Page walk cache throughput: a walker's use of it (look up, then fill the
 * levels it had to read) on uniform random pages of a 64 GiB region. */
#include "bench.h"

#define PWC_WALKS 4000000u
#define PWC_REGION_BITS 36 /* 64 GiB: one level-4 entry, 64 of level 3, 32768 of level 2 */

/* One walk: the deepest hit, then fills of every level read below it. */
static void walk(xlat_pwc *p, uint64_t va)
{
    xlat_pwc_hit h;
    uint32_t top = xlat_pwc_lookup(p, 1, va, &h) == XLAT_OK ? h.next_level : 4;
    for (uint32_t k = top; k >= 2; k--)
        xlat_pwc_fill(p, 1, va, k, va >> (12 + 9 * (k - 1)));
}

static void run(const char *what, const xlat_pwc_config *cfg)
{
    xlat_ctx *ctx;
    xlat_pwc *p;
    char note[128];
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return;
    if (xlat_pwc_create(ctx, cfg, &p) != XLAT_OK) {
        printf("%s: %s\n", what, xlat_ctx_errmsg(ctx));
        xlat_ctx_destroy(ctx);
        return;
    }
    uint64_t seed = 42;
    double t0 = bench_seconds();
    for (uint32_t i = 0; i < PWC_WALKS; i++)
        walk(p, bench_rand(&seed) & ((UINT64_C(1) << PWC_REGION_BITS) - 1));
    double t = bench_seconds() - t0;
    xlat_pwc_stats st;
    xlat_pwc_stats_get(p, &st, sizeof(st));
    double n = (double)st.lookups;
    snprintf(note, sizeof(note), "hits L2 %.1f%% L3 %.1f%% L4 %.1f%%, miss %.1f%%",
             100.0 * (double)st.hits[2] / n, 100.0 * (double)st.hits[3] / n,
             100.0 * (double)st.hits[4] / n, 100.0 * (double)st.misses / n);
    bench_row(what, PWC_WALKS, t, note);
    bench_sink += st.fills;
    xlat_pwc_destroy(p);
    xlat_ctx_destroy(ctx);
}

void bench_pwc(void)
{
    xlat_pwc_config c;
    printf("\n-- page walk cache --\n");
    xlat_pwc_config_init(&c);
    run("pwc per level 16/16/16 full: walk (lookup + fills)", &c);
    c.org = XLAT_PWC_UNIFIED;
    c.entries[0] = 128;
    c.ways[0] = 8;
    run("pwc unified 128 (16 x 8): walk (lookup + fills)", &c);
}
