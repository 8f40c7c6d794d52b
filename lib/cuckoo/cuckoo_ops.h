/*
 * Lookup, insert and remove of the cuckoo filter, written once and
 * compiled once per shape (cuckoo_shapes.c). Every function takes `F`, the
 * fingerprint width as a compile-time constant of a specialised shape
 * (4-slot buckets that one 8-byte load covers), or 0 for the generic shape
 * (any width and bucket size, read slot by slot with the filter's own
 * sizes). A specialised body then has no loop over slots and no run-time
 * shift amounts: the paper's (§5.1) one-word bucket test.
 *
 * Both shapes give the same answers, slot for slot: the same hashes, the
 * lowest empty slot for a put, the lowest matching slot for a remove, the
 * same kick choices. Only the cost differs.
 */
#ifndef XLAT_CUCKOO_OPS_H
#define XLAT_CUCKOO_OPS_H

#include "cuckoo_internal.h"

#define CF_INLINE static inline __attribute__((always_inline))

/* Slots per bucket of the specialised shapes. */
#define WORD_SLOTS 4

/* ---- hashing (paper §3.1, partial-key cuckoo hashing) ------------------ */

/* i1 = hash(x) and the fingerprint come from one keyed 64-bit mix of the
 * key: the index from its low 32 bits (a table has at most 2^32 buckets),
 * the fingerprint from its high 32 bits, scaled to 0 .. 2^f - 2 by a
 * multiply and a shift instead of a modulo. 0 marks an empty slot, so
 * fingerprints take the 2^f - 1 nonzero values, each equally often (up to
 * 2^-32 of bias); f <= 32, so the product fits 64 bits. The count
 * 2^f - 1 is read from the filter even when f is a constant: one multiply
 * instruction, where gcc would spend a shift and a subtract and a move. */
CF_INLINE void hash_key(const xlat_cuckoo *cf, uint64_t key, uint64_t *i1, uint32_t *fp)
{
    uint64_t h = xlat__mix64(key ^ cf->key_index);
    *i1 = h & cf->mask;
    *fp = (uint32_t)((((h >> 32) * cf->fp_mask) >> 32) + 1);
}

/* i2 = i1 XOR hash(fp), hash(fp) the bits from 32 up of fp times the
 * filter's odd random multiplier (multiply-shift hashing): every bit of fp
 * reaches them. On a power-of-two table the XOR is an involution,
 * alt(alt(i, fp), fp) == i, which is what lets a kicked fingerprint find its
 * other bucket, and lets a failed insert walk its kicks backwards. The two
 * buckets coincide when hash(fp) & mask is 0. */
CF_INLINE uint64_t alt_index(const xlat_cuckoo *cf, uint64_t i, uint32_t fp)
{
    return i ^ ((((uint64_t)fp * cf->key_alt) >> 32) & cf->mask);
}

/* ---- the generic shape: slots read one by one -------------------------- */

/* Fingerprints straddle 64-bit words when f does not divide 64. Reading and
 * writing whole aligned words keeps every access aligned and in bounds: the
 * second word is touched only when the field really extends into it, and a
 * field that does never ends past the last word. Shifts stay below 64
 * because a straddling field starts at a bit offset of at least 33. */
CF_INLINE uint32_t packed_get(const xlat_cuckoo *cf, uint64_t bit)
{
    size_t w = (size_t)(bit >> 6);
    unsigned off = (unsigned)(bit & 63);
    uint64_t v = cf->table[w] >> off;
    if (off + cf->f > 64)
        v |= cf->table[w + 1] << (64 - off);
    return (uint32_t)(v & cf->fp_mask);
}

CF_INLINE void packed_set(xlat_cuckoo *cf, uint64_t bit, uint32_t fp)
{
    size_t w = (size_t)(bit >> 6);
    unsigned off = (unsigned)(bit & 63);
    uint64_t m = cf->fp_mask;
    cf->table[w] = (cf->table[w] & ~(m << off)) | ((uint64_t)fp << off);
    if (off + cf->f > 64) {
        unsigned sh = 64 - off;
        cf->table[w + 1] = (cf->table[w + 1] & ~(m >> sh)) | ((uint64_t)fp >> sh);
    }
}

CF_INLINE uint64_t packed_bit(const xlat_cuckoo *cf, uint64_t bucket, uint32_t slot)
{
    return (bucket * cf->b + slot) * cf->f;
}

/* ---- the specialised shapes: a bucket in one word ----------------------- */

/* A 1 in the lowest bit of each of the bucket's F-bit lanes. */
CF_INLINE uint64_t lanes_low(unsigned F)
{
    return 1 | UINT64_C(1) << F | UINT64_C(1) << 2 * F | UINT64_C(1) << 3 * F;
}

/* Buckets are 4F bits, packed as in the generic shape: bucket `i` starts
 * at a byte when F is even, and half-way into one (F = 9) for odd i. */
CF_INLINE uint64_t word_byte(uint64_t i, unsigned F)
{
    return F % 2 ? i * WORD_SLOTS * F / 8 : i * (WORD_SLOTS * F / 8);
}

CF_INLINE unsigned word_shift(uint64_t i, unsigned F)
{
    return F % 2 ? (unsigned)(i * WORD_SLOTS * F % 8) : 0;
}

/* The 8 bytes from `byte` on; the table is little-endian words
 * (cuckoo_shapes.c picks the generic shape on other hosts). */
CF_INLINE uint64_t word_load(const xlat_cuckoo *cf, uint64_t byte)
{
    uint64_t w;
    memcpy(&w, (const unsigned char *)cf->table + byte, sizeof(w));
    return w;
}

CF_INLINE void word_store(xlat_cuckoo *cf, uint64_t byte, uint64_t w)
{
    memcpy((unsigned char *)cf->table + byte, &w, sizeof(w));
}

/* Bucket `i` in the low 4F bits; the bits above belong to the next
 * bucket, and the lane test below never lets them reach a lane. */
CF_INLINE uint64_t word_bucket(const xlat_cuckoo *cf, uint64_t i, unsigned F)
{
    return word_load(cf, word_byte(i, F)) >> word_shift(i, F);
}

/* Nonzero exactly when one of the four lanes of `x` is 0, and then its
 * lowest set bit is the top bit of the lowest zero lane (a borrow reaches
 * only the lanes above a zero one). Bits above the lanes are ignored. */
CF_INLINE uint64_t zero_lanes(uint64_t x, unsigned F)
{
    uint64_t low = lanes_low(F);
    return (x - low) & ~x & (low << (F - 1));
}

/* Lanes equal to `fp`, as zero_lanes() marks them. */
CF_INLINE uint64_t match_lanes(const xlat_cuckoo *cf, uint64_t bucket, uint32_t fp, unsigned F)
{
    return zero_lanes(bucket ^ (uint64_t)fp * cf->lane_ones, F);
}

/* ---- one bucket, either shape ------------------------------------------ */

/* Slot of `fp` in `bucket`, the lowest one, or -1. Searching for 0 finds
 * an empty slot. */
CF_INLINE int bucket_find(const xlat_cuckoo *cf, uint64_t bucket, uint32_t fp, unsigned F)
{
    if (F) {
        uint64_t m = match_lanes(cf, word_bucket(cf, bucket, F), fp, F);
        return m ? (int)((unsigned)__builtin_ctzll(m) / F) : -1;
    }
    uint64_t bit = packed_bit(cf, bucket, 0);
    for (uint32_t s = 0; s < cf->b; s++, bit += cf->f)
        if (packed_get(cf, bit) == fp)
            return (int)s;
    return -1;
}

/* Writes `fp` into slot `slot` of `bucket` and returns what the slot held:
 * for a specialised shape, one load and one store of the bucket's word. */
CF_INLINE uint32_t slot_swap(xlat_cuckoo *cf, uint64_t bucket, uint32_t slot, uint32_t fp,
                             unsigned F)
{
    if (F) {
        uint64_t byte = word_byte(bucket, F);
        unsigned off = word_shift(bucket, F) + slot * F;
        uint64_t m = (UINT64_C(1) << F) - 1;
        uint64_t w = word_load(cf, byte);
        word_store(cf, byte, (w & ~(m << off)) | (uint64_t)fp << off);
        return (uint32_t)(w >> off & m);
    }
    uint64_t bit = packed_bit(cf, bucket, slot);
    uint32_t old = packed_get(cf, bit);
    packed_set(cf, bit, fp);
    return old;
}

CF_INLINE void slot_set(xlat_cuckoo *cf, uint64_t bucket, uint32_t slot, uint32_t fp, unsigned F)
{
    (void)slot_swap(cf, bucket, slot, fp, F);
}

/* Stores `fp` in an empty slot of `bucket`, the lowest one; false if full.
 * A specialised shape loads the bucket once and ORs fp into the lane it
 * found empty: no mask to clear, no second load. */
CF_INLINE bool bucket_put(xlat_cuckoo *cf, uint64_t bucket, uint32_t fp, unsigned F)
{
    if (F) {
        uint64_t byte = word_byte(bucket, F);
        unsigned shift = word_shift(bucket, F);
        uint64_t w = word_load(cf, byte);
        uint64_t empty = zero_lanes(w >> shift, F);
        if (!empty)
            return false;
        unsigned lane = (unsigned)__builtin_ctzll(empty) / F;
        word_store(cf, byte, w | (uint64_t)fp << (shift + lane * F));
        return true;
    }
    int s = bucket_find(cf, bucket, 0, F);
    if (s < 0)
        return false;
    slot_set(cf, bucket, (uint32_t)s, fp, F);
    return true;
}

/* ---- insertion with rollback ------------------------------------------ */

/* Undoes the `n` kicks of a failed relocate(). It holds the last evicted
 * fingerprint `fp`, which was heading for bucket `i`. Kick k wrote the
 * fingerprint then in hand into slot undo[k] of its bucket and took the one
 * there; walking the steps in reverse puts each evicted fingerprint back
 * and takes the written one into hand again, so the table ends exactly as
 * it was and the original fingerprint is in hand. */
CF_INLINE void relocate_undo(xlat_cuckoo *cf, uint64_t i, uint32_t fp, uint32_t n, unsigned F)
{
    while (n-- > 0) {
        i = alt_index(cf, i, fp); /* the bucket fp was kicked from */
        fp = slot_swap(cf, i, cf->undo[n], fp, F);
    }
}

/* The slot to kick, uniform over the bucket's. For 4-slot buckets this is
 * xlat__rng_below(rng, 4) without its division by a run-time bound: the
 * same draws (a draw of 2^64 - 4 or more is rejected), so the same kicks. */
CF_INLINE uint32_t kick_slot(xlat_cuckoo *cf, unsigned F)
{
    if (!F)
        return (uint32_t)xlat__rng_below(&cf->rng, cf->b);
    uint64_t x;
    do
        x = xlat__rng_next(&cf->rng);
    while (x >= UINT64_MAX - UINT64_MAX % WORD_SLOTS);
    return (uint32_t)(x % WORD_SLOTS);
}

/* Paper §3.1, Algorithm 1: with both buckets full, kick a random
 * fingerprint of bucket `i` to its alternate bucket, and repeat with the
 * fingerprint evicted there, up to max_kicks times. Unlike the paper's
 * reference code, which parks the last victim in a one-entry stash and
 * reports success, a failure is undone so that nothing is lost and the
 * caller learns about it on this very call. */
CF_INLINE int relocate(xlat_cuckoo *cf, uint64_t i, uint32_t fp, unsigned F)
{
    uint32_t n;
    for (n = 0; n < cf->cfg.max_kicks; n++) {
        uint32_t s = kick_slot(cf, F);
        fp = slot_swap(cf, i, s, fp, F);
        cf->undo[n] = (uint8_t)s;
        i = alt_index(cf, i, fp);
        if (bucket_put(cf, i, fp, F))
            return XLAT_OK;
    }
    relocate_undo(cf, i, fp, n, F);
    return XLAT_ERR_FULL;
}

/* The kicks of shape_insert(), out of line so that the common insert, one
 * of two buckets with room, stays a small leaf function. */
typedef int (*cuckoo_kick_fn)(xlat_cuckoo *cf, uint64_t i1, uint64_t i2, uint32_t fp);

CF_INLINE int shape_kick(xlat_cuckoo *cf, uint64_t i1, uint64_t i2, uint32_t fp, unsigned F)
{
    /* Algorithm 1: start the kicks from either bucket at random. */
    uint64_t start = (xlat__rng_next(&cf->rng) >> 63) ? i2 : i1;
    int rc = relocate(cf, start, fp, F);
    if (rc == XLAT_OK)
        cf->count++;
    return rc;
}

CF_INLINE int shape_insert(xlat_cuckoo *cf, uint64_t key, unsigned F, cuckoo_kick_fn kick)
{
    uint64_t i1;
    uint32_t fp;
    hash_key(cf, key, &i1, &fp);
    uint64_t i2 = alt_index(cf, i1, fp);
    if (bucket_put(cf, i1, fp, F) || (i2 != i1 && bucket_put(cf, i2, fp, F))) {
        cf->count++;
        return XLAT_OK;
    }
    return kick(cf, i1, i2, fp);
}

/* ---- lookup and deletion (paper §3.2 and §3.3, Algorithms 2 and 3) ---- */

/* Algorithm 2. A specialised shape tests both buckets without a branch:
 * two loads, two lane tests; when the buckets coincide it tests one twice. */
CF_INLINE bool shape_contains(const xlat_cuckoo *cf, uint64_t key, unsigned F)
{
    uint64_t i1;
    uint32_t fp;
    hash_key(cf, key, &i1, &fp);
    uint64_t i2 = alt_index(cf, i1, fp);
    if (F)
        return (match_lanes(cf, word_bucket(cf, i1, F), fp, F) |
                match_lanes(cf, word_bucket(cf, i2, F), fp, F)) != 0;
    return bucket_find(cf, i1, fp, F) >= 0 || (i2 != i1 && bucket_find(cf, i2, fp, F) >= 0);
}

/* The lowest i, a set bit of pick[0 .. words), whose filter cfs[i]
 * reports `key`, or -1: shape_contains() in a loop, for filters of one
 * shape (see xlat__cuckoo_first). */
CF_INLINE int64_t shape_first(void *const *cfs, const uint64_t *pick, uint32_t words, uint64_t key,
                              unsigned F)
{
    for (uint32_t w = 0; w < words; w++)
        for (uint64_t left = pick[w]; left; left &= left - 1) {
            uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(left);
            if (shape_contains(cfs[i], key, F))
                return i;
        }
    return -1;
}

/* Algorithm 3: removing any one matching copy is correct for a key that was
 * inserted, since every copy of its fingerprint in its two buckets is
 * interchangeable with the one it added. The copy taken is the first in
 * i1, else the first in i2. */
CF_INLINE int shape_remove(xlat_cuckoo *cf, uint64_t key, unsigned F)
{
    uint64_t i1;
    uint32_t fp;
    hash_key(cf, key, &i1, &fp);
    uint64_t bucket = i1;
    int s = bucket_find(cf, i1, fp, F);
    if (s < 0) {
        bucket = alt_index(cf, i1, fp);
        if (bucket == i1 || (s = bucket_find(cf, bucket, fp, F)) < 0)
            return XLAT_ERR_NOT_FOUND;
    }
    slot_set(cf, bucket, (uint32_t)s, 0, F);
    cf->count--;
    return XLAT_OK;
}

#endif
