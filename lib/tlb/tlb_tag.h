/*
 * Way tags of a wide set: a byte per way, a hash of the page number its
 * entry holds (never 0), or 0 for an empty way. A set's tags are a row of
 * `tag_stride` bytes (its ways rounded up to 16, the padding 0), and the
 * rows follow the ways in the ways' allocation.
 *
 * A lookup compares its tag with a whole row at once and checks only the
 * ways whose tag matches, lowest first: usually the one way that hits.
 * The scan it replaces stopped at the hit, so its last branch went where
 * the hit was, which a host CPU cannot predict when hits land anywhere in
 * the set (a third of an L1 hit's host time in a 32-way TLB); and a miss
 * read 32 bytes a way, where it now reads one.
 *
 * Sets narrower than XLAT_TLB_TAG_MIN_WAYS carry no tags: up to 7 ways
 * are all compared, 8 to 16 scanned (tlb_internal.h). Measured: tags on
 * 12 and 16-way sets made the reference hierarchy's 12-way L2 13% faster
 * but systems of 256 and more GPUs, whose TLBs are not in the host's
 * caches, up to 18% slower (the row, then the way: two misses in a row).
 */
#ifndef XLAT_TLB_TAG_H
#define XLAT_TLB_TAG_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define XLAT_TLB_TAG_MIN_WAYS 17
#define XLAT_TLB_TAG_ROUND 16 /* a row is whole 16-byte blocks */

/* Bytes of tags per set, 0 for a set that has none. */
static inline uint32_t xlat__tlb_tag_stride(uint32_t ways)
{
    if (ways < XLAT_TLB_TAG_MIN_WAYS)
        return 0;
    return (ways + XLAT_TLB_TAG_ROUND - 1) / XLAT_TLB_TAG_ROUND * XLAT_TLB_TAG_ROUND;
}

/* The tag of page number `vpn`: the top byte of a multiplicative hash (a
 * set's ways share their low vpn bits, the set index), 0 moved to 1. */
static inline uint8_t xlat__tlb_tag(uint64_t vpn)
{
    uint8_t tag = (uint8_t)((vpn * UINT64_C(0x9E3779B97F4A7C15)) >> 56);
    return (uint8_t)(tag + (tag == 0)); /* no branch */
}

/* Bit i set when row[i] equals `tag`, for the `n` bytes of `row` (a
 * multiple of 8, at most 64), eight bytes at a time: any host. Exact: the
 * low seven bits of each byte are added to 0x7f apart, so no carry crosses
 * a byte (the shorter has-zero-byte trick flags a byte above a zero one
 * too, which would let a lookup read past its set's ways). */
static inline uint64_t xlat__tlb_tag_match_swar(const uint8_t *row, uint32_t n, uint8_t tag)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), low7 = ones * 0x7f;
    uint64_t key = tag * ones, m = 0;
    for (uint32_t i = 0; i < n; i += 8) {
        uint64_t x;
        memcpy(&x, row + i, sizeof(x));
        x ^= key;
        uint64_t zero = ~(((x & low7) + low7) | x | low7); /* the top bit of each zero byte */
        /* Gathers the eight top bits into one byte, byte j's at bit j. */
        m |= ((zero >> 7) * UINT64_C(0x0102040810204080)) >> 56 << i;
    }
    return m;
}

#if defined(__SSE2__)
/* Bit i set when row[i] equals the byte in every lane of `key`, for the
 * 16 bytes of `row`. */
static inline uint64_t xlat__tlb_tag_block(const uint8_t *row, __m128i key)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)row);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, key));
}
#endif

/* As xlat__tlb_tag_match_swar (n a multiple of 16): SSE2, which every
 * x86-64 host has, 16 bytes a compare. */
static inline uint64_t xlat__tlb_tag_match(const uint8_t *row, uint32_t n, uint8_t tag)
{
#if defined(__SSE2__)
    __m128i key = _mm_set1_epi8((char)tag);
    uint64_t m = 0;
    for (uint32_t i = 0; i < n; i += 16)
        m |= xlat__tlb_tag_block(row + i, key) << i;
    return m;
#else
    return xlat__tlb_tag_match_swar(row, n, tag);
#endif
}

/* As xlat__tlb_tag_match for a whole row of a set of at most 64 ways (16,
 * 32, 48 or 64 bytes), without a loop: a row's length is the same at
 * every lookup of a TLB, so the jump into the blocks is predicted. */
static inline uint64_t xlat__tlb_tag_match_row(const uint8_t *row, uint32_t n, uint8_t tag)
{
#if defined(__SSE2__)
    __m128i key = _mm_set1_epi8((char)tag);
    uint64_t m = 0;
    switch (n / 16) {
    case 4:
        m |= xlat__tlb_tag_block(row + 48, key) << 48;
        __attribute__((fallthrough));
    case 3:
        m |= xlat__tlb_tag_block(row + 32, key) << 32;
        __attribute__((fallthrough));
    case 2:
        m |= xlat__tlb_tag_block(row + 16, key) << 16;
        __attribute__((fallthrough));
    default:
        m |= xlat__tlb_tag_block(row, key);
    }
    return m;
#else
    return xlat__tlb_tag_match_swar(row, n, tag);
#endif
}

/* The tags of a row of `stride` bytes from `at` on, 64 at most, equal to
 * `tag`: a set wider than 64 ways is compared a chunk at a time. */
static inline uint64_t xlat__tlb_tag_match_from(const uint8_t *row, uint32_t stride, uint32_t at,
                                                uint8_t tag)
{
    return xlat__tlb_tag_match(row + at, stride - at < 64 ? stride - at : 64, tag);
}

#endif
