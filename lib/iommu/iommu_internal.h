/* The IOMMU's private layout, shared by its request flow, its victim and
 * spill handling, its page-request path and the inclusion policies. */
#ifndef XLAT_IOMMU_INTERNAL_H
#define XLAT_IOMMU_INTERNAL_H

#include "internal.h"
#include "pool.h"
#include "waitq.h"

#define IOMMU_MAX_GPUS 64
/* Entry flags owned by the IOMMU's policies: the spill counter in the low
 * bits, and whether the entry sits in an L2 as a spilled guest. */
#define IOMMU_SPILLED 0x8000u
#define IOMMU_SC_MASK 0x00FFu

/* One ATS request and its pending-table entry: a walk and a remote probe
 * may race; the first valid answer serves it, the other is dropped. */
struct iommu_req {
    void *free_link; /* the pool's while free */
    struct xlat_iommu *iommu;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t arrival;
    uint8_t walk_out, probe_out, answered;
    uint8_t queued;      /* its walk waits in the IOMMU's walk queue */
    int32_t probe_gpu;
    struct iommu_req *qprev, *qnext; /* the walk queue */
};

/* An L2 victim waiting to be handled (victims arrive from inside the L2's
 * own insert, so they are handled afterwards, in order). */
struct iommu_victim {
    uint32_t gpu;
    uint32_t chain; /* spills that led to it (0: an ordinary fill evicted it) */
    xlat_tlb_entry e;
};

struct xlat_iommu;

/* An inclusion policy: what the IOMMU does at each point of a request. */
struct incl_ops {
    const char *name;
    void (*on_hit)(struct xlat_iommu *m, const xlat_tlb_entry *e);
    void (*on_walk)(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t gpu);
    void (*on_answer)(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
    void (*on_l2_victim)(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
    void (*on_iommu_victim)(struct xlat_iommu *m, const xlat_tlb_entry *e);
    int (*remote_gpu)(struct xlat_iommu *m, const struct iommu_req *r);
    void (*on_remote)(struct xlat_iommu *m, uint32_t gpu, const xlat_req *req, bool hit,
                      const xlat_tlb_entry *e);
    /* A shootdown removed `e` from GPU gpu's L2. */
    void (*on_l2_gone)(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
};

extern const struct incl_ops xlat__incl_mostly;
extern const struct incl_ops xlat__incl_inclusive;
extern const struct incl_ops xlat__incl_exclusive;
extern const struct incl_ops xlat__incl_least;
extern const struct incl_ops xlat__incl_least_multi;

struct xlat_iommu {
    xlat_ctx *ctx;
    char *name;
    xlat_iommu_config cfg;
    const struct incl_ops *incl;
    xlat_tlb *tlb, *tlb2;
    xlat_walker *walker;
    xlat_tlb *l2[IOMMU_MAX_GPUS];
    xlat_tlb_evict_fn l2_prev_fn[IOMMU_MAX_GPUS];
    void *l2_prev_user[IOMMU_MAX_GPUS];
    xlat_cuckoo *tracker[IOMMU_MAX_GPUS];
    uint64_t tracker_shifts[IOMMU_MAX_GPUS];      /* page sizes each partition holds */
    uint32_t tracker_sizes[IOMMU_MAX_GPUS][64];   /* its keys by page shift */
    uint64_t evictions[IOMMU_MAX_GPUS]; /* cumulative Eviction Counters */
    uint64_t occupancy[IOMMU_MAX_GPUS]; /* IOMMU TLB entries by source GPU */
    struct xlat_pool reqs;
    uint32_t in_service;                /* requests not answered yet */
    struct iommu_req *wq_head, *wq_tail; /* walks not handed to the walkers yet */
    bool wq_parked, wq_draining;
    struct xlat_waitq waitq;            /* senders refused with a full buffer */
    struct iommu_victim *victims;       /* ring of pending L2 victims */
    uint32_t victims_cap, victims_head, victims_len;
    bool victims_scheduled;
    uint32_t chain;                     /* spills behind the L2 insert in progress */
    struct xlat_iommu_fault *faults;    /* page requests gathered for a batch */
    uint32_t nfaults;
    bool fault_timer;
    xlat_iommu_stats st;
};

/* Victims and spills (iommu_victim.c). */
int xlat__iommu_victims_init(struct xlat_iommu *m);
void xlat__iommu_l2_evicted(void *user, xlat_tlb *l2, const xlat_tlb_entry *victim);
/* Puts `e` (from GPU `source`) into the IOMMU TLB and deals with its
 * victim; a negative code when the TLB refuses it (nothing changed). */
int xlat__iommu_insert(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t source);
/* Removes what covers (pasid, vaddr) from the IOMMU TLB(s), keeping occupancy right. */
int xlat__iommu_remove(struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr);
/* The receiver of a spilled IOMMU victim, or -1 (least-TLB §4.2). */
int xlat__spill_receiver(const struct xlat_iommu *m, uint32_t owner);
void xlat__iommu_spill(struct xlat_iommu *m, const xlat_tlb_entry *w);
void xlat__iommu_back_invalidate(struct xlat_iommu *m, const xlat_tlb_entry *w);

/* The Local TLB tracker (iommu_tracker.c). */
int xlat__tracker_init(struct xlat_iommu *m);
void xlat__tracker_release(struct xlat_iommu *m);
void xlat__tracker_add(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
void xlat__tracker_del(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *e);
/* Lowest GPU other than `except` whose partition holds (pasid, vaddr), or -1. */
int xlat__tracker_find(const struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr,
                       uint32_t except);
/* A probe of GPU `gpu` missed: delete every key of (pasid, vaddr) its
 * partition reports, whatever the page size that answered. */
void xlat__tracker_forget(struct xlat_iommu *m, uint32_t gpu, uint32_t pasid, uint64_t vaddr);
void xlat__tracker_reset(struct xlat_iommu *m);

/* Page requests (iommu_fault.c). */
void xlat__iommu_walk_fault(void *user, xlat_walker *pool, const xlat_walk_fault *fault);
int xlat__iommu_faults_init(struct xlat_iommu *m);

#endif
