/* The IOMMU's private layout, shared by its request flow, its victim
 * handling and its page-request path. The inclusion policies see none of
 * it: they reach the IOMMU through their services table (incl.h). */
#ifndef XLAT_IOMMU_INTERNAL_H
#define XLAT_IOMMU_INTERNAL_H

#include "incl.h"
#include "internal.h"
#include "xlat/tlb.h"
#include "xlat/cuckoo.h"
#include "xlat/walker.h"
#include "xlat/iommu.h"
#include "unit.h"

#define IOMMU_MAX_GPUS INCL_MAX_GPUS

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
    xlat_resp walk_resp; /* a walk's answer that came outside an advance, until its event */
    struct iommu_req *qprev, *qnext; /* the walk queue */
};

/* An L2 victim waiting to be handled (victims arrive from inside the L2's
 * own insert, so they are handled afterwards, in order). */
struct iommu_victim {
    uint32_t gpu;
    uint32_t tag; /* the policy's, from when the L2 evicted it */
    xlat_tlb_entry e;
};

/* The IOMMU as a listener of GPU gpu's L2 (its victims, its teardown):
 * the GPU comes with the call, not from a search of every GPU's L2. */
struct l2_listener {
    struct xlat_iommu *iommu;
    uint32_t gpu;
};

/* The default L2 port over an xlat_tlb (iommu_port.c). */
struct tlb_port {
    struct xlat_iommu *iommu;
    xlat_tlb *tlb;
};

/* A default port's probe on its way. */
struct tlb_probe {
    void *free_link; /* the pool's while free */
    struct tlb_port *tp;
    uint32_t pasid;
    uint64_t vaddr;
    xlat_l2_answer_fn answer;
    void *actx;
};

/* L2 victims the ring holds per GPU from create on. Inside an advance it
 * never grows (more queued in one cycle are dropped and counted); a host
 * queueing victims between advances makes it grow. */
#define IOMMU_VICTIMS_PER_GPU 64

struct xlat_iommu {
    struct xlat__unit u; /* context, name, id, request records, waiters, events */
    xlat_iommu_config cfg;              /* cfg.walk leads to `walk` */
    xlat_walker_config walk;            /* the IOMMU's own copy of the walkers' template */
    const struct incl_policy *incl;
    void *incl_state;                   /* the policy's (incl_state_bytes()) */
    struct incl_services services;      /* what the policy may ask of the IOMMU */
    xlat_tlb *tlb, *tlb2;
    xlat_walker *walker;
    /* Per GPU, cfg.gpus of each, sized at create: */
    xlat_l2_port *port;                 /* how each GPU's L2 is reached */
    struct tlb_port *tlb_port;          /* the default ports' user */
    xlat_tlb **l2;                      /* TLBs attached by xlat_iommu_attach_l2() */
    struct l2_listener *listener;       /* the IOMMU on each attached L2's lists */
    bool l2_aliased;                    /* one TLB was attached for two GPUs (sticky) */
    struct xlat_pool probes;            /* default ports' probes on their way */
    uint32_t in_service;                /* requests not answered yet */
    bool records_short;                 /* a sender was refused for want of a record */
    uint64_t woke_at;                   /* cycle of the last wake of refused senders */
    bool rewake;                        /* a wake put off to the next cycle is pending */
    struct iommu_req *wq_head, *wq_tail; /* walks not handed to the walkers yet */
    bool wq_parked, wq_draining;
    struct iommu_victim *victims;       /* ring of pending L2 victims */
    uint32_t victims_cap, victims_head, victims_len;
    bool victims_scheduled;
    uint64_t victims_lost;              /* dropped for a full ring */
    struct xlat_iommu_fault *faults;    /* page requests gathered for a batch */
    uint32_t nfaults;
    bool fault_timer;
    xlat_iommu_stats st;
    struct xlat__reg reg;
};

/* GPU gpu's attached L2 (`l2`, its listener's): gpu itself unless that TLB
 * was attached for several GPUs, which answer as the lowest of them. */
uint32_t xlat__iommu_l2_gpu(const struct xlat_iommu *m, uint32_t gpu, const xlat_tlb *l2);

/* For the context's teardown, which takes every unit whatever holds it:
 * the holds on the IOMMU's own TLBs and walkers are let go. */
void xlat__iommu_forget_holds(struct xlat_iommu *m);

/* Victims and the IOMMU TLB (iommu_victim.c). */
int xlat__iommu_victims_init(struct xlat_iommu *m);
void xlat__iommu_l2_evicted(void *user, xlat_tlb *l2, const xlat_tlb_entry *victim);
/* Puts `e` (from GPU `source`) into the IOMMU TLB(s) and hands its victim
 * to the policy; a negative code when the TLB refuses it (nothing changed). */
int xlat__iommu_insert(struct xlat_iommu *m, const xlat_tlb_entry *e, uint32_t source);
/* Removes what covers (pasid, vaddr) from the IOMMU TLB(s); the count. */
int xlat__iommu_remove(struct xlat_iommu *m, uint32_t pasid, uint64_t vaddr);
/* Clears e's metadata and lets the policy mark a translation that leaves
 * for a GPU's L2 (iommu.c). */
void xlat__iommu_native(struct xlat_iommu *m, xlat_tlb_entry *e);
/* Queues an L2 victim of GPU gpu for the policy. */
int xlat__iommu_victim_push(struct xlat_iommu *m, uint32_t gpu, const xlat_tlb_entry *victim);
/* The default port over `l2` for GPU gpu (iommu_port.c). */
void xlat__iommu_tlb_port(struct xlat_iommu *m, uint32_t gpu, xlat_tlb *l2);
/* The TLB under GPU `gpu`'s default port is going: the port goes (a
 * host's own port stays), and its probes in flight arrive as misses. */
void xlat__iommu_tlb_port_gone(struct xlat_iommu *m, uint32_t gpu);
/* Fills m->services. */
void xlat__iommu_services_init(struct xlat_iommu *m);

/* Page requests (iommu_fault.c). */
void xlat__iommu_walk_fault(void *user, xlat_walker *pool, const xlat_walk_fault *fault);
int xlat__iommu_faults_init(struct xlat_iommu *m);

/* The IOMMU as a unit of its context's registry (iommu_control.c). */
extern const struct xlat__reg_ops xlat__iommu_reg_ops;

#endif
