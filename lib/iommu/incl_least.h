/* least-TLB's state, shared by its policy, its spills and its tracker. */
#ifndef XLAT_IOMMU_INCL_LEAST_H
#define XLAT_IOMMU_INCL_LEAST_H

#include "incl.h"

/* The largest spill counter N: xlat_meta.spill_credit is 8 bits. */
#define LEAST_SC_MAX 255u

/* A tracker key: what a partition records of one L2 entry, and its hash,
 * made once for every partition a lookup asks. */
struct tracker_key {
    uint32_t pasid;
    uint8_t shift;
    uint64_t vpn;
    uint64_t hash;
};

static inline struct tracker_key xlat__tracker_key(uint32_t pasid, uint8_t shift, uint64_t vpn)
{
    uint64_t hash = xlat__mix64(vpn ^ xlat__mix64(((uint64_t)pasid << 8) | shift));
    return (struct tracker_key){pasid, shift, vpn, hash};
}

/* How a tracker partition stores its keys: least-TLB's cuckoo filter
 * (incl_least_tracker.c) or an exact set (tracker_exact.c). */
struct tracker_set_ops {
    int (*create)(xlat_ctx *ctx, const xlat_iommu_config *cfg, uint32_t capacity, void **out);
    void (*destroy)(void *set);
    int (*insert)(void *set, const struct tracker_key *k); /* 1 added, 0 held already, < 0 full */
    bool (*remove)(void *set, const struct tracker_key *k);
    bool (*contains)(const void *set, const struct tracker_key *k);
    void (*clear)(void *set);
};

extern const struct tracker_set_ops xlat__tracker_cuckoo;
extern const struct tracker_set_ops xlat__tracker_exact;

struct least {
    struct incl_base base;   /* first: the shared steps use it (base.sv) */
    uint32_t gpus;
    const struct tracker_set_ops *set;       /* how the partitions store keys */
    /* Per GPU, `gpus` of each, in the state's tail (least_per_gpu): */
    void **tracker;                    /* the Local TLB tracker (§4.1), per GPU */
    uint64_t *tracker_shifts;          /* page sizes each partition holds */
    uint64_t *evictions;               /* cumulative Eviction Counters (§4.2) */
    uint64_t *occupancy;               /* IOMMU TLB entries by source GPU */
    uint32_t (*tracker_sizes)[64];     /* its keys by page shift */
    uint32_t chain;                    /* spills behind the L2 insert in progress */
    /* GPUs whose partition holds a key (tracker_shifts not 0), a bit each:
     * a lookup asks those alone, so its cost follows the partitions in
     * use, not the GPUs. */
    uint64_t holding[INCL_MAX_GPUS / 64];
    /* Partitions holding keys of each page size, and the sizes some
     * partition holds: one size alone (4 KiB pages, nearly always) lets a
     * lookup make one key for every partition and ask them in one call. */
    uint32_t holders_of[64];
    uint64_t shifts_held;
    uint64_t tail[];                   /* the per-GPU arrays, in that order */
};

/* Bytes of the state's tail per GPU: one of each per-GPU array. */
#define LEAST_PER_GPU (sizeof(void *) + 3 * sizeof(uint64_t) + 64 * sizeof(uint32_t))

/* The tracker (incl_least_tracker.c). */
int xlat__tracker_init(struct least *s);
void xlat__tracker_release(struct least *s);
void xlat__tracker_add(struct least *s, uint32_t gpu, const xlat_tlb_entry *e);
void xlat__tracker_del(struct least *s, uint32_t gpu, const xlat_tlb_entry *e);
/* Lowest GPU other than `except` whose partition holds (pasid, vaddr), or -1. */
int xlat__tracker_find(const struct least *s, uint32_t pasid, uint64_t vaddr, uint32_t except);
/* A probe of GPU `gpu` missed: delete every key of (pasid, vaddr) its
 * partition reports, whatever the page size that answered. */
void xlat__tracker_forget(struct least *s, uint32_t gpu, uint32_t pasid, uint64_t vaddr);
void xlat__tracker_reset(struct least *s);
bool xlat__tracker_holds(const struct least *s, uint32_t gpu, uint32_t pasid, uint64_t vaddr);

/* Spills (incl_least_spill.c): the receiver of an IOMMU victim owned by
 * `owner`, or -1; spilling `w` there. */
int xlat__spill_receiver(const struct least *s, uint32_t owner);
void xlat__least_spill(struct least *s, const xlat_tlb_entry *w);

#endif
