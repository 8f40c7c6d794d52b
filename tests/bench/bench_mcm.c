/* Barre Chord's MCM-GPU (xlat_mcm_preset): translations per host second on
 * a LASP-like stream, for the baseline and comparison points, and memory
 * per chiplet. The stream: pages are placed on chiplets in chunks of 4
 * (page p on chiplet (p / 4) % 4); a CU asks for a page of its own
 * chiplet's chunks 9 times in 10, from a window of 64 chunks that moves on
 * every 4096 requests, and for any page of the footprint otherwise (the
 * shared input of "Barre Chord" §III-D). Each chiplet keeps at most one
 * translation per CU in flight. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MCM_PAGES 16384
#define MCM_BASE 0x7e0000000000ull
#define MCM_CHUNK 4
#define MCM_WINDOW 64

typedef struct mcm_rig {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_barre_alloc *alloc; /* Barre rows: the footprint's groups */
    xlat_pec_buffer *pec;
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
    if (xlat_mcm_preset(&mcm, v))
        return -1;
    mcm.walk.pt = r->pt;
    return xlat_system_create(r->ctx, &mcm.system, &r->sys);
}

/* Barre's rows: chiplet g's frames from 0x100000 * (g + 1); the footprint
 * is one data object placed by the group allocator as the stream expects
 * (MCM_CHUNK pages per chiplet per round), its PEC entry in the IOMMU's
 * buffer. */
#define MCM_CHIPLET_FRAMES 0x10000
static int barre_table(mcm_rig *r, uint64_t base_pfn[4])
{
    xlat_region_config reg[5];
    for (uint32_t g = 0; g < 4; g++) {
        base_pfn[g] = 0x100000 * (uint64_t)(g + 1);
        reg[g] = (xlat_region_config){.base_pfn = base_pfn[g], .frames = MCM_CHIPLET_FRAMES};
    }
    reg[4] = (xlat_region_config){.base_pfn = 0x800000, .frames = MCM_CHIPLET_FRAMES};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = 5;
    pc.region = reg;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.node_region = 4; /* page-table nodes apart from the chiplets' frames */
    xlat_barre_alloc_config ac;
    xlat_barre_alloc_config_init(&ac);
    xlat_pec_buffer_config bc;
    xlat_pec_buffer_config_init(&bc);
    xlat_barre_object o;
    xlat_barre_object_init(&o);
    o.pasid = 1;
    o.start_vpn = MCM_BASE >> 12;
    o.pages = MCM_PAGES;
    o.interlv_gran = MCM_CHUNK;
    if (xlat_ctx_create(NULL, &r->ctx) || xlat_physmem_create(r->ctx, &pc, &r->mem))
        return -1;
    tc.mem = ac.mem = r->mem;
    if (xlat_pagetable_create(r->ctx, &tc, &r->pt))
        return -1;
    ac.pt = r->pt;
    ac.max_merge = 1;
    memcpy(ac.base_pfn, base_pfn, 4 * sizeof(base_pfn[0]));
    if (xlat_barre_alloc_create(r->ctx, &ac, &r->alloc) ||
        xlat_pec_buffer_create(r->ctx, &bc, &r->pec))
        return -1;
    return xlat_barre_alloc_map(r->alloc, &o, r->pec, NULL);
}

/* The baseline preset with Barre's PEC logic in the IOMMU's walkers and,
 * for F-Barre, a unit per chiplet with coalescing-aware walk scheduling. */
static int rig_build_barre(mcm_rig *r, bool fbarre)
{
    static uint64_t base_pfn[4];
    if (barre_table(r, base_pfn))
        return -1;
    static xlat_mcm_config mcm;
    static xlat_fbarre_config fb;
    if (xlat_mcm_preset(&mcm, XLAT_MCM_BASELINE))
        return -1;
    mcm.walk.pt = r->pt;
    mcm.walk.pec = r->pec;
    mcm.walk.pec_base_pfn = base_pfn;
    mcm.walk.pec_chiplets = 4;
    if (fbarre) {
        mcm.walk.coal_aware = true;
        xlat_fbarre_config_init(&fb);
        memcpy(fb.base_pfn, base_pfn, sizeof(base_pfn));
        mcm.system.fbarre = &fb;
        mcm.system.fbarre_pec = r->pec;
    }
    return xlat_system_create(r->ctx, &mcm.system, &r->sys);
}

static void rig_destroy(mcm_rig *r)
{
    xlat_system_destroy(r->sys);
    xlat_pec_buffer_destroy(r->pec);
    xlat_barre_alloc_destroy(r->alloc);
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

/* Which machine a row runs: a preset variant, or Barre / F-Barre. */
enum { MCM_PRESET, MCM_BARRE, MCM_FBARRE };

static int build_kind(mcm_rig *r, int kind, xlat_mcm_variant v)
{
    return kind == MCM_PRESET ? rig_build(r, v) : rig_build_barre(r, kind == MCM_FBARRE);
}

static void run(int kind, xlat_mcm_variant v, const char *name)
{
    mcm_rig r = {0};
    if (build_kind(&r, kind, v) != 0) {
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
    run(MCM_PRESET, XLAT_MCM_BASELINE, "baseline");
    run(MCM_PRESET, XLAT_MCM_WALKERS_INF, "unbounded walkers");
    run(MCM_PRESET, XLAT_MCM_LEAST, "least-TLB");
    run(MCM_BARRE, XLAT_MCM_BASELINE, "Barre");
    run(MCM_FBARRE, XLAT_MCM_BASELINE, "F-Barre");
}
