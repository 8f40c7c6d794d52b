/*
 * Building a run's world from its configuration, in the order the units
 * hold each other: physical memory, page tables (the IOMMU's and, with
 * GMMUs, one local table per GPU), the page walk cache, Barre's PEC buffer
 * and group allocator, then the system, which copies every template.
 */
#include <stdlib.h>
#include <string.h>

#include "world.h"

/* Frames of the region that holds every page table's nodes. */
#define NODE_FRAMES (1ull << 18)
/* GPU memories start here, each `frames_per_gpu` frames, aligned so a
 * region's first frame is the base Barre's allocator and F-Barre need. */
#define FIRST_GPU_PFN (1ull << 20)

static int lib_fail(const sim_world *w, sim_error *err, const char *what, int rc)
{
    return sim_fail(err, "%s: %s (%s)", what, xlat_ctx_errmsg(w->ctx), xlat_strerror(rc));
}

/* Regions 0..gpus-1 are the GPUs' (chiplets') memories, region `gpus` the
 * page tables' nodes; with 64 GPUs there is no room for it and the nodes
 * live in GPU 0's memory. */
static int build_memory(sim_world *w, sim_error *err)
{
    const sim_memory_knobs *m = &w->cfg.mem;
    uint64_t stride = (m->frames_per_gpu + FIRST_GPU_PFN - 1) / FIRST_GPU_PFN * FIRST_GPU_PFN;
    for (uint32_t g = 0; g < w->gpus; g++) {
        w->base_pfn[g] = FIRST_GPU_PFN + (uint64_t)g * stride;
        w->region[g] = (xlat_region_config){.base_pfn = w->base_pfn[g], .frames = m->frames_per_gpu};
    }
    uint32_t regions = w->gpus, node_region = 0;
    if (w->gpus < XLAT_PHYSMEM_MAX_REGIONS) {
        node_region = regions++;
        w->region[node_region] = (xlat_region_config){.base_pfn = 0x1000, .frames = NODE_FRAMES};
    }
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = regions;
    pc.region = w->region;
    pc.placement = m->placement;
    pc.chunk_pages = m->chunk_pages;
    int rc = xlat_physmem_create(w->ctx, &pc, &w->mem);
    if (rc != XLAT_OK)
        return lib_fail(w, err, "[memory] physical memory", rc);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = w->mem;
    tc.levels = m->levels;
    tc.page_shift = m->page_shift;
    tc.node_region = node_region;
    if ((rc = xlat_pagetable_create(w->ctx, &tc, &w->pt)) != XLAT_OK)
        return lib_fail(w, err, "[memory] page table", rc);
    for (uint32_t g = 0; w->cfg.gmmu && g < w->gpus; g++)
        if ((rc = xlat_pagetable_create(w->ctx, &tc, &w->local_pt[g])) != XLAT_OK)
            return lib_fail(w, err, "[gmmu] local page table", rc);
    return 0;
}

/* The PEC buffer and the group allocator, their layouts agreeing. */
static int build_barre(sim_world *w, sim_error *err)
{
    const sim_barre_knobs *b = &w->cfg.barre;
    xlat_pec_buffer_config bc;
    xlat_pec_buffer_config_init(&bc);
    bc.entries = b->pec_entries;
    bc.expanded = b->max_merge > 1;
    int rc = xlat_pec_buffer_create(w->ctx, &bc, &w->pec);
    if (rc != XLAT_OK)
        return lib_fail(w, err, "[barre] PEC buffer", rc);
    xlat_barre_alloc_config ac;
    xlat_barre_alloc_config_init(&ac);
    ac.mem = w->mem;
    ac.pt = w->pt;
    ac.chiplets = w->gpus;
    ac.max_merge = b->max_merge;
    if (w->gpus > XLAT_BARRE_MAX_CHIPLETS)
        return sim_fail(err, "[barre] enable: %u GPUs, Barre's allocator takes 1..%u chiplets",
                        w->gpus, XLAT_BARRE_MAX_CHIPLETS);
    memcpy(ac.base_pfn, w->base_pfn, w->gpus * sizeof(w->base_pfn[0]));
    if ((rc = xlat_barre_alloc_create(w->ctx, &ac, &w->alloc)) != XLAT_OK)
        return lib_fail(w, err, "[barre] group allocator", rc);
    xlat_walker_config *wc = &w->cfg.iommu_walk;
    wc->pec = w->pec;
    wc->pec_base_pfn = w->base_pfn;
    wc->pec_chiplets = w->gpus;
    wc->pec_expanded = bc.expanded;
    if (b->fbarre) {
        xlat_fbarre_config *fb = &w->cfg.fbarre;
        memcpy(fb->base_pfn, w->base_pfn, w->gpus * sizeof(w->base_pfn[0]));
        fb->expanded = bc.expanded;
        w->cfg.system.fbarre = fb;
        w->cfg.system.fbarre_pec = w->pec;
    }
    return 0;
}

/* The dynamic GMMU's locality test: does the IOMMU's answer lie in GPU
 * gpu's memory? */
static bool gmmu_is_local(void *user, uint32_t gpu, uint64_t paddr)
{
    const sim_world *w = user;
    uint32_t region;
    return xlat_physmem_region_of(w->mem, paddr >> 12, &region) == XLAT_OK && region == gpu;
}

/* The ideal GMMU's oracle: where the request's page lives. */
static bool gmmu_oracle(void *user, uint32_t gpu, const xlat_req *req)
{
    const sim_world *w = user;
    xlat_tlb_entry e;
    if (xlat_pagetable_lookup(w->pt, req->pasid, req->vaddr, &e) != XLAT_OK)
        return false;
    return gmmu_is_local(user, gpu, e.pfn << 12);
}

/* Marks the requests whose frame the IOMMU walkers' PEC logic computed. */
static void walk_trace(void *user, const xlat_walk_event *ev)
{
    sim_world *w = user;
    if (ev->kind != XLAT_WALK_PEC)
        return;
    uint64_t byte = ev->id / 8;
    if (byte >= w->pec_ids_len) {
        uint64_t len = (byte + 1) * 2;
        uint8_t *grown = realloc(w->pec_ids, len);
        if (!grown)
            return; /* the outcome then says IOMMU_WALK: the walkers did answer it */
        memset(grown + w->pec_ids_len, 0, len - w->pec_ids_len);
        w->pec_ids = grown;
        w->pec_ids_len = len;
    }
    w->pec_ids[byte] |= (uint8_t)(1u << (ev->id % 8));
}

/* Points the templates at each other and at what was built. */
static void wire_templates(sim_world *w)
{
    sim_config *c = &w->cfg;
    c->iommu_walk.pt = w->pt;
    c->iommu_walk.pwc = w->pwc;
    c->iommu_walk.dwspp = &c->dwspp;
    c->iommu_walk.trace_fn = walk_trace;
    c->iommu_walk.trace_user = w;
    c->iommu.walk = &c->iommu_walk;
    c->system.l1 = &c->l1;
    c->system.l2 = &c->l2;
    c->system.iommu = &c->iommu;
    c->system.gmmu = c->gmmu;
    if (c->gmmu) {
        c->gmmu_walk.dwspp = &c->dwspp;
        c->gmmu_cfg.is_local = gmmu_is_local;
        c->gmmu_cfg.locality_user = w;
        c->gmmu_cfg.oracle = gmmu_oracle;
        c->gmmu_cfg.oracle_user = w;
        c->system.local_pt = w->local_pt;
        c->system.gmmu_walk = &c->gmmu_walk;
        c->system.gmmu_cfg = &c->gmmu_cfg;
    }
}

static int build_units(sim_world *w, sim_error *err)
{
    int rc;
    if (w->cfg.iommu_pwc && (rc = xlat_pwc_create(w->ctx, &w->cfg.pwc, &w->pwc)) != XLAT_OK)
        return lib_fail(w, err, "[pwc] page walk cache", rc);
    if (w->cfg.barre.enable && build_barre(w, err) != 0)
        return -1;
    if (w->cfg.barre.fbarre && !w->cfg.barre.enable)
        return sim_fail(err, "[barre] fbarre = true needs [barre] enable = true");
    wire_templates(w);
    if ((rc = xlat_system_create(w->ctx, &w->cfg.system, &w->sys)) != XLAT_OK)
        return lib_fail(w, err, "[system]", rc);
    return 0;
}

int sim_world_build(sim_world *w, const sim_config *cfg, sim_error *err)
{
    memset(w, 0, sizeof(*w));
    w->cfg = *cfg;
    w->gpus = cfg->system.gpus;
    if (w->gpus == 0 || w->gpus > 64)
        return sim_fail(err, "[system] gpus: %u is out of range (1..64)", w->gpus);
    xlat_ctx_config cc;
    xlat_ctx_config_init(&cc);
    cc.seed = cfg->run.seed;
    int rc = xlat_ctx_create(&cc, &w->ctx);
    if (rc != XLAT_OK)
        return sim_fail(err, "cannot create a context: %s", xlat_strerror(rc));
    if (build_memory(w, err) != 0 || build_units(w, err) != 0 ||
        sim_world_roles(w, err) != 0) {
        sim_world_destroy(w);
        return -1;
    }
    return 0;
}

void sim_world_destroy(sim_world *w)
{
    if (w->ctx)
        xlat_ctx_destroy(w->ctx); /* takes every unit, whatever holds what */
    free(w->mapped.keys);
    free(w->roles);
    free(w->pec_ids);
    memset(w, 0, sizeof(*w));
}
