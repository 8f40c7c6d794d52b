/*
 * Inclusion policies as plug-ins of the IOMMU: what it does with the
 * GPUs' L2 TLBs and its own TLB at each point of a request (least-TLB §2.2,
 * §4). A policy owns its state (the IOMMU allocates `state_size` zeroed
 * bytes, and `state_per_gpu` more for each of its GPUs, in one block,
 * calls `init` and, at destroy, `fini`) and reaches the IOMMU only
 * through the services table, so the IOMMU's generic code knows nothing of
 * trackers, spill counters or receiver rules. Every hook but `name` may be
 * NULL: nothing to do.
 */
#ifndef XLAT_IOMMU_INCL_H
#define XLAT_IOMMU_INCL_H

#include "internal.h"
#include "xlat/tlb.h"
#include "xlat/cuckoo.h"
#include "xlat/iommu.h"
#include "xlat/experimental.h"

/* The most GPUs an IOMMU serves (an NVLink domain); what it keeps per GPU
 * is sized at create for the GPUs it is configured with. */
#define INCL_MAX_GPUS 1024

/* What a policy may ask of its IOMMU. `iommu` is the first argument of
 * every call; the pointers stay valid until `fini`. */
struct incl_services {
    void *iommu;
    xlat_ctx *ctx;
    const char *name;              /* the IOMMU's, for messages */
    const xlat_iommu_config *cfg;
    xlat_iommu_stats *st;          /* a policy counts its own events here */
    /* Puts `e` (from GPU `source`) into the IOMMU TLB(s); its victim comes
     * back through on_iommu_victim. 0, or a negative code (nothing changed). */
    int (*tlb_insert)(void *iommu, const xlat_tlb_entry *e, uint32_t source);
    /* Removes what covers (pasid, vaddr) from the IOMMU TLB(s); the count. */
    int (*tlb_remove)(void *iommu, uint32_t pasid, uint64_t vaddr);
    /* GPU gpu's L2 TLB: attached?, insert (its victim comes back through
     * on_l2_victim), invalidate, valid entries. */
    bool (*l2_attached)(void *iommu, uint32_t gpu);
    int (*l2_insert)(void *iommu, uint32_t gpu, const xlat_tlb_entry *e);
    int (*l2_invalidate)(void *iommu, uint32_t gpu, uint32_t pasid, uint64_t vaddr);
    size_t (*l2_count)(void *iommu, uint32_t gpu);
};

struct incl_policy {
    const char *name;
    size_t state_size;
    size_t state_per_gpu; /* the state's tail: so many bytes per GPU of the IOMMU */
    /* XLAT_OK, or a negative code with the message set (the IOMMU is not created). */
    int (*init)(void *state, const struct incl_services *sv);
    void (*fini)(void *state);
    /* A translation leaves for a GPU's L2 (an answer, a preload): set the
     * policy's fields of `e->meta` (the IOMMU has zeroed the metadata). */
    void (*native)(void *state, xlat_tlb_entry *e);
    void (*on_hit)(void *state, const xlat_tlb_entry *e);
    void (*on_walk)(void *state, const xlat_tlb_entry *e, uint32_t gpu);
    void (*on_answer)(void *state, uint32_t gpu, const xlat_tlb_entry *e);
    /* An L2 victim, handled after the L2's insert; `tag` is what
     * victim_tag returned when the L2 evicted it. */
    uint32_t (*victim_tag)(void *state);
    void (*on_l2_victim)(void *state, uint32_t gpu, const xlat_tlb_entry *e, uint32_t tag);
    /* The IOMMU TLB: an entry from `source` went in; one left (a victim,
     * a removal or a refresh in place; its meta.home_gpu = its source); its victim. */
    void (*on_iommu_in)(void *state, const xlat_tlb_entry *e, uint32_t source);
    void (*on_iommu_out)(void *state, const xlat_tlb_entry *e);
    void (*on_iommu_victim)(void *state, const xlat_tlb_entry *e);
    /* After an IOMMU TLB miss: the GPU whose L2 to probe as well, or -1. */
    int (*remote_gpu)(void *state, const xlat_req *req);
    void (*on_remote)(void *state, uint32_t gpu, const xlat_req *req, bool hit,
                      const xlat_tlb_entry *e);
    /* A shootdown removed `e` from GPU gpu's L2; the IOMMU TLB was flushed. */
    void (*on_l2_gone)(void *state, uint32_t gpu, const xlat_tlb_entry *e);
    void (*on_flush)(void *state);
    /* xlat_iommu_preload(): NULL inserts `e` as it is. */
    int (*preload)(void *state, uint32_t source, const xlat_tlb_entry *e);
    /* Inspection: xlat_iommu_eviction_counter(), xlat_iommu_tracked(). */
    uint64_t (*counter)(const void *state, uint32_t gpu);
    bool (*tracked)(const void *state, uint32_t gpu, uint32_t pasid, uint64_t vaddr);
};

extern const struct incl_policy xlat__incl_mostly;
extern const struct incl_policy xlat__incl_inclusive;
extern const struct incl_policy xlat__incl_exclusive;
extern const struct incl_policy xlat__incl_least;
extern const struct incl_policy xlat__incl_least_multi;

/* Steps several policies share (incl_common.c); their state starts with
 * the services pointer. */
struct incl_base {
    const struct incl_services *sv;
};
int xlat__incl_base_init(void *state, const struct incl_services *sv);
/* Exclusive filling: a hit leaves the IOMMU TLB for the requester's L2. */
void xlat__incl_move_on_hit(void *state, const xlat_tlb_entry *e);
/* A walk fills the IOMMU TLB (both levels). */
void xlat__incl_fill_on_walk(void *state, const xlat_tlb_entry *e, uint32_t gpu);

#endif
