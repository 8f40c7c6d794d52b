/* The MCM-GPU of "Barre Chord: Efficient Virtual Memory Translation for
 * Multi-Chip-Module GPUs" (Table II) and its comparison points: values
 * only, the system builder does the rest. Where the paper is silent the
 * default taken is named here and in doc/barre.md. */
#include "internal.h"
#include "unit_target.h"
#include "xlat/mcm.h"

/* The parts at this library's sizes, filled here and then copied into the
 * caller's within their struct_size. */
struct mcm_full {
    xlat_system_config system;
    xlat_tlb_config l1, l2;
    xlat_iommu_config iommu;
    xlat_walker_config walk;
};

#define MCM_CHIPLETS 4
#define MCM_PCIE 150        /* Table II: PCIe Gen4 x16, 150 cycles (one way: the note's A.7) */
#define MCM_MESH 32         /* Table II: 768 GB/s mesh, 32 cycles */
#define MCM_IOMMU_TLB 2048  /* §VII-J: 2048 entries, 200 cycles */
#define MCM_TRACKER 1024    /* §VII-A: an ideal 1024-entry filter, per chiplet (see below) */

/* Table II: 64 entries, fully associative, 1 cycle, 16 MSHRs, LRU, per CU. */
static void l1_table2(xlat_tlb_config *c)
{
    xlat_tlb_config_init(c);
    c->entries = c->ways = 64;
    c->latency = 1;
    c->mshrs = 16;
    c->repl = XLAT_REPL_LRU;
}

/* Table II: 512 entries, 16 ways, 10 cycles, 16 MSHRs, per chiplet; the
 * ports (not given) are the system builder's default L2's, 4. */
static void l2_table2(xlat_tlb_config *c)
{
    xlat_system_l2_config_init(c);
    c->entries = 512;
    c->ways = 16;
    c->latency = 10;
    c->mshrs = 16;
}

/* Table II: 16 walkers, 48 queue entries, 500-cycle walks (4 x 125), FCFS;
 * no IOMMU TLB (the note's B.1: Table II lists none). */
static void iommu_table2(struct mcm_full *m)
{
    xlat_iommu_walker_config_init(&m->walk);
    m->walk.walkers = 16;
    m->walk.queue_entries = 48;
    xlat_iommu_config_init(&m->iommu);
    m->iommu.gpus = MCM_CHIPLETS;
    m->iommu.no_tlb = true;
    m->iommu.walk = &m->walk;
}

/* §VII-J's IOMMU TLB; its ways are not given: the IOMMU's default 64. */
static void add_iommu_tlb(xlat_iommu_config *c)
{
    c->no_tlb = false;
    c->tlb_entries = MCM_IOMMU_TLB;
    c->tlb_latency = 200;
}

/* §VII-A: least-TLB "with an ideal 1024-entry cuckoo filter (100% true
 * positive)". 1024 per chiplet: 1024 in all would leave each chiplet 256
 * keys for a 512-entry L2, and so miss remote hits. Its victim TLB is
 * §VII-J's (the paper names no size). A remote probe crosses PCIe to the
 * chiplet, looks its L2 up and comes back: 150 + 10 + 150 cycles. */
static void least_tlb(struct mcm_full *m)
{
    add_iommu_tlb(&m->iommu);
    m->iommu.inclusion = XLAT_INCL_LEAST;
    m->iommu.tracker_exact = true;
    m->iommu.tracker_entries = MCM_TRACKER * MCM_CHIPLETS;
    m->iommu.remote_latency = 2 * MCM_PCIE + m->l2.latency;
}

/* §III-D: 4x the entries and 4x the processing bandwidth (ports, and the
 * MSHRs four L2s had between them), the latency unchanged. */
static void shared_l2(struct mcm_full *m)
{
    m->system.shared_l2 = true;
    m->l2.entries *= MCM_CHIPLETS;
    m->l2.ports *= MCM_CHIPLETS;
    m->l2.mshrs *= MCM_CHIPLETS;
}

static void apply(struct mcm_full *m, xlat_mcm_variant v)
{
    switch (v) {
    case XLAT_MCM_BASELINE: break;
    case XLAT_MCM_L2_MSHRS_X2: m->l2.mshrs *= 2; break;
    case XLAT_MCM_WALKERS_8: m->walk.walkers = 8; break;
    case XLAT_MCM_WALKERS_32: m->walk.walkers = 32; break;
    case XLAT_MCM_WALKERS_INF: m->walk.walkers = XLAT_MCM_WALKERS_UNBOUNDED; break;
    case XLAT_MCM_IOMMU_TLB: add_iommu_tlb(&m->iommu); break;
    case XLAT_MCM_LEAST: least_tlb(m); break;
    case XLAT_MCM_SHARED_L2: shared_l2(m); break;
    }
}

static void fill(struct mcm_full *m, xlat_mcm_variant variant)
{
    xlat_system_config_init(&m->system);
    m->system.gpus = MCM_CHIPLETS;
    m->system.cus = 64; /* 4 SAs of 16 CUs */
    m->system.gpu_iommu_latency = MCM_PCIE;
    m->system.chiplet_latency = MCM_MESH;
    l1_table2(&m->l1);
    l2_table2(&m->l2);
    iommu_table2(m);
    apply(m, variant);
    /* The walk queue's back-pressure: the IOMMU admits what its walkers and
     * their queue hold, and a request beyond waits in the link. */
    m->iommu.buffer_entries = m->walk.walkers + m->walk.queue_entries;
}

int xlat_mcm_preset_parts(xlat_mcm_variant variant, xlat_system_config *system,
                          xlat_tlb_config *l1, xlat_tlb_config *l2, xlat_iommu_config *iommu,
                          xlat_walker_config *walk)
{
    if ((unsigned)variant > XLAT_MCM_SHARED_L2)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_mcm_preset: unknown variant %d",
                          (int)variant);
    if (!xlat__sized_ok(system, XLAT_SYSTEM_CONFIG_SIZE_V0) ||
        !xlat__sized_ok(l1, XLAT_TLB_CONFIG_SIZE_V0) ||
        !xlat__sized_ok(l2, XLAT_TLB_CONFIG_SIZE_V0) ||
        !xlat__sized_ok(iommu, XLAT_IOMMU_CONFIG_SIZE_V0) ||
        !xlat__sized_ok(walk, XLAT_WALKER_CONFIG_SIZE_V0))
        return xlat__fail(NULL, XLAT_ERR_INVAL,
                          "xlat_mcm_preset: a NULL part, or one its config_init did not start");
    struct mcm_full m;
    fill(&m, variant);
    xlat__sized_put(system, &m.system, sizeof(m.system));
    xlat__sized_put(l1, &m.l1, sizeof(m.l1));
    xlat__sized_put(l2, &m.l2, sizeof(m.l2));
    xlat__sized_put(iommu, &m.iommu, sizeof(m.iommu));
    xlat__sized_put(walk, &m.walk, sizeof(m.walk));
    /* Pointers of every release's structs (within the pinned sizes). */
    system->l1 = l1;
    system->l2 = l2;
    system->iommu = iommu;
    iommu->walk = walk;
    return XLAT_OK;
}
