/*
 * Where a GPU's L2 TLB misses are translated: by the IOMMU alone (the
 * centralized GMMU), or by the GPU's own walkers over its local page table
 * when that pays, the dynamic GMMU bypass of "Dynamic GMMU Bypass for
 * Address Translation in Multi-GPU Systems" (§4). Two GPUs run the same
 * stream in two phases: first each touches its own data (local pages), then
 * the other GPU's (remote pages). The dynamic GMMU walks locally in the first
 * phase, skipping the round trip to the IOMMU, and once an epoch has seen
 * mostly remote pages it bypasses itself, so it wastes few local walks. The
 * program checks both: a lower mean latency than centralized, and requests
 * routed both ways.
 *
 *   cc gmmu_bypass.c $(pkg-config --cflags --libs libxlat) -o gmmu_bypass
 */
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define GPUS 2
#define PAGES 256                      /* data pages of each GPU */
#define DATA(g) (0x40000000ull + (uint64_t)(g) * 0x10000000ull)

/* Region 0 holds the page tables' nodes, region 1 + g GPU g's memory. */
static const xlat_region_config regions[1 + GPUS] = {
    {0x1000, 0x1000}, {0x100000, 0x10000}, {0x200000, 0x10000}};

typedef struct world {
    xlat_ctx *ctx;
    xlat_physmem *mem, *local_mem;
    xlat_pagetable *pt, *local[GPUS];
    xlat_system *sys;
    uint64_t answered, cycles;
} world;

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    return EXIT_FAILURE;
}

/* The dynamic GMMU's locality test: is the IOMMU's answer in GPU gpu's memory? */
static bool is_local(void *user, uint32_t gpu, uint64_t paddr)
{
    uint32_t region;
    return xlat_physmem_region_of(user, paddr >> 12, &region) == XLAT_OK && region == 1 + gpu;
}

static int make_table(world *w, xlat_physmem *mem, xlat_pagetable **pt)
{
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = mem;
    tc.node_region = 0;
    return xlat_pagetable_create(w->ctx, &tc, pt);
}

/* The IOMMU's table maps every GPU's data; GPU g's local table maps its
 * own. The local tables live in a second physical memory of the same
 * layout, so that placing a range there picks the very frames placing it
 * in the IOMMU's table did: both tables agree, as the program checks. */
static int build_tables(world *w)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = 1 + GPUS;
    pc.region = regions;
    if (xlat_physmem_create(w->ctx, &pc, &w->mem) != XLAT_OK ||
        xlat_physmem_create(w->ctx, &pc, &w->local_mem) != XLAT_OK ||
        make_table(w, w->mem, &w->pt) != XLAT_OK)
        return fail(w->ctx, "memory");
    for (uint32_t g = 0; g < GPUS; g++) {
        if (make_table(w, w->local_mem, &w->local[g]) != XLAT_OK ||
            xlat_pagetable_map_range(w->pt, 1, DATA(g), PAGES * 4096, 1 + g, XLAT_PERM_R) != PAGES ||
            xlat_pagetable_map_range(w->local[g], 1, DATA(g), PAGES * 4096, 1 + g, XLAT_PERM_R) != PAGES)
            return fail(w->ctx, "map_range");
        xlat_tlb_entry a, b;
        if (xlat_pagetable_lookup(w->pt, 1, DATA(g) + 7 * 4096, &a) != XLAT_OK ||
            xlat_pagetable_lookup(w->local[g], 1, DATA(g) + 7 * 4096, &b) != XLAT_OK || a.pfn != b.pfn) {
            fprintf(stderr, "the local table and the IOMMU's disagree\n");
            return EXIT_FAILURE;
        }
    }
    return EXIT_SUCCESS;
}

static void on_done(void *user, const xlat_resp *r)
{
    world *w = user;
    if (r->status == XLAT_OK) {
        w->answered++;
        w->cycles += r->completed - r->issued;
    }
}

/* Phase 0: GPU g reads its own pages; phase 1: the other GPU's. */
static int run_stream(world *w)
{
    uint64_t sent = 0;
    for (uint32_t phase = 0; phase < 2; phase++)
        for (uint32_t i = 0; i < PAGES; i++)
            for (uint32_t g = 0; g < GPUS; g++) {
                uint32_t owner = phase ? (g + 1) % GPUS : g;
                xlat_req req = {.id = sent, .vaddr = DATA(owner) + i * 4096ull, .pasid = 1,
                                .gpu = (uint16_t)g, .cu = (uint16_t)(i % 2)};
                if (xlat_system_translate(w->sys, &req, on_done, w) != XLAT_OK)
                    return fail(w->ctx, "translate");
                sent++;
                while (w->answered < sent && xlat_next_event(w->ctx) != XLAT_NEVER)
                    xlat_advance(w->ctx, xlat_next_event(w->ctx) - xlat_now(w->ctx));
            }
    return w->answered == sent ? EXIT_SUCCESS : fail(w->ctx, "unanswered requests");
}

static int run(xlat_gmmu_mode mode, xlat_gmmu_stats *out, double *mean)
{
    world w = {0};
    if (xlat_ctx_create(NULL, &w.ctx) != XLAT_OK)
        return EXIT_FAILURE;
    if (build_tables(&w) != EXIT_SUCCESS)
        return EXIT_FAILURE;
    xlat_walker_config wc, gw;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = w.pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    xlat_walker_config_init(&gw);
    gw.mem_latency = 25; /* a local walk: 4 reads of the GPU's own memory */
    xlat_gmmu_config gc;
    xlat_gmmu_config_init(&gc);
    gc.mode = mode;
    gc.epoch_cycles = 20000;
    gc.is_local = is_local;
    gc.locality_user = w.mem;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = GPUS;
    sc.cus = 2;
    sc.iommu = &ic;
    sc.gpu_iommu_latency = 300;
    sc.gmmu = true;
    sc.local_pt = w.local;
    sc.gmmu_walk = &gw;
    sc.gmmu_cfg = &gc;
    if (xlat_system_create(w.ctx, &sc, &w.sys) != XLAT_OK)
        return fail(w.ctx, "system");
    if (run_stream(&w) != EXIT_SUCCESS)
        return EXIT_FAILURE;

    *out = (xlat_gmmu_stats){0};
    for (uint32_t g = 0; g < GPUS; g++) {
        xlat_gmmu_stats s;
        xlat_gmmu_stats_get(xlat_system_gmmu(w.sys, g), &s, sizeof(s));
        for (int r = 0; r < XLAT_GMMU_ROUTES; r++)
            out->routed[r] += s.routed[r];
        out->local += s.local;
        out->remote += s.remote;
        out->wasted_walks += s.wasted_walks;
        out->requests += s.requests;
    }
    *mean = (double)w.cycles / (double)w.answered;

    xlat_system_destroy(w.sys);
    for (uint32_t g = 0; g < GPUS; g++)
        xlat_pagetable_destroy(w.local[g]);
    xlat_pagetable_destroy(w.pt);
    xlat_physmem_destroy(w.local_mem);
    xlat_physmem_destroy(w.mem);
    xlat_ctx_destroy(w.ctx);
    return EXIT_SUCCESS;
}

static void print(const char *name, const xlat_gmmu_stats *s, double mean)
{
    printf("%-12s routed local %4llu bypass %4llu parallel %4llu | answered by GMMU %4llu, "
           "IOMMU %4llu | wasted walks %4llu | mean latency %6.1f cycles\n",
           name, (unsigned long long)s->routed[XLAT_GMMU_ROUTE_LOCAL],
           (unsigned long long)s->routed[XLAT_GMMU_ROUTE_BYPASS],
           (unsigned long long)s->routed[XLAT_GMMU_ROUTE_PARALLEL], (unsigned long long)s->local,
           (unsigned long long)s->remote, (unsigned long long)s->wasted_walks, mean);
}

int main(void)
{
    xlat_gmmu_stats central, dynamic;
    double central_mean, dynamic_mean;
    if (run(XLAT_GMMU_CENTRALIZED, &central, &central_mean) != EXIT_SUCCESS ||
        run(XLAT_GMMU_DYNAMIC, &dynamic, &dynamic_mean) != EXIT_SUCCESS)
        return EXIT_FAILURE;
    printf("%d GPUs, %d own pages then %d remote pages each:\n", GPUS, PAGES, PAGES);
    print("centralized", &central, central_mean);
    print("dynamic", &dynamic, dynamic_mean);
    /* §4: local walks while locality is high, the IOMMU alone once it is low. */
    if (!(dynamic_mean < central_mean && dynamic.routed[XLAT_GMMU_ROUTE_LOCAL] > 0 &&
          dynamic.routed[XLAT_GMMU_ROUTE_BYPASS] > 0 && dynamic.local > 0)) {
        fprintf(stderr, "the dynamic GMMU did not route both ways and beat the centralized one\n");
        return EXIT_FAILURE;
    }
    printf("dynamic bypass: %.0f%% lower mean latency\n", 100.0 * (1.0 - dynamic_mean / central_mean));
    return EXIT_SUCCESS;
}
