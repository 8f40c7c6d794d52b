/* A randomized shootdown run shared by make check (short) and make
 * check-long: L1 -> L2 -> responder traffic over several address spaces
 * while the host remaps pages and invalidates both TLBs. */
#ifndef XLAT_SHOOTDOWN_RUN_H
#define XLAT_SHOOTDOWN_RUN_H

#include <stdint.h>

typedef struct shootdown_result {
    uint64_t accepted, completed_once, duplicates, missing;
    uint64_t stale;      /* answers older than the mapping at acceptance */
    uint64_t wrong_space; /* answers for another PASID or address */
    uint64_t remaps;
} shootdown_result;

/* Runs `requests` requests with `seed`; fills `*r`. */
void shootdown_run(uint64_t seed, uint64_t requests, shootdown_result *r);

#endif
