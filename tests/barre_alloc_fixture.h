/* A multi-chip memory for Barre Chord's group allocator: chiplet g is a
 * region at 0xA000 + 0x1000 g (Example 1's bases), page-table nodes come
 * from a region of their own, and a randomized run that checks every frame
 * a PEC calculation computes against the page table. */
#ifndef XLAT_TESTS_BARRE_ALLOC_FIXTURE_H
#define XLAT_TESTS_BARRE_ALLOC_FIXTURE_H

#include "testutil.h"

#define BA_NODE_BASE 0x40000

typedef struct ba_fixture {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_barre_alloc *a;
    uint64_t base[XLAT_BARRE_MAX_CHIPLETS];
    uint32_t chiplets;
    uint64_t frames;
} ba_fixture;

/* `chiplets` regions of `frames` frames, then a node region; an allocator
 * with `max_merge` (ca: the context's allocator, or NULL). */
void ba_setup(ba_fixture *f, uint32_t chiplets, uint64_t frames, uint32_t max_merge,
              bool whole_object_fallback, counting_alloc *ca);
void ba_teardown(ba_fixture *f);
/* Takes every local frame of chiplet g except those of `keep` (n of them). */
void ba_take_all_but(ba_fixture *f, uint32_t g, const uint64_t *keep, size_t n);
/* Pairs (p, q) of `d` where a calculation from p's walk names q a member
 * with a frame other than q's own; counts the pairs computed in *computed. */
uint64_t ba_wrong_frames(const ba_fixture *f, const xlat_pec_entry *d, uint64_t *computed);

/* What a randomized run did. */
typedef struct ba_random_result {
    uint64_t objects, failed_maps, migrations, computed, wrong, leaked;
} ba_random_result;

/* `trials` fresh memories with random fragmentation, each given random
 * objects, placements, GPU_maps, merge limits, migrations and unmaps,
 * checking every object after every change. */
void ba_random_run(uint64_t seed, uint32_t trials, ba_random_result *r);

#endif
