/* LRU: every hit and fill stamps the way; the victim has the oldest stamp.
 * The stamp helpers are shared with FIFO, which stamps on fill only. */
#include "tlb_internal.h"

size_t xlat__repl_stamp_words(uint32_t ways) { return ways; }

void xlat__repl_stamp(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    state[way] = ++t->clock;
}

/* One step of a search for the oldest stamp: way `w` becomes the chain's
 * oldest when its stamp is older (strictly: the first of equal stamps
 * wins). The oldest is carried in a register: comparing with
 * state[victim] made every step wait for a load that depended on the
 * step before. */
static inline void keep_older(uint32_t *victim, uint64_t *oldest, uint32_t w, uint64_t stamp)
{
    bool older = stamp < *oldest;
    *victim = older ? w : *victim;
    *oldest = older ? stamp : *oldest;
}

uint32_t xlat__repl_stamp_victim(xlat_tlb *t, const uint64_t *state)
{
    /* From 8 ways on, even and odd ways are two chains, each waiting only
     * on itself: a 64-way set (an IOMMU TLB's) takes half as long as one
     * chain through every way (evicting inserts into 4096 entries of 64
     * ways: 8-10% more a second). Below, one chain: the set-up costs more
     * than it saves. The first of equal stamps still wins: each chain
     * keeps its lowest way, and a tie between them goes to the lower. */
    uint32_t ways = t->ways, even = 0, odd = 1, w = 1;
    uint64_t even_oldest = state[0], odd_oldest;
    if (ways < 8) {
        for (; w < ways; w++)
            keep_older(&even, &even_oldest, w, state[w]);
        return even;
    }
    for (odd_oldest = state[1], w = 2; w + 1 < ways; w += 2) {
        keep_older(&even, &even_oldest, w, state[w]);
        keep_older(&odd, &odd_oldest, w + 1, state[w + 1]);
    }
    if (w < ways) /* an odd number of ways: the last one */
        keep_older(&even, &even_oldest, w, state[w]);
    if (odd_oldest < even_oldest || (odd_oldest == even_oldest && odd < even))
        return odd;
    return even;
}

void xlat__repl_stamp_order(const xlat_tlb *t, const uint64_t *state, uint32_t *order)
{
    /* Insertion sort by stamp: foreach is a reporting call, not a hot path. */
    for (uint32_t w = 0; w < t->ways; w++) {
        uint32_t i = w;
        while (i > 0 && state[order[i - 1]] > state[w]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = w;
    }
}

void xlat__repl_way_order(const xlat_tlb *t, const uint64_t *state, uint32_t *order)
{
    (void)state;
    for (uint32_t w = 0; w < t->ways; w++)
        order[w] = w;
}

const struct tlb_repl_ops xlat__repl_lru = {
    .name = "lru",
    .state_words = xlat__repl_stamp_words,
    .on_hit = xlat__repl_stamp,
    .on_fill = xlat__repl_stamp,
    .victim = xlat__repl_stamp_victim,
    .order = xlat__repl_stamp_order,
};
