/**
 * @file fixed.h
 * @brief A fixed-latency responder: the simplest bottom of a hierarchy.
 */
#ifndef XLAT_FIXED_H
#define XLAT_FIXED_H

#include "common.h"
#include "target.h"
#include "tlb.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup fixed Fixed-latency responder
 * @brief Answers every request exactly `latency` cycles after accepting it.
 *
 * The translation comes from the host's `resolve` function, or, without one,
 * from an identity-plus-offset map: pfn = (vaddr >> page_shift) + pfn_offset.
 * It stands in for a page-table walker or a whole lower hierarchy in tests,
 * examples and hosts that time translation themselves.
 *
 * It caches no translation, so it has no invalidate or flush. Its latency
 * counts its own cycles when its config sets a clock ratio
 * (xlat_fixed_config::clock_num; @ref clocks).
 *
 * @code
 * xlat_fixed_config fc;
 * xlat_fixed_config_init(&fc);
 * fc.latency = 100;
 * xlat_fixed *mem;
 * xlat_fixed_create(ctx, &fc, &mem);
 * xlat_target below = XLAT_TARGET_INIT;
 * xlat_fixed_get_target(mem, &below);
 * xlat_tlb_set_next(l2, &below);
 * @endcode
 * @{
 */

/**
 * @brief The host's translation function.
 * @param user the config's `resolve_user`.
 * @param pasid the request's address space.
 * @param vaddr the request's virtual address.
 * @param out receives the translation; `out->pasid` and `out->vpn` are
 *        preset from the request with the configured page_shift; set
 *        `pfn`, and change `page_shift`, `perm`, `meta` as needed.
 * @return ::XLAT_OK, or the status to answer with (e.g. ::XLAT_ERR_FAULT).
 */
typedef int (*xlat_fixed_resolve_fn)(void *user, uint32_t pasid, uint64_t vaddr,
                                     xlat_tlb_entry *out);

/** @brief Configuration of a responder; fill with xlat_fixed_config_init(). */
typedef struct xlat_fixed_config {
    uint32_t    struct_size;     /**< sizeof(xlat_fixed_config), set by init. */
    const char *name;            /**< for responses and statistics (copied; NULL: "fixed") */
    uint32_t    latency;         /**< cycles from acceptance to answer */
    uint32_t    max_outstanding; /**< requests in flight before ::XLAT_ERR_AGAIN; 0: unbounded */
    uint8_t     page_shift;      /**< page size of the identity map, 12..63 (default 12) */
    uint8_t     perm;            /**< permissions of the identity map (default R|W|X|U) */
    uint64_t    pfn_offset;      /**< identity map: pfn = vpn + pfn_offset */
    xlat_fixed_resolve_fn resolve; /**< host translation; NULL: the identity map */
    void       *resolve_user;    /**< first argument of `resolve` */
    /** Clock of the responder against its context's: it runs at clock_num / clock_den
     *  times the context's frequency (in a context clocked as a 1.4 GHz GPU, a unit
     *  at 1 GHz has 5 / 7). `latency` counts its own cycles. Answers
     *  (xlat_resp::issued, xlat_resp::completed) carry context cycles. Both 0 (the
     *  default): 1:1. Otherwise both are in 1..::XLAT_CLOCK_RATIO_MAX, or create
     *  fails with ::XLAT_ERR_INVAL. See @ref clocks. */
    uint32_t    clock_num;
    /** Denominator of the clock ratio (see clock_num); 0 only with clock_num 0. */
    uint32_t    clock_den;
} xlat_fixed_config;

/**
 * @brief Smallest `struct_size` xlat_fixed_create() accepts: the size of the first
 *        released ::xlat_fixed_config (its members through `resolve_user`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_FIXED_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_fixed_config, resolve_user)

/** @brief Counters of a responder. */
typedef struct xlat_fixed_stats {
    uint64_t requests; /**< accepted requests */
    uint64_t refusals; /**< requests refused with ::XLAT_ERR_AGAIN */
    uint64_t faults;   /**< answers with a status other than ::XLAT_OK */
} xlat_fixed_stats;

/**
 * @brief xlat_fixed_config_init() for a caller whose ::xlat_fixed_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_fixed_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_fixed_config_init_sized(xlat_fixed_config *cfg, size_t size);

/**
 * @brief Defaults: latency 100, unbounded, 4 KiB identity map with every permission.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_fixed_config_init(xlat_fixed_config *cfg)
{
    xlat_fixed_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a responder on `ctx`.
 * @param ctx the context it runs in.
 * @param cfg its configuration (copied; `name` is copied too).
 * @param out receives the handle on success; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument, `cfg->struct_size` too small,
 *         page_shift outside 12..63, or unknown `perm` bits.
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat.
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_fixed_create(xlat_ctx *ctx, const xlat_fixed_config *cfg, xlat_fixed **out);

/**
 * @brief Destroy a responder; pending answers are dropped. NULL does nothing.
 * @param fixed the responder, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit whose next level it is (xlat_X_set_next(), xlat_gmmu_set_iommu()) still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_fixed_destroy(xlat_fixed *fixed);

/**
 * @brief Accept `req`; `done` is called at xlat_now() + latency.
 *
 * A translation the resolver fails is still accepted: it is answered after
 * `latency` cycles with the resolver's status (or ::XLAT_ERR_INVAL if the
 * resolver gave a page_shift outside 12..63).
 *
 * With `max_outstanding` 0 (unbounded) the request pool grows by itself.
 * A unit that takes the responder as its next level (xlat_tlb_set_next(),
 * ...) makes it grow then, to what that unit can send at once, so that it
 * never grows inside xlat_tick(); only a host's own code that sends more
 * makes it grow here. A bounded responder never grows.
 * @param fixed the responder.
 * @param req the request (copied).
 * @param done called once with the answer.
 * @param user passed back to `done`.
 * @retval XLAT_OK
 * @retval XLAT_ERR_AGAIN `max_outstanding` requests are in flight
 * @retval XLAT_ERR_INVAL NULL `fixed`, `req` or `done`, or `req->access` is
 *         not an ::xlat_access
 * @retval XLAT_ERR_NOMEM the request pool could not grow
 */
XLAT_API int xlat_fixed_translate(xlat_fixed *fixed, const xlat_req *req, xlat_done_fn done,
                                  void *user);

/**
 * @brief The responder as an ::xlat_target, to be the next level of another unit
 *        (or the host's target).
 * @param fixed the fixed.
 * @param out receives the target: start it with ::XLAT_TARGET_INIT; at most
 *        `out->struct_size` bytes are written (what a newer host's struct
 *        has beyond this library's is zeroed), and `struct_size` stays the
 *        host's. `translate` is xlat_fixed_translate(), and `wait` calls back once a request in flight is answered;
 *        `unit_id` is this fixed's unit id.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `fixed` or `out`, or `out->struct_size`
 *         below ::XLAT_TARGET_SIZE_V0 (or not a size at all)
 */
XLAT_API int xlat_fixed_get_target(xlat_fixed *fixed, xlat_target *out);

/**
 * @brief Requests accepted and not yet answered.
 * @param fixed the responder, or NULL.
 * @return the count; 0 for NULL.
 */
XLAT_API size_t xlat_fixed_outstanding(const xlat_fixed *fixed);

/**
 * @brief Copy the counters into `*out`.
 * @param fixed the unit (NULL: zeros).
 * @param out receives the counters, an ::xlat_fixed_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_fixed_stats_get(const xlat_fixed *fixed, xlat_fixed_stats *out, size_t out_size);

/**
 * @brief Zero the counters and the latency histogram (xlat_unit_latency_get()).
 * @param fixed the responder; NULL does nothing.
 */
XLAT_API void xlat_fixed_stats_reset(xlat_fixed *fixed);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_FIXED_H */
