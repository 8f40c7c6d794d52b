/**
 * @file tlb.h
 * @brief A set-associative TLB: a plain structure (functional calls, no
 *        time) and a timed unit in a hierarchy.
 */
#ifndef XLAT_TLB_H
#define XLAT_TLB_H

#include "common.h"
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup tlb TLB
 * @brief Set-associative TLB with LRU, FIFO, random or tree-PLRU replacement.
 *
 * @code
 * xlat_tlb_config cfg;
 * xlat_tlb_config_init(&cfg);
 * cfg.name = "gpu0.l2"; cfg.entries = 512; cfg.ways = 16; cfg.latency = 10;
 * xlat_tlb *l2;
 * if (xlat_tlb_create(ctx, &cfg, &l2) != XLAT_OK) puts(xlat_ctx_errmsg(ctx));
 * xlat_tlb_entry e = { .pasid = 1, .vpn = 0x42, .pfn = 0x9000, .page_shift = 12,
 *                      .perm = XLAT_PERM_R | XLAT_PERM_W };
 * xlat_tlb_insert(l2, &e, NULL);
 * xlat_tlb_entry hit;
 * int rc = xlat_tlb_lookup(l2, 1, 0x42123, &hit);   // XLAT_OK, hit.pfn == 0x9000
 * xlat_tlb_destroy(l2);
 * @endcode
 *
 * **Matching.** An entry matches a lookup when its PASID equals the lookup's
 * and its `vpn` equals `vaddr >> page_shift`. A TLB may hold several page
 * sizes at once; a lookup tries the sizes present from the smallest up.
 *
 * **Placement.** The set of an entry is `vpn % sets` (sets = entries / ways),
 * or a hash of the vpn when ::XLAT_TLB_INDEX_HASH is configured. An invalid
 * way is filled before anything is evicted, lowest way first.
 *
 * **Timed use.** xlat_tlb_translate() (or the ::xlat_target from
 * xlat_tlb_get_target()) accepts a request at cycle t: a hit is answered at
 * t + latency; a miss is forwarded to the next target at t + latency, and
 * when the answer comes back the entry is filled and every request waiting on
 * that miss is answered in that same cycle. The latency counts the TLB's own
 * cycles when its config sets a clock ratio (xlat_tlb_config::clock_num;
 * @ref clocks). Answers are always delivered
 * from inside xlat_tick() / xlat_advance(), never from inside the call that
 * handed the TLB the request.
 *
 * **Structure and timed unit.** A TLB starts as a plain structure: lookup,
 * insert, invalidation and replacement, with no ports, MSHRs or request
 * records (a page walk cache or an IOMMU TLB uses it so). Its timed unit is
 * allocated by the first call of xlat_tlb_set_next() or xlat_tlb_get_target(),
 * the two calls that may allocate it; xlat_tlb_translate() never allocates
 * it and refuses with ::XLAT_ERR_STATE until then.
 *
 * **Evictions.** Every victim (of an insert or of a timed fill) is reported
 * to the slot set by xlat_tlb_set_evict_fn() first, then to each listener
 * of xlat_tlb_evict_listen() in registration order. They are called once
 * the insert is complete (the new entry in place, the count right), so a
 * listener may use the TLB again, insert into it included, and add or
 * remove listeners; a listener added during a report hears the next one.
 * @{
 */

/** @brief Replacement policy. */
typedef enum xlat_repl {
    XLAT_REPL_LRU,    /**< Least recently used: hits and inserts make an entry most recent. */
    XLAT_REPL_FIFO,   /**< First in, first out: hits change nothing. */
    XLAT_REPL_RANDOM, /**< Uniform among the ways, from the context's seed. */
    XLAT_REPL_PLRU    /**< Tree pseudo-LRU; ways must be a power of two. */
} xlat_repl;

/** @brief How a vpn selects its set. */
typedef enum xlat_tlb_index {
    XLAT_TLB_INDEX_MODULO = 0, /**< set = vpn % sets (the default). */
    XLAT_TLB_INDEX_HASH = 1    /**< set = a 64-bit mix of the vpn, modulo sets. */
} xlat_tlb_index;

/** @brief Configuration of a TLB; fill with xlat_tlb_config_init(). */
typedef struct xlat_tlb_config {
    uint32_t    struct_size; /**< sizeof(xlat_tlb_config), set by init. */
    const char *name;        /**< for statistics, e.g. "gpu0.cu3.l1" (copied; NULL: "tlb") */
    uint32_t    entries;     /**< 0 = unbounded (an ideal TLB) */
    uint32_t    ways;        /**< ways == entries: fully associative */
    xlat_repl   repl;        /**< replacement policy */
    uint32_t    latency;     /**< lookup latency in cycles (timed use) */
    uint32_t    mshrs;       /**< distinct outstanding misses (timed use), >= 1 */
    uint32_t    ports;       /**< new lookups accepted per cycle (timed use), >= 1 */
    xlat_tlb_index index;    /**< set selection (default ::XLAT_TLB_INDEX_MODULO) */
    /** Hits accepted and not yet answered, at most (timed use). 0 (the
     *  default): ports × min(latency + 1, ::XLAT_TLB_HITS_PER_PORT), which
     *  never refuses a hit below latency 256 and keeps a long-latency TLB's
     *  memory bounded. A hit beyond it is refused with ::XLAT_ERR_AGAIN; a
     *  sender waiting through the target's wait hook is woken when a hit is
     *  answered. A hit whose entry is invalidated before its answer, and
     *  that goes on to the next level, still counts until it is answered.
     *  The timed unit reserves about 220 bytes per hit in flight (its slot,
     *  a request record and an event). */
    uint32_t    hits_in_flight;
    /** Requests one MSHR holds at most (timed use): the miss that took it
     *  and those that merged into it, stale hits sent on as misses
     *  included. 0 (the default): ::XLAT_TLB_MSHR_TARGETS. A miss on a page
     *  whose MSHR is full is refused with ::XLAT_ERR_AGAIN (it does not
     *  take a second MSHR for the same page); a sender waiting through the
     *  target's wait hook is woken when an MSHR completes. With
     *  hits_in_flight it bounds the timed unit's request records, which
     *  are all allocated with the unit (80 bytes each, hits_in_flight +
     *  mshrs × mshr_targets of them), so a timed TLB never allocates
     *  while it runs. */
    uint32_t    mshr_targets;
    /** Clock of the TLB (timed use) against its context's: it runs at clock_num /
     *  clock_den times the context's frequency (in a context clocked as a 1.4 GHz
     *  GPU, a unit at 1 GHz has 5 / 7). `latency` and `ports` count its own cycles; a
     *  request belongs to the TLB cycle whose edge is the last at or before the
     *  context cycle it comes in. Answers (xlat_resp::issued, xlat_resp::completed)
     *  carry context cycles. Both 0 (the default): 1:1. Otherwise both are in
     *  1..::XLAT_CLOCK_RATIO_MAX, or create fails with ::XLAT_ERR_INVAL. See @ref
     *  clocks. */
    uint32_t    clock_num;
    /** Denominator of the clock ratio (see clock_num); 0 only with clock_num 0. */
    uint32_t    clock_den;
} xlat_tlb_config;

/**
 * @brief Smallest `struct_size` xlat_tlb_create() accepts: the size of the first
 *        released ::xlat_tlb_config (its members through `index`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_TLB_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_tlb_config, index)

/** @brief Hits in flight per port by default (see xlat_tlb_config::hits_in_flight). */
#define XLAT_TLB_HITS_PER_PORT 256u

/** @brief Requests one MSHR holds by default (see xlat_tlb_config::mshr_targets). */
#define XLAT_TLB_MSHR_TARGETS 8u

/** @brief One translation held by a TLB: the translation record of target.h. */
typedef xlat_translation xlat_tlb_entry;

/** @brief Counters of a TLB, functional and timed use together. */
typedef struct xlat_tlb_stats {
    uint64_t accesses;    /**< lookups (functional) and accepted requests (timed) */
    uint64_t hits;        /**< of those, hits */
    uint64_t misses;      /**< of those, misses (MSHR merges included) */
    uint64_t mshr_merges; /**< timed misses that joined an outstanding miss */
    uint64_t refusals;    /**< timed requests refused with ::XLAT_ERR_AGAIN */
    uint64_t inserts;     /**< inserts and fills that added a new entry */
    uint64_t updates;     /**< inserts that updated an entry in place */
    uint64_t evictions;   /**< entries evicted to make room */
    uint64_t invalidations; /**< entries removed by invalidate, invalidate_pasid or flush */
    uint64_t faults;      /**< timed requests answered with a fault or permission status */
} xlat_tlb_stats;

/** @brief Eviction callback: `victim` left `tlb` to make room (valid during the call). */
typedef void (*xlat_tlb_evict_fn)(void *user, xlat_tlb *tlb, const xlat_tlb_entry *victim);

/**
 * @brief xlat_tlb_config_init() for a caller whose ::xlat_tlb_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_tlb_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_tlb_config_init_sized(xlat_tlb_config *cfg, size_t size);

/**
 * @brief Fill `cfg` with defaults: 64 entries, 4 ways, LRU, latency 1, 4 MSHRs, 1 port,
 *        hits in flight from ports and latency, ::XLAT_TLB_MSHR_TARGETS requests per MSHR.
 * @param cfg the configuration to fill; NULL does nothing.
 */
static inline void xlat_tlb_config_init(xlat_tlb_config *cfg)
{
    xlat_tlb_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create a TLB on `ctx`. The structure's storage is allocated here (an
 *        unbounded TLB grows by doubling in xlat_tlb_insert()); the timed
 *        unit's by xlat_tlb_set_next() or xlat_tlb_get_target().
 * @param ctx the context whose clock, seed and allocator the TLB uses.
 * @param cfg the configuration (copied; `name` is copied too).
 * @param out receives the handle on success; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument, zero ways, ways not dividing
 *         entries, PLRU with ways not a power of two, an unknown policy or
 *         index, zero MSHRs or ports (the message says which).
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat.
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_tlb_create(xlat_ctx *ctx, const xlat_tlb_config *cfg, xlat_tlb **out);

/**
 * @brief Destroy a TLB; pending timed requests are dropped unanswered. NULL does nothing.
 * @param tlb the TLB, or NULL.
 * @retval XLAT_OK destroyed (or NULL)
 * @retval XLAT_ERR_BUSY a unit whose next level it is (an L1 above this L2) still holds it;
 *         nothing was destroyed (doc/composition.md, "Teardown")
 */
XLAT_API int xlat_tlb_destroy(xlat_tlb *tlb);

/**
 * @brief Look a translation up; a hit updates replacement state and statistics.
 * @param tlb the TLB.
 * @param pasid the address space.
 * @param vaddr the virtual address (bytes; any offset within the page).
 * @param out receives the entry on a hit (may be NULL).
 * @retval XLAT_OK hit
 * @retval XLAT_ERR_NOT_FOUND miss
 * @retval XLAT_ERR_INVAL `tlb` is NULL
 */
XLAT_API int xlat_tlb_lookup(xlat_tlb *tlb, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out);

/**
 * @brief Like xlat_tlb_lookup() with no change of state or statistics.
 * @param tlb the TLB.
 * @param pasid the address space.
 * @param vaddr the virtual address (bytes; any offset within the page).
 * @param out receives the entry on a hit (may be NULL).
 * @retval XLAT_OK hit
 * @retval XLAT_ERR_NOT_FOUND miss
 * @retval XLAT_ERR_INVAL `tlb` is NULL
 */
XLAT_API int xlat_tlb_probe(const xlat_tlb *tlb, uint32_t pasid, uint64_t vaddr,
                            xlat_tlb_entry *out);

/**
 * @brief Insert a translation.
 *
 * If the same (pasid, vpn, page_shift) is present it is updated in place and
 * made most recent (for FIFO: the newest; for PLRU: the tree points away
 * from it), nothing is evicted. Otherwise an invalid way of the set
 * is filled, lowest first, or the policy's victim is evicted, copied to
 * `*victim` and reported to the eviction callback.
 * @param tlb the TLB.
 * @param e the translation to insert (copied).
 * @param victim receives the evicted entry (may be NULL).
 * @return 1 when an entry was evicted, 0 when not, or a negative code:
 * @retval XLAT_ERR_INVAL NULL `tlb` or `e`, page_shift outside 12..63, or a
 *         vpn that does not fit below 2^(64 - page_shift).
 * @retval XLAT_ERR_NOMEM an unbounded TLB could not grow (nothing changed).
 */
XLAT_API int xlat_tlb_insert(xlat_tlb *tlb, const xlat_tlb_entry *e, xlat_tlb_entry *victim);

/**
 * @brief Remove every entry of `pasid` that translates `vaddr` (of any page size).
 * @param tlb the TLB.
 * @param pasid the address space.
 * @param vaddr the virtual address (bytes).
 * @return the number of entries removed (>= 0, 0 when none matched), or
 *         ::XLAT_ERR_INVAL for a NULL `tlb`.
 */
XLAT_API int xlat_tlb_invalidate(xlat_tlb *tlb, uint32_t pasid, uint64_t vaddr);

/**
 * @brief Remove every entry of `pasid`.
 * @param tlb the TLB.
 * @param pasid the address space.
 * @return the number of entries removed (>= 0, 0 when none matched), or
 *         ::XLAT_ERR_INVAL for a NULL `tlb`.
 */
XLAT_API int xlat_tlb_invalidate_pasid(xlat_tlb *tlb, uint32_t pasid);

/**
 * @brief Remove every entry (replacement state is reset too).
 * @param tlb the TLB.
 * @return the number of entries removed (>= 0), or ::XLAT_ERR_INVAL for a
 *         NULL `tlb`.
 */
XLAT_API int xlat_tlb_flush(xlat_tlb *tlb);

/**
 * @brief Valid entries.
 * @param tlb the TLB, or NULL.
 * @return the number of valid entries; 0 for NULL.
 */
XLAT_API size_t xlat_tlb_count(const xlat_tlb *tlb);

/**
 * @brief Capacity in entries (for an unbounded TLB: the current table size).
 * @param tlb the TLB, or NULL.
 * @return sets × ways; 0 for NULL.
 */
XLAT_API size_t xlat_tlb_capacity(const xlat_tlb *tlb);

/**
 * @brief The TLB's name.
 * @param tlb the TLB, or NULL.
 * @return the name, owned by the TLB; "" for NULL.
 */
XLAT_API const char *xlat_tlb_name(const xlat_tlb *tlb);

/**
 * @brief Bytes of memory the TLB holds: structure, name, entries, replacement state,
 *        listener lists and, once allocated, the timed unit.
 * @param tlb the TLB, or NULL.
 * @return the size in bytes; 0 for NULL.
 */
XLAT_API size_t xlat_tlb_memory(const xlat_tlb *tlb);

/**
 * @brief Call `fn(user, entry)` for every valid entry of set `set`, from the
 *        policy's next victim to its most protected (LRU: least to most
 *        recent; FIFO: oldest first; others: way order).
 * A reporting call: it may allocate a buffer of `ways` words. `fn` must not
 * change the TLB.
 * @param tlb the TLB.
 * @param set the set index, below xlat_tlb_sets().
 * @param fn called once per valid entry, with `user` and the entry (valid
 *        during the call).
 * @param user passed to `fn`.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL NULL `tlb` or `fn`, or `set` out of range.
 * @retval XLAT_ERR_NOMEM
 */
XLAT_API int xlat_tlb_set_foreach(const xlat_tlb *tlb, uint32_t set,
                                  void (*fn)(void *user, const xlat_tlb_entry *e), void *user);

/**
 * @brief Number of sets.
 * @param tlb the TLB, or NULL.
 * @return the number of sets; 0 for NULL.
 */
XLAT_API uint32_t xlat_tlb_sets(const xlat_tlb *tlb);

/**
 * @brief Set the TLB's single eviction slot (fn NULL: empty it). Called for
 *        every victim, functional or timed, before the listeners of
 *        xlat_tlb_evict_listen(). A second call replaces the first
 *        (fn, user); listeners are not affected. Never allocates.
 * @param tlb the TLB; NULL does nothing.
 * @param fn the callback, or NULL to empty the slot.
 * @param user passed to `fn` (not owned).
 */
XLAT_API void xlat_tlb_set_evict_fn(xlat_tlb *tlb, xlat_tlb_evict_fn fn, void *user);

/**
 * @brief Add an eviction listener: `fn(user, tlb, victim)` for every victim,
 *        functional or timed, after the eviction slot and the listeners
 *        added before it, once the TLB's state is consistent (see the
 *        group's notes). The same (fn, user) added twice is called twice.
 *
 * May allocate (the listener list grows by doubling); reporting an
 * eviction never does.
 * @param tlb the TLB.
 * @param fn the listener.
 * @param user passed to `fn` (not owned).
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `tlb` or `fn` is NULL.
 * @retval XLAT_ERR_NOMEM nothing was added.
 */
XLAT_API int xlat_tlb_evict_listen(xlat_tlb *tlb, xlat_tlb_evict_fn fn, void *user);

/**
 * @brief Remove the first listener added with this (fn, user). No other
 *        listener (nor the slot of xlat_tlb_set_evict_fn()) is affected.
 *        Allowed from inside a listener; a listener removed during a report
 *        is not called for the rest of it. Never allocates.
 * @param tlb the TLB.
 * @param fn the listener, as given to xlat_tlb_evict_listen().
 * @param user the `user` it was added with.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `tlb` or `fn` is NULL.
 * @retval XLAT_ERR_NOT_FOUND no listener has this (fn, user).
 */
XLAT_API int xlat_tlb_evict_unlisten(xlat_tlb *tlb, xlat_tlb_evict_fn fn, void *user);

/**
 * @brief Set the target that misses are forwarded to (copied). NULL: a miss
 *        is answered at t + latency with status ::XLAT_ERR_NOT_FOUND.
 *
 * The TLB holds the unit the target names (xlat_target::unit_id) until it
 * is given another next level or destroyed: destroying that unit before
 * returns ::XLAT_ERR_BUSY.
 *
 * May allocate: the first call (or xlat_tlb_get_target()) allocates the TLB's
 * timed unit (ports, MSHRs, the hits in flight, request records) and
 * reserves on the context the events it can have pending at once
 * (xlat_tlb_config::hits_in_flight + mshrs), so that nothing it does inside
 * xlat_tick() / xlat_advance() allocates. A next level that grows with
 * its load (an ::xlat_link, an unbounded ::xlat_fixed) makes room here for
 * the misses the TLB's MSHRs can send at once, for the same reason.
 * @param tlb the TLB.
 * @param next the next level, or NULL for none.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL `tlb` is NULL, or `next` has no translate function
 *         or a `struct_size`
 *         below ::XLAT_TARGET_SIZE_V0.
 * @retval XLAT_ERR_UNSUPPORTED the target is from a newer libxlat and sets
 *         fields this one does not know.
 * @retval XLAT_ERR_NOT_FOUND the target names a unit (`unit_id`) that was
 *         destroyed; nothing changed.
 * @retval XLAT_ERR_NOMEM the timed unit could not be allocated, or the next
 *         level could not make room; the TLB keeps its previous next level.
 */
XLAT_API int xlat_tlb_set_next(xlat_tlb *tlb, const xlat_target *next);

/**
 * @brief Timed lookup of `req` at the current cycle (see the group's notes).
 *
 * A hit whose permissions do not allow `req->access` is answered with
 * ::XLAT_ERR_PERM at t + latency. An invalidation (invalidate,
 * invalidate_pasid, flush) reaches requests in flight: a hit whose entry was
 * removed before its answer is sent on to the next level then, and a miss
 * outstanding at the time that the invalidation may cover (same address
 * space and, for xlat_tlb_invalidate(), the same 1 GiB region) is answered
 * without filling this TLB. A miss waits in an MSHR keyed by PASID and
 * 4 KiB virtual page; a second miss on the same key joins it (no new MSHR,
 * no new request downstream) while the MSHR holds fewer than
 * xlat_tlb_config::mshr_targets requests. Never allocates.
 * @param tlb the TLB.
 * @param req the request (copied).
 * @param done called once with the answer.
 * @param user passed back to `done`.
 * @retval XLAT_OK accepted: `done` will be called exactly once
 * @retval XLAT_ERR_AGAIN this cycle's ports are used, a miss found every
 *         MSHR busy or the MSHR of its page full, or a hit found
 *         xlat_tlb_config::hits_in_flight hits in flight; nothing was taken
 * @retval XLAT_ERR_INVAL NULL `tlb`, `req` or `done`, or `req->access` is
 *         not an ::xlat_access
 * @retval XLAT_ERR_STATE the TLB has no timed unit yet: call
 *         xlat_tlb_set_next() (NULL for no next level) or xlat_tlb_get_target() first
 */
XLAT_API int xlat_tlb_translate(xlat_tlb *tlb, const xlat_req *req, xlat_done_fn done,
                                void *user);

/**
 * @brief This TLB as an ::xlat_target, to be the next level of another unit
 *        (or the host's target).
 *        The first call on a TLB allocates its timed unit (as
 *        xlat_tlb_set_next() does).
 * @param tlb the tlb.
 * @param out receives the target: start it with ::XLAT_TARGET_INIT; at most
 *        `out->struct_size` bytes are written (what a newer host's struct
 *        has beyond this library's is zeroed), and `struct_size` stays the
 *        host's. `translate` is xlat_tlb_translate(), and `wait` calls back when the TLB may accept again;
 *        `unit_id` is this tlb's unit id.
 * @retval XLAT_OK
 * @retval XLAT_ERR_NOMEM the timed unit could not be allocated
 * @retval XLAT_ERR_INVAL NULL `tlb` or `out`, or `out->struct_size`
 *         below ::XLAT_TARGET_SIZE_V0 (or not a size at all)
 */
XLAT_API int xlat_tlb_get_target(xlat_tlb *tlb, xlat_target *out);

/**
 * @brief MSHRs in use now.
 * @param tlb the TLB, or NULL.
 * @return the number of busy MSHRs; 0 for NULL and before the timed unit
 *         exists.
 */
XLAT_API uint32_t xlat_tlb_mshrs_busy(const xlat_tlb *tlb);

/**
 * @brief Copy the counters into `*out`.
 * @param tlb the TLB (NULL: zeros).
 * @param out receives the counters, an ::xlat_tlb_stats (NULL does nothing).
 * @param out_size sizeof(*out) as the caller was built: at most this many
 *        bytes are written (a host built against an older, shorter struct
 *        gets the fields it knows); bytes beyond the library's own struct
 *        are zeroed. 0 writes nothing.
 */
XLAT_API void xlat_tlb_stats_get(const xlat_tlb *tlb, xlat_tlb_stats *out, size_t out_size);

/**
 * @brief Zero the counters and the latency histogram (xlat_unit_latency_get()).
 * @param tlb the TLB; NULL does nothing.
 */
XLAT_API void xlat_tlb_stats_reset(xlat_tlb *tlb);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_TLB_H */
