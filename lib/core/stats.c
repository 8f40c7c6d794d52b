/* The public face of the registry: statistics by unit id and by name. */
#include "registry.h"

/* The buckets' names (doc/statistics.md): each bucket's inclusive upper
 * bound, 2^b - 1, padded to the width of the largest so that a sort by
 * name is a sort by bucket; "inf" sorts after every digit. A dot, which no
 * struct member can hold, keeps them apart from the counters. */
static const char *const latency_names[] = {
    "latency.le_0000000000", "latency.le_0000000001", "latency.le_0000000003",
    "latency.le_0000000007", "latency.le_0000000015", "latency.le_0000000031",
    "latency.le_0000000063", "latency.le_0000000127", "latency.le_0000000255",
    "latency.le_0000000511", "latency.le_0000001023", "latency.le_0000002047",
    "latency.le_0000004095", "latency.le_0000008191", "latency.le_0000016383",
    "latency.le_0000032767", "latency.le_0000065535", "latency.le_0000131071",
    "latency.le_0000262143", "latency.le_0000524287", "latency.le_0001048575",
    "latency.le_0002097151", "latency.le_0004194303", "latency.le_0008388607",
    "latency.le_0016777215", "latency.le_0033554431", "latency.le_0067108863",
    "latency.le_0134217727", "latency.le_0268435455", "latency.le_0536870911",
    "latency.le_1073741823", "latency.le_inf",
};
_Static_assert(XLAT__COUNT(latency_names) == XLAT_LATENCY_BUCKETS, "a name per bucket");

static void latency_foreach(const struct xlat__reg *r, xlat_stats_fn fn, void *user)
{
    xlat_latency_hist h;
    r->ops->latency(r->handle, &h);
    for (size_t b = 0; b < XLAT_LATENCY_BUCKETS; b++)
        fn(user, r->id, r->ops->kind, r->name, latency_names[b], h.bucket[b]);
}

static void unit_foreach(const struct xlat__reg *r, xlat_stats_fn fn, void *user)
{
    struct xlat__stats_sink sink = {fn, user, r};
    if (r->ops->stats_foreach)
        r->ops->stats_foreach(r->handle, &sink);
    if (r->ops->latency)
        latency_foreach(r, fn, user);
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

int xlat_unit_latency_get(xlat_ctx *ctx, uint32_t unit_id, xlat_latency_hist *out,
                          size_t out_size)
{
    if (!ctx || !out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_unit_latency_get: NULL %s",
                          !ctx ? "ctx" : "out");
    const struct xlat__reg *r = xlat__reg_find(ctx, unit_id);
    if (!r)
        return unknown(ctx, "xlat_unit_latency_get", unit_id);
    if (!r->ops->latency)
        return xlat__fail(ctx, XLAT_ERR_UNSUPPORTED, "xlat_unit_latency_get: a %s answers no "
                          "requests: it has no latency histogram", r->ops->kind);
    xlat_latency_hist h;
    r->ops->latency(r->handle, &h);
    xlat__copy_out(out, out_size, &h, sizeof(h));
    return XLAT_OK;
}

uint32_t xlat_unit_id(const xlat_ctx *ctx, const void *handle)
{
    const struct xlat__reg *r = ctx ? xlat__reg_of_handle(ctx, handle) : NULL;
    return r ? r->id : 0;
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
