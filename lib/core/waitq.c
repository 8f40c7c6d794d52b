#include "waitq.h"
#include "internal.h"

/* Senders a unit remembers: its capacity; more than that poll (still
 * correct, only slower on the host). A fixed number, so that the wake-ups a
 * unit can owe are bounded and reserved with its events (xlat__unit_init). */

int xlat__waitq_init(struct xlat_waitq *q, xlat_ctx *ctx, size_t capacity)
{
    q->ctx = ctx;
    q->owner = 0;
    q->count = 0;
    q->capacity = 0;
    q->first = (struct xlat_waiter){0};
    q->rest = NULL;
    if (!capacity)
        capacity = XLAT_WAITQ_CAPACITY;
    if (capacity > UINT32_MAX)
        return XLAT_ERR_NOMEM;
    if (capacity > 1 && !(q->rest = xlat__calloc(ctx, capacity - 1, sizeof(*q->rest))))
        return XLAT_ERR_NOMEM;
    q->capacity = (uint32_t)capacity;
    return XLAT_OK;
}

void xlat__waitq_release(struct xlat_waitq *q)
{
    if (q->rest)
        xlat__free(q->ctx, q->rest, xlat__waitq_bytes(q));
    q->rest = NULL;
    q->count = q->capacity = 0;
}

/* The i-th waiter, oldest first. */
static inline struct xlat_waiter *waiter_at(struct xlat_waitq *q, uint32_t i)
{
    return i == 0 ? &q->first : &q->rest[i - 1];
}

int xlat__waitq_add(struct xlat_waitq *q, void (*fn)(void *user), void *user)
{
    if (q->count == q->capacity)
        return XLAT_ERR_AGAIN;
    *waiter_at(q, q->count++) = (struct xlat_waiter){.fn = fn, .user = user};
    return XLAT_OK;
}

/* A post never runs its event, so no waiter is added while this runs; were
 * one added, it would be posted too (the loop reads the count again). */
void xlat__waitq_wake(struct xlat_waitq *q)
{
    for (uint32_t i = 0; i < q->count; i++) {
        const struct xlat_waiter *w = waiter_at(q, i);
        xlat__post(q->ctx, q->owner, 0, w->fn, w->user);
    }
    q->count = 0;
}
