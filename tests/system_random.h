/* A randomized multi-GPU run shared by make check (short) and make
 * check-long: random traffic from the CUs of several GPUs over several
 * address spaces through a whole xlat_system, while the host remaps pages
 * (and shoots them down), flushes GPUs and flushes the IOMMU TLB. Frames
 * encode (version, pasid, page), so every answer tells which mapping it
 * came from. */
#ifndef XLAT_SYSTEM_RANDOM_H
#define XLAT_SYSTEM_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#include "xlat/xlat.h"

typedef struct system_random_result {
    int setup;                /* nonzero: building the run failed (the rest is meaningless) */
    /* invariants: all of these must be 0 except accepted == once */
    uint64_t accepted, once, duplicates, missing;
    uint64_t stale;           /* answers older than the mapping in force at acceptance */
    uint64_t wrong;           /* another PASID's or another page's translation */
    uint64_t bad_status;      /* answers whose status is not XLAT_OK */
    uint64_t stale_entries;   /* TLB entries (L1, L2, IOMMU) of an old mapping at quiescent points */
    uint64_t excl_checks;     /* exclusive, one GPU: quiescent points checked */
    uint64_t excl_both;       /* of the translations probed there, held by L2 and IOMMU TLB */
    uint64_t first_stale_id;  /* the first stale answer (when stale > 0) */
    /* what the run did */
    uint64_t remaps, gpu_flushes, iommu_flushes, refused, cycles;
    /* IOMMU counters at the end of the run */
    uint64_t tlb_hits, walks, walk_answers, remote_probes, remote_hits, remote_misses;
    uint64_t late_discarded, spills, victims_in, victims_dropped, back_invalidations;
    uint64_t tracker_inserts, tracker_full;
    /* FNV-1a over every counter of every unit (xlat_stats_foreach), as the
     * text lines "kind name counter value": two runs of one seed agree on
     * it when they agree byte for byte on their statistics */
    uint64_t stats_digest, stats_counters;
} system_random_result;

/* Runs `requests` requests with `seed` on `gpus` GPUs of `cus` CUs under
 * inclusion policy `incl` (least-TLB spill receiver: cumulative). */
void system_random_run(uint64_t seed, uint64_t requests, uint32_t gpus, uint32_t cus,
                       xlat_incl incl, bool multi_app, system_random_result *out);

/* The same with a chosen spill receiver rule. */
void system_random_run_rx(uint64_t seed, uint64_t requests, uint32_t gpus, uint32_t cus,
                          xlat_incl incl, bool multi_app, xlat_spill_rx rx,
                          system_random_result *out);

/* The same under the allocator `alloc` (NULL: malloc). */
void system_random_run_alloc(uint64_t seed, uint64_t requests, uint32_t gpus, uint32_t cus,
                             xlat_incl incl, bool multi_app, xlat_spill_rx rx,
                             const xlat_allocator *alloc, system_random_result *out);

#endif
