/*
 * Who hears of a TLB array's changes: eviction listeners (public) and
 * invalidation observers (internal: the timed unit). The array calls them
 * once its own state is final, so a callback may use the TLB again, add or
 * remove callbacks, itself included.
 *
 * While a list is being called, a removal only empties its slot (the
 * indices of the call in progress stay valid) and the list is compacted
 * when the outermost call is over; a callback added meanwhile is first
 * called for the next change.
 */
#include "tlb_internal.h"
#include "tlb_id.h"

int xlat__tlb_hooks_add(xlat_ctx *ctx, struct tlb_hooks *h, void (*fn)(void), void *user)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 2;
        struct tlb_hook *v = xlat__calloc(ctx, cap, sizeof(*v));
        if (!v)
            return XLAT_ERR_NOMEM;
        if (h->n)
            memcpy(v, h->v, h->n * sizeof(*v));
        xlat__free(ctx, h->v, h->cap * sizeof(*v));
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n].fn = fn;
    h->v[h->n].user = user;
    h->n++;
    return XLAT_OK;
}

static void compact(struct tlb_hooks *h)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->n; i++)
        if (h->v[i].fn)
            h->v[kept++] = h->v[i];
    h->n = kept;
    h->holes = false;
}

int xlat__tlb_hooks_remove(struct tlb_hooks *h, void (*fn)(void), void *user)
{
    for (uint32_t i = 0; i < h->n; i++) {
        if (h->v[i].fn != fn || h->v[i].user != user)
            continue;
        h->v[i].fn = NULL;
        h->holes = true;
        if (h->depth == 0)
            compact(h);
        return XLAT_OK;
    }
    return XLAT_ERR_NOT_FOUND;
}

void xlat__tlb_hooks_release(xlat_ctx *ctx, struct tlb_hooks *h)
{
    xlat__free(ctx, h->v, h->cap * sizeof(*h->v));
    memset(h, 0, sizeof(*h));
}

size_t xlat__tlb_hooks_bytes(const struct tlb_hooks *h) { return h->cap * sizeof(*h->v); }

int xlat__tlb_observe(xlat_tlb *t, tlb_inval_fn fn, void *user)
{
    return xlat__tlb_hooks_add(t->ctx, &t->inval_observers, (void (*)(void))fn, user);
}

void xlat__tlb_unobserve(xlat_tlb *t, tlb_inval_fn fn, void *user)
{
    xlat__tlb_hooks_remove(&t->inval_observers, (void (*)(void))fn, user);
}

int xlat__tlb_watch_gone(xlat_tlb *t, xlat__tlb_gone_fn fn, void *user)
{
    return xlat__tlb_hooks_add(t->ctx, &t->gone_watchers, (void (*)(void))fn, user);
}

void xlat__tlb_unwatch_gone(xlat_tlb *t, xlat__tlb_gone_fn fn, void *user)
{
    xlat__tlb_hooks_remove(&t->gone_watchers, (void (*)(void))fn, user);
}

/* A call of a list covers the callbacks present when it begins, in order;
 * each slot is read again before its call, as an earlier callback may have
 * emptied it or moved the array. */
static uint32_t call_begin(struct tlb_hooks *h)
{
    h->depth++;
    return h->n;
}

static bool call_next(const struct tlb_hooks *h, uint32_t *i, uint32_t n, struct tlb_hook *k)
{
    while (*i < n) {
        *k = h->v[(*i)++];
        if (k->fn)
            return true;
    }
    return false;
}

static void call_end(struct tlb_hooks *h)
{
    if (--h->depth == 0 && h->holes)
        compact(h);
}

void xlat__tlb_notify_invalidated(xlat_tlb *t, const struct tlb_shootdown *sd)
{
    struct tlb_hooks *h = &t->inval_observers;
    struct tlb_hook k;
    uint32_t i = 0, n = call_begin(h);
    while (call_next(h, &i, n, &k))
        ((tlb_inval_fn)k.fn)(k.user, sd);
    call_end(h);
}

void xlat__tlb_notify_gone(xlat_tlb *t)
{
    struct tlb_hooks *h = &t->gone_watchers;
    struct tlb_hook k;
    uint32_t i = 0, n = call_begin(h);
    while (call_next(h, &i, n, &k))
        ((xlat__tlb_gone_fn)k.fn)(k.user, t);
    call_end(h);
}

void xlat__tlb_notify_evicted(xlat_tlb *t, const xlat_tlb_entry *gone)
{
    if (t->evict_fn)
        t->evict_fn(t->evict_user, t, gone);
    struct tlb_hooks *h = &t->evict_listeners;
    struct tlb_hook k;
    uint32_t i = 0, n = call_begin(h);
    while (call_next(h, &i, n, &k))
        ((xlat_tlb_evict_fn)k.fn)(k.user, t, gone);
    call_end(h);
}

int xlat_tlb_evict_listen(xlat_tlb *t, xlat_tlb_evict_fn fn, void *user)
{
    if (!t || !fn)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_evict_listen: NULL %s",
                          t ? "fn" : "tlb");
    if (xlat__tlb_hooks_add(t->ctx, &t->evict_listeners, (void (*)(void))fn, user) != XLAT_OK)
        return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for a listener",
                          t->name);
    return XLAT_OK;
}

int xlat_tlb_evict_unlisten(xlat_tlb *t, xlat_tlb_evict_fn fn, void *user)
{
    if (!t || !fn)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_evict_unlisten: NULL %s",
                          t ? "fn" : "tlb");
    if (xlat__tlb_hooks_remove(&t->evict_listeners, (void (*)(void))fn, user) != XLAT_OK)
        return xlat__fail(t->ctx, XLAT_ERR_NOT_FOUND, "tlb %s: no such eviction listener",
                          t->name);
    return XLAT_OK;
}
