/*
 * Targets as they cross the boundary: sized (struct_size first, as in the
 * configs), handed out by each unit's get_target, and held by the units
 * given them as their next level, so that the held unit's destroy can say
 * XLAT_ERR_BUSY instead of leaving a dangling next level (doc/composition.md,
 * "Teardown").
 */
#include "registry.h"
#include "unit_target.h"

/* A struct_size beyond this is not a size but an uninitialised field:
 * writing that many bytes would run over the host's stack. */
#define SIZED_MAX 4096u

bool xlat__sized_ok(const void *s, size_t min_size)
{
    uint32_t size;
    if (!s)
        return false;
    memcpy(&size, s, sizeof(size)); /* struct_size is the first field */
    return size >= min_size && size <= SIZED_MAX;
}

void xlat__sized_put(void *out, const void *mine, size_t mine_size)
{
    uint32_t size;
    memcpy(&size, out, sizeof(size));
    xlat__copy_out(out, size, mine, mine_size);
    memcpy(out, &size, sizeof(size)); /* the host's size stays */
}

int xlat_target_translate(const xlat_target *target, const xlat_req *req, xlat_done_fn done,
                          void *user)
{
    if (!target || target->struct_size < XLAT_TARGET_SIZE_V0 || !target->translate || !req ||
        !done)
        return XLAT_ERR_INVAL;
    return target->translate(target->unit, req, done, user);
}

int xlat__sized_get(xlat_ctx *ctx, void *out, const void *mine, size_t mine_size,
                    const struct xlat__sized *kind, const char *who)
{
    if (!out)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "%s: NULL out", who);
    if (!xlat__sized_ok(out, kind->min_size)) {
        uint32_t size;
        memcpy(&size, out, sizeof(size));
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "%s: out->struct_size %u is not the size of an %s;"
                          " start it with %s", who, size, kind->type, kind->init);
    }
    xlat__sized_put(out, mine, mine_size);
    return XLAT_OK;
}

static const struct xlat__sized target_kind = {"xlat_target", "XLAT_TARGET_INIT",
                                               XLAT_TARGET_SIZE_V0};

int xlat__target_get(xlat_ctx *ctx, xlat_target *out, const xlat_target *mine, const char *who)
{
    return xlat__sized_get(ctx, out, mine, sizeof(*mine), &target_kind, who);
}

static struct xlat__reg *held_unit(xlat_ctx *ctx, const xlat_target *t)
{
    return t->unit_id ? (struct xlat__reg *)xlat__reg_find(ctx, t->unit_id) : NULL;
}

uint32_t xlat__hold_handle(xlat_ctx *ctx, const void *handle)
{
    struct xlat__reg *r = xlat__reg_of_handle(ctx, handle);
    if (!r)
        return 0;
    r->held++;
    return r->id;
}

/* By id, not by handle: the object may be gone and its memory reused. */
void xlat__release_id(xlat_ctx *ctx, uint32_t id)
{
    struct xlat__reg *r = id ? (struct xlat__reg *)xlat__reg_find(ctx, id) : NULL;
    if (r && r->held)
        r->held--;
}

/* Checks `next` as a unit would before holding it; fills `copy`. */
static int target_check(xlat_ctx *ctx, xlat_target *copy, const xlat_target *next,
                        const char *who)
{
    *copy = (xlat_target)XLAT_TARGET_INIT;
    int rc = xlat__config_copy(ctx, copy, sizeof(*copy), next, XLAT_TARGET_SIZE_V0, who);
    if (rc != XLAT_OK)
        return rc;
    copy->struct_size = sizeof(*copy);
    if (!copy->translate)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "%s: target without a translate function", who);
    if (copy->unit_id && !held_unit(ctx, copy))
        return xlat__fail(ctx, XLAT_ERR_NOT_FOUND,
                          "%s: the target's unit (id %u) was destroyed", who, copy->unit_id);
    return XLAT_OK;
}

int xlat__target_check(xlat_ctx *ctx, const xlat_target *next, const char *who)
{
    xlat_target copy;
    return next ? target_check(ctx, &copy, next, who) : XLAT_OK;
}

/* `r` gets a holder that may send `in_flight` at once: room first (its
 * units already held keep theirs), then the hold. */
static int hold_with_room(struct xlat__reg *r, size_t in_flight)
{
    uint64_t sum = (uint64_t)r->in_flight + in_flight;
    uint32_t total = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
    if (r->ops->reserve && in_flight) {
        int rc = r->ops->reserve(r->handle, total);
        if (rc != XLAT_OK)
            return rc;
    }
    r->in_flight = total;
    r->held++;
    return XLAT_OK;
}

int xlat__target_hold(xlat_ctx *ctx, xlat_target *held, const xlat_target *next,
                      size_t in_flight, const char *who)
{
    xlat_target copy = XLAT_TARGET_INIT; /* NULL next: no target */
    if (next) {
        int rc = target_check(ctx, &copy, next, who);
        if (rc != XLAT_OK)
            return rc;
        struct xlat__reg *r = held_unit(ctx, &copy);
        if (r && (rc = hold_with_room(r, in_flight)) != XLAT_OK)
            return rc;
    }
    xlat__target_release(ctx, held, in_flight);
    *held = copy;
    return XLAT_OK;
}

void xlat__target_release(xlat_ctx *ctx, xlat_target *held, size_t in_flight)
{
    struct xlat__reg *r = held_unit(ctx, held);
    if (r) /* what it reserved stays: a pool never shrinks */
        r->in_flight -= in_flight < r->in_flight ? (uint32_t)in_flight : r->in_flight;
    xlat__release_id(ctx, held->unit_id);
    held->unit_id = 0;
    held->translate = NULL;
}

int xlat__reg_unheld(xlat_ctx *ctx, const struct xlat__reg *r, const char *who)
{
    /* An owned unit goes with its owner, which knows the order. */
    if (!r->held || r->owner)
        return XLAT_OK;
    return xlat__fail(ctx, XLAT_ERR_BUSY,
                      "%s %s: still the next level of %u unit(s); set their next level"
                      " elsewhere (or NULL) or destroy them first", who, r->name, r->held);
}
