/*
 * Four GPUs sharing pages over one IOMMU: the mostly-inclusive baseline
 * against least-TLB ("Improving Address Translation in Multi-GPUs via
 * Sharing and Spilling aware TLB Design"), on the same request stream,
 * both built by xlat_system_create(). least-TLB keeps the L2 TLBs' victims
 * in the IOMMU TLB instead of copies of what the L2s hold (§4.1), and its
 * Local TLB tracker sends a miss to the GPU whose L2 holds the page (§4.2),
 * so the shared pages are walked less. The program checks that it is so.
 *
 *   cc iommu_least_tlb.c $(pkg-config --cflags --libs libxlat) -o iommu_least_tlb
 */
#include <stdio.h>
#include <stdlib.h>

#include <xlat/xlat.h>

#define GPUS 4
#define CUS 2
#define PAGES 96        /* the shared footprint, in 4 KiB pages */
#define BASE 0x40000000ull
#define STRIDE 24      /* pages between two GPUs' starting points */

typedef struct result {
    xlat_tlb_stats l1, l2;   /* summed over the GPUs */
    xlat_iommu_stats iommu;
} result;

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    return EXIT_FAILURE;
}

static void on_done(void *user, const xlat_resp *r)
{
    int *answered = user;
    if (r->status == XLAT_OK)
        (*answered)++;
}

static void add(xlat_tlb_stats *sum, const xlat_tlb_stats *s)
{
    sum->accesses += s->accesses;
    sum->hits += s->hits;
}

/* Each GPU sweeps the shared pages from its own starting point, a quarter
 * of the footprint from the next GPU's, four times over: more pages than
 * one L2 or the IOMMU TLB holds, fewer than the L2s and the IOMMU TLB hold
 * together. Each page is read twice in a row by one CU, the second time an
 * L1 hit. */
static int run(xlat_incl incl, result *out)
{
    xlat_ctx *ctx;
    if (xlat_ctx_create(NULL, &ctx) != XLAT_OK)
        return EXIT_FAILURE;
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_physmem *mem;
    if (xlat_physmem_create(ctx, &pc, &mem) != XLAT_OK)
        return fail(ctx, "physmem");
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = mem;
    xlat_pagetable *pt;
    if (xlat_pagetable_create(ctx, &tc, &pt) != XLAT_OK)
        return fail(ctx, "pagetable");
    /* One call maps the whole range on frames the placement chooses. */
    if (xlat_pagetable_map_range(pt, 1, BASE, PAGES * 4096, 0, XLAT_PERM_R | XLAT_PERM_W) != PAGES)
        return fail(ctx, "map_range");

    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.tlb_entries = 64; /* small TLBs, so that the footprint does not fit in one */
    ic.tlb_ways = 16;
    ic.inclusion = incl;
    xlat_tlb_config l2;
    xlat_system_l2_config_init(&l2);
    l2.entries = 32;
    l2.ways = 8;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = GPUS;
    sc.cus = CUS;
    sc.l2 = &l2;
    sc.iommu = &ic;
    sc.gpu_iommu_latency = 300;
    xlat_system *sys;
    if (xlat_system_create(ctx, &sc, &sys) != XLAT_OK)
        return fail(ctx, "system");

    /* One request at a time, each answered before the next is sent. */
    int answered = 0, sent = 0;
    for (int round = 0; round < 4; round++)
        for (uint32_t i = 0; i < PAGES; i++)
            for (uint32_t g = 0; g < GPUS; g++)
                for (uint32_t twice = 0; twice < 2; twice++) {
                    uint64_t page = (i + g * STRIDE) % PAGES;
                    xlat_req req = {.id = (uint64_t)sent, .vaddr = BASE + page * 4096 + twice * 64,
                                    .pasid = 1, .gpu = (uint16_t)g, .cu = (uint16_t)(i % CUS)};
                    if (xlat_system_translate(sys, &req, on_done, &answered) != XLAT_OK)
                        return fail(ctx, "translate");
                    sent++;
                    while (answered < sent && xlat_next_event(ctx) != XLAT_NEVER)
                        xlat_advance(ctx, xlat_next_event(ctx) - xlat_now(ctx));
                }
    if (answered != sent) {
        fprintf(stderr, "%d of %d requests answered\n", answered, sent);
        return EXIT_FAILURE;
    }

    *out = (result){0};
    for (uint32_t g = 0; g < GPUS; g++) {
        xlat_tlb_stats s;
        for (uint32_t c = 0; c < CUS; c++) {
            xlat_tlb_stats_get(xlat_system_l1(sys, g, c), &s, sizeof(s));
            add(&out->l1, &s);
        }
        xlat_tlb_stats_get(xlat_system_l2(sys, g), &s, sizeof(s));
        add(&out->l2, &s);
    }
    xlat_iommu_stats_get(xlat_system_iommu(sys), &out->iommu, sizeof(out->iommu));

    xlat_system_destroy(sys);
    xlat_pagetable_destroy(pt);
    xlat_physmem_destroy(mem);
    xlat_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}

static double rate(uint64_t hits, uint64_t accesses)
{
    return accesses ? 100.0 * (double)hits / (double)accesses : 0.0;
}

static void print(const char *name, const result *r)
{
    printf("%-10s L1 %5.1f%%  L2 %5.1f%%  IOMMU TLB %5.1f%%  remote hits %4llu  walks %4llu (%llu answered first)\n",
           name, rate(r->l1.hits, r->l1.accesses), rate(r->l2.hits, r->l2.accesses),
           rate(r->iommu.tlb_hits, r->iommu.requests), (unsigned long long)r->iommu.remote_hits,
           (unsigned long long)r->iommu.walks, (unsigned long long)r->iommu.walk_answers);
}

int main(void)
{
    result base, least;
    if (run(XLAT_INCL_MOSTLY, &base) != EXIT_SUCCESS || run(XLAT_INCL_LEAST, &least) != EXIT_SUCCESS)
        return EXIT_FAILURE;
    printf("%d GPUs sharing %d pages, %llu requests each:\n", GPUS, PAGES,
           (unsigned long long)(base.l1.accesses / GPUS));
    print("baseline", &base);
    print("least-TLB", &least);
    /* least-TLB starts a walk beside a tracker-directed probe and keeps
     * whichever answers first (Algorithm 1), so both counts matter. */
    if (least.iommu.walks >= base.iommu.walks || least.iommu.remote_hits == 0 ||
        base.iommu.remote_hits != 0) {
        fprintf(stderr, "least-TLB did not walk less than the baseline\n");
        return EXIT_FAILURE;
    }
    printf("least-TLB walks %llu fewer times\n",
           (unsigned long long)(base.iommu.walks - least.iommu.walks));
    return EXIT_SUCCESS;
}
