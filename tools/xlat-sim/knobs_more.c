/* The knob registry, second half: [pwc], [dwspp], [gmmu], [fbarre] and the
 * program's own [memory], [barre], [run]. Array fields are one key per
 * element, named key.INDEX with the struct's own index (pwc entries.2 is
 * xlat_pwc_config::entries[2], the level-2 cache), so each knob stays a
 * scalar that a line of INI sets. */
#include "config.h"

static const char *const org_names[] = {"per-level", "unified", NULL};
static const char *const gmode_names[] = {"centralized", "distributed", "dynamic", "ideal", NULL};
static const char *const route_names[] = {"local", "bypass", "parallel", NULL};
static const char *const overflow_names[] = {"halve", "saturate", NULL};
static const char *const place_names[] = {"local", "round-robin", "chunked", NULL};
static const char *const bplace_names[] = {"lasp", "round-robin", "chunked", NULL};
static const char *const mode_names[] = {"timed", "functional", NULL};

#define U32 KNOB_U32_ROW
#define U64 KNOB_U64_ROW
#define BOOL KNOB_BOOL_ROW
#define ENUM KNOB_ENUM_ROW
#define DBL KNOB_DBL_ROW
#define STR KNOB_STR_ROW
#define UMAX KNOB_U32_MAX
#define U64MAX KNOB_U64_MAX
#define CLK KNOB_CLOCK_MAX

/* Slot i of the PWC: 0 the unified cache, 2..levels one level each (1, the
 * leaf, is never cached, so it has no key). */
#define PWC_SLOT(i)                                                                      \
    U32("pwc", "entries." #i, pwc.entries[i], 0, UMAX,                                   \
        "entries of slot " #i " (0: unified cache; 2..: that level; 0 disables it)"),    \
    U32("pwc", "ways." #i, pwc.ways[i], 0, UMAX, "ways of slot " #i " (0: fully associative)")

const knob sim_knobs_more[] = {
    BOOL("pwc", "enable", iommu_pwc, "give the IOMMU's walkers a page walk cache"),
    ENUM("pwc", "org", pwc.org, org_names, "one cache per level, or one for all"),
    U32("pwc", "levels", pwc.levels, 2, 6, "page-table levels, as the walked table"),
    U32("pwc", "bits_per_level", pwc.bits_per_level, 1, 9, "index bits per level, as the walked table"),
    U32("pwc", "page_shift", pwc.page_shift, 12, 12, "page shift, as the walked table"),
    PWC_SLOT(0), PWC_SLOT(2), PWC_SLOT(3), PWC_SLOT(4), PWC_SLOT(5), PWC_SLOT(6),
    ENUM("pwc", "repl", pwc.repl, sim_repl_names, "replacement policy"),
    U32("pwc", "latency", pwc.latency, 0, UMAX, "lookup cycles, charged by the walkers"),

    U32("dwspp", "epoch_length", dwspp.epoch_length, 1, UMAX, "walk arrivals per epoch"),
    DBL("dwspp", "ratio.0", dwspp.ratio[0], 1, 1000, "upper bound of rung 0 of the ratio ladder"),
    DBL("dwspp", "ratio.1", dwspp.ratio[1], 1, 1000, "upper bound of rung 1"),
    DBL("dwspp", "ratio.2", dwspp.ratio[2], 1, 1000, "upper bound of rung 2"),
    DBL("dwspp", "ratio.3", dwspp.ratio[3], 1, 1000, "upper bound of rung 3"),
    DBL("dwspp", "diff_thres.0", dwspp.diff_thres[0], 0, 1000, "DIFF_THRES of rung 0 (>= 1: no stealing)"),
    DBL("dwspp", "diff_thres.1", dwspp.diff_thres[1], 0, 1000, "DIFF_THRES of rung 1"),
    DBL("dwspp", "diff_thres.2", dwspp.diff_thres[2], 0, 1000, "DIFF_THRES of rung 2"),
    DBL("dwspp", "diff_thres.3", dwspp.diff_thres[3], 0, 1000, "DIFF_THRES of rung 3"),
    DBL("dwspp", "diff_thres.4", dwspp.diff_thres[4], 0, 1000, "DIFF_THRES of rung 4 (ratio above ratio.3)"),
    DBL("dwspp", "queue_thres", dwspp.queue_thres, 0, 1, "QUEUE_THRES"),
    BOOL("dwspp", "strict_bounds", dwspp.strict_bounds,
         "a ratio equal to a bound takes the next rung (the authors' simulator)"),

    /* enable goes to both sim_config.gmmu and system.gmmu: they must agree. */
    { .section = "gmmu", .key = "enable", .type = KNOB_BOOL, .off = KNOB_OFF(gmmu),
      .off2 = KNOB_OFF(system.gmmu), .help = "a GMMU per GPU between its L2 and its link" },
    ENUM("gmmu", "mode", gmmu_cfg.mode, gmode_names, "architecture"),
    U64("gmmu", "epoch_cycles", gmmu_cfg.epoch_cycles, 1, U64MAX, "sampling epoch, cycles"),
    DBL("gmmu", "t1", gmmu_cfg.t1, 0, 1, "L/T above this: bypass off (t2 <= t1)"),
    DBL("gmmu", "t2", gmmu_cfg.t2, 0, 1, "L/T below this: bypass on"),
    ENUM("gmmu", "initial_route", gmmu_cfg.initial_route, route_names, "route of the first epoch"),
    U32("gmmu", "counter_bits", gmmu_cfg.counter_bits, 1, 32, "width of the L and R counters"),
    ENUM("gmmu", "overflow", gmmu_cfg.overflow, overflow_names, "full counter policy"),
    U32("gmmu", "min_samples", gmmu_cfg.min_samples, 0, UMAX, "an epoch with fewer keeps the route"),
    U32("gmmu", "max_outstanding", gmmu_cfg.max_outstanding, 0, UMAX, "requests tracked at once (0: 512)"),
    U32("gmmu", "clock_num", gmmu_cfg.clock_num, 0, CLK, "clock ratio numerator (0 with clock_den 0: 1:1)"),
    U32("gmmu", "clock_den", gmmu_cfg.clock_den, 0, CLK, "clock ratio denominator"),

    U32("fbarre", "filter_rows", fbarre.filter_rows, 1, 1048576, "buckets of each filter, a power of two"),
    U32("fbarre", "filter_ways", fbarre.filter_ways, 1, 8, "fingerprints per bucket"),
    U32("fbarre", "fp_bits", fbarre.fp_bits, 4, 32, "fingerprint bits"),
    U32("fbarre", "filter_latency", fbarre.filter_latency, 0, UMAX,
        "cycles of the filter probes after the L2's miss (0: in parallel)"),
    U32("fbarre", "tlb_latency", fbarre.tlb_latency, 0, UMAX, "cycles of one L2 lookup for a candidate"),
    U32("fbarre", "pec_latency", fbarre.pec_latency, 0, UMAX, "cycles of a PEC step"),
    U32("fbarre", "msg_latency", fbarre.msg_latency, 0, UMAX, "cycles of a filter-update message"),
    U32("fbarre", "msg_queue", fbarre.msg_queue, 0, UMAX, "unsent messages queued before drops"),
    U32("fbarre", "msgs_per_cycle", fbarre.msgs_per_cycle, 1, UMAX, "messages sent a cycle"),
    DBL("fbarre", "drop_prob", fbarre.drop_prob, 0, 1, "probability that a message is lost"),
    U32("fbarre", "oracle", fbarre.oracle, 0, 1, "1: messages never dropped nor queued (Fig 19)"),
    U32("fbarre", "max_outstanding", fbarre.max_outstanding, 1, UMAX, "the L2's requests in flight"),
    U32("fbarre", "peer_slots", fbarre.peer_slots, 1, UMAX, "peers' requests served at once"),
    U32("fbarre", "pec_entries", fbarre.pec_entries, 1, 1024, "entries of the chiplet's PEC buffer"),
    U32("fbarre", "clock_num", fbarre.clock_num, 0, CLK, "clock ratio numerator (0 with clock_den 0: 1:1)"),
    U32("fbarre", "clock_den", fbarre.clock_den, 0, CLK, "clock ratio denominator"),

    U32("memory", "levels", mem.levels, 4, 5, "page-table levels"),
    U32("memory", "page_shift", mem.page_shift, 12, 21, "page shift: 12 (4 KiB) or 21 (2 MiB)"),
    ENUM("memory", "placement", mem.placement, place_names, "which GPU's memory a page goes to"),
    U64("memory", "chunk_pages", mem.chunk_pages, 1, U64MAX, "chunked placement: pages per chunk"),
    U64("memory", "frames_per_gpu", mem.frames_per_gpu, 1, U64MAX, "frames of each GPU's region"),
    U64("memory", "map_chunk_pages", mem.map_chunk_pages, 1, U64MAX,
        "pages mapped together on first touch (a Barre object)"),

    BOOL("barre", "enable", barre.enable, "Barre: group allocator and the IOMMU's PEC logic"),
    BOOL("barre", "fbarre", barre.fbarre, "an F-Barre unit per chiplet (needs enable)"),
    ENUM("barre", "placement", barre.placement, bplace_names, "the group allocator's placement"),
    U32("barre", "interlv_gran", barre.interlv_gran, 1, UMAX, "LASP pages per chiplet per round"),
    U32("barre", "max_merge", barre.max_merge, 1, 4,
        "1: Barre's PTE layout; 2..4: F-Barre's merged groups (expanded layout)"),
    U32("barre", "pec_entries", barre.pec_entries, 1, 1024, "PEC buffer entries"),

    ENUM("run", "mode", run.mode, mode_names, "timed, or functional (translations only)"),
    U64("run", "requests", run.requests, 0, U64MAX, "stop after this many (0: the whole source)"),
    U64("run", "warmup", run.warmup, 0, U64MAX, "statistics reset after this many completed"),
    U64("run", "seed", run.seed, 0, U64MAX, "workloads' and the context's seed"),
    U32("run", "issue_interval", run.issue_interval, 0, UMAX, "untimed sources: cycles between a CU's requests"),
    U32("run", "cu_outstanding", run.cu_outstanding, 0, UMAX,
        "untimed sources: a CU's requests in flight (0: no limit)"),
    U32("run", "pasids", run.pasids, 1, 1048575, "tenants: PASIDs 1..pasids"),
    STR("run", "workload", run.workload, "NAME[:k=v,...] when no --workload/--trace is given"),
    STR("run", "trace", run.trace, "a trace file when no --workload/--trace is given"),
};
const size_t sim_knobs_more_n = sizeof(sim_knobs_more) / sizeof(sim_knobs_more[0]);
