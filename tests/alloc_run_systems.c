/*
 * Scenarios of whole hierarchies for the allocation-failure loops
 * (tests/alloc_run.h): an IOMMU with its GPUs' L2 TLBs, multi-GPU systems
 * under every inclusion policy, with a probing ring and with GMMUs, and
 * Barre Chord's MCM-GPU (group allocator, PEC buffer, F-Barre units). The
 * frame each request must get is the page table's at the time it is sent.
 */
#include <stdlib.h>
#include <xlat/mcm.h>

#include "alloc_run.h"

#define SYS_GPUS 2
#define SYS_CUS 2
#define SYS_PAGES 64
#define SYS_MAPPED 48 /* of the IOMMU scenario's; the others map 3/4 of theirs too */

static uint64_t expected(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr)
{
    xlat_tlb_entry e;
    return xlat_pagetable_lookup(pt, pasid, vaddr, &e) == XLAT_OK ? e.pfn : AR_FAULT;
}

static void map_pasid(ar_run *r, xlat_pagetable *pt, uint32_t pasid, uint64_t first,
                      uint64_t n)
{
    for (uint64_t vpn = first; vpn < first + n; vpn++)
        (void)AR_TRY(r, "pagetable map",
                     xlat_pagetable_map(pt, pasid, vpn << 12, AR_PFN(vpn), 12,
                                        XLAT_PERM_R | XLAT_PERM_W));
}

static int system_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_system_translate(unit, req, done, user);
}

typedef struct sys_opts {
    xlat_incl incl;
    bool multi_app, probe_ring, gmmu;
    uint32_t cus, l2_mshrs, pages; /* 0: SYS_CUS, 4, SYS_PAGES */
} sys_opts;

/* `n` requests from every GPU and CU over `pasids` address spaces, with an
 * invalidation and a GPU flush half way, drained. */
static void system_traffic(ar_run *r, xlat_system *sys, xlat_pagetable *pt, uint32_t pasids,
                           const sys_opts *o, int n)
{
    ar_run_begin(r);
    for (int i = 0; i < n; i++) {
        uint64_t vpn = (uint64_t)(i * 13) % o->pages;
        xlat_req req = {.vaddr = vpn << 12, .pasid = 1 + (uint32_t)i % pasids,
                        .access = XLAT_ACCESS_READ, .gpu = (uint16_t)(i % SYS_GPUS),
                        .cu = (uint16_t)(i / SYS_GPUS % o->cus)};
        ar_send_taken(r, system_translate, sys, &req, expected(pt, req.pasid, req.vaddr));
        if (i % 8 == 7)
            AR_OK(xlat_advance(r->ctx, 5));
        if (i == n / 2) {
            AR_ASSERT(xlat_system_invalidate(sys, 1, 13 << 12) >= 0);
            AR_ASSERT(xlat_system_flush_gpu(sys, 1) >= 0);
        }
    }
    ar_drain(r);
    ar_run_end(r);
}

static void iommu_templates(xlat_iommu_config *ic, xlat_walker_config *wc, xlat_pagetable *pt,
                            xlat_incl incl)
{
    xlat_iommu_walker_config_init(wc);
    wc->pt = pt;
    wc->walkers = 4;
    wc->mem_latency = 20;
    xlat_iommu_config_init(ic);
    ic->walk = wc;
    ic->buffer_entries = 16;
    ic->tlb_entries = 32;
    ic->tlb_ways = 4;
    ic->tlb_latency = 10;
    ic->inclusion = incl;
    ic->remote_latency = 30;
    ic->tracker_entries = 64;
}

static void l2_template(xlat_tlb_config *l2)
{
    xlat_system_l2_config_init(l2);
    l2->entries = 16;
    l2->ways = 4;
    l2->latency = 5;
    l2->mshrs = 4;
}

/* The IOMMU alone, as least-TLB's walk-throughs wire it: each GPU's L2
 * over it, attached to it. */
static void iommu_scenario(ar_run *r, xlat_incl incl)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_iommu *iommu = NULL;
    xlat_tlb *l2[SYS_GPUS] = {NULL};
    xlat_target t[SYS_GPUS];
    uint32_t built = 0;
    if (ar_table(r, &mem, &pt)) {
        map_pasid(r, pt, AR_PASID, 0, SYS_MAPPED);
        xlat_iommu_config ic;
        xlat_walker_config wc;
        iommu_templates(&ic, &wc, pt, incl);
        xlat_tlb_config lc;
        l2_template(&lc);
        xlat_target it = XLAT_TARGET_INIT;
        if (AR_TRY(r, "iommu create", xlat_iommu_create(r->ctx, &ic, &iommu)) &&
            AR_TRY(r, "iommu target", xlat_iommu_get_target(iommu, &it)))
            for (; built < SYS_GPUS; built++) {
                t[built] = (xlat_target)XLAT_TARGET_INIT;
                if (!AR_TRY(r, "tlb create", xlat_tlb_create(r->ctx, &lc, &l2[built])) ||
                    !AR_TRY(r, "tlb set_next", xlat_tlb_set_next(l2[built], &it)) ||
                    !AR_TRY(r, "attach_l2", xlat_iommu_attach_l2(iommu, built, l2[built])) ||
                    !AR_TRY(r, "tlb target", xlat_tlb_get_target(l2[built], &t[built])))
                    break;
            }
    }
    if (built == SYS_GPUS) {
        ar_run_begin(r);
        for (int i = 0; i < 300; i++) {
            uint64_t vpn = (uint64_t)(i * 11) % SYS_PAGES;
            xlat_req req = {.vaddr = vpn << 12, .pasid = AR_PASID, .gpu = (uint16_t)(i % 2)};
            while (ar_send_target(r, &t[i % 2], &req, expected(pt, AR_PASID, req.vaddr)) ==
                   XLAT_ERR_AGAIN)
                AR_OK(xlat_tick(r->ctx));
            if (i % 8 == 7)
                AR_OK(xlat_advance(r->ctx, 7));
        }
        ar_drain(r);
        ar_run_end(r);
    }
    for (uint32_t g = 0; g < SYS_GPUS; g++)
        AR_OK(xlat_tlb_destroy(l2[g]));
    AR_OK(xlat_iommu_destroy(iommu));
    ar_table_destroy(mem, pt);
}

void ar_scenario_iommu_least(ar_run *r) { iommu_scenario(r, XLAT_INCL_LEAST); }
void ar_scenario_iommu_exclusive(ar_run *r) { iommu_scenario(r, XLAT_INCL_EXCLUSIVE); }

/* GPU g's local table of a GMMU system: its half of the pages. */
static bool local_tables(ar_run *r, xlat_physmem *mem, xlat_pagetable **local)
{
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = mem;
    for (uint32_t g = 0; g < SYS_GPUS; g++) {
        if (!AR_TRY(r, "pagetable create", xlat_pagetable_create(r->ctx, &tc, &local[g])))
            return false;
        map_pasid(r, local[g], AR_PASID, g * SYS_MAPPED / SYS_GPUS, SYS_MAPPED / SYS_GPUS);
    }
    return true;
}

/* Every template of a system; sc's pointers lead into the struct. */
typedef struct sys_templates {
    xlat_iommu_config ic;
    xlat_walker_config wc, gw;
    xlat_tlb_config l1, l2;
    xlat_gmmu_config gc;
    xlat_system_config sc;
} sys_templates;

static void system_templates(sys_templates *t, xlat_pagetable *pt, xlat_pagetable **local,
                             const sys_opts *o)
{
    iommu_templates(&t->ic, &t->wc, pt, o->incl);
    t->ic.multi_app = o->multi_app;
    xlat_system_l1_config_init(&t->l1);
    t->l1.entries = t->l1.ways = 8;
    t->l1.mshrs = 4;
    l2_template(&t->l2);
    t->l2.mshrs = o->l2_mshrs;
    xlat_walker_config_init(&t->gw);
    t->gw.walkers = 2;
    t->gw.mem_latency = 10;
    xlat_gmmu_config_init(&t->gc);
    t->gc.mode = XLAT_GMMU_DYNAMIC;
    t->gc.initial_route = XLAT_GMMU_ROUTE_PARALLEL;
    t->gc.epoch_cycles = 300;
    t->gc.local_base = AR_PFN(0) << 12;
    t->gc.local_size = (uint64_t)SYS_MAPPED << 12;
    xlat_system_config_init(&t->sc);
    t->sc.gpus = SYS_GPUS;
    t->sc.cus = o->cus;
    t->sc.l1 = &t->l1;
    t->sc.l2 = &t->l2;
    t->sc.iommu = &t->ic;
    t->sc.gpu_iommu_latency = 20;
    t->sc.probe_ring = o->probe_ring;
    t->sc.probe_latency = 8;
    t->sc.gmmu = o->gmmu;
    t->sc.local_pt = o->gmmu ? local : NULL;
    t->sc.gmmu_walk = &t->gw;
    t->sc.gmmu_cfg = &t->gc;
}

static void system_scenario(ar_run *r, sys_opts o)
{
    o.cus = o.cus ? o.cus : SYS_CUS;
    o.l2_mshrs = o.l2_mshrs ? o.l2_mshrs : 4;
    o.pages = o.pages ? o.pages : SYS_PAGES;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pagetable *local[SYS_GPUS] = {NULL};
    xlat_system *sys = NULL;
    uint32_t pasids = o.multi_app ? 2 : 1;
    if (ar_table(r, &mem, &pt) && (!o.gmmu || local_tables(r, mem, local))) {
        for (uint32_t p = 1; p <= pasids; p++)
            map_pasid(r, pt, p, 0, o.pages * 3 / 4);
        sys_templates t;
        system_templates(&t, pt, local, &o);
        if (AR_TRY(r, "system create", xlat_system_create(r->ctx, &t.sc, &sys)))
            system_traffic(r, sys, pt, pasids, &o, 300);
    }
    AR_OK(xlat_system_destroy(sys));
    for (uint32_t g = 0; g < SYS_GPUS; g++)
        AR_OK(xlat_pagetable_destroy(local[g]));
    ar_table_destroy(mem, pt);
}

void ar_scenario_system_mostly(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_MOSTLY});
}

void ar_scenario_system_inclusive(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_INCLUSIVE});
}

void ar_scenario_system_exclusive(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_EXCLUSIVE});
}

void ar_scenario_system_least(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_LEAST});
}

void ar_scenario_system_least_multi_app(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_LEAST, .multi_app = true});
}

void ar_scenario_system_probe_ring(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_MOSTLY, .probe_ring = true});
}

/* More misses in flight below each L2 than a link's first 64 records: the
 * builder must reserve what the L2 can send, or the link grows inside
 * tick, where a failure answers accepted requests XLAT_ERR_NOMEM. */
void ar_scenario_system_deep(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_MOSTLY, .cus = 32, .l2_mshrs = 96,
                                  .pages = 512});
}

void ar_scenario_system_gmmu(ar_run *r)
{
    system_scenario(r, (sys_opts){.incl = XLAT_INCL_MOSTLY, .gmmu = true});
}

/* ---- Barre Chord's MCM-GPU ---------------------------------------------- */

#define MCM_CHIPLETS 4
#define MCM_OBJECTS 3
#define MCM_NODE_BASE 0x40000

typedef struct mcm_world {
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_barre_alloc *alloc;
    xlat_pec_buffer *pec;
    uint64_t base[XLAT_BARRE_MAX_CHIPLETS];
    xlat_pec_entry obj[MCM_OBJECTS];
    uint32_t objects; /* mapped */
    xlat_fbarre_config fb;
    xlat_mcm_config mcm; /* its pointers lead into itself: kept in place */
    xlat_system *sys;
} mcm_world;

/* Chiplet regions at Example 1's bases and a region for page-table nodes. */
static bool mcm_memory(ar_run *r, mcm_world *w, bool expanded)
{
    xlat_region_config reg[MCM_CHIPLETS + 1];
    for (uint32_t g = 0; g < MCM_CHIPLETS; g++) {
        w->base[g] = 0xA000 + 0x1000 * (uint64_t)g;
        reg[g] = (xlat_region_config){.base_pfn = w->base[g], .frames = 256};
    }
    reg[MCM_CHIPLETS] = (xlat_region_config){.base_pfn = MCM_NODE_BASE, .frames = 1024};
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    pc.regions = MCM_CHIPLETS + 1;
    pc.region = reg;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.node_region = MCM_CHIPLETS;
    xlat_barre_alloc_config ac;
    xlat_barre_alloc_config_init(&ac);
    ac.chiplets = MCM_CHIPLETS;
    ac.max_merge = expanded ? 2 : 1; /* F-Barre merges groups; Barre does not */
    memcpy(ac.base_pfn, w->base, sizeof(w->base));
    xlat_pec_buffer_config bc;
    xlat_pec_buffer_config_init(&bc);
    bc.entries = MCM_OBJECTS;
    bc.expanded = expanded;
    return AR_TRY(r, "physmem create", xlat_physmem_create(r->ctx, &pc, &w->mem)) &&
           (tc.mem = ac.mem = w->mem) &&
           AR_TRY(r, "pagetable create", xlat_pagetable_create(r->ctx, &tc, &w->pt)) &&
           (ac.pt = w->pt) &&
           AR_TRY(r, "barre_alloc create", xlat_barre_alloc_create(r->ctx, &ac, &w->alloc)) &&
           AR_TRY(r, "pec_buffer create", xlat_pec_buffer_create(r->ctx, &bc, &w->pec));
}

/* LASP objects over every chiplet; a map that fails maps nothing. */
static void mcm_objects(ar_run *r, mcm_world *w)
{
    for (uint32_t i = 0; i < MCM_OBJECTS; i++) {
        xlat_barre_object o;
        xlat_barre_object_init(&o);
        o.pasid = AR_PASID;
        o.start_vpn = 0x1000 + 0x100 * (uint64_t)i;
        o.pages = 24 + 8 * (uint64_t)i;
        o.interlv_gran = 1 + i;
        if (AR_TRY(r, "barre_alloc map", xlat_barre_alloc_map(w->alloc, &o, w->pec,
                                                                &w->obj[w->objects]))) {
            w->objects++;
            continue;
        }
        for (uint64_t vpn = o.start_vpn; vpn < o.start_vpn + o.pages; vpn++)
            AR_ASSERT(expected(w->pt, AR_PASID, vpn << 12) == AR_FAULT);
    }
}

static bool mcm_system(ar_run *r, mcm_world *w, bool fbarre)
{
    AR_OK(xlat_mcm_preset(&w->mcm, XLAT_MCM_BASELINE));
    /* The preset's sizes are a paper's; a few entries do here, and keep each
     * of the hundreds of runs short. */
    w->mcm.system.cus = 2;
    w->mcm.l1.entries = w->mcm.l1.ways = 8;
    w->mcm.l1.mshrs = 4;
    w->mcm.l2.entries = 32;
    w->mcm.l2.ways = 4;
    w->mcm.l2.mshrs = 8;
    w->mcm.iommu.tlb_entries = 64;
    w->mcm.iommu.tlb_ways = 8;
    w->mcm.walk.walkers = 4;
    w->mcm.walk.queue_entries = 16;
    w->mcm.walk.pt = w->pt;
    w->mcm.walk.pec = w->pec;
    w->mcm.walk.pec_base_pfn = w->base;
    w->mcm.walk.pec_chiplets = MCM_CHIPLETS;
    w->mcm.walk.coal_aware = true;
    w->mcm.walk.pec_expanded = fbarre;
    if (fbarre) {
        xlat_fbarre_config_init(&w->fb);
        memcpy(w->fb.base_pfn, w->base, MCM_CHIPLETS * sizeof(w->base[0]));
        w->fb.expanded = true;
        w->mcm.system.fbarre = &w->fb;
        w->mcm.system.fbarre_pec = w->pec;
    }
    return AR_TRY(r, "system create", xlat_system_create(r->ctx, &w->mcm.system, &w->sys));
}

static void mcm_traffic(ar_run *r, mcm_world *w, int n)
{
    ar_run_begin(r);
    for (int i = 0; i < n; i++) {
        uint64_t vpn = 0x1000 + 0x100 * (uint64_t)(i % MCM_OBJECTS) + (uint64_t)(i * 7) % 40;
        xlat_req req = {.vaddr = vpn << 12, .pasid = AR_PASID, .access = XLAT_ACCESS_READ,
                        .gpu = (uint16_t)(i % MCM_CHIPLETS), .cu = (uint16_t)(i / 4 % 2)};
        ar_send_taken(r, system_translate, w->sys, &req, expected(w->pt, AR_PASID, req.vaddr));
        if (i % 8 == 7)
            AR_OK(xlat_advance(r->ctx, 5));
    }
    ar_drain(r);
    ar_run_end(r);
}

/* Traffic, a migration (the page leaves its group; the system shoots its
 * old group down), traffic again: every answer is the table's. */
static void mcm_scenario(ar_run *r, bool fbarre)
{
    mcm_world *w = calloc(1, sizeof(*w));
    AR_ASSERT(w != NULL);
    if (mcm_memory(r, w, fbarre)) {
        mcm_objects(r, w);
        if (mcm_system(r, w, fbarre)) {
            mcm_traffic(r, w, 200);
            if (w->objects > 0) {
                ar_mark(r);
                int rc = xlat_system_barre_migrate(w->sys, w->alloc, &w->obj[0],
                                                   w->obj[0].start_vpn + 1, 3, NULL);
                if (rc < 0 && rc != XLAT_ERR_FULL)
                    ar_ok(r, rc, "barre migrate");
            }
            mcm_traffic(r, w, 100);
        }
    }
    AR_OK(xlat_system_destroy(w->sys));
    AR_OK(xlat_pec_buffer_destroy(w->pec));
    AR_OK(xlat_barre_alloc_destroy(w->alloc));
    AR_OK(xlat_pagetable_destroy(w->pt));
    AR_OK(xlat_physmem_destroy(w->mem));
    free(w);
}

void ar_scenario_barre(ar_run *r) { mcm_scenario(r, false); }
void ar_scenario_fbarre(ar_run *r) { mcm_scenario(r, true); }
