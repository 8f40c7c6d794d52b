/* The TLB's private layout, shared by the structure, the replacement
 * policies and the timed unit. */
#ifndef XLAT_TLB_INTERNAL_H
#define XLAT_TLB_INTERNAL_H

#include "internal.h"
#include "registry.h"
#include "xlat/tlb.h"
#include "tlb_tag.h"
#include "pool.h"

/* One way: 32 bytes; page_shift 0 marks an invalid way. The metadata's
 * fields (xlat_meta) are stored one by one, so that they fill the bytes
 * the struct would pad: the way stays 32 bytes. */
struct tlb_way {
    uint64_t vpn;
    uint64_t pfn;
    uint32_t pasid;
    uint32_t object_id;
    uint16_t home_gpu;
    uint16_t coal_info;
    uint8_t page_shift;
    uint8_t perm;
    uint8_t spill_credit;
    uint8_t spilled;
};
_Static_assert(sizeof(struct tlb_way) == 32, "a TLB way is 32 bytes");

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

/* A list of callbacks (tlb_observe.c): eviction listeners, or the
 * observers of invalidations. Removing one while the list is being called
 * leaves a hole, filled once the outermost call is over, so that a
 * callback may add or remove callbacks (itself included). */
struct tlb_hook {
    void (*fn)(void); /* cast back to the list's own type before a call */
    void *user;
};

struct tlb_hooks {
    struct tlb_hook *v;
    uint32_t n, cap;
    uint32_t depth; /* calls of the list in progress */
    bool holes;
};

/* Laid out by use, in cache lines (the struct is allocated 64-byte
 * aligned), so that a TLB the host's caches do not hold (one L1 of the
 * 65,536 in a system of 1024 GPUs) costs a request a few misses, not one
 * per field. Line 0: what every lookup reads; line 1: the configuration
 * (ports, latency, MSHRs, indexing); line 2: replacement, the count and
 * eviction, which hits and fills read; line 3: the counters every request
 * bumps. The rest is read by reports, resets and the unit's life. */
struct xlat_tlb {
    xlat_ctx *ctx;
    struct tlb_timed *timed;          /* NULL until a timed call needs it */
    struct tlb_way *way;   /* sets * ways */
    uint8_t *tag;          /* the ways' tags (tlb_tag.h), after the ways; NULL for
                              narrow sets */
    uint64_t shift_mask;   /* bit s set: some entry has page_shift s */
    uint64_t set_mask;     /* sets - 1 when sets is a power of two, else UINT64_MAX */
    uint32_t sets, ways;
    /* No set has a valid way at or above this index: a fill takes its
     * set's lowest invalid way, so a TLB that is not yet full in places
     * (a cold L1 of the thousands in a large system) holds its entries in
     * its sets' first ways, and a scan of a set need not read past them.
     * Only a flush lowers it (to 0); invalidations leave holes below it. */
    uint32_t way_bound;
    uint32_t repl_words;
    xlat_tlb_config cfg;
    const struct tlb_repl_ops *repl;
    uint64_t *repl_state;  /* sets * repl_words */
    uint64_t clock;        /* stamps for LRU/FIFO */
    size_t count;
    xlat_tlb_evict_fn evict_fn; /* the single slot of xlat_tlb_set_evict_fn() */
    struct tlb_hooks evict_listeners; /* xlat_tlb_evict_listen(), in order */
    xlat_tlb_stats stats;
    void *evict_user;
    struct tlb_hooks inval_observers; /* internal: the timed unit */
    struct tlb_hooks gone_watchers;   /* internal: IOMMUs it is attached to (tlb_id.h) */
    char *name;
    xlat_rng rng;
    uint32_t shift_count[64];
    struct xlat__reg reg;
};
_Static_assert(sizeof(xlat_tlb_config) == 64, "a TLB's configuration is its line 1");


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

/* The lookups below are inline: every timed TLB lookup, hit and fill runs
 * them from another file than the array's. */

/* The ways' allocation: the ways, then the rows of their tags. */
static inline size_t xlat__tlb_way_bytes(uint32_t sets, uint32_t ways)
{
    return (size_t)sets * ways * sizeof(struct tlb_way) +
           (size_t)sets * xlat__tlb_tag_stride(ways);
}

/* The tags in the ways' allocation `way`, NULL when the sets are narrow. */
static inline uint8_t *xlat__tlb_tags_after(struct tlb_way *way, uint32_t sets, uint32_t ways)
{
    return xlat__tlb_tag_stride(ways) ? (uint8_t *)(way + (size_t)sets * ways) : NULL;
}

/* An unbounded TLB (entries 0) grows instead of evicting. */
static inline bool xlat__tlb_unbounded(const xlat_tlb *t) { return t->cfg.entries == 0; }

/* The tags of `set` (only when t->tag is not NULL). */
static inline uint8_t *xlat__tlb_tag_row(const xlat_tlb *t, uint32_t set)
{
    return t->tag + (size_t)set * xlat__tlb_tag_stride(t->ways);
}

/* The ways of `base` whose tags in `m` match, lowest first: the first that
 * holds (pasid, vpn, shift). */
static inline __attribute__((always_inline)) struct tlb_way *
xlat__tlb_find_candidates(struct tlb_way *base, uint64_t m, uint32_t pasid, uint64_t vpn,
                          uint8_t shift)
{
    for (; m; m &= m - 1) {
        struct tlb_way *w = base + __builtin_ctzll(m);
        if (w->vpn == vpn && w->page_shift == shift && w->pasid == pasid)
            return w;
    }
    return NULL;
}

/* A set of more than 64 ways: its row 64 tags a step. */
struct tlb_way *xlat__tlb_find_wide(const xlat_tlb *t, uint32_t set, uint32_t pasid,
                                    uint64_t vpn, uint8_t shift);

/* A wide set: one compare of its row, then the ways whose tag matches. */
static inline __attribute__((always_inline)) struct tlb_way *
xlat__tlb_find_tagged(const xlat_tlb *t, uint32_t set, uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    uint32_t stride = xlat__tlb_tag_stride(t->ways);
    if (__builtin_expect(stride > 64, 0))
        return xlat__tlb_find_wide(t, set, pasid, vpn, shift);
    uint64_t m = xlat__tlb_tag_match_row(xlat__tlb_tag_row(t, set), stride, xlat__tlb_tag(vpn));
    return xlat__tlb_find_candidates(t->way + (size_t)set * t->ways, m, pasid, vpn, shift);
}

/* Sets of up to this many ways compare every way (below); wider ones
 * without tags are scanned. */
#define XLAT_TLB_NARROW_WAYS 7

/* Bit i set when way i of a narrow set holds page number `vpn`: every way
 * compared, with no branch on where the hit is (a scan that stopped at the
 * hit left the host CPU to guess which way it was at every lookup); the
 * switch takes the same case at every lookup of a TLB. */
static inline uint64_t xlat__tlb_vpn_matches(const struct tlb_way *w, uint32_t ways, uint64_t vpn)
{
    uint64_t m = 0;
    switch (ways) {
    case 7:
        m |= (uint64_t)(w[6].vpn == vpn) << 6;
        __attribute__((fallthrough));
    case 6:
        m |= (uint64_t)(w[5].vpn == vpn) << 5;
        __attribute__((fallthrough));
    case 5:
        m |= (uint64_t)(w[4].vpn == vpn) << 4;
        __attribute__((fallthrough));
    case 4:
        m |= (uint64_t)(w[3].vpn == vpn) << 3;
        __attribute__((fallthrough));
    case 3:
        m |= (uint64_t)(w[2].vpn == vpn) << 2;
        __attribute__((fallthrough));
    case 2:
        m |= (uint64_t)(w[1].vpn == vpn) << 1;
        __attribute__((fallthrough));
    default:
        m |= w[0].vpn == vpn;
    }
    return m;
}

/* The way of `set` holding (pasid, vpn, shift), the lowest one; NULL if
 * none. An invalid way never matches (its page_shift is 0). */
static inline __attribute__((always_inline)) struct tlb_way *
xlat__tlb_find_in_set(const xlat_tlb *t, uint32_t set, uint32_t pasid, uint64_t vpn, uint8_t shift)
{
    if (t->tag)
        return xlat__tlb_find_tagged(t, set, pasid, vpn, shift);
    struct tlb_way *w = t->way + (size_t)set * t->ways, *end = w + t->way_bound;
    if (t->ways <= XLAT_TLB_NARROW_WAYS)
        return xlat__tlb_find_candidates(w, xlat__tlb_vpn_matches(w, t->ways, vpn), pasid, vpn,
                                         shift);
    /* 8 to 16 ways: a scan that stops at the hit. Compared with tags, it
     * reads the set's ways in order, which a host whose caches do not hold
     * the TLB (a system of hundreds of GPUs) streams, where the tags' row
     * and then the way are two misses one after the other. Four ways a
     * step: one compare of the vpn a way, not the loop's count and branch
     * after each. It stops at way_bound: a cold TLB's scan reads the few
     * ways it has filled, not the whole set. */
    for (; end - w >= 4; w += 4) {
        if (w[0].vpn == vpn && w[0].page_shift == shift && w[0].pasid == pasid)
            return w;
        if (w[1].vpn == vpn && w[1].page_shift == shift && w[1].pasid == pasid)
            return w + 1;
        if (w[2].vpn == vpn && w[2].page_shift == shift && w[2].pasid == pasid)
            return w + 2;
        if (w[3].vpn == vpn && w[3].page_shift == shift && w[3].pasid == pasid)
            return w + 3;
    }
    for (; w != end; w++)
        if (w->vpn == vpn && w->page_shift == shift && w->pasid == pasid)
            return w;
    return NULL;
}

/* A hit on way `w`: the replacement policy hears of it. */
static inline void xlat__tlb_touch(xlat_tlb *t, const struct tlb_way *w)
{
    /* LRU, the default, keeps one stamp per way in way order: the stamp's
     * index is the way's, with neither the set nor a call to find. */
    if (t->repl == &xlat__repl_lru) {
        t->repl_state[w - t->way] = ++t->clock;
        return;
    }
    /* The set from the vpn, not from the way's index: no division on the
     * hit path. */
    uint32_t set = xlat__tlb_set_of(t, w->vpn);
    size_t way = (size_t)(w - (t->way + (size_t)set * t->ways));
    t->repl->on_hit(t, xlat__tlb_set_state(t, set), (uint32_t)way);
}

/* Finds (pasid, vaddr) among the page sizes present; NULL on a miss. With
 * `touch`, a hit updates replacement state. */
static inline __attribute__((always_inline)) struct tlb_way *
xlat__tlb_find(xlat_tlb *t, uint32_t pasid, uint64_t vaddr, int touch)
{
    for (uint64_t m = t->shift_mask; m; m &= m - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(m);
        uint64_t vpn = vaddr >> shift;
        /* One set (a fully associative TLB): no index to compute. */
        uint32_t set = t->set_mask ? xlat__tlb_set_of(t, vpn) : 0;
        struct tlb_way *w = xlat__tlb_find_in_set(t, set, pasid, vpn, shift);
        if (w) {
            if (touch)
                xlat__tlb_touch(t, w);
            return w;
        }
    }
    return NULL;
}

static inline xlat_meta xlat__tlb_way_meta(const struct tlb_way *w)
{
    return (xlat_meta){.object_id = w->object_id, .home_gpu = w->home_gpu,
                       .coal_info = w->coal_info, .spill_credit = w->spill_credit,
                       .spilled = w->spilled};
}

static inline void xlat__tlb_way_to_entry(const struct tlb_way *w, xlat_tlb_entry *e)
{
    e->pasid = w->pasid;
    e->vpn = w->vpn;
    e->pfn = w->pfn;
    e->page_shift = w->page_shift;
    e->perm = w->perm;
    e->meta = xlat__tlb_way_meta(w);
}

static inline void xlat__tlb_set_geometry(xlat_tlb *t, uint32_t sets)
{
    t->sets = sets;
    t->set_mask = xlat__is_pow2(sets) ? sets - 1 : UINT64_MAX;
}

/* The ways (with their tags, tlb_tag.h) and replacement state of `sets`
 * sets, zeroed (every way invalid): at create and when an unbounded TLB
 * grows (tlb.c). On failure both are NULL and nothing is held. */
int xlat__tlb_arrays_alloc(xlat_tlb *t, uint32_t sets, struct tlb_way **way, uint64_t **state);
void xlat__tlb_arrays_free(xlat_tlb *t, uint32_t sets, struct tlb_way *way, uint64_t *state);

/* The timed unit (tlb_timed.c): allocated by the calls that may allocate
 * (xlat_tlb_set_next, xlat_tlb_target), so that a TLB used only as a
 * structure pays nothing for it. */
int xlat__tlb_timed_ensure(xlat_tlb *t);
void xlat__tlb_timed_release(xlat_tlb *t);
size_t xlat__tlb_timed_bytes(const xlat_tlb *t);
/* The timed unit's latency histogram (zeros while the TLB has none), and
 * its reset, for the TLB's statistics. */
void xlat__tlb_latency(const xlat_tlb *t, xlat_latency_hist *out);
void xlat__tlb_latency_reset(xlat_tlb *t);

/* What an invalidation removed: everything, one address space, or the
 * translations of one address. */
struct tlb_shootdown {
    int all;
    int whole_space;
    uint32_t pasid;
    uint64_t vaddr;
};

/* An observer of invalidations: told what was removed, after the array has
 * removed it (the timed unit, so that nothing in flight answers or fills
 * with it). */
typedef void (*tlb_inval_fn)(void *user, const struct tlb_shootdown *sd);

/* The lists (tlb_observe.c). Adding may allocate (XLAT_ERR_NOMEM);
 * removing takes the first matching (fn, user), XLAT_ERR_NOT_FOUND if none. */
int xlat__tlb_hooks_add(xlat_ctx *ctx, struct tlb_hooks *h, void (*fn)(void), void *user);
int xlat__tlb_hooks_remove(struct tlb_hooks *h, void (*fn)(void), void *user);
void xlat__tlb_hooks_release(xlat_ctx *ctx, struct tlb_hooks *h);
size_t xlat__tlb_hooks_bytes(const struct tlb_hooks *h);
int xlat__tlb_observe(xlat_tlb *t, tlb_inval_fn fn, void *user);
void xlat__tlb_unobserve(xlat_tlb *t, tlb_inval_fn fn, void *user);
/* Calls the watchers of xlat__tlb_watch_gone() (tlb_id.h): `t` is going. */
void xlat__tlb_notify_gone(xlat_tlb *t);
/* Calls the observers; the array's state is final by then. */
void xlat__tlb_notify_invalidated(xlat_tlb *t, const struct tlb_shootdown *sd);
/* Calls the eviction slot, then every listener in registration order. */
void xlat__tlb_notify_evicted(xlat_tlb *t, const xlat_tlb_entry *gone);

/* The TLB as a unit of its context's registry (tlb_report.c). */
extern const struct xlat__reg_ops xlat__tlb_reg_ops;

#endif
