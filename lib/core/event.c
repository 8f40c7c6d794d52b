/* The event engine: a hierarchical timing wheel (see wheel.h). */
#include "internal.h"

void xlat__wheel_init(struct xlat_wheel *w);
int xlat__wheel_reserve(xlat_ctx *ctx, uint32_t capacity);
void xlat__wheel_release(xlat_ctx *ctx);

static unsigned level_of(uint64_t cycle, uint64_t position)
{
    uint64_t diff = cycle ^ position;
    return diff ? (unsigned)(63 - __builtin_clzll(diff)) / XLAT_WHEEL_BITS : 0;
}

static unsigned digit(uint64_t cycle, unsigned level)
{
    return (unsigned)(cycle >> (level * XLAT_WHEEL_BITS)) & (XLAT_WHEEL_SLOTS - 1);
}

void xlat__wheel_init(struct xlat_wheel *w)
{
    memset(w, 0, sizeof(*w));
    for (unsigned l = 0; l < XLAT_WHEEL_LEVELS; l++)
        for (unsigned s = 0; s < XLAT_WHEEL_SLOTS; s++)
            w->slot[l][s].head = w->slot[l][s].tail = XLAT_WHEEL_NIL;
    w->free_list = XLAT_WHEEL_NIL;
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

/* Appends node `i` to the slot its cycle belongs to, seen from the wheel's position. */
static void file_event(struct xlat_wheel *w, uint32_t i)
{
    struct xlat_event *ev = &w->events[i];
    unsigned level = level_of(ev->cycle, w->position);
    unsigned s = digit(ev->cycle, level);
    struct xlat_wheel_slot *slot = &w->slot[level][s];
    ev->next = XLAT_WHEEL_NIL;
    if (slot->head == XLAT_WHEEL_NIL) {
        slot->head = i;
        slot->min_cycle = ev->cycle;
        w->occupied[level] |= 1ull << s;
    } else {
        w->events[slot->tail].next = i;
        if (ev->cycle < slot->min_cycle)
            slot->min_cycle = ev->cycle;
    }
    slot->tail = i;
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
    if (w->free_list == XLAT_WHEEL_NIL) {
        uint32_t grown = w->capacity > UINT32_MAX / 4 ? UINT32_MAX - 1 : w->capacity * 2;
        if (grown <= w->capacity || xlat__wheel_reserve(ctx, grown) != XLAT_OK)
            return xlat__fail(ctx, XLAT_ERR_NOMEM,
                              "xlat_schedule: cannot grow the event pool beyond %u events",
                              w->capacity);
    }
    uint32_t i = w->free_list;
    w->free_list = w->events[i].next;
    w->events[i].cycle = ctx->now + delay;
    w->events[i].fn = fn;
    w->events[i].user = user;
    file_event(w, i);
    w->pending++;
    return XLAT_OK;
}

size_t xlat_pending_events(const xlat_ctx *ctx) { return ctx ? ctx->wheel.pending : 0; }

uint64_t xlat_next_event(const xlat_ctx *ctx)
{
    if (!ctx || ctx->wheel.pending == 0)
        return XLAT_NEVER;
    const struct xlat_wheel *w = &ctx->wheel;
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
    return XLAT_NEVER; /* unreachable while pending > 0 */
}

/* Moves the wheel to `cycle`, the earliest pending event: only the slot that
 * holds it at the highest changed digit needs re-filing. */
static void move_to(struct xlat_wheel *w, uint64_t cycle)
{
    unsigned level = level_of(cycle, w->position);
    w->position = cycle;
    if (level == 0)
        return;
    unsigned s = digit(cycle, level);
    struct xlat_wheel_slot *slot = &w->slot[level][s];
    uint32_t i = slot->head;
    slot->head = slot->tail = XLAT_WHEEL_NIL;
    w->occupied[level] &= ~(1ull << s);
    while (i != XLAT_WHEEL_NIL) {
        uint32_t next = w->events[i].next;
        file_event(w, i);
        i = next;
    }
}

/* Fires every event due at the wheel's position, including those the
 * callbacks schedule for this same cycle. */
static void fire_due(struct xlat_wheel *w)
{
    unsigned s = digit(w->position, 0);
    struct xlat_wheel_slot *slot = &w->slot[0][s];
    while (slot->head != XLAT_WHEEL_NIL) {
        uint32_t i = slot->head;
        struct xlat_event ev = w->events[i];
        slot->head = ev.next;
        if (slot->head == XLAT_WHEEL_NIL) {
            slot->tail = XLAT_WHEEL_NIL;
            w->occupied[0] &= ~(1ull << s);
        }
        w->events[i].next = w->free_list;
        w->free_list = i;
        w->pending--;
        ev.fn(ev.user); /* may schedule: `slot` stays valid, the pool may move */
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
    ctx->in_advance = 1;
    for (;;) {
        uint64_t next = xlat_next_event(ctx);
        if (next > target)
            break;
        move_to(&ctx->wheel, next);
        ctx->now = next;
        fire_due(&ctx->wheel);
    }
    ctx->now = target;
    ctx->in_advance = 0;
    return XLAT_OK;
}

int xlat_tick(xlat_ctx *ctx) { return xlat_advance(ctx, 1); }

/* Drops every pending event for which match(match_user, fn, user) is true,
 * so that a unit being destroyed leaves nothing that points into it. */
void xlat__cancel_events(xlat_ctx *ctx, int (*match)(void *match_user, xlat_event_fn fn, void *user),
                         void *match_user)
{
    struct xlat_wheel *w = &ctx->wheel;
    for (unsigned level = 0; level < XLAT_WHEEL_LEVELS; level++) {
        for (unsigned s = 0; s < XLAT_WHEEL_SLOTS; s++) {
            struct xlat_wheel_slot *slot = &w->slot[level][s];
            uint32_t i = slot->head;
            slot->head = slot->tail = XLAT_WHEEL_NIL;
            w->occupied[level] &= ~(1ull << s);
            while (i != XLAT_WHEEL_NIL) {
                struct xlat_event *ev = &w->events[i];
                uint32_t next = ev->next;
                if (match(match_user, ev->fn, ev->user)) {
                    ev->next = w->free_list;
                    w->free_list = i;
                    w->pending--;
                } else {
                    file_event(w, i);
                }
                i = next;
            }
        }
    }
}
