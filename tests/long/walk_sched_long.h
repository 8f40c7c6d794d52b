/* A randomized walker-scheduler run for make check-long: 2-4 tenants with
 * bursty on/off arrivals at different rates, over FCFS, static partitioning,
 * DWS and DWS++ with random pool shapes. */
#ifndef XLAT_WALK_SCHED_LONG_H
#define XLAT_WALK_SCHED_LONG_H

#include <stdint.h>

#include "xlat/xlat.h"

typedef struct walk_sched_long_result {
    uint64_t accepted, once, never, twice, wrong; /* exactly-once and correct answers */
    uint64_t idle_with_work; /* checks where a walker that could take a queued walk sat idle */
    uint64_t stolen;         /* walks served by another tenant's walker */
    uint64_t interleave_max; /* over tenants */
    uint64_t interleave_bound; /* what the scheduler guarantees (UINT64_MAX: nothing) */
    int setup;               /* nonzero: the run could not be built */
} walk_sched_long_result;

/* Runs `requests` requests with `seed` on `sched` with `tenants`; fills `*r`. */
void walk_sched_long_run(uint64_t seed, xlat_walk_sched sched, uint32_t tenants,
                         uint64_t requests, walk_sched_long_result *r);

#endif
