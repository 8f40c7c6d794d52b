/*
 * Barre Chord on an MCM-GPU ("Barre Chord: Efficient Virtual Memory
 * Translation for Multi-Chip-Module GPUs"): four chiplets of Table II's
 * MCM-GPU (xlat_mcm_preset()) share one data object that the group
 * allocator (xlat_barre_alloc_map(), §IV-G) lays out in coalescing groups,
 * one page per chiplet on the same local frame, its PEC entry in a PEC
 * buffer. The same stream runs three times:
 *   baseline  every chiplet's miss crosses PCIe and is walked;
 *   Barre     the IOMMU's walkers run the PEC logic (§IV-E): one walk gives
 *             the frames of the whole group, answering the members' waiting
 *             requests without their own walks;
 *   F-Barre   a unit per chiplet (§V-A) computes a frame from a group member
 *             its own L2 holds (a local hit) or a peer's does (a peer hit),
 *             without crossing PCIe at all.
 * The program checks that every answer is the page table's frame and that
 * Barre walks less than the baseline and F-Barre less than Barre.
 *
 *   cc barre_mcm.c $(pkg-config --cflags --libs libxlat) -o barre_mcm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlat/xlat.h>

#define CHIPLETS 4
#define GROUPS 64                    /* the object: GROUPS x CHIPLETS pages */
#define START_VPN 0x100ull

typedef enum { BASELINE, BARRE, FBARRE } variant;
static const char *const names[] = {"baseline", "Barre", "F-Barre"};

typedef struct world {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_barre_alloc *alloc;
    xlat_pec_buffer *pec;
    xlat_system *sys;
    uint64_t base[CHIPLETS];         /* each chiplet's first frame */
    uint64_t sent, answered, wrong;
} world;

typedef struct result {
    uint64_t requests, ats, walks, pec_answers, local_hits, peer_hits;
} result;

static int fail(xlat_ctx *ctx, const char *what)
{
    fprintf(stderr, "%s: %s\n", what, xlat_ctx_errmsg(ctx));
    return EXIT_FAILURE;
}

/* Each chiplet's memory a region, the page tables' nodes one more; the
 * allocator places the object, its PEC entry going into the buffer. */
static int build_memory(world *w)
{
    xlat_region_config r[CHIPLETS + 1];
    for (uint32_t g = 0; g < CHIPLETS; g++) {
        w->base[g] = 0x100000 + 0x100000 * (uint64_t)g;
        r[g] = (xlat_region_config){.base_pfn = w->base[g], .frames = 4096};
    }
    r[CHIPLETS] = (xlat_region_config){.base_pfn = 0x1000, .frames = 4096};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = CHIPLETS + 1;
    pc.region = r;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.node_region = CHIPLETS;
    xlat_barre_alloc_config ac;
    xlat_barre_alloc_config_init(&ac);
    ac.chiplets = CHIPLETS;
    ac.max_merge = 1; /* Barre's PTE layout, no expansion (the PEC logic's default) */
    memcpy(ac.base_pfn, w->base, sizeof(w->base));
    xlat_pec_buffer_config bc;
    xlat_pec_buffer_config_init(&bc);
    if (xlat_physmem_create(w->ctx, &pc, &w->mem) != XLAT_OK)
        return fail(w->ctx, "physmem");
    tc.mem = ac.mem = w->mem;
    if (xlat_pagetable_create(w->ctx, &tc, &w->pt) != XLAT_OK)
        return fail(w->ctx, "pagetable");
    ac.pt = w->pt;
    if (xlat_barre_alloc_create(w->ctx, &ac, &w->alloc) != XLAT_OK ||
        xlat_pec_buffer_create(w->ctx, &bc, &w->pec) != XLAT_OK)
        return fail(w->ctx, "allocator");
    xlat_barre_object o;
    xlat_barre_object_init(&o); /* LASP, one page per chiplet per round */
    o.pasid = 1;
    o.start_vpn = START_VPN;
    o.pages = GROUPS * CHIPLETS;
    if (xlat_barre_alloc_map(w->alloc, &o, w->pec, NULL) != XLAT_OK)
        return fail(w->ctx, "barre_alloc_map");
    return EXIT_SUCCESS;
}

static int build_system(world *w, variant v)
{
    static xlat_mcm_config mcm; /* its pointers lead into itself */
    static xlat_fbarre_config fb;
    if (xlat_mcm_preset(&mcm, XLAT_MCM_BASELINE) != XLAT_OK)
        return EXIT_FAILURE;
    mcm.system.cus = 2;
    mcm.walk.pt = w->pt;
    if (v != BASELINE) { /* the IOMMU's PEC logic */
        mcm.walk.pec = w->pec;
        mcm.walk.pec_base_pfn = w->base;
        mcm.walk.pec_chiplets = CHIPLETS;
        /* §V-C: a member of a group being walked waits for that walk
         * instead of taking a walker of its own */
        mcm.walk.coal_aware = true;
    }
    if (v == FBARRE) {
        xlat_fbarre_config_init(&fb);
        memcpy(fb.base_pfn, w->base, sizeof(w->base));
        mcm.system.fbarre = &fb;
        mcm.system.fbarre_pec = w->pec;
    }
    if (xlat_system_create(w->ctx, &mcm.system, &w->sys) != XLAT_OK)
        return fail(w->ctx, "system");
    return EXIT_SUCCESS;
}

/* Every answer is checked against the page table. */
static void on_done(void *user, const xlat_resp *r)
{
    world *w = user;
    xlat_tlb_entry e;
    w->answered++;
    if (r->status != XLAT_OK || xlat_pagetable_lookup(w->pt, 1, r->vaddr, &e) != XLAT_OK ||
        e.pfn != r->pfn)
        w->wrong++;
}

static int send(world *w, uint32_t gpu, uint64_t vpn)
{
    xlat_req req = {.id = w->sent, .vaddr = vpn << 12, .pasid = 1, .gpu = (uint16_t)gpu,
                    .cu = (uint16_t)(vpn % 2)};
    int rc;
    while ((rc = xlat_system_translate(w->sys, &req, on_done, w)) == XLAT_ERR_AGAIN)
        xlat_tick(w->ctx);
    if (rc != XLAT_OK)
        return fail(w->ctx, "translate");
    w->sent++;
    return EXIT_SUCCESS;
}

/* Phase 0: group k's chiplets each ask for their own member at once, but
 * of the odd groups only chiplet 0 does; phase 1: every chiplet asks for its
 * neighbour's member of every group. */
static int run_stream(world *w)
{
    for (uint32_t phase = 0; phase < 2; phase++) {
        for (uint64_t k = 0; k < GROUPS; k++) {
            for (uint32_t g = 0; g < CHIPLETS; g++)
                if ((phase || k % 2 == 0 || g == 0) &&
                    send(w, g, START_VPN + k * CHIPLETS + (g + phase) % CHIPLETS) != EXIT_SUCCESS)
                    return EXIT_FAILURE;
        }
        while (xlat_next_event(w->ctx) != XLAT_NEVER)
            xlat_advance(w->ctx, xlat_next_event(w->ctx) - xlat_now(w->ctx));
    }
    if (w->answered != w->sent || w->wrong) {
        fprintf(stderr, "%llu of %llu answered, %llu wrong\n", (unsigned long long)w->answered,
                (unsigned long long)w->sent, (unsigned long long)w->wrong);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

static void collect(const world *w, result *r)
{
    xlat_iommu_stats is;
    xlat_walker_stats ws;
    xlat_iommu_stats_get(xlat_system_iommu(w->sys), &is, sizeof(is));
    xlat_walker_stats_get(xlat_iommu_walker(xlat_system_iommu(w->sys)), &ws, sizeof(ws));
    /* The IOMMU hands every ATS request to its walkers; those started on a
     * walker are the walks, the PEC logic answers others from a walk. */
    *r = (result){.requests = w->sent, .ats = is.requests, .walks = ws.walks, .pec_answers = ws.pec_answers};
    for (uint32_t g = 0; g < CHIPLETS; g++) {
        xlat_fbarre *fb = xlat_system_fbarre(w->sys, g);
        xlat_fbarre_stats fs;
        if (!fb)
            continue;
        xlat_fbarre_stats_get(fb, &fs, sizeof(fs));
        r->local_hits += fs.local_hits;
        r->peer_hits += fs.peer_hits;
    }
}

static int run(variant v, result *r)
{
    world w = {0};
    if (xlat_ctx_create(NULL, &w.ctx) != XLAT_OK)
        return EXIT_FAILURE;
    int rc = build_memory(&w);
    if (rc == EXIT_SUCCESS)
        rc = build_system(&w, v);
    if (rc == EXIT_SUCCESS)
        rc = run_stream(&w);
    if (rc == EXIT_SUCCESS)
        collect(&w, r);
    xlat_system_destroy(w.sys);
    xlat_pec_buffer_destroy(w.pec);
    xlat_barre_alloc_destroy(w.alloc);
    xlat_pagetable_destroy(w.pt);
    xlat_physmem_destroy(w.mem);
    xlat_ctx_destroy(w.ctx);
    return rc;
}

int main(void)
{
    result r[3];
    for (variant v = BASELINE; v <= FBARRE; v++)
        if (run(v, &r[v]) != EXIT_SUCCESS)
            return EXIT_FAILURE;
    printf("%d chiplets, one object of %d coalescing groups, %llu requests:\n", CHIPLETS, GROUPS,
           (unsigned long long)r[BASELINE].requests);
    for (variant v = BASELINE; v <= FBARRE; v++)
        printf("%-9s ATS requests %4llu  walks %4llu  PEC answers %4llu  "
               "F-Barre local hits %4llu  peer hits %4llu\n",
               names[v], (unsigned long long)r[v].ats, (unsigned long long)r[v].walks,
               (unsigned long long)r[v].pec_answers,
               (unsigned long long)r[v].local_hits, (unsigned long long)r[v].peer_hits);
    if (!(r[BARRE].walks < r[BASELINE].walks && r[FBARRE].walks < r[BARRE].walks &&
          r[BARRE].pec_answers > 0 && r[FBARRE].local_hits + r[FBARRE].peer_hits > 0)) {
        fprintf(stderr, "Barre and F-Barre did not cut the walks\n");
        return EXIT_FAILURE;
    }
    printf("walks: Barre %.0f%%, F-Barre %.0f%% of the baseline's\n",
           100.0 * (double)r[BARRE].walks / (double)r[BASELINE].walks,
           100.0 * (double)r[FBARRE].walks / (double)r[BASELINE].walks);
    return EXIT_SUCCESS;
}
