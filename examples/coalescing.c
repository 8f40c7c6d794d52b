/*
 * Neighborhood-aware coalescing of page walks ("Neighborhood-aware address
 * translation for irregular GPU applications" §IV): when a walker reads a
 * 64-byte line of the page table, every waiting walk whose entry of that
 * level lies in the same line takes it from there instead of reading it
 * again. Sixteen concurrent misses on neighbouring pages (two lines of
 * leaf entries, one line of every level above) go to a pool of two
 * walkers, once without coalescing and once with it (xlat_walker_config::
 * coalesce). Copy this to measure coalescing on your own access pattern.
 *
 *   cc coalescing.c $(pkg-config --cflags --libs libxlat) -o coalescing
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define MISSES 16 /* pages 0..15: eight leaf entries per 64-byte line */
#define PASID 1
#define BASE 0x7f0000000000ull

static int answered;

static void on_done(void *user, const xlat_resp *r)
{
    (void)user;
    answered += r->status == XLAT_OK;
}

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    xlat_ctx_destroy(ctx);
    return -1;
}

/* Sends the misses at once and runs them; writes the pool's counters. */
static int run(bool coalesce, xlat_walker_stats *s)
{
    xlat_ctx *ctx;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return -1;
    xlat_physmem_config mc;
    xlat_physmem *mem;
    xlat_physmem_config_init(&mc);
    if (xlat_physmem_create(ctx, &mc, &mem) != XLAT_OK)
        return fail(ctx, "physmem");
    xlat_pagetable_config pc;
    xlat_pagetable *pt;
    xlat_pagetable_config_init(&pc);
    pc.mem = mem;
    if (xlat_pagetable_create(ctx, &pc, &pt) != XLAT_OK)
        return fail(ctx, "pagetable");
    if (xlat_pagetable_map_range(pt, PASID, BASE, MISSES * 4096, 0, XLAT_PERM_R) != MISSES)
        return fail(ctx, "map_range");

    /* Two walkers, no page walk cache, so every saved read is coalescing's. */
    xlat_walker_config wc;
    xlat_walker *pool;
    xlat_walker_config_init(&wc);
    wc.pt = pt;
    wc.walkers = 2;
    wc.coalesce = coalesce;
    if (xlat_walker_create(ctx, &wc, &pool) != XLAT_OK)
        return fail(ctx, "walker");

    answered = 0;
    for (uint64_t i = 0; i < MISSES; i++) {
        xlat_req req = {.id = i, .vaddr = BASE + i * 4096, .pasid = PASID, .access = XLAT_ACCESS_READ};
        if (xlat_walker_translate(pool, &req, on_done, NULL) != XLAT_OK)
            return fail(ctx, "translate");
    }
    while (xlat_next_event(ctx) != XLAT_NEVER)
        xlat_advance(ctx, xlat_next_event(ctx) - xlat_now(ctx));
    xlat_walker_stats_get(pool, s, sizeof(*s));
    printf("%-16s %3llu page-table reads (level 4: %llu, 3: %llu, 2: %llu, 1: %llu), "
           "%llu answered from another walk's leaf line, %llu advanced part way, done at cycle %llu\n",
           coalesce ? "with coalescing" : "without", (unsigned long long)s->reads,
           (unsigned long long)s->reads_level[4], (unsigned long long)s->reads_level[3],
           (unsigned long long)s->reads_level[2], (unsigned long long)s->reads_level[1],
           (unsigned long long)s->coalesced, (unsigned long long)s->partial_coalesces,
           (unsigned long long)xlat_now(ctx));

    int rc = answered == MISSES ? 0 : -1;
    xlat_walker_destroy(pool);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(ctx);
    return rc;
}

int main(void)
{
    xlat_walker_stats plain, coalesced;
    if (run(false, &plain) != 0 || run(true, &coalesced) != 0) {
        fprintf(stderr, "a run did not answer every miss\n");
        return EXIT_FAILURE;
    }
    int ok = coalesced.reads < plain.reads;
    printf("%s: %llu reads with coalescing, %llu without\n", ok ? "ok" : "NO SAVING",
           (unsigned long long)coalesced.reads, (unsigned long long)plain.reads);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
