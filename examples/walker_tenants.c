/*
 * Two tenants sharing one pool of page-table walkers: tenant A (PASID 1)
 * sends a burst of walks at once, tenant B (PASID 2) a trickle, one every
 * 100 cycles. The same request stream runs under first-come-first-served
 * scheduling and under dynamic walker stealing (DWS, "Improving GPU
 * Multi-tenancy with Page Walk Stealing" §V): each tenant owns half the
 * walkers, and a walker serves another tenant only when its own has
 * nothing queued. Under FCFS, B's walks queue behind A's burst; under DWS
 * they find B's own walkers. Copy this to compare schedulers on a stream.
 *
 *   cc walker_tenants.c $(pkg-config --cflags --libs libxlat) -o walker_tenants
 */
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define BURST 32  /* tenant A's walks, all at cycle 0 */
#define TRICKLE 8 /* tenant B's walks, one every GAP cycles */
#define GAP 100
#define BASE 0x7f0000000000ull

/* Latency sums per tenant (tenant = index of the PASID: 0 for A, 1 for B). */
typedef struct tally {
    uint64_t sum[2], count[2];
} tally;

static void on_done(void *user, const xlat_resp *r)
{
    tally *t = user;
    unsigned tenant = r->pasid == 1 ? 0 : 1;
    if (r->status == XLAT_OK) {
        t->sum[tenant] += r->completed - r->issued;
        t->count[tenant]++;
    }
}

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    xlat_ctx_destroy(ctx);
    return -1;
}

/* Send one walk of `pasid` to page `page` of its range. */
static int send(xlat_walker *pool, uint32_t pasid, uint64_t page, tally *t)
{
    xlat_req req = {.id = page, .vaddr = BASE + page * 4096 * 8, .pasid = pasid,
                    .access = XLAT_ACCESS_READ};
    return xlat_walker_translate(pool, &req, on_done, t);
}

/* Runs the stream under `sched`; writes each tenant's mean latency. */
static int run(xlat_walk_sched sched, double mean[2])
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
    /* Each tenant's pages in one call (every 8th is walked, so no two
     * walks read the same 64-byte line of the leaf level). */
    for (uint32_t pasid = 1; pasid <= 2; pasid++)
        if (xlat_pagetable_map_range(pt, pasid, BASE, BURST * 8 * 4096, 0, XLAT_PERM_R) <= 0)
            return fail(ctx, "map_range");

    /* 4 walkers, 100-cycle reads; under DWS tenants own 2 walkers each. */
    xlat_walker_config wc;
    xlat_walker *pool;
    xlat_walker_config_init(&wc);
    wc.pt = pt;
    wc.walkers = 4;
    wc.queue_entries = 128;
    wc.sched = sched;
    wc.tenants = 2;
    if (xlat_walker_create(ctx, &wc, &pool) != XLAT_OK)
        return fail(ctx, "walker");
    if (xlat_walker_set_tenant(pool, 1, 0) != XLAT_OK || xlat_walker_set_tenant(pool, 2, 1) != XLAT_OK)
        return fail(ctx, "set_tenant");

    /* The stream: A's burst at cycle 0, then B's trickle. The buffer is
     * large enough that nothing is refused here. */
    tally t = {{0, 0}, {0, 0}};
    for (uint64_t i = 0; i < BURST; i++)
        if (send(pool, 1, i, &t) != XLAT_OK)
            return fail(ctx, "translate A");
    for (uint64_t i = 0; i < TRICKLE; i++) {
        if (xlat_advance(ctx, i == 0 ? 1 : GAP) != XLAT_OK || send(pool, 2, i, &t) != XLAT_OK)
            return fail(ctx, "translate B");
    }
    while (xlat_next_event(ctx) != XLAT_NEVER)
        xlat_advance(ctx, xlat_next_event(ctx) - xlat_now(ctx));

    int rc = t.count[0] == BURST && t.count[1] == TRICKLE ? 0 : -1;
    for (int i = 0; i < 2; i++)
        mean[i] = t.count[i] ? (double)t.sum[i] / (double)t.count[i] : 0.0;
    xlat_walker_stats s;
    xlat_walker_stats_get(pool, &s, sizeof(s));
    printf("%-4s  tenant A (burst of %d): mean %6.1f cycles   tenant B (trickle of %d): mean %6.1f cycles   stolen walks %llu\n",
           sched == XLAT_SCHED_FCFS ? "FCFS" : "DWS", BURST, mean[0], TRICKLE, mean[1],
           (unsigned long long)s.stolen);

    xlat_walker_destroy(pool);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(ctx);
    return rc;
}

int main(void)
{
    double fcfs[2], dws[2];
    if (run(XLAT_SCHED_FCFS, fcfs) != 0 || run(XLAT_SCHED_DWS, dws) != 0) {
        fprintf(stderr, "a run did not answer every walk\n");
        return EXIT_FAILURE;
    }
    /* What DWS is for: the light tenant no longer waits behind the burst. */
    int ok = dws[1] < fcfs[1];
    printf("%s: tenant B's mean latency %.1f cycles under DWS, %.1f under FCFS\n",
           ok ? "ok" : "NOT PROTECTED", dws[1], fcfs[1]);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
