/* A randomized Barre Chord MCM-GPU: data objects from the group allocator,
 * the IOMMU's PEC logic, F-Barre on every chiplet, random request streams,
 * migrations shot down between bursts and whole flushes. Every answer is
 * checked against the page table when it arrives ("Barre Chord" §IV-§VI). */
#ifndef XLAT_TESTS_BARRE_SYSTEM_RANDOM_H
#define XLAT_TESTS_BARRE_SYSTEM_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bs_result {
    uint64_t sent, answered_once, twice, missing, wrong;
    uint64_t migrations, pec_answers, local_hits, peer_hits;
} bs_result;

/* `requests` requests in bursts on a fresh system from `seed`; `expanded`:
 * groups merged two by two (F-Barre's expansion) in the expanded layout. */
void bs_random_run(uint64_t seed, bool expanded, uint32_t requests, bs_result *r);

#endif
