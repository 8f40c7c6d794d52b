/*
 * The one skeleton every timed unit is built on: its context, name and
 * integer id, its clock, its pool of in-flight records, the senders waiting
 * for room, and the events it reserved at create. Events a unit posts carry
 * its owner place, so destroy cancels exactly its own; their delays are in
 * the unit's own cycles, converted to the context's in one place
 * (xlat__unit_due).
 *
 * The rule it serves (doc/composition.md): everything a unit can need inside
 * tick is reserved when it is created, so posting an event, taking a record
 * within the pool's bound and waking a sender never fail there.
 */
#ifndef XLAT_CORE_UNIT_H
#define XLAT_CORE_UNIT_H

#include "clock.h"
#include "internal.h"
#include "pool.h"
#include "registry.h"
#include "waitq.h"

struct xlat__unit {
    /* What every post reads, in the skeleton's first 36 bytes: its
     * context, its clock and its owner place (waitq.owner). A unit that
     * places its skeleton where one cache line holds them (the TLB's timed
     * unit does) posts with one miss when the host's caches do not hold
     * it (one unit of thousands). */
    xlat_ctx *ctx;
    struct xlat__clock clock; /* its clock against the context's */
    uint32_t id;        /* its registry id; never 0 */
    struct xlat_waitq waitq; /* senders refused for want of room; its `owner`
                                is the unit's place in the event owner table,
                                the tag of all the unit's events */
    struct xlat_pool reqs;   /* in-flight records; fixed when the unit bounds them */
    size_t events;      /* events reserved on the context */
    char *name;         /* owned copy of the configured name */
    const char *kind;   /* "tlb", "walker", ... for messages */
    xlat_latency_hist latency; /* of its answers; after the fields every call reads */
};

/* What a unit asks for at create: its record size and how many records it
 * can have in flight (`fixed`: that many and never more), how many events
 * it can have pending at once, and its clock ratio (checked by its create
 * with xlat__clock_check first). */
struct xlat__unit_spec {
    const char *kind;
    const char *name;
    size_t req_size;
    size_t reqs;
    int fixed;
    size_t events;
    uint32_t clock_num, clock_den; /* its config's ratio, checked; 0/0: 1:1 */
    size_t waiters;     /* senders its wait queue remembers (0: XLAT_WAITQ_CAPACITY) */
};

/* Sets the unit up, reserving spec->events plus one wake-up per slot of
 * its wait queue (a wake posts them as the unit's events); on failure releases what it took, sets the context's
 * message and returns XLAT_ERR_NOMEM. */
int xlat__unit_init(struct xlat__unit *u, xlat_ctx *ctx, const struct xlat__unit_spec *spec);
/* Cancels the unit's pending events and wake-ups, releases everything. */
void xlat__unit_fini(struct xlat__unit *u);

/* The context cycle at which `cycles` of the unit's cycles from now end
 * (clock.h): now + cycles at 1:1, which costs one test of a flag. Every
 * latency a unit posts or keeps as a due cycle comes through here. */
static inline uint64_t xlat__unit_due(const struct xlat__unit *u, uint64_t cycles)
{
    if (__builtin_expect(u->clock.scaled, 0))
        return xlat__clock_due(&u->clock, u->ctx->now, cycles);
    return u->ctx->now + cycles;
}

/* The unit's own cycle now: the context's at 1:1. For what a unit counts
 * per cycle of its own (a TLB's ports, a GMMU's epochs). */
static inline uint64_t xlat__unit_cycle(const struct xlat__unit *u)
{
    if (__builtin_expect(u->clock.scaled, 0))
        return xlat__clock_cycle(&u->clock, u->ctx->now);
    return u->ctx->now;
}

/* Calls fn(user) at context cycle `due` (from xlat__unit_due(), not
 * before now); cannot fail within the budget. */
static inline void xlat__unit_post_at(struct xlat__unit *u, uint64_t due, xlat_event_fn fn,
                                      void *user)
{
    xlat__post(u->ctx, u->waitq.owner, due - u->ctx->now, fn, user);
}

/* Calls fn(user) `delay` of the unit's cycles from now; cannot fail within
 * the budget. */
static inline void xlat__unit_post(struct xlat__unit *u, uint64_t delay, xlat_event_fn fn,
                                   void *user)
{
    xlat__unit_post_at(u, xlat__unit_due(u, delay), fn, user);
}

/* A zeroed record, or NULL when the bound is reached (refuse with AGAIN). */
static inline void *xlat__unit_req_get(struct xlat__unit *u) { return xlat__pool_get(&u->reqs); }
/* The same, not zeroed: for a unit that sets every field it reads. */
static inline void *xlat__unit_req_take(struct xlat__unit *u) { return xlat__pool_take(&u->reqs); }
static inline void xlat__unit_req_put(struct xlat__unit *u, void *r) { xlat__pool_put(&u->reqs, r); }

/* Counts an answer of this unit `cycles` after it accepted the request:
 * call it at every place the unit answers, so that its histogram counts
 * each answer once. The caller has the cycles at hand (the answer's
 * completed - issued): loading the clock again here cost a few percent of
 * the bench's hit rows. */
static inline void xlat__unit_answered(struct xlat__unit *u, uint64_t cycles)
{
    u->latency.bucket[xlat__latency_bucket(cycles)]++;
}

/* For a unit's stats_reset: its histogram starts again. */
static inline void xlat__unit_latency_reset(struct xlat__unit *u)
{
    memset(&u->latency, 0, sizeof(u->latency));
}

/* Refusal for lack of room: "<kind> <name>: <why>", XLAT_ERR_AGAIN. */
int xlat__unit_busy(struct xlat__unit *u, const char *why);
/* Room freed: every waiting sender retries, in the order they waited.
 * Inline, as most room is freed with nobody waiting (an MSHR or a walker
 * slot freed under a light load): then it costs a test, not a call. */
static inline void xlat__unit_wake(struct xlat__unit *u)
{
    if (!xlat__waitq_empty(&u->waitq))
        xlat__waitq_wake(&u->waitq);
}
/* A sender's wait hook: fn(user) at the next wake. */
int xlat__unit_wait(struct xlat__unit *u, xlat_event_fn fn, void *user);
/* Host bytes the skeleton holds (records and waiters). */
size_t xlat__unit_bytes(const struct xlat__unit *u);

#endif
