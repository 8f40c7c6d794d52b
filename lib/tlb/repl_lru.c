/* LRU: every hit and fill stamps the way; the victim has the oldest stamp.
 * The stamp helpers are shared with FIFO, which stamps on fill only. */
#include "tlb_internal.h"

size_t xlat__repl_stamp_words(uint32_t ways) { return ways; }

void xlat__repl_stamp(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    state[way] = ++t->clock;
}

uint32_t xlat__repl_stamp_victim(xlat_tlb *t, const uint64_t *state)
{
    /* The oldest stamp is carried in a register: comparing with
     * state[victim] made every step wait for a load that depended on the
     * step before. The first of equal stamps wins, as before. */
    uint32_t victim = 0;
    uint64_t oldest = state[0];
    for (uint32_t w = 1; w < t->ways; w++) {
        bool older = state[w] < oldest;
        victim = older ? w : victim;
        oldest = older ? state[w] : oldest;
    }
    return victim;
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
