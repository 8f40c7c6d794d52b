/* The event engine: a hierarchical timing wheel (see wheel.h). */
#include "internal.h"

void xlat__wheel_init(struct xlat_wheel *w);
int xlat__wheel_reserve(xlat_ctx *ctx, uint32_t capacity);
void xlat__wheel_release(xlat_ctx *ctx);

void xlat__wheel_init(struct xlat_wheel *w)
{
    memset(w, 0, sizeof(*w));
    for (unsigned l = 0; l < XLAT_WHEEL_LEVELS; l++)
        for (unsigned s = 0; s < XLAT_WHEEL_SLOTS; s++)
            w->slot[l][s].head = w->slot[l][s].tail = XLAT_WHEEL_NIL;
    w->free_list = XLAT_WHEEL_NIL;
    w->ready_head = w->ready_tail = XLAT_WHEEL_NIL;
}

/* Grows the node pool to at least `capacity`; node indices stay valid. */
int xlat__wheel_reserve(xlat_ctx *ctx, uint32_t capacity)
{
    struct xlat_wheel *w = &ctx->wheel;
    if (capacity <= w->capacity)
        return XLAT_OK;
    struct xlat_event *ev = xlat__calloc(ctx, capacity, sizeof(*ev));
    if (!ev)
        return XLAT_ERR_NOMEM;
    if (w->events)
        memcpy(ev, w->events, (size_t)w->capacity * sizeof(*ev));
    xlat__free(ctx, w->events, (size_t)w->capacity * sizeof(*ev));
    for (uint32_t i = capacity; i-- > w->capacity;) {
        ev[i].next = w->free_list;
        w->free_list = i;
    }
    w->events = ev;
    w->capacity = capacity;
    return XLAT_OK;
}

void xlat__wheel_release(xlat_ctx *ctx)
{
    struct xlat_wheel *w = &ctx->wheel;
    xlat__free(ctx, w->events, (size_t)w->capacity * sizeof(*w->events));
    w->events = NULL;
    w->capacity = 0;
}

/* Makes room for `more` events beyond what is promised already. */
static int ensure_room(xlat_ctx *ctx, size_t more)
{
    struct xlat_wheel *w = &ctx->wheel;
    size_t need = w->reserved + w->host_pending + more;
    if (need <= w->capacity)
        return XLAT_OK;
    if (need >= XLAT_WHEEL_NIL)
        return XLAT_ERR_NOMEM;
    size_t grown = (size_t)w->capacity * 2;
    if (grown < need || grown >= XLAT_WHEEL_NIL)
        grown = need;
    return xlat__wheel_reserve(ctx, (uint32_t)grown);
}

int xlat_schedule(xlat_ctx *ctx, uint64_t delay, xlat_event_fn fn, void *user)
{
    if (!ctx || !fn)
        return xlat__fail(ctx, XLAT_ERR_INVAL, "xlat_schedule: %s is NULL", ctx ? "fn" : "ctx");
    if (delay >= XLAT_NEVER - ctx->now)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_schedule: delay %llu from cycle %llu reaches XLAT_NEVER",
                          (unsigned long long)delay, (unsigned long long)ctx->now);
    struct xlat_wheel *w = &ctx->wheel;
    /* The host's events never eat into what the units were promised. */
    if (ensure_room(ctx, 1) != XLAT_OK)
        return xlat__fail(ctx, XLAT_ERR_NOMEM,
                          "xlat_schedule: cannot grow the event pool beyond %u events",
                          w->capacity);
    w->host_pending++;
    xlat__wheel_enqueue(ctx, xlat__wheel_take(w), 0, delay, fn, user);
    return XLAT_OK;
}

int xlat__events_reserve(xlat_ctx *ctx, size_t n)
{
    if (ensure_room(ctx, n) != XLAT_OK)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory for %zu more events", n);
    ctx->wheel.reserved += n;
    return XLAT_OK;
}

void xlat__events_unreserve(xlat_ctx *ctx, size_t n) { ctx->wheel.reserved -= n; }

void xlat__post_overrun(xlat_ctx *ctx, uint32_t owner, uint64_t delay, xlat_event_fn fn,
                        void *user)
{
    /* A unit posted beyond the budget it reserved: a libxlat bug that the
     * tests watch for. Growing keeps the event rather than lose it. */
    struct xlat_wheel *w = &ctx->wheel;
    w->overruns++;
    if (xlat__wheel_reserve(ctx, w->capacity * 2) != XLAT_OK)
        return;
    xlat__wheel_enqueue(ctx, xlat__wheel_take(w), owner, delay, fn, user);
}

size_t xlat__events_overruns(const xlat_ctx *ctx) { return ctx->wheel.overruns; }

size_t xlat_pending_events(const xlat_ctx *ctx) { return ctx ? ctx->wheel.pending : 0; }

/* The earliest cycle with an event in the wheel (the ready queue aside). */
static uint64_t wheel_next(const struct xlat_wheel *w)
{
    if (w->pending == 0) /* every event fired (the ready queue counts in pending) */
        return XLAT_NEVER;
    /* The lowest non-empty level holds the earliest events, and within a
     * level no slot below the position's digit is ever occupied. */
    for (unsigned level = 0; level < XLAT_WHEEL_LEVELS; level++) {
        if (!w->occupied[level])
            continue;
        unsigned s = (unsigned)__builtin_ctzll(w->occupied[level]);
        if (level == 0)
            return (w->position & ~(uint64_t)(XLAT_WHEEL_SLOTS - 1)) | s;
        return w->slot[level][s].min_cycle;
    }
    return XLAT_NEVER;
}

uint64_t xlat_next_event(const xlat_ctx *ctx)
{
    if (!ctx || ctx->wheel.pending == 0)
        return XLAT_NEVER;
    if (ctx->wheel.ready_head != XLAT_WHEEL_NIL)
        return ctx->now;
    return wheel_next(&ctx->wheel);
}

/* Moves the wheel to `cycle`, the earliest pending event: only the slot that
 * holds it at the highest changed digit needs re-filing. Then the events of
 * `cycle` leave the wheel for the ready queue, in their order. */
static void move_to(struct xlat_wheel *w, uint64_t cycle)
{
    unsigned level = xlat__wheel_level_of(cycle, w->position);
    w->position = cycle;
    if (level > 0) {
        unsigned s = xlat__wheel_digit(cycle, level);
        struct xlat_wheel_slot *slot = &w->slot[level][s];
        uint32_t i = slot->head;
        slot->head = slot->tail = XLAT_WHEEL_NIL;
        w->occupied[level] &= ~(1ull << s);
        while (i != XLAT_WHEEL_NIL) {
            uint32_t next = w->events[i].next;
            xlat__wheel_file(w, i);
            i = next;
        }
    }
    unsigned s = xlat__wheel_digit(cycle, 0);
    struct xlat_wheel_slot *due = &w->slot[0][s];
    if (w->ready_head == XLAT_WHEEL_NIL)
        w->ready_head = due->head;
    else
        w->events[w->ready_tail].next = due->head;
    w->ready_tail = due->tail;
    due->head = due->tail = XLAT_WHEEL_NIL;
    w->occupied[0] &= ~(1ull << s);
}

/* Fires the ready queue, including what the callbacks post for this same
 * cycle (they append to it). */
static void fire_ready(struct xlat_wheel *w)
{
    while (w->ready_head != XLAT_WHEEL_NIL) {
        uint32_t i = w->ready_head;
        struct xlat_event ev = w->events[i];
        w->ready_head = ev.next;
        w->events[i].next = w->free_list;
        w->free_list = i;
        w->pending--;
        if (ev.owner == 0)
            w->host_pending--;
        ev.fn(ev.user); /* may post: the pool may move, `w` stays valid */
    }
}

int xlat_advance(xlat_ctx *ctx, uint64_t cycles)
{
    if (!ctx)
        return XLAT_ERR_INVAL;
    if (ctx->in_advance)
        return xlat__fail(ctx, XLAT_ERR_STATE,
                          "xlat_advance: called from inside a callback of the same context");
    if (cycles >= XLAT_NEVER - ctx->now)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "xlat_advance: %llu cycles from cycle %llu reach XLAT_NEVER",
                          (unsigned long long)cycles, (unsigned long long)ctx->now);
    uint64_t target = ctx->now + cycles;
    struct xlat_wheel *w = &ctx->wheel;
    ctx->in_advance = 1;
    for (;;) {
        fire_ready(w); /* what is due at ctx->now */
        uint64_t next = wheel_next(w);
        if (next > target)
            break;
        move_to(w, next);
        ctx->now = next;
    }
    ctx->now = target;
    ctx->in_advance = 0;
    return XLAT_OK;
}

int xlat_tick(xlat_ctx *ctx) { return xlat_advance(ctx, 1); }

/* Frees node `i` if `match` selects it; else returns 0. */
static int drop_if(struct xlat_wheel *w, uint32_t i,
                   int (*match)(void *match_user, const struct xlat_event *ev), void *match_user)
{
    struct xlat_event *ev = &w->events[i];
    if (!match(match_user, ev))
        return 0;
    if (ev->owner == 0)
        w->host_pending--;
    ev->next = w->free_list;
    w->free_list = i;
    w->pending--;
    return 1;
}

/* Drops every pending event that `match` selects, so that a unit being
 * destroyed leaves nothing that points into it; the rest keep their order. */
static void cancel_matching(xlat_ctx *ctx, int (*match)(void *, const struct xlat_event *),
                            void *match_user)
{
    struct xlat_wheel *w = &ctx->wheel;
    uint32_t i = w->ready_head;
    w->ready_head = w->ready_tail = XLAT_WHEEL_NIL;
    while (i != XLAT_WHEEL_NIL) {
        uint32_t next = w->events[i].next;
        if (!drop_if(w, i, match, match_user))
            xlat__wheel_push_ready(w, i);
        i = next;
    }
    for (unsigned level = 0; level < XLAT_WHEEL_LEVELS; level++) {
        for (unsigned s = 0; s < XLAT_WHEEL_SLOTS; s++) {
            struct xlat_wheel_slot *slot = &w->slot[level][s];
            i = slot->head;
            slot->head = slot->tail = XLAT_WHEEL_NIL;
            w->occupied[level] &= ~(1ull << s);
            while (i != XLAT_WHEEL_NIL) {
                uint32_t next = w->events[i].next;
                if (!drop_if(w, i, match, match_user))
                    xlat__wheel_file(w, i);
                i = next;
            }
        }
    }
}

struct fn_match {
    int (*match)(void *match_user, xlat_event_fn fn, void *user);
    void *match_user;
};

static int match_by_fn(void *arg, const struct xlat_event *ev)
{
    const struct fn_match *m = arg;
    return m->match(m->match_user, ev->fn, ev->user);
}

void xlat__cancel_events(xlat_ctx *ctx, int (*match)(void *match_user, xlat_event_fn fn, void *user),
                         void *match_user)
{
    struct fn_match m = {match, match_user};
    cancel_matching(ctx, match_by_fn, &m);
}

static int match_by_owner(void *arg, const struct xlat_event *ev)
{
    return ev->owner == *(const uint32_t *)arg;
}

void xlat__cancel_owner(xlat_ctx *ctx, uint32_t owner)
{
    if (owner != 0)
        cancel_matching(ctx, match_by_owner, &owner);
}
