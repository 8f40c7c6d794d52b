/* The system builder's private layout. */
#ifndef XLAT_SYSTEM_INTERNAL_H
#define XLAT_SYSTEM_INTERNAL_H

#include "internal.h"
#include "xlat/xlat.h"
#include "delay.h"

/* An NVLink domain; what the system keeps per GPU is sized at create. */
#define SYSTEM_MAX_GPUS 1024
#define SYSTEM_MAX_CUS 1024

/* The probing ring's stop in front of one GPU's link (least-TLB §5.5). */
struct ring_stop {
    struct xlat__unit unit;  /* records: requests being probed or sent on */
    struct xlat_delay probes; /* every probe takes probe_latency cycles */
    struct xlat_system *sys;
    uint32_t gpu;
    xlat_target below;      /* where a double miss goes: the GMMU or the link */
};

/* The system's own copies of the caller's templates, defaults where the
 * caller gave none (a NULL template), taken at create. */
struct system_templates {
    xlat_tlb_config l1, l2;
    xlat_iommu_config iommu;        /* walk: the caller's until the IOMMU copied it, then NULL */
    xlat_walker_config gmmu_walk;
    xlat_gmmu_config gmmu;
    xlat_fbarre_config fbarre;
};

struct xlat_system {
    xlat_ctx *ctx;
    xlat_system_config cfg;         /* its template pointers lead to tmpl */
    struct system_templates tmpl;
    xlat_tlb **l1;                  /* gpus x cus */
    /* Per GPU, cfg.gpus of each (NULL where the GPU has none): */
    xlat_tlb **l2;
    xlat_link **link;
    struct ring_stop **ring;
    xlat_walker **gmmu_walker;
    xlat_gmmu **gmmu;
    xlat_iommu *iommu;
    xlat_fbarre_mesh *fbarre;       /* with cfg.fbarre: every chiplet's unit and their links */
    uint32_t held_pec;              /* cfg.fbarre_pec's unit id: the chiplets' PEC source
                                       reads it, so it outlives the system (xlat__hold_handle) */
    uint64_t inner_holds;           /* holds its units had on one another at create */
    xlat_system_stats st;
    struct xlat__reg reg;
};

/* A ring stop for `gpu` in front of `below`; *out becomes its target. */
int xlat__ring_create(struct xlat_system *s, uint32_t gpu, const xlat_target *below,
                      xlat_target *out);
void xlat__ring_destroy(struct xlat_system *s, uint32_t gpu);

#endif
