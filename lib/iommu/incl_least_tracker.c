/*
 * The Local TLB tracker of least-TLB (§4.1): a cuckoo filter per GPU in the
 * IOMMU, the entries split equally among the GPUs, recording which
 * translations a GPU's L2 TLB holds. Keys are (PASID, page, page size). A
 * lookup asks one key per page size the partition holds entries of: every
 * key asked is one more chance of a false positive, so asking the 2 MiB and
 * 1 GiB keys when only 4 KiB pages are tracked raised the rate from about
 * 0.23 (the paper's 0.2 with 4-bit fingerprints) to about 0.55.
 * With tracker_exact the partitions are exact sets (tracker_exact.c).
 */
#include "incl_least.h"
#include "../cuckoo/cuckoo_lookup.h"

/* ---- the cuckoo filter: least-TLB's own tracker ------------------------ */

static int cuckoo_create(xlat_ctx *ctx, const xlat_iommu_config *cfg, uint32_t capacity,
                         void **out)
{
    xlat_cuckoo_config c;
    xlat_cuckoo_config_init(&c);
    c.capacity = capacity;
    c.fp_bits = cfg->tracker_fp_bits;
    c.bucket_size = cfg->tracker_bucket;
    return xlat_cuckoo_create(ctx, &c, (xlat_cuckoo **)out);
}

static void cuckoo_destroy(void *set) { xlat_cuckoo_destroy(set); }

/* A filter holds a key inserted twice twice: every insertion counts. */
static int cuckoo_insert(void *set, const struct tracker_key *k)
{
    int rc = xlat_cuckoo_insert(set, k->hash);
    return rc == XLAT_OK ? 1 : rc;
}

static bool cuckoo_remove(void *set, const struct tracker_key *k)
{
    return xlat_cuckoo_remove(set, k->hash) == XLAT_OK;
}

static bool cuckoo_contains(const void *set, const struct tracker_key *k)
{
    return xlat_cuckoo_contains(set, k->hash);
}

static void cuckoo_clear(void *set) { xlat_cuckoo_clear(set); }

const struct tracker_set_ops xlat__tracker_cuckoo = {
    cuckoo_create, cuckoo_destroy, cuckoo_insert, cuckoo_remove, cuckoo_contains, cuckoo_clear,
};

/* ---- the tracker ------------------------------------------------------- */

/* The per-GPU arrays, laid out in the state's tail (LEAST_PER_GPU bytes a
 * GPU, which the IOMMU allocated with the state): 8-byte members first. */
static void carve_tail(struct least *s)
{
    unsigned char *at = (unsigned char *)s->tail;
    s->tracker = (void **)at;
    at += s->gpus * sizeof(*s->tracker);
    s->tracker_shifts = (uint64_t *)at;
    at += s->gpus * sizeof(*s->tracker_shifts);
    s->evictions = (uint64_t *)at;
    at += s->gpus * sizeof(*s->evictions);
    s->occupancy = (uint64_t *)at;
    at += s->gpus * sizeof(*s->occupancy);
    s->tracker_sizes = (uint32_t(*)[64])at;
}

int xlat__tracker_init(struct least *s)
{
    const xlat_iommu_config *cfg = s->base.sv->cfg;
    uint32_t capacity = cfg->tracker_entries / cfg->gpus;
    s->set = cfg->tracker_exact ? &xlat__tracker_exact : &xlat__tracker_cuckoo;
    int rc = XLAT_OK;
    carve_tail(s);
    if (capacity == 0)
        return xlat__fail(s->base.sv->ctx, XLAT_ERR_INVAL,
                          "iommu %s: %u tracker entries cannot be split among %u GPUs",
                          s->base.sv->name, cfg->tracker_entries, cfg->gpus);
    for (uint32_t g = 0; g < cfg->gpus && rc == XLAT_OK; g++)
        rc = s->set->create(s->base.sv->ctx, cfg, capacity, &s->tracker[g]);
    return rc;
}

void xlat__tracker_release(struct least *s)
{
    for (uint32_t g = 0; s->tracker && g < s->gpus; g++) {
        if (s->tracker[g])
            s->set->destroy(s->tracker[g]);
        s->tracker[g] = NULL;
    }
}

/* Bit `bit` of `*mask` set when `on`, else clear. */
static inline void mark(uint64_t *mask, unsigned bit, bool on)
{
    *mask = on ? *mask | 1ull << bit : *mask & ~(1ull << bit);
}

/* Partition `gpu` began (by > 0) or ceased to hold keys of size `shift`. */
static void count_holder(struct least *s, uint8_t shift, int by)
{
    s->holders_of[shift] = (uint32_t)((int64_t)s->holders_of[shift] + by);
    mark(&s->shifts_held, shift, s->holders_of[shift] != 0);
}

static void count_size(struct least *s, uint32_t gpu, uint8_t shift, int by)
{
    uint32_t *n = &s->tracker_sizes[gpu][shift];
    bool held = *n != 0;
    *n = by > 0 ? *n + 1 : *n ? *n - 1 : 0;
    if (held != (*n != 0))
        count_holder(s, shift, held ? -1 : +1);
    mark(&s->tracker_shifts[gpu], shift, *n != 0);
    mark(&s->holding[gpu / 64], gpu % 64, s->tracker_shifts[gpu] != 0);
}

void xlat__tracker_add(struct least *s, uint32_t gpu, const xlat_tlb_entry *e)
{
    if (!s->tracker[gpu])
        return;
    s->base.sv->st->tracker_inserts++;
    struct tracker_key k = xlat__tracker_key(e->pasid, e->page_shift, e->vpn);
    int added = s->set->insert(s->tracker[gpu], &k);
    /* A full partition only loses remote hits: the walk always runs. */
    if (added < 0)
        s->base.sv->st->tracker_full++;
    else if (added)
        count_size(s, gpu, e->page_shift & 63, +1);
}

void xlat__tracker_del(struct least *s, uint32_t gpu, const xlat_tlb_entry *e)
{
    struct tracker_key k = xlat__tracker_key(e->pasid, e->page_shift, e->vpn);
    if (s->tracker[gpu] && s->set->remove(s->tracker[gpu], &k))
        count_size(s, gpu, e->page_shift & 63, -1);
}

/* The keys of one (pasid, vaddr), one per page size, each made when a
 * partition first asks for it: a lookup of every partition hashes once. */
struct lookup {
    uint32_t pasid;
    uint64_t vaddr;
    uint64_t made; /* shifts whose key is made */
    struct tracker_key key[64];
};

/* No key made yet (the keys are left unwritten: a lookup asks few). */
static void lookup_init(struct lookup *l, uint32_t pasid, uint64_t vaddr)
{
    l->pasid = pasid;
    l->vaddr = vaddr;
    l->made = 0;
}

static const struct tracker_key *lookup_key(struct lookup *l, uint8_t shift)
{
    if (!(l->made & (1ull << shift))) {
        l->key[shift] = xlat__tracker_key(l->pasid, shift, l->vaddr >> shift);
        l->made |= 1ull << shift;
    }
    return &l->key[shift];
}

/* The page sizes (as a mask of shifts) whose key for the lookup's (pasid,
 * vaddr) the partition of GPU g reports, asking only the sizes it holds. */
static uint64_t partition_match(const struct least *s, uint32_t g, struct lookup *l)
{
    uint64_t match = 0;
    for (uint64_t left = s->tracker_shifts[g]; left; left &= left - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(left);
        if (s->set->contains(s->tracker[g], lookup_key(l, shift)))
            match |= 1ull << shift;
    }
    return match;
}

/* find's loop when every partition in use is a cuckoo filter of the same
 * one page size (nearly always: 4 KiB pages alone): one key for all, and
 * one call that asks each filter in turn. */
static int find_one_size(const struct least *s, uint32_t pasid, uint64_t vaddr, uint32_t except)
{
    uint8_t shift = (uint8_t)__builtin_ctzll(s->shifts_held);
    struct tracker_key k = xlat__tracker_key(pasid, shift, vaddr >> shift);
    uint32_t words = (s->gpus + 63) / 64;
    uint64_t pick[INCL_MAX_GPUS / 64];
    memcpy(pick, s->holding, words * sizeof(pick[0]));
    if (except < s->gpus)
        pick[except / 64] &= ~(1ull << (except % 64));
    return (int)xlat__cuckoo_first(s->tracker, pick, words, k.hash);
}

/* least-TLB §4.1 (Algorithm 1): an IOMMU TLB miss looks up the tracker,
 * every GPU's partition at once in hardware. Each partition's false
 * positives are its own (its filter's hash seed and contents), so the
 * model asks them one by one: this loop over the GPUs is the mechanism's,
 * once per IOMMU TLB miss of least-TLB. */
int xlat__tracker_find(const struct least *s, uint32_t pasid, uint64_t vaddr, uint32_t except)
{
    uint64_t held = s->shifts_held;
    if (s->set == &xlat__tracker_cuckoo && held && !(held & (held - 1)))
        return find_one_size(s, pasid, vaddr, except);
    struct lookup l;
    lookup_init(&l, pasid, vaddr);
    for (uint32_t word = 0; word * 64 < s->gpus; word++) {
        for (uint64_t left = s->holding[word]; left; left &= left - 1) {
            uint32_t g = word * 64 + (uint32_t)__builtin_ctzll(left);
            if (g != except && partition_match(s, g, &l))
                return (int)g;
        }
    }
    return -1;
}

void xlat__tracker_forget(struct least *s, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    if (!s->tracker[gpu])
        return;
    struct lookup l;
    lookup_init(&l, pasid, vaddr);
    for (uint64_t left = partition_match(s, gpu, &l); left; left &= left - 1) {
        uint8_t shift = (uint8_t)__builtin_ctzll(left);
        xlat_tlb_entry e = {.pasid = pasid, .page_shift = shift, .vpn = vaddr >> shift};
        xlat__tracker_del(s, gpu, &e);
    }
}

void xlat__tracker_reset(struct least *s)
{
    for (uint32_t g = 0; g < s->gpus; g++)
        s->set->clear(s->tracker[g]);
    memset(s->tracker_sizes, 0, s->gpus * sizeof(*s->tracker_sizes));
    memset(s->tracker_shifts, 0, s->gpus * sizeof(*s->tracker_shifts));
    memset(s->holding, 0, sizeof(s->holding));
    memset(s->holders_of, 0, sizeof(s->holders_of));
    s->shifts_held = 0;
}

bool xlat__tracker_holds(const struct least *s, uint32_t gpu, uint32_t pasid, uint64_t vaddr)
{
    struct lookup l;
    lookup_init(&l, pasid, vaddr);
    return gpu < s->gpus && s->tracker[gpu] && partition_match(s, gpu, &l);
}
