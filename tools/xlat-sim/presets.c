/* The papers' configurations as presets: each is sim_config_defaults() and
 * then the paper's values. The library's own preset helpers
 * (xlat_system_config_init's least-TLB Table 2, xlat_mcm_preset_parts,
 * xlat_dwspp_preset, the config_inits) give what they already hold; only
 * what they do not is written here. A value a paper leaves open is marked
 * "open:" where it is chosen and listed in doc/sim-config.md. */
#include <stdio.h>
#include <string.h>

#include "config.h"

/* ---- least-TLB ("Improving Address Translation in Multi-GPUs via Sharing
 * and Spilling aware TLB Design", Table 2 in §3.1.1) ---------------------------------- */

/* Table 2 is the defaults' system already (4 GPUs of 64 CUs, L1 16 entries,
 * L2 512, IOMMU TLB 4096 x 64 ways at 200 cycles, 8 walkers of 500-cycle
 * walks, mostly inclusive). What it adds is the link: §5.3 (Fig 20) gives
 * "PCIe (~300ns latency)" at the 1.0 GHz clock, 300 cycles; open: taken as
 * each crossing's latency, as a link's stated latency is one way here. */
static void least_common(sim_config *c)
{
    c->system.gpu_iommu_latency = 300;
    snprintf(c->run.workload, sizeof(c->run.workload), "scatter-gather");
}

static void least_baseline(sim_config *c)
{
    least_common(c);
    c->iommu.inclusion = XLAT_INCL_MOSTLY;
}

static void least_tlb(sim_config *c)
{
    least_common(c);
    c->iommu.inclusion = XLAT_INCL_LEAST;
}

/* §4.2: multi-application mode, one application per GPU (Table 4), so a
 * PASID per GPU. */
static void least_multi(sim_config *c)
{
    least_tlb(c);
    c->iommu.multi_app = true;
    c->run.pasids = c->system.gpus;
    snprintf(c->run.workload, sizeof(c->run.workload), "mix");
}

/* §3.2 (Fig 3): an IOMMU TLB with only cold misses. tlb_entries 0 is the
 * library's unbounded TLB: it never evicts, so it misses once per page. */
static void least_infinite(sim_config *c)
{
    least_baseline(c);
    c->iommu.tlb_entries = 0;
    c->iommu.tlb_ways = 0;
}

/* §5.5: Valkyrie's probing extended to a ring of L2 TLBs, over the
 * mostly-inclusive baseline. open: the probe's latency is not given; the
 * library's remote L2 probe latency (remote_latency, 120 cycles) is used,
 * as it is the same lookup of another GPU's L2. */
static void least_probe_ring(sim_config *c)
{
    least_baseline(c);
    c->system.probe_ring = true;
    c->system.probe_latency = c->iommu.remote_latency;
}

/* ---- Barre Chord ("Barre Chord: Efficient Virtual Memory Translation for
 * Multi-Chip-Module GPUs", Table II, §VII) ------------------------------------ */

static void mcm(sim_config *c, xlat_mcm_variant v)
{
    xlat_mcm_preset_parts(v, &c->system, &c->l1, &c->l2, &c->iommu, &c->iommu_walk);
    /* The preset points the parts at each other; the program does that when
     * it builds the units, from its own copies. */
    c->system.l1 = c->system.l2 = NULL;
    c->system.iommu = NULL;
    c->iommu.walk = NULL;
    c->fbarre.chiplets = c->system.gpus;
    snprintf(c->run.workload, sizeof(c->run.workload), "barre-objects");
}

static void barre_baseline(sim_config *c) { mcm(c, XLAT_MCM_BASELINE); }
static void barre_mshrs_x2(sim_config *c) { mcm(c, XLAT_MCM_L2_MSHRS_X2); }
static void barre_walkers_8(sim_config *c) { mcm(c, XLAT_MCM_WALKERS_8); }
static void barre_walkers_32(sim_config *c) { mcm(c, XLAT_MCM_WALKERS_32); }
static void barre_walkers_inf(sim_config *c) { mcm(c, XLAT_MCM_WALKERS_INF); }
static void barre_iommu_tlb(sim_config *c) { mcm(c, XLAT_MCM_IOMMU_TLB); }
static void barre_least(sim_config *c) { mcm(c, XLAT_MCM_LEAST); }
static void barre_shared_l2(sim_config *c) { mcm(c, XLAT_MCM_SHARED_L2); }

/* §IV: the group allocator (LASP) and one PEC logic per walker over a
 * 5-entry PEC buffer. Coalescing-aware scheduling is §V-C, one of F-Barre's
 * two optimizations (Fig 18), so plain Barre runs without it. */
static void barre(sim_config *c)
{
    mcm(c, XLAT_MCM_BASELINE);
    c->barre.enable = true;
    c->barre.placement = XLAT_BARRE_LASP;
    /* open: LASP maps "a consecutive few pages" onto each chiplet (§IV-C);
     * 4, the barre-objects workload's interlv. At 1 no two groups of a
     * round are adjacent, and F-Barre's expansion (§V-B) merges nothing. */
    c->barre.interlv_gran = 4;
}

/* §V-A and §V-C: F-Barre units per chiplet (their cuckoo filters, 9-bit
 * fingerprints, 4 ways, 256 rows, a 5-entry PEC buffer: the config_init's)
 * and coalescing-aware walk scheduling; F-Barre-NoMerge of Fig 15. */
static void fbarre(sim_config *c)
{
    barre(c);
    c->barre.fbarre = true;
    c->iommu_walk.coal_aware = true;
}

/* §V-B, Fig 15's F-Barre-2Merge: two merged coalescing groups, the
 * expanded PTE layout ("2 by default" of the evaluated 2Merge and 4Merge). */
static void fbarre_expand(sim_config *c)
{
    fbarre(c);
    c->barre.max_merge = 2;
}

static const sim_preset_row presets_papers[] = {
#define LEAST "least-TLB"
#define LEAST_T "\"Improving Address Translation in Multi-GPUs via Sharing and Spilling aware TLB Design\""
    {{"least-baseline", LEAST, LEAST_T ", Table 2 (§3.1.1) and §5.3 (PCIe ~300 ns)",
      "4 GPUs, mostly-inclusive 4096-entry IOMMU TLB, 8 walkers, 300-cycle PCIe", "scatter-gather"},
     least_baseline},
    {{"least-tlb", LEAST, LEAST_T ", §4.1 (single-application mode), Table 2",
      "least-inclusive IOMMU TLB with the Local TLB tracker", "scatter-gather"}, least_tlb},
    {{"least-multi-app", LEAST, LEAST_T ", §4.2 (multi-application mode, spilling), Tables 2 and 4",
      "least-TLB with spilling, one application (PASID) per GPU", "mix"}, least_multi},
    {{"least-infinite", LEAST, LEAST_T ", §3.2 (Fig 3) and §5.1 (Fig 14)",
      "the baseline with an unbounded IOMMU TLB (cold misses only)", "scatter-gather"},
     least_infinite},
    {{"least-probe-ring", LEAST, LEAST_T ", §5.5 (TLB probing ring)",
      "the baseline with the L2 TLBs probing their two ring neighbours", "scatter-gather"},
     least_probe_ring},
#define BARRE "Barre Chord"
#define BARRE_T "\"Barre Chord: Efficient Virtual Memory Translation for Multi-Chip-Module GPUs\""
    {{"barre-baseline", BARRE, BARRE_T ", Table II and §III-A",
      "4 chiplets, no IOMMU TLB, 16 walkers, 48-entry walk queue, 150-cycle PCIe", "barre-objects"},
     barre_baseline},
    {{"barre", BARRE, BARRE_T ", §IV (Barre)", "LASP groups and the IOMMU walkers' PEC logic",
      "barre-objects"}, barre},
    {{"fbarre", BARRE, BARRE_T ", §V-A and §V-C; §VII-A (Fig 15's F-Barre-NoMerge)",
      "Barre plus F-Barre units per chiplet and coalescing-aware walk scheduling", "barre-objects"},
     fbarre},
    {{"fbarre-expand", BARRE, BARRE_T ", §V-B; §VII-A (Fig 15's F-Barre-2Merge)",
      "F-Barre with two merged coalescing groups (expanded layout)", "barre-objects"},
     fbarre_expand},
    {{"barre-l2-mshrs-x2", BARRE, BARRE_T ", §III-B (Fig 4)", "the baseline with 32 L2 TLB MSHRs",
      "barre-objects"}, barre_mshrs_x2},
    {{"barre-walkers-8", BARRE, BARRE_T ", §I (Fig 1) and §VII-H (Fig 23)", "the baseline with 8 walkers",
      "barre-objects"}, barre_walkers_8},
    {{"barre-walkers-32", BARRE, BARRE_T ", §I (Fig 1) and §VII-H (Fig 23)",
      "the baseline with 32 walkers", "barre-objects"}, barre_walkers_32},
    {{"barre-walkers-inf", BARRE, BARRE_T ", §I (Fig 1)",
      "the baseline with walkers enough that no walk waits (1024)", "barre-objects"},
     barre_walkers_inf},
    {{"barre-iommu-tlb", BARRE, BARRE_T ", §VII-J (Fig 27b)",
      "the baseline with a 2048-entry, 200-cycle IOMMU TLB", "barre-objects"}, barre_iommu_tlb},
    {{"barre-least", BARRE, BARRE_T ", §VII-A (Least)",
      "least-TLB on the chiplets, an exact 1024-key tracker per chiplet", "barre-objects"},
     barre_least},
    {{"barre-shared-l2", BARRE, BARRE_T ", §III-D (Fig 6)",
      "the oracle shared L2 TLB: 4x entries, ports and MSHRs", "barre-objects"}, barre_shared_l2},
};

#define NPAPERS (sizeof(presets_papers) / sizeof(presets_papers[0]))
#define NPRESETS (NPAPERS + sim_presets_more_n)

/* The i-th preset of both tables. */
static const sim_preset_row *preset_at(size_t i)
{
    return i < NPAPERS ? &presets_papers[i] : &sim_presets_more[i - NPAPERS];
}

const sim_preset_info *sim_presets(size_t *n)
{
    /* sim_preset_info is the first member of each row: copy them out once. */
    static sim_preset_info info[64];
    for (size_t i = 0; i < NPRESETS && i < 64; i++)
        info[i] = preset_at(i)->info;
    if (n)
        *n = NPRESETS < 64 ? NPRESETS : 64;
    return info;
}

int sim_preset_apply(sim_config *cfg, const char *name, sim_error *err)
{
    for (size_t i = 0; i < NPRESETS; i++) {
        if (strcmp(preset_at(i)->info.name, name))
            continue;
        sim_config_defaults(cfg);
        preset_at(i)->apply(cfg);
        snprintf(cfg->preset, sizeof(cfg->preset), "%s", name);
        return 0;
    }
    char names[SIM_ERR_LEN - 64];
    size_t used = 0;
    names[0] = '\0';
    for (size_t i = 0; i < NPRESETS && used < sizeof(names); i++) {
        int w = snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
                         preset_at(i)->info.name);
        used += w > 0 ? (size_t)w : 0;
    }
    return sim_fail(err, "unknown preset '%s' (presets: %s)", name, names);
}
