/* The context's unit registry (see registry.h). */
#include "registry.h"

void xlat__reg_add(xlat_ctx *ctx, struct xlat__reg *r, const struct xlat__reg_ops *ops,
                   void *handle, const char *name, uint32_t id)
{
    r->ops = ops;
    r->handle = handle;
    r->name = name ? name : ops->kind;
    r->id = id ? id : xlat__unit_new_id(ctx);
    r->owner = ctx->adopter;
    r->next = NULL;
    r->prev = ctx->reg_tail;
    if (ctx->reg_tail)
        ctx->reg_tail->next = r;
    else
        ctx->reg_head = r;
    ctx->reg_tail = r;
}

void xlat__reg_remove(xlat_ctx *ctx, struct xlat__reg *r)
{
    if (!r->ops)
        return;
    if (r->prev)
        r->prev->next = r->next;
    else
        ctx->reg_head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        ctx->reg_tail = r->prev;
    r->prev = r->next = NULL;
    r->ops = NULL;
}

const struct xlat__reg *xlat__reg_adopt(xlat_ctx *ctx, const struct xlat__reg *owner)
{
    const struct xlat__reg *outer = ctx->adopter;
    ctx->adopter = owner;
    return outer;
}

const struct xlat__reg *xlat__reg_find(const xlat_ctx *ctx, uint32_t id)
{
    /* From the newest: a unit is wired to, and released by, units made
     * just after it (a GPU's L1s after its L2, and destroyed newest
     * first), so a system of thousands of units is set up and torn down
     * in time proportional to its units, not to their square. */
    for (const struct xlat__reg *r = ctx->reg_tail; r && id; r = r->prev)
        if (r->id == id)
            return r;
    return NULL;
}

/* The newest unit nobody owns. Owned units were registered before their
 * owner, and leave with it, so the scan from the tail is short. */
static struct xlat__reg *newest_unowned(xlat_ctx *ctx)
{
    struct xlat__reg *r = ctx->reg_tail;
    while (r && r->owner)
        r = r->prev;
    return r;
}

void xlat__reg_destroy_all(xlat_ctx *ctx)
{
    /* Newest first: a unit is destroyed before those it was built on (a
     * walker before its page table, a TLB before the unit it misses to). */
    for (struct xlat__reg *r = newest_unowned(ctx); r; r = newest_unowned(ctx)) {
        r->held = 0; /* the holders go too: a unit held by one made later goes first */
        r->ops->destroy(r->handle);
    }
}

void xlat__stats_emit(const struct xlat__stats_sink *sink, const struct xlat__counter *table,
                      size_t n, const void *stats)
{
    const struct xlat__reg *u = sink->unit;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)stats + table[i].offset, sizeof(v));
        sink->fn(sink->user, u->id, u->ops->kind, u->name, table[i].name, v);
    }
}
