/**
 * @file link.h
 * @brief A fixed-latency link between two units (a GPU and the IOMMU, two
 *        GPUs): requests cross it one way, answers the other.
 */
#ifndef XLAT_LINK_H
#define XLAT_LINK_H

#include "common.h"
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup link Links
 * @brief Puts a latency between a unit and the target it sends to.
 *
 * A request accepted at cycle t reaches the far target at t + `latency`
 * (retried each cycle while the far target refuses); its answer reaches the
 * requester `latency_back` cycles after the far target gave it. Both count
 * the link's own cycles when its config sets a clock ratio
 * (xlat_link_config::clock_num; @ref clocks).
 *
 * A link holds requests in flight, never translations: it has no
 * invalidate or flush (a shootdown reaches the TLBs on either side).
 *
 * @code
 * xlat_link_config lc;
 * xlat_link_config_init(&lc);
 * lc.latency = lc.latency_back = 300;       // PCIe, ~300 ns at 1 GHz
 * xlat_link *pcie;
 * xlat_link_create(ctx, &lc, &pcie);
 * xlat_target iommu_t = XLAT_TARGET_INIT, up = XLAT_TARGET_INIT;
 * xlat_iommu_get_target(iommu, &iommu_t);
 * xlat_link_set_next(pcie, &iommu_t);
 * xlat_link_get_target(pcie, &up);
 * xlat_tlb_set_next(l2, &up);
 * @endcode
 * @{
 */


/** @brief Configuration; fill with xlat_link_config_init(). */
typedef struct xlat_link_config {
    uint32_t    struct_size;  /**< sizeof(xlat_link_config), set by init. */
    const char *name;         /**< for statistics (copied; NULL: "link") */
    uint32_t    latency;      /**< cycles from the near side to the far target (default 0) */
    uint32_t    latency_back; /**< cycles for the answer to come back (default 0) */
    /** Clock of the link against its context's: it runs at clock_num / clock_den
     *  times the context's frequency (in a context clocked as a 1.4 GHz GPU, a unit
     *  at 1 GHz has 5 / 7). `latency`, `latency_back` and the retry of a request the
     *  far target refused count its own cycles (xlat_link_stats::retries counts one
     *  retry per cycle of the link). Answers (xlat_resp::issued,
     *  xlat_resp::completed) carry context cycles. Both 0 (the default): 1:1.
     *  Otherwise both are in 1..::XLAT_CLOCK_RATIO_MAX, or create fails with
     *  ::XLAT_ERR_INVAL. See @ref clocks. */
    uint32_t    clock_num;
    /** Denominator of the clock ratio (see clock_num); 0 only with clock_num 0. */
    uint32_t    clock_den;
} xlat_link_config;

/**
 * @brief Smallest `struct_size` xlat_link_create() accepts: the size of the first
 *        released ::xlat_link_config (its members through `latency_back`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_LINK_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_link_config, latency_back)

/** @brief Counters of a link. */
typedef struct xlat_link_stats {
    uint64_t requests;    /**< requests accepted */
    uint64_t retries;     /**< cycles a request waited because the far target refused it */
    uint64_t answers;     /**< answers carried back */
    uint64_t in_flight;   /**< requests accepted and not yet answered */
} xlat_link_stats;

/**
 * @brief xlat_link_config_init() for a caller whose ::xlat_link_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_link_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_link_config_init_sized(xlat_link_config *cfg, size_t size);

/**
 * @brief Defaults: latency 0 both ways.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_link_config_init(xlat_link_config *cfg)
{
    xlat_link_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a link.
 * @param ctx the context.
 * @param cfg the configuration (copied).
 * @param out receives the handle.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, or `cfg->struct_size` too small
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_link_create(xlat_ctx *ctx, const xlat_link_config *cfg, xlat_link **out);

/**
 * @brief Destroy; requests in flight are dropped. NULL does nothing.
 * @param link the link, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit whose next level it is still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_link_destroy(xlat_link *link);

/**
 * @brief Set the far target (copied). The link holds the unit it names
 *        (xlat_target::unit_id), as xlat_tlb_set_next() does.
 * @param link the link.
 * @param next the far target; its `translate` must not be NULL.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL link or next, or a target without a
 *         translate function or a `struct_size`
 *         below ::XLAT_TARGET_SIZE_V0.
 * @retval XLAT_ERR_UNSUPPORTED the target is from a newer libxlat and sets
 *         fields this one does not know.
 * @retval XLAT_ERR_NOT_FOUND the target names a unit (`unit_id`) that was
 *         destroyed; nothing changed.
 */
XLAT_API int xlat_link_set_next(xlat_link *link, const xlat_target *next);

/**
 * @brief Accept a request; it reaches the far target `latency` cycles later.
 *
 * The link never refuses for room. While the far target refuses with
 * ::XLAT_ERR_AGAIN the request waits in the link, in order; if the far
 * target refuses it with any other code, the request is answered with that
 * code as its status, `latency_back` cycles later.
 *
 * The link starts with 64 request records and grows by itself beyond that.
 * A unit that takes the link as its next level (xlat_tlb_set_next(),
 * xlat_gmmu_set_iommu(), xlat_fbarre_set_next(), xlat_fbarre_set_peer())
 * makes it grow then, to what that unit can send at once, so that it
 * never grows inside xlat_tick(). Only a host's own code that sends more
 * than that makes it grow here (::XLAT_ERR_NOMEM if that fails).
 * @param link the link.
 * @param req the request (copied).
 * @param done called once with the answer.
 * @param user passed back to `done`.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL arguments, or `req->access` is not an
 *         ::xlat_access
 * @retval XLAT_ERR_STATE no far target set
 * @retval XLAT_ERR_NOMEM the request pool could not grow
 */
XLAT_API int xlat_link_translate(xlat_link *link, const xlat_req *req, xlat_done_fn done,
                                 void *user);

/**
 * @brief The link as an ::xlat_target, to be the next level of another unit
 *        (or the host's target).
 * @param link the link.
 * @param out receives the target: start it with ::XLAT_TARGET_INIT; at most
 *        `out->struct_size` bytes are written (what a newer host's struct
 *        has beyond this library's is zeroed), and `struct_size` stays the
 *        host's. `translate` is xlat_link_translate(), and `wait` is NULL, since a link never refuses for room;
 *        `unit_id` is this link's unit id.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `link` or `out`, or `out->struct_size`
 *         below ::XLAT_TARGET_SIZE_V0 (or not a size at all)
 */
XLAT_API int xlat_link_get_target(xlat_link *link, xlat_target *out);

/**
 * @brief Copy the counters into `*out`.
 * @param link the link (NULL: zeros).
 * @param out receives the counters, an ::xlat_link_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_link_stats_get(const xlat_link *link, xlat_link_stats *out, size_t out_size);

/**
 * @brief Zero the counters and the latency histogram (xlat_unit_latency_get());
 *        `in_flight`, which counts requests still owed an answer, is kept.
 * @param link the link; NULL does nothing.
 */
XLAT_API void xlat_link_stats_reset(xlat_link *link);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_LINK_H */
