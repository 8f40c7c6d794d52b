/* The context's unit registry (see registry.h). */
#include "registry.h"

/* ---- the index ----------------------------------------------------------
 *
 * A system of 1024 GPUs has some 70,000 units, and each GPU's link finds
 * the IOMMU by its id, the oldest unit but a few: a scan of the list from
 * its newest end made setting such a system up and tearing it down take
 * time in the square of its units. From REG_INDEX_MIN live units on, two
 * open-addressing tables (linear probing, deletion by shifting back) find
 * a unit by id and by handle in constant time. Below it, and whenever the
 * tables could not be allocated or grown, the scan answers, as it always
 * did: the index only saves time, and a small context allocates nothing
 * more than before. It is built and grown only when a unit registers,
 * never in tick. */
#define REG_INDEX_MIN 1024

static size_t home_of_id(uint32_t id, size_t mask)
{
    return (size_t)(xlat__mix64(id) & mask);
}

static size_t home_of_handle(const void *handle, size_t mask)
{
    return (size_t)(xlat__mix64((uint64_t)(uintptr_t)handle) & mask);
}

static size_t home(const struct xlat__reg *r, int by_handle, size_t mask)
{
    return by_handle ? home_of_handle(r->handle, mask) : home_of_id(r->id, mask);
}

static void index_put(struct xlat__reg **table, size_t mask, struct xlat__reg *r, int by_handle)
{
    size_t i = home(r, by_handle, mask);
    while (table[i])
        i = (i + 1) & mask;
    table[i] = r;
}

/* Takes `r` out of `table`: the entries after it in its run move back
 * into the gap when their home allows it, so that no probe stops early. */
static void index_drop(struct xlat__reg **table, size_t mask, const struct xlat__reg *r,
                       int by_handle)
{
    size_t gap = home(r, by_handle, mask);
    while (table[gap] != r)
        gap = (gap + 1) & mask;
    for (size_t i = (gap + 1) & mask; table[i]; i = (i + 1) & mask) {
        size_t h = home(table[i], by_handle, mask);
        /* It moves unless its home lies cyclically in (gap, i]. */
        if (((i - h) & mask) >= ((i - gap) & mask)) {
            table[gap] = table[i];
            gap = i;
        }
    }
    table[gap] = NULL;
}

/* `r` into both tables of an index of `slots` places a table, and out. */
static void index_insert(struct xlat__reg **t, size_t slots, struct xlat__reg *r)
{
    index_put(t, slots - 1, r, 0);
    index_put(t + slots, slots - 1, r, 1);
}

static void index_remove(struct xlat__reg **t, size_t slots, const struct xlat__reg *r)
{
    index_drop(t, slots - 1, r, 0);
    index_drop(t + slots, slots - 1, r, 1);
}

static void index_free(xlat_ctx *ctx)
{
    size_t bytes = 2 * ctx->reg_slots * sizeof(*ctx->reg_index);
    if (ctx->reg_index)
        ctx->alloc.free(ctx->alloc.user, ctx->reg_index, bytes);
    ctx->reg_index = NULL;
    ctx->reg_slots = 0;
}

/* A new index of `slots` places a table, holding every live unit; none
 * when it cannot be allocated. Through the allocator directly, so
 * that a failure leaves the context's message alone: nothing failed that
 * the host asked for. */
static void index_build(xlat_ctx *ctx, size_t slots)
{
    size_t bytes = 2 * slots * sizeof(*ctx->reg_index);
    struct xlat__reg **t = ctx->alloc.alloc(ctx->alloc.user, bytes, 64);
    index_free(ctx);
    if (!t)
        return;
    memset(t, 0, bytes);
    for (struct xlat__reg *r = ctx->reg_head; r; r = r->next)
        index_insert(t, slots, r);
    ctx->reg_index = t;
    ctx->reg_slots = slots;
}

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
    ctx->reg_live++;
    /* At most half full, a quarter once built: a probe reads a place or two. */
    if (ctx->reg_live >= REG_INDEX_MIN && 2 * ctx->reg_live > ctx->reg_slots) {
        size_t slots = 4 * REG_INDEX_MIN;
        while (slots < 4 * ctx->reg_live)
            slots *= 2;
        index_build(ctx, slots);
    } else if (ctx->reg_index) {
        index_insert(ctx->reg_index, ctx->reg_slots, r);
    }
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
    ctx->reg_live--;
    if (ctx->reg_index && ctx->reg_live < REG_INDEX_MIN / 2) {
        index_free(ctx); /* small again: the scan is as quick */
    } else if (ctx->reg_index) {
        index_remove(ctx->reg_index, ctx->reg_slots, r);
    }
    r->prev = r->next = NULL;
    r->ops = NULL;
}

void xlat__reg_release(xlat_ctx *ctx) { index_free(ctx); }

const struct xlat__reg *xlat__reg_adopt(xlat_ctx *ctx, const struct xlat__reg *owner)
{
    const struct xlat__reg *outer = ctx->adopter;
    ctx->adopter = owner;
    return outer;
}

const struct xlat__reg *xlat__reg_find(const xlat_ctx *ctx, uint32_t id)
{
    if (id && ctx->reg_index) {
        size_t mask = ctx->reg_slots - 1;
        for (size_t i = home_of_id(id, mask); ctx->reg_index[i]; i = (i + 1) & mask)
            if (ctx->reg_index[i]->id == id)
                return ctx->reg_index[i];
        return NULL;
    }
    /* From the newest: a unit is wired to, and released by, units made
     * just after it (a GPU's L1s after its L2, and destroyed newest
     * first), so that a small registry is scanned only a few units deep. */
    for (const struct xlat__reg *r = ctx->reg_tail; r && id; r = r->prev)
        if (r->id == id)
            return r;
    return NULL;
}

struct xlat__reg *xlat__reg_of_handle(const xlat_ctx *ctx, const void *handle)
{
    if (handle && ctx->reg_index) {
        struct xlat__reg **by_handle = ctx->reg_index + ctx->reg_slots;
        size_t mask = ctx->reg_slots - 1;
        for (size_t i = home_of_handle(handle, mask); by_handle[i]; i = (i + 1) & mask)
            if (by_handle[i]->handle == handle)
                return by_handle[i];
        return NULL;
    }
    for (struct xlat__reg *r = handle ? ctx->reg_tail : NULL; r; r = r->prev)
        if (r->handle == handle)
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
