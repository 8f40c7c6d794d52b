/* The knob registry, first half: [system], [l1], [l2], [iommu] and the two
 * walker pools [iommu_walk], [gmmu_walk]. Ranges are the ones the library's
 * create functions check (lib/system/system.c, lib/tlb/tlb.c,
 * lib/iommu/iommu.c, lib/walk/walker.c, lib/cuckoo/cuckoo.c); where they
 * check nothing, the field's type's. Pointers, callbacks, names, struct_size
 * and the fields the program derives when it builds the units
 * (iommu.gpus from system.gpus, pec_chiplets and pec_expanded from [memory]
 * and [barre]) are not knobs. */
#include "config.h"

const char *const sim_repl_names[] = {"lru", "fifo", "random", "plru", NULL};
static const char *const index_names[] = {"modulo", "hash", NULL};
static const char *const incl_names[] = {"mostly", "inclusive", "exclusive", "least", NULL};
static const char *const spill_names[] = {"cumulative", "occupancy", NULL};
static const char *const sched_names[] = {"fcfs", "partition", "dws", "dwspp", NULL};
static const char *const assign_names[] = {"contiguous", "interleaved", NULL};

#define U32 KNOB_U32_ROW
#define BOOL KNOB_BOOL_ROW
#define ENUM KNOB_ENUM_ROW
#define UMAX KNOB_U32_MAX
#define CLK KNOB_CLOCK_MAX

/* [l1] and [l2]: an xlat_tlb_config each. */
#define TLB_KNOBS(s, t)                                                                         \
    U32(s, "entries", t.entries, 0, UMAX, "entries (0: unbounded, an ideal TLB)"),             \
    U32(s, "ways", t.ways, 0, UMAX, "ways (= entries: fully associative); must divide entries"), \
    ENUM(s, "repl", t.repl, sim_repl_names, "replacement policy (plru: ways a power of two)"), \
    U32(s, "latency", t.latency, 0, UMAX, "lookup latency, cycles"),                             \
    U32(s, "mshrs", t.mshrs, 1, UMAX, "distinct outstanding misses"),                            \
    U32(s, "ports", t.ports, 1, UMAX, "new lookups accepted per cycle"),                         \
    ENUM(s, "index", t.index, index_names, "set selection"),                                     \
    U32(s, "hits_in_flight", t.hits_in_flight, 0, UMAX,                                          \
        "hits accepted and not yet answered (0: ports x min(latency + 1, 256))"),                \
    U32(s, "mshr_targets", t.mshr_targets, 0, UMAX, "requests one MSHR holds (0: 8)"),           \
    U32(s, "clock_num", t.clock_num, 0, CLK, "clock ratio numerator (0 with clock_den 0: 1:1)"), \
    U32(s, "clock_den", t.clock_den, 0, CLK, "clock ratio denominator")

/* [iommu_walk] and [gmmu_walk]: an xlat_walker_config each. */
#define WALK_KNOBS(s, w)                                                                           \
    U32(s, "walkers", w.walkers, 1, 1048576, "page table walkers"),                                \
    U32(s, "queue_entries", w.queue_entries, 1, UMAX,                                              \
        "buffered requests in all (per-walker schedulers: queue_entries / walkers each)"),         \
    U32(s, "mem_latency", w.mem_latency, 0, UMAX, "cycles per page-table read"),                   \
    U32(s, "line_bytes", w.line_bytes, 8, 4096, "bytes per read, a power of two"),                 \
    ENUM(s, "sched", w.sched, sched_names, "walk scheduler"),                                      \
    U32(s, "tenants", w.tenants, 1, 64, "tenants (tenant = pasid mod tenants)"),                   \
    ENUM(s, "assign", w.assign, assign_names, "walker ownership among tenants"),                   \
    BOOL(s, "idle_steal", w.idle_steal, "DWS/DWS++: an arrival may take another tenant's idle walker"), \
    BOOL(s, "coalesce", w.coalesce, "neighborhood-aware walk coalescing"),                         \
    BOOL(s, "coalesce_pwc", w.coalesce_pwc,                                                        \
         "a walk started from a coalesced level also probes the PWC"),                              \
    BOOL(s, "coalesce_fill_pwc", w.coalesce_fill_pwc,                                              \
         "entries obtained through coalescing fill the PWC too"),                                   \
    U32(s, "clock_num", w.clock_num, 0, CLK, "clock ratio numerator (0 with clock_den 0: 1:1)"),   \
    U32(s, "clock_den", w.clock_den, 0, CLK, "clock ratio denominator"),                           \
    U32(s, "pec_latency", w.pec_latency, 0, 1000000, "Barre: cycles per PEC-computed answer"),     \
    BOOL(s, "pec_multicast", w.pec_multicast, "Barre: compute every member of a group"),           \
    BOOL(s, "coal_aware", w.coal_aware, "Barre: coalescing-aware walk scheduling (needs barre.enable)")

const knob sim_knobs_units[] = {
    U32("system", "gpus", system.gpus, 1, 64, "GPUs (chiplets)"),
    U32("system", "cus", system.cus, 1, 1024, "CUs per GPU"),
    U32("system", "gpu_iommu_latency", system.gpu_iommu_latency, 0, UMAX,
        "one-way cycles of each GPU's link to the IOMMU"),
    BOOL("system", "probe_ring", system.probe_ring,
         "least-TLB 5.5 baseline: an L2 miss probes the two ring neighbours' L2s"),
    U32("system", "probe_latency", system.probe_latency, 0, UMAX,
        "cycles from an L2 miss to the probes' answers"),
    BOOL("system", "shared_l2", system.shared_l2, "one L2 TLB shared by every GPU (Barre's oracle)"),
    U32("system", "chiplet_latency", system.chiplet_latency, 0, UMAX,
        "F-Barre: one-way cycles between chiplets (0: 32)"),

    TLB_KNOBS("l1", l1),
    TLB_KNOBS("l2", l2),

    U32("iommu", "buffer_entries", iommu.buffer_entries, 1, UMAX, "ATS requests in service at once"),
    U32("iommu", "tlb_entries", iommu.tlb_entries, 0, UMAX, "IOMMU TLB entries (0: unbounded)"),
    U32("iommu", "tlb_ways", iommu.tlb_ways, 0, UMAX, "its ways"),
    U32("iommu", "tlb_latency", iommu.tlb_latency, 0, UMAX, "its lookup cycles"),
    U32("iommu", "tlb2_entries", iommu.tlb2_entries, 0, UMAX,
        "second-level IOMMU TLB entries (0: none; mostly-inclusive only)"),
    U32("iommu", "tlb2_ways", iommu.tlb2_ways, 0, UMAX, "its ways"),
    U32("iommu", "tlb2_latency", iommu.tlb2_latency, 0, UMAX, "its lookup cycles after a first-level miss"),
    ENUM("iommu", "inclusion", iommu.inclusion, incl_names, "inclusion policy (least: least-TLB)"),
    BOOL("iommu", "multi_app", iommu.multi_app, "least-TLB multi-application mode (spilling)"),
    U32("iommu", "tracker_entries", iommu.tracker_entries, 0, UMAX,
        "least-TLB tracker entries in all, split per GPU"),
    U32("iommu", "tracker_fp_bits", iommu.tracker_fp_bits, 4, 32, "tracker fingerprint bits"),
    U32("iommu", "tracker_bucket", iommu.tracker_bucket, 1, 8, "tracker slots per bucket"),
    BOOL("iommu", "tracker_exact", iommu.tracker_exact, "the tracker as an exact set"),
    U32("iommu", "remote_latency", iommu.remote_latency, 0, UMAX,
        "cycles from a tracker-directed probe to its answer"),
    U32("iommu", "spill_counter", iommu.spill_counter, 0, UMAX, "N: spills an entry may take"),
    ENUM("iommu", "spill_rx", iommu.spill_rx, spill_names, "spill receiver rule"),
    BOOL("iommu", "exclude_owner", iommu.exclude_owner, "never spill back to the entry's GPU"),
    U32("iommu", "fault_batch", iommu.fault_batch, 1, UMAX, "faults gathered before the callback"),
    U32("iommu", "fault_timeout", iommu.fault_timeout, 0, UMAX, "cycles a partial fault batch waits"),
    U32("iommu", "clock_num", iommu.clock_num, 0, CLK, "clock ratio numerator (0 with clock_den 0: 1:1)"),
    U32("iommu", "clock_den", iommu.clock_den, 0, CLK, "clock ratio denominator"),
    BOOL("iommu", "no_tlb", iommu.no_tlb, "no IOMMU TLB at all (Barre's baseline)"),

    WALK_KNOBS("iommu_walk", iommu_walk),
    WALK_KNOBS("gmmu_walk", gmmu_walk),
};
const size_t sim_knobs_units_n = sizeof(sim_knobs_units) / sizeof(sim_knobs_units[0]);
