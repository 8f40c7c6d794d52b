/**
 * @file iommu.h
 * @brief The IOMMU shared by the GPUs: ATS requests, IOMMU TLB, page-table
 *        walkers, page requests (PRI), and the inclusion policy between the
 *        GPUs' L2 TLBs and the IOMMU TLB (least-TLB among them).
 */
#ifndef XLAT_IOMMU_H
#define XLAT_IOMMU_H

#include "common.h"
#include "target.h"
#include "tlb.h"
#include "walker.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup iommu IOMMU
 * @brief Answers the GPUs' ATS requests from its TLB, a remote GPU's L2 TLB
 *        (least-TLB) or a page walk.
 *
 * A request accepted at cycle t looks up the IOMMU TLB, answered at
 * t + `tlb_latency` on a hit. On a miss it goes to the walkers then; with
 * the least-inclusive policy a positive Local TLB tracker also sends a probe
 * to that GPU's L2 TLB (through its ::xlat_l2_port; the default port answers
 * `remote_latency` cycles later); the first valid answer serves the request
 * and frees its buffer slot, and the later one is dropped. A walk raced by a
 * probe waits in the IOMMU until a walker can start it at once, so that a
 * remote hit can still abort it (least-TLB Algorithm 1); a walk already on a
 * walker runs to its end and is discarded. Answers are delivered from inside
 * xlat_tick() / xlat_advance(), never from inside xlat_iommu_translate().
 * Its latencies count its own cycles when its config sets a clock ratio
 * (xlat_iommu_config::clock_num; @ref clocks).
 *
 * @code
 * xlat_walker_config wc;
 * xlat_iommu_walker_config_init(&wc);        // the IOMMU's walkers of Table 2
 * wc.pt = pt;
 * xlat_iommu_config ic;
 * xlat_iommu_config_init(&ic);               // least-TLB's Table 2 IOMMU
 * ic.gpus = 4;
 * ic.walk = &wc;                             // copied at create
 * ic.inclusion = XLAT_INCL_LEAST;
 * xlat_iommu *iommu;
 * xlat_iommu_create(ctx, &ic, &iommu);
 * for (uint32_t g = 0; g < 4; g++)
 *     xlat_iommu_attach_l2(iommu, g, l2[g]);  // for victims, probes and spills
 * @endcode
 * @{
 */


/** @brief Inclusion policy between the GPUs' L2 TLBs and the IOMMU TLB. */
typedef enum xlat_incl {
    /** Fill every level on a walk; evictions invalidate nothing (the usual baseline). */
    XLAT_INCL_MOSTLY = 0,
    /** As mostly-inclusive, but an IOMMU TLB victim is invalidated in every attached L2 TLB. */
    XLAT_INCL_INCLUSIVE = 1,
    /** A translation lives in one level: walks fill the L2 only, an IOMMU hit moves the
     *  entry out, L2 victims go to the IOMMU TLB. */
    XLAT_INCL_EXCLUSIVE = 2,
    /** least-TLB ("Improving Address Translation in Multi-GPUs via Sharing and
     *  Spilling aware TLB Design" §4): exclusive filling plus the Local TLB tracker,
     *  remote L2 lookups and, in multi-application mode, spilling. */
    XLAT_INCL_LEAST = 3
} xlat_incl;

/** @brief How least-TLB picks the GPU that receives a spilled IOMMU victim (§4.2). */
typedef enum xlat_spill_rx {
    /** The smallest Eviction Counter, counting every native L2 victim a GPU sent to
     *  the IOMMU TLB (never decremented); ties to the lowest GPU id. */
    XLAT_SPILL_CUMULATIVE = 0,
    /** The fewest entries currently in the IOMMU TLB from that GPU; ties to the
     *  fewest valid L2 entries, then the lowest id. */
    XLAT_SPILL_OCCUPANCY = 1
} xlat_spill_rx;

/** @brief One page request (a walk that found a non-present entry). */
typedef struct xlat_iommu_fault {
    uint64_t    token;  /**< for xlat_iommu_fault_done() */
    uint64_t    id;     /**< the ATS request's id */
    uint32_t    gpu;    /**< requesting GPU */
    uint32_t    pasid;  /**< address space */
    uint64_t    vaddr;  /**< faulting address */
    xlat_access access; /**< access kind */
} xlat_iommu_fault;

/**
 * @brief Page-request (PRI) callback: a batch of `n` faults, oldest first.
 *        The host maps the pages (or not) and answers each with
 *        xlat_iommu_fault_done(), at once or later.
 */
typedef void (*xlat_iommu_fault_fn)(void *user, xlat_iommu *iommu, const xlat_iommu_fault *faults,
                                    size_t n);

/** @brief Configuration; fill with xlat_iommu_config_init(). */
typedef struct xlat_iommu_config {
    uint32_t    struct_size;    /**< sizeof(xlat_iommu_config), set by init. */
    const char *name;           /**< for responses and statistics (copied; NULL: "iommu") */
    uint32_t    gpus;           /**< GPUs that send requests (1..1024; req->gpu must be below;
                                         what the IOMMU keeps per GPU is sized by it) */
    uint32_t    buffer_entries; /**< ATS requests in service at once (default 256) */
    uint32_t    tlb_entries;    /**< IOMMU TLB entries; 0 = unbounded (default 4096) */
    uint32_t    tlb_ways;       /**< its ways (default 64) */
    uint32_t    tlb_latency;    /**< lookup cycles (default 200) */
    uint32_t    tlb2_entries;   /**< second-level IOMMU TLB (0: none; mostly-inclusive only) */
    uint32_t    tlb2_ways;      /**< its ways */
    uint32_t    tlb2_latency;   /**< its lookup cycles, after a first-level miss */
    /** Template of the walkers the IOMMU creates and owns (required, with
     *  walk->pt; NULL is ::XLAT_ERR_INVAL). Copied at create, honouring its
     *  own struct_size, so it may go away once xlat_iommu_create() returns;
     *  its fault_fn is the IOMMU's own. xlat_iommu_walker_config_init()
     *  gives the IOMMU's defaults. */
    const xlat_walker_config *walk;
    xlat_incl   inclusion;      /**< default ::XLAT_INCL_MOSTLY */
    bool        multi_app;      /**< least-TLB multi-application mode (spilling) */
    uint32_t    tracker_entries; /**< Local TLB tracker: cuckoo entries in all, split per GPU (2048) */
    uint32_t    tracker_fp_bits; /**< fingerprint bits (default 4) */
    uint32_t    tracker_bucket;  /**< slots per bucket (default 4) */
    uint32_t    remote_latency; /**< cycles from a tracker-directed probe to its answer (default 120) */
    uint32_t    spill_counter;  /**< N: spills an entry may take (default 1, the spill bit) */
    xlat_spill_rx spill_rx;     /**< receiver rule (default cumulative) */
    bool        exclude_owner;  /**< never spill back to the GPU the entry came from (default true) */
    xlat_iommu_fault_fn fault_fn; /**< page requests (NULL: answer ::XLAT_ERR_FAULT) */
    void       *fault_user;     /**< first argument of `fault_fn` */
    uint32_t    fault_batch;    /**< faults gathered before the callback (default 1) */
    uint32_t    fault_timeout;  /**< cycles a partial batch waits (default 0: at once) */
    /** Clock of the IOMMU against its context's: it runs at clock_num / clock_den
     *  times the context's frequency (in a context clocked as a 1.4 GHz GPU, a unit
     *  at 1 GHz has 5 / 7). `tlb_latency`, `tlb2_latency`, `remote_latency`,
     *  `fault_timeout` and its retries count its own cycles. Its walkers run at
     *  `walk`'s clock, or at the IOMMU's when `walk` leaves its ratio 0/0. Answers
     *  (xlat_resp::issued, xlat_resp::completed) carry context cycles. Both 0 (the
     *  default): 1:1. Otherwise both are in 1..::XLAT_CLOCK_RATIO_MAX, or create
     *  fails with ::XLAT_ERR_INVAL. See @ref clocks. */
    uint32_t    clock_num;
    /** Denominator of the clock ratio (see clock_num); 0 only with clock_num 0. */
    uint32_t    clock_den;
    /** No IOMMU TLB at all (default false), as in the baseline MCM-GPU of "Barre
     *  Chord: Efficient Virtual Memory Translation for Multi-Chip-Module GPUs"
     *  (Table II lists none). `tlb_entries` 0 is an *unbounded* TLB, not none: here
     *  a request goes to the walk queue in the cycle it is accepted, with no
     *  lookup latency (`tlb_*` and `tlb2_*` are ignored, except that a
     *  second-level TLB is refused), walks fill no IOMMU TLB, L2 victims are not
     *  followed, xlat_iommu_tlb() returns NULL and xlat_iommu_preload() is refused.
     *  Only ::XLAT_INCL_MOSTLY makes sense without one: the other policies say what
     *  the IOMMU TLB holds (inclusive back-invalidates its victims, exclusive and
     *  least-TLB keep the L2s' victims in it), so create refuses them with
     *  ::XLAT_ERR_INVAL. */
    bool        no_tlb;
    /** least-TLB's Local TLB tracker as an exact set instead of a cuckoo filter
     *  (default false): each GPU's partition holds up to tracker_entries / gpus
     *  keys (PASID, page, page size) and reports exactly those, with no false
     *  positive and no refused insertion below that capacity (a key inserted twice
     *  is held once); `tracker_fp_bits` and `tracker_bucket` are ignored. It is
     *  the "ideal 1024-entry cuckoo filter (100% true positive)" with which
     *  "Barre Chord: Efficient Virtual Memory Translation for Multi-Chip-Module
     *  GPUs" §VII-A runs least-TLB. A full partition refuses the key
     *  (xlat_iommu_stats::tracker_full), as a full cuckoo filter does. */
    bool        tracker_exact;
} xlat_iommu_config;

/**
 * @brief Smallest `struct_size` xlat_iommu_create() accepts: the size of the first
 *        released ::xlat_iommu_config (its members through `fault_timeout`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_IOMMU_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_iommu_config, fault_timeout)

/** @brief Counters of the IOMMU. */
typedef struct xlat_iommu_stats {
    uint64_t requests;        /**< ATS requests accepted */
    uint64_t refusals;        /**< ATS requests refused (buffer full) */
    uint64_t tlb_hits;        /**< answered from the IOMMU TLB (either level) */
    uint64_t tlb2_hits;       /**< of those, from the second level */
    uint64_t walks;           /**< walks issued */
    uint64_t walk_answers;    /**< requests answered by their walk */
    uint64_t remote_probes;   /**< tracker-directed probes sent */
    uint64_t remote_hits;     /**< requests answered by a remote L2 */
    uint64_t remote_misses;   /**< probes that found nothing (tracker false positives) */
    uint64_t late_discarded;  /**< answers that came second and were dropped */
    uint64_t faults;          /**< page requests raised */
    uint64_t fault_batches;   /**< fault callbacks */
    uint64_t victims_in;      /**< L2 victims inserted into the IOMMU TLB */
    uint64_t victims_dropped; /**< L2 victims abandoned (spilled entries, spill counter 0) */
    uint64_t spills;          /**< IOMMU victims spilled into an L2 TLB */
    uint64_t back_invalidations; /**< L2 entries invalidated by inclusive evictions */
    uint64_t tracker_inserts; /**< tracker insertions */
    uint64_t tracker_full;    /**< tracker insertions refused by a full partition */
    uint64_t max_spill_chain; /**< longest chain of spills set off by one victim */
    uint64_t walks_aborted;   /**< walks dropped before reaching a walker because another
                                   answer (a remote L2) came first (least-TLB Algorithm 1) */
} xlat_iommu_stats;

/**
 * @brief xlat_iommu_config_init() for a caller whose ::xlat_iommu_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_iommu_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_iommu_config_init_sized(xlat_iommu_config *cfg, size_t size);

/**
 * @brief Defaults: least-TLB's Table 2 IOMMU (4096 entries, 64 ways, 200 cycles),
 *        mostly-inclusive, 4 GPUs, tracker 2048 x 4 bits. `walk` is left NULL:
 *        point it at a template filled by xlat_iommu_walker_config_init().
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_iommu_config_init(xlat_iommu_config *cfg)
{
    xlat_iommu_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief xlat_iommu_walker_config_init() for a caller whose ::xlat_walker_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_iommu_walker_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_iommu_walker_config_init_sized(xlat_walker_config *cfg, size_t size);

/**
 * @brief Defaults of the IOMMU's walkers (xlat_iommu_config::walk): those of
 *        xlat_walker_config_init() named "iommu.walker", with 125 cycles per read
 *        (least-TLB's Table 2: 8 walkers, 500 cycles per 4-read walk). `pt` is
 *        left NULL for the caller to set.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_iommu_walker_config_init(xlat_walker_config *cfg)
{
    xlat_iommu_walker_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create an IOMMU (and its walkers, TLBs and tracker).
 * @param ctx the context.
 * @param cfg the configuration (copied, with its walkers' template).
 * @param out receives the handle.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, gpus outside 1..1024, no walkers' template
 *         (cfg->walk NULL), no page table,
 *         a second-level TLB with an inclusion policy other than mostly-inclusive,
 *         a bad TLB, walker or tracker geometry (the message says which)
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM (with a message; nothing is kept)
 *
 * Everything the IOMMU needs while it runs is allocated here: its request
 * records (buffer_entries + walk->walkers + walk->queue_entries), the default
 * L2 ports' probes (as many), a victim queue of 64 per GPU, the fault batch,
 * and a reservation on the context's event pool of
 * 2 x buffer_entries + walk->walkers + walk->queue_entries + 4 events, plus 64
 * wake-ups of refused senders. Nothing inside xlat_tick() allocates.
 */
XLAT_API int xlat_iommu_create(xlat_ctx *ctx, const xlat_iommu_config *cfg, xlat_iommu **out);

/**
 * @brief Destroy; requests in flight are dropped. The attached L2 TLBs
 *        stay the host's; they may be destroyed before or after the IOMMU
 *        (a TLB destroyed first is detached from it). NULL does nothing.
 * @param iommu the IOMMU, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit whose next level it is (a link, a GMMU, a TLB), or
 *         whose next level is one of its TLBs or walkers (xlat_iommu_tlb(),
 *         xlat_iommu_walker()), still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_iommu_destroy(xlat_iommu *iommu);

/**
 * @brief Attach GPU `gpu`'s L2 TLB: its victims, remote probes and spills,
 *        through the default ::xlat_l2_port over the TLB (probes answered
 *        `remote_latency` cycles later, inserts and invalidations at once).
 *        The IOMMU hears of the TLB's victims as one of its eviction
 *        listeners (xlat_tlb_evict_listen()): the TLB's eviction slot and
 *        any other listener stay the host's, and neither disconnects the
 *        IOMMU. Attaching another TLB for the same GPU stops listening to
 *        the first. May allocate (the listener list).
 * @param iommu the IOMMU.
 * @param gpu the GPU, below xlat_iommu_config::gpus.
 * @param l2 that GPU's L2 TLB (not owned; destroying it detaches it:
 *        that GPU then has no L2 port, and probes in flight to it arrive
 *        as misses).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `iommu` or `l2`, or gpu out of range
 * @retval XLAT_ERR_NOMEM the TLB's listener list could not grow; nothing changed
 */
XLAT_API int xlat_iommu_attach_l2(xlat_iommu *iommu, uint32_t gpu, xlat_tlb *l2);

/**
 * @brief How an L2 answers a probe.
 * @param ctx the `actx` the IOMMU passed to the probe.
 * @param hit the entry found (only valid during the call), NULL for a miss.
 */
typedef void (*xlat_l2_answer_fn)(void *ctx, const xlat_tlb_entry *hit);

/**
 * @brief Called by an L2 port's invalidate for each entry it removed.
 * @param ctx the `gctx` the IOMMU passed to the invalidate.
 * @param removed the entry removed (only valid during the call).
 */
typedef void (*xlat_l2_gone_fn)(void *ctx, const xlat_tlb_entry *removed);

/**
 * @brief The IOMMU's channel to one GPU's L2 TLB: least-TLB's remote
 *        probes, spills, shootdowns and back-invalidations all go through
 *        it, so a host can put its interconnect (latency) or its own L2
 *        there. Each function has its own `user`. xlat_iommu_attach_l2()
 *        builds the default port over an ::xlat_tlb; xlat_iommu_l2_port()
 *        returns the port attached, for a host that wraps it.
 *
 * The L2's victims reach the IOMMU through xlat_iommu_l2_victim() (the
 * default port subscribes to the TLB's evictions for that). A sized struct,
 * like ::xlat_target: start a port with ::XLAT_L2_PORT_INIT (or set
 * `struct_size` to `sizeof(xlat_l2_port)`).
 */
typedef struct xlat_l2_port {
    /** sizeof(xlat_l2_port) as the host compiled it: how many bytes
     *  xlat_iommu_l2_port() may write and xlat_iommu_attach_l2_port()
     *  reads. At least ::XLAT_L2_PORT_SIZE_V0. */
    uint32_t struct_size;
    /** Look (pasid, vaddr) up without changing replacement state and answer
     *  with `answer(actx, hit)` when the answer would arrive at the IOMMU
     *  (the default port: `remote_latency` cycles later). Return ::XLAT_OK,
     *  or a negative code: no probe was sent and `answer` is never called. */
    int (*probe)(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_answer_fn answer,
                 void *actx);
    void *probe_user;           /**< first argument of `probe` */
    /** Insert `e` (a spilled IOMMU victim, or a preload); 0 or 1 (evicted
     *  something), or a negative code (refused). May deliver it later. */
    int (*insert)(void *user, const xlat_tlb_entry *e);
    void *insert_user;          /**< first argument of `insert` */
    /** Remove every entry covering (pasid, vaddr), calling `gone(gctx, e)`
     *  for each (`gone` may be NULL), and keep a fill in flight from bringing
     *  it back; return the number removed. Called inside the shootdown. */
    int (*invalidate)(void *user, uint32_t pasid, uint64_t vaddr, xlat_l2_gone_fn gone,
                      void *gctx);
    void *invalidate_user;      /**< first argument of `invalidate` */
    /** Valid entries now (optional, NULL counts 0): the occupancy receiver
     *  rule's tie-break. */
    size_t (*count)(void *user);
    void *count_user;           /**< first argument of `count` */
    /** The unit id the IOMMU gives as xlat_resp::resolver of a remote hit:
     *  the default port's is its TLB's (xlat_unit_id()), which a host that
     *  wraps that port keeps; 0 for a host's own L2, which is no unit. */
    uint32_t unit;
} xlat_l2_port;

/** @brief Smallest `struct_size` of an ::xlat_l2_port any call accepts: the
 *         size of the first release's struct (through `unit`). */
#define XLAT_L2_PORT_SIZE_V0 XLAT_SIZE_THROUGH(xlat_l2_port, unit)

/** @brief Initializer of an empty ::xlat_l2_port with its `struct_size`
 *         set: `xlat_l2_port p = XLAT_L2_PORT_INIT;` (C and C++). */
#define XLAT_L2_PORT_INIT { (uint32_t)sizeof(xlat_l2_port), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0 }

/**
 * @brief Reach GPU `gpu`'s L2 through `port` (copied) instead of what was
 *        attached before. A TLB attached with xlat_iommu_attach_l2() still
 *        reports its victims. Destroying the IOMMU drops the probes in
 *        flight: a port must not answer them afterwards (destroy the host's
 *        interconnect first, or let it drain).
 * @param iommu the IOMMU.
 * @param gpu the GPU whose L2 the port reaches.
 * @param port the port (copied; its users are not owned).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL, gpu out of range, a `struct_size` below
 *         ::XLAT_L2_PORT_SIZE_V0, or a port without probe, insert or invalidate
 * @retval XLAT_ERR_UNSUPPORTED a port from a newer libxlat that sets fields
 *         this one does not know
 */
XLAT_API int xlat_iommu_attach_l2_port(xlat_iommu *iommu, uint32_t gpu, const xlat_l2_port *port);

/**
 * @brief The port attached for GPU `gpu` (the default one over the TLB
 *        after xlat_iommu_attach_l2()), for a host that interposes on it.
 * @param iommu the IOMMU.
 * @param gpu the GPU.
 * @param out receives a copy of the port: start it with ::XLAT_L2_PORT_INIT;
 *        at most `out->struct_size` bytes are written (what a newer
 *        host's struct has beyond this library's is zeroed), and
 *        `struct_size` stays the host's.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL, gpu out of range, nothing attached, or
 *         `out->struct_size` below ::XLAT_L2_PORT_SIZE_V0 (or not a size)
 */
XLAT_API int xlat_iommu_l2_port(const xlat_iommu *iommu, uint32_t gpu, xlat_l2_port *out);

/**
 * @brief GPU `gpu`'s L2 evicted `victim` (a host L2 behind a port reports
 *        its victims here; the IOMMU handles them after the call, in order).
 * @param iommu the IOMMU.
 * @param gpu the GPU whose L2 evicted it.
 * @param victim the entry evicted (copied).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL or gpu out of range
 * @retval XLAT_ERR_AGAIN called inside an advance with the victim queue full
 *         (64 per GPU, allocated at create; it never grows inside an advance):
 *         the victim is dropped. Only more than that within one cycle fill it.
 * @retval XLAT_ERR_NOMEM called between advances, the queue could not grow
 *         (the victim is dropped)
 */
XLAT_API int xlat_iommu_l2_victim(xlat_iommu *iommu, uint32_t gpu, const xlat_tlb_entry *victim);

/**
 * @brief Accept an ATS request from GPU `req->gpu`.
 * @param iommu the IOMMU.
 * @param req the request (copied); `req->gpu` names the sender.
 * @param done called once with the answer.
 * @param user passed back to `done`.
 * @retval XLAT_OK
 * @retval XLAT_ERR_AGAIN the buffer is full, or every request record is held
 *         by answered requests whose walk or probe is still out; nothing was
 *         taken. The target's `wait` hook calls back when room frees.
 * @retval XLAT_ERR_INVAL NULL arguments, `req->gpu` out of range, or
 *         `req->access` not an ::xlat_access
 *
 * Never allocates: the records (buffer_entries + walk->walkers +
 * walk->queue_entries) and the events are reserved by xlat_iommu_create().
 */
XLAT_API int xlat_iommu_translate(xlat_iommu *iommu, const xlat_req *req, xlat_done_fn done,
                                  void *user);

/**
 * @brief The IOMMU as an ::xlat_target, to be the next level of another unit
 *        (or the host's target).
 * @param iommu the iommu.
 * @param out receives the target: start it with ::XLAT_TARGET_INIT; at most
 *        `out->struct_size` bytes are written (what a newer host's struct
 *        has beyond this library's is zeroed), and `struct_size` stays the
 *        host's. `translate` is xlat_iommu_translate(), and `wait` calls the sender back when room frees;
 *        `unit_id` is this iommu's unit id.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `iommu` or `out`, or `out->struct_size`
 *         below ::XLAT_TARGET_SIZE_V0 (or not a size at all)
 */
XLAT_API int xlat_iommu_get_target(xlat_iommu *iommu, xlat_target *out);

/**
 * @brief Answer a page request: ::XLAT_OK after mapping the page (the walk
 *        resumes), or the status to answer the ATS request with.
 *
 * The ATS request is answered from inside xlat_tick() / xlat_advance(), as
 * every answer of the IOMMU, never from inside this call: called outside
 * them, a refused page request is answered at the next advance, in this
 * cycle.
 * @param iommu the IOMMU.
 * @param token xlat_walk_fault::token of the page request.
 * @param status ::XLAT_OK to resume the walk, or the status to answer with.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND no outstanding fault has that token
 * @retval XLAT_ERR_INVAL NULL `iommu`
 */
XLAT_API int xlat_iommu_fault_done(xlat_iommu *iommu, uint64_t token, int status);

/**
 * @brief IOMMU TLB shootdown: empties the IOMMU TLB(s) and resets the Local
 *        TLB tracker (least-TLB §4.4). The L2 TLBs and the walkers' PWC are
 *        left as they are (xlat_system_flush_gpu(), xlat_pwc_flush()).
 * @param iommu the IOMMU.
 * @return the number of entries removed from the IOMMU's TLBs (>= 0; the
 *         tracker's fingerprints are not entries), or ::XLAT_ERR_INVAL for
 *         a NULL `iommu`.
 */
XLAT_API int xlat_iommu_flush(xlat_iommu *iommu);

/**
 * @brief Invalidate one page of `pasid` everywhere the IOMMU reaches: its
 *        TLBs, the tracker, every attached L2 TLB and the walkers' PWC.
 * @param iommu the IOMMU.
 * @param pasid the address space.
 * @param vaddr an address inside the page.
 * @return the number of entries removed from the IOMMU's TLBs and the L2
 *         TLBs (>= 0; the PWC's entries are dropped but not counted: they
 *         are the walkers', see xlat_pwc_invalidate()), or ::XLAT_ERR_INVAL
 *         for a NULL `iommu`.
 */
XLAT_API int xlat_iommu_invalidate(xlat_iommu *iommu, uint32_t pasid, uint64_t vaddr);

/**
 * @brief The IOMMU TLB (first level), for statistics and inspection.
 * @param iommu the IOMMU, or NULL.
 * @return the TLB, owned by the IOMMU; NULL for NULL or an IOMMU without a
 *         TLB (xlat_iommu_config::no_tlb).
 */
XLAT_API xlat_tlb *xlat_iommu_tlb(const xlat_iommu *iommu);

/**
 * @brief The IOMMU's walkers.
 * @param iommu the IOMMU, or NULL.
 * @return the walker pool, owned by the IOMMU; NULL for NULL.
 */
XLAT_API xlat_walker *xlat_iommu_walker(const xlat_iommu *iommu);

/**
 * @brief GPU `gpu`'s Eviction Counter (cumulative) or IOMMU occupancy, per the spill rule.
 * @param iommu the IOMMU, or NULL.
 * @param gpu the GPU.
 * @return the counter; 0 for NULL, a GPU out of range, or an inclusion
 *         policy that keeps no counter.
 */
XLAT_API uint64_t xlat_iommu_eviction_counter(const xlat_iommu *iommu, uint32_t gpu);

/**
 * @brief Copy the counters into `*out`.
 * @param iommu the IOMMU (NULL: zeros).
 * @param out receives the counters, an ::xlat_iommu_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_iommu_stats_get(const xlat_iommu *iommu, xlat_iommu_stats *out, size_t out_size);

/**
 * @brief Zero the counters and the latency histogram (xlat_unit_latency_get());
 *        those of the IOMMU's own TLBs and walkers are theirs: reset them by
 *        their ids, or all with xlat_stats_reset().
 * @param iommu the IOMMU; NULL does nothing.
 */
XLAT_API void xlat_iommu_stats_reset(xlat_iommu *iommu);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_IOMMU_H */
