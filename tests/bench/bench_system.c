/* Whole systems: translations per host second for 4, 16 and 64 GPUs of 64
 * CUs each, on a random trace and a shared-pages trace, and memory per GPU. */
#include <stdlib.h>

#include "bench.h"

typedef struct sys_rig {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_system *sys;
    uint64_t done;
    uint64_t last; /* completion cycle of the last request answered */
} sys_rig;

static void on_done(void *user, const xlat_resp *r)
{
    sys_rig *rig = user;
    rig->done++;
    if (r->completed > rig->last)
        rig->last = r->completed;
}

#define SYS_PAGES 65536
#define SYS_BASE 0x7f0000000000ull

int bench_mapped_table(xlat_ctx **ctx, xlat_physmem **mem, xlat_pagetable **pt, uint64_t pages,
                       uint64_t base)
{
    xlat_physmem_config pc;
    xlat_physmem_config_init(&pc);
    xlat_pagetable_config tc;
    xlat_pagetable_config_init(&tc);
    if (xlat_ctx_create(NULL, ctx) || xlat_physmem_create(*ctx, &pc, mem))
        return -1;
    tc.mem = *mem;
    if (xlat_pagetable_create(*ctx, &tc, pt))
        return -1;
    for (uint64_t p = 0; p < pages; p++) {
        uint64_t pfn;
        if (xlat_physmem_place(*mem, p, 0, 1, &pfn) ||
            xlat_pagetable_map(*pt, 1, base + p * 4096, pfn, 12, XLAT_PERM_R | XLAT_PERM_W))
            return -1;
    }
    return 0;
}

static int rig_build(sys_rig *r, uint32_t gpus, xlat_incl incl)
{
    if (bench_mapped_table(&r->ctx, &r->mem, &r->pt, SYS_PAGES, SYS_BASE))
        return -1;
    xlat_system_config sc;
    xlat_system_config_init(&sc);
    sc.gpus = gpus;
    sc.cus = 64;
    sc.gpu_iommu_latency = 300;
    /* Enough L2 MSHRs for every L1 miss: refused forwards are retried each
     * cycle, which costs host time in proportion to the units waiting. */
    xlat_tlb_config l1, l2;
    xlat_system_l1_config_init(&l1);
    xlat_system_l2_config_init(&l2);
    l2.mshrs = sc.cus * l1.mshrs;
    l2.ports = 64;
    sc.l2 = &l2;
    xlat_walker_config wc;
    xlat_iommu_walker_config_init(&wc);
    wc.pt = r->pt;
    xlat_iommu_config ic;
    xlat_iommu_config_init(&ic);
    ic.walk = &wc;
    ic.inclusion = incl;
    ic.tracker_entries = 512 * gpus;
    ic.buffer_entries = gpus * l2.mshrs;
    wc.queue_entries = ic.buffer_entries;
    sc.iommu = &ic;
    return xlat_system_create(r->ctx, &sc, &r->sys);
}

static void rig_destroy(sys_rig *r)
{
    xlat_system_destroy(r->sys);
    xlat_pagetable_destroy(r->pt);
    xlat_physmem_destroy(r->mem);
    xlat_ctx_destroy(r->ctx);
}

/* Page of the n-th request of CU c: random over the whole footprint, or
 * (shared) mostly over 2048 pages every GPU touches. */
static uint64_t next_page(uint64_t *state, bool shared)
{
    uint64_t z = bench_rand(state);
    return shared && z % 4 ? (z >> 8) % 2048 : (z >> 8) % SYS_PAGES;
}

static void run(uint32_t gpus, bool shared, xlat_incl incl)
{
    sys_rig r = {0};
    if (rig_build(&r, gpus, incl) != 0) {
        fprintf(stderr, "bench system: %s\n", xlat_ctx_errmsg(r.ctx));
        rig_destroy(&r);
        return;
    }
    uint64_t state = gpus, sent = 0, n = 200000;
    double t0 = bench_seconds();
    while (sent < n) {
        uint64_t before = sent;
        for (uint32_t g = 0; g < gpus && sent < n; g++) {
            uint32_t cu = (uint32_t)(bench_rand(&state) % 64);
            xlat_req req = {.id = sent, .pasid = 1, .gpu = (uint16_t)g, .cu = (uint16_t)cu,
                            .vaddr = SYS_BASE + next_page(&state, shared) * 4096};
            sent += xlat_system_translate(r.sys, &req, on_done, &r) == XLAT_OK;
        }
        uint64_t next = xlat_next_event(r.ctx);
        if (sent == before && next != XLAT_NEVER && next > xlat_now(r.ctx))
            xlat_advance(r.ctx, next - xlat_now(r.ctx)); /* all stalled: skip ahead */
        else
            xlat_tick(r.ctx);
    }
    xlat_advance(r.ctx, 100000000); /* drain: the clock then says nothing of the run */
    double dt = bench_seconds() - t0;
    char label[96], note[128];
    snprintf(label, sizeof(label), "system %2u GPUs x 64 CUs, %s, %s", gpus,
             shared ? "shared pages" : "random", incl == XLAT_INCL_LEAST ? "least-TLB" : "baseline");
    snprintf(note, sizeof(note), "%.0f KiB per GPU, last answer at cycle %llu",
             (double)xlat_system_gpu_memory(r.sys, 0) / 1024.0, (unsigned long long)r.last);
    bench_row(label, (double)r.done, dt, note);
    rig_destroy(&r);
}

void bench_system(void)
{
    printf("\n-- multi-GPU systems (L1 16 -> L2 512 -> PCIe 300 -> IOMMU 4096, 8 walkers) --\n");
    static const uint32_t gpus[] = {4, 16, 64};
    for (int i = 0; i < (getenv("XLAT_BENCH_ONE") ? 1 : 3); i++) {
        run(gpus[i], false, XLAT_INCL_MOSTLY);
        run(gpus[i], true, XLAT_INCL_MOSTLY);
        run(gpus[i], true, XLAT_INCL_LEAST);
    }
}
