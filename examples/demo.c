/*
 * The `make run` demo: a GPU-like trace through 4 private L1 TLBs over one
 * shared L2 over a 100-cycle walker, printing hit rates and latencies.
 * Each "CU" streams through its own pages with some reuse and shares a hot
 * set with the others.
 */
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define CUS 4
#define REQUESTS 200000

typedef struct demo {
    xlat_ctx *ctx;
    xlat_tlb *l1[CUS], *l2;
    xlat_fixed *walker;
    uint64_t done, latency_sum, latency_max, hist[4];
} demo;

static void on_done(void *user, const xlat_resp *r)
{
    demo *d = user;
    uint64_t lat = r->completed - r->issued;
    d->done++;
    d->latency_sum += lat;
    if (lat > d->latency_max)
        d->latency_max = lat;
    d->hist[lat <= 1 ? 0 : lat <= 11 ? 1 : lat <= 111 ? 2 : 3]++;
}

static xlat_tlb *tlb(demo *d, const char *name, uint32_t entries, uint32_t ways, uint32_t lat,
                     uint32_t mshrs, uint32_t ports)
{
    xlat_tlb_config cfg;
    xlat_tlb *t = NULL;
    xlat_tlb_config_init(&cfg);
    cfg.name = name;
    cfg.entries = entries;
    cfg.ways = ways;
    cfg.latency = lat;
    cfg.mshrs = mshrs;
    cfg.ports = ports;
    if (xlat_tlb_create(d->ctx, &cfg, &t) != XLAT_OK) {
        fprintf(stderr, "%s: %s\n", name, xlat_ctx_errmsg(d->ctx));
        exit(EXIT_FAILURE);
    }
    return t;
}

static void build(demo *d)
{
    static const char *names[CUS] = {"cu0.l1", "cu1.l1", "cu2.l1", "cu3.l1"};
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.seed = 2026;
    if (xlat_ctx_create(&cc, &d->ctx) != XLAT_OK)
        exit(EXIT_FAILURE);
    d->l2 = tlb(d, "l2", 512, 16, 10, 32, 4);
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.name = "walker";
    fc.latency = 100;
    if (xlat_fixed_create(d->ctx, &fc, &d->walker) != XLAT_OK)
        exit(EXIT_FAILURE);
    xlat_target to_l2 = XLAT_TARGET_INIT, to_walker = XLAT_TARGET_INIT;
    if (xlat_tlb_get_target(d->l2, &to_l2) != XLAT_OK ||
        xlat_fixed_get_target(d->walker, &to_walker) != XLAT_OK ||
        xlat_tlb_set_next(d->l2, &to_walker) != XLAT_OK)
        exit(EXIT_FAILURE);
    for (int c = 0; c < CUS; c++) {
        d->l1[c] = tlb(d, names[c], 32, 32, 1, 8, 1);
        if (xlat_tlb_set_next(d->l1[c], &to_l2) != XLAT_OK)
            exit(EXIT_FAILURE);
    }
}

/* The next address of CU `cu`: mostly its own stream, sometimes a shared page. */
static uint64_t next_vaddr(uint64_t *state, int cu, uint64_t n)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 31;
    uint64_t base = 0x7f0000000000ull;
    if (z % 10 < 3)
        return base + ((z >> 8) % 64) * 4096; /* shared hot pages */
    uint64_t own = base + (1ull << 32) * (uint64_t)(cu + 1);
    return own + ((n / 16 + (z >> 8) % 48) % 4096) * 4096 + (z & 0xfc0);
}

static void report(const demo *d)
{
    printf("%-8s %10s %10s %10s %8s\n", "unit", "accesses", "hits", "misses", "hit rate");
    for (int c = 0; c <= CUS; c++) {
        xlat_tlb *t = c < CUS ? d->l1[c] : d->l2;
        xlat_tlb_stats s;
        xlat_tlb_stats_get(t, &s, sizeof(s));
        printf("%-8s %10llu %10llu %10llu %7.2f%%\n", xlat_tlb_name(t),
               (unsigned long long)s.accesses, (unsigned long long)s.hits,
               (unsigned long long)s.misses, s.accesses ? 100.0 * s.hits / s.accesses : 0.0);
    }
    printf("\n%llu translations in %llu cycles; latency mean %.2f, max %llu cycles\n",
           (unsigned long long)d->done, (unsigned long long)xlat_now(d->ctx),
           (double)d->latency_sum / (double)d->done, (unsigned long long)d->latency_max);
    printf("latency: L1 hit (1) %llu, L2 hit (<=11) %llu, walk (<=111) %llu, queued %llu\n",
           (unsigned long long)d->hist[0], (unsigned long long)d->hist[1],
           (unsigned long long)d->hist[2], (unsigned long long)d->hist[3]);
}

int main(void)
{
    demo d = {0};
    build(&d);
    uint64_t state = 1, sent[CUS] = {0}, total = 0;
    uint64_t pending[CUS];
    for (int c = 0; c < CUS; c++)
        pending[c] = next_vaddr(&state, c, 0);
    printf("libxlat %s demo: %d CUs x L1 (32 entries) -> L2 (512 entries, 16-way) -> walker\n\n",
           xlat_version_string(), CUS);
    while (total < REQUESTS) {
        for (int c = 0; c < CUS && total < REQUESTS; c++) {
            xlat_req req = {.id = total, .vaddr = pending[c], .pasid = 1, .cu = (uint16_t)c};
            if (xlat_tlb_translate(d.l1[c], &req, on_done, &d) != XLAT_OK)
                continue; /* back-pressure: this CU stalls a cycle */
            pending[c] = next_vaddr(&state, c, ++sent[c]);
            total++;
        }
        xlat_tick(d.ctx);
    }
    xlat_advance(d.ctx, 1000);
    report(&d);
    for (int c = 0; c < CUS; c++)
        xlat_tlb_destroy(d.l1[c]);
    xlat_tlb_destroy(d.l2);
    xlat_fixed_destroy(d.walker);
    xlat_ctx_destroy(d.ctx);
    return d.done == REQUESTS ? EXIT_SUCCESS : EXIT_FAILURE;
}
