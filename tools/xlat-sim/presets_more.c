/* Presets, second half: neighborhood-aware walks, GMMU bypass and page walk
 * stealing. Each paper models one GPU's (or each GPU's) walkers; where they
 * sit on the GPU, the program's IOMMU of a one-GPU system stands for them
 * (the IOMMU is the one walker pool the system builder attaches below the
 * L2). A value the paper leaves open is marked "open:". */
#include <stdio.h>

#include "config.h"

static void workload(sim_config *c, const char *w)
{
    snprintf(c->run.workload, sizeof(c->run.workload), "%s", w);
}

/* ---- "Neighborhood-aware address translation" (Table I in §V-A) ---------------
 * One GPU of 8 CUs; L1 TLB 32 entries fully associative, L2 TLB 512 x 16
 * ways; the IOMMU (the walkers are the IOMMU's in this paper, §II-B) with
 * 32- and 256-entry TLBs, a 256-entry buffer and 8 FCFS walkers, each
 * looking the page walk cache up first. */
static void nbr_baseline(sim_config *c)
{
    c->system.gpus = 1;
    c->system.cus = 8;
    c->system.gpu_iommu_latency = 0; /* open: an integrated GPU, the IOMMU on the chip */
    c->l1.entries = 32;
    c->l1.ways = 32;
    c->l2.entries = 512;
    c->l2.ways = 16;
    c->iommu.inclusion = XLAT_INCL_MOSTLY;
    c->iommu.tlb_entries = 32;
    c->iommu.tlb_ways = 32;     /* open: fully associative */
    c->iommu.tlb_latency = 10;  /* open: no latency is given; the GPU L2 TLB's */
    c->iommu.tlb2_entries = 256;
    c->iommu.tlb2_ways = 16;    /* open: as the GPU L2 TLB */
    c->iommu.tlb2_latency = 10; /* open */
    c->iommu.buffer_entries = 256;
    c->iommu_walk.walkers = 8;
    c->iommu_walk.queue_entries = 256;
    c->iommu_walk.sched = XLAT_SCHED_FCFS;
    c->iommu_walk.mem_latency = 100; /* open: gem5's DRAM; the library's default read */
    c->iommu_pwc = true;             /* open: its size; the library's 16 per level, 1 cycle */
    workload(c, "irregular");
}

/* §IV: full coalescing (every level). Whether a walk started from a
 * coalesced level also probes the PWC is left open: it does not
 * (coalesce_pwc false, the library's default). */
static void nbr_coalesce(sim_config *c)
{
    nbr_baseline(c);
    c->iommu_walk.coalesce = true;
}

/* ---- "Dynamic GMMU Bypass for Address Translation in Multi-GPU Systems"
 * (Table 1 in §5.1, §4, §6.1) -------------------------------------------------------------
 * 4 GPUs of 36 CUs; L1 TLB 1 set x 32 ways, L2 TLB 8 sets x 32 ways; IOMMU
 * with 8 walkers; a GMMU per GPU with 64 walkers; epoch 10 µs at 1 GHz,
 * T1 0.85, T2 0.15, 8-bit counters (xlat_gmmu_config_init()'s). */
static void gmmu_common(sim_config *c, xlat_gmmu_mode mode)
{
    c->system.cus = 36;
    c->l1.entries = 32;
    c->l1.ways = 32;
    c->l2.entries = 256;
    c->l2.ways = 32;
    c->iommu.no_tlb = true;          /* open: Table 1 lists no IOMMU TLB */
    c->iommu_walk.walkers = 8;
    /* open: latencies are not given; the authors' simulator's (seed note
     * [A]): a 100-cycle walk, a 140-cycle PCIe switch. */
    c->iommu_walk.mem_latency = 25;
    c->gmmu_walk.mem_latency = 25;
    c->system.gpu_iommu_latency = 140;
    c->gmmu_walk.walkers = 64;
    c->gmmu = c->system.gmmu = true;
    c->gmmu_cfg.mode = mode;
    c->gmmu_cfg.epoch_cycles = 10000;
    c->gmmu_cfg.t1 = 0.85;
    c->gmmu_cfg.t2 = 0.15;
    c->gmmu_cfg.counter_bits = 8;
    workload(c, "random");
}

static void gmmu_centralized(sim_config *c) { gmmu_common(c, XLAT_GMMU_CENTRALIZED); }
static void gmmu_distributed(sim_config *c) { gmmu_common(c, XLAT_GMMU_DISTRIBUTED); }
static void gmmu_dynamic(sim_config *c) { gmmu_common(c, XLAT_GMMU_DYNAMIC); }
static void gmmu_ideal(sim_config *c) { gmmu_common(c, XLAT_GMMU_IDEAL); }

/* ---- "Improving GPU Multi-tenancy with Page Walk Stealing" (Table I in §III) -
 * One GPU of 30 SMs shared by 2 tenants; L1 TLB 32 entries with 12 MSHRs,
 * L2 TLB 1024 x 16 ways, 16 walkers with a 192-entry walk queue and a
 * shared 128-entry page walk cache. The walkers are the GPU's: no IOMMU
 * TLB, no link. */
static void walk_common(sim_config *c, xlat_walk_sched sched)
{
    c->system.gpus = 1;
    c->system.cus = 30;
    c->system.gpu_iommu_latency = 0;
    c->l1.entries = 32;
    c->l1.ways = 32;          /* open: the associativity is not given */
    c->l1.mshrs = 12;
    c->l2.entries = 1024;
    c->l2.ways = 16;
    c->l2.latency = 10;       /* open: the authors' simulator's 10 cycles, 4 ports */
    c->l2.ports = 4;
    c->iommu.no_tlb = true;
    /* open: the L2's outstanding misses. The 192-entry walk queue only
     * fills, and the schedulers only differ, when the L2 can have that many
     * walks out; with 16 MSHRs every walk would find a free walker. */
    c->l2.mshrs = 16 + 192;
    c->iommu_walk.walkers = 16;
    c->iommu_walk.queue_entries = 192;
    c->iommu.buffer_entries = 16 + 192; /* the walks in service and the queue */
    c->iommu_walk.mem_latency = 100;    /* open: the authors' simulator's DRAM latency */
    c->iommu_walk.sched = sched;
    c->iommu_walk.tenants = 2;
    c->iommu_pwc = true;
    c->pwc.org = XLAT_PWC_UNIFIED;
    c->pwc.entries[0] = 128;
    c->pwc.ways[0] = 8;       /* open: the authors' simulator's 16 sets x 8 ways */
    c->pwc.latency = 10;      /* open: the authors' simulator's */
    c->run.pasids = 2;
    workload(c, "tenants");
}

static void walk_fcfs(sim_config *c) { walk_common(c, XLAT_SCHED_FCFS); }
static void walk_partition(sim_config *c) { walk_common(c, XLAT_SCHED_PARTITION); }
static void walk_dws(sim_config *c) { walk_common(c, XLAT_SCHED_DWS); }

static void walk_dwspp(sim_config *c)
{
    walk_common(c, XLAT_SCHED_DWSPP);
    xlat_dwspp_preset(&c->dwspp, XLAT_DWSPP_DEFAULT);
}

static void walk_dwspp_conservative(sim_config *c)
{
    walk_common(c, XLAT_SCHED_DWSPP);
    xlat_dwspp_preset(&c->dwspp, XLAT_DWSPP_CONSERVATIVE);
}

static void walk_dwspp_aggressive(sim_config *c)
{
    walk_common(c, XLAT_SCHED_DWSPP);
    xlat_dwspp_preset(&c->dwspp, XLAT_DWSPP_AGGRESSIVE);
}

#define NBR "Neighborhood-aware walks"
#define NBR_T "\"Neighborhood-aware address translation\""
#define GMMU "GMMU bypass"
#define GMMU_T "\"Dynamic GMMU Bypass for Address Translation in Multi-GPU Systems\""
#define WALK "Page walk stealing"
#define WALK_T "\"Improving GPU Multi-tenancy with Page Walk Stealing\""

const sim_preset_row sim_presets_more[] = {
    {{"nbr-baseline", NBR, NBR_T ", Table I (§V-A)", "1 GPU of 8 CUs, IOMMU TLBs 32/256, 8 FCFS walkers with a PWC",
      "irregular"}, nbr_baseline},
    {{"nbr-coalesce", NBR, NBR_T ", §IV (full coalescing), Table I (§V-A)",
      "the baseline with neighborhood-aware walk coalescing at every level", "irregular"},
     nbr_coalesce},
    {{"gmmu-centralized", GMMU, GMMU_T ", §2.3 (Fig 1), Table 1 (§5.1)",
      "4 GPUs of 36 CUs, every L2 miss walked by the IOMMU", "random"}, gmmu_centralized},
    {{"gmmu-distributed", GMMU, GMMU_T ", §2.3 (Fig 2), Table 1 (§5.1)",
      "a local walk by the GPU's GMMU first, the IOMMU on a local miss", "random"},
     gmmu_distributed},
    {{"gmmu-dynamic", GMMU, GMMU_T ", §4 and §6.1 (10 µs epoch, T1 0.85, T2 0.15)",
      "GMMU bypass chosen per epoch from the local ratio", "random"}, gmmu_dynamic},
    {{"gmmu-ideal", GMMU, GMMU_T ", §3 (Fig 3)", "each request sent to the right MMU by an oracle",
      "random"}, gmmu_ideal},
    {{"walk-fcfs", WALK, WALK_T ", Table I (§III, the baseline)",
      "1 GPU, 2 tenants, 16 shared walkers, one FCFS queue of 192", "tenants"}, walk_fcfs},
    {{"walk-partition", WALK, WALK_T ", §VII-D (static partitioning)",
      "the walkers split equally between the tenants, no stealing", "tenants"}, walk_partition},
    {{"walk-dws", WALK, WALK_T ", §V and §VI-B (DWS)", "dynamic walker stealing", "tenants"}, walk_dws},
    {{"walk-dwspp", WALK, WALK_T ", §VI-B (DWS++), Table IV (§VII-A)", "DWS++ with Table IV's thresholds",
      "tenants"}, walk_dwspp},
    {{"walk-dwspp-conservative", WALK, WALK_T ", §VII-C, Table VII (Conservative)",
      "DWS++ with QUEUE_THRES 0.17", "tenants"}, walk_dwspp_conservative},
    {{"walk-dwspp-aggressive", WALK, WALK_T ", §VII-C, Table VII (Aggressive)",
      "DWS++ with DIFF_THRES 0.3 on every rung", "tenants"}, walk_dwspp_aggressive},
};
const size_t sim_presets_more_n = sizeof(sim_presets_more) / sizeof(sim_presets_more[0]);
