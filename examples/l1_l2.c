/*
 * A timed two-level TLB hierarchy: a private L1 over a shared L2 over a
 * fixed-latency responder standing in for the page-table walker. Copy this
 * to start a host: build units on a context, chain them with
 * xlat_tlb_set_next(), send requests, advance the clock.
 *
 *   cc l1_l2.c $(pkg-config --cflags --libs libxlat) -o l1_l2
 */
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

/* `user` is the context: the answer names the unit that resolved it by
 * its id, and the context gives the unit's name. */
static void on_done(void *user, const xlat_resp *r)
{
    xlat_ctx *ctx = user;
    printf("request %llu  vaddr 0x%llx -> paddr 0x%llx  %-8s cycles %llu..%llu (%llu)  %s\n",
           (unsigned long long)r->id, (unsigned long long)r->vaddr,
           (unsigned long long)r->paddr, xlat_unit_name(ctx, r->resolver), (unsigned long long)r->issued,
           (unsigned long long)r->completed, (unsigned long long)(r->completed - r->issued),
           xlat_strerror(r->status));
}

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    return EXIT_FAILURE;
}

int main(void)
{
    xlat_ctx *ctx;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return EXIT_FAILURE;

    xlat_tlb_config cfg;
    xlat_tlb *l1, *l2;
    xlat_tlb_config_init(&cfg);
    cfg.name = "l1";
    cfg.entries = 16;
    cfg.ways = 16; /* fully associative */
    cfg.latency = 1;
    if (xlat_tlb_create(ctx, &cfg, &l1) != XLAT_OK)
        return fail(ctx, "l1");
    cfg.name = "l2";
    cfg.entries = 512;
    cfg.ways = 16;
    cfg.latency = 10;
    cfg.mshrs = 16;
    if (xlat_tlb_create(ctx, &cfg, &l2) != XLAT_OK)
        return fail(ctx, "l2");

    xlat_fixed_config fc;
    xlat_fixed *walker;
    xlat_fixed_config_init(&fc);
    fc.name = "walker";
    fc.latency = 100;
    fc.pfn_offset = 0x80000;
    if (xlat_fixed_create(ctx, &fc, &walker) != XLAT_OK)
        return fail(ctx, "walker");

    /* Targets are sized structs: start each with XLAT_TARGET_INIT. */
    xlat_target to_l2 = XLAT_TARGET_INIT, to_walker = XLAT_TARGET_INIT;
    if (xlat_tlb_get_target(l2, &to_l2) != XLAT_OK ||
        xlat_fixed_get_target(walker, &to_walker) != XLAT_OK ||
        xlat_tlb_set_next(l1, &to_l2) != XLAT_OK || xlat_tlb_set_next(l2, &to_walker) != XLAT_OK)
        return fail(ctx, "wiring");

    /* Two misses to the same page share an MSHR; the third is a hit later. */
    const uint64_t vaddr[] = {0x7f0000001000, 0x7f0000001040, 0x7f0000002000, 0x7f0000001080};
    for (uint64_t i = 0; i < 4; i++) {
        xlat_req req = {.id = i, .vaddr = vaddr[i], .pasid = 1, .access = XLAT_ACCESS_READ};
        if (i == 3)
            xlat_advance(ctx, 200);
        while (xlat_tlb_translate(l1, &req, on_done, ctx) == XLAT_ERR_AGAIN)
            xlat_tick(ctx); /* one port: retry next cycle */
    }
    /* An event-driven host jumps straight to the next event. */
    while (xlat_next_event(ctx) != XLAT_NEVER)
        xlat_advance(ctx, xlat_next_event(ctx) - xlat_now(ctx));

    xlat_tlb_stats s;
    xlat_tlb_stats_get(l1, &s, sizeof(s));
    printf("l1: %llu accesses, %llu hits, %llu misses (%llu merged)\n",
           (unsigned long long)s.accesses, (unsigned long long)s.hits,
           (unsigned long long)s.misses, (unsigned long long)s.mshr_merges);

    xlat_tlb_destroy(l1);
    xlat_tlb_destroy(l2);
    xlat_fixed_destroy(walker);
    xlat_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}
