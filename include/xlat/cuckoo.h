/**
 * @file cuckoo.h
 * @brief A cuckoo filter: approximate set membership with deletion, after
 *        Fan, Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter:
 *        Practically Better Than Bloom" (CoNEXT 2014).
 */
#ifndef XLAT_CUCKOO_H
#define XLAT_CUCKOO_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup cuckoo Cuckoo filter
 * @brief A set of 64-bit keys stored as short fingerprints: no false
 *        negatives, a bounded false-positive rate, and deletion.
 *
 * @code
 * xlat_cuckoo_config cfg;
 * xlat_cuckoo_config_init(&cfg);
 * cfg.capacity = 100000;              // keys it must hold
 * cfg.fp_bits = 12;                   // about 0.19% false positives when full
 * xlat_cuckoo *cf;
 * if (xlat_cuckoo_create(ctx, &cfg, &cf) != XLAT_OK) puts(xlat_ctx_errmsg(ctx));
 * xlat_cuckoo_insert(cf, 0x42);       // XLAT_OK, or XLAT_ERR_FULL (nothing changed)
 * xlat_cuckoo_contains(cf, 0x42);     // true
 * xlat_cuckoo_remove(cf, 0x42);       // XLAT_OK
 * xlat_cuckoo_destroy(cf);
 * @endcode
 *
 * **Structure.** A table of 2^k buckets of `bucket_size` slots; a slot holds
 * an `fp_bits`-bit fingerprint of a key (0 marks an empty slot, so
 * fingerprints take the 2^fp_bits - 1 nonzero values uniformly). A key may
 * live in two buckets, i1 = hash(key) and i2 = i1 XOR hash(fingerprint)
 * (partial-key cuckoo hashing), so a fingerprint can be moved to its other
 * bucket without knowing its key. Fingerprints are bit-packed: the table
 * takes slots × fp_bits / 8 bytes (see xlat_cuckoo_memory()).
 *
 * **Sizing.** The bucket count is the smallest power of two for which
 * `capacity` keys fill at most a target load that the bucket size reaches
 * reliably: 45% of the slots for 1-slot buckets, 84% for 2, 92% for 3 and
 * 95% for 4 to 8. Inserting `capacity` distinct keys therefore succeeds in
 * practice, and inserts past it usually do too, until the first
 * ::XLAT_ERR_FULL at about 96% load with 4-slot buckets (50%, 87%, 94% and
 * 99% with 1, 2, 3 and 8 slots).
 *
 * **False positives.** contains() of a key never inserted answers true with
 * probability at most 2 × bucket_size × load / (2^fp_bits - 1): about 0.19%
 * for 12 bits and 4-slot buckets at 95% load. A key that was inserted (and
 * not removed) is always found.
 *
 * **Full table.** When an insert would need more than `max_kicks`
 * relocations it fails with ::XLAT_ERR_FULL and every relocation is undone:
 * the table is exactly as before the call (no hidden stash, no lost key).
 *
 * **Duplicates.** Inserting a key twice stores two copies, and it takes two
 * removes to make it absent. A key has at most 2 × bucket_size slots (only
 * bucket_size when its two buckets coincide), so the copy after that fails
 * with ::XLAT_ERR_FULL and leaves the filter unchanged. Use
 * xlat_cuckoo_insert_unique() to keep one copy per key.
 *
 * **Deletion.** Remove only keys that were inserted. Removing a key that was
 * never inserted usually returns ::XLAT_ERR_NOT_FOUND and changes nothing,
 * but if its fingerprint collides with a stored one (a false positive) it
 * removes that other key's fingerprint, which may then give a false
 * negative for that other key.
 *
 * **Determinism and cost.** Hash functions and the choice of the slot to
 * kick come from the context's seed (one stream per filter, drawn at
 * create), so a given seed and sequence of calls always gives the same
 * results, and another seed different ones. Nothing allocates after create.
 * contains() and remove() probe at most two buckets; insert() is O(1)
 * amortised and at most `max_kicks` relocations. A filter is not thread-safe.
 * @{
 */

/** @brief Configuration of a cuckoo filter; fill with xlat_cuckoo_config_init(). */
typedef struct xlat_cuckoo_config {
    uint32_t struct_size; /**< sizeof(xlat_cuckoo_config), set by init. */
    uint32_t capacity;    /**< keys it must hold, >= 1; the table is sized for it */
    uint32_t fp_bits;     /**< fingerprint bits, 4..32; default 12 */
    uint32_t bucket_size; /**< slots per bucket, 1..8; default 4 */
    uint32_t max_kicks;   /**< relocations an insert may try before ::XLAT_ERR_FULL, >= 1; default 500 */
} xlat_cuckoo_config;

/**
 * @brief Smallest `struct_size` xlat_cuckoo_create() accepts: the size of the first
 *        released ::xlat_cuckoo_config (its members through `max_kicks`). Pinned: it never
 *        changes; members added since take their defaults when a host's
 *        older struct lacks them (doc/abi.md).
 */
#define XLAT_CUCKOO_CONFIG_SIZE_V0 XLAT_SIZE_THROUGH(xlat_cuckoo_config, max_kicks)

/**
 * @brief xlat_cuckoo_config_init() for a caller whose ::xlat_cuckoo_config is `size` bytes: the
 *        defaults within them, anything beyond this library's struct
 *        zeroed, `struct_size` set to `size` (doc/abi.md). Call
 *        xlat_cuckoo_config_init(), which passes the caller's own sizeof.
 * @param cfg the struct to fill; NULL (or a `size` too small for
 *        `struct_size`) does nothing.
 * @param size sizeof the caller's struct.
 */
XLAT_API void xlat_cuckoo_config_init_sized(xlat_cuckoo_config *cfg, size_t size);

/**
 * @brief Fill `cfg` with defaults: capacity 1024, 12-bit fingerprints,
 *        4-slot buckets, 500 kicks, and struct_size.
 * @param cfg the configuration to fill (caller-owned); NULL does nothing.
 */
static inline void xlat_cuckoo_config_init(xlat_cuckoo_config *cfg)
{
    xlat_cuckoo_config_init_sized(cfg, sizeof(*cfg));
}

/**
 * @brief Create an empty cuckoo filter on `ctx`. The table and the undo log
 *        of an insert (one byte per kick) are allocated here, and nothing
 *        after. The configuration is copied.
 * @param ctx the context: allocator, seed, error text. It must outlive the filter.
 * @param cfg the configuration, filled by xlat_cuckoo_config_init().
 * @param out receives the handle on success; untouched on failure.
 * @retval XLAT_OK
 * @retval XLAT_ERR_INVAL a NULL argument, a struct_size smaller than this
 *         struct's, `capacity` or `max_kicks` 0, `fp_bits` outside 4..32,
 *         `bucket_size` outside 1..8, or a capacity needing more than 2^32
 *         buckets or more memory than size_t can count (the message says which).
 * @retval XLAT_ERR_UNSUPPORTED a config from a newer libxlat.
 * @retval XLAT_ERR_NOMEM the allocator failed; nothing is left allocated.
 */
XLAT_API int xlat_cuckoo_create(xlat_ctx *ctx, const xlat_cuckoo_config *cfg, xlat_cuckoo **out);

/**
 * @brief Destroy a filter and return its memory to the context's allocator.
 * @param cf the filter, or NULL (does nothing). The handle is invalid after.
 * @return ::XLAT_OK: nothing holds a filter.
 */
XLAT_API int xlat_cuckoo_destroy(xlat_cuckoo *cf);

/**
 * @brief Add a key (another copy if it is there already).
 *
 * Tries the key's two buckets, then relocates fingerprints between their
 * alternate buckets, up to `max_kicks` times. Never allocates.
 * @param cf the filter.
 * @param key any 64-bit value; the filter hashes it.
 * @retval XLAT_OK the key was added.
 * @retval XLAT_ERR_FULL no room within `max_kicks` relocations, or the key
 *         already fills all of its slots; the filter is unchanged.
 * @retval XLAT_ERR_INVAL `cf` is NULL.
 */
XLAT_API int xlat_cuckoo_insert(xlat_cuckoo *cf, uint64_t key);

/**
 * @brief Add a key unless the filter already seems to hold it.
 *
 * Because contains() has false positives, a key never inserted may be
 * refused with ::XLAT_ERR_EXIST (with the probability of a false positive).
 * @param cf the filter.
 * @param key any 64-bit value.
 * @retval XLAT_OK the key was added.
 * @retval XLAT_ERR_EXIST contains() is true for the key; nothing changed.
 * @retval XLAT_ERR_FULL no room; the filter is unchanged.
 * @retval XLAT_ERR_INVAL `cf` is NULL.
 */
XLAT_API int xlat_cuckoo_insert_unique(xlat_cuckoo *cf, uint64_t key);

/**
 * @brief Whether the filter may hold `key`. Changes nothing.
 * @param cf the filter, or NULL.
 * @param key any 64-bit value.
 * @return true for every inserted and not removed key, and for a few others
 *         (false positives, see the group's description); false for NULL.
 */
XLAT_API bool xlat_cuckoo_contains(const xlat_cuckoo *cf, uint64_t key);

/**
 * @brief Remove one copy of a key.
 *
 * Only remove keys that were inserted: a key that was not, but whose
 * fingerprint matches a stored one, removes that fingerprint and may cause
 * a false negative for the key that owns it.
 * @param cf the filter.
 * @param key a key inserted earlier and not yet removed as often.
 * @retval XLAT_OK one copy of the key's fingerprint was removed.
 * @retval XLAT_ERR_NOT_FOUND no matching fingerprint; nothing changed.
 * @retval XLAT_ERR_INVAL `cf` is NULL.
 */
XLAT_API int xlat_cuckoo_remove(xlat_cuckoo *cf, uint64_t key);

/**
 * @brief Number of fingerprints stored: successful inserts minus successful
 *        removes, copies of a key included.
 * @param cf the filter, or NULL.
 * @return the count; 0 for NULL.
 */
XLAT_API size_t xlat_cuckoo_count(const xlat_cuckoo *cf);

/**
 * @brief Slots of the table: buckets × bucket_size, fixed at create.
 * @param cf the filter, or NULL.
 * @return the slot count (the load is count / slots); 0 for NULL.
 */
XLAT_API size_t xlat_cuckoo_slots(const xlat_cuckoo *cf);

/**
 * @brief Fingerprint width.
 * @param cf the filter, or NULL.
 * @return the configured `fp_bits`, in bits; 0 for NULL.
 */
XLAT_API uint32_t xlat_cuckoo_fp_bits(const xlat_cuckoo *cf);

/**
 * @brief Memory the filter holds.
 * @param cf the filter, or NULL.
 * @return bytes: the handle, the packed table (slots × fp_bits / 8, rounded
 *         up to 8 bytes, plus 8 bytes that let a bucket be read with one
 *         load) and the undo log (max_kicks bytes); 0 for NULL.
 */
XLAT_API size_t xlat_cuckoo_memory(const xlat_cuckoo *cf);

/**
 * @brief A 64-bit digest of the filter's state: every slot of the table, in
 *        order, and the count. O(table size).
 *
 * Two filters with the same configuration, the same seed stream and the
 * same sequence of calls have equal digests, which lets a host check that
 * two runs stayed identical. A call that changed nothing (a failed insert or
 * remove) leaves the digest unchanged.
 * @param cf the filter, or NULL.
 * @return the digest; 0 for NULL.
 */
XLAT_API uint64_t xlat_cuckoo_digest(const xlat_cuckoo *cf);

/**
 * @brief Remove every key. The filter then behaves exactly as just after
 *        xlat_cuckoo_create() (same hashes, same kick choices). O(table size).
 * @param cf the filter, or NULL (does nothing).
 */
XLAT_API void xlat_cuckoo_clear(xlat_cuckoo *cf);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_CUCKOO_H */
