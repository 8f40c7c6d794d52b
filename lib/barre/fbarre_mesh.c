/*
 * A small builder: N chiplets' F-Barre units and a link from each to each
 * other, peers connected both ways (requests over the links, filter-update
 * messages to xlat_fbarre_receive()). It owns what it builds and has no
 * events of its own; the MCM system builder will use it.
 */
#include <stdio.h>

#include "fbarre_unit.h"

struct xlat_fbarre_mesh {
    xlat_ctx *ctx;
    char *name;
    uint32_t chiplets;
    xlat_fbarre *fb[XLAT_FBARRE_MAX_CHIPLETS];
    xlat_link *link[XLAT_FBARRE_MAX_CHIPLETS][XLAT_FBARRE_MAX_CHIPLETS]; /* [from][to] */
    struct xlat__reg reg;
};

static const struct xlat__reg_ops reg_ops;

void xlat_fbarre_mesh_config_init_sized(xlat_fbarre_mesh_config *out, size_t size)
{
    xlat_fbarre_mesh_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "fbarre";
    cfg->link_latency = 32; /* Table II: inter-chip network */
    cfg->chiplets = 4;
    xlat__config_out(out, size, &full, sizeof(full));
}

static void mesh_free(struct xlat_fbarre_mesh *m)
{
    xlat__reg_remove(m->ctx, &m->reg);
    for (uint32_t i = 0; i < XLAT_FBARRE_MAX_CHIPLETS; i++)
        for (uint32_t j = 0; j < XLAT_FBARRE_MAX_CHIPLETS; j++)
            (void)xlat_link_destroy(m->link[i][j]);
    for (uint32_t i = 0; i < XLAT_FBARRE_MAX_CHIPLETS; i++)
        (void)xlat_fbarre_destroy(m->fb[i]);
    xlat__strfree(m->ctx, m->name);
    xlat__free(m->ctx, m, sizeof(*m));
}

/* The link from chiplet i to chiplet j, and i's peer j over it. The link
 * holds a record for each request i may have in flight: i asks its peers
 * from inside tick, where nothing may fail for want of memory. */
static int connect(struct xlat_fbarre_mesh *m, uint32_t i, uint32_t j, uint32_t latency)
{
    char name[96];
    snprintf(name, sizeof(name), "%s%u-%u", m->name, i, j);
    xlat_link_config lc;
    xlat_link_config_init(&lc);
    lc.name = name;
    lc.latency = lc.latency_back = latency;
    xlat_target far = XLAT_TARGET_INIT, near = XLAT_TARGET_INIT;
    int rc = xlat_link_create(m->ctx, &lc, &m->link[i][j]);
    if (rc == XLAT_OK)
        rc = xlat_fbarre_get_peer_target(m->fb[j], &far);
    if (rc == XLAT_OK)
        rc = xlat_link_set_next(m->link[i][j], &far);
    if (rc == XLAT_OK)
        rc = xlat_link_get_target(m->link[i][j], &near);
    if (rc == XLAT_OK)
        rc = xlat_fbarre_set_peer(m->fb[i], j, &near, xlat_fbarre_receive, m->fb[j]);
    return rc;
}

static int build(struct xlat_fbarre_mesh *m, const xlat_fbarre_mesh_config *c,
                 const xlat_fbarre_config *unit)
{
    int rc = XLAT_OK;
    for (uint32_t g = 0; g < m->chiplets && rc == XLAT_OK; g++) {
        char name[80];
        snprintf(name, sizeof(name), "%s%u", m->name, g);
        xlat_fbarre_config fc = *unit;
        fc.chiplets = m->chiplets;
        fc.name = name;
        fc.chiplet = g;
        rc = xlat_fbarre_create(m->ctx, &fc, &m->fb[g]);
    }
    for (uint32_t i = 0; i < m->chiplets && rc == XLAT_OK; i++)
        for (uint32_t j = 0; j < m->chiplets && rc == XLAT_OK; j++)
            if (i != j)
                rc = connect(m, i, j, c->link_latency);
    return rc;
}

int xlat_fbarre_mesh_create(xlat_ctx *ctx, const xlat_fbarre_mesh_config *cfg,
                            xlat_fbarre_mesh **out)
{
    xlat_fbarre_mesh_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_fbarre_mesh_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_fbarre_mesh_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_FBARRE_MESH_CONFIG_SIZE_V0,
                               "xlat_fbarre_mesh_config");
    xlat_fbarre_config unit;
    xlat_fbarre_config_init(&unit);
    if (rc == XLAT_OK && c.chiplet) /* an older host's template keeps the defaults it lacks */
        rc = xlat__config_copy(ctx, &unit, sizeof(unit), c.chiplet, XLAT_FBARRE_CONFIG_SIZE_V0,
                               "xlat_fbarre_mesh_config.chiplet");
    if (rc != XLAT_OK)
        return rc;
    if (c.chiplets < 2 || c.chiplets > XLAT_FBARRE_MAX_CHIPLETS)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_fbarre_mesh_create: chiplets %u is outside 2..8",
                          c.chiplets);
    struct xlat_fbarre_mesh *m = xlat__alloc(ctx, sizeof(*m));
    if (!m)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_fbarre_mesh_create: out of memory");
    m->ctx = ctx;
    m->chiplets = c.chiplets;
    m->name = xlat__strdup(ctx, c.name ? c.name : "fbarre");
    const struct xlat__reg *outer = xlat__reg_adopt(ctx, &m->reg); /* everything it builds */
    rc = m->name ? build(m, &c, &unit) : XLAT_ERR_NOMEM;
    xlat__reg_restore(ctx, outer);
    if (rc != XLAT_OK) {
        mesh_free(m);
        return rc == XLAT_ERR_NOMEM
                   ? xlat__fail(ctx, rc, "xlat_fbarre_mesh_create: out of memory for mesh %s",
                                c.name ? c.name : "fbarre")
                   : rc;
    }
    xlat__reg_add(ctx, &m->reg, &reg_ops, m, m->name, 0);
    *out = m;
    return XLAT_OK;
}

int xlat_fbarre_mesh_destroy(xlat_fbarre_mesh *m)
{
    if (!m)
        return XLAT_OK;
    /* Each unit is the next level of its peers' links; anything beyond
     * them (an L2) still sends to it. */
    for (uint32_t g = 0; g < m->chiplets; g++)
        if (m->fb[g]->reg.held > m->chiplets - 1)
            return xlat__fail(m->ctx, XLAT_ERR_BUSY,
                              "fbarre mesh %s: chiplet %u is still the next level of a unit"
                              " outside the mesh; set its next level elsewhere first",
                              m->name, g);
    mesh_free(m);
    return XLAT_OK;
}

xlat_fbarre *xlat_fbarre_mesh_chiplet(const xlat_fbarre_mesh *m, uint32_t g)
{
    return m && g < m->chiplets ? m->fb[g] : NULL;
}

int xlat_fbarre_mesh_shootdown(xlat_fbarre_mesh *m)
{
    if (!m)
        return xlat__fail(NULL, XLAT_ERR_INVAL, "xlat_fbarre_mesh_shootdown: NULL mesh");
    for (uint32_t g = 0; g < m->chiplets; g++)
        (void)xlat_fbarre_shootdown(m->fb[g]);
    return XLAT_OK;
}

/* The context's teardown takes every unit, the L2s that hold ours too. */
static void destroy(void *m) { mesh_free(m); }

static const struct xlat__reg_ops reg_ops = {"fbarre_mesh", NULL, NULL, destroy, NULL, NULL};
