/* The oldest stamp of a set four ways at a time, with AVX2 on x86-64 hosts
 * that have it (repl_oldest.h). */
#include "repl_oldest.h"

#if XLAT_REPL_AVX2

#include <immintrin.h>

/* Lanes of stamps (their top bits flipped: AVX2 compares signed lanes,
 * and flipped, unsigned stamps compare in the same order) and the ways
 * that hold them (or, while searching, the rounds; see below). */
struct lanes {
    __m256i stamp, way;
};

__attribute__((target("avx2"))) static inline __m256i load_flipped(const uint64_t *state)
{
    return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)state),
                            _mm256_set1_epi64x(INT64_MIN));
}

/* Each lane of `b` where `mask`'s lane is set, else of `a`. */
__attribute__((target("avx2"))) static inline __m256i blend(__m256i a, __m256i b, __m256i mask)
{
    return _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b),
                                                _mm256_castsi256_pd(mask)));
}

__attribute__((target("avx2"))) static inline void keep(struct lanes *l, __m256i older,
                                                        __m256i stamp, __m256i way)
{
    l->stamp = blend(l->stamp, stamp, older);
    l->way = blend(l->way, way, older);
}

/* Ways higher, lane by lane, than those in `l` (a later round, or a later
 * vector of one): a lane takes its stamp only when it is strictly older,
 * so the lower way keeps a tie. */
__attribute__((target("avx2"))) static inline void take_higher(struct lanes *l, __m256i stamp,
                                                               __m256i way)
{
    keep(l, _mm256_cmpgt_epi64(l->stamp, stamp), stamp, way);
}

/* Ways from anywhere: a tie goes to the lower way. */
__attribute__((target("avx2"))) static inline void take_any(struct lanes *l, struct lanes o)
{
    __m256i tie = _mm256_and_si256(_mm256_cmpeq_epi64(l->stamp, o.stamp),
                                   _mm256_cmpgt_epi64(l->way, o.way));
    keep(l, _mm256_or_si256(_mm256_cmpgt_epi64(l->stamp, o.stamp), tie), o.stamp, o.way);
}

/* Lanes of ways first .. first + 3. */
__attribute__((target("avx2"))) static inline __m256i ways_from(int64_t first)
{
    return _mm256_setr_epi64x(first, first + 1, first + 2, first + 3);
}

/* The lanes of ways 16 k + first .. 16 k + first + 3, from each lane's
 * k: every fourth vector's ways, those of one accumulator below. */
__attribute__((target("avx2"))) static inline struct lanes ways_of(__m256i stamp, __m256i k,
                                                                   int64_t first)
{
    return (struct lanes){stamp, _mm256_add_epi64(_mm256_slli_epi64(k, 4), ways_from(first))};
}

/* The way in lane 0 once the lanes have merged, a tie going to the lower
 * way: lanes 2 and 3 into 0 and 1, then lane 1 into 0. */
__attribute__((target("avx2"))) static inline uint32_t merged_way(struct lanes a)
{
    take_any(&a, (struct lanes){_mm256_permute4x64_epi64(a.stamp, 0x4e), /* lanes 2, 3 */
                                _mm256_permute4x64_epi64(a.way, 0x4e)});
    take_any(&a, (struct lanes){_mm256_shuffle_epi32(a.stamp, 0x4e), /* lane 1 */
                                _mm256_shuffle_epi32(a.way, 0x4e)});
    return (uint32_t)_mm256_cvtsi256_si32(a.way);
}

/* A set of 8, 12 or 16 ways (an L2 TLB's 12, a system L1's 16): a vector
 * of four ways each. Lane i of a later vector holds a higher way than lane
 * i of an earlier one, so each vector joins with take_higher(), a strict
 * compare and no tie test; 16 ways join as two pairs, then the pairs. */
__attribute__((target("avx2"), noinline)) static uint32_t oldest_of_few(const uint64_t *state,
                                                                        uint32_t ways)
{
    struct lanes a = {load_flipped(state), ways_from(0)};
    take_higher(&a, load_flipped(state + 4), ways_from(4));
    if (ways == 12)
        take_higher(&a, load_flipped(state + 8), ways_from(8));
    if (ways == 16) {
        struct lanes c = {load_flipped(state + 8), ways_from(8)};
        take_higher(&c, load_flipped(state + 12), ways_from(12));
        take_higher(&a, c.stamp, c.way);
    }
    return merged_way(a);
}

/* Four accumulators take every fourth vector of the set each, so that no
 * compare waits on the one before it, and keep, for each lane, which
 * round of 16 ways its stamp came from (one count for all four: fewer
 * registers than four counts of ways, which gcc 12 spilled). Then the
 * lanes merge, a tie going to the lower way. A first version, one chain
 * of vector compares and then a second pass for the lowest way holding
 * the oldest stamp, took 263 instructions for 64 ways. */
__attribute__((target("avx2"), noinline)) static uint32_t oldest_in_rounds(const uint64_t *state,
                                                                           uint32_t ways)
{
    const __m256i one = _mm256_set1_epi64x(1);
    __m256i round = _mm256_setzero_si256();
    struct lanes a = {load_flipped(state), round}, b = {load_flipped(state + 4), round};
    struct lanes c = {load_flipped(state + 8), round}, d = {load_flipped(state + 12), round};
    uint32_t w = 16;
    for (; w + 16 <= ways; w += 16) {
        round = _mm256_add_epi64(round, one);
        take_higher(&a, load_flipped(state + w), round);
        take_higher(&b, load_flipped(state + w + 4), round);
        take_higher(&c, load_flipped(state + w + 8), round);
        take_higher(&d, load_flipped(state + w + 12), round);
    }
    if (w < ways) { /* a last round of 4, 8 or 12 ways */
        round = _mm256_add_epi64(round, one);
        take_higher(&a, load_flipped(state + w), round);
        if (w + 4 < ways)
            take_higher(&b, load_flipped(state + w + 4), round);
        if (w + 8 < ways)
            take_higher(&c, load_flipped(state + w + 8), round);
    }
    a = ways_of(a.stamp, a.way, 0);
    take_any(&a, ways_of(b.stamp, b.way, 4));
    c = ways_of(c.stamp, c.way, 8);
    take_any(&c, ways_of(d.stamp, d.way, 12));
    take_any(&a, c);
    return merged_way(a);
}

/* Sets of 8 to 16 ways are oldest_of_few()'s: one round needs no count of
 * rounds. Each search is a function of its own: compiled into one, the
 * rounds' loop lost registers to the other's constants and kept its
 * round and its step on the stack: 11 instructions more a 64-way search. */
__attribute__((target("avx2"))) uint32_t xlat__repl_oldest_vector(const uint64_t *state,
                                                                   uint32_t ways)
{
    return ways <= 16 ? oldest_of_few(state, ways) : oldest_in_rounds(state, ways);
}

#else

/* xlat__repl_vector_usable() is false here: the scalar search answers. */
uint32_t xlat__repl_oldest_vector(const uint64_t *state, uint32_t ways)
{
    return xlat__repl_oldest(state, ways);
}

#endif
