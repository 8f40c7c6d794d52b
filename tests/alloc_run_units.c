/*
 * Scenarios of single units and short chains for the allocation-failure
 * loops (tests/alloc_run.h): a TLB hierarchy over a fixed responder, a
 * link, the cuckoo filter, the page table, the page walk cache, the walker
 * under each scheduler and with coalescing, and the GMMU's three designs.
 */
#include "alloc_run.h"

bool ar_table(ar_run *r, xlat_physmem **mem, xlat_pagetable **pt)
{
    *mem = NULL;
    *pt = NULL;
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    if (!AR_TRY(r, "physmem create", xlat_physmem_create(r->ctx, &pc, mem)))
        return false;
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    tc.mem = *mem;
    return AR_TRY(r, "pagetable create", xlat_pagetable_create(r->ctx, &tc, pt));
}

void ar_table_destroy(xlat_physmem *mem, xlat_pagetable *pt)
{
    AR_OK(xlat_pagetable_destroy(pt));
    AR_OK(xlat_physmem_destroy(mem));
}

/* One map; a failure must leave the table and the memory as they were. */
static bool map_one(ar_run *r, xlat_pagetable *pt, xlat_physmem *mem, uint64_t vpn)
{
    uint64_t free_frames = mem ? xlat_physmem_free_frames(mem, 0) : 0;
    ar_mark(r);
    int rc = xlat_pagetable_map(pt, AR_PASID, vpn << 12, AR_PFN(vpn), 12,
                                XLAT_PERM_R | XLAT_PERM_W);
    if (ar_ok(r, rc, "pagetable map"))
        return true;
    xlat_tlb_entry e;
    AR_ASSERT(xlat_pagetable_lookup(pt, AR_PASID, vpn << 12, &e) == XLAT_ERR_FAULT);
    if (mem)
        AR_ASSERT(xlat_physmem_free_frames(mem, 0) == free_frames);
    return false;
}

void ar_map(ar_run *r, xlat_pagetable *pt, uint64_t n, bool *mapped)
{
    for (uint64_t vpn = 0; vpn < n; vpn++)
        mapped[vpn] = map_one(r, pt, NULL, vpn) || map_one(r, pt, NULL, vpn);
}

static int resolve(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out)
{
    (void)user;
    (void)pasid;
    out->pfn = AR_PFN(vaddr >> 12);
    return XLAT_OK;
}

bool ar_fixed(ar_run *r, uint32_t latency, xlat_fixed **out)
{
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = latency;
    fc.max_outstanding = 32; /* bounded: an unbounded pool grows in translate */
    fc.resolve = resolve;
    *out = NULL;
    return AR_TRY(r, "fixed create", xlat_fixed_create(r->ctx, &fc, out));
}

static bool tlb_make(ar_run *r, uint32_t entries, uint32_t latency, const xlat_target *next,
                     xlat_tlb **out)
{
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.entries = entries;
    c.ways = 4;
    c.latency = latency;
    c.mshrs = 4;
    *out = NULL;
    return AR_TRY(r, "tlb create", xlat_tlb_create(r->ctx, &c, out)) &&
           AR_TRY(r, "tlb set_next", xlat_tlb_set_next(*out, next));
}

/* At most this many requests in flight: a link buffers what its far side
 * refuses, and its pool of 64 grows (in translate) beyond that. */
#define WINDOW 48

/* `n` reads of pages 0..pages-1 through `t`, drained; each page maps to
 * AR_PFN(vpn) or, when mapped says it is not, faults. */
static void traffic(ar_run *r, const xlat_target *t, int n, uint64_t pages, const bool *mapped)
{
    ar_run_begin(r);
    for (int i = 0; i < n; i++) {
        while (r->taken - r->answered >= WINDOW)
            AR_OK(xlat_tick(r->ctx));
        uint64_t vpn = (uint64_t)(i * 7) % pages;
        xlat_req req = {.vaddr = vpn << 12 | 0x40, .pasid = AR_PASID,
                        .access = XLAT_ACCESS_READ, .cu = (uint16_t)(i % 4)};
        uint64_t pfn = !mapped || mapped[vpn] ? AR_PFN(vpn) : AR_FAULT;
        while (ar_send_target(r, t, &req, pfn) == XLAT_ERR_AGAIN)
            AR_OK(xlat_tick(r->ctx));
        if (i % 16 == 15)
            AR_OK(xlat_advance(r->ctx, 3));
    }
    ar_drain(r);
    ar_run_end(r);
}

/* L1 -> L2 -> fixed, driven through the deepest level that could be built. */
void ar_scenario_tlb(ar_run *r)
{
    xlat_fixed *fx;
    xlat_tlb *l1 = NULL, *l2 = NULL;
    xlat_target top = XLAT_TARGET_INIT, below = XLAT_TARGET_INIT;
    int levels = 0;
    if (ar_fixed(r, 40, &fx) && AR_TRY(r, "fixed target", xlat_fixed_get_target(fx, &top)))
        levels = 1;
    if (levels == 1 && tlb_make(r, 64, 10, &top, &l2) &&
        AR_TRY(r, "tlb target", xlat_tlb_get_target(l2, &below))) {
        top = below;
        levels = 2;
    }
    if (levels == 2 && tlb_make(r, 16, 1, &top, &l1) &&
        AR_TRY(r, "tlb target", xlat_tlb_get_target(l1, &below))) {
        top = below;
        levels = 3;
    }
    if (levels > 0)
        traffic(r, &top, 300, 96, NULL);
    AR_OK(xlat_tlb_destroy(l1));
    AR_OK(xlat_tlb_destroy(l2));
    AR_OK(xlat_fixed_destroy(fx));
}

void ar_scenario_link(ar_run *r)
{
    xlat_fixed *fx;
    xlat_link *link = NULL;
    xlat_target t = XLAT_TARGET_INIT;
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.latency = 12;
    if (ar_fixed(r, 20, &fx) && AR_TRY(r, "fixed target", xlat_fixed_get_target(fx, &t)) &&
        AR_TRY(r, "link create", xlat_link_create(r->ctx, &lc, &link)) &&
        AR_TRY(r, "link set_next", xlat_link_set_next(link, &t)) &&
        AR_TRY(r, "link target", xlat_link_get_target(link, &t)))
        traffic(r, &t, 300, 64, NULL);
    AR_OK(xlat_link_destroy(link));
    AR_OK(xlat_fixed_destroy(fx));
}

/* 96 misses of a TLB at once through `t`, whose unit below starts with 64
 * records and would grow (a hand-wired link, an unbounded fixed
 * responder): xlat_tlb_set_next() makes it reserve what the TLB's 96 MSHRs
 * can send, so the run allocates nothing, and no request is answered
 * XLAT_ERR_NOMEM. */
static void deep_misses(ar_run *r, const xlat_target *below)
{
    xlat_tlb_config c;
    xlat_tlb_config_init(&c);
    c.entries = 16;
    c.ways = 4;
    c.latency = 1;
    c.mshrs = 96;
    xlat_tlb *tlb = NULL;
    xlat_target t = XLAT_TARGET_INIT;
    if (AR_TRY(r, "tlb create", xlat_tlb_create(r->ctx, &c, &tlb)) &&
        AR_TRY(r, "tlb set_next", xlat_tlb_set_next(tlb, below)) &&
        AR_TRY(r, "tlb target", xlat_tlb_get_target(tlb, &t))) {
        size_t allocs = r->ca.allocs, failed = r->ca.failed;
        for (uint64_t vpn = 0; vpn < 96; vpn++) {
            xlat_req req = {.vaddr = vpn << 12, .pasid = AR_PASID};
            while (ar_send_target(r, &t, &req, AR_PFN(vpn)) == XLAT_ERR_AGAIN)
                AR_OK(xlat_tick(r->ctx));
        }
        ar_drain(r);
        allocs = r->ca.allocs - allocs;
        failed = r->ca.failed - failed;
        AR_CHECK(allocs == 0 && failed == 0, "%s, k=%ld: %zu allocations, %zu failed, while "
                 "96 misses ran", r->name, r->k, allocs, failed);
    }
    AR_OK(xlat_tlb_destroy(tlb));
}

void ar_scenario_link_deep(ar_run *r)
{
    xlat_fixed *fx;
    xlat_link *link = NULL;
    xlat_target t = XLAT_TARGET_INIT;
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.latency = 5;
    if (ar_fixed(r, 100, &fx) && AR_TRY(r, "fixed target", xlat_fixed_get_target(fx, &t)) &&
        AR_TRY(r, "link create", xlat_link_create(r->ctx, &lc, &link)) &&
        AR_TRY(r, "link set_next", xlat_link_set_next(link, &t)) &&
        AR_TRY(r, "link target", xlat_link_get_target(link, &t)))
        deep_misses(r, &t);
    AR_OK(xlat_link_destroy(link));
    AR_OK(xlat_fixed_destroy(fx));
}

void ar_scenario_fixed_deep(ar_run *r)
{
    xlat_fixed_config fc;
    xlat_fixed_config_init(&fc);
    fc.latency = 100; /* max_outstanding 0: unbounded, its pool starts at 64 */
    fc.resolve = resolve;
    xlat_fixed *fx = NULL;
    xlat_target t = XLAT_TARGET_INIT;
    if (AR_TRY(r, "fixed create", xlat_fixed_create(r->ctx, &fc, &fx)) &&
        AR_TRY(r, "fixed target", xlat_fixed_get_target(fx, &t)))
        deep_misses(r, &t);
    AR_OK(xlat_fixed_destroy(fx));
}

void ar_scenario_cuckoo(ar_run *r)
{
    xlat_cuckoo_config c;
    xlat_cuckoo_config_init(&c);
    xlat_cuckoo *cf = NULL;
    if (!AR_TRY(r, "cuckoo create", xlat_cuckoo_create(r->ctx, &c, &cf)))
        return;
    ar_run_begin(r);
    for (uint64_t key = 1; key <= 200; key++)
        AR_OK(xlat_cuckoo_insert(cf, key * 0x9E37));
    for (uint64_t key = 1; key <= 200; key += 2)
        AR_OK(xlat_cuckoo_remove(cf, key * 0x9E37));
    for (uint64_t key = 2; key <= 200; key += 2)
        AR_ASSERT(xlat_cuckoo_contains(cf, key * 0x9E37));
    AR_ASSERT(xlat_cuckoo_count(cf) == 100);
    ar_run_end(r);
    AR_OK(xlat_cuckoo_destroy(cf));
}

/* Maps pages one by one, then a range, protects and unmaps some: whatever
 * failed is absent, whatever succeeded is exactly as asked. */
void ar_scenario_pagetable(ar_run *r)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    bool mapped[600] = {false};
    if (ar_table(r, &mem, &pt)) {
        /* pages 1009 apart, so that most maps need a leaf node of their own */
        for (uint64_t i = 0; i < 48; i++) {
            uint64_t vpn = i * 1009;
            mapped[i] = map_one(r, pt, mem, vpn) || map_one(r, pt, mem, vpn);
        }
        ar_mark(r);
        int64_t range = xlat_pagetable_map_range(pt, 2, 0x40000000, 32 << 12, 0, XLAT_PERM_R);
        if (range < 0)
            range = ar_ok(r, (int)range, "pagetable map_range") ? 0 : range;
        for (uint64_t i = 0; i < 48; i++) {
            xlat_tlb_entry e;
            uint64_t vpn = i * 1009;
            if (!mapped[i]) {
                AR_ASSERT(xlat_pagetable_lookup(pt, AR_PASID, vpn << 12, &e) == XLAT_ERR_FAULT);
                continue;
            }
            if (i % 3 == 0)
                AR_OK(xlat_pagetable_protect(pt, AR_PASID, vpn << 12, XLAT_PERM_R));
            if (i % 5 == 0) {
                AR_OK(xlat_pagetable_unmap(pt, AR_PASID, vpn << 12));
                AR_ASSERT(xlat_pagetable_lookup(pt, AR_PASID, vpn << 12, &e) == XLAT_ERR_FAULT);
                continue;
            }
            AR_OK(xlat_pagetable_lookup(pt, AR_PASID, vpn << 12, &e));
            AR_ASSERT(e.pfn == AR_PFN(vpn));
            AR_ASSERT(!!(e.perm & XLAT_PERM_W) == (i % 3 != 0));
        }
        for (uint64_t p = 0; p < 32; p++) {
            xlat_tlb_entry e;
            int rc = xlat_pagetable_lookup(pt, 2, 0x40000000 + (p << 12), &e);
            AR_ASSERT(rc == (range == 32 ? XLAT_OK : XLAT_ERR_FAULT));
        }
    }
    ar_table_destroy(mem, pt);
}

void ar_scenario_pwc(ar_run *r)
{
    xlat_pwc_config c;
    xlat_pwc_config_init(&c);
    xlat_pwc *pwc = NULL;
    if (!AR_TRY(r, "pwc create", xlat_pwc_create(r->ctx, &c, &pwc)))
        return;
    ar_run_begin(r);
    for (uint64_t i = 0; i < 8; i++)
        AR_OK(xlat_pwc_fill(pwc, AR_PASID, i << 30, 3, 0x500 + i));
    for (uint64_t i = 0; i < 8; i++) {
        xlat_pwc_hit hit;
        AR_OK(xlat_pwc_lookup(pwc, AR_PASID, (i << 30) | 0x1234, &hit));
    }
    AR_ASSERT(xlat_pwc_lookup(pwc, 2, 0, NULL) == XLAT_ERR_NOT_FOUND);
    ar_run_end(r);
    AR_OK(xlat_pwc_destroy(pwc));
}

#define WALK_PAGES 64
#define WALK_MAPPED 48 /* pages 48..63 fault */

/* A walker (with a PWC) over a table of WALK_MAPPED pages, each mapped if
 * it could be; requests of two tenants. */
static void walker_scenario(ar_run *r, xlat_walk_sched sched, bool coalesce)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc = NULL;
    xlat_walker *w = NULL;
    bool mapped[WALK_PAGES] = {false};
    if (ar_table(r, &mem, &pt)) {
        ar_map(r, pt, WALK_MAPPED, mapped);
        xlat_pwc_config pc;
        xlat_pwc_config_init(&pc);
        xlat_walker_config wc;
        xlat_walker_config_init(&wc);
        wc.pt = pt;
        wc.walkers = 4;
        wc.queue_entries = 16;
        wc.mem_latency = 20;
        wc.sched = sched;
        wc.tenants = sched == XLAT_SCHED_FCFS ? 1 : 2;
        wc.coalesce = coalesce;
        xlat_target t = XLAT_TARGET_INIT;
        if (AR_TRY(r, "pwc create", xlat_pwc_create(r->ctx, &pc, &pwc)) && (wc.pwc = pwc) &&
            AR_TRY(r, "walker create", xlat_walker_create(r->ctx, &wc, &w)) &&
            AR_TRY(r, "walker target", xlat_walker_get_target(w, &t)))
            traffic(r, &t, 300, WALK_PAGES, mapped);
    }
    AR_OK(xlat_walker_destroy(w));
    AR_OK(xlat_pwc_destroy(pwc));
    ar_table_destroy(mem, pt);
}

void ar_scenario_walker_fcfs(ar_run *r) { walker_scenario(r, XLAT_SCHED_FCFS, false); }
void ar_scenario_walker_coalesce(ar_run *r) { walker_scenario(r, XLAT_SCHED_FCFS, true); }
void ar_scenario_walker_partition(ar_run *r) { walker_scenario(r, XLAT_SCHED_PARTITION, false); }
void ar_scenario_walker_dws(ar_run *r) { walker_scenario(r, XLAT_SCHED_DWS, true); }
void ar_scenario_walker_dwspp(ar_run *r) { walker_scenario(r, XLAT_SCHED_DWSPP, false); }

/* A GMMU over a local table of half the pages and an IOMMU responder that
 * knows them all: every answer is AR_PFN(vpn), whichever side gives it. */
static void gmmu_scenario(ar_run *r, xlat_gmmu_mode mode, xlat_gmmu_routing route)
{
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_fixed *fx = NULL;
    xlat_walker *w = NULL;
    xlat_gmmu *g = NULL;
    bool mapped[WALK_PAGES] = {false};
    if (ar_table(r, &mem, &pt) && ar_fixed(r, 60, &fx)) {
        ar_map(r, pt, WALK_PAGES / 2, mapped);
        xlat_walker_config wc;
        xlat_walker_config_init(&wc);
        wc.pt = pt;
        wc.walkers = 4;
        wc.queue_entries = 16;
        wc.mem_latency = 10;
        xlat_gmmu_config gc;
        xlat_gmmu_config_init(&gc);
        gc.mode = mode;
        gc.initial_route = route;
        gc.epoch_cycles = 200;
        gc.max_outstanding = 16;
        gc.local_base = AR_PFN(0) << 12;
        gc.local_size = (uint64_t)(WALK_PAGES / 2) << 12;
        xlat_target t = XLAT_TARGET_INIT;
        if (AR_TRY(r, "walker create", xlat_walker_create(r->ctx, &wc, &w)) && (gc.walker = w) &&
            AR_TRY(r, "gmmu create", xlat_gmmu_create(r->ctx, &gc, &g)) &&
            AR_TRY(r, "fixed target", xlat_fixed_get_target(fx, &t)) &&
            AR_TRY(r, "gmmu set_iommu", xlat_gmmu_set_iommu(g, &t)) &&
            AR_TRY(r, "gmmu target", xlat_gmmu_get_target(g, &t)))
            traffic(r, &t, 300, WALK_PAGES, NULL);
    }
    AR_OK(xlat_gmmu_destroy(g));
    AR_OK(xlat_walker_destroy(w));
    AR_OK(xlat_fixed_destroy(fx));
    ar_table_destroy(mem, pt);
}

void ar_scenario_gmmu_distributed(ar_run *r)
{
    gmmu_scenario(r, XLAT_GMMU_DISTRIBUTED, XLAT_GMMU_ROUTE_LOCAL);
}

void ar_scenario_gmmu_dynamic(ar_run *r)
{
    gmmu_scenario(r, XLAT_GMMU_DYNAMIC, XLAT_GMMU_ROUTE_PARALLEL);
}

void ar_scenario_gmmu_centralized(ar_run *r)
{
    gmmu_scenario(r, XLAT_GMMU_CENTRALIZED, XLAT_GMMU_ROUTE_BYPASS);
}
