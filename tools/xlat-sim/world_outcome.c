/*
 * What resolved each answer, for --log-requests and the outcome counts:
 * every unit the system built is given a role (L1, L2, IOMMU TLB, ...) and
 * the GPU it belongs to, found by its handle (or, for the units the system
 * gives no handle of, by the name it gives them), so an answer's resolver
 * (xlat_resp::resolver) names the level that held the translation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"

/* The highest unit id of the context. */
static void max_id(void *user, uint32_t id, const char *kind, const char *name,
                   const char *counter, uint64_t value)
{
    (void)kind, (void)name, (void)counter, (void)value;
    uint32_t *m = user;
    if (id > *m)
        *m = id;
}

static void set_role(sim_world *w, const void *handle, sim_role role, uint32_t gpu)
{
    uint32_t id = xlat_unit_id(w->ctx, handle);
    if (handle && id && id < w->nroles)
        w->roles[id] = (sim_unit_role){role, gpu};
}

/* The GMMUs' walkers and the probing-ring stops have no handle the system
 * returns: they are known by the names the system gives them. */
static void role_by_name(sim_world *w, uint32_t id)
{
    const char *name = xlat_unit_name(w->ctx, id);
    unsigned gpu;
    int end = 0;
    if (!name || sscanf(name, "gpu%u.%n", &gpu, &end) != 1 || !end)
        return;
    if (strcmp(name + end, "gmmu.walker") == 0)
        w->roles[id] = (sim_unit_role){SIM_ROLE_GMMU_WALK, gpu};
    else if (strcmp(name + end, "ring") == 0)
        w->roles[id] = (sim_unit_role){SIM_ROLE_RING, gpu};
}

int sim_world_roles(sim_world *w, sim_error *err)
{
    uint32_t top = 0;
    xlat_stats_foreach(w->ctx, max_id, &top);
    w->nroles = top + 1;
    w->roles = calloc(w->nroles, sizeof(*w->roles));
    if (!w->roles)
        return sim_fail(err, "out of memory");
    for (uint32_t id = 1; id < w->nroles; id++)
        role_by_name(w, id);
    xlat_iommu *iommu = xlat_system_iommu(w->sys);
    set_role(w, iommu, SIM_ROLE_IOMMU_TLB, 0);
    set_role(w, xlat_iommu_walker(iommu), SIM_ROLE_IOMMU_WALK, 0);
    for (uint32_t g = 0; g < w->gpus; g++) {
        for (uint32_t c = 0; c < w->cfg.system.cus; c++)
            set_role(w, xlat_system_l1(w->sys, g, c), SIM_ROLE_L1, g);
        if (!w->cfg.system.shared_l2 || g == 0)
            set_role(w, xlat_system_l2(w->sys, g), SIM_ROLE_L2, g);
        set_role(w, xlat_system_gmmu(w->sys, g), SIM_ROLE_GMMU, g);
        set_role(w, xlat_system_link(w->sys, g), SIM_ROLE_LINK, g);
        set_role(w, xlat_system_fbarre(w->sys, g), SIM_ROLE_MCM, g);
    }
    return 0;
}

static bool pec_answered(const sim_world *w, uint64_t id)
{
    return id / 8 < w->pec_ids_len && (w->pec_ids[id / 8] >> (id % 8) & 1);
}

/* A failed answer names its status; an answer from another GPU's L2 (a
 * least-TLB remote hit or a probing-ring neighbour) names that GPU. */
const char *sim_world_outcome(const sim_world *w, const xlat_req *req, const xlat_resp *resp,
                              char *buf, size_t len)
{
    if (resp->status == XLAT_ERR_PERM)
        return "PERM";
    if (resp->status != XLAT_OK)
        return "FAULT";
    sim_unit_role r = resp->resolver < w->nroles ? w->roles[resp->resolver]
                                                 : (sim_unit_role){SIM_ROLE_NONE, 0};
    switch (r.role) {
    case SIM_ROLE_L1: return "L1";
    case SIM_ROLE_L2:
        if (r.gpu == req->gpu || w->cfg.system.shared_l2)
            return "L2";
        snprintf(buf, len, "REMOTE:%u", r.gpu);
        return buf;
    case SIM_ROLE_IOMMU_TLB: return "IOMMU_TLB";
    case SIM_ROLE_IOMMU_WALK: return pec_answered(w, req->id) ? "PEC" : "IOMMU_WALK";
    case SIM_ROLE_GMMU: return "GMMU";
    case SIM_ROLE_GMMU_WALK: return "GMMU_WALK";
    case SIM_ROLE_MCM:
        snprintf(buf, len, "MCM:%u", r.gpu);
        return buf;
    case SIM_ROLE_LINK: return "LINK";
    case SIM_ROLE_RING: return "RING";
    case SIM_ROLE_NONE: break;
    }
    return "UNKNOWN";
}
