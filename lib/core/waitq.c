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
    if (!capacity)
        capacity = XLAT_WAITQ_CAPACITY;
    q->waiter = capacity <= UINT32_MAX ? xlat__calloc(ctx, capacity, sizeof(*q->waiter)) : NULL;
    if (!q->waiter)
        return XLAT_ERR_NOMEM;
    q->capacity = (uint32_t)capacity;
    return XLAT_OK;
}

void xlat__waitq_release(struct xlat_waitq *q)
{
    if (q->waiter)
        xlat__free(q->ctx, q->waiter, xlat__waitq_bytes(q));
    q->waiter = NULL;
    q->count = q->capacity = 0;
}

int xlat__waitq_add(struct xlat_waitq *q, void (*fn)(void *user), void *user)
{
    if (q->count == q->capacity)
        return XLAT_ERR_AGAIN;
    q->waiter[q->count++] = (struct xlat_waiter){.fn = fn, .user = user};
    return XLAT_OK;
}

/* A post never runs its event, so no waiter is added while this runs; were
 * one added, it would be posted too (the loop reads the count again). */
void xlat__waitq_wake(struct xlat_waitq *q)
{
    for (uint32_t i = 0; i < q->count; i++)
        xlat__post(q->ctx, q->owner, 0, q->waiter[i].fn, q->waiter[i].user);
    q->count = 0;
}
