/* RANDOM: a uniform way from the TLB's own stream of the context's seed, so
 * a run is reproducible. */
#include "tlb_internal.h"

static size_t random_words(uint32_t ways)
{
    (void)ways;
    return 0;
}

static void random_touch(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    (void)t;
    (void)state;
    (void)way;
}

static uint32_t random_victim(xlat_tlb *t, const uint64_t *state)
{
    (void)state;
    return (uint32_t)xlat__rng_below(&t->rng, t->ways);
}

const struct tlb_repl_ops xlat__repl_random = {
    .name = "random",
    .state_words = random_words,
    .on_hit = random_touch,
    .on_fill = random_touch,
    .victim = random_victim,
    .order = xlat__repl_way_order,
};
