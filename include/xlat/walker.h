/**
 * @file walker.h
 * @brief A pool of page-table walkers: a bounded request buffer, a
 *        scheduler, page-table reads through a memory model, page walk
 *        caches, faults, and neighborhood-aware coalescing.
 */
#ifndef XLAT_WALKER_H
#define XLAT_WALKER_H

#include "barre.h"
#include "common.h"
#include "pagetable.h"
#include "pwc.h"
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup walker Page-table walkers
 * @brief Walks are sequences of real page-table reads, scheduled on a
 *        shared set of walkers.
 *
 * A request accepted by xlat_walker_translate() waits in the buffer until
 * the scheduler gives it a walker (a free walker takes an arriving request
 * at once). A walk looks up the page walk cache, then reads one entry per
 * remaining level, each read taking `mem_latency` cycles or as long as the
 * host's memory takes. At the leaf the request is answered. `mem_latency`
 * counts the pool's own cycles when its config sets a clock ratio
 * (xlat_walker_config::clock_num; @ref clocks).
 *
 * A walker pool caches no translation of its own: its page walk cache is the
 * host's (xlat_walker_config::pwc), emptied by xlat_pwc_invalidate() and
 * xlat_pwc_flush(); so the pool has no invalidate or flush.
 *
 * @code
 * xlat_walker_config wc;
 * xlat_walker_config_init(&wc);
 * wc.pt = pt; wc.pwc = pwc; wc.walkers = 8; wc.queue_entries = 256;
 * wc.coalesce = true;                      // neighborhood-aware walks
 * xlat_walker *walkers;
 * xlat_walker_create(ctx, &wc, &walkers);
 * xlat_target below = XLAT_TARGET_INIT;
 * xlat_walker_get_target(walkers, &below);
 * xlat_tlb_set_next(l2, &below);
 * @endcode
 *
 * **Schedulers** (chosen at create time):
 * - ::XLAT_SCHED_FCFS: one shared queue, first come first served (the
 *   baseline of all five papers).
 * - ::XLAT_SCHED_PARTITION: walkers and queue slots split equally among
 *   tenants; a tenant only ever uses its own walkers.
 * - ::XLAT_SCHED_DWS: "Improving GPU Multi-tenancy with Page Walk
 *   Stealing" §V, §VI-B: per-walker queues, least-loaded owned walker on arrival,
 *   a walker steals only when its tenant has nothing queued.
 * - ::XLAT_SCHED_DWSPP: the same paper's DWS++ (§V, §VI-B): epoch ratio ladder,
 *   DIFF_THRES and QUEUE_THRES, no consecutive steals.
 *
 * **Neighborhood-aware coalescing** ("Neighborhood-aware address
 * translation for irregular GPU applications" §IV) composes with every
 * scheduler: when a read of level k completes, every buffered request of the
 * same address space whose level-k entry lies in the same line is advanced
 * (to done at the leaf, to the next node above it), and a request that an
 * ongoing walk could serve is not started.
 *
 * **Callbacks** run inside xlat_tick()/xlat_advance() or inside
 * xlat_walker_mem_done() / xlat_walker_fault_resume(), never inside the
 * xlat_walker_translate() that handed the pool the request; they may call
 * xlat_walker_translate() and the functional page-table calls. The host may
 * call xlat_walker_mem_done() from inside `mem_read` and
 * xlat_walker_fault_resume() from inside the fault callback: such calls
 * are accepted at once and take effect in the same cycle (doc/walks.md,
 * "Completion rule").
 *
 * Reads that complete in the same cycle are processed in walker-id order.
 * @{
 */

/** @brief Scheduling policy. */
typedef enum xlat_walk_sched {
    XLAT_SCHED_FCFS = 0,      /**< One shared queue, first come first served. */
    XLAT_SCHED_PARTITION = 1, /**< Static partition of walkers and queue slots among tenants. */
    XLAT_SCHED_DWS = 2,       /**< Dynamic walker stealing. */
    XLAT_SCHED_DWSPP = 3      /**< DWS++: stealing weighted by the tenants' walk rates. */
} xlat_walk_sched;

/** @brief How walkers are divided among tenants (partition, DWS, DWS++). */
typedef enum xlat_walker_assign {
    XLAT_ASSIGN_CONTIGUOUS = 0, /**< Tenant 0 owns walkers 0..N/T-1, tenant 1 the next block, ... */
    XLAT_ASSIGN_INTERLEAVED = 1 /**< Walker i belongs to tenant i mod T. */
} xlat_walker_assign;

/** @brief DWS++ presets of the paper's Tables IV and VII. */
typedef enum xlat_dwspp_variant {
    XLAT_DWSPP_DEFAULT = 0,      /**< Table IV. */
    XLAT_DWSPP_CONSERVATIVE = 1, /**< Table VII, Conservative: QUEUE_THRES 0.17. */
    XLAT_DWSPP_AGGRESSIVE = 2    /**< Table VII, Aggressive: DIFF_THRES 0.3 throughout. */
} xlat_dwspp_variant;

/** @brief DWS++ parameters ("Improving GPU Multi-tenancy with Page Walk
 *         Stealing" §VI-B); fill with xlat_dwspp_preset(). */
typedef struct xlat_dwspp_config {
    uint32_t struct_size;   /**< sizeof(xlat_dwspp_config), set by xlat_dwspp_preset(). */
    uint32_t epoch_length;  /**< arrivals per epoch (default 200) */
    double   ratio[4];      /**< upper bounds of the ratio ladder (1.5, 2, 3, 4) */
    double   diff_thres[5]; /**< DIFF_THRES per rung; >= 1.0 means "no stealing" */
    double   queue_thres;   /**< QUEUE_THRES (default 0.51) */
    /** false: a ratio equal to a bound takes the lower rung (the paper's
     *  "R <= 1.5"); true: it takes the next rung, as the authors' simulator does. */
    bool     strict_bounds;
} xlat_dwspp_config;

/**
 * @brief Smallest `struct_size` of an ::xlat_dwspp_config a walker accepts:
 *        the size of the first release's struct (through `strict_bounds`).
 */
#define XLAT_DWSPP_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_dwspp_config, strict_bounds)

/**
 * @brief xlat_dwspp_preset() for a caller whose ::xlat_dwspp_config is
 *        `size` bytes: the preset within them, anything beyond this
 *        library's struct zeroed, `struct_size` set to `size` (doc/abi.md).
 *        Call xlat_dwspp_preset(), which passes the caller's own sizeof.
 * @param cfg the parameters to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 * @param variant which preset; a value that is not an ::xlat_dwspp_variant
 *        gets the ::XLAT_DWSPP_DEFAULT ladder.
 */
XLAT_API void xlat_dwspp_preset_sized(xlat_dwspp_config *cfg, size_t size,
                                      xlat_dwspp_variant variant);

/**
 * @brief Fill `cfg` with a preset of Tables IV / VII.
 * @param cfg the parameters to fill (every field is set, `struct_size`
 *        included); NULL does nothing.
 * @param variant which preset; a value that is not an ::xlat_dwspp_variant
 *        gets the ::XLAT_DWSPP_DEFAULT ladder.
 */
static inline void xlat_dwspp_preset(xlat_dwspp_config *cfg, xlat_dwspp_variant variant)
{
    xlat_dwspp_preset_sized(cfg, sizeof(*cfg), variant);
}

/**
 * @brief The host's memory: read `bytes` at `paddr` for the walk step `token`.
 * @return ::XLAT_OK (accepted: call xlat_walker_mem_done(pool, token) when the
 *         data is there) or ::XLAT_ERR_AGAIN (busy: the walker retries next cycle).
 */
typedef int (*xlat_mem_read_fn)(void *user, uint64_t paddr, uint32_t bytes, uint64_t token);

/** @brief A walk that reached a non-present entry. */
typedef struct xlat_walk_fault {
    uint64_t    token;       /**< for xlat_walker_fault_resume() */
    uint64_t    id;          /**< the request's id */
    uint32_t    pasid;       /**< its address space */
    uint64_t    vaddr;       /**< its virtual address */
    xlat_access access;      /**< its access kind */
    uint32_t    level;       /**< level of the non-present entry */
    uint64_t    entry_paddr; /**< physical address of that entry */
    uint32_t    gpu;         /**< the request's origin GPU */
} xlat_walk_fault;

/**
 * @brief Fault callback. The walker stays with the walk until the host calls
 *        xlat_walker_fault_resume() (at once or later): with ::XLAT_OK after
 *        mapping the page, the walk re-reads the entry and goes on; with an
 *        error status, the request is answered with it.
 *
 * With coalescing, a fault may also belong to a buffered request whose
 * entry another walker's line showed not present: it holds no walker and
 * waits in its buffer slot until resumed (see doc/walks.md). An address
 * space with no page table faults at level `levels` with `entry_paddr` 0;
 * resuming it with ::XLAT_OK when there is still no table answers
 * ::XLAT_ERR_FAULT.
 */
typedef void (*xlat_walk_fault_fn)(void *user, xlat_walker *pool, const xlat_walk_fault *fault);

/** @brief A buffered or in-service request, as reported to hooks and inspection calls. */
typedef struct xlat_walk_info {
    uint64_t id;        /**< the request's id */
    uint32_t pasid;     /**< address space */
    uint64_t vaddr;     /**< virtual address */
    uint32_t tenant;    /**< tenant (scheduling group) */
    uint64_t arrival;   /**< cycle it was accepted */
    int32_t  queue;     /**< queue it waits in (0 for the shared queue; the walker's for per-walker queues); -1 in service */
    int32_t  walker;    /**< walker serving it, -1 while buffered */
    uint32_t level;     /**< in service: level being read; buffered: PL, the deepest level
                             coalesced so far (0 = none) */
    uint64_t node_pfn;  /**< in service: node being read; buffered: PA, the node to read next */
    bool     cl;        /**< buffered: an ongoing walk could serve it (not started) */
    bool     stolen;    /**< in service on a walker of another tenant */
} xlat_walk_info;

/**
 * @brief Scheduling hook: return true to keep a buffered request waiting
 *        this time (for coalescing-aware policies). Called for candidates in
 *        queue order whenever a walker looks for work.
 */
typedef bool (*xlat_walk_defer_fn)(void *user, const xlat_walk_info *candidate);

/** @brief Kind of a traced walker event. */
typedef enum xlat_walk_event_kind {
    XLAT_WALK_ARRIVE = 0,   /**< a request was accepted (walker -1 when buffered) */
    XLAT_WALK_START = 1,    /**< a walker started a request */
    XLAT_WALK_READ = 2,     /**< a page-table read completed (level, line_paddr) */
    XLAT_WALK_COALESCE = 3, /**< a buffered request advanced through another walk's read */
    XLAT_WALK_DONE = 4,     /**< a request was answered */
    XLAT_WALK_PEC = 5       /**< a buffered request was taken by walker `walker`'s PEC logic
                                 (its DONE follows after the PEC latency) */
} xlat_walk_event_kind;

/** @brief A traced walker event. */
typedef struct xlat_walk_event {
    xlat_walk_event_kind kind; /**< what happened */
    uint64_t cycle;            /**< when */
    uint64_t id;               /**< the request */
    uint32_t tenant;           /**< its tenant */
    int32_t  walker;           /**< the walker involved (-1: none) */
    uint32_t level;            /**< READ/COALESCE: the level of the line; DONE: 0 */
    uint64_t line_paddr;       /**< READ/COALESCE: the 64-byte line */
    bool     stolen;           /**< START: the walker belongs to another tenant */
    int      status;           /**< DONE: the answer's status */
} xlat_walk_event;

/** @brief Trace callback (for tests, logs and visualisation). */
typedef void (*xlat_walk_trace_fn)(void *user, const xlat_walk_event *ev);

/** @brief Configuration; fill with xlat_walker_config_init(). */
typedef struct xlat_walker_config {
    uint32_t           struct_size;   /**< sizeof(xlat_walker_config), set by init. */
    const char        *name;          /**< for responses and statistics (copied; NULL: "walker") */
    xlat_pagetable    *pt;            /**< the page tables walked (required; not owned) */
    xlat_pwc          *pwc;           /**< page walk cache (optional; not owned) */
    uint32_t           walkers;       /**< walkers (default 8) */
    uint32_t           queue_entries; /**< buffered requests in all (default 256); per-walker
                                           schedulers give each walker queue_entries / walkers */
    uint32_t           mem_latency;   /**< cycles per page-table read without `mem_read` (default 100) */
    xlat_mem_read_fn   mem_read;      /**< host memory model (NULL: fixed latency) */
    void              *mem_user;      /**< first argument of `mem_read` */
    uint32_t           line_bytes;    /**< bytes per read, a power of two 8..4096 (default 64) */
    xlat_walk_sched    sched;         /**< scheduler (default FCFS) */
    uint32_t           tenants;       /**< tenants, 1..64 (default 1); tenant = pasid mod tenants
                                           unless set by xlat_walker_set_tenant() */
    xlat_walker_assign assign;        /**< walker ownership (default contiguous) */
    bool               idle_steal;    /**< DWS/DWS++: an arrival may start on an idle walker of
                                           another tenant when none of its own is idle (default true) */
    /** DWS++ parameters: a template copied by xlat_walker_create(),
     *  honouring its own struct_size; NULL (the default): Table IV. */
    const xlat_dwspp_config *dwspp;
    bool               coalesce;      /**< neighborhood-aware coalescing (default false) */
    bool               coalesce_pwc;  /**< a walk started from a coalesced level also probes the
                                           PWC and starts from the deeper of the two (default false) */
    xlat_walk_fault_fn fault_fn;      /**< faults (NULL: answer ::XLAT_ERR_FAULT at once) */
    void              *fault_user;    /**< first argument of `fault_fn` */
    xlat_walk_defer_fn defer_fn;      /**< scheduling hook (NULL: none) */
    void              *defer_user;    /**< first argument of `defer_fn` */
    xlat_walk_trace_fn trace_fn;      /**< event trace (NULL: none) */
    void              *trace_user;    /**< first argument of `trace_fn` */
    /** With `coalesce` and a `pwc`: the upper-level entries a buffered request
     *  obtains from another walker's line fill the page walk cache too, as
     *  the walker's own do (default true, the seed-002 note's reading of
     *  "Neighborhood-aware address translation" §IV; false: only entries a
     *  walker reads for its own walk fill it). */
    bool               coalesce_fill_pwc;
    /** Clock of the walker pool against its context's: it runs at clock_num /
     *  clock_den times the context's frequency (in a context clocked as a 1.4 GHz
     *  GPU, a unit at 1 GHz has 5 / 7). `mem_latency`, the PWC's latency and the
     *  retry of a read the host refused count its own cycles; an answer of the host's
     *  `mem_read` is taken in the context cycle it comes. Answers (xlat_resp::issued,
     *  xlat_resp::completed) carry context cycles. So do xlat_walk_info::arrival,
     *  xlat_walk_event::cycle and the statistics' `queue_cycles`, `service_cycles`
     *  and histograms. In an IOMMU's `walk` template, 0/0 takes the IOMMU's clock.
     *  Both 0 (the default): 1:1. Otherwise both are in 1..::XLAT_CLOCK_RATIO_MAX, or
     *  create fails with ::XLAT_ERR_INVAL. See @ref clocks. */
    uint32_t           clock_num;
    /** Denominator of the clock ratio (see clock_num); 0 only with clock_num 0. */
    uint32_t           clock_den;
    /** Barre Chord's PEC logic ("Barre Chord: Efficient Virtual Memory Translation
     *  for Multi-Chip-Module GPUs" §IV-F): the PEC buffer its data objects are
     *  looked up in (not owned; the pool holds it, so it outlives the pool).
     *  NULL (the default): no PEC. When a walk ends on a leaf whose group
     *  (bits 52..62, xlat_coal_decode()) has more than one chiplet, buffered
     *  requests of other pages of that group are answered with computed frames
     *  instead of walked (doc/barre.md, "PEC logic and coalescing-aware
     *  scheduling"). */
    xlat_pec_buffer   *pec;
    /** Chiplet g's first global frame, for g in 0..pec_chiplets - 1, in pages of
     *  the walked size (copied at create; required with `pec`). */
    const uint64_t    *pec_base_pfn;
    /** Entries of `pec_base_pfn`, 1..16 with `pec`. A data object whose
     *  gpu_map names a chiplet beyond them is not coalesced. */
    uint32_t           pec_chiplets;
    /** The group information is in the expanded (F-Barre, ≤ 4 chiplets) layout
     *  of xlat_coal_encode() rather than Barre's (default false). */
    bool               pec_expanded;
    /** Cycles of the pool's clock the PEC logic spends per computed answer, at
     *  most 1000000 (default 1). Each walker has its own PEC logic and computes
     *  one answer after another: the k-th member found by a walk ending at cycle T
     *  is answered at T + k * pec_latency (later when the logic is still busy with
     *  the walker's previous group). 0 answers them in the walk's cycle. */
    uint32_t           pec_latency;
    /** Multicast every member (default false, as the paper's final design):
     *  the PEC logic computes every member of the group in position order,
     *  answering the buffered ones and spending `pec_latency` on each member no
     *  one asked for (the outbound traffic that made the paper drop the
     *  multicast; counted in xlat_walker_stats::pec_multicast, delivered
     *  nowhere, as the pool has no port to the chiplets' TLBs). Needs `pec`. */
    bool               pec_multicast;
    /** Coalescing-aware walk scheduling (§V-C): a buffered request that an
     *  in-flight walk's group may hold (same address space and data object, a
     *  gap that is a non-zero multiple of interlv_gran within the group's
     *  positions) is not started while that walk runs, and each cycle the
     *  front of every queue, when it is such a request, moves to the tail (one
     *  rotation per queue per cycle). Composes with every scheduler. Needs
     *  `pec` (default false). */
    bool               coal_aware;
} xlat_walker_config;

/**
 * @brief Smallest `struct_size` xlat_walker_create() accepts: the size of the first
 *        released ::xlat_walker_config (its members through `coalesce_fill_pwc`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_WALKER_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_walker_config, coalesce_fill_pwc)

/** @brief Buckets of the latency histograms: bucket b counts latencies in [2^(b-1), 2^b) (b = 0: zero). */
#define XLAT_WALK_HIST_BUCKETS 32

/** @brief Pool counters. */
typedef struct xlat_walker_stats {
    uint64_t requests;        /**< accepted requests */
    uint64_t refusals;        /**< requests refused with ::XLAT_ERR_AGAIN */
    uint64_t walks;           /**< walks started on a walker */
    uint64_t completed;       /**< requests answered */
    uint64_t faults;          /**< fault callbacks (or fault answers without one) */
    uint64_t reads;           /**< page-table reads */
    uint64_t reads_level[XLAT_PT_MAX_LEVELS + 1]; /**< reads by level */
    uint64_t pwc_lookups;     /**< PWC lookups */
    uint64_t pwc_hits[XLAT_PT_MAX_LEVELS + 1];    /**< PWC hits by the level of the entry found */
    uint64_t coalesced;       /**< requests answered from another walk's leaf read (no walk) */
    uint64_t partial_coalesces; /**< buffered requests advanced by another walk's upper-level read */
    uint64_t stolen;          /**< walks served by a walker of another tenant */
    uint64_t mem_retries;     /**< reads the host's memory refused (retried) */
    uint64_t queue_cycles;    /**< sum over answered requests of cycles waiting for a walker */
    uint64_t service_cycles;  /**< sum of cycles from start (or coalescing) to answer */
    uint64_t queue_hist[XLAT_WALK_HIST_BUCKETS];   /**< queueing latency histogram */
    uint64_t service_hist[XLAT_WALK_HIST_BUCKETS]; /**< service latency histogram */
    uint64_t pec_answers;     /**< requests answered by the PEC logic with a computed frame
                                   (walks avoided) */
    uint64_t pec_multicast;   /**< members computed that no buffered request asked for
                                   (xlat_walker_config::pec_multicast) */
    uint64_t rotations;       /**< fronts moved to the tail by coalescing-aware scheduling */
} xlat_walker_stats;

/** @brief Per-tenant counters. */
typedef struct xlat_walker_tenant_stats {
    uint64_t requests;        /**< accepted */
    uint64_t completed;       /**< answered */
    uint64_t queue_cycles;    /**< sum of queueing latency */
    uint64_t service_cycles;  /**< sum of service latency */
    uint64_t stolen;          /**< this tenant's walks served by other tenants' walkers */
    uint64_t steals;          /**< walks this tenant's walkers stole from others */
    uint64_t interleave;      /**< sum over walks of the foreign walks each waited behind */
    uint64_t interleave_max;  /**< the longest run of foreign walks one walk waited behind */
    uint64_t queued;          /**< walks waiting now */
    uint64_t in_service;      /**< walks being walked now */
} xlat_walker_tenant_stats;

/**
 * @brief xlat_walker_config_init() for a caller whose ::xlat_walker_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_walker_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_walker_config_init_sized(xlat_walker_config *cfg, size_t size);

/**
 * @brief Defaults: 8 walkers, 256 buffered, 100-cycle reads, 64-byte lines, FCFS, 1 tenant.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_walker_config_init(xlat_walker_config *cfg)
{
    xlat_walker_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a walker pool on `ctx`. Everything the pool needs while it
 *        runs is taken here: queue_entries + walkers request records and
 *        the events it can have pending at once (walkers + 3, and one per
 *        walker's PEC logic with `pec`), so nothing
 *        inside xlat_tick() / xlat_advance() allocates or fails.
 * @param ctx the context.
 * @param cfg the configuration (copied).
 * @param out receives the handle.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments or `pt`, walkers 0, queue_entries 0
 *         (or fewer than one per walker for per-walker schedulers), tenants
 *         outside 1..64 or more tenants than walkers for partition/DWS,
 *         walkers not divisible by tenants for partition/DWS, a line size
 *         that is not a power of two in 8..4096, an unknown scheduler, a PWC
 *         whose geometry differs from the page table's, a bad DWS++ ladder,
 *         `pec` without `pec_base_pfn` or with `pec_chiplets` outside 1..16,
 *         `pec_latency` above 1000000, `pec_multicast` or `coal_aware` without `pec`
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_walker_create(xlat_ctx *ctx, const xlat_walker_config *cfg, xlat_walker **out);

/**
 * @brief Destroy; requests in flight are dropped unanswered. NULL does nothing.
 * @param pool the pool, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit whose next level it is, or a GMMU configured with it still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_walker_destroy(xlat_walker *pool);

/**
 * @brief Accept a translation request at the current cycle.
 * @param pool the pool.
 * @param req the request (copied).
 * @param done called once with the answer.
 * @param user passed back to `done`.
 * @retval XLAT_OK accepted; `done` is called exactly once
 * @retval XLAT_ERR_AGAIN the buffer (or, for per-walker schedulers, every
 *         queue the request may use) is full, or every one of the pool's
 *         queue_entries + walkers request records is held (answers under
 *         way hold theirs until `done` returns); nothing was taken. The
 *         pool's ::xlat_target `wait` hook calls the sender back when room
 *         frees (at most two senders wait at once; a third is told
 *         ::XLAT_ERR_AGAIN and polls).
 * @retval XLAT_ERR_INVAL NULL `pool`, `req` or `done`, or `req->access` is
 *         not an ::xlat_access
 */
XLAT_API int xlat_walker_translate(xlat_walker *pool, const xlat_req *req, xlat_done_fn done,
                                   void *user);

/**
 * @brief The pool as an ::xlat_target, to be the next level of another unit
 *        (or the host's target).
 * @param walker the pool.
 * @param out receives the target: start it with ::XLAT_TARGET_INIT; at most
 *        `out->struct_size` bytes are written (what a newer host's struct
 *        has beyond this library's is zeroed), and `struct_size` stays the
 *        host's. `translate` is xlat_walker_translate(), and `wait` calls the sender back when room frees (see xlat_walker_translate());
 *        `unit_id` is this walker's unit id.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `walker` or `out`, or `out->struct_size`
 *         below ::XLAT_TARGET_SIZE_V0 (or not a size at all)
 */
XLAT_API int xlat_walker_get_target(xlat_walker *walker, xlat_target *out);

/**
 * @brief The host's memory answers the read `token`.
 * @param pool the pool.
 * @param token the token `mem_read` was given.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND no read with that token is outstanding
 * @retval XLAT_ERR_INVAL NULL `pool`
 */
XLAT_API int xlat_walker_mem_done(xlat_walker *pool, uint64_t token);

/**
 * @brief Resume a faulted walk: `status` ::XLAT_OK re-reads the entry (the
 *        host has mapped the page); any other status answers the request with it.
 * @param pool the pool.
 * @param token xlat_walk_fault::token of the fault.
 * @param status ::XLAT_OK to retry the walk, or the status to answer with.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOT_FOUND no faulted walk has that token
 * @retval XLAT_ERR_INVAL NULL `pool`
 */
XLAT_API int xlat_walker_fault_resume(xlat_walker *pool, uint64_t token, int status);

/**
 * @brief Put `pasid` in scheduling group `tenant` (default: pasid mod tenants).
 *
 * A second call for the same `pasid` replaces its assignment.
 * @param pool the pool.
 * @param pasid the address space.
 * @param tenant the group, below xlat_walker_config::tenants.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL or tenant out of range
 * @retval XLAT_ERR_FULL too many explicit assignments (at most 256)
 */
XLAT_API int xlat_walker_set_tenant(xlat_walker *pool, uint32_t pasid, uint32_t tenant);

/**
 * @brief Requests waiting in the buffer.
 * @param pool the pool, or NULL.
 * @return the count; 0 for NULL.
 */
XLAT_API size_t xlat_walker_buffered(const xlat_walker *pool);

/**
 * @brief Walkers busy now.
 * @param pool the pool, or NULL.
 * @return the count; 0 for NULL.
 */
XLAT_API uint32_t xlat_walker_busy(const xlat_walker *pool);

/**
 * @brief The `index`-th buffered request in arrival order (PL, PA, CL).
 * @param pool the walker pool.
 * @param index position in the buffer, 0 the oldest.
 * @param out receives the request's ::xlat_walk_info.
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing; the return value still answers.
 * @return a status:
 * @retval XLAT_OK `*out` filled
 * @retval XLAT_ERR_NOT_FOUND fewer buffered requests
 * @retval XLAT_ERR_INVAL NULL pool or out
 */
XLAT_API int xlat_walker_buffered_info(const xlat_walker *pool, size_t index, xlat_walk_info *out,
                                       size_t out_size);

/**
 * @brief What walker `walker` is doing (its walk service table entry).
 * @param pool the walker pool.
 * @param walker the walker, 0..walkers - 1.
 * @param out receives the walk's ::xlat_walk_info.
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing; the return value still answers.
 * @return a status:
 * @retval XLAT_OK busy, `*out` filled
 * @retval XLAT_ERR_NOT_FOUND idle
 * @retval XLAT_ERR_INVAL NULL pool or out, or no such walker
 */
XLAT_API int xlat_walker_service_info(const xlat_walker *pool, uint32_t walker, xlat_walk_info *out,
                                      size_t out_size);

/**
 * @brief Copy the pool counters into `*out`.
 * @param pool the walker pool (NULL: zeros).
 * @param out receives the counters, an ::xlat_walker_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_walker_stats_get(const xlat_walker *pool, xlat_walker_stats *out,
                                    size_t out_size);

/**
 * @brief Copy the counters of `tenant`.
 * @param pool the walker pool.
 * @param tenant the tenant, 0..tenants - 1.
 * @param out receives the tenant's ::xlat_walker_tenant_stats.
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing; the return value still answers.
 * @return a status:
 * @retval XLAT_OK `*out` filled
 * @retval XLAT_ERR_INVAL NULL pool or out, or tenant out of range
 */
XLAT_API int xlat_walker_tenant_stats_get(const xlat_walker *pool, uint32_t tenant,
                                          xlat_walker_tenant_stats *out, size_t out_size);

/**
 * @brief Zero the counters (pool and tenants; current queue/service gauges
 *        stay) and the latency histogram (xlat_unit_latency_get()).
 * @param pool the pool; NULL does nothing.
 */
XLAT_API void xlat_walker_stats_reset(xlat_walker *pool);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_WALKER_H */
