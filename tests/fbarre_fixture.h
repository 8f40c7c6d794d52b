/*
 * An MCM package for F-Barre's tests: N chiplets, each an L2 TLB over its
 * F-Barre unit, wired by hand as a host would (links of 32 cycles, and
 * message ports the test can make lose messages), an ATS path that answers
 * from the page table (inside its translate, or `ats_delay` cycles later),
 * and the IOMMU's PEC buffer as every chiplet's PEC source.
 */
#ifndef XLAT_TEST_FBARRE_FIXTURE_H
#define XLAT_TEST_FBARRE_FIXTURE_H

#include "testutil.h"

#define FX_PASID 1
#define FX_MAXC 4
#define FX_ANSWERS 4096
#define FX_ATS_SLOTS 256

typedef struct fx fx;

/* Internal (static library): posts beyond a unit's event budget. Always 0. */
size_t xlat__events_overruns(const xlat_ctx *ctx);

/* A message port between two chiplets that the test can make lossy. */
typedef struct fx_port {
    xlat_fbarre *to;
    int lose;
} fx_port;

typedef struct fx_ats_slot {
    fx *f;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    int busy;
} fx_ats_slot;

typedef struct fx_answer {
    int got;
    int status;
    uint64_t pfn;
    uint64_t at;
    uint32_t resolver;
} fx_answer;

struct fx {
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pec_buffer *iommu_pec;
    uint32_t n;
    xlat_tlb *l2[FX_MAXC];
    xlat_fbarre *fb[FX_MAXC];
    xlat_fbarre_mesh *mesh; /* fx_init_mesh(): the builder's units and links */
    xlat_link *link[FX_MAXC][FX_MAXC];
    fx_port port[FX_MAXC][FX_MAXC];
    uint32_t ats_delay; /* 0: the ATS host answers inside its translate */
    uint64_t ats_requests;
    fx_ats_slot ats[FX_ATS_SLOTS];
    int in_call;  /* the test is inside the L2's translate */
    int breaches; /* an answer came inside that call */
    fx_answer ans[FX_ANSWERS];
};

/* The chiplets' frames start at 0xA000, 0xB000, 0xC000, 0xD000 (Example 1). */
extern const uint64_t fx_base[FX_MAXC];

/* `tmpl` NULL: xlat_fbarre_config_init()'s; chiplet, chiplets, base_pfn set here. */
void fx_init(fx *f, uint32_t n, const xlat_fbarre_config *tmpl, uint32_t l2_entries,
             uint32_t ats_delay);
/* The same package built by xlat_fbarre_mesh_create() (its ports never lose). */
void fx_init_mesh(fx *f, uint32_t n, uint32_t l2_entries, uint32_t ats_delay);
void fx_fini(fx *f);
/* Maps data object `d` LASP-style (round r, intra j on local frame
 * locals[r * gran + j]) with its group information, and registers it in
 * the IOMMU's PEC buffer. */
void fx_map_object(fx *f, const xlat_pec_entry *d, const uint64_t *locals);
/* Request `id` for page `vpn` from chiplet g's L2. */
void fx_send(fx *f, uint32_t g, uint64_t id, uint64_t vpn);
/* The same, advancing a cycle at a time while the L2 refuses. */
void fx_send_until_taken(fx *f, uint32_t g, uint64_t id, uint64_t vpn);
/* Advance to cycle `t`. */
void fx_run_to(fx *f, uint64_t t);
xlat_fbarre_stats fx_stats(const fx *f, uint32_t g);

#endif
