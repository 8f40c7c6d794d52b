/*
 * Wait queues: a unit that refuses a request for lack of room remembers who
 * wants to retry and wakes them when room frees, instead of every refused
 * sender polling each cycle (which costs host time in proportion to the
 * senders waiting times the cycles they wait).
 *
 * The waiters are an array in the order they came, not a list: a wake
 * empties the whole queue, so it only ever appends and reads from the
 * start. In a system of many GPUs a GPU's L2 TLB is woken with dozens of
 * its L1s waiting, out of the host's caches by then; reading them in
 * order lets the host stream the array, where a list made it wait for
 * each waiter before it could find the next.
 *
 * The oldest waiter is kept in the queue itself, beside the count that a
 * wake reads first, and only the others in the array: a CU's L1 TLB in a
 * system of many GPUs has one sender waiting (its CU), and its wake read
 * the array's line, out of the host's caches, for that one waiter.
 */
#ifndef XLAT_CORE_WAITQ_H
#define XLAT_CORE_WAITQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct xlat_ctx xlat_ctx;

struct xlat_waiter {
    void (*fn)(void *user);
    void *user;
};

struct xlat_waitq {
    xlat_ctx *ctx;
    uint32_t owner;    /* owner place of the unit whose wake-ups these are: posted from its budget */
    uint32_t count;    /* waiting now: `first`, then rest[0 .. count - 2] */
    struct xlat_waiter first; /* right after the count: the TLB's timed unit
                                 has both in the line that holds its context */
    uint32_t capacity; /* the most that can wait: one more than the array holds */
    struct xlat_waiter *rest; /* NULL when the capacity is 1 */
};

/* A queue of `capacity` waiters (0: XLAT_WAITQ_CAPACITY); XLAT_ERR_NOMEM
 * when the array of all but the first cannot be allocated. */
int xlat__waitq_init(struct xlat_waitq *q, xlat_ctx *ctx, size_t capacity);
void xlat__waitq_release(struct xlat_waitq *q);
#define XLAT_WAITQ_CAPACITY 64

/* Calls fn(user) (as an event of the current cycle) at the next wake.
 * The queue holds its capacity of waiters and never allocates: when it
 * is full it answers XLAT_ERR_AGAIN and the sender polls instead. */
int xlat__waitq_add(struct xlat_waitq *q, void (*fn)(void *user), void *user);
/* Room has freed: every waiter retries now, in the order they waited. */
void xlat__waitq_wake(struct xlat_waitq *q);

static inline int xlat__waitq_empty(const struct xlat_waitq *q) { return q->count == 0; }

/* What the queue allocated. */
static inline size_t xlat__waitq_bytes(const struct xlat_waitq *q)
{
    return q->capacity ? (size_t)(q->capacity - 1) * sizeof(struct xlat_waiter) : 0;
}

#endif
