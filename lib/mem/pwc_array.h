/*
 * The page walk cache's arrays, private to lib/mem (pwc.c). An entry of
 * level k maps (pasid, vaddr >> shift(k)) to the frame of the level k-1
 * node. An array is set associative, indexed by the entry's page number
 * modulo its sets, and replaces with the TLB's policies (lib/tlb/repl_*.c)
 * exactly: the lowest invalid way of a set first, else the policy's
 * victim. Walk caches were xlat_tlb arrays until each fill cost hundreds
 * of instructions of a structure made for TLBs (metadata, listeners,
 * growth); hits, misses and victims are the same as theirs.
 */
#ifndef XLAT_PWC_ARRAY_H
#define XLAT_PWC_ARRAY_H

#include "internal.h"
#include "xlat/tlb.h"

/* One way; shift 0 marks an invalid way. */
struct pwc_way {
    uint64_t vpn;
    uint64_t node_pfn;
    uint32_t pasid;
    uint8_t shift;
};

/* A way's place in its set's recency list (LRU, FIFO): global way numbers,
 * PWC_NONE at the ends. */
#define PWC_NONE UINT32_MAX
struct pwc_link {
    uint32_t newer, older;
};

struct pwc_array {
    struct pwc_way *way;    /* sets * ways */
    uint32_t sets, ways;
    uint64_t set_mask;      /* sets - 1 when sets is a power of two, else UINT64_MAX */
    uint32_t *used;         /* valid ways, per set */
    /* Tag -> way + 1 (0: empty), open addressing at most a quarter full:
     * a fully associative level finds its entry without a scan. */
    uint32_t *index;
    uint32_t index_mask;
    uint8_t index_shift;    /* 64 - log2(index slots) */
    xlat_repl repl;
    /* LRU and FIFO: the order of the TLB's stamps, kept as a list per set
     * (newest and oldest way of each set in `ends`), so that the victim is
     * known without a scan. */
    struct pwc_link *link;  /* per way */
    struct pwc_link *ends;  /* per set: newer = newest, older = oldest */
    uint64_t *plru;         /* PLRU: sets * plru_words node bits */
    size_t plru_words;
    xlat_rng rng;           /* victims of RANDOM */
};

/* Reserves `entries` / `ways` (a divisor, checked by the caller) with
 * policy `repl`; XLAT_ERR_NOMEM leaves nothing allocated. Draws one random
 * stream of the context whatever the policy, as the TLB it replaces did,
 * so that units created later draw the same streams as before. */
int xlat__pwc_array_init(xlat_ctx *ctx, struct pwc_array *a, uint32_t entries, uint32_t ways,
                         xlat_repl repl);
void xlat__pwc_array_fini(xlat_ctx *ctx, struct pwc_array *a);

/* A hit on way g (numbered across sets) of `set`: the policy hears of it. */
void xlat__pwc_array_touch(struct pwc_array *a, uint32_t set, uint32_t g);

/* The lookups below are inline: a walk looks up every cached level from
 * pwc.c, a hit or a miss in a few dozen instructions. */

static inline uint32_t pwc_set_of(const struct pwc_array *a, uint64_t vpn)
{
    return (uint32_t)(a->set_mask != UINT64_MAX ? vpn & a->set_mask : vpn % a->sets);
}

/* Multiplicative hashing: the top bits of the product. */
static inline uint32_t pwc_home(const struct pwc_array *a, uint32_t pasid, uint64_t vpn,
                                uint8_t shift)
{
    uint64_t key = vpn << 6 ^ shift ^ (uint64_t)pasid << 40;
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> a->index_shift);
}

/* The way (numbered across sets) holding the tag, or PWC_NONE. */
static inline uint32_t pwc_index_find(const struct pwc_array *a, uint32_t pasid, uint64_t vpn,
                                      uint8_t shift)
{
    for (uint32_t i = pwc_home(a, pasid, vpn, shift);; i = (i + 1) & a->index_mask) {
        uint32_t g = a->index[i];
        if (g == 0)
            return PWC_NONE;
        const struct pwc_way *w = &a->way[g - 1];
        if (w->vpn == vpn && w->shift == shift && w->pasid == pasid)
            return g - 1;
    }
}

/* The way holding (pasid, vpn) of page size 2^shift, or NULL. With
 * `touch`, a hit updates the replacement state. */
static inline struct pwc_way *xlat__pwc_array_find(struct pwc_array *a, uint32_t pasid,
                                                   uint64_t vpn, uint8_t shift, int touch)
{
    uint32_t g = pwc_index_find(a, pasid, vpn, shift);
    if (g == PWC_NONE)
        return NULL;
    if (touch)
        xlat__pwc_array_touch(a, pwc_set_of(a, vpn), g);
    return &a->way[g];
}

/* Inserts, or updates in place (made most recent, as a TLB refill);
 * returns 1 when a valid entry was evicted for it, else 0. */
int xlat__pwc_array_fill(struct pwc_array *a, uint32_t pasid, uint64_t vpn, uint8_t shift,
                         uint64_t node_pfn);
/* Removals; each returns how many entries went. */
int xlat__pwc_array_invalidate(struct pwc_array *a, uint32_t pasid, uint64_t vaddr);
int xlat__pwc_array_invalidate_pasid(struct pwc_array *a, uint32_t pasid);
int xlat__pwc_array_flush(struct pwc_array *a);

#endif /* XLAT_PWC_ARRAY_H */
