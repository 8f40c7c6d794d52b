/* Randomized walker runs shared by make check and make check-long. */
#ifndef XLAT_WALK_RANDOM_H
#define XLAT_WALK_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#include "xlat/xlat.h"

typedef struct walk_random_result {
    uint64_t accepted, once, twice_or_more, never, wrong; /* exactly-once and correctness */
    uint64_t reads, walks, coalesced;
    uint64_t max_interleave[4];                             /* per tenant */
} walk_random_result;

/* Sends `requests` random reads (bursts over clustered pages of 4 PASIDs,
 * some unmapped) to a pool of `walkers` using `sched` with `tenants`;
 * arrivals follow a fixed schedule, so two runs with the same seed see the
 * same trace whatever the pool does. */
void walk_random_run(uint64_t seed, uint64_t requests, xlat_walk_sched sched, uint32_t tenants,
                     uint32_t walkers, bool coalesce, bool pwc, walk_random_result *out);

#endif
