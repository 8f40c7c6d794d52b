/* FIFO: a way is stamped when filled; hits change nothing. */
#include "tlb_internal.h"

static void fifo_hit(xlat_tlb *t, uint64_t *state, uint32_t way)
{
    (void)t;
    (void)state;
    (void)way;
}

const struct tlb_repl_ops xlat__repl_fifo = {
    .name = "fifo",
    .state_words = xlat__repl_stamp_words,
    .on_hit = fifo_hit,
    .on_fill = xlat__repl_stamp,
    .victim = xlat__repl_stamp_victim,
    .order = xlat__repl_stamp_order,
};
