/*
 * Barre Chord's group allocator, shared by its files: the handle, the
 * chiplet-major geometry of an object (Figure 7a) and the plan of its
 * frames ("Barre Chord: Efficient Virtual Memory Translation for
 * Multi-Chip-Module GPUs" §IV-C, §IV-G, §V-B).
 */
#ifndef XLAT_BARRE_GROUP_ALLOC_INTERNAL_H
#define XLAT_BARRE_GROUP_ALLOC_INTERNAL_H

#include "registry.h"
#include "xlat/barre_alloc.h"

struct xlat_barre_alloc {
    xlat_ctx *ctx;
    char *name;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    uint32_t chiplets;
    uint64_t base[XLAT_BARRE_MAX_CHIPLETS];   /* first global frame of each chiplet */
    uint64_t frames[XLAT_BARRE_MAX_CHIPLETS]; /* frames of each chiplet's region */
    uint32_t region[XLAT_BARRE_MAX_CHIPLETS]; /* its region index in `mem` */
    uint32_t max_merge;
    bool expanded; /* the PTE layout: max_merge > 1 */
    bool whole_object_fallback;
    uint32_t held_mem, held_pt;
    xlat_barre_alloc_stats st;
    struct xlat__reg reg;
};

/* An object's pages over its positions: page i is in round i / (P * g),
 * at position (i / g) % P, offset i % g (chiplet-major chunks, Figure 7a). */
struct group_geom {
    uint32_t pasid;
    uint64_t start, pages;
    uint32_t gran, positions;
    uint8_t map[XLAT_BARRE_MAX_CHIPLETS];
    uint8_t perm;
};

/* One coalescing group of a round: `width` adjacent offsets from `off`
 * (merged when width > 1), on positions 0..members-1. */
struct group {
    uint64_t round;
    uint32_t off, width, members;
};

/* A page's place in the plan: its frame, whether it is taken, and its
 * group bits (the PTE's bits 52..62; 0 outside any group). */
struct page_plan {
    uint64_t pfn;
    uint16_t bits;
    bool taken;
};

uint64_t xlat__group_page(const struct group_geom *g, uint64_t round, uint32_t pos, uint32_t off);
/* Positions that hold offset `off` of `round` (a prefix: the last round may be short). */
uint32_t xlat__group_members(const struct group_geom *g, uint64_t round, uint32_t off);
/* The coal_bitmap of chiplets map[0..members-1] in the allocator's layout. */
uint8_t xlat__group_bitmap(const xlat_barre_alloc *a, const uint8_t *map, uint32_t members);
/* Chiplet `c`'s bit in the allocator's layout. */
uint8_t xlat__chiplet_bit(const xlat_barre_alloc *a, uint32_t c);
/* The PTE bits 52..62 of `ci` in the allocator's layout; 0 for a group of
 * fewer than two chiplets, which no calculation may use. */
uint16_t xlat__group_bits(const xlat_barre_alloc *a, const xlat_coal_info *ci);

/* Whether page `vpn` lies within the virtual addresses of the allocator's
 * page table: no object it made goes beyond them. */
bool xlat__barre_vpn_in_table(const xlat_barre_alloc *a, uint64_t vpn);

/* Finds and takes the frames of every page of `g` into `plan` (§IV-G, §V-B). */
int xlat__group_plan(xlat_barre_alloc *a, const struct group_geom *g, struct page_plan *plan);
/* Frees every frame `plan` took. */
void xlat__group_release(xlat_barre_alloc *a, const struct group_geom *g,
                         struct page_plan *plan);

#endif
