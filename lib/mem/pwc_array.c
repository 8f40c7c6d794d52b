/* The page walk cache's arrays (pwc_array.h). The four policies are the
 * TLB's, a few lines each, chosen by a switch rather than a table: a walk
 * looks up every cached level, and the hit path stays free of indirect
 * calls. */
#include "pwc_array.h"

/* PLRU keeps ways - 1 node bits per set in heap order (lib/tlb/repl_plru.c). */
static size_t state_words(xlat_repl repl, uint32_t ways)
{
    switch (repl) {
    case XLAT_REPL_LRU:
    case XLAT_REPL_FIFO: return ways;
    case XLAT_REPL_PLRU: return ways > 1 ? (ways - 1 + 63) / 64 : 0;
    default: return 0;
    }
}

int xlat__pwc_array_init(xlat_ctx *ctx, struct pwc_array *a, uint32_t entries, uint32_t ways,
                         xlat_repl repl)
{
    memset(a, 0, sizeof(*a));
    a->ways = ways;
    a->sets = entries / ways;
    a->set_mask = xlat__is_pow2(a->sets) ? a->sets - 1 : UINT64_MAX;
    a->repl = repl;
    a->state_words = state_words(repl, ways);
    xlat__rng_stream(ctx, &a->rng);
    a->way = xlat__calloc(ctx, entries, sizeof(*a->way));
    a->state = a->state_words ? xlat__calloc(ctx, a->sets * a->state_words, sizeof(uint64_t))
                              : NULL;
    if (a->way && (a->state || !a->state_words))
        return XLAT_OK;
    xlat__pwc_array_fini(ctx, a);
    return XLAT_ERR_NOMEM;
}

void xlat__pwc_array_fini(xlat_ctx *ctx, struct pwc_array *a)
{
    xlat__free(ctx, a->way, (size_t)a->sets * a->ways * sizeof(*a->way));
    xlat__free(ctx, a->state, (size_t)a->sets * a->state_words * sizeof(uint64_t));
    a->way = NULL;
    a->state = NULL;
}

static uint32_t set_of(const struct pwc_array *a, uint64_t vpn)
{
    return (uint32_t)(a->set_mask != UINT64_MAX ? vpn & a->set_mask : vpn % a->sets);
}

static void plru_touch(const struct pwc_array *a, uint64_t *state, uint32_t way)
{
    uint32_t node = 0, lo = 0, span = a->ways;
    while (span > 1) {
        span /= 2;
        uint32_t right = way >= lo + span;
        uint64_t m = 1ull << (node % 64);
        /* point away from the touched half */
        state[node / 64] = right ? state[node / 64] & ~m : state[node / 64] | m;
        lo += right ? span : 0;
        node = 2 * node + 1 + right;
    }
}

static uint32_t plru_victim(const struct pwc_array *a, const uint64_t *state)
{
    uint32_t node = 0, lo = 0, span = a->ways;
    while (span > 1) {
        span /= 2;
        uint32_t right = (uint32_t)(state[node / 64] >> (node % 64)) & 1;
        lo += right ? span : 0;
        node = 2 * node + 1 + right;
    }
    return lo;
}

static uint32_t oldest_stamp(const struct pwc_array *a, const uint64_t *state)
{
    uint32_t victim = 0;
    for (uint32_t w = 1; w < a->ways; w++)
        if (state[w] < state[victim])
            victim = w;
    return victim;
}

static void on_hit(struct pwc_array *a, uint64_t *state, uint32_t way)
{
    if (a->repl == XLAT_REPL_LRU)
        state[way] = ++a->clock;
    else if (a->repl == XLAT_REPL_PLRU)
        plru_touch(a, state, way);
}

/* A fill or an update in place: FIFO stamps it too. */
static void on_fill(struct pwc_array *a, uint64_t *state, uint32_t way)
{
    if (a->repl == XLAT_REPL_LRU || a->repl == XLAT_REPL_FIFO)
        state[way] = ++a->clock;
    else if (a->repl == XLAT_REPL_PLRU)
        plru_touch(a, state, way);
}

static uint32_t victim(struct pwc_array *a, const uint64_t *state)
{
    switch (a->repl) {
    case XLAT_REPL_PLRU: return plru_victim(a, state);
    case XLAT_REPL_RANDOM: return (uint32_t)xlat__rng_below(&a->rng, a->ways);
    default: return oldest_stamp(a, state);
    }
}

struct pwc_way *xlat__pwc_array_find(struct pwc_array *a, uint32_t pasid, uint64_t vpn,
                                     uint8_t shift, int touch)
{
    uint32_t set = set_of(a, vpn);
    struct pwc_way *w = a->way + (size_t)set * a->ways;
    for (uint32_t i = 0; i < a->ways; i++) {
        if (w[i].vpn != vpn || w[i].shift != shift || w[i].pasid != pasid)
            continue;
        if (touch)
            on_hit(a, a->state + (size_t)set * a->state_words, i);
        return &w[i];
    }
    return NULL;
}

int xlat__pwc_array_fill(struct pwc_array *a, uint32_t pasid, uint64_t vpn, uint8_t shift,
                         uint64_t node_pfn)
{
    uint32_t set = set_of(a, vpn), slot = a->ways;
    struct pwc_way *w = a->way + (size_t)set * a->ways;
    uint64_t *state = a->state + (size_t)set * a->state_words;
    for (uint32_t i = 0; i < a->ways; i++) {
        if (w[i].vpn == vpn && w[i].shift == shift && w[i].pasid == pasid) {
            w[i].node_pfn = node_pfn;
            on_fill(a, state, i);
            return 0;
        }
        if (w[i].shift == 0 && slot == a->ways)
            slot = i;
    }
    int evicted = slot == a->ways;
    if (evicted)
        slot = victim(a, state);
    w[slot] = (struct pwc_way){.vpn = vpn, .node_pfn = node_pfn, .pasid = pasid, .shift = shift};
    on_fill(a, state, slot);
    return evicted;
}

int xlat__pwc_array_invalidate(struct pwc_array *a, uint32_t pasid, uint64_t vaddr)
{
    int removed = 0;
    for (size_t i = 0; i < (size_t)a->sets * a->ways; i++) {
        struct pwc_way *w = &a->way[i];
        if (w->shift && w->pasid == pasid && w->vpn == vaddr >> w->shift) {
            memset(w, 0, sizeof(*w));
            removed++;
        }
    }
    return removed;
}

int xlat__pwc_array_invalidate_pasid(struct pwc_array *a, uint32_t pasid)
{
    int removed = 0;
    for (size_t i = 0; i < (size_t)a->sets * a->ways; i++) {
        if (a->way[i].shift && a->way[i].pasid == pasid) {
            memset(&a->way[i], 0, sizeof(a->way[i]));
            removed++;
        }
    }
    return removed;
}

int xlat__pwc_array_flush(struct pwc_array *a)
{
    int removed = 0;
    for (size_t i = 0; i < (size_t)a->sets * a->ways; i++)
        removed += a->way[i].shift != 0;
    memset(a->way, 0, (size_t)a->sets * a->ways * sizeof(*a->way));
    if (a->state)
        memset(a->state, 0, (size_t)a->sets * a->state_words * sizeof(uint64_t));
    return removed;
}
