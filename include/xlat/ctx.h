/**
 * @file ctx.h
 * @brief The context: one clock domain with its event queue, allocator,
 *        seed and last-error text.
 */
#ifndef XLAT_CTX_H
#define XLAT_CTX_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup ctx Context and clock
 * @brief Time moves only when the host calls xlat_tick() or xlat_advance().
 *
 * @code
 * xlat_ctx *ctx;
 * if (xlat_ctx_create(NULL, &ctx) != XLAT_OK) return;
 * xlat_schedule(ctx, 5, my_event, my_data);   // fires at cycle 5
 * xlat_advance(ctx, xlat_next_event(ctx) - xlat_now(ctx));
 * xlat_ctx_destroy(ctx);
 * @endcode
 *
 * **Event order.** Events due at the same cycle fire in the order they were
 * scheduled. An event scheduled from inside a callback for the current cycle
 * (delay 0) fires before the advance returns. A run is a pure function of the
 * configuration, the seed and the host's calls.
 *
 * **Cost.** Scheduling and firing are O(1) amortized (a hierarchical timing
 * wheel); advancing over idle cycles is O(1) however many there are.
 *
 * **Units at other clocks.** A timed unit may run at a ratio of the
 * context's clock (its config's `clock_num` / `clock_den`): its latencies
 * count its own cycles, converted to the context's when it posts them; every
 * time the host reads (xlat_now(), answers, statistics) is in context
 * cycles. See @ref clocks.
 *
 * **Callback rules.** Every callback of libxlat (events, completions,
 * evictions, memory reads) runs inside xlat_tick() or xlat_advance(), or
 * inside the call that caused it. A callback may:
 * - call xlat_schedule(), xlat_now() and xlat_next_event();
 * - send new requests to any unit of the same context and use the functional
 *   calls of any structure (lookup, insert, invalidate, ...);
 * - read statistics.
 *
 * A callback must not call xlat_tick() or xlat_advance() (they return
 * ::XLAT_ERR_STATE), and must not destroy the context or the unit that is
 * calling it.
 *
 * **Tearing down.** xlat_ctx_destroy() destroys every unit still alive on
 * the context, newest first, so a host may destroy the context alone.
 * Units that send to one another keep pointers into each other while
 * requests are in flight (answers owed, senders waiting for room). Destroy
 * a unit when it is idle, or destroy all the units of a context together
 * (xlat_ctx_destroy() does) and do not advance the context in between.
 * @{
 */

/** @brief Configuration of a context; fill with xlat_ctx_config_init(). */
typedef struct xlat_ctx_config {
    uint32_t struct_size;                /**< sizeof(xlat_ctx_config), set by init. */
    uint64_t seed;                       /**< every random choice in this context derives from it */
    const xlat_allocator *allocator;     /**< NULL: malloc/free. Copied at create. */
} xlat_ctx_config;

/**
 * @brief Smallest `struct_size` xlat_ctx_create() accepts: the size of the first
 *        released ::xlat_ctx_config (its members through `allocator`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_CTX_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_ctx_config, allocator)

/**
 * @brief xlat_ctx_config_init() for a caller whose ::xlat_ctx_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_ctx_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_ctx_config_init_sized(xlat_ctx_config *cfg, size_t size);

/**
 * @brief Fill `cfg` with defaults: seed 0, the malloc allocator.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_ctx_config_init(xlat_ctx_config *cfg)
{
    xlat_ctx_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a context at cycle 0 with no pending event.
 * @param cfg configuration, or NULL for the defaults.
 * @param out receives the handle on success; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `out` is NULL, `cfg->struct_size` is too small, or
 *         the allocator lacks a hook.
 * @retval XLAT_ERR_UNSUPPORTED `cfg->struct_size` is larger than this
 *         library's ::xlat_ctx_config (a configuration from a newer libxlat).
 * @retval XLAT_ERR_NOMEM the allocator failed.
 */
XLAT_API int xlat_ctx_create(const xlat_ctx_config *cfg, xlat_ctx **out);

/**
 * @brief Destroy a context and every unit still alive on it. NULL does
 *        nothing.
 *
 * The units the host did not destroy are destroyed first, newest first
 * (the order in which their creates returned, reversed; a unit another
 * one built, such as the TLBs of a system, goes with its owner), so that
 * each goes before the units it was built on. Units destroyed earlier
 * are simply gone: destroying some or all of them first keeps working.
 * Pending events are dropped without being called; requests in flight are
 * not answered. Must not be called from inside a callback.
 * @param ctx the context, or NULL.
 */
XLAT_API void xlat_ctx_destroy(xlat_ctx *ctx);

/**
 * @brief Detail of the last failure reported on this context.
 * @param ctx the context, or NULL.
 * @return a string owned by the context, valid until the next failing call;
 *         "" if nothing failed yet; "invalid context" for NULL.
 */
XLAT_API const char *xlat_ctx_errmsg(const xlat_ctx *ctx);

/**
 * @brief The current cycle; starts at 0.
 * @param ctx the context, or NULL.
 * @return the current cycle; 0 for NULL.
 */
XLAT_API uint64_t xlat_now(const xlat_ctx *ctx);

/**
 * @brief Advance one cycle; the same as xlat_advance(ctx, 1).
 * @param ctx the context.
 * @return what xlat_advance(ctx, 1) returns: ::XLAT_OK;
 *         ::XLAT_ERR_INVAL if `ctx` is NULL or the clock would reach
 *         ::XLAT_NEVER; ::XLAT_ERR_STATE if called from inside a callback.
 */
XLAT_API int xlat_tick(xlat_ctx *ctx);

/**
 * @brief Advance the clock by `cycles`, firing every event due up to and
 *        including the new current cycle, in order.
 *
 * Events due at the starting cycle that have not fired yet (scheduled with
 * delay 0 outside an advance) fire too, so `xlat_advance(ctx, 0)` runs what is
 * due now.
 * @param ctx the context.
 * @param cycles how many cycles to move the clock forward (0: only fire
 *        what is due at the current cycle).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `ctx` is NULL, or the clock would pass
 *         ::XLAT_NEVER - 1.
 * @retval XLAT_ERR_STATE called from inside a callback.
 */
XLAT_API int xlat_advance(xlat_ctx *ctx, uint64_t cycles);

/**
 * @brief Cycle of the earliest pending event, so that an event-driven host
 *        can skip idle time.
 * @param ctx the context, or NULL.
 * @return a cycle >= xlat_now(ctx), or ::XLAT_NEVER if nothing is pending
 *         (also for NULL).
 */
XLAT_API uint64_t xlat_next_event(const xlat_ctx *ctx);

/** @brief An event callback; `user` is the pointer given to xlat_schedule(). */
typedef void (*xlat_event_fn)(void *user);

/**
 * @brief Call `fn(user)` at cycle xlat_now(ctx) + `delay`.
 *
 * May allocate, but only when more events are pending at once than ever
 * before on this context (the pool doubles).
 * @param ctx the context.
 * @param delay cycles from now; 0 means the current cycle (the event fires
 *        before the running advance returns, or in the next advance when
 *        called outside one).
 * @param fn the callback; must not be NULL.
 * @param user passed back to `fn` unchanged.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `ctx` or `fn` is NULL, or the cycle would reach
 *         ::XLAT_NEVER.
 * @retval XLAT_ERR_NOMEM the pool could not grow; nothing was scheduled.
 */
XLAT_API int xlat_schedule(xlat_ctx *ctx, uint64_t delay, xlat_event_fn fn, void *user);

/**
 * @brief Seed the context was created with.
 * @param ctx the context, or NULL.
 * @return xlat_ctx_config::seed as given at create; 0 for NULL.
 */
XLAT_API uint64_t xlat_ctx_seed(const xlat_ctx *ctx);

/**
 * @brief Number of events scheduled and not yet fired, the host's and the
 *        units' own.
 * @param ctx the context, or NULL.
 * @return the count; 0 for NULL.
 */
XLAT_API size_t xlat_pending_events(const xlat_ctx *ctx);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_CTX_H */
