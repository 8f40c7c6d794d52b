/* Barre Chord's MCM-GPU (xlat_mcm_preset): translations per host second on
 * a LASP-like stream, for the baseline and comparison points, and memory
 * per chiplet. The stream: pages are placed on chiplets in chunks of 4
 * (page p on chiplet (p / 4) % 4); a CU asks for a page of its own
 * chiplet's chunks 9 times in 10, from a window of 64 chunks that moves on
 * every 4096 requests, and for any page of the footprint otherwise (the
 * shared input of "Barre Chord" §III-D). Each chiplet keeps at most one
 * translation per CU in flight. */
#include <stdlib.h>

#include "bench.h"

#define MCM_PAGES 16384
#define MCM_BASE 0x7e0000000000ull
#define MCM_CHUNK 4
#define MCM_WINDOW 64

typedef struct mcm_rig {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_system *sys;
    uint64_t done, last;
    uint32_t in_flight[4]; /* per chiplet */
} mcm_rig;

/* Translations a chiplet has in flight at most: one per CU. Without a
 * bound, thousands of L1 misses wait on 16 L2 MSHRs and poll each cycle
 * (doc/composition.md, "Waiting for room"), and the host time measures the
 * polling instead of the translation. */
#define MCM_IN_FLIGHT 64

static void on_done(void *user, const xlat_resp *r)
{
    mcm_rig *rig = user;
    rig->done++;
    rig->in_flight[r->id % 4]--; /* the id's low bits are the chiplet */
    if (r->completed > rig->last)
        rig->last = r->completed;
}

static int rig_build(mcm_rig *r, xlat_mcm_variant v)
{
    if (bench_mapped_table(&r->ctx, &r->mem, &r->pt, MCM_PAGES, MCM_BASE))
        return -1;
    static xlat_mcm_config mcm; /* its pointers lead into itself: filled where it lives */
    if (xlat_mcm_preset(&mcm, sizeof(mcm), v))
        return -1;
    mcm.walk.pt = r->pt;
    return xlat_system_create(r->ctx, &mcm.system, &r->sys);
}

static void rig_destroy(mcm_rig *r)
{
    xlat_system_destroy(r->sys);
    xlat_pagetable_destroy(r->pt);
    xlat_physmem_destroy(r->mem);
    xlat_ctx_destroy(r->ctx);
}

/* The n-th request's page for chiplet g (see the top of the file). */
static uint64_t lasp_page(uint64_t *state, uint32_t g, uint64_t n)
{
    uint64_t z = bench_rand(state);
    if (z % 10 == 0)
        return (z >> 8) % MCM_PAGES;
    uint64_t chunks = MCM_PAGES / MCM_CHUNK / 4; /* each chiplet's */
    uint64_t own = (n / 4096 * MCM_WINDOW / 4 + (z >> 8) % MCM_WINDOW) % chunks;
    return (own * 4 + g) * MCM_CHUNK + (z >> 32) % MCM_CHUNK;
}

static void run(xlat_mcm_variant v, const char *name)
{
    mcm_rig r = {0};
    if (rig_build(&r, v) != 0) {
        fprintf(stderr, "bench mcm: %s\n", xlat_ctx_errmsg(r.ctx));
        rig_destroy(&r);
        return;
    }
    uint64_t state = 42, sent = 0, n = 200000;
    double t0 = bench_seconds();
    while (sent < n) {
        uint64_t before = sent;
        for (uint32_t g = 0; g < 4 && sent < n; g++) {
            if (r.in_flight[g] == MCM_IN_FLIGHT)
                continue;
            xlat_req req = {.id = sent * 4 + g, .pasid = 1, .gpu = (uint16_t)g,
                            .cu = (uint16_t)(bench_rand(&state) % 64),
                            .vaddr = MCM_BASE + lasp_page(&state, g, sent) * 4096};
            if (xlat_system_translate(r.sys, &req, on_done, &r) == XLAT_OK) {
                sent++;
                r.in_flight[g]++;
            }
        }
        uint64_t next = xlat_next_event(r.ctx);
        if (sent == before && next != XLAT_NEVER && next > xlat_now(r.ctx))
            xlat_advance(r.ctx, next - xlat_now(r.ctx)); /* all stalled: skip ahead */
        else
            xlat_tick(r.ctx);
    }
    xlat_advance(r.ctx, 100000000); /* drain */
    double dt = bench_seconds() - t0;
    char label[96], note[128];
    snprintf(label, sizeof(label), "MCM 4 chiplets x 64 CUs, LASP-like, %s", name);
    snprintf(note, sizeof(note), "%.0f KiB per chiplet, last answer at cycle %llu",
             (double)xlat_system_gpu_memory(r.sys, 0) / 1024.0, (unsigned long long)r.last);
    bench_row(label, (double)r.done, dt, note);
    rig_destroy(&r);
}

void bench_mcm(void)
{
    printf("\n-- Barre Chord's MCM-GPU (L1 64 -> L2 512 -> PCIe 150 -> IOMMU, no TLB, "
           "16 walkers) --\n");
    run(XLAT_MCM_BASELINE, "baseline");
    run(XLAT_MCM_WALKERS_INF, "unbounded walkers");
    run(XLAT_MCM_LEAST, "least-TLB");
}
