/* The public face of the registry: statistics by unit id and by name. */
#include "registry.h"

static void unit_foreach(const struct xlat__reg *r, xlat_stats_fn fn, void *user)
{
    struct xlat__stats_sink sink = {fn, user, r};
    if (r->ops->stats_foreach)
        r->ops->stats_foreach(r->handle, &sink);
}

int xlat_stats_foreach(xlat_ctx *ctx, xlat_stats_fn fn, void *user)
{
    if (!ctx || !fn)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_stats_foreach: NULL %s", !ctx ? "ctx" : "fn");
    for (const struct xlat__reg *r = ctx->reg_head; r; r = r->next)
        unit_foreach(r, fn, user);
    return XLAT_OK;
}

static int unknown(xlat_ctx *ctx, const char *who, uint32_t unit_id)
{
    return xlat__fail(ctx, XLAT_ERR_NOT_FOUND, "%s: no unit has id %u", who, unit_id);
}

int xlat_unit_stats_foreach(xlat_ctx *ctx, uint32_t unit_id, xlat_stats_fn fn, void *user)
{
    if (!ctx || !fn)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_unit_stats_foreach: NULL %s",
                          !ctx ? "ctx" : "fn");
    const struct xlat__reg *r = xlat__reg_find(ctx, unit_id);
    if (!r)
        return unknown(ctx, "xlat_unit_stats_foreach", unit_id);
    unit_foreach(r, fn, user);
    return XLAT_OK;
}

static void unit_reset(const struct xlat__reg *r)
{
    if (r->ops->stats_reset)
        r->ops->stats_reset(r->handle);
}

int xlat_stats_reset(xlat_ctx *ctx, uint32_t unit_id)
{
    if (!ctx)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_stats_reset: NULL ctx");
    if (unit_id == 0) {
        for (const struct xlat__reg *r = ctx->reg_head; r; r = r->next)
            unit_reset(r);
        return XLAT_OK;
    }
    const struct xlat__reg *r = xlat__reg_find(ctx, unit_id);
    if (!r)
        return unknown(ctx, "xlat_stats_reset", unit_id);
    unit_reset(r);
    return XLAT_OK;
}

uint32_t xlat_unit_id(const xlat_ctx *ctx, const void *handle)
{
    for (const struct xlat__reg *r = ctx ? ctx->reg_head : NULL; r && handle; r = r->next)
        if (r->handle == handle)
            return r->id;
    return 0;
}

const char *xlat_unit_name(const xlat_ctx *ctx, uint32_t unit_id)
{
    const struct xlat__reg *r = ctx ? xlat__reg_find(ctx, unit_id) : NULL;
    return r ? r->name : NULL;
}

const char *xlat_unit_kind(const xlat_ctx *ctx, uint32_t unit_id)
{
    const struct xlat__reg *r = ctx ? xlat__reg_find(ctx, unit_id) : NULL;
    return r ? r->ops->kind : NULL;
}
