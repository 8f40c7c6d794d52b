/*
 * The simulated world of one run: the context, physical memory, page
 * tables, the Barre allocator and PEC buffer, and the system, built from a
 * sim_config; pages mapped on first touch; every answer named by what
 * resolved it (the outcome of --log-requests).
 */
#ifndef XLAT_SIM_WORLD_H
#define XLAT_SIM_WORLD_H

#include "sim.h"

/* What resolved a request, from the answering unit (xlat_resp::resolver). */
typedef enum sim_role {
    SIM_ROLE_NONE = 0,
    SIM_ROLE_L1,
    SIM_ROLE_L2,
    SIM_ROLE_IOMMU_TLB,
    SIM_ROLE_IOMMU_WALK,
    SIM_ROLE_GMMU,
    SIM_ROLE_GMMU_WALK,
    SIM_ROLE_MCM,
    SIM_ROLE_LINK,
    SIM_ROLE_RING
} sim_role;

typedef struct sim_unit_role {
    sim_role role;
    uint32_t gpu;
} sim_unit_role;

/* The pages mapped so far, by (pasid, chunk of map_chunk_pages pages). */
typedef struct sim_chunk_set {
    uint64_t *keys;             /* 0: empty slot */
    size_t cap, used;
} sim_chunk_set;

typedef struct sim_world {
    sim_config cfg;             /* the run's configuration, pointers set */
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pagetable *local_pt[64]; /* GMMU: each GPU's local page table */
    xlat_pwc *pwc;
    xlat_barre_alloc *alloc;
    xlat_pec_buffer *pec;
    xlat_system *sys;
    xlat_region_config region[XLAT_PHYSMEM_MAX_REGIONS];
    uint64_t base_pfn[64];      /* GPU g's first frame */
    uint32_t gpus;
    sim_chunk_set mapped;
    sim_unit_role *roles;       /* by unit id */
    uint32_t nroles;
    uint8_t *pec_ids;           /* functional mode: ids the PEC logic answered, by id bit */
    uint64_t pec_ids_len;       /* bytes of pec_ids */
    uint64_t pages_mapped;
} sim_world;

/* Builds everything `cfg` describes; -1 with err naming the unit and the
 * library's message. On failure nothing is left to destroy. */
int sim_world_build(sim_world *w, const sim_config *cfg, sim_error *err);
void sim_world_destroy(sim_world *w);

/* Maps a source's declared allocations (objects) before the run. */
int sim_world_map_objects(sim_world *w, const sim_object *o, size_t n, sim_error *err);
/* Maps the chunk `r` touches when it is not yet mapped. */
int sim_world_touch(sim_world *w, const sim_request *r, sim_error *err);

/* Names every unit of the system by its role (world_outcome.c). */
int sim_world_roles(sim_world *w, sim_error *err);

/* The outcome name of an answer to `req` (L1, L2, REMOTE:<gpu>, ...). */
const char *sim_world_outcome(const sim_world *w, const xlat_req *req, const xlat_resp *resp,
                              char *buf, size_t len);

#endif /* XLAT_SIM_WORLD_H */
