/*
 * Wait queues: a unit that refuses a request for lack of room remembers who
 * wants to retry and wakes them when room frees, instead of every refused
 * sender polling each cycle (which costs host time in proportion to the
 * senders waiting times the cycles they wait).
 */
#ifndef XLAT_CORE_WAITQ_H
#define XLAT_CORE_WAITQ_H

#include <stdint.h>

#include "pool.h"

struct xlat_waiter;

struct xlat_waitq {
    xlat_ctx *ctx;
    uint32_t owner; /* owner place of the unit whose wake-ups these are: posted from its budget */
    struct xlat_pool waiters;
    struct xlat_waiter *head, *tail;
};

/* A queue of `capacity` waiters (0: XLAT_WAITQ_CAPACITY). */
int xlat__waitq_init(struct xlat_waitq *q, xlat_ctx *ctx, size_t capacity);
void xlat__waitq_release(struct xlat_waitq *q);
#define XLAT_WAITQ_CAPACITY 64

/* Calls fn(user) (as an event of the current cycle) at the next wake.
 * The queue holds its capacity of waiters and never allocates: when it
 * is full it answers XLAT_ERR_AGAIN and the sender polls instead. */
int xlat__waitq_add(struct xlat_waitq *q, void (*fn)(void *user), void *user);
/* Room has freed: every waiter retries now, in the order they waited. */
void xlat__waitq_wake(struct xlat_waitq *q);

#endif
