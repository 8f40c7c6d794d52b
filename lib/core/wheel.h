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

#endif /* XLAT_CORE_WHEEL_H */
