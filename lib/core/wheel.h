/*
 * A hierarchical timing wheel: the context's event queue.
 *
 * Level k holds events whose cycle agrees with the wheel's position on every
 * 6-bit digit above k and differs at digit k; within a level an event sits in
 * the slot of its digit. Moving the wheel to the earliest event re-files one
 * slot, so every event is re-filed at most once per level: scheduling and
 * firing are O(1) amortized. Lists are FIFO and re-filing keeps their order,
 * so events due at the same cycle fire in the order they were scheduled.
 */
#ifndef XLAT_CORE_WHEEL_H
#define XLAT_CORE_WHEEL_H

#include <stdint.h>
#include <stddef.h>

#define XLAT_WHEEL_BITS 6
#define XLAT_WHEEL_SLOTS (1u << XLAT_WHEEL_BITS)
#define XLAT_WHEEL_LEVELS 11 /* ceil(64 / 6) */
#define XLAT_WHEEL_NIL UINT32_MAX

struct xlat_event {
    uint64_t cycle;
    void (*fn)(void *user);
    void *user;
    uint32_t next;
    uint32_t owner; /* unit id of the poster; 0: the host (xlat_schedule) */
};

struct xlat_wheel_slot {
    uint32_t head, tail;
    uint64_t min_cycle; /* earliest cycle in the slot (levels above 0) */
};

struct xlat_wheel {
    uint64_t position; /* cycle of the last event fired (or 0) */
    size_t pending;
    /* The ready queue: events due at the current cycle, in the order they
     * were posted. A delay-0 post appends here without touching the wheel;
     * when the clock reaches a cycle, that cycle's slot is moved here whole. */
    uint32_t ready_head, ready_tail;
    /* Capacity promised to units (their event budgets, reserved at create),
     * and events the host scheduled itself: the pool always holds at least
     * reserved + host_pending nodes, so a unit's post never has to grow it. */
    size_t reserved;
    size_t host_pending;
    size_t overruns; /* posts beyond a unit's budget (a bug; tests watch it) */
    uint64_t occupied[XLAT_WHEEL_LEVELS];
    struct xlat_wheel_slot slot[XLAT_WHEEL_LEVELS][XLAT_WHEEL_SLOTS];
    struct xlat_event *events; /* node pool, indexed by uint32 */
    uint32_t capacity;
    uint32_t free_list;
};

/* The level of an event due at `cycle`, seen from `position`. */
static inline unsigned xlat__wheel_level_of(uint64_t cycle, uint64_t position)
{
    uint64_t diff = cycle ^ position;
    return diff ? (unsigned)(63 - __builtin_clzll(diff)) / XLAT_WHEEL_BITS : 0;
}

static inline unsigned xlat__wheel_digit(uint64_t cycle, unsigned level)
{
    return (unsigned)(cycle >> (level * XLAT_WHEEL_BITS)) & (XLAT_WHEEL_SLOTS - 1);
}

/* Appends node `i` to the slot its cycle belongs to, seen from the wheel's
 * position. Inline, as the rest of posting: every unit posts on its hot
 * path, from other files than the engine's. */
static inline void xlat__wheel_file(struct xlat_wheel *w, uint32_t i)
{
    struct xlat_event *ev = &w->events[i];
    unsigned level = xlat__wheel_level_of(ev->cycle, w->position);
    unsigned s = xlat__wheel_digit(ev->cycle, level);
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

/* A free node, or XLAT_WHEEL_NIL. */
static inline uint32_t xlat__wheel_take(struct xlat_wheel *w)
{
    uint32_t i = w->free_list;
    if (i != XLAT_WHEEL_NIL)
        w->free_list = w->events[i].next;
    return i;
}

static inline void xlat__wheel_push_ready(struct xlat_wheel *w, uint32_t i)
{
    w->events[i].next = XLAT_WHEEL_NIL;
    if (w->ready_head == XLAT_WHEEL_NIL)
        w->ready_head = i;
    else
        w->events[w->ready_tail].next = i;
    w->ready_tail = i;
}

#endif /* XLAT_CORE_WHEEL_H */
