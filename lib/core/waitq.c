#include "waitq.h"
#include "internal.h"

/* Senders a unit remembers: its capacity; more than that poll (still
 * correct, only slower on the host). A fixed number, so that the wake-ups a
 * unit can owe are bounded and reserved with its events (xlat__unit_init). */

struct xlat_waiter {
    struct xlat_waiter *next; /* also the pool's link while free */
    void (*fn)(void *user);
    void *user;
};

int xlat__waitq_init(struct xlat_waitq *q, xlat_ctx *ctx, size_t capacity)
{
    q->ctx = ctx;
    q->owner = 0;
    q->head = q->tail = NULL;
    return xlat__pool_init_fixed(&q->waiters, ctx, sizeof(struct xlat_waiter),
                                 capacity ? capacity : XLAT_WAITQ_CAPACITY);
}

void xlat__waitq_release(struct xlat_waitq *q)
{
    xlat__pool_release(&q->waiters);
    q->head = q->tail = NULL;
}

int xlat__waitq_add(struct xlat_waitq *q, void (*fn)(void *user), void *user)
{
    struct xlat_waiter *w = xlat__pool_get(&q->waiters);
    if (!w)
        return XLAT_ERR_AGAIN;
    w->fn = fn;
    w->user = user;
    w->next = NULL;
    if (q->tail)
        q->tail->next = w;
    else
        q->head = w;
    q->tail = w;
    return XLAT_OK;
}

void xlat__waitq_wake(struct xlat_waitq *q)
{
    struct xlat_waiter *w = q->head;
    q->head = q->tail = NULL;
    while (w) {
        struct xlat_waiter *next = w->next;
        xlat__post(q->ctx, q->owner, 0, w->fn, w->user);
        xlat__pool_put(&q->waiters, w);
        w = next;
    }
}
