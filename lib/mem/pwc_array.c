/* The page walk cache's arrays (pwc_array.h). The four policies are the
 * TLB's, a few lines each, chosen by a switch rather than a table: a walk
 * looks up every cached level, and the hit path stays free of indirect
 * calls. LRU and FIFO keep the order of the TLB's stamps as a list; PLRU
 * and RANDOM are the TLB's own arithmetic (lib/tlb/repl_plru.c,
 * repl_random.c). */
#include "pwc_array.h"

#define PWC_MAX_ENTRIES (1u << 28)

/* A quarter full at most: probes stay short. */
static uint32_t index_slots(uint32_t entries)
{
    uint32_t cap = 2;
    while (cap < 4 * (uint64_t)entries)
        cap *= 2;
    return cap;
}

static size_t plru_words(xlat_repl repl, uint32_t ways)
{
    return repl == XLAT_REPL_PLRU && ways > 1 ? (ways - 1 + 63) / 64 : 0;
}

int xlat__pwc_array_init(xlat_ctx *ctx, struct pwc_array *a, uint32_t entries, uint32_t ways,
                         xlat_repl repl)
{
    memset(a, 0, sizeof(*a));
    if (entries > PWC_MAX_ENTRIES)
        return XLAT_ERR_NOMEM; /* gigabytes of ways, and an index beyond 32 bits */
    a->ways = ways;
    a->sets = entries / ways;
    a->set_mask = xlat__is_pow2(a->sets) ? a->sets - 1 : UINT64_MAX;
    a->repl = repl;
    a->plru_words = plru_words(repl, ways);
    a->index_mask = index_slots(entries) - 1;
    a->index_shift = (uint8_t)(64 - __builtin_ctz(a->index_mask + 1));
    xlat__rng_stream(ctx, &a->rng);
    a->way = xlat__calloc(ctx, entries, sizeof(*a->way));
    a->used = xlat__calloc(ctx, a->sets, sizeof(*a->used));
    a->index = xlat__calloc(ctx, (size_t)a->index_mask + 1, sizeof(*a->index));
    a->link = xlat__calloc(ctx, entries, sizeof(*a->link));
    a->ends = xlat__calloc(ctx, a->sets, sizeof(*a->ends));
    a->plru = a->plru_words ? xlat__calloc(ctx, a->sets * a->plru_words, sizeof(uint64_t)) : NULL;
    if (!a->way || !a->used || !a->index || !a->link || !a->ends || (a->plru_words && !a->plru)) {
        xlat__pwc_array_fini(ctx, a);
        return XLAT_ERR_NOMEM;
    }
    for (uint32_t s = 0; s < a->sets; s++)
        a->ends[s] = (struct pwc_link){PWC_NONE, PWC_NONE};
    return XLAT_OK;
}

void xlat__pwc_array_fini(xlat_ctx *ctx, struct pwc_array *a)
{
    size_t entries = (size_t)a->sets * a->ways;
    xlat__free(ctx, a->way, entries * sizeof(*a->way));
    xlat__free(ctx, a->used, a->sets * sizeof(*a->used));
    xlat__free(ctx, a->index, ((size_t)a->index_mask + 1) * sizeof(*a->index));
    xlat__free(ctx, a->link, entries * sizeof(*a->link));
    xlat__free(ctx, a->ends, a->sets * sizeof(*a->ends));
    xlat__free(ctx, a->plru, a->sets * a->plru_words * sizeof(uint64_t));
    memset(a, 0, sizeof(*a));
}

/* ---- the tag index ---------------------------------------------------- */

static void index_add(struct pwc_array *a, uint32_t g)
{
    const struct pwc_way *w = &a->way[g];
    uint32_t i = pwc_home(a, w->pasid, w->vpn, w->shift);
    while (a->index[i])
        i = (i + 1) & a->index_mask;
    a->index[i] = g + 1;
}

/* Removes way g (still holding its tag), shifting back the entries its
 * slot kept from their home so that no probe stops early. */
static void index_remove(struct pwc_array *a, uint32_t g)
{
    const struct pwc_way *w = &a->way[g];
    uint32_t i = pwc_home(a, w->pasid, w->vpn, w->shift);
    while (a->index[i] != g + 1)
        i = (i + 1) & a->index_mask;
    for (uint32_t j = (i + 1) & a->index_mask; a->index[j]; j = (j + 1) & a->index_mask) {
        const struct pwc_way *o = &a->way[a->index[j] - 1];
        uint32_t k = pwc_home(a, o->pasid, o->vpn, o->shift);
        /* o may move to the hole at i when its home is not in (i, j]. */
        if (((j - k) & a->index_mask) >= ((j - i) & a->index_mask)) {
            a->index[i] = a->index[j];
            i = j;
        }
    }
    a->index[i] = 0;
}

/* ---- replacement ------------------------------------------------------ */

static inline void list_remove(struct pwc_array *a, uint32_t set, uint32_t g)
{
    struct pwc_link l = a->link[g];
    if (l.newer != PWC_NONE)
        a->link[l.newer].older = l.older;
    else
        a->ends[set].newer = l.older;
    if (l.older != PWC_NONE)
        a->link[l.older].newer = l.newer;
    else
        a->ends[set].older = l.newer;
}

static inline void list_push(struct pwc_array *a, uint32_t set, uint32_t g)
{
    uint32_t newest = a->ends[set].newer;
    a->link[g] = (struct pwc_link){PWC_NONE, newest};
    if (newest != PWC_NONE)
        a->link[newest].newer = g;
    else
        a->ends[set].older = g;
    a->ends[set].newer = g;
}

static void plru_touch(const struct pwc_array *a, uint32_t set, uint32_t way)
{
    uint64_t *state = a->plru + (size_t)set * a->plru_words;
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

static uint32_t plru_victim(const struct pwc_array *a, uint32_t set)
{
    const uint64_t *state = a->plru + (size_t)set * a->plru_words;
    uint32_t node = 0, lo = 0, span = a->ways;
    while (span > 1) {
        span /= 2;
        uint32_t right = (uint32_t)(state[node / 64] >> (node % 64)) & 1;
        lo += right ? span : 0;
        node = 2 * node + 1 + right;
    }
    return lo;
}

static int listed(const struct pwc_array *a)
{
    return a->repl == XLAT_REPL_LRU || a->repl == XLAT_REPL_FIFO;
}

void xlat__pwc_array_touch(struct pwc_array *a, uint32_t set, uint32_t g)
{
    if (a->repl == XLAT_REPL_LRU && a->ends[set].newer != g) {
        list_remove(a, set, g);
        list_push(a, set, g);
    } else if (a->repl == XLAT_REPL_PLRU) {
        plru_touch(a, set, g - set * a->ways);
    }
}

/* A fill (`fresh`: into an empty way) or an update in place, which FIFO
 * too makes newest. */
static void on_fill(struct pwc_array *a, uint32_t set, uint32_t g, int fresh)
{
    if (listed(a)) {
        if (!fresh)
            list_remove(a, set, g);
        list_push(a, set, g);
    } else if (a->repl == XLAT_REPL_PLRU) {
        plru_touch(a, set, g - set * a->ways);
    }
}

/* The way of a full set to evict. */
static uint32_t victim(struct pwc_array *a, uint32_t set)
{
    switch (a->repl) {
    case XLAT_REPL_PLRU: return plru_victim(a, set);
    case XLAT_REPL_RANDOM: return (uint32_t)xlat__rng_below(&a->rng, a->ways);
    default: return a->ends[set].older - set * a->ways;
    }
}

/* ---- the array -------------------------------------------------------- */

/* Takes valid way g out of the tag index and its set's list; it still
 * holds its entry and is still counted in its set. An eviction's victim
 * stops here: the fill overwrites it in place (nearly every fill of a warm
 * walk cache), rather than emptying it and counting it out and in again. */
static void forget_way(struct pwc_array *a, uint32_t set, uint32_t g)
{
    index_remove(a, g);
    if (listed(a))
        list_remove(a, set, g);
}

/* Empties way g, which is valid. */
static void clear_way(struct pwc_array *a, uint32_t set, uint32_t g)
{
    forget_way(a, set, g);
    a->used[set]--;
    memset(&a->way[g], 0, sizeof(a->way[g]));
}

/* The lowest invalid way of a set that has one, as the TLB fills. */
static uint32_t free_way(const struct pwc_array *a, uint32_t set)
{
    const struct pwc_way *w = a->way + (size_t)set * a->ways;
    uint32_t i = 0;
    while (w[i].shift)
        i++;
    return i;
}

int xlat__pwc_array_fill(struct pwc_array *a, uint32_t pasid, uint64_t vpn, uint8_t shift,
                         uint64_t node_pfn)
{
    uint32_t set = pwc_set_of(a, vpn), g = pwc_index_find(a, pasid, vpn, shift);
    if (g != PWC_NONE) {
        a->way[g].node_pfn = node_pfn;
        on_fill(a, set, g, 0);
        return 0;
    }
    int evicted = a->used[set] == a->ways;
    g = set * a->ways + (evicted ? victim(a, set) : free_way(a, set));
    if (evicted)
        forget_way(a, set, g);
    else
        a->used[set]++;
    a->way[g] = (struct pwc_way){.vpn = vpn, .node_pfn = node_pfn, .pasid = pasid, .shift = shift};
    index_add(a, g);
    on_fill(a, set, g, 1);
    return evicted;
}

int xlat__pwc_array_invalidate(struct pwc_array *a, uint32_t pasid, uint64_t vaddr)
{
    int removed = 0;
    for (uint32_t g = 0; g < a->sets * a->ways; g++) {
        const struct pwc_way *w = &a->way[g];
        if (w->shift && w->pasid == pasid && w->vpn == vaddr >> w->shift) {
            clear_way(a, g / a->ways, g);
            removed++;
        }
    }
    return removed;
}

int xlat__pwc_array_invalidate_pasid(struct pwc_array *a, uint32_t pasid)
{
    int removed = 0;
    for (uint32_t g = 0; g < a->sets * a->ways; g++) {
        if (a->way[g].shift && a->way[g].pasid == pasid) {
            clear_way(a, g / a->ways, g);
            removed++;
        }
    }
    return removed;
}

int xlat__pwc_array_flush(struct pwc_array *a)
{
    int removed = 0;
    for (uint32_t s = 0; s < a->sets; s++) {
        removed += (int)a->used[s];
        a->used[s] = 0;
        a->ends[s] = (struct pwc_link){PWC_NONE, PWC_NONE};
    }
    memset(a->way, 0, (size_t)a->sets * a->ways * sizeof(*a->way));
    memset(a->index, 0, ((size_t)a->index_mask + 1) * sizeof(*a->index));
    if (a->plru)
        memset(a->plru, 0, a->sets * a->plru_words * sizeof(uint64_t));
    return removed;
}
