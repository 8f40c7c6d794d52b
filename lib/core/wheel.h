/*
 * A hierarchical timing wheel: the context's event queue.
 *
 * Level k holds events whose cycle agrees with the wheel's position on every
 * digit above k and differs at digit k; within a level an event sits in the
 * slot of its digit. Moving the wheel to the earliest event re-files one
 * slot, so every event is re-filed at most once per level: scheduling and
 * firing are O(1) amortized. Lists are FIFO and re-filing keeps their order,
 * so events due at the same cycle fire in the order they were scheduled.
 *
 * The digits are 6 bits wide, but level 1's is 8: level 0 has 64 slots of
 * a cycle each, level 1 256 of 64 cycles (delays up to 16,384 cycles, which
 * hold a memory's or a link's latency), and each level above 64 again.
 * Every level an event passes costs a copy of it; with level 1 wider, an
 * event up to 2^20 cycles away is copied twice instead of three times.
 * Against 6 bits everywhere, interleaved over ten rounds (tests/bench/
 * compare): a thousand or a million events pending over a thousand cycles
 * fire 7% and 14% faster, over a million cycles 21% and 7%; a burst of
 * 10^8 fires in 19 ns an event instead of 23-24. Every level 8 bits wide
 * fired as fast, but each slot is a list that may end in a partial big
 * block, which the pool promises: 2,114 lists instead of 898 made a
 * million pending cost 43.7 bytes an event instead of 38.0. Level 0 stays
 * at 64 slots: 256 slots of one event each, a million pending over a
 * million cycles, outgrew the first-level cache and ran 15% slower.
 *
 * A list is a chain of blocks, not of single nodes: re-filing a slot and
 * firing a cycle read memory in order instead of chasing one pointer per
 * event across a pool of millions, and appending writes to the tail block
 * of one of the 896 lists, which stays in cache. A list's first two blocks
 * are small (256 bytes), the rest big (a page and a line): most lists are short and keep
 * memory small, and a long one (a burst of far events, re-filed level by
 * level) is read a page at a time, which the hardware streams, where a
 * chain of small blocks strewn over the pool cost one miss to memory
 * each, prefetching or not. The line beyond the page staggers the big
 * blocks of a chunk across the cache's sets: at 4 KiB every block's
 * header, read at every append, fell in one set of the first-level cache,
 * and lists growing side by side (a re-file writes to 64 or 256) evicted
 * each other's. A million events pending over a thousand cycles fired 15%
 * faster so (tests/bench/compare, ten rounds), 10^8 scheduled at once 8%
 * (four rounds); a million over a million cycles 4% slower, which was
 * not traced further. Blocks come from chunks that are never moved or
 * copied; the pool only grows.
 *
 * Entries are near or far. A near one, in the ready queue and at levels 0
 * to 5, is 24 bytes: it keeps its cycle's low 32 bits, as a slot of level
 * 5 spans 2^32 cycles and the slot and the wheel's position give the
 * bits above. A far one, at levels 6 and above (2^38 cycles or more from
 * the position), keeps its whole cycle: 32 bytes. A small block holds 10
 * near entries or 7 far ones, a big one 172 or 129. Against 32 bytes for
 * every entry, a burst of 10^8 fires in 15 ns an event instead of 17 and
 * touches a quarter less memory, which on a VM is what its scheduling
 * waits on; the steady rows and whole systems did not move (interleaved
 * rounds of tests/bench/compare, doc/performance.md).
 *
 * Memory: the blocks promised for E events (units' budgets, the host's
 * pending events, ghosts) are min(E, 1796) + 2 small ones (a list holds two
 * at most, each with an entry) and E/129 + min(E/15, 898) + 3 big ones (a
 * list has a big block only behind 14 entries; its tail may be partial,
 * and the ready queue's and a slot being re-filed may each have a partial
 * head too): the far counts, which hold for any mix of near and far
 * lists. About 33 bytes an event allocated in a big pool, of which near
 * entries touch 24; a context starts with room for 64 (66 small and 7
 * big blocks, 45 KiB, touched only as used).
 *
 * Cancelling is cheap: a destroyed unit's events are found by their owner
 * when they come up (the owner table says it is dead), not by a search;
 * they are "ghosts" until then, counted so the pool never promises their
 * room, and dropped all at once rather than grown for when the pool runs
 * short.
 *
 * The owner table is a dense array of pending counts, one place per unit,
 * handed out at the unit's create (xlat__events_owner) and kept in the
 * unit: an event carries its owner's place, so that posting and firing
 * each touch its count directly, without a search. Place 0 is the host's.
 * A destroyed unit's place stays taken while its ghosts remain.
 */
#ifndef XLAT_CORE_WHEEL_H
#define XLAT_CORE_WHEEL_H

#include <stdint.h>
#include <stddef.h>

#define XLAT_WHEEL_BITS 6 /* the digit of level 0 and of levels 2 and above */
#define XLAT_WHEEL_SLOTS (1u << XLAT_WHEEL_BITS)
#define XLAT_WHEEL_UPPER_BITS 8 /* level 1's digit */
#define XLAT_WHEEL_UPPER_SLOTS (1u << XLAT_WHEEL_UPPER_BITS)
#define XLAT_WHEEL_LEVELS 11 /* 6 + 8 + 8 x 6 bits, and level 10 holds bits 62 and 63 */
#define XLAT_WHEEL_SLOTS_ALL (XLAT_WHEEL_UPPER_SLOTS + (XLAT_WHEEL_LEVELS - 1) * XLAT_WHEEL_SLOTS)
/* Lists that can hold blocks at once: the slots, the ready queue and a
 * slot being re-filed. */
#define XLAT_WHEEL_LISTS (XLAT_WHEEL_SLOTS_ALL + 2)
/* A block's bytes, header included: a small one is four cache lines, a
 * big one a page and a line. */
#define XLAT_EVENT_SMALL_BYTES 256
#define XLAT_EVENT_BIG_BYTES 4160
#define XLAT_EVENT_HEADER 16
/* Entries of a block: near (the ready queue and levels 0 to 5, 24 bytes)
 * and far (levels 6 and above, 32 bytes). The pool's promise counts far
 * ones, which hold fewer. */
#define XLAT_EVENT_SMALL_NEAR ((XLAT_EVENT_SMALL_BYTES - XLAT_EVENT_HEADER) / 24) /* 10 */
#define XLAT_EVENT_BIG_NEAR ((XLAT_EVENT_BIG_BYTES - XLAT_EVENT_HEADER) / 24)     /* 172 */
#define XLAT_EVENT_SMALL ((XLAT_EVENT_SMALL_BYTES - XLAT_EVENT_HEADER) / 32)      /* 7 */
#define XLAT_EVENT_BIG ((XLAT_EVENT_BIG_BYTES - XLAT_EVENT_HEADER) / 32)          /* 129 */
#define XLAT_EVENT_SMALL_LIST 2 /* small blocks at the front of a list */
#define XLAT_OWNER_DEAD 0x80000000u /* owner table: the unit was destroyed */
#define XLAT_OWNER_MIN 64           /* places of the owner table at first */
/* Level 6's lowest bit: a cycle that differs from the wheel's position
 * there or above is far, and its slot's span is more than 2^32 cycles. */
#define XLAT_WHEEL_FAR_BIT 38
#define XLAT_WHEEL_FAR_INDEX (XLAT_WHEEL_SLOTS * (6 + 3)) /* level 6's first slot */

/* A list's entries are all near or all far, as its slot is: the ready
 * queue's and those of levels 0 to 5 near, the others far. A block's
 * format is its list's; the pool keeps free blocks near. */

/* A near entry: the cycle's low 32 bits, which with its slot and the
 * wheel's position give the whole cycle (a slot of level 5 spans 2^32
 * cycles, one of level 0 a single cycle). */
struct xlat_event {
    void (*fn)(void *user);
    void *user;
    uint32_t owner; /* the poster's place in the owner table; 0: the host (xlat_schedule) */
    uint32_t lo;    /* the cycle's low 32 bits */
};

/* A far entry: a near one and its whole cycle. */
struct xlat_event_far {
    struct xlat_event e;
    uint64_t cycle;
};

struct xlat_event_block {
    struct xlat_event_block *next;
    uint32_t count; /* entries written */
    uint16_t cap;   /* entries it holds: XLAT_EVENT_*_NEAR, or the far counts while in a far list */
    uint16_t big;   /* 0 or 1: its free list (an index, not a test, where every event frees one) */
    struct xlat_event ev[]; /* in a near list; in a far one, the entries are xlat__far_at()'s */
};

/* Entry `i` of a far block. */
static inline struct xlat_event_far *xlat__far_at(struct xlat_event_block *b, uint32_t i)
{
    return (struct xlat_event_far *)(void *)b->ev + i;
}

struct xlat_event_list {
    struct xlat_event_block *head, *tail; /* NULL, NULL: empty */
};

struct xlat_wheel_slot {
    struct xlat_event_list list;
    uint64_t min_cycle; /* earliest cycle in the slot (levels above 0) */
} __attribute__((aligned(32))); /* a slot's address is a shift away */

struct xlat_event_chunk; /* an allocation of blocks (event.c) */

struct xlat_wheel {
    uint64_t position; /* cycle of the last event fired (or 0) */
    size_t pending;    /* events that will run (ghosts excluded) */
    size_t ghosts;     /* cancelled entries still in a list */
    /* The ready queue: events due at the current cycle, in the order they
     * were posted. A delay-0 post appends here without touching the wheel;
     * when the clock reaches a cycle, that cycle's slot becomes the queue.
     * The first `ready_pos` entries of its head block have run, and never
     * all of them: a block leaves as its last entry runs. */
    struct xlat_event_list ready;
    uint32_t ready_pos;
    /* Capacity promised to units (their event budgets, reserved at create),
     * and events the host scheduled itself: the pool always holds at least
     * reserved + host_pending + ghosts entries, so a unit's post never has
     * to grow it. */
    size_t reserved;
    size_t host_pending;
    size_t overruns; /* posts beyond a unit's budget (a bug; tests watch it) */
    /* The owner table: by place, a unit's pending events, with
     * XLAT_OWNER_DEAD once it is destroyed; a free place holds the next
     * free one (0: none). Grown only when a unit is created. */
    uint32_t *owners;
    uint32_t owner_places; /* allocated */
    uint32_t owner_used;   /* places handed out at least once (place 0 included) */
    uint32_t owner_free;   /* the first free place, or 0 */
    uint32_t owner_count;  /* units holding a place, dead ones included */
    /* Bit i: slot i of the array holds a list. */
    uint64_t occupied[XLAT_WHEEL_SLOTS_ALL / 64];
    struct xlat_wheel_slot slot[XLAT_WHEEL_SLOTS_ALL];
    struct xlat_event_block *free_blocks[2]; /* small (what a list starts with), big */
    /* Chunks with blocks never used yet, small [0] and big [1], the
     * newest first: their blocks are taken in address order after the
     * free ones, so that a chunk's memory is touched only as the events
     * come (and its pages stay unmapped until then), an older chunk's
     * rest too. */
    struct xlat_event_chunk *carving[2];
    size_t capacity; /* entries the blocks are sure to hold (xlat__wheel_small_for, _big_for) */
    size_t small_blocks, big_blocks;
    struct xlat_event_chunk *chunks;
};

/* The level of an event due at `cycle`, seen from `position`: level 0
 * for bits 0-5 of the highest that differs, level 1 for bits 6-13, level
 * k above for bits 6k+2 to 6k+7. */
static inline unsigned xlat__wheel_level_of(uint64_t cycle, uint64_t position)
{
    /* `| 1`: the same cycle is level 0, without a branch. */
    unsigned bit = (unsigned)(63 - __builtin_clzll((cycle ^ position) | 1));
    return bit < 14 ? bit >= 6 : (bit - 2) / 6;
}

/* The lowest bit of level `level`'s digit. */
static inline unsigned xlat__wheel_shift(unsigned level)
{
    return level < 2 ? 6 * level : 6 * level + 2;
}

/* The slots of level `level`. */
static inline unsigned xlat__wheel_slots_at(unsigned level)
{
    return level == 1 ? XLAT_WHEEL_UPPER_SLOTS : XLAT_WHEEL_SLOTS;
}

/* Where level `level` starts in the array of slots. */
static inline unsigned xlat__wheel_base(unsigned level)
{
    return level < 2 ? XLAT_WHEEL_SLOTS * level : XLAT_WHEEL_SLOTS * (level + 3);
}

/* The slot (its place in the array) of an event due at `cycle`, seen from
 * `position`. */
static inline unsigned xlat__wheel_index(uint64_t cycle, uint64_t position)
{
    unsigned level = xlat__wheel_level_of(cycle, position);
    unsigned digit = (unsigned)(cycle >> xlat__wheel_shift(level));
    return xlat__wheel_base(level) + (digit & (xlat__wheel_slots_at(level) - 1));
}

static inline void xlat__wheel_mark(struct xlat_wheel *w, unsigned index)
{
    w->occupied[index / 64] |= 1ull << (index % 64);
}

static inline void xlat__wheel_unmark(struct xlat_wheel *w, unsigned index)
{
    w->occupied[index / 64] &= ~(1ull << (index % 64));
}

/* Small blocks that hold `entries` pending entries however they spread
 * (see the top of this file). */
static inline size_t xlat__wheel_small_for(size_t entries)
{
    size_t most = XLAT_EVENT_SMALL_LIST * (size_t)XLAT_WHEEL_LISTS;
    return (entries < most ? entries : most) + 2;
}

/* The same for big blocks. */
static inline size_t xlat__wheel_big_for(size_t entries)
{
    size_t behind = XLAT_EVENT_SMALL_LIST * XLAT_EVENT_SMALL + 1; /* entries before a big block */
    size_t lists = entries / behind < XLAT_WHEEL_LISTS ? entries / behind : XLAT_WHEEL_LISTS;
    return entries / XLAT_EVENT_BIG + lists + 3;
}

/* Blocks, small or `big`, that no list has had yet (the tests count every
 * block: in a list, free, or not carved yet). */
size_t xlat__wheel_uncarved(const struct xlat_wheel *w, int big);

/* A new block at the end of `l` (empty, or with a full tail), near or
 * `far` as the list is, holding one entry, its first, which is returned;
 * NULL when no block is free (event.c). */
void *xlat__list_extend(struct xlat_wheel *w, struct xlat_event_list *l, int far);

/* A new entry at the end of near list `l`, or NULL when no block is free. */
static inline struct xlat_event *xlat__list_append(struct xlat_wheel *w, struct xlat_event_list *l)
{
    struct xlat_event_block *b = l->tail;
    if (__builtin_expect(b && b->count < b->cap, 1))
        return &b->ev[b->count++];
    return xlat__list_extend(w, l, 0);
}

/* The slow part of xlat__wheel_slot_entry: the slot's tail block is full
 * or it has none (event.c). */
struct xlat_event *xlat__wheel_slot_grow(struct xlat_wheel *w, unsigned index, uint64_t cycle);

/* A new entry in far slot `index` (XLAT_WHEEL_FAR_INDEX or above) for an
 * event due at `cycle`, or NULL when no block is free (event.c). */
struct xlat_event_far *xlat__wheel_far_entry(struct xlat_wheel *w, unsigned index, uint64_t cycle);

/* A new entry in near slot `index` of the array (below
 * XLAT_WHEEL_FAR_INDEX), for an event due at `cycle`; NULL when no block
 * is free. A free block is near, as the pool keeps them. */
static inline struct xlat_event *xlat__wheel_slot_entry_at(struct xlat_wheel *w, unsigned index,
                                                           uint64_t cycle)
{
    struct xlat_wheel_slot *slot = &w->slot[index];
    struct xlat_event_block *b = slot->list.tail;
    struct xlat_event_block *fresh = w->free_blocks[0];
    if (!b && fresh) { /* an empty slot: most posts, when few events are pending */
        w->free_blocks[0] = fresh->next;
        fresh->next = NULL;
        fresh->count = 1;
        slot->list.head = slot->list.tail = fresh;
        slot->min_cycle = cycle;
        xlat__wheel_mark(w, index);
        return &fresh->ev[0];
    }
    if (__builtin_expect(!b || b->count == b->cap, 0))
        return xlat__wheel_slot_grow(w, index, cycle);
    if (cycle < slot->min_cycle)
        slot->min_cycle = cycle;
    return &b->ev[b->count++];
}

/* A new entry in the near slot `cycle` belongs to, seen from the wheel's
 * position; NULL when no block is free. Inline, as the rest of posting:
 * every unit posts on its hot path, from other files than the engine's.
 * Most events are due within the position's span of level 0 (a unit's
 * latency of a few cycles): one test finds their slot. */
static inline struct xlat_event *xlat__wheel_slot_entry(struct xlat_wheel *w, uint64_t cycle)
{
    if (__builtin_expect((cycle ^ w->position) < XLAT_WHEEL_SLOTS, 1))
        return xlat__wheel_slot_entry_at(w, (unsigned)cycle & (XLAT_WHEEL_SLOTS - 1), cycle);
    return xlat__wheel_slot_entry_at(w, xlat__wheel_index(cycle, w->position), cycle);
}

/* Fills new entry `e` with an event of owner place `owner` and counts it
 * (a far entry's whole cycle is its caller's to write). */
static inline void xlat__wheel_fill(struct xlat_wheel *w, struct xlat_event *e, uint64_t cycle,
                                    uint32_t owner, void (*fn)(void *), void *user)
{
    e->fn = fn;
    e->user = user;
    e->owner = owner;
    e->lo = (uint32_t)cycle;
    w->pending++;
    w->owners[owner]++;
}

/* xlat__wheel_post for a far cycle (event.c). */
int xlat__wheel_post_far(struct xlat_wheel *w, uint64_t cycle, uint32_t owner,
                         void (*fn)(void *), void *user);

/* Queues an event of owner place `owner` at `cycle` (`now` + delay): due now goes to the
 * ready queue, later to the wheel. 0 when no block is free. */
static inline int xlat__wheel_post(struct xlat_wheel *w, uint64_t now, uint64_t cycle,
                                   uint32_t owner, void (*fn)(void *), void *user)
{
    struct xlat_event *e;
    uint64_t differ = cycle ^ w->position;
    if (cycle == now)
        e = xlat__list_append(w, &w->ready);
    else if (__builtin_expect(differ < XLAT_WHEEL_SLOTS, 1)) /* level 0 */
        e = xlat__wheel_slot_entry_at(w, (unsigned)cycle & (XLAT_WHEEL_SLOTS - 1), cycle);
    else if (__builtin_expect(differ >> XLAT_WHEEL_FAR_BIT, 0))
        return xlat__wheel_post_far(w, cycle, owner, fn, user);
    else
        e = xlat__wheel_slot_entry_at(w, xlat__wheel_index(cycle, w->position), cycle);
    if (!e)
        return 0;
    xlat__wheel_fill(w, e, cycle, owner, fn, user);
    return 1;
}

/* A new entry for an event due at `cycle` when one is at hand: in the
 * ready queue or a slot of level 0 (most posts: a unit's latency of a few
 * cycles), in its tail block if it has room or in a free block if the list
 * is empty. NULL otherwise, and xlat__wheel_post does the rest: the units'
 * inline posts then hold nothing across a call. A slot's min_cycle is not
 * kept at level 0, where all its events are due at one cycle. */
static inline struct xlat_event *xlat__wheel_quick_entry(struct xlat_wheel *w, uint64_t now,
                                                         uint64_t cycle)
{
    struct xlat_event_list *l = &w->ready;
    uint64_t bit = 0; /* in the occupied mask of level 0 */
    if (cycle != now) {
        if (__builtin_expect((cycle ^ w->position) >= XLAT_WHEEL_SLOTS, 0))
            return NULL;
        l = &w->slot[cycle & (XLAT_WHEEL_SLOTS - 1)].list;
        bit = 1ull << (cycle & (XLAT_WHEEL_SLOTS - 1));
    }
    struct xlat_event_block *b = l->tail;
    if (b)
        return b->count < b->cap ? &b->ev[b->count++] : NULL;
    b = w->free_blocks[0];
    if (!b)
        return NULL;
    w->free_blocks[0] = b->next;
    b->next = NULL;
    b->count = 1;
    l->head = l->tail = b;
    w->occupied[0] |= bit;
    return &b->ev[0];
}

/* Some event of the ready queue is still to run (the slow part: ghosts). */
int xlat__wheel_ready_live(const struct xlat_wheel *w);

static inline int xlat__wheel_ready_empty(const struct xlat_wheel *w)
{
    if (!w->ready.head) /* else its head block has an entry to run */
        return 1;
    return w->ghosts && !xlat__wheel_ready_live(w);
}

#endif /* XLAT_CORE_WHEEL_H */
