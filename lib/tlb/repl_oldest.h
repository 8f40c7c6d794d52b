/*
 * The oldest stamp of a set (LRU's and FIFO's victim): the way whose stamp
 * is the smallest, the lowest such way when stamps are equal.
 *
 * A set of 8 ways or more, a multiple of 4, is searched four ways at a
 * time with AVX2 when the host has it (asked of the CPU at each search: a
 * load and a test); other sets and hosts take the scalar search. All give
 * the same way for every set of stamps, equal stamps and stamps of 2^63
 * and more included (tests/check_repl_oldest.c holds them to a plain
 * loop). For an IOMMU TLB's 64-way set the scalar search takes 450
 * instructions and the vector one 152; evicting inserts into 4096
 * entries of 64 ways run 1.64x as many a second (doc/performance.md).
 */
#ifndef XLAT_TLB_REPL_OLDEST_H
#define XLAT_TLB_REPL_OLDEST_H

#include <stdbool.h>
#include <stdint.h>

/* The vector search is built for x86-64 with GCC or Clang (each decides
 * at run time whether to use it); XLAT_REPL_NO_VECTOR leaves it out, to
 * test the portable build on such a host. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(XLAT_REPL_NO_VECTOR)
#define XLAT_REPL_AVX2 1
#else
#define XLAT_REPL_AVX2 0
#endif

/* Sets of this many ways or more take the vector search. */
#define XLAT_REPL_VECTOR_MIN_WAYS 8

/* One step of a search for the oldest stamp: way `w` becomes the chain's
 * oldest when its stamp is older (strictly: the first of equal stamps
 * wins). The oldest is carried in a register: comparing with
 * state[victim] made every step wait for a load that depended on the
 * step before. */
static inline void xlat__repl_keep_older(uint32_t *victim, uint64_t *oldest, uint32_t w,
                                         uint64_t stamp)
{
    bool older = stamp < *oldest;
    *victim = older ? w : *victim;
    *oldest = older ? stamp : *oldest;
}

/* The oldest of `ways` (>= 1) stamps, one way at a time. */
static inline uint32_t xlat__repl_oldest_narrow(const uint64_t *state, uint32_t ways)
{
    uint32_t victim = 0;
    uint64_t oldest = state[0];
    for (uint32_t w = 1; w < ways; w++)
        xlat__repl_keep_older(&victim, &oldest, w, state[w]);
    return victim;
}

/* The same answer for `ways` >= 2, from two chains, even and odd ways,
 * each waiting only on itself: a 64-way set takes half as long as one
 * chain through every way. Below 8 ways the set-up costs more than it
 * saves. The first of equal stamps still wins: each chain keeps its
 * lowest way, and a tie between them goes to the lower. */
static inline uint32_t xlat__repl_oldest_chains(const uint64_t *state, uint32_t ways)
{
    uint32_t even = 0, odd = 1, w;
    uint64_t even_oldest = state[0], odd_oldest = state[1];
    for (w = 2; w + 1 < ways; w += 2) {
        xlat__repl_keep_older(&even, &even_oldest, w, state[w]);
        xlat__repl_keep_older(&odd, &odd_oldest, w + 1, state[w + 1]);
    }
    if (w < ways) /* an odd number of ways: the last one */
        xlat__repl_keep_older(&even, &even_oldest, w, state[w]);
    if (odd_oldest < even_oldest || (odd_oldest == even_oldest && odd < even))
        return odd;
    return even;
}

/* Whether this host can run xlat__repl_oldest_vector(). Before the C
 * library's constructors have run, the CPU's features read as none: the
 * scalar search then answers, which is the same. */
static inline bool xlat__repl_vector_usable(void)
{
#if XLAT_REPL_AVX2
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

/* The same answer, four ways at a time; only where
 * xlat__repl_vector_usable() says so, for a multiple of 4 ways, >= 8. */
uint32_t xlat__repl_oldest_vector(const uint64_t *state, uint32_t ways);

/* The oldest of `ways` (>= 1) stamps, by the fastest search for the set's
 * width that the host can run. */
static inline uint32_t xlat__repl_oldest(const uint64_t *state, uint32_t ways)
{
    if (ways < 8)
        return xlat__repl_oldest_narrow(state, ways);
    if (ways >= XLAT_REPL_VECTOR_MIN_WAYS && ways % 4 == 0 && xlat__repl_vector_usable())
        return xlat__repl_oldest_vector(state, ways);
    return xlat__repl_oldest_chains(state, ways);
}

#endif
