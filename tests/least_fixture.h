/* G GPUs, each with an L2 TLB over a shared IOMMU, and a page table that
 * maps every page the least-TLB walk-throughs use: the setting of the
 * paper's Figures 10 and 13 (L1 TLBs bypassed, fully associative LRU TLBs,
 * a remote L2 answering well before a walk). */
#ifndef XLAT_LEAST_FIXTURE_H
#define XLAT_LEAST_FIXTURE_H

#include "testutil.h"

#define LF_GPUS 4
#define LF_MAX_GPUS 130 /* the tracker's GPUs in three words of 64 */

typedef struct least_fixture {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_iommu *iommu;
    uint32_t gpus;
    xlat_tlb *l2[LF_MAX_GPUS];
    xlat_resp last;
    int answers;
} least_fixture;

/* L2s of `l2_entries`, an IOMMU TLB of `iommu_entries`, policy `incl`,
 * spill receiver rule `rx`. */
void lf_build(least_fixture *f, uint32_t l2_entries, uint32_t iommu_entries, xlat_incl incl,
              bool multi_app, xlat_spill_rx rx);
/* The same with `gpus` GPUs (1..LF_MAX_GPUS). */
void lf_build_gpus(least_fixture *f, uint32_t gpus, uint32_t l2_entries, uint32_t iommu_entries,
                   xlat_incl incl, bool multi_app, xlat_spill_rx rx);
void lf_destroy(least_fixture *f);
/* Sends GPU g's request for virtual page `vpn` and runs until answered
 * with frame 0x1000 + vpn (from a 4 KiB entry or a larger one that maps
 * the same frames); returns who answered: "L2", "IOMMU", "REMOTE(g)" (g
 * the remote GPU) or "WALK". */
const char *lf_access(least_fixture *f, uint32_t gpu, uint64_t vpn);
/* The pages of a TLB, LRU to MRU, as "0x1 0x2"; spilled guests get '*'. */
const char *lf_contents(least_fixture *f, xlat_tlb *t, char *buf, size_t n);
/* The pages GPU g's tracker partition reports among 0x1..0x13, as "0x1 0x7". */
const char *lf_tracker(least_fixture *f, uint32_t gpu, char *buf, size_t n);
void lf_preload_l2(least_fixture *f, uint32_t gpu, uint64_t vpn);
void lf_preload_iommu(least_fixture *f, uint32_t source, uint64_t vpn);

#endif
