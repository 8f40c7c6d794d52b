/* The unit skeleton (see unit.h). */
#include "unit.h"

int xlat__unit_init(struct xlat__unit *u, xlat_ctx *ctx, const struct xlat__unit_spec *spec)
{
    memset(u, 0, sizeof(*u));
    u->ctx = ctx;
    u->kind = spec->kind;
    u->id = xlat__unit_new_id(ctx); /* the registry's ids: 0 is the host's */
    xlat__clock_set(&u->clock, spec->clock_num, spec->clock_den);
    u->name = xlat__strdup(ctx, spec->name ? spec->name : spec->kind);
    int rc = u->name ? XLAT_OK : XLAT_ERR_NOMEM;
    if (rc == XLAT_OK)
        rc = spec->fixed ? xlat__pool_init_fixed(&u->reqs, ctx, spec->req_size, spec->reqs)
                         : xlat__pool_init(&u->reqs, ctx, spec->req_size, spec->reqs);
    if (rc == XLAT_OK)
        rc = xlat__waitq_init(&u->waitq, ctx, spec->waiters);
    /* Its own events, and one wake-up per sender its wait queue can hold. */
    size_t events = spec->events + (spec->waiters ? spec->waiters : XLAT_WAITQ_CAPACITY);
    if (rc == XLAT_OK && (rc = xlat__events_reserve(ctx, events)) == XLAT_OK)
        u->events = events;
    if (rc == XLAT_OK)
        rc = xlat__events_owner(ctx, &u->waitq.owner);
    if (rc != XLAT_OK) {
        xlat__unit_fini(u);
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "%s %s: out of memory for its records and %zu events",
                          spec->kind, spec->name ? spec->name : spec->kind, spec->events);
    }
    return XLAT_OK;
}

void xlat__unit_fini(struct xlat__unit *u)
{
    if (!u->ctx)
        return;
    xlat__cancel_owner(u->ctx, u->waitq.owner);
    u->waitq.owner = 0;
    xlat__events_unreserve(u->ctx, u->events);
    u->events = 0;
    xlat__waitq_release(&u->waitq);
    xlat__pool_release(&u->reqs);
    xlat__busy_forget(u->ctx, u->name);
    xlat__strfree(u->ctx, u->name);
    u->name = NULL;
}

int xlat__unit_busy(struct xlat__unit *u, const char *why)
{
    return xlat__busy(u->ctx, u->kind, u->name, why);
}

int xlat__unit_wait(struct xlat__unit *u, xlat_event_fn fn, void *user)
{
    return xlat__waitq_add(&u->waitq, fn, user);
}

size_t xlat__unit_bytes(const struct xlat__unit *u)
{
    return xlat__pool_bytes(&u->reqs) + xlat__waitq_bytes(&u->waitq);
}
