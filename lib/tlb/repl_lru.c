/* LRU: every hit and fill stamps the way; the victim has the oldest stamp.
 * The stamp helpers are shared with FIFO, which stamps on fill only. */
#include "repl_oldest.h"
#include "tlb_internal.h"

size_t xlat__repl_stamp_words(uint32_t ways) { return ways; }

void xlat__repl_stamp(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    state[way] = ++t->clock;
}

uint32_t xlat__repl_stamp_victim(xlat_tlb *t, const uint64_t *state)
{
    return xlat__repl_oldest(state, t->ways);
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
