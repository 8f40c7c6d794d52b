/*
 * The context's unit registry: every object a create function makes is on
 * it, in creation order, with its kind, name, id, handle and an ops table,
 * so that the context can enumerate statistics and tear down whatever the
 * host left alive (doc/statistics.md, doc/composition.md).
 *
 * The node lives inside the object, and an object joins the list as the
 * last step of its create, when nothing can fail any more: a failed create
 * leaves nothing registered. Registration happens only at create and
 * destroy; no hot path touches it. From 1024 live units on, an index finds
 * a unit by id or handle in constant time (registry.c); it is an
 * allocation of the context's that only saves time: without it, as below
 * 1024 units, the list is scanned.
 */
#ifndef XLAT_CORE_REGISTRY_H
#define XLAT_CORE_REGISTRY_H

#include <stddef.h>

#include "internal.h"
#include "xlat/stats.h"

struct xlat__reg;

/* Where a unit's counters go: the host's callback, and the unit they
 * belong to (for its id, kind and name). */
struct xlat__stats_sink {
    xlat_stats_fn fn;
    void *user;
    const struct xlat__reg *unit;
};

/* What the context can do with a unit it knows only as a handle. */
struct xlat__reg_ops {
    const char *kind; /* "tlb", "walker", ...: also the name of an unnamed unit */
    /* Every counter, in the unit's documented order; NULL: none. */
    void (*stats_foreach)(const void *handle, const struct xlat__stats_sink *sink);
    /* Zeroes the counters; NULL: nothing to reset (the unit's figures
     * describe its state, not events). */
    void (*stats_reset)(void *handle);
    void (*destroy)(void *handle);
    /* Fills `out` with the unit's latency histogram, listed after its
     * counters; NULL: the unit answers no requests and has none. */
    void (*latency)(const void *handle, xlat_latency_hist *out);
    /* Makes room, now, for `in_flight` requests at once: what the units
     * holding it as their next level may send together (target.c), so
     * that it never grows inside tick, where a failed growth would answer
     * a request another unit had accepted. XLAT_ERR_NOMEM with a message;
     * NULL: the unit's room is fixed at create (it refuses beyond it). */
    int (*reserve)(void *handle, size_t in_flight);
};

struct xlat__reg {
    struct xlat__reg *prev, *next;
    const struct xlat__reg_ops *ops; /* NULL while not registered */
    void *handle;
    const char *name;                /* the unit's own copy, or ops->kind */
    uint32_t id;
    const struct xlat__reg *owner;   /* the unit that destroys this one, or NULL */
    uint32_t held;                   /* units whose next level this is (target.h) */
    uint32_t in_flight;              /* the most those units may send at once (saturating) */
};

/* A fresh unit id: never 0 (the host's), never reused while ctx lives. */
static inline uint32_t xlat__unit_new_id(xlat_ctx *ctx) { return ++ctx->units; }

/* Appends `r` (inside `handle`) to the registry. `id` 0 takes a fresh id
 * (timed units pass the one their skeleton took); `name` NULL gives the
 * kind. A unit created while another is adopting is owned by it. Cannot
 * fail: call it last in create. */
void xlat__reg_add(xlat_ctx *ctx, struct xlat__reg *r, const struct xlat__reg_ops *ops,
                   void *handle, const char *name, uint32_t id);
/* Takes `r` off the registry; a node never added (a failed create's
 * clean-up) is left alone. Call it first in destroy. */
void xlat__reg_remove(xlat_ctx *ctx, struct xlat__reg *r);

/* Units created between adopt and its matching restore are owned by
 * `owner` (which builds and destroys them); nests. Returns what to restore. */
const struct xlat__reg *xlat__reg_adopt(xlat_ctx *ctx, const struct xlat__reg *owner);
static inline void xlat__reg_restore(xlat_ctx *ctx, const struct xlat__reg *outer)
{
    ctx->adopter = outer;
}

/* The registered unit with this id, or NULL. */
const struct xlat__reg *xlat__reg_find(const xlat_ctx *ctx, uint32_t id);
/* The registered unit whose handle is `handle`, or NULL. */
struct xlat__reg *xlat__reg_of_handle(const xlat_ctx *ctx, const void *handle);
/* Destroys every unit no other unit owns, newest first (xlat_ctx_destroy). */
void xlat__reg_destroy_all(xlat_ctx *ctx);
/* Frees the registry's index (xlat_ctx_destroy, once no unit is left). */
void xlat__reg_release(xlat_ctx *ctx);

/* One counter of a stats struct: its public name and where it lives. */
struct xlat__counter {
    const char *name;
    size_t offset;
};
/* A scalar member, named as the member. */
#define XLAT__COUNTER(type, member) {#member, offsetof(type, member)}
/* Element `i` (a literal) of an array member, named member_i. */
#define XLAT__COUNTER_AT(type, member, i) {#member "_" #i, offsetof(type, member[i])}
#define XLAT__COUNTER_AT4(type, m, a, b, c, d)                                           \
    XLAT__COUNTER_AT(type, m, a), XLAT__COUNTER_AT(type, m, b), XLAT__COUNTER_AT(type, m, c), \
        XLAT__COUNTER_AT(type, m, d)
/* Elements in an array member: a table that spells them out asserts it. */
#define XLAT__ARRAY_LEN(type, member) (sizeof(((type *)0)->member) / sizeof(((type *)0)->member[0]))
#define XLAT__COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* The latency bucket of `cycles` (xlat_latency_hist): 0 for 0, else the
 * bit length of `cycles`, the last bucket holding everything beyond.
 * Without a branch: `cycles | 1` has the bit length of `cycles` from 1 up,
 * and 0 takes one off it. gcc -O2 branches around the bsr of `cycles ?
 * ... : 0`, which in one build made the reference bench's stlb row (two
 * answers a translation) 18% slower; this form measured no slower in any. */
static inline uint32_t xlat__latency_bucket(uint64_t cycles)
{
    uint32_t b = 64u - (uint32_t)__builtin_clzll(cycles | 1) - (uint32_t)(cycles == 0);
    return b < XLAT_LATENCY_BUCKETS ? b : XLAT_LATENCY_BUCKETS - 1;
}

/* Calls the sink once per counter of `table`, reading each from `stats`
 * (a uint64_t at its offset). */
void xlat__stats_emit(const struct xlat__stats_sink *sink, const struct xlat__counter *table,
                      size_t n, const void *stats);

#endif
