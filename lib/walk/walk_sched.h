/*
 * Walker schedulers as plug-ins. A scheduler sees the pool only through
 * the services table below (its queues, which walkers are busy, how many
 * walks each tenant has queued) and keeps everything else it needs
 * (walker ownership, DWS++ epochs, ...) in its own state: `state_size`
 * bytes that the pool allocates, zeroed, and the scheduler's `init` fills.
 * The pool's generic code (walker.c, walk_queue.c, walk_step.c) knows no
 * scheduler's state.
 */
#ifndef XLAT_WALK_SCHED_H
#define XLAT_WALK_SCHED_H

#include "internal.h"
#include "xlat/walker.h"

struct xlat_walker;
struct walk_req; /* opaque to schedulers */

/* What the pool offers a scheduler. Queues are the pool's buffer: queue q
 * holds at most queue_entries / queues requests; requests a scheduler may
 * not start now (coalescing's CL, the host's defer hook, a parked fault)
 * are "ineligible" and skipped by take / has_eligible. */
struct walk_services {
    /* Appends r to queue q. */
    void (*push)(struct xlat_walker *p, uint32_t q, struct walk_req *r);
    /* The first eligible request of queue q, taken off it; NULL if none. */
    struct walk_req *(*take)(struct xlat_walker *p, uint32_t q);
    bool (*has_eligible)(struct xlat_walker *p, uint32_t q);
    uint32_t (*len)(const struct xlat_walker *p, uint32_t q);
    /* Requests in queue q of tenants other than `tenant`. */
    uint32_t (*foreign)(const struct xlat_walker *p, uint32_t q, uint32_t tenant);
    /* Every request in queue q not of `tenant` waits behind one more
     * foreign walk (a steal by q's walker): counts it in the statistics. */
    void (*charge_interleave)(struct xlat_walker *p, uint32_t q, uint32_t tenant);
    /* The lowest idle walker, -1 when every walker is busy. */
    int64_t (*first_idle)(const struct xlat_walker *p);
    /* Tenant of the walk walker w serves, -1 when w is idle. */
    int64_t (*walker_tenant)(const struct xlat_walker *p, uint32_t w);
    /* Walks of tenant t waiting in any queue. */
    uint64_t (*tenant_queued)(const struct xlat_walker *p, uint32_t t);
    uint32_t (*req_tenant)(const struct walk_req *r);
    /* Foreign walks a request being queued waits behind (statistics). */
    void (*set_interleave)(struct walk_req *r, uint64_t n);
};

/* Every scheduler's state begins with this. */
struct walk_sched_env {
    struct xlat_walker *pool;
    const struct walk_services *svc;
    uint32_t walkers, tenants;
    uint32_t queue_cap;   /* slots per queue */
};

/* A scheduler. `thief` outputs are the tenant owning the walker that takes
 * another tenant's walk (a steal), -1 otherwise. */
struct walk_sched_ops {
    const char *name;
    /* Queues the scheduler wants for `cfg` (1 shared, or one per walker). */
    uint32_t (*queues)(const xlat_walker_config *cfg);
    /* Bytes of state for `cfg` (at least sizeof(struct walk_sched_env)). */
    size_t (*state_size)(const xlat_walker_config *cfg);
    /* Fills `state` (zeroed; env already set); may reject the
     * configuration with an XLAT_ERR_* and a message. */
    int (*init)(void *state, xlat_ctx *ctx, const xlat_walker_config *cfg);
    /* Releases what init acquired besides `state` itself (may be NULL). */
    void (*fini)(void *state);
    /* Places an arriving request: returns the walker to start it on now,
     * -1 when it was queued, or XLAT_ERR_AGAIN (nothing taken) when there
     * is no room. With may_start false it must queue (or refuse). */
    int (*arrive)(void *state, struct walk_req *r, bool may_start, int32_t *thief);
    /* The next request for free walker w (already taken off its queue), or
     * NULL. */
    struct walk_req *(*select)(void *state, uint32_t w, int32_t *thief);
};

extern const struct walk_sched_ops xlat__sched_fcfs;
extern const struct walk_sched_ops xlat__sched_partition;
extern const struct walk_sched_ops xlat__sched_dws;
extern const struct walk_sched_ops xlat__sched_dwspp;

/* The state of `pool`'s scheduler if it is `ops`, else NULL (for a
 * scheduler's own inspection calls). */
void *xlat__walk_sched_state(const struct xlat_walker *pool, const struct walk_sched_ops *ops);

/* ---- per-walker queues shared by partition, DWS and DWS++ (sched_common.c) */

/* Walker ownership; `owner` (walkers entries) and `owned` (tenants entries)
 * point into the scheduler's state block. */
struct pw_state {
    struct walk_sched_env env;
    uint32_t *owner;   /* tenant owning walker w */
    uint32_t *owned;   /* walkers owned by tenant t */
};

uint32_t xlat__pw_queues(const xlat_walker_config *cfg);
/* Bytes of the ownership arrays (4-byte aligned) a pw_state points to. */
size_t xlat__pw_arrays_size(const xlat_walker_config *cfg);
/* Points the arrays at `arrays` (inside the scheduler's state block) and
 * assigns walkers to tenants. */
void xlat__pw_init(struct pw_state *s, const xlat_walker_config *cfg, void *arrays);
/* Arrival: an idle owned walker, else (idle_steal) any idle walker with
 * *thief set, else the least-loaded owned queue; the arrive() contract. */
int xlat__pw_arrive(struct pw_state *s, struct walk_req *r, bool may_start, bool idle_steal,
                    int32_t *thief);
/* The head of w's own queue, else of the fullest queue of its owner (taken
 * off its queue), or NULL. Never a steal. */
struct walk_req *xlat__pw_serve_owner(struct pw_state *s, uint32_t w);
/* The tenant other than `self` with the most queued walks among those with
 * a walk that may start now (lowest id on ties), -1 if none. */
int xlat__pw_victim(struct pw_state *s, uint32_t self);
/* Walker w steals the head of the fullest queue of `victim` (< 0: none):
 * sets *thief and charges the walks waiting in w's queue. */
struct walk_req *xlat__pw_steal(struct pw_state *s, uint32_t w, int victim, int32_t *thief);

#endif
