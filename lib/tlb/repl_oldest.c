/* The oldest stamp of a set four ways at a time, with AVX2 on x86-64 hosts
 * that have it (repl_oldest.h). */
#include "repl_oldest.h"

#if XLAT_REPL_AVX2

#include <immintrin.h>

/* The older (smaller) stamp of each lane; stamps flipped (below). */
__attribute__((target("avx2"))) static inline __m256i older_of(__m256i a, __m256i b)
{
    __m256d b_older = _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b));
    return _mm256_castpd_si256(
        _mm256_blendv_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b), b_older));
}

__attribute__((target("avx2"))) static inline __m256i load_flipped(const uint64_t *state,
                                                                   __m256i flip)
{
    return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)state), flip);
}

/* Two passes. The first finds the oldest stamp in four running minima,
 * so that no step waits for the one before it (one chain through every
 * way waited on each compare: no faster than the scalar search). The
 * second finds the lowest way holding that stamp from a bit a way, with
 * no branch but one per 64 ways. AVX2 compares signed lanes; with their
 * top bit flipped, unsigned stamps compare in the same order. */
__attribute__((target("avx2"))) uint32_t xlat__repl_oldest_vector(const uint64_t *state,
                                                                   uint32_t ways)
{
    const __m256i flip = _mm256_set1_epi64x(INT64_MIN);
    uint32_t w = 16;
    __m256i m0 = load_flipped(state, flip), m1 = load_flipped(state + 4, flip);
    __m256i m2 = load_flipped(state + 8, flip), m3 = load_flipped(state + 12, flip);
    for (; w + 16 <= ways; w += 16) {
        m0 = older_of(m0, load_flipped(state + w, flip));
        m1 = older_of(m1, load_flipped(state + w + 4, flip));
        m2 = older_of(m2, load_flipped(state + w + 8, flip));
        m3 = older_of(m3, load_flipped(state + w + 12, flip));
    }
    for (; w < ways; w += 4)
        m0 = older_of(m0, load_flipped(state + w, flip));
    __m256i m = older_of(older_of(m0, m1), older_of(m2, m3));
    m = older_of(m, _mm256_permute4x64_epi64(m, 0x4e)); /* lanes 2, 3 against 0, 1 */
    m = older_of(m, _mm256_shuffle_epi32(m, 0x4e));      /* lane 1 against lane 0 */
    __m256i oldest = _mm256_xor_si256(m, flip);          /* in every lane */
    for (uint32_t base = 0;; base += 64) {
        uint64_t at = 0;
        for (uint32_t i = 0; i < 64 && base + i < ways; i += 4) {
            __m256i same = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(state + base + i)),
                                              oldest);
            at |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(same)) << i;
        }
        if (at) /* the oldest stamp is one of the set's: some 64 ways hold it */
            return base + (uint32_t)__builtin_ctzll(at);
    }
}

#else

uint32_t xlat__repl_oldest_vector(const uint64_t *state, uint32_t ways)
{
    return ways < 8 ? xlat__repl_oldest_narrow(state, ways) : xlat__repl_oldest_chains(state, ways);
}

#endif
