/* The GMMU tests' world: a GPU's local page table walked by a real walker,
 * a fixed-latency IOMMU path that knows every page, and helpers that send
 * requests, run the clock and check the answers (tests/check_gmmu*.c). */
#ifndef XLAT_GMMU_FIXTURE_H
#define XLAT_GMMU_FIXTURE_H

#include "testutil.h"

#define PASID 1
#define BASE_PFN 0x10000ull /* both tables map page vpn to frame vpn + BASE_PFN */
#define LOCAL_PAGES 16      /* pages 0..15 live on this GPU */
#define LOCAL_VA(i) ((uint64_t)(i) * 0x1000)
#define REMOTE_VA(i) ((uint64_t)(LOCAL_PAGES + (i)) * 0x1000) /* same leaf node: 4 reads */
#define FAR_VA 0x40000000ull      /* level-3 entry absent: the walk stops after 2 reads */
#define NOWHERE_VA 0x8000000000ull /* mapped nowhere: the IOMMU faults too */
#define MAXDONE 2048

typedef struct gfix {
    counting_alloc ca;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_walker *walker;
    xlat_fixed *iommu;
    xlat_gmmu *g;
    xlat_resp done[MAXDONE];
    int ndone;
    int in_translate; /* the sender is inside xlat_gmmu_translate */
    xlat_gmmu_epoch log[16];
    int nlog;
} gfix;

extern gfix gf;

/* The IOMMU's page table: page vpn at frame vpn + BASE_PFN, a fault from NOWHERE_VA on. */
int gf_iommu_resolve(void *user, uint32_t pasid, uint64_t vaddr, xlat_tlb_entry *out);
/* The world: `walkers` walkers (mem_latency per read, so a full walk is
 * 4 x mem_latency, a `queue`-entry buffer) and an IOMMU responder of
 * `iommu_latency` cycles taking `iommu_max` requests at once (0: any). */
void gf_world(uint32_t mem_latency, uint32_t walkers, uint32_t queue, uint32_t iommu_latency,
              uint32_t iommu_max);
/* The D.2 world: G = 100 (4 reads of 25), 2P + I = 1100. */
void gf_d2_world(void);
/* A configuration named "gpu0.gmmu" over the world's walker, logging epochs. */
void gf_cfg(xlat_gmmu_config *c, xlat_gmmu_mode mode, xlat_gmmu_routing first, uint64_t epoch);
/* Creates gf.g from `c`, its IOMMU path the world's responder. */
void gf_with(const xlat_gmmu_config *c);
void gf_gmmu(xlat_gmmu_mode mode, xlat_gmmu_routing first, uint64_t epoch);
/* Destroys everything and checks that nothing leaked. */
void gf_teardown(void);
/* Records an answer; fails when called from inside xlat_gmmu_translate. */
void gf_on_done(void *user, const xlat_resp *r);
int gf_send_pasid(uint64_t id, uint64_t va, uint32_t pasid);
void gf_send(uint64_t id, uint64_t va);
void gf_run_until(uint64_t cycle);
void gf_drain(void);
/* The one answer of request `id` (fails when none or two). */
const xlat_resp *gf_answer(uint64_t id);
/* The name of the unit that answered `r`; "host.iommu" for resolver 0, the
 * answer of a host's IOMMU (check_gmmu_contract.c), which is no unit. */
const char *gf_resolver(const xlat_resp *r);
void gf_expect(uint64_t id, uint64_t completed, int status, const char *resolver);
xlat_gmmu_stats gf_stats(void);
/* `local` requests to local pages, then `remote` to remote ones, ids from *id. */
void gf_send_mix(uint64_t *id, int local, int remote);
/* The ideal mode's oracle: local pages of PASID. */
bool gf_oracle_local(void *user, uint32_t gpu, const xlat_req *req);
/* A TCase whose tests end with gf_teardown(). */
TCase *gf_case(Suite *s, const char *name);

#endif
