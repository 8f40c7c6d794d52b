/*
 * Targets inside the library: what a unit's get_target hands out and how a
 * unit holds the target it was given as its next level (target.c).
 */
#ifndef XLAT_CORE_UNIT_TARGET_H
#define XLAT_CORE_UNIT_TARGET_H

#include "internal.h"
#include "registry.h"

/* A sized struct the library hands out (xlat_target, xlat_l2_port): its
 * name, the initializer a host starts it with, and its first release's size. */
struct xlat__sized {
    const char *type;
    const char *init;
    size_t min_size;
};

/* Whether `s` (NULL: no) starts with a struct_size of at least `min_size`
 * that is a size at all, not an uninitialised field. */
bool xlat__sized_ok(const void *s, size_t min_size);
/* `mine` into the host's sized struct `out` within its struct_size (which
 * stays the host's); what the host's struct has beyond `mine` is zeroed. */
void xlat__sized_put(void *out, const void *mine, size_t mine_size);

/* `mine` (mine_size bytes) copied into the host's `out` within its
 * struct_size (the first field, which stays the host's); XLAT_ERR_INVAL
 * for NULL or a struct_size that is not a size of `kind`. */
int xlat__sized_get(xlat_ctx *ctx, void *out, const void *mine, size_t mine_size,
                    const struct xlat__sized *kind, const char *who);

/* A unit's target as a get_target call returns it: `mine` copied into the
 * host's `out` within out->struct_size (which stays the host's). */
int xlat__target_get(xlat_ctx *ctx, xlat_target *out, const xlat_target *mine, const char *who);

/* Makes `next` (a host's sized target; NULL: none) the target in `held`:
 * checks its size, translate and unit, holds its unit, and releases the
 * one `held` had. The holder may send `in_flight` requests at once (0: no
 * bound of its own); a unit below that grows (a link, an unbounded fixed
 * responder) makes room for them now (xlat__reg_ops::reserve). On failure
 * `held` is unchanged. */
int xlat__target_hold(xlat_ctx *ctx, xlat_target *held, const xlat_target *next,
                      size_t in_flight, const char *who);
/* What xlat__target_hold() checks of `next` (NULL passes), holding nothing:
 * for a unit that must build something before it can hold a target. */
int xlat__target_check(xlat_ctx *ctx, const xlat_target *next, const char *who);
/* Lets go of the unit `held` holds (if it still lives), for the
 * `in_flight` it was held with; `held` is empty after. */
void xlat__target_release(xlat_ctx *ctx, xlat_target *held, size_t in_flight);

/* A unit's hold on an object it was configured with (a walker's page
 * table): returns the object's unit id, to give back to xlat__release_id()
 * when the holder goes; 0 (nothing held) for NULL or an unregistered object. */
uint32_t xlat__hold_handle(xlat_ctx *ctx, const void *handle);
void xlat__release_id(xlat_ctx *ctx, uint32_t id);

/* XLAT_ERR_BUSY, with "<who> <name>: still the next level of N unit(s)",
 * while some unit holds `r`; XLAT_OK otherwise. */
int xlat__reg_unheld(xlat_ctx *ctx, const struct xlat__reg *r, const char *who);

#endif
