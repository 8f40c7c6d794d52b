/**
 * @file stats.h
 * @brief Uniform statistics: every unit of a context, every counter, by
 *        name, through one callback.
 */
#ifndef XLAT_STATS_H
#define XLAT_STATS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup stats Unit registry and statistics
 * @brief Every object a create function makes is a *unit* of its context:
 *        it has an integer id, a kind and a name, and its counters can be
 *        read and reset by name without knowing its type.
 *
 * @code
 * static void print(void *user, uint32_t id, const char *kind, const char *name,
 *                   const char *counter, uint64_t value)
 * {
 *     fprintf(user, "%u %s %s.%s = %llu\n", id, kind, name, counter,
 *             (unsigned long long)value);
 * }
 * ...
 * xlat_stats_foreach(ctx, print, stdout);   // the whole system, one call
 * xlat_stats_reset(ctx, 0);                 // warm-up done: start counting
 * @endcode
 *
 * **Units.** Each create registers its object with its kind (`"tlb"`,
 * `"cuckoo"`, `"fixed"`, `"link"`, `"physmem"`, `"pagetable"`, `"pwc"`,
 * `"walker"`, `"iommu"`, `"gmmu"`, `"system"`), its configured name (the
 * kind for objects without a name) and an id that is never 0 and never
 * reused while the context lives. The units another unit builds (the
 * IOMMU's walkers, TLBs and trackers, a PWC's per-level caches, everything
 * xlat_system_create() builds) are units too, destroyed with their owner.
 * Destroy takes a unit off the registry.
 *
 * **Counters.** A unit's counters are the `uint64_t` members of its stats
 * struct (the one its `stats_get` fills), named as the members and given
 * in the struct's order; element `i` of an array member `m` is `m_i`
 * (`hits_0`, `hits_1`, ...). Members that are not counters (the GMMU's
 * `double` accuracy sums) are left out. The names are stable: a counter
 * is never renamed, new ones are appended. doc/statistics.md lists them.
 *
 * **Latency.** Every timed unit (kinds `tlb`, `fixed`, `link`, `walker`,
 * `iommu`, `gmmu`, `system`) keeps a histogram of the latency of the
 * requests it answered, from the cycle it accepted each to the cycle it
 * answered it, in power-of-two buckets (::xlat_latency_hist). Its buckets
 * follow the unit's counters, always all #XLAT_LATENCY_BUCKETS of them,
 * named by their inclusive upper bound padded to ten digits, so that the
 * names sort in bucket order: `latency.le_0000000000`,
 * `latency.le_0000000001`, `latency.le_0000000003`, ...,
 * `latency.le_1073741823`, `latency.le_inf`. xlat_unit_latency_get()
 * reads them as an array.
 *
 * These calls walk the registry: O(units), meant for reports, not for a
 * per-cycle path.
 * @{
 */

/**
 * @brief Buckets of a unit's latency histogram. Pinned, as the counter
 *        names that list them are.
 */
#define XLAT_LATENCY_BUCKETS 32

/**
 * @brief The latency histogram of one timed unit: how many of the requests
 *        it answered took how long, in cycles of its context, from the cycle
 *        the unit accepted the request to the cycle it answered it.
 *
 * Bucket 0 counts latency 0; bucket `b` (1 to 30) counts latencies in
 * [2^(b-1), 2^b - 1]; bucket 31 counts 2^30 cycles or more. The sum of the
 * buckets is the number of answers since the last reset.
 */
typedef struct xlat_latency_hist {
    uint64_t bucket[XLAT_LATENCY_BUCKETS]; /**< answers per latency bucket */
} xlat_latency_hist;

/**
 * @brief Receives one counter of one unit.
 * @param user the pointer given with the callback.
 * @param unit_id the unit's id.
 * @param unit_kind its kind, a string with static storage.
 * @param unit_name its name, valid while the unit lives.
 * @param counter the counter's name, a string with static storage.
 * @param value the counter's value.
 */
typedef void (*xlat_stats_fn)(void *user, uint32_t unit_id, const char *unit_kind,
                              const char *unit_name, const char *counter, uint64_t value);

/**
 * @brief Call `fn` for every counter of every unit of `ctx`: units in the
 *        order they were created, each unit's counters in their documented
 *        order.
 *
 * `fn` must not create or destroy units.
 * @param ctx the context.
 * @param fn the callback.
 * @param user passed back to `fn` unchanged.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `ctx` or `fn` is NULL.
 */
XLAT_API int xlat_stats_foreach(xlat_ctx *ctx, xlat_stats_fn fn, void *user);

/**
 * @brief Call `fn` for every counter of one unit, in their documented order.
 *
 * `fn` must not create or destroy units.
 * @param ctx the context.
 * @param unit_id the unit's id.
 * @param fn the callback.
 * @param user passed back to `fn` unchanged.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `ctx` or `fn` is NULL.
 * @retval XLAT_ERR_NOT_FOUND no live unit of `ctx` has this id.
 */
XLAT_API int xlat_unit_stats_foreach(xlat_ctx *ctx, uint32_t unit_id, xlat_stats_fn fn,
                                     void *user);

/**
 * @brief Zero the counters of one unit, or of every unit.
 *
 * The same as the unit's own `stats_reset` (xlat_tlb_stats_reset(), ...),
 * which zeroes its latency histogram too.
 * Figures that describe a unit's state rather than count events are kept:
 * a page table's node and mapping counts, a link's `in_flight`.
 * @param ctx the context.
 * @param unit_id the unit's id; 0: every unit of the context.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `ctx` is NULL.
 * @retval XLAT_ERR_NOT_FOUND no live unit of `ctx` has this id.
 */
XLAT_API int xlat_stats_reset(xlat_ctx *ctx, uint32_t unit_id);

/**
 * @brief Read one unit's latency histogram.
 *
 * The same figures xlat_unit_stats_foreach() lists as `latency.le_*`, as an
 * array. Writes at most `out_size` bytes: a shorter (older) struct receives
 * its first buckets, a longer (newer) one zeros past this library's.
 * @param ctx the context.
 * @param unit_id the unit's id.
 * @param out receives the histogram (caller-owned).
 * @param out_size `sizeof *out` as the caller was built with.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `ctx` or `out` is NULL.
 * @retval XLAT_ERR_NOT_FOUND no live unit of `ctx` has this id.
 * @retval XLAT_ERR_UNSUPPORTED the unit answers no requests (a cuckoo
 *         filter, physical memory, a page table, a PWC): it has no histogram.
 */
XLAT_API int xlat_unit_latency_get(xlat_ctx *ctx, uint32_t unit_id, xlat_latency_hist *out,
                                   size_t out_size);

/**
 * @brief The id of a unit, from its handle.
 * @param ctx the context the unit was created on.
 * @param handle any handle a create function gave (an ::xlat_tlb, an
 *        ::xlat_system, ...).
 * @return the unit's id; 0 when `handle` is not a live unit of `ctx` (or
 *         either is NULL).
 */
XLAT_API uint32_t xlat_unit_id(const xlat_ctx *ctx, const void *handle);

/**
 * @brief The name of a unit: its configured name, or its kind when it has
 *        none.
 * @param ctx the context.
 * @param unit_id the unit's id.
 * @return a string valid while the unit lives; NULL for an unknown id.
 */
XLAT_API const char *xlat_unit_name(const xlat_ctx *ctx, uint32_t unit_id);

/**
 * @brief The kind of a unit: `"tlb"`, `"walker"`, ... (see above).
 * @param ctx the context.
 * @param unit_id the unit's id.
 * @return a string with static storage; NULL for an unknown id.
 */
XLAT_API const char *xlat_unit_kind(const xlat_ctx *ctx, uint32_t unit_id);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_STATS_H */
