/*
 * Tree pseudo-LRU over a power-of-two number of ways: ways - 1 node bits in
 * heap order (node n has children 2n+1 and 2n+2). A bit of 0 says the victim
 * lies in the left half, 1 in the right; touching a way points every node on
 * its path away from it.
 */
#include "tlb_internal.h"

static size_t plru_words(uint32_t ways) { return ways > 1 ? (ways - 1 + 63) / 64 : 0; }

static int bit_get(const uint64_t *state, uint32_t node)
{
    return (int)((state[node / 64] >> (node % 64)) & 1);
}

static void bit_set(uint64_t *state, uint32_t node, int value)
{
    uint64_t m = 1ull << (node % 64);
    state[node / 64] = value ? state[node / 64] | m : state[node / 64] & ~m;
}

static void plru_touch(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    uint32_t node = 0, lo = 0, span = t->ways;
    while (span > 1) {
        span /= 2;
        int right = way >= lo + span;
        bit_set(state, node, !right); /* point away from the touched half */
        lo += right ? span : 0;
        node = 2 * node + 1 + (uint32_t)right;
    }
}

static uint32_t plru_victim(xlat_tlb *t, const uint64_t *state)
{
    uint32_t node = 0, lo = 0, span = t->ways;
    while (span > 1) {
        span /= 2;
        int right = bit_get(state, node);
        lo += right ? span : 0;
        node = 2 * node + 1 + (uint32_t)right;
    }
    return lo;
}

const struct tlb_repl_ops xlat__repl_plru = {
    .name = "plru",
    .state_words = plru_words,
    .on_hit = plru_touch,
    .on_fill = plru_touch,
    .victim = plru_victim,
    .order = xlat__repl_way_order,
};
