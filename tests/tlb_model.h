/* A reference model of a set-associative LRU/FIFO TLB, written the other
 * way round from the library (recency lists instead of stamps), and a
 * random driver that compares the two operation by operation. */
#ifndef XLAT_TLB_MODEL_H
#define XLAT_TLB_MODEL_H

#include <stdint.h>

#include "xlat/xlat.h"

/* Runs `ops` random operations (lookup, probe, insert, invalidate,
 * invalidate_pasid, flush) with `seed` on a TLB of `entries`/`ways` and on
 * the model; returns the number of disagreements (0 when they agree). */
uint64_t tlb_model_run(uint64_t seed, uint32_t entries, uint32_t ways, xlat_repl repl,
                       uint64_t ops);

#endif
