/* The TLB's private layout, shared by the structure, the replacement
 * policies and the timed unit. */
#ifndef XLAT_TLB_INTERNAL_H
#define XLAT_TLB_INTERNAL_H

#include "internal.h"
#include "pool.h"

/* One way: 32 bytes; page_shift 0 marks an invalid way. */
struct tlb_way {
    uint64_t vpn;
    uint64_t pfn;
    uint64_t aux;
    uint32_t pasid;
    uint8_t page_shift;
    uint8_t perm;
    uint16_t flags;
};

/* A replacement policy: a small table chosen at create time. `state` is the
 * set's words (state_words(ways) of them). */
struct tlb_repl_ops {
    const char *name;
    size_t (*state_words)(uint32_t ways);
    void (*on_hit)(xlat_tlb *t, uint64_t *state, uint32_t way);
    void (*on_fill)(xlat_tlb *t, uint64_t *state, uint32_t way);
    uint32_t (*victim)(xlat_tlb *t, const uint64_t *state);
    /* Writes the ways from next victim to most protected into order[ways]. */
    void (*order)(const xlat_tlb *t, const uint64_t *state, uint32_t *order);
};

extern const struct tlb_repl_ops xlat__repl_lru;
extern const struct tlb_repl_ops xlat__repl_fifo;
extern const struct tlb_repl_ops xlat__repl_random;
extern const struct tlb_repl_ops xlat__repl_plru;

/* Stamp-based helpers shared by LRU and FIFO. */
size_t xlat__repl_stamp_words(uint32_t ways);
void xlat__repl_stamp(xlat_tlb *t, uint64_t *state, uint32_t way);
uint32_t xlat__repl_stamp_victim(xlat_tlb *t, const uint64_t *state);
void xlat__repl_stamp_order(const xlat_tlb *t, const uint64_t *state, uint32_t *order);
void xlat__repl_way_order(const xlat_tlb *t, const uint64_t *state, uint32_t *order);

struct tlb_timed; /* tlb_timed.c */

struct xlat_tlb {
    xlat_ctx *ctx;
    char *name;
    xlat_tlb_config cfg;
    const struct tlb_repl_ops *repl;
    uint32_t sets, ways;
    uint64_t set_mask;     /* sets - 1 when sets is a power of two, else UINT64_MAX */
    int unbounded;         /* grows instead of evicting */
    struct tlb_way *way;   /* sets * ways */
    uint64_t *repl_state;  /* sets * repl_words */
    size_t repl_words;
    uint64_t clock;        /* stamps for LRU/FIFO */
    xlat_rng rng;
    size_t count;
    uint64_t shift_mask;   /* bit s set: some entry has page_shift s */
    uint32_t shift_count[64];
    xlat_tlb_stats stats;
    xlat_tlb_evict_fn evict_fn;
    void *evict_user;
    struct tlb_timed *timed;
    uint64_t epoch;        /* counts invalidations, for requests in flight */
};

/* Finds (pasid, vaddr) among the page sizes present; NULL on a miss. With
 * `touch`, a hit updates replacement state. */
struct tlb_way *xlat__tlb_find(xlat_tlb *t, uint32_t pasid, uint64_t vaddr, int touch);
void xlat__tlb_way_to_entry(const struct tlb_way *w, xlat_tlb_entry *e);
/* A hit on way `w`: the replacement policy hears of it. */
void xlat__tlb_touch(xlat_tlb *t, const struct tlb_way *w);

static inline uint32_t xlat__tlb_set_of(const xlat_tlb *t, uint64_t vpn)
{
    if (t->cfg.index == XLAT_TLB_INDEX_HASH)
        vpn = xlat__mix64(vpn);
    /* No division for a power of two, one set included. */
    return (uint32_t)(t->set_mask != UINT64_MAX ? vpn & t->set_mask : vpn % t->sets);
}

static inline uint64_t *xlat__tlb_set_state(const xlat_tlb *t, uint32_t set)
{
    return t->repl_state + (size_t)set * t->repl_words;
}

static inline void xlat__tlb_set_geometry(xlat_tlb *t, uint32_t sets)
{
    t->sets = sets;
    t->set_mask = xlat__is_pow2(sets) ? sets - 1 : UINT64_MAX;
}

int xlat__tlb_timed_init(xlat_tlb *t);
void xlat__tlb_timed_release(xlat_tlb *t);
size_t xlat__tlb_timed_bytes(const xlat_tlb *t);
/* What an invalidation removed: everything, one address space, or the
 * translations of one address. */
struct tlb_shootdown {
    int all;
    int whole_space;
    uint32_t pasid;
    uint64_t vaddr;
};

/* Tells the timed unit what was invalidated, so nothing in flight answers
 * or fills with it. */
void xlat__tlb_timed_invalidated(xlat_tlb *t, const struct tlb_shootdown *sd);

#endif
