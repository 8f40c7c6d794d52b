/*
 * Page tables, private to lib/mem: the layout shared by the files that
 * implement xlat_pagetable. Other units use the named interface pt_walk.h.
 */
#ifndef XLAT_PAGETABLE_INTERNAL_H
#define XLAT_PAGETABLE_INTERNAL_H

#include "xlat/pagetable.h"
#include "internal.h"
#include "registry.h"
#include "xlat/physmem.h"

/* ---- for other units: pt_walk.h -------------------------------------- */

#include "pt_walk.h"

/* ---- lib/mem only ----------------------------------------------------- */

/* Nodes are 4 KiB frames whatever the fan-out: a node of 2^bits entries
 * uses the first 8 << bits bytes of its frame. */
#define PT_NODE_SHIFT 12
/* Bits 9..11 and 52..62: software-available, kept by map and protect. */
#define PT_AVAIL_MASK (UINT64_C(0x7FF) << 52 | UINT64_C(7) << 9)

/* A node's contents live in host memory, found by frame number. */
struct pt_node {
    uint64_t pfn;
    uint16_t used;    /* present entries (at most 2^9) */
    uint16_t level;
    uint32_t born;    /* xlat_pagetable::born when it was linked in */
    uint64_t entry[]; /* 2^bits_per_level entries */
};

/* Open addressing with linear probing: key -> node. */
struct pt_slot {
    uint64_t key;
    struct pt_node *node; /* NULL: empty */
};

struct pt_map {
    struct pt_slot *slot;
    size_t cap; /* 0 or a power of two, at least twice `count` */
    size_t count;
};

/* Frames a read found recently, hashed into PT_RECENT slots: a walk reads
 * one entry of each node it visits, and most reads find their node here
 * without the node table's probe. Reads refresh it through a const table
 * (it is a cache of `nodes`, not part of the table); freeing a node
 * clears its slot. */
#define PT_RECENT_BITS 10

static inline uint32_t pt_recent_slot(uint64_t pfn)
{
    return (uint32_t)((pfn * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - PT_RECENT_BITS));
}

struct xlat_pagetable {
    xlat_ctx *ctx;
    xlat_pagetable_config cfg;
    uint32_t held_mem;      /* cfg.mem's unit id: it outlives the table */
    uint32_t entries;       /* per node: 2^bits_per_level */
    uint32_t va_bits;       /* page_shift + bits_per_level * levels */
    uint32_t leaf_levels;   /* leaves may sit at levels 1..leaf_levels (at most 3) */
    struct pt_map nodes;    /* node frame -> node */
    struct pt_map roots;    /* PASID -> root node */
    struct pt_node **recent; /* 1 << PT_RECENT_BITS slots: frame -> node, or NULL */
    xlat_pagetable_stats stats;
    uint32_t born;          /* the current map_range call, so that its undo finds its nodes */
    struct xlat__reg reg;
};

struct pt_node *xlat__pt_map_get(const struct pt_map *m, uint64_t key);

/* The undo of a failed map_range, after its pages are unmapped: frees the
 * nodes that call (pt->born) linked in under the range's first `pages`
 * pages and that map nothing, so that the table is as it was before. */
void xlat__pt_prune_born(xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr, uint64_t pages);

/* Stores `value` at entry `index` of `n`, keeping the node's present count
 * and the per-level mapping counters right. */
void xlat__pt_entry_set(xlat_pagetable *pt, struct pt_node *n, uint32_t index, uint64_t value);

static inline uint32_t pt_shift(const xlat_pagetable *pt, uint32_t level)
{
    return pt->cfg.page_shift + pt->cfg.bits_per_level * (level - 1);
}

static inline uint32_t pt_index(const xlat_pagetable *pt, uint64_t vaddr, uint32_t level)
{
    return (uint32_t)(vaddr >> pt_shift(pt, level)) & (pt->entries - 1);
}

/* A present entry maps a page at level 1, and at levels 2 and 3 with PS;
 * any other present entry points to a node. */
static inline int pt_is_leaf(uint64_t e, uint32_t level)
{
    return level == 1 || ((e & XLAT_PTE_PS) && level <= 3);
}

static inline int pt_is_pointer(uint64_t e, uint32_t level)
{
    return (e & XLAT_PTE_PRESENT) && !pt_is_leaf(e, level);
}

/* Where a descent towards an address stopped. */
struct pt_pos {
    struct pt_node *node;
    uint32_t level;
    uint32_t index;
};

/* Descends from `root` towards `vaddr` until level `stop`, a leaf or a
 * non-present entry; records each entry read in `trace` when non-NULL. */
void xlat__pt_descend(const xlat_pagetable *pt, struct pt_node *root, uint64_t vaddr,
                      uint32_t stop, struct pt_pos *pos, xlat_walk_trace *trace);

/* The present leaf that maps `vaddr` in `pasid`: XLAT_OK or NOT_FOUND. */
int xlat__pt_find_leaf(const xlat_pagetable *pt, uint32_t pasid, uint64_t vaddr,
                       struct pt_pos *pos);

/* The page table as a unit of its context's registry (pagetable_read.c). */
extern const struct xlat__reg_ops xlat__pagetable_reg_ops;

#endif /* XLAT_PAGETABLE_INTERNAL_H */
