/**
 * @file gmmu.h
 * @brief A GPU's memory management unit: the GPU's own page-table walkers
 *        over its local page table, the path to the IOMMU, and the dynamic
 *        GMMU bypass that chooses between them.
 */
#ifndef XLAT_GMMU_H
#define XLAT_GMMU_H

#include "common.h"
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup gmmu GMMU and GMMU bypass
 * @brief Where an L2 TLB miss of one GPU is translated: by the GPU's own
 *        walkers, by the IOMMU, or by both at once ("Dynamic GMMU Bypass for
 *        Address Translation in Multi-GPU Systems", §2.3, §4).
 *
 * A GMMU caches no translation: its walkers' page walk cache is the host's
 * (xlat_pwc_flush()), and the TLBs around it have their own flushes; so it
 * has no invalidate or flush.
 *
 * @code
 * xlat_gmmu_config gc;
 * xlat_gmmu_config_init(&gc);
 * gc.name = "gpu0.gmmu"; gc.gpu = 0;
 * gc.walker = gpu0_walkers;                 // walks the GPU's local page table
 * gc.mode = XLAT_GMMU_DYNAMIC;              // epoch 10000 cycles, T1 0.85, T2 0.15
 * gc.local_base = 0x100000000ull;           // this GPU's physical memory (bytes)
 * gc.local_size = 4ull << 30;
 * xlat_gmmu *gmmu;
 * if (xlat_gmmu_create(ctx, &gc, &gmmu) != XLAT_OK) puts(xlat_ctx_errmsg(ctx));
 * xlat_target to_iommu = XLAT_TARGET_INIT, below = XLAT_TARGET_INIT;
 * xlat_link_get_target(pcie0, &to_iommu);   // the host's path to the IOMMU
 * xlat_gmmu_set_iommu(gmmu, &to_iommu);
 * xlat_gmmu_get_target(gmmu, &below);
 * xlat_tlb_set_next(gpu0_l2, &below);       // L2 TLB misses go to the GMMU
 * ...                                        // xlat_advance(ctx, ...)
 * xlat_gmmu_stats st;
 * xlat_gmmu_stats_get(gmmu, &st, sizeof st);
 * xlat_gmmu_destroy(gmmu);
 * @endcode
 *
 * **Modes** (chosen at create time):
 * - ::XLAT_GMMU_CENTRALIZED (§2.3, Fig. 1): every request goes to the IOMMU.
 * - ::XLAT_GMMU_DISTRIBUTED (§2.3, Fig. 2): the GMMU walks the local page
 *   table first; a walk that finds no mapping (the page lives on another
 *   GPU, §3) is forwarded to the IOMMU.
 * - ::XLAT_GMMU_DYNAMIC (§4, Fig. 4): GMMU bypass. Each epoch the GMMU counts
 *   the requests that touched local pages (L) and remote pages (R); at the
 *   epoch's end L/T = L / (L + R) sets the route of the next epoch: above
 *   T1 the distributed flow (::XLAT_GMMU_ROUTE_LOCAL), below T2 the IOMMU
 *   only (::XLAT_GMMU_ROUTE_BYPASS), otherwise both at once
 *   (::XLAT_GMMU_ROUTE_PARALLEL). The comparisons are strict, as the paper
 *   writes them ("larger than", "smaller than"): an L/T equal to T1 or T2
 *   gives PARALLEL.
 * - ::XLAT_GMMU_IDEAL (§3, Fig. 3): the paper's upper bound. The host's
 *   `oracle` says where each page lives: local pages take the local route,
 *   remote pages the bypass; no walk is wasted and nothing is duplicated.
 *
 * **Epochs.** Epoch k covers cycles [k × epoch_cycles, (k + 1) ×
 * epoch_cycles) of the GMMU's clock (the context's unless its config sets
 * clock_num / clock_den). The GMMU evaluates the epochs that
 * ended lazily, at its first activity (a request, an answer, a query) in a
 * later epoch; the outcome is the same as evaluating at each boundary: an
 * epoch whose L + R is below `min_samples` (e.g. an idle one) keeps the
 * route. A request keeps the route it was given on acceptance even
 * if it is answered in a later epoch.
 *
 * **Counting** (§4, §6.3). A request is counted when it is answered, once,
 * in the epoch of its answer: local when the GMMU walk answered it; remote
 * when the IOMMU answered it after the local walk found nothing; otherwise
 * (bypass, or the IOMMU was first in parallel) by the physical address of
 * the IOMMU's answer: `is_local` when given, else the range [`local_base`,
 * `local_base` + `local_size`). Answers with a failure status are not
 * counted. The counters are `counter_bits` wide (8 in §6.3); on overflow
 * both are halved (ratio-preserving, the default) or the full one saturates.
 *
 * **Answers.** The GMMU adds no latency of its own: an answer leaves it in
 * the cycle it arrives. A GMMU answer is valid when its status is ::XLAT_OK
 * or ::XLAT_ERR_PERM (a mapping was found). In parallel, the first valid
 * answer is delivered and the other is discarded when it arrives; a GMMU
 * miss is never delivered while the IOMMU's answer may still come; when
 * neither answer is valid the IOMMU's is delivered (§4). Without an IOMMU
 * target, the IOMMU side answers ::XLAT_ERR_NOT_FOUND in the cycle the
 * request would have been sent to it. A downstream refusal
 * (::XLAT_ERR_AGAIN) is retried; other downstream errors become
 * that side's answer. Requests a side refused wait in that side's queue in
 * arrival order (later ones queue behind them); the queue's head is retried
 * when the unit below has room (its wait hook), or every cycle when it has
 * none. The `done` callback is never called from inside
 * xlat_gmmu_translate() itself: an answer known there (the units below
 * answered inside their calls) leaves through an event of the same cycle.
 * Inside `done` the GMMU's own state is already settled, so the sender may
 * send again from there.
 *
 * **Admission.** The GMMU tracks at most `max_outstanding` requests at
 * once, in records it allocates at create; a request holds its record
 * until it is answered and, in parallel, until the discarded answer is
 * back too. With every record taken, xlat_gmmu_translate() refuses with
 * ::XLAT_ERR_AGAIN, and the target's wait hook wakes the refused sender
 * when a record frees. Nothing the GMMU does after accepting a request
 * allocates or can fail for want of memory: its events are reserved at
 * create (see doc/gmmu.md).
 *
 * **Lifetime.** The walker and the IOMMU target must outlive the GMMU's
 * requests: destroy the GMMU when nothing is in flight, or destroy the units
 * below it first (their requests are dropped, so are the GMMU's).
 *
 * The guide page @ref gmmu_bypass "GMMU bypass" explains the mechanism with
 * its latencies per route and what the paper leaves open.
 * @{
 */

/** @brief Translation architecture of a GMMU. */
typedef enum xlat_gmmu_mode {
    XLAT_GMMU_CENTRALIZED = 0, /**< Every request to the IOMMU (§2.3, Fig. 1); no walker needed. */
    XLAT_GMMU_DISTRIBUTED = 1, /**< Local walk first, the IOMMU on a local miss (§2.3, Fig. 2). */
    XLAT_GMMU_DYNAMIC = 2,     /**< GMMU bypass: the route changes per epoch (§4). */
    XLAT_GMMU_IDEAL = 3        /**< The ideal scheme of §3, Fig. 3: the host's `oracle` sends each
                                    request to the right MMU (local walk or IOMMU only). */
} xlat_gmmu_mode;

/** @brief Where the requests of one epoch go. */
typedef enum xlat_gmmu_routing {
    XLAT_GMMU_ROUTE_LOCAL = 0,   /**< Local walk first, IOMMU on a miss (bypass disabled). */
    XLAT_GMMU_ROUTE_BYPASS = 1,  /**< IOMMU only (bypass enabled). */
    XLAT_GMMU_ROUTE_PARALLEL = 2 /**< Local walk and IOMMU at once; the first valid answer wins. */
} xlat_gmmu_routing;

/** @brief Number of ::xlat_gmmu_routing values (size of the per-route counters). */
#define XLAT_GMMU_ROUTES 3

/** @brief Default `max_outstanding`: requests a GMMU tracks at once. Eight
 *         times the 64 concurrent walks of the paper's GMMU (§5.1), so that
 *         the walks and the IOMMU round trips of a busy GPU fit; a host
 *         modelling a given tracking table sets its size. */
#define XLAT_GMMU_DEFAULT_OUTSTANDING 512

/** @brief What a full locality counter does (the paper gives no policy, §6.3). */
typedef enum xlat_gmmu_overflow {
    XLAT_GMMU_OVERFLOW_HALVE = 0,   /**< Halve both counters, then count (keeps the ratio). */
    XLAT_GMMU_OVERFLOW_SATURATE = 1 /**< Stay at the maximum. */
} xlat_gmmu_overflow;

/**
 * @brief The host's locality test for an address the IOMMU returned.
 * @param user the config's `locality_user`.
 * @param gpu the config's `gpu`.
 * @param paddr the physical address of the IOMMU's answer (bytes).
 * @return true when `paddr` lies in the memory of GPU `gpu`.
 */
typedef bool (*xlat_gmmu_locality_fn)(void *user, uint32_t gpu, uint64_t paddr);

/**
 * @brief The host's oracle for ::XLAT_GMMU_IDEAL: where the page of a request lives.
 * @param user the config's `oracle_user`.
 * @param gpu the config's `gpu`.
 * @param req the request being accepted.
 * @return true when the page lives in the memory of GPU `gpu`.
 */
typedef bool (*xlat_gmmu_oracle_fn)(void *user, uint32_t gpu, const xlat_req *req);

/** @brief One evaluated epoch, as reported to the epoch callback. */
typedef struct xlat_gmmu_epoch {
    uint64_t          index;      /**< the epoch: cycles [index × epoch_cycles, ...) */
    uint64_t          local;      /**< requests counted local in it (exact) */
    uint64_t          remote;     /**< requests counted remote in it (exact) */
    uint32_t          counter_local;  /**< the L counter at its end (`counter_bits` wide) */
    uint32_t          counter_remote; /**< the R counter at its end */
    xlat_gmmu_routing route;      /**< the route it ran with */
    xlat_gmmu_routing next;       /**< the route chosen for the next epoch */
} xlat_gmmu_epoch;

/**
 * @brief Epoch callback: called once per evaluated epoch that counted at
 *        least one request (idle epochs are not reported), from inside the
 *        GMMU's first activity after that epoch. Must not destroy the GMMU.
 */
typedef void (*xlat_gmmu_epoch_fn)(void *user, const xlat_gmmu_epoch *epoch);

/** @brief Configuration; fill with xlat_gmmu_config_init(). */
typedef struct xlat_gmmu_config {
    uint32_t          struct_size;   /**< sizeof(xlat_gmmu_config), set by init. */
    const char       *name;          /**< for answers and statistics (copied; NULL: "gmmu") */
    uint32_t          gpu;           /**< the GPU this GMMU belongs to (passed to `is_local`) */
    xlat_walker      *walker;        /**< walkers over the GPU's local page table (not owned);
                                          required except in ::XLAT_GMMU_CENTRALIZED */
    xlat_gmmu_mode    mode;          /**< architecture (default ::XLAT_GMMU_DISTRIBUTED) */
    uint64_t          epoch_cycles;  /**< sampling epoch in cycles (default 10000: 10 µs at
                                          1 GHz, §6.1) */
    double            t1;            /**< L/T above this: bypass off (default 0.85, §4) */
    double            t2;            /**< L/T below this: bypass on (default 0.15, §4); t2 <= t1 */
    xlat_gmmu_routing initial_route; /**< route of the first epoch (default ::XLAT_GMMU_ROUTE_LOCAL:
                                          the bypass is an addition to the distributed design) */
    uint32_t          counter_bits;  /**< width of the L and R counters, 1..32 (default 8, §6.3) */
    xlat_gmmu_overflow overflow;     /**< full counter policy (default halve) */
    uint32_t          min_samples;   /**< an epoch whose L + R is below this keeps the route
                                          (default 1: only an empty epoch; 0 acts as 1) */
    uint64_t          local_base;    /**< first byte of this GPU's physical memory */
    uint64_t          local_size;    /**< bytes of it (0: no range) */
    xlat_gmmu_locality_fn is_local;  /**< locality test; overrides the range (NULL: the range) */
    void             *locality_user; /**< first argument of `is_local` */
    xlat_gmmu_epoch_fn epoch_fn;     /**< epoch log (NULL: none) */
    void             *epoch_user;    /**< first argument of `epoch_fn` */
    uint32_t          max_outstanding; /**< requests tracked at once (records, allocated at
                                            create): accepted and not yet answered, or in
                                            parallel not yet back from both sides; one more
                                            is refused with ::XLAT_ERR_AGAIN (default and 0:
                                            ::XLAT_GMMU_DEFAULT_OUTSTANDING) */
    xlat_gmmu_oracle_fn oracle;      /**< ::XLAT_GMMU_IDEAL: the page's home (required there) */
    void             *oracle_user;   /**< first argument of `oracle` */
    /** Clock of the GMMU against its context's: it runs at clock_num / clock_den
     *  times the context's frequency (in a context clocked as a 1.4 GHz GPU, a unit
     *  at 1 GHz has 5 / 7). `epoch_cycles` and its retries count its own cycles
     *  (epoch k begins at its edge k × epoch_cycles); its walker keeps its own clock.
     *  Answers (xlat_resp::issued, xlat_resp::completed) carry context cycles. So
     *  does xlat_gmmu_stats::latency_cycles. Both 0 (the default): 1:1. Otherwise
     *  both are in 1..::XLAT_CLOCK_RATIO_MAX, or create fails with ::XLAT_ERR_INVAL.
     *  See @ref clocks. */
    uint32_t          clock_num;
    /** Denominator of the clock ratio (see clock_num); 0 only with clock_num 0. */
    uint32_t          clock_den;
} xlat_gmmu_config;

/**
 * @brief Smallest `struct_size` xlat_gmmu_create() accepts: the size of the first
 *        released ::xlat_gmmu_config (its members through `oracle_user`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_GMMU_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_gmmu_config, oracle_user)

/** @brief Counters of a GMMU. */
typedef struct xlat_gmmu_stats {
    uint64_t requests;        /**< accepted requests */
    uint64_t refusals;        /**< requests refused with ::XLAT_ERR_AGAIN (every record taken,
                                   `max_outstanding`) */
    uint64_t completed;       /**< answered requests */
    uint64_t local;           /**< answered by the GMMU walk */
    uint64_t remote;          /**< answered by the IOMMU side */
    uint64_t failed;          /**< answered with a status other than OK or PERM */
    uint64_t latency_cycles;  /**< sum over answers of (completed - accepted), cycles */
    uint64_t routed[XLAT_GMMU_ROUTES]; /**< accepted requests by route */
    uint64_t gmmu_walks;      /**< requests the walker accepted */
    uint64_t wasted_walks;    /**< of those, walks that found no local mapping (§3) */
    uint64_t iommu_requests;  /**< requests the IOMMU target accepted */
    uint64_t parallel;        /**< requests issued to both at once (§4) */
    uint64_t discarded_gmmu;  /**< parallel requests answered by the IOMMU: the GMMU's answer
                                   dropped */
    uint64_t discarded_iommu; /**< parallel requests answered by the GMMU: the IOMMU's answer
                                   dropped (or its waiting copy never sent) */
    uint64_t gmmu_retries;    /**< walker refusals (::XLAT_ERR_AGAIN); the request waits and
                                   is retried when the walkers have room */
    uint64_t iommu_retries;   /**< IOMMU refusals; the request waits and is retried when the
                                   IOMMU path has room (next cycle if it has no wait hook) */
    uint64_t touched_local;   /**< answers counted local (the predictor's L, unbounded) */
    uint64_t touched_remote;  /**< answers counted remote (the predictor's R, unbounded) */
    uint64_t epochs;          /**< epochs evaluated (dynamic mode), idle ones included */
    uint64_t epochs_held;     /**< of those, epochs below `min_samples`: route kept */
    uint64_t decisions[XLAT_GMMU_ROUTES]; /**< route chosen at each evaluated epoch's end */
    /** Epochs run with a route chosen because L/T > T1 that counted requests (§6.2, Fig. 6). */
    uint64_t pred_local_epochs;
    uint64_t pred_local_hits;   /**< their counted requests that were local */
    uint64_t pred_local_total;  /**< their counted requests */
    double   pred_local_acc_sum; /**< sum of their accuracies (hits / total); mean = sum / epochs */
    /** Epochs run with a route chosen because L/T < T2 that counted requests. */
    uint64_t pred_remote_epochs;
    uint64_t pred_remote_hits;  /**< their counted requests that were remote */
    uint64_t pred_remote_total; /**< their counted requests */
    double   pred_remote_acc_sum; /**< sum of their accuracies; mean = sum / epochs */
} xlat_gmmu_stats;

/**
 * @brief xlat_gmmu_config_init() for a caller whose ::xlat_gmmu_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_gmmu_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_gmmu_config_init_sized(xlat_gmmu_config *cfg, size_t size);

/**
 * @brief Fill `cfg` with defaults: distributed, epoch 10000 cycles, T1 0.85,
 *        T2 0.15, first route local, 8-bit halving counters, min_samples 1,
 *        ::XLAT_GMMU_DEFAULT_OUTSTANDING requests tracked.
 * @param cfg the configuration to fill (NULL does nothing).
 */
static inline void xlat_gmmu_config_init(xlat_gmmu_config *cfg)
{
    xlat_gmmu_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a GMMU on `ctx`. Everything it can need while it runs is
 *        allocated here: `max_outstanding` request records and the events
 *        its configuration can have pending at once (reserved on `ctx`).
 * @param ctx the context.
 * @param cfg the configuration (copied; `name` is copied too).
 * @param out receives the handle on success; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument; an unknown mode, route or overflow
 *         policy; t1 or t2 outside [0, 1] or t2 > t1; epoch_cycles 0;
 *         counter_bits outside 1..32; no walker in a mode that walks; dynamic
 *         mode with neither `is_local` nor `local_size`; ideal mode without
 *         `oracle`.
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat.
 * @retval XLAT_ERR_NOMEM the records or the event reservation could not be
 *         allocated; nothing is kept (the message says which).
 */
XLAT_API int xlat_gmmu_create(xlat_ctx *ctx, const xlat_gmmu_config *cfg, xlat_gmmu **out);

/**
 * @brief Destroy a GMMU; requests in flight are dropped unanswered. NULL
 *        does nothing.
 * @param gmmu the GMMU.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit whose next level it is still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_gmmu_destroy(xlat_gmmu *gmmu);

/**
 * @brief Set the path to the IOMMU (copied). The host or the system builder
 *        puts the link latency in it (e.g. an ::xlat_link before the IOMMU).
 *        The GMMU holds the unit it names (xlat_target::unit_id), as
 *        xlat_tlb_set_next() does, and a next level that grows with its load
 *        (an ::xlat_link) makes room here for the GMMU's
 *        `max_outstanding` requests.
 * @param gmmu the GMMU.
 * @param iommu the target; NULL removes it (see the group's notes).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `gmmu` is NULL, or `iommu` has no translate
 *         function or a `struct_size`
 *         below ::XLAT_TARGET_SIZE_V0.
 * @retval XLAT_ERR_UNSUPPORTED the target is from a newer libxlat and sets
 *         fields this one does not know.
 * @retval XLAT_ERR_NOT_FOUND the target names a unit (`unit_id`) that was
 *         destroyed; nothing changed.
 * @retval XLAT_ERR_NOMEM the target's unit could not make room; nothing
 *         changed.
 */
XLAT_API int xlat_gmmu_set_iommu(xlat_gmmu *gmmu, const xlat_target *iommu);

/**
 * @brief Accept a translation request at the current cycle and route it
 *        (see the group's notes). Never allocates.
 * @param gmmu the GMMU.
 * @param req the request (copied).
 * @param done called exactly once with the answer, never from inside this call.
 * @param user first argument of `done`.
 * @retval XLAT_OK accepted
 * @retval XLAT_ERR_AGAIN `max_outstanding` requests are tracked; nothing was
 *         taken (the target's wait hook says when to retry)
 * @retval XLAT_ERR_INVAL NULL `gmmu`, `req` or `done`
 */
XLAT_API int xlat_gmmu_translate(xlat_gmmu *gmmu, const xlat_req *req, xlat_done_fn done,
                                 void *user);

/**
 * @brief The GMMU as an ::xlat_target, to be the next level of another unit
 *        (or the host's target).
 * @param gmmu the gmmu.
 * @param out receives the target: start it with ::XLAT_TARGET_INIT; at most
 *        `out->struct_size` bytes are written (what a newer host's struct
 *        has beyond this library's is zeroed), and `struct_size` stays the
 *        host's. `translate` is xlat_gmmu_translate(), and `wait` calls the sender back (from inside tick) when a record frees after a refusal;
 *        `unit_id` is this gmmu's unit id.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `gmmu` or `out`, or `out->struct_size`
 *         below ::XLAT_TARGET_SIZE_V0 (or not a size at all)
 */
XLAT_API int xlat_gmmu_get_target(xlat_gmmu *gmmu, xlat_target *out);

/**
 * @brief The route a request accepted now would take: fixed by the mode
 *        (centralized: bypass; distributed: local) or the dynamic route in
 *        force for the current epoch. The ideal mode routes each request by
 *        its page and reports ::XLAT_GMMU_ROUTE_LOCAL here.
 * @param gmmu the GMMU.
 * @return the route; ::XLAT_GMMU_ROUTE_LOCAL for NULL.
 */
XLAT_API xlat_gmmu_routing xlat_gmmu_route(const xlat_gmmu *gmmu);

/**
 * @brief The L and R counters of the current epoch (`counter_bits` wide).
 * @param gmmu the GMMU.
 * @param local receives L (may be NULL).
 * @param remote receives R (may be NULL).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `gmmu` is NULL
 */
XLAT_API int xlat_gmmu_counters(const xlat_gmmu *gmmu, uint32_t *local, uint32_t *remote);

/**
 * @brief Requests accepted and not yet answered.
 * @param gmmu the GMMU.
 * @return the count; 0 for NULL.
 */
XLAT_API size_t xlat_gmmu_outstanding(const xlat_gmmu *gmmu);

/**
 * @brief Copy the counters, with every epoch that ended by now evaluated.
 * @param gmmu the GMMU (NULL: zeros).
 * @param out receives the counters, an ::xlat_gmmu_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_gmmu_stats_get(const xlat_gmmu *gmmu, xlat_gmmu_stats *out, size_t out_size);

/**
 * @brief Zero the counters and the latency histogram (xlat_unit_latency_get());
 *        the predictor's counters and route stay.
 * @param gmmu the GMMU (NULL does nothing).
 */
XLAT_API void xlat_gmmu_stats_reset(xlat_gmmu *gmmu);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_GMMU_H */
