/* The system builder: creates every unit of a multi-GPU translation system
 * from one configuration and wires them: L1 -> L2 -> (probing ring) -> link
 * -> IOMMU, with every L2 attached to the IOMMU for victims, probes and
 * spills. */
#include <stdio.h>

#include "system_internal.h"
#include "unit_target.h"

void xlat_system_config_init_sized(xlat_system_config *out, size_t size)
{
    xlat_system_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg)); /* every template NULL: the builder's defaults */
    cfg->struct_size = sizeof(*cfg);
    cfg->gpus = 4;
    cfg->cus = 64;
    xlat__config_out(out, size, &full, sizeof(full));
}

void xlat_system_l1_config_init_sized(xlat_tlb_config *out, size_t size)
{
    xlat_tlb_config full, *cfg = &full;
    xlat_tlb_config_init(cfg); /* least-TLB Table 2 */
    cfg->entries = 16;
    cfg->ways = 16;
    cfg->latency = 1;
    xlat__config_out(out, size, &full, sizeof(full));
}

void xlat_system_l2_config_init_sized(xlat_tlb_config *out, size_t size)
{
    xlat_tlb_config full, *cfg = &full;
    xlat_tlb_config_init(cfg); /* least-TLB Table 2 */
    cfg->entries = 512;
    cfg->ways = 16;
    cfg->latency = 10;
    cfg->mshrs = 16;
    cfg->ports = 4;
    xlat__config_out(out, size, &full, sizeof(full));
}

static xlat_tlb **l1_slot(const struct xlat_system *s, uint32_t gpu, uint32_t cu)
{
    return &s->l1[(size_t)gpu * s->cfg.cus + cu];
}

static int make_tlb(struct xlat_system *s, const xlat_tlb_config *tmpl, const char *name,
                    xlat_tlb **out)
{
    xlat_tlb_config c = *tmpl;
    c.name = name;
    int rc = xlat_tlb_create(s->ctx, &c, out);
    return rc == XLAT_OK ? rc : xlat__fail(s->ctx, rc, "system: %s: %s", name,
                                           xlat_ctx_errmsg(s->ctx));
}

/* GPU g's link to the IOMMU. The unit above it (L2, ring stop, GMMU or
 * F-Barre) makes it hold a record for everything it may send when it takes
 * the link as its next level (xlat__target_hold). */
static int make_link(struct xlat_system *s, uint32_t g)
{
    char name[32];
    snprintf(name, sizeof(name), "gpu%u.link", g);
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.name = name;
    lc.latency = lc.latency_back = s->cfg.gpu_iommu_latency;
    xlat_target to_iommu = XLAT_TARGET_INIT;
    int rc = xlat_iommu_get_target(s->iommu, &to_iommu);
    if (rc == XLAT_OK)
        rc = xlat_link_create(s->ctx, &lc, &s->link[g]);
    return rc == XLAT_OK ? xlat_link_set_next(s->link[g], &to_iommu) : rc;
}

/* GPU g's GMMU over its own walkers and local page table, in front of `below`. */
static int make_gmmu(struct xlat_system *s, uint32_t g, xlat_target *below)
{
    char name[32];
    if (!s->cfg.local_pt || !s->cfg.local_pt[g])
        return xlat__fail(s->ctx, XLAT_ERR_INVAL, "system: gmmu needs local_pt[%u]", g);
    xlat_walker_config w = s->tmpl.gmmu_walk;
    snprintf(name, sizeof(name), "gpu%u.gmmu.walker", g);
    w.name = name;
    w.pt = s->cfg.local_pt[g];
    if (w.clock_num == 0 && w.clock_den == 0) { /* the GMMU's walkers, at its clock */
        w.clock_num = s->tmpl.gmmu.clock_num;
        w.clock_den = s->tmpl.gmmu.clock_den;
    }
    int rc = xlat_walker_create(s->ctx, &w, &s->gmmu_walker[g]);
    xlat_gmmu_config c = s->tmpl.gmmu;
    snprintf(name, sizeof(name), "gpu%u.gmmu", g);
    c.name = name;
    c.gpu = g;
    c.walker = s->gmmu_walker[g];
    if (rc == XLAT_OK)
        rc = xlat_gmmu_create(s->ctx, &c, &s->gmmu[g]);
    if (rc == XLAT_OK)
        rc = xlat_gmmu_set_iommu(s->gmmu[g], below);
    if (rc == XLAT_OK)
        rc = xlat_gmmu_get_target(s->gmmu[g], below);
    return rc;
}

/* What GPU g's L2 misses go to: link, GMMU, ring stop, innermost first. */
static int build_below_l2(struct xlat_system *s, uint32_t g, xlat_target *below)
{
    int rc = make_link(s, g);
    if (rc == XLAT_OK)
        rc = xlat_link_get_target(s->link[g], below);
    if (rc == XLAT_OK && s->cfg.gmmu)
        rc = make_gmmu(s, g, below);
    if (rc == XLAT_OK && s->cfg.probe_ring) {
        xlat_target inner = *below;
        rc = xlat__ring_create(s, g, &inner, below);
    }
    return rc;
}

/* GPU g's L1s, each missing into `to_l2`. */
static int build_l1s(struct xlat_system *s, uint32_t g, const xlat_target *to_l2)
{
    char name[48];
    int rc = XLAT_OK;
    for (uint32_t c = 0; c < s->cfg.cus && rc == XLAT_OK; c++) {
        snprintf(name, sizeof(name), "gpu%u.cu%u.l1", g, c);
        rc = make_tlb(s, &s->tmpl.l1, name, l1_slot(s, g, c));
        if (rc == XLAT_OK)
            rc = xlat_tlb_set_next(*l1_slot(s, g, c), to_l2);
    }
    return rc;
}

/* GPU g's F-Barre unit in front of `below` (the L2's way down); `below`
 * becomes the unit. */
static int insert_fbarre(struct xlat_system *s, uint32_t g, xlat_target *below)
{
    xlat_fbarre *fb = xlat_fbarre_mesh_chiplet(s->fbarre, g);
    int rc = xlat_fbarre_set_next(fb, below);
    if (rc == XLAT_OK)
        rc = xlat_fbarre_attach_l2(fb, s->l2[g]);
    if (rc == XLAT_OK && s->cfg.fbarre_pec)
        rc = xlat_fbarre_set_pec_source(fb, xlat_fbarre_pec_from_buffer, s->cfg.fbarre_pec);
    return rc == XLAT_OK ? xlat_fbarre_get_target(fb, below) : rc;
}

/* One GPU: what lies below its L2, its L2, its L1s. With a shared L2 only
 * GPU 0 has an L2 (and a link); the others' L1s miss into it. */
static int build_gpu(struct xlat_system *s, uint32_t g)
{
    char name[48];
    xlat_target below = XLAT_TARGET_INIT;
    xlat_target to_l2 = XLAT_TARGET_INIT;
    if (s->cfg.shared_l2 && g > 0) {
        int rc = xlat_tlb_get_target(s->l2[0], &to_l2);
        return rc == XLAT_OK ? build_l1s(s, g, &to_l2) : rc;
    }
    int rc = build_below_l2(s, g, &below);
    if (s->cfg.shared_l2)
        snprintf(name, sizeof(name), "l2"); /* every GPU's */
    else
        snprintf(name, sizeof(name), "gpu%u.l2", g);
    if (rc == XLAT_OK)
        rc = make_tlb(s, &s->tmpl.l2, name, &s->l2[g]);
    if (rc == XLAT_OK && s->fbarre)
        rc = insert_fbarre(s, g, &below);
    if (rc == XLAT_OK)
        rc = xlat_tlb_set_next(s->l2[g], &below);
    if (rc == XLAT_OK)
        rc = xlat_iommu_attach_l2(s->iommu, g, s->l2[g]);
    if (rc == XLAT_OK)
        rc = xlat_tlb_get_target(s->l2[g], &to_l2);
    return rc == XLAT_OK ? build_l1s(s, g, &to_l2) : rc;
}

static const struct xlat__reg_ops reg_ops;

/* What the system keeps per GPU, for the GPUs it is configured with;
 * allocated before any unit is made. */
static int alloc_gpus(struct xlat_system *s)
{
    uint32_t n = s->cfg.gpus;
    s->l1 = xlat__calloc(s->ctx, (size_t)n * s->cfg.cus, sizeof(*s->l1));
    s->l2 = xlat__calloc(s->ctx, n, sizeof(*s->l2));
    s->link = xlat__calloc(s->ctx, n, sizeof(*s->link));
    s->ring = xlat__calloc(s->ctx, n, sizeof(*s->ring));
    s->gmmu_walker = xlat__calloc(s->ctx, n, sizeof(*s->gmmu_walker));
    s->gmmu = xlat__calloc(s->ctx, n, sizeof(*s->gmmu));
    if (s->l1 && s->l2 && s->link && s->ring && s->gmmu_walker && s->gmmu)
        return XLAT_OK;
    return xlat__fail(s->ctx, XLAT_ERR_NOMEM, "system: out of memory");
}

static bool have_gpus(const struct xlat_system *s)
{
    return s->l1 && s->l2 && s->link && s->ring && s->gmmu_walker && s->gmmu;
}

static void free_gpus(struct xlat_system *s)
{
    uint32_t n = s->cfg.gpus;
    xlat__free(s->ctx, s->l1, (size_t)n * s->cfg.cus * sizeof(*s->l1));
    xlat__free(s->ctx, s->l2, n * sizeof(*s->l2));
    xlat__free(s->ctx, s->link, n * sizeof(*s->link));
    xlat__free(s->ctx, s->ring, n * sizeof(*s->ring));
    xlat__free(s->ctx, s->gmmu_walker, n * sizeof(*s->gmmu_walker));
    xlat__free(s->ctx, s->gmmu, n * sizeof(*s->gmmu));
}

static void system_free(struct xlat_system *s)
{
    xlat__reg_remove(s->ctx, &s->reg);
    xlat_iommu_destroy(s->iommu); /* first: it gives the L2s their callbacks back */
    /* Newest first, as they were made: a unit lets go of the one it missed
     * into, which the registry then finds near its newest end, and the L1s
     * of every GPU sharing GPU 0's L2 go before it. */
    for (uint32_t g = s->cfg.gpus; have_gpus(s) && g-- > 0;) {
        for (uint32_t c = s->cfg.cus; c-- > 0;)
            xlat_tlb_destroy(*l1_slot(s, g, c));
        xlat_tlb_destroy(s->l2[g]);
        xlat__ring_destroy(s, g);
        xlat_gmmu_destroy(s->gmmu[g]);
        xlat_walker_destroy(s->gmmu_walker[g]);
        xlat_link_destroy(s->link[g]);
    }
    xlat_fbarre_mesh_destroy(s->fbarre); /* after the L2s, which missed into it */
    xlat__release_id(s->ctx, s->held_pec);
    free_gpus(s);
    xlat__free(s->ctx, s, sizeof(*s));
}

/* Whether `r` is a unit the system built, or one such a unit built (the
 * IOMMU's TLB and walkers, the mesh's chiplets and links). */
static bool built_by(const struct xlat__reg *r, const struct xlat_system *s)
{
    for (const struct xlat__reg *o = r->owner; o; o = o->owner)
        if (o == &s->reg)
            return true;
    return false;
}

/* Holds on the units the system built. Only the system's own wiring makes
 * them at create; any beyond are a host's units given one of them as
 * their next level (xlat_system_iommu(), xlat_system_link() ... through
 * their get_target). */
static uint64_t holds_on_built(const struct xlat_system *s)
{
    uint64_t n = 0;
    for (const struct xlat__reg *r = s->ctx->reg_head; r; r = r->next)
        if (built_by(r, s))
            n += r->held;
    return n;
}

static int check_config(xlat_ctx *ctx, const xlat_system_config *c)
{
    if (c->gpus == 0 || c->gpus > SYSTEM_MAX_GPUS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "system: gpus must be 1..%d, not %u",
                          SYSTEM_MAX_GPUS, c->gpus);
    if (c->cus == 0 || c->cus > SYSTEM_MAX_CUS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "system: cus must be 1..%d, not %u",
                          SYSTEM_MAX_CUS, c->cus);
    if (!c->iommu)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "system: cfg.iommu is NULL (the IOMMU's template, with walk->pt,"
                          " is required)");
    if (c->shared_l2 && (c->probe_ring || c->gmmu || c->fbarre))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "system: a shared L2 (shared_l2) leaves no per-GPU L2 for %s",
                          c->probe_ring ? "the probing ring"
                          : c->gmmu     ? "a GMMU to sit below"
                                        : "F-Barre to sit below");
    if (c->fbarre && (c->gpus < 2 || c->gpus > XLAT_FBARRE_MAX_CHIPLETS))
        return xlat__fail(ctx, XLAT_ERR_INVAL, "system: F-Barre needs 2..%d chiplets, not %u",
                          XLAT_FBARRE_MAX_CHIPLETS, c->gpus);
    return XLAT_OK;
}

/* F-Barre computes frames from the PEC buffer's objects: in their layout. */
static int check_fbarre_layout(const struct xlat_system *s)
{
    if (s->cfg.fbarre && s->cfg.fbarre_pec &&
        (s->tmpl.fbarre.expanded != 0) != xlat_pec_buffer_expanded(s->cfg.fbarre_pec))
        return xlat__fail(s->ctx, XLAT_ERR_INVAL,
                          "system: the F-Barre template's layout (expanded %u) is not its PEC"
                          " buffer's", s->tmpl.fbarre.expanded);
    return XLAT_OK;
}

/* Once the templates are the system's: a least-TLB IOMMU tracks each GPU's
 * own L2, which a shared L2 does away with. */
static int check_shared_l2(const struct xlat_system *s)
{
    if (s->cfg.shared_l2 && s->tmpl.iommu.inclusion == XLAT_INCL_LEAST)
        return xlat__fail(s->ctx, XLAT_ERR_INVAL,
                          "system: a shared L2 leaves no per-GPU L2 for least-TLB to track");
    return XLAT_OK;
}

/* Copies template `src` over the defaults already in `dst`, honouring its
 * struct_size; a NULL template keeps the defaults. */
static int take_template(xlat_ctx *ctx, void *dst, size_t dst_size, const void *src,
                         size_t min_size, const char *what)
{
    if (!src)
        return XLAT_OK;
    int rc = xlat__config_copy(ctx, dst, dst_size, src, min_size, what);
    uint32_t full = (uint32_t)dst_size; /* the tail beyond the template holds defaults */
    memcpy(dst, &full, sizeof(full));
    return rc;
}

/* The system's own copy of every template the caller pointed to, so that
 * they may go away once create returns; cfg's pointers then lead here. */
static int take_templates(xlat_ctx *ctx, xlat_system_config *c, struct system_templates *t)
{
    xlat_system_l1_config_init(&t->l1);
    xlat_system_l2_config_init(&t->l2);
    xlat_iommu_config_init(&t->iommu);
    xlat_walker_config_init(&t->gmmu_walk);
    xlat_gmmu_config_init(&t->gmmu);
    xlat_fbarre_config_init(&t->fbarre);
    /* Each template is held to its own create's pinned size. */
    int rc = take_template(ctx, &t->l1, sizeof(t->l1), c->l1, XLAT_TLB_CONFIG_SIZE_V0,
                           "xlat_system_config.l1");
    if (rc == XLAT_OK)
        rc = take_template(ctx, &t->l2, sizeof(t->l2), c->l2, XLAT_TLB_CONFIG_SIZE_V0,
                           "xlat_system_config.l2");
    if (rc == XLAT_OK)
        rc = take_template(ctx, &t->iommu, sizeof(t->iommu), c->iommu, XLAT_IOMMU_CONFIG_SIZE_V0,
                           "xlat_system_config.iommu");
    /* iommu.walk stays the caller's: the IOMMU's create copies it, held to
     * its own pinned size (and says so when it is NULL). */
    if (rc == XLAT_OK)
        rc = take_template(ctx, &t->gmmu_walk, sizeof(t->gmmu_walk), c->gmmu_walk,
                           XLAT_WALKER_CONFIG_SIZE_V0, "xlat_system_config.gmmu_walk");
    if (rc == XLAT_OK)
        rc = take_template(ctx, &t->gmmu, sizeof(t->gmmu), c->gmmu_cfg, XLAT_GMMU_CONFIG_SIZE_V0,
                           "xlat_system_config.gmmu_cfg");
    if (rc == XLAT_OK)
        rc = take_template(ctx, &t->fbarre, sizeof(t->fbarre), c->fbarre,
                           XLAT_FBARRE_CONFIG_SIZE_V0, "xlat_system_config.fbarre");
    c->l1 = &t->l1;
    c->l2 = &t->l2;
    c->iommu = &t->iommu;
    c->gmmu_walk = &t->gmmu_walk;
    c->gmmu_cfg = &t->gmmu;
    if (c->fbarre)
        c->fbarre = &t->fbarre;
    return rc;
}

/* Every chiplet's F-Barre unit, meshed; each is wired in build_gpu(). */
static int make_fbarre_mesh(struct xlat_system *s)
{
    xlat_fbarre_mesh_config mc;
    xlat_fbarre_mesh_config_init(&mc);
    mc.name = "fbarre";
    mc.link_latency = s->cfg.chiplet_latency ? s->cfg.chiplet_latency : 32;
    mc.chiplets = s->cfg.gpus;
    mc.chiplet = &s->tmpl.fbarre;
    return xlat_fbarre_mesh_create(s->ctx, &mc, &s->fbarre);
}

static int build(struct xlat_system *s)
{
    if (alloc_gpus(s) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    xlat_iommu_config ic = s->tmpl.iommu;
    ic.gpus = s->cfg.gpus;
    int rc = xlat_iommu_create(s->ctx, &ic, &s->iommu);
    s->tmpl.iommu.walk = NULL; /* the IOMMU holds its copy; the caller's may go */
    if (rc == XLAT_OK && s->cfg.fbarre)
        rc = make_fbarre_mesh(s);
    for (uint32_t g = 0; g < s->cfg.gpus && rc == XLAT_OK; g++)
        rc = build_gpu(s, g);
    return rc;
}

int xlat_system_create(xlat_ctx *ctx, const xlat_system_config *cfg, xlat_system **out)
{
    xlat_system_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_system_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_system_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_SYSTEM_CONFIG_SIZE_V0, "xlat_system_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    struct xlat_system *s = xlat__alloc(ctx, sizeof(*s));
    if (!s)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_system_create: out of memory");
    s->ctx = ctx;
    s->cfg = c;
    rc = take_templates(ctx, &s->cfg, &s->tmpl);
    if (rc == XLAT_OK)
        rc = check_shared_l2(s);
    if (rc == XLAT_OK)
        rc = check_fbarre_layout(s);
    const struct xlat__reg *outer = xlat__reg_adopt(ctx, &s->reg); /* everything it builds */
    if (rc == XLAT_OK)
        rc = build(s);
    xlat__reg_restore(ctx, outer);
    if (rc != XLAT_OK) {
        system_free(s);
        return rc;
    }
    if (s->fbarre) /* its chiplets were given the buffer as their PEC source */
        s->held_pec = xlat__hold_handle(ctx, s->cfg.fbarre_pec);
    s->inner_holds = holds_on_built(s);
    xlat__reg_add(ctx, &s->reg, &reg_ops, s, NULL, 0);
    *out = s;
    return XLAT_OK;
}

int xlat_system_destroy(xlat_system *s)
{
    if (!s)
        return XLAT_OK;
    uint64_t holds = holds_on_built(s);
    if (holds > s->inner_holds)
        return xlat__fail(s->ctx, XLAT_ERR_BUSY,
                          "system %s: its units are still the next level of %llu unit(s)"
                          " outside it; set their next level elsewhere (or NULL) or destroy"
                          " them first", s->reg.name,
                          (unsigned long long)(holds - s->inner_holds));
    system_free(s);
    return XLAT_OK;
}

int xlat_system_translate(xlat_system *s, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!s || !req || !done)
        return xlat__fail(s ? s->ctx : NULL, XLAT_ERR_INVAL, "xlat_system_translate: NULL %s",
                          !s ? "sys" : !req ? "req" : "done");
    if (req->gpu >= s->cfg.gpus || req->cu >= s->cfg.cus)
        return xlat__fail(s->ctx, XLAT_ERR_INVAL,
                          "xlat_system_translate: GPU or CU out of range (gpu %u of %u, cu %u of %u)",
                          req->gpu, s->cfg.gpus, req->cu, s->cfg.cus);
    int rc = xlat_tlb_translate(*l1_slot(s, req->gpu, req->cu), req, done, user);
    if (rc == XLAT_OK)
        s->st.requests++;
    else if (rc == XLAT_ERR_AGAIN)
        s->st.refusals++;
    return rc;
}

int xlat_system_invalidate(xlat_system *s, uint32_t pasid, uint64_t vaddr)
{
    if (!s)
        return XLAT_ERR_INVAL;
    int removed = 0;
    for (size_t i = 0; i < (size_t)s->cfg.gpus * s->cfg.cus; i++)
        removed += xlat_tlb_invalidate(s->l1[i], pasid, vaddr);
    return removed + xlat_iommu_invalidate(s->iommu, pasid, vaddr);
}

/* GPU `gpu`'s L1s and L2, which the caller has checked exists. */
static int flush_gpu(struct xlat_system *s, uint32_t gpu)
{
    int removed = 0;
    for (uint32_t c = 0; c < s->cfg.cus; c++)
        removed += xlat_tlb_flush(*l1_slot(s, gpu, c));
    return removed + xlat_tlb_flush(xlat_system_l2(s, gpu));
}

int xlat_system_flush_gpu(xlat_system *s, uint32_t gpu)
{
    if (!s || gpu >= s->cfg.gpus)
        return xlat__fail(s ? s->ctx : NULL, XLAT_ERR_INVAL, "xlat_system_flush_gpu: %s",
                          s ? "gpu out of range" : "NULL system");
    return flush_gpu(s, gpu);
}

int xlat_system_flush(xlat_system *s)
{
    if (!s)
        return XLAT_ERR_INVAL;
    int removed = 0;
    for (uint32_t g = 0; g < s->cfg.gpus; g++)
        removed += flush_gpu(s, g);
    if (s->fbarre) /* a shootdown resets every filter and PEC buffer (§V-A) */
        xlat_fbarre_mesh_shootdown(s->fbarre);
    return removed + xlat_iommu_flush(s->iommu);
}

/* F-Barre's filters hold what the L2s hold: an L2 entry a shootdown takes
 * leaves them too, with the group it had, before the entry is gone. */
static void forget_in_filters(struct xlat_system *s, uint32_t pasid, uint64_t vpn)
{
    for (uint32_t g = 0; s->fbarre && g < s->cfg.gpus; g++) {
        xlat_tlb_entry e;
        if (xlat_tlb_probe(s->l2[g], pasid, vpn << 12, &e) == XLAT_OK)
            xlat_fbarre_l2_removed(xlat_fbarre_mesh_chiplet(s->fbarre, g), &e);
    }
}

int xlat_system_barre_migrate(xlat_system *s, xlat_barre_alloc *alloc, const xlat_pec_entry *d,
                              uint64_t vpn, uint32_t to, xlat_barre_migration *out)
{
    if (!s)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_system_barre_migrate: NULL system");
    if (!alloc || !d)
        return xlat__fail(s->ctx, XLAT_ERR_INVAL, "xlat_system_barre_migrate: NULL %s",
                          !alloc ? "alloc" : "d");
    xlat_barre_migration mig;
    int rc = xlat_barre_alloc_migrate(alloc, d, vpn, to, &mig);
    if (rc != XLAT_OK)
        return rc;
    int removed = 0;
    for (uint32_t i = 0; i < mig.count; i++) {
        forget_in_filters(s, d->pasid, mig.vpn[i]);
        removed += xlat_system_invalidate(s, d->pasid, mig.vpn[i] << 12);
    }
    if (out)
        *out = mig;
    return removed;
}

xlat_tlb *xlat_system_l1(const xlat_system *s, uint32_t gpu, uint32_t cu)
{
    return s && gpu < s->cfg.gpus && cu < s->cfg.cus ? *l1_slot(s, gpu, cu) : NULL;
}

xlat_tlb *xlat_system_l2(const xlat_system *s, uint32_t gpu)
{
    return s && gpu < s->cfg.gpus ? s->l2[s->cfg.shared_l2 ? 0 : gpu] : NULL;
}

xlat_fbarre *xlat_system_fbarre(const xlat_system *s, uint32_t gpu)
{
    return s && s->fbarre ? xlat_fbarre_mesh_chiplet(s->fbarre, gpu) : NULL;
}

xlat_gmmu *xlat_system_gmmu(const xlat_system *s, uint32_t gpu)
{
    return s && gpu < s->cfg.gpus ? s->gmmu[gpu] : NULL;
}

xlat_link *xlat_system_link(const xlat_system *s, uint32_t gpu)
{
    return s && gpu < s->cfg.gpus ? s->link[gpu] : NULL;
}

xlat_iommu *xlat_system_iommu(const xlat_system *s) { return s ? s->iommu : NULL; }

uint32_t xlat_system_gpus(const xlat_system *s) { return s ? s->cfg.gpus : 0; }

size_t xlat_system_gpu_memory(const xlat_system *s, uint32_t gpu)
{
    if (!s || gpu >= s->cfg.gpus)
        return 0;
    size_t bytes = s->l2[gpu] ? xlat_tlb_memory(s->l2[gpu]) : 0; /* a shared L2 is GPU 0's */
    for (uint32_t c = 0; c < s->cfg.cus; c++)
        bytes += xlat_tlb_memory(*l1_slot(s, gpu, c));
    return bytes;
}

void xlat_system_stats_get(const xlat_system *s, xlat_system_stats *out, size_t out_size)
{
    xlat__copy_out(out, out_size, s ? &s->st : NULL, sizeof(s->st));
}

void xlat_system_stats_reset(xlat_system *s)
{
    if (!s)
        return;
    memset(&s->st, 0, sizeof(s->st));
    for (uint32_t g = 0; g < s->cfg.gpus; g++)
        if (s->ring[g])
            xlat__unit_latency_reset(&s->ring[g]->unit);
}

/* The system's own answers are its probing-ring stops' (probe hits, and
 * requests the unit below refused for good): their histograms, summed. */
static void ring_latency(const struct xlat_system *s, xlat_latency_hist *out)
{
    memset(out, 0, sizeof(*out));
    for (uint32_t g = 0; g < s->cfg.gpus; g++)
        for (uint32_t b = 0; s->ring[g] && b < XLAT_LATENCY_BUCKETS; b++)
            out->bucket[b] += s->ring[g]->unit.latency.bucket[b];
}

/* Counters by name (doc/statistics.md): one line per member of xlat_system_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_system_stats, requests),
    XLAT__COUNTER(xlat_system_stats, refusals),
    XLAT__COUNTER(xlat_system_stats, probes),
    XLAT__COUNTER(xlat_system_stats, probe_hits),
};

static void stats_foreach(const void *s, const struct xlat__stats_sink *sink)
{
    xlat_system_stats st;
    xlat_system_stats_get(s, &st, sizeof(st));
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &st);
}

static void stats_reset(void *s) { xlat_system_stats_reset(s); }

/* The context's teardown takes every unit, those that hold the system's
 * too (registry.c forgets the holds on a unit it destroys; these are
 * the holds on the units the system built). */
static void destroy(void *handle)
{
    struct xlat_system *s = handle;
    for (struct xlat__reg *r = s->ctx->reg_head; r; r = r->next)
        if (built_by(r, s))
            r->held = 0;
    system_free(s);
}

static void latency(const void *s, xlat_latency_hist *out) { ring_latency(s, out); }

static const struct xlat__reg_ops reg_ops = {"system", stats_foreach, stats_reset, destroy,
                                             latency, NULL};
