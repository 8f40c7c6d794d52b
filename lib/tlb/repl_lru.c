/* LRU: every hit and fill stamps the way; the victim has the oldest stamp.
 * The stamp helpers are shared with FIFO, which stamps on fill only. */
#include "tlb_internal.h"

size_t xlat__repl_stamp_words(uint32_t ways) { return ways; }

void xlat__repl_stamp(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    state[way] = ++t->clock;
}

/* The oldest stamp of a narrow set: one chain, the oldest carried in a
 * register (comparing with state[victim] made every step wait for a load
 * that depended on the step before). The first of equal stamps wins. */
static uint32_t oldest_of_few(const uint64_t *state, uint32_t ways)
{
    uint32_t victim = 0;
    uint64_t oldest = state[0];
    for (uint32_t w = 1; w < ways; w++) {
        bool older = state[w] < oldest;
        victim = older ? w : victim;
        oldest = older ? state[w] : oldest;
    }
    return victim;
}

uint32_t xlat__repl_stamp_victim(xlat_tlb *t, const uint64_t *state)
{
    /* From 8 ways on, even and odd ways are two chains, each waiting only
     * on itself: a 64-way set (an IOMMU TLB's) takes half as long as one
     * chain through every way (evicting inserts into 4096 entries of 64
     * ways: 8-10% more a second). Below, the set-up costs more than the
     * chain. The first of equal stamps still wins: each chain keeps its
     * lowest way, and a tie between them goes to the lower. */
    uint32_t ways = t->ways;
    if (ways < 8)
        return oldest_of_few(state, ways);
    uint32_t even = 0, odd = 1;
    uint64_t even_oldest = state[0], odd_oldest = state[1];
    uint32_t w = 2;
    for (; w + 1 < ways; w += 2) {
        bool even_older = state[w] < even_oldest, odd_older = state[w + 1] < odd_oldest;
        even = even_older ? w : even;
        even_oldest = even_older ? state[w] : even_oldest;
        odd = odd_older ? w + 1 : odd;
        odd_oldest = odd_older ? state[w + 1] : odd_oldest;
    }
    if (w < ways && state[w] < even_oldest) { /* an odd number of ways: the last one */
        even = w;
        even_oldest = state[w];
    }
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
