/*
 * Barre Chord's group allocator: its configuration, creation and counters
 * (the allocation itself is group_alloc_map.c, its search
 * group_alloc_plan.c, migration group_alloc_migrate.c).
 */
#include "group_alloc_internal.h"
#include "unit_target.h"

static const struct xlat__reg_ops reg_ops;

void xlat_barre_alloc_config_init_sized(xlat_barre_alloc_config *out, size_t size)
{
    xlat_barre_alloc_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    cfg->name = "barre_alloc";
    cfg->chiplets = 4;
    cfg->max_merge = 2; /* "Merged Coalescing group: 2 by default" (Table II) */
    xlat__config_out(out, size, &full, sizeof(full));
}

void xlat_barre_object_init_sized(xlat_barre_object *out, size_t size)
{
    xlat_barre_object full, *o = &full;
    memset(o, 0, sizeof(*o));
    o->struct_size = sizeof(*o);
    o->placement = XLAT_BARRE_LASP;
    o->interlv_gran = 1;
    o->perm = XLAT_PERM_R | XLAT_PERM_W;
    xlat__config_out(out, size, &full, sizeof(full));
}

static bool in_region(const xlat_physmem *mem, uint64_t pfn, uint32_t region)
{
    uint32_t r;
    return xlat_physmem_region_of(mem, pfn, &r) == XLAT_OK && r == region;
}

/* Frames of the region that starts at `base`: regions are contiguous, so
 * the last frame still inside is found by bisection. */
static uint64_t region_frames(const xlat_physmem *mem, uint64_t base, uint32_t region)
{
    uint64_t lo = 1, hi = (UINT64_C(1) << 40) - base; /* inside at lo - 1, outside at hi */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (in_region(mem, base + mid, region))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Chiplet g's region must start at base_pfn[g], one region per chiplet. */
static int find_chiplets(xlat_ctx *ctx, const xlat_barre_alloc_config *c, xlat_barre_alloc *a)
{
    for (uint32_t g = 0; g < c->chiplets; g++) {
        uint64_t base = c->base_pfn[g];
        uint32_t r;
        if (xlat_physmem_region_of(c->mem, base, &r) != XLAT_OK ||
            (base > 0 && in_region(c->mem, base - 1, r)))
            return xlat__fail(ctx, XLAT_ERR_INVAL,
                              "barre_alloc: base_pfn[%u] 0x%llx is not the first frame of a region",
                              g, (unsigned long long)base);
        for (uint32_t h = 0; h < g; h++)
            if (a->region[h] == r)
                return xlat__fail(ctx, XLAT_ERR_INVAL,
                                  "barre_alloc: chiplets %u and %u are both region %u", h, g, r);
        a->region[g] = r;
        a->base[g] = base;
        a->frames[g] = region_frames(c->mem, base, r);
    }
    return XLAT_OK;
}

static int check_config(xlat_ctx *ctx, const xlat_barre_alloc_config *c)
{
    if (!c->mem || !c->pt)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "barre_alloc: NULL %s (required)",
                          !c->mem ? "mem" : "pt");
    if (c->max_merge < 1 || c->max_merge > XLAT_BARRE_MAX_MERGE)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "barre_alloc: max_merge %u is outside 1..%d",
                          c->max_merge, XLAT_BARRE_MAX_MERGE);
    uint32_t most = c->max_merge > 1 ? 4 : XLAT_BARRE_MAX_CHIPLETS;
    if (c->chiplets < 1 || c->chiplets > most)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "barre_alloc: %u chiplets is outside 1..%u (the expanded PTE layout of"
                          " max_merge %u holds 4)",
                          c->chiplets, most, c->max_merge);
    return XLAT_OK;
}

static void alloc_free(xlat_barre_alloc *a)
{
    xlat__reg_remove(a->ctx, &a->reg);
    xlat__release_id(a->ctx, a->held_mem);
    xlat__release_id(a->ctx, a->held_pt);
    xlat__strfree(a->ctx, a->name);
    xlat__free(a->ctx, a, sizeof(*a));
}

int xlat_barre_alloc_create(xlat_ctx *ctx, const xlat_barre_alloc_config *cfg,
                            xlat_barre_alloc **out)
{
    xlat_barre_alloc_config c;
    if (!ctx || !cfg || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_barre_alloc_create: NULL %s",
                          !ctx ? "ctx" : !cfg ? "cfg" : "out");
    xlat_barre_alloc_config_init(&c);
    int rc = xlat__config_copy(ctx, &c, sizeof(c), cfg, XLAT_BARRE_ALLOC_CONFIG_SIZE_V0,
                               "xlat_barre_alloc_config");
    if (rc == XLAT_OK)
        rc = check_config(ctx, &c);
    if (rc != XLAT_OK)
        return rc;
    xlat_barre_alloc *a = xlat__alloc(ctx, sizeof(*a));
    if (!a)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_barre_alloc_create: out of memory");
    a->ctx = ctx;
    rc = find_chiplets(ctx, &c, a);
    a->name = rc == XLAT_OK ? xlat__strdup(ctx, c.name ? c.name : "barre_alloc") : NULL;
    if (rc == XLAT_OK && !a->name)
        rc = xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_barre_alloc_create: out of memory");
    if (rc != XLAT_OK) {
        alloc_free(a);
        return rc;
    }
    a->mem = c.mem;
    a->pt = c.pt;
    a->chiplets = c.chiplets;
    a->max_merge = c.max_merge;
    a->expanded = c.max_merge > 1;
    a->whole_object_fallback = c.whole_object_fallback;
    xlat__reg_add(ctx, &a->reg, &reg_ops, a, a->name, 0);
    a->held_mem = xlat__hold_handle(ctx, c.mem);
    a->held_pt = xlat__hold_handle(ctx, c.pt);
    *out = a;
    return XLAT_OK;
}

int xlat_barre_alloc_destroy(xlat_barre_alloc *a)
{
    if (a)
        alloc_free(a);
    return XLAT_OK;
}

bool xlat_barre_alloc_expanded(const xlat_barre_alloc *a) { return a && a->expanded; }

void xlat_barre_alloc_stats_get(const xlat_barre_alloc *a, xlat_barre_alloc_stats *out,
                                size_t out_size)
{
    xlat__copy_out(out, out_size, a ? &a->st : NULL, sizeof(a->st));
}

/* Counters by name (doc/statistics.md): one line per member of xlat_barre_alloc_stats. */
static const struct xlat__counter counters[] = {
    XLAT__COUNTER(xlat_barre_alloc_stats, objects),
    XLAT__COUNTER(xlat_barre_alloc_stats, pages),
    XLAT__COUNTER(xlat_barre_alloc_stats, groups),
    XLAT__COUNTER(xlat_barre_alloc_stats, merged_groups),
    XLAT__COUNTER(xlat_barre_alloc_stats, grouped_pages),
    XLAT__COUNTER(xlat_barre_alloc_stats, default_pages),
    XLAT__COUNTER(xlat_barre_alloc_stats, fallback_groups),
    XLAT__COUNTER(xlat_barre_alloc_stats, whole_fallbacks),
    XLAT__COUNTER(xlat_barre_alloc_stats, unmapped),
    XLAT__COUNTER(xlat_barre_alloc_stats, migrations),
    XLAT__COUNTER(xlat_barre_alloc_stats, regrouped),
};

static void stats_foreach(const void *a, const struct xlat__stats_sink *sink)
{
    xlat__stats_emit(sink, counters, XLAT__COUNT(counters), &((const xlat_barre_alloc *)a)->st);
}

static void stats_reset(void *a) { memset(&((xlat_barre_alloc *)a)->st, 0, sizeof(xlat_barre_alloc_stats)); }
static void destroy(void *a) { (void)xlat_barre_alloc_destroy(a); }

static const struct xlat__reg_ops reg_ops = {"barre_alloc", stats_foreach, stats_reset, destroy,
                                             NULL, NULL};
