/*
 * An exact Local TLB tracker partition: the set of keys (PASID, page, page
 * size) a GPU's L2 holds, with no false positive. "Barre Chord: Efficient
 * Virtual Memory Translation for Multi-Chip-Module GPUs" §VII-A runs
 * least-TLB with "an ideal 1024-entry cuckoo filter (100% true positive)";
 * a filter whose answers are exact is a set.
 *
 * Open addressing with linear probing over twice the capacity in slots
 * (rounded up to a power of two), so a probe stays short; a removal shifts
 * the run behind it back instead of leaving a tombstone, so a long run of
 * fills and victims never slows the lookups down. Everything is allocated
 * at create: inserts never allocate.
 */
#include "incl_least.h"

struct exact_slot {
    uint64_t vpn;
    uint32_t pasid;
    uint8_t shift;
    uint8_t used;
};

struct exact_set {
    xlat_ctx *ctx;
    uint32_t capacity, count;
    size_t mask;                /* slots - 1 */
    struct exact_slot *slot;
};

static size_t home_of(const struct exact_set *x, const struct tracker_key *k)
{
    return k->hash & x->mask;
}

static bool same(const struct exact_slot *s, const struct tracker_key *k)
{
    return s->used && s->vpn == k->vpn && s->pasid == k->pasid && s->shift == k->shift;
}

/* The slot holding k, or the empty slot that ends its run. */
static size_t find(const struct exact_set *x, const struct tracker_key *k)
{
    size_t i = home_of(x, k);
    while (x->slot[i].used && !same(&x->slot[i], k))
        i = (i + 1) & x->mask;
    return i;
}

static int exact_create(xlat_ctx *ctx, const xlat_iommu_config *cfg, uint32_t capacity,
                        void **out)
{
    (void)cfg;
    size_t slots = 2;
    while (slots < 2 * (size_t)capacity)
        slots *= 2;
    struct exact_set *x = xlat__calloc(ctx, 1, sizeof(*x));
    struct exact_slot *slot = x ? xlat__calloc(ctx, slots, sizeof(*slot)) : NULL;
    if (!slot) {
        xlat__free(ctx, x, sizeof(*x));
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "iommu: out of memory for an exact tracker");
    }
    *x = (struct exact_set){.ctx = ctx, .capacity = capacity, .mask = slots - 1, .slot = slot};
    *out = x;
    return XLAT_OK;
}

static void exact_destroy(void *set)
{
    struct exact_set *x = set;
    xlat__free(x->ctx, x->slot, (x->mask + 1) * sizeof(*x->slot));
    xlat__free(x->ctx, x, sizeof(*x));
}

/* An L2 holds a translation once, so a key already held is not counted twice. */
static int exact_insert(void *set, const struct tracker_key *k)
{
    struct exact_set *x = set;
    size_t i = find(x, k);
    if (x->slot[i].used)
        return 0;
    if (x->count == x->capacity)
        return XLAT_ERR_FULL;
    x->slot[i] = (struct exact_slot){.vpn = k->vpn, .pasid = k->pasid, .shift = k->shift,
                                     .used = 1};
    x->count++;
    return 1;
}

/* Is slot j's key, whose home is h, still reachable with slot i empty? Only
 * if h lies cyclically in (i, j]. */
static bool reachable_past(size_t i, size_t j, size_t h)
{
    return i <= j ? (i < h && h <= j) : (i < h || h <= j);
}

static bool exact_remove(void *set, const struct tracker_key *k)
{
    struct exact_set *x = set;
    size_t i = find(x, k);
    if (!x->slot[i].used)
        return false;
    for (size_t j = (i + 1) & x->mask; x->slot[j].used; j = (j + 1) & x->mask) {
        struct tracker_key moved = xlat__tracker_key(x->slot[j].pasid, x->slot[j].shift,
                                                     x->slot[j].vpn);
        if (!reachable_past(i, j, home_of(x, &moved))) {
            x->slot[i] = x->slot[j];
            i = j;
        }
    }
    x->slot[i].used = 0;
    x->count--;
    return true;
}

static bool exact_contains(const void *set, const struct tracker_key *k)
{
    const struct exact_set *x = set;
    return x->slot[find(x, k)].used;
}

static void exact_clear(void *set)
{
    struct exact_set *x = set;
    memset(x->slot, 0, (x->mask + 1) * sizeof(*x->slot));
    x->count = 0;
}

const struct tracker_set_ops xlat__tracker_exact = {
    exact_create, exact_destroy, exact_insert, exact_remove, exact_contains, exact_clear,
};
