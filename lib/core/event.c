/* The event engine: a hierarchical timing wheel (see wheel.h). */
#include "internal.h"
#include "registry.h"

void xlat__wheel_init(struct xlat_wheel *w);
int xlat__wheel_reserve(xlat_ctx *ctx, uint32_t capacity);
void xlat__wheel_release(xlat_ctx *ctx);

_Static_assert(sizeof(struct xlat_event) == 24, "a near entry is 24 bytes");
_Static_assert(sizeof(struct xlat_event_far) == 32, "a far entry is half a cache line");
_Static_assert(sizeof(struct xlat_event_block) == XLAT_EVENT_HEADER, "the header is 16 bytes");
_Static_assert(XLAT_WHEEL_SLOTS_ALL % 64 == 0, "the occupied bitmap has whole words");
_Static_assert(XLAT_WHEEL_FAR_INDEX == XLAT_WHEEL_SLOTS + XLAT_WHEEL_UPPER_SLOTS +
                                           4 * XLAT_WHEEL_SLOTS,
               "levels 0 to 5 come before the far ones");
_Static_assert(XLAT_WHEEL_FAR_BIT == 6 * 6 + 2, "level 6's digit starts at bit 38");
#define SMALL_BYTES XLAT_EVENT_SMALL_BYTES
#define BIG_BYTES XLAT_EVENT_BIG_BYTES

/* The bytes of a block, small or `big`. */
static inline size_t block_bytes(int big) { return big ? BIG_BYTES : SMALL_BYTES; }
_Static_assert(XLAT_EVENT_SMALL_NEAR == 10 && XLAT_EVENT_BIG_NEAR == 172 &&
                   XLAT_EVENT_SMALL == 7 && XLAT_EVENT_BIG == 129,
               "the entries a block holds, near and far");

/* One allocation of blocks: this header, the small blocks, the big ones. */
struct xlat_event_chunk {
    struct xlat_event_chunk *next; /* every chunk, for the release */
    size_t bytes;
    /* Its blocks never used yet, small [0] and big [1]: [at, end), and
     * the next chunk on the wheel's `carving` stack. */
    char *at[2], *end[2];
    struct xlat_event_chunk *carving_next[2];
} __attribute__((aligned(64)));

static void drop_ghosts(struct xlat_wheel *w);
static int owners_grow(xlat_ctx *ctx);

void xlat__wheel_init(struct xlat_wheel *w) { memset(w, 0, sizeof(*w)); }

/* The block read after this one. */
static inline void prefetch_block(const struct xlat_event_block *b)
{
    if (!b)
        return;
    /* Two lines: the header and the first entries (the hardware brings
     * the rest of a full block once they are read). */
    __builtin_prefetch(b);
    __builtin_prefetch((const char *)b + 64);
}

/* Block `b` as the pool keeps a free one: near, of its size. */
static inline void format_near(struct xlat_event_block *b, int big)
{
    b->cap = big ? XLAT_EVENT_BIG_NEAR : XLAT_EVENT_SMALL_NEAR;
    b->big = (uint16_t)big;
}

/* A near block back to the pool, which keeps it as it is. */
static inline void free_near_block(struct xlat_wheel *w, struct xlat_event_block *b)
{
    b->next = w->free_blocks[b->big];
    w->free_blocks[b->big] = b;
}

static void free_block(struct xlat_wheel *w, struct xlat_event_block *b)
{
    format_near(b, b->big); /* it may come from a far list */
    free_near_block(w, b);
}

/* Adds `small` small and `big` big blocks in one chunk: the blocks already
 * out stay where they are. The chunk is not zeroed: a block's size is
 * written when it is carved, the rest when a list takes it. What is left
 * of older chunks is carved after it, and left untouched until then:
 * putting it on the free lists wrote every block's header, which faulted
 * in the whole of every chunk but the newest. */
static int add_blocks(xlat_ctx *ctx, size_t small, size_t big)
{
    struct xlat_wheel *w = &ctx->wheel;
    char *c = NULL;
    size_t bytes = 0;
    if (small < SIZE_MAX / 2 / SMALL_BYTES && big < SIZE_MAX / 2 / BIG_BYTES - 1) {
        bytes = sizeof(struct xlat_event_chunk) + small * SMALL_BYTES + big * BIG_BYTES;
        c = ctx->alloc.alloc(ctx->alloc.user, bytes, 64);
    }
    if (!c)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory (%zu bytes of events)", bytes);
    xlat__advise_huge_pages(c, bytes); /* a pool of 10^8 events spans 3 GiB */
    struct xlat_event_chunk *chunk = (struct xlat_event_chunk *)c;
    chunk->next = w->chunks;
    chunk->bytes = bytes;
    w->chunks = chunk;
    chunk->at[0] = c + sizeof(*chunk);
    chunk->end[0] = chunk->at[1] = chunk->at[0] + small * SMALL_BYTES;
    chunk->end[1] = chunk->at[1] + big * BIG_BYTES;
    for (int k = 0; k < 2; k++)
        if (chunk->at[k] != chunk->end[k]) {
            chunk->carving_next[k] = w->carving[k];
            w->carving[k] = chunk;
        }
    w->small_blocks += small;
    w->big_blocks += big;
    return XLAT_OK;
}

/* A free block, small or `big`, near or `far`; or NULL. */
static struct xlat_event_block *take_block(struct xlat_wheel *w, int big, int far)
{
    struct xlat_event_block **free = &w->free_blocks[big];
    struct xlat_event_chunk *c = w->carving[big];
    struct xlat_event_block *b = *free;
    if (b) {
        *free = b->next;
    } else if (c) { /* a chunk on the stack has a block left */
        b = (struct xlat_event_block *)c->at[big];
        c->at[big] += block_bytes(big);
        if (c->at[big] == c->end[big])
            w->carving[big] = c->carving_next[big];
        format_near(b, big);
    } else {
        return NULL;
    }
    if (far)
        b->cap = big ? XLAT_EVENT_BIG : XLAT_EVENT_SMALL;
    return b;
}

size_t xlat__wheel_uncarved(const struct xlat_wheel *w, int big)
{
    size_t n = 0;
    for (const struct xlat_event_chunk *c = w->carving[big]; c; c = c->carving_next[big])
        n += (size_t)(c->end[big] - c->at[big]) / block_bytes(big);
    return n;
}

/* A list starts with XLAT_EVENT_SMALL_LIST small blocks, then goes on
 * with big ones (wheel.h). */
void *xlat__list_extend(struct xlat_wheel *w, struct xlat_event_list *l, int far)
{
    struct xlat_event_block *t = l->tail;
    _Static_assert(XLAT_EVENT_SMALL_LIST == 2, "a list's head and the block after it");
    int small = !t || t == l->head;
    struct xlat_event_block *fresh = take_block(w, !small, far);
    if (!fresh)
        return NULL;
    fresh->next = NULL;
    fresh->count = 1;
    if (t)
        t->next = fresh;
    else
        l->head = fresh;
    l->tail = fresh;
    return fresh->ev; /* entry 0, near or far */
}

/* Slot `index` has a new entry, due at `cycle`: its earliest cycle and
 * its bit. */
static inline void slot_took(struct xlat_wheel *w, unsigned index, int was_empty, uint64_t cycle)
{
    struct xlat_wheel_slot *slot = &w->slot[index];
    if (was_empty) {
        slot->min_cycle = cycle;
        xlat__wheel_mark(w, index);
    } else if (cycle < slot->min_cycle) {
        slot->min_cycle = cycle;
    }
}

struct xlat_event *xlat__wheel_slot_grow(struct xlat_wheel *w, unsigned index, uint64_t cycle)
{
    struct xlat_wheel_slot *slot = &w->slot[index];
    int was_empty = !slot->list.tail; /* most often, in a sparse wheel */
    struct xlat_event *e = xlat__list_extend(w, &slot->list, 0);
    if (e)
        slot_took(w, index, was_empty, cycle);
    return e;
}

struct xlat_event_far *xlat__wheel_far_entry(struct xlat_wheel *w, unsigned index, uint64_t cycle)
{
    struct xlat_wheel_slot *slot = &w->slot[index];
    struct xlat_event_block *b = slot->list.tail;
    struct xlat_event_far *f;
    if (b && b->count < b->cap)
        f = xlat__far_at(b, b->count++);
    else if (!(f = xlat__list_extend(w, &slot->list, 1)))
        return NULL;
    slot_took(w, index, !b, cycle);
    return f;
}

int xlat__wheel_post_far(struct xlat_wheel *w, uint64_t cycle, uint32_t owner,
                         void (*fn)(void *), void *user)
{
    unsigned index = xlat__wheel_index(cycle, w->position);
    struct xlat_event_far *f = xlat__wheel_far_entry(w, index, cycle);
    if (!f)
        return 0;
    xlat__wheel_fill(w, &f->e, cycle, owner, fn, user);
    f->cycle = cycle;
    return 1;
}

/* Grows the pool to hold at least `capacity` entries however they spread. */
int xlat__wheel_reserve(xlat_ctx *ctx, uint32_t capacity)
{
    struct xlat_wheel *w = &ctx->wheel;
    if (capacity <= w->capacity)
        return XLAT_OK;
    size_t small = xlat__wheel_small_for(capacity), big = xlat__wheel_big_for(capacity);
    small = small > w->small_blocks ? small - w->small_blocks : 0;
    big = big > w->big_blocks ? big - w->big_blocks : 0;
    int rc = w->owners ? XLAT_OK : owners_grow(ctx);
    if (rc != XLAT_OK)
        rc = xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory (the event owner table)");
    else if (small || big)
        rc = add_blocks(ctx, small, big);
    if (rc != XLAT_OK) {
        if (w->capacity == 0) /* the context's first reserve: it keeps nothing */
            xlat__wheel_release(ctx);
        return XLAT_ERR_NOMEM;
    }
    w->capacity = capacity;
    return XLAT_OK;
}

void xlat__wheel_release(xlat_ctx *ctx)
{
    struct xlat_wheel *w = &ctx->wheel;
    while (w->chunks) {
        struct xlat_event_chunk *c = w->chunks;
        w->chunks = c->next;
        ctx->alloc.free(ctx->alloc.user, c, c->bytes); /* as add_blocks() took it */
    }
    xlat__free(ctx, w->owners, (size_t)w->owner_places * sizeof(*w->owners));
    w->owners = NULL;
    w->owner_places = w->owner_used = w->owner_free = w->owner_count = 0;
    w->free_blocks[0] = w->free_blocks[1] = NULL;
    w->carving[0] = w->carving[1] = NULL;
    w->small_blocks = w->big_blocks = w->capacity = 0;
}

/* ensure_room's slow part: the pool must grow (or lose its ghosts). */
static __attribute__((noinline)) int grow_room(xlat_ctx *ctx, size_t more)
{
    struct xlat_wheel *w = &ctx->wheel;
    size_t need = w->reserved + w->host_pending + w->ghosts + more;
    /* Rather than grow for the room of destroyed units' events, drop them
     * now, when they are a fair share of the pool (so that the cost, a read
     * of every entry, stays a fraction of the events that made it). */
    if (w->ghosts && w->ghosts >= w->pending / 8) {
        drop_ghosts(w);
        need = w->reserved + w->host_pending + more;
        if (need <= w->capacity)
            return XLAT_OK;
    }
    if (need >= UINT32_MAX)
        return XLAT_ERR_NOMEM;
    /* Doubling while small; beyond 2^20 events a quarter more at a time,
     * so that the pool stays within 5/4 of the peak it was grown for. */
    size_t grown = w->capacity < (1u << 20) ? w->capacity * 2 : w->capacity + w->capacity / 4;
    if (grown < need || grown >= UINT32_MAX)
        grown = need;
    return xlat__wheel_reserve(ctx, (uint32_t)grown);
}

/* Makes room for `more` events beyond what is promised already. */
static inline int ensure_room(xlat_ctx *ctx, size_t more)
{
    const struct xlat_wheel *w = &ctx->wheel;
    if (w->reserved + w->host_pending + w->ghosts + more <= w->capacity)
        return XLAT_OK;
    return grow_room(ctx, more);
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
                          "xlat_schedule: cannot grow the event pool beyond %zu events",
                          w->capacity);
    if (!xlat__wheel_post(w, ctx->now, ctx->now + delay, 0, fn, user)) /* the room was made */
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "xlat_schedule: no block free (a libxlat bug)");
    w->host_pending++;
    return XLAT_OK;
}

/* ---- the owner table ---------------------------------------------------- */

/* Doubles the owner table (or makes its first XLAT_OWNER_MIN places, the
 * host's first): events keep their places, only the array moves. */
static int owners_grow(xlat_ctx *ctx)
{
    struct xlat_wheel *w = &ctx->wheel;
    uint32_t places = w->owners ? w->owner_places * 2 : XLAT_OWNER_MIN;
    if (places >= XLAT_OWNER_DEAD)
        return XLAT_ERR_NOMEM;
    uint32_t *t = xlat__calloc(ctx, places, sizeof(*t));
    if (!t)
        return XLAT_ERR_NOMEM;
    if (w->owners) {
        memcpy(t, w->owners, (size_t)w->owner_used * sizeof(*t));
        xlat__free(ctx, w->owners, (size_t)w->owner_places * sizeof(*t));
    } else {
        w->owner_used = 1; /* place 0: the host */
    }
    w->owners = t;
    w->owner_places = places;
    return XLAT_OK;
}

/* Place `p` is free again: its unit is gone with all its events. */
static void owner_forget(struct xlat_wheel *w, uint32_t p)
{
    w->owners[p] = w->owner_free;
    w->owner_free = p;
    w->owner_count--;
}

int xlat__events_owner(xlat_ctx *ctx, uint32_t *place)
{
    struct xlat_wheel *w = &ctx->wheel;
    int full = !w->owner_free && w->owner_used == w->owner_places;
    /* Dead units' places go with their ghosts: drop them rather than grow,
     * when they are a fair share (as grow_room does). */
    if (full && w->ghosts && w->ghosts >= w->pending / 8) {
        drop_ghosts(w);
        full = !w->owner_free;
    }
    if (full && owners_grow(ctx) != XLAT_OK)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory for one more unit's events");
    uint32_t p = w->owner_free;
    if (p)
        w->owner_free = w->owners[p];
    else
        p = w->owner_used++;
    w->owners[p] = 0;
    w->owner_count++;
    *place = p;
    return XLAT_OK;
}

int xlat__events_reserve(xlat_ctx *ctx, size_t n)
{
    struct xlat_wheel *w = &ctx->wheel;
    if (ensure_room(ctx, n) != XLAT_OK)
        return xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory for %zu more events", n);
    w->reserved += n;
    return XLAT_OK;
}

void xlat__events_unreserve(xlat_ctx *ctx, size_t n) { ctx->wheel.reserved -= n; }

static void post_overrun(xlat_ctx *ctx, uint32_t owner, uint64_t delay, xlat_event_fn fn,
                         void *user)
{
    /* A unit posted beyond the budget it reserved: a libxlat bug that the
     * tests watch for. Growing keeps the event rather than lose it. */
    struct xlat_wheel *w = &ctx->wheel;
    w->overruns++;
    if (add_blocks(ctx, w->small_blocks, w->big_blocks) != XLAT_OK)
        return;
    xlat__wheel_post(w, ctx->now, ctx->now + delay, owner, fn, user);
}

void xlat__post_slow(xlat_ctx *ctx, uint32_t owner, uint64_t delay, xlat_event_fn fn, void *user)
{
    if (!xlat__wheel_post(&ctx->wheel, ctx->now, ctx->now + delay, owner, fn, user))
        post_overrun(ctx, owner, delay, fn, user);
}

size_t xlat__events_overruns(const xlat_ctx *ctx) { return ctx->wheel.overruns; }

size_t xlat_pending_events(const xlat_ctx *ctx) { return ctx ? ctx->wheel.pending : 0; }

/* ---- ghosts: cancelled entries, dropped when they come up ---------------- */

static int is_ghost(const struct xlat_wheel *w, const struct xlat_event *e)
{
    return (w->owners[e->owner] & XLAT_OWNER_DEAD) != 0;
}

/* Forgets a ghost of owner place `owner`: the room it held, and the place
 * with its last one. */
static void drop_ghost(struct xlat_wheel *w, uint32_t owner)
{
    w->ghosts--;
    if (--w->owners[owner] == XLAT_OWNER_DEAD)
        owner_forget(w, owner);
}

/* Entry `i` of block `b`, of a `far` list or a near one. */
static inline struct xlat_event *entry_at(struct xlat_event_block *b, int far, uint32_t i)
{
    return far ? &xlat__far_at(b, i)->e : &b->ev[i];
}

/* What the entries of a near slot share: the bits of their cycles above
 * the offset their `lo` keeps (the wheel position's, and the slot's
 * digit), and the mask of that offset. */
struct span {
    uint64_t base, mask;
};

static struct span near_span(const struct xlat_wheel *w, unsigned index)
{
    if (index >= XLAT_WHEEL_FAR_INDEX) /* far entries keep their whole cycle */
        return (struct span){0, 0};
    unsigned level = index < XLAT_WHEEL_SLOTS ? 0
                     : index < xlat__wheel_base(2) ? 1
                                                   : index / XLAT_WHEEL_SLOTS - 3;
    unsigned shift = xlat__wheel_shift(level);
    unsigned above = shift + (level == 1 ? XLAT_WHEEL_UPPER_BITS : XLAT_WHEEL_BITS); /* <= 38 */
    uint64_t digit = index - xlat__wheel_base(level);
    return (struct span){w->position >> above << above | digit << shift,
                         ((uint64_t)1 << shift) - 1};
}

/* The cycle of entry `i` of block `b` of a slot whose span is `sp`. */
static inline uint64_t entry_cycle(struct span sp, struct xlat_event_block *b, int far, uint32_t i)
{
    return far ? xlat__far_at(b, i)->cycle : sp.base | (b->ev[i].lo & sp.mask);
}

/* The earliest cycle of a live entry of slot `index`, or XLAT_NEVER. */
static uint64_t earliest_live(const struct xlat_wheel *w, unsigned index)
{
    int far = index >= XLAT_WHEEL_FAR_INDEX;
    struct span sp = near_span(w, index);
    uint64_t best = XLAT_NEVER;
    for (struct xlat_event_block *b = w->slot[index].list.head; b; b = b->next)
        for (uint32_t i = 0; i < b->count; i++)
            if (!is_ghost(w, entry_at(b, far, i)) && entry_cycle(sp, b, far, i) < best)
                best = entry_cycle(sp, b, far, i);
    return best;
}

int xlat__wheel_ready_live(const struct xlat_wheel *w)
{
    uint32_t from = w->ready_pos; /* the ready queue is near */
    for (const struct xlat_event_block *b = w->ready.head; b; b = b->next, from = 0)
        for (uint32_t i = from; i < b->count; i++)
            if (!is_ghost(w, &b->ev[i]))
                return 1;
    return 0;
}

/* The first slot at or after `from` that holds a list, or
 * XLAT_WHEEL_SLOTS_ALL: slots in array order, which is level by level. */
static inline unsigned next_occupied(const struct xlat_wheel *w, unsigned from)
{
    unsigned word = from / 64;
    if (word >= XLAT_WHEEL_SLOTS_ALL / 64)
        return XLAT_WHEEL_SLOTS_ALL;
    uint64_t bits = w->occupied[word] & (~0ull << (from % 64));
    while (!bits) {
        if (++word == XLAT_WHEEL_SLOTS_ALL / 64)
            return XLAT_WHEEL_SLOTS_ALL;
        bits = w->occupied[word];
    }
    return word * 64 + (unsigned)__builtin_ctzll(bits);
}

/* The earliest cycle with an entry in the wheel (the ready queue aside),
 * ghosts included: moving there when only ghosts are due drops them. */
static uint64_t wheel_next(const struct xlat_wheel *w)
{
    /* The array holds the levels in order, so its first occupied slot is
     * in the lowest non-empty level, which holds the earliest events; and
     * within a level no slot below the position's digit is ever
     * occupied. */
    unsigned s = next_occupied(w, 0);
    if (s == XLAT_WHEEL_SLOTS_ALL)
        return XLAT_NEVER;
    if (s < XLAT_WHEEL_SLOTS)
        return (w->position & ~(uint64_t)(XLAT_WHEEL_SLOTS - 1)) | s;
    return w->slot[s].min_cycle;
}

/* The same, for events that will run: slots holding only ghosts are
 * passed. Slower; only while ghosts remain. */
static uint64_t wheel_next_live(const struct xlat_wheel *w)
{
    for (unsigned s = next_occupied(w, 0); s < XLAT_WHEEL_SLOTS_ALL; s = next_occupied(w, s + 1)) {
        uint64_t c = earliest_live(w, s);
        if (c != XLAT_NEVER)
            return c;
    }
    return XLAT_NEVER;
}

uint64_t xlat_next_event(const xlat_ctx *ctx)
{
    if (!ctx || ctx->wheel.pending == 0)
        return XLAT_NEVER;
    const struct xlat_wheel *w = &ctx->wheel;
    if (__builtin_expect(w->ghosts != 0, 0))
        return xlat__wheel_ready_live(w) ? ctx->now : wheel_next_live(w);
    return w->ready.head ? ctx->now : wheel_next(w); /* a head block has an entry to run */
}

static void free_list(struct xlat_wheel *w, struct xlat_event_list *l)
{
    while (l->head) {
        struct xlat_event_block *b = l->head;
        l->head = b->next;
        free_block(w, b);
    }
    l->tail = NULL;
}

/* Nothing will run any more: every entry left is a ghost, and goes. */
static void drop_all_ghosts(struct xlat_wheel *w)
{
    for (unsigned s = next_occupied(w, 0); s < XLAT_WHEEL_SLOTS_ALL; s = next_occupied(w, s + 1)) {
        free_list(w, &w->slot[s].list);
        xlat__wheel_unmark(w, s);
    }
    free_list(w, &w->ready);
    w->ready_pos = 0;
    w->ghosts = 0;
    /* The dead units go with them (a free place holds an index, never
     * the dead mark). */
    for (uint32_t p = 1; p < w->owner_used; p++)
        if (w->owners[p] & XLAT_OWNER_DEAD)
            owner_forget(w, p);
}

/* ---- moving and firing --------------------------------------------------- */

/* After firing: once nothing will run, the ghosts left (of units the
 * callbacks destroyed) all go, so the pool promises them no room. */
static inline __attribute__((always_inline)) void drop_ghosts_if_idle(struct xlat_wheel *w)
{
    if (w->pending == 0 && w->ghosts)
        drop_all_ghosts(w);
}

/* In a sparse wheel most blocks hold one entry, bound for an empty slot:
 * the block itself moves there (no copy, no block taken or given back),
 * when that slot is near as the block's list was, or far as it was.
 * Returns 0 when `b`, whose entry is due at `cycle`, is not such a block. */
static inline int move_alone(struct xlat_wheel *w, struct xlat_event_block *b, int far,
                             uint64_t cycle)
{
    unsigned index = xlat__wheel_index(cycle, w->position);
    struct xlat_wheel_slot *slot = &w->slot[index];
    if (slot->list.head || (index >= XLAT_WHEEL_FAR_INDEX) != far)
        return 0;
    b->next = NULL;
    slot->list.head = slot->list.tail = b;
    slot->min_cycle = cycle;
    xlat__wheel_mark(w, index);
    return 1;
}

/* Files entry `e` of a far list, due at `cycle`, where it belongs now
 * (near, or far when it is still 2^38 cycles or more away). */
static void refile_far_entry(struct xlat_wheel *w, const struct xlat_event *e, uint64_t cycle)
{
    unsigned to = xlat__wheel_index(cycle, w->position);
    if (to < XLAT_WHEEL_FAR_INDEX) {
        *xlat__wheel_slot_entry_at(w, to, cycle) = *e; /* its `lo` stays */
        return;
    }
    struct xlat_event_far *f = xlat__wheel_far_entry(w, to, cycle);
    f->e = *e;
    f->cycle = cycle;
}

/* Re-files the blocks from `b` on, of a `far` list or a near one whose
 * entries' cycles `sp` gives: inlined once for each, so that the near
 * one, nearly every re-file, has no far test an entry. The entries of a
 * near list go to near slots (the levels below it). */
static inline __attribute__((always_inline)) void refile_blocks(struct xlat_wheel *w,
                                                                struct xlat_event_block *b,
                                                                const int far, const struct span sp)
{
    int ghosts = w->ghosts != 0; /* none appear while re-filing */
    if (b)
        prefetch_block(b->next);
    while (b) {
        struct xlat_event_block *next = b->next;
        if (next) /* two ahead: `next` came while `b` was read */
            prefetch_block(next->next);
        /* A big block is never a list's head (the pool's bound counts on
         * it): its lone entry is copied. */
        if (b->count == 1 && !b->big && !ghosts &&
            move_alone(w, b, far, entry_cycle(sp, b, far, 0))) {
            b = next;
            continue;
        }
        for (uint32_t i = 0; i < b->count; i++) {
            const struct xlat_event *e = entry_at(b, far, i);
            if (__builtin_expect(ghosts, 0) && is_ghost(w, e)) {
                drop_ghost(w, e->owner);
                continue;
            }
            if (far)
                refile_far_entry(w, e, entry_cycle(sp, b, far, i));
            else
                *xlat__wheel_slot_entry(w, entry_cycle(sp, b, far, i)) = *e; /* its `lo` stays */
        }
        free_block(w, b);
        b = next;
    }
}

/* Files the entries of slot `index` (the position has moved into it) at
 * the levels below, in their order. Cannot run out of blocks: each
 * block read is given back before the next one is, and a near block
 * holds more entries than a far one. Out of line: only a move past the
 * end of level 0's span re-files, and move_to() is inlined into every
 * tick. */
static __attribute__((noinline)) void refile(struct xlat_wheel *w, unsigned index)
{
    struct xlat_wheel_slot *slot = &w->slot[index];
    struct xlat_event_block *b = slot->list.head;
    slot->list.head = slot->list.tail = NULL;
    xlat__wheel_unmark(w, index);
    if (index >= XLAT_WHEEL_FAR_INDEX)
        refile_blocks(w, b, 1, (struct span){0, 0});
    else
        refile_blocks(w, b, 0, near_span(w, index));
}

/* Moves the wheel to `cycle`, the earliest entry: only the slot that holds
 * it at the highest changed digit needs re-filing. Then the entries of
 * `cycle` leave the wheel as the ready queue (empty: it was just fired). */
static inline __attribute__((always_inline)) void move_to(struct xlat_wheel *w, uint64_t cycle)
{
    if ((cycle ^ w->position) >= XLAT_WHEEL_SLOTS) { /* a digit above level 0 changes */
        unsigned index = xlat__wheel_index(cycle, w->position);
        w->position = cycle;
        refile(w, index);
    }
    w->position = cycle;
    unsigned s = (unsigned)cycle & (XLAT_WHEEL_SLOTS - 1);
    struct xlat_wheel_slot *due = &w->slot[s];
    w->ready = due->list;
    w->ready_pos = 0;
    due->list.head = due->list.tail = NULL;
    w->occupied[0] &= ~(1ull << s);
}

/* Fires the ready queue, including what the callbacks post for this same
 * cycle (they append to it). The head block always has an entry still to
 * run: the one that runs last leaves before its callback is called (which
 * may then reuse it). The head is read again after every callback, which
 * may have cancelled entries and so freed blocks. Inlined into both of its
 * callers, as move_to() is: a call from xlat_tick() or xlat_advance() saved
 * the registers a second time for every cycle that fires. */
static inline __attribute__((always_inline)) void fire_ready(struct xlat_wheel *w)
{
    struct xlat_event_block *b;
    while ((b = w->ready.head)) {
        uint32_t pos = w->ready_pos + 1; /* of the entry after this one */
        const struct xlat_event *e = &b->ev[pos - 1];
        void (*fn)(void *) = e->fn;
        void *user = e->user;
        uint32_t owner = e->owner;
        if (pos < b->count) {
            w->ready_pos = pos;
        } else {
            struct xlat_event_block *next = b->next;
            w->ready.head = next;
            w->ready_pos = 0;
            if (!next)
                w->ready.tail = NULL;
            else if (next->next) /* two ahead: `next` came while `b` was fired */
                prefetch_block(next->next);
            free_near_block(w, b); /* the ready queue's blocks are near: a slot of level 0's */
        }
        uint32_t left = --w->owners[owner];
        if (__builtin_expect(left & XLAT_OWNER_DEAD, 0)) { /* a ghost: drop_ghost's work */
            w->ghosts--;
            if (left == XLAT_OWNER_DEAD)
                owner_forget(w, owner);
            continue;
        }
        if (__builtin_expect(owner == 0, 0))
            w->host_pending--;
        w->pending--;
        fn(user); /* may post or cancel: `w` stays valid */
    }
}

/* An advance to `target` in the wheel position's span of level 0, with
 * nothing ready, no ghosts and no event due before it: what it fires, if
 * anything, is the target's slot there (an event of a higher level differs
 * from the position, so from every cycle of the span, at a higher digit;
 * and no slot of level 0 below `now`'s digit is occupied). It takes the
 * slot as the ready queue and fires it, as the loop of xlat_advance()
 * would, without looking for the next event. Returns 0, having done
 * nothing, for every other advance. A tick (`next_cycle`, where no slot
 * lies between) is one; so are most steps of a host that advances to
 * xlat_next_event() while its events are a few cycles apart. */
static inline __attribute__((always_inline)) int advance_in_span(xlat_ctx *ctx, uint64_t target,
                                                                 int next_cycle)
{
    struct xlat_wheel *w = &ctx->wheel;
    if (w->ready.head || w->ghosts || (target ^ w->position) >= XLAT_WHEEL_SLOTS)
        return 0;
    unsigned digit = (unsigned)target & (XLAT_WHEEL_SLOTS - 1);
    uint64_t occupied = w->occupied[0];
    if (!next_cycle && (occupied & ((1ull << digit) - 1)))
        return 0; /* an event before the target: the loop's */
    ctx->now = target;
    if (!(occupied >> digit & 1))
        return 1;
    ctx->in_advance = 1;
    move_to(w, target);
    fire_ready(w);
    drop_ghosts_if_idle(w);
    ctx->in_advance = 0;
    return 1;
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
    if (advance_in_span(ctx, target, 0))
        return XLAT_OK;
    struct xlat_wheel *w = &ctx->wheel;
    ctx->in_advance = 1;
    for (;;) {
        fire_ready(w); /* what is due at ctx->now */
        /* At the target nothing else is due: the wheel holds only later
         * cycles (a post for the current one goes to the ready queue), so
         * a tick, or an advance to the next event, does not look again. */
        if (w->pending == 0 || ctx->now == target)
            break;
        uint64_t next = wheel_next(w);
        if (next > target)
            break;
        move_to(w, next);
        ctx->now = next;
    }
    drop_ghosts_if_idle(w);
    ctx->now = target;
    ctx->in_advance = 0;
    return XLAT_OK;
}

/* Most host loops tick once a cycle, and most ticks reach a cycle in the
 * wheel position's span of level 0: advance_in_span()'s, without the
 * checks of xlat_advance()'s arguments; every other tick (an error, a
 * ready queue the host filled, ghosts, a span's end) is xlat_advance()'s. */
int xlat_tick(xlat_ctx *ctx)
{
    if (!ctx || ctx->in_advance || ctx->now + 1 == XLAT_NEVER ||
        !advance_in_span(ctx, ctx->now + 1, 1))
        return xlat_advance(ctx, 1);
    return XLAT_OK;
}

/* ---- cancelling ---------------------------------------------------------- */

/* Whether entry `e` stays; a ghost or an entry `match` selects does not,
 * and its accounting goes with it. */
struct keep_test {
    int (*match)(void *match_user, xlat_event_fn fn, void *user);
    void *match_user;
};

static int keep(struct xlat_wheel *w, const struct xlat_event *e, const struct keep_test *t)
{
    if (is_ghost(w, e)) {
        drop_ghost(w, e->owner);
        return 0;
    }
    if (!t->match(t->match_user, e->fn, e->user))
        return 1;
    w->owners[e->owner]--;
    if (e->owner == 0)
        w->host_pending--;
    w->pending--;
    return 0;
}

/* Keeps the entries of `l` (a `far` list or a near one whose entries'
 * cycles `sp` gives) from entry `from` of its head that `t` keeps, in
 * their order, in as few blocks as they need; the earliest cycle kept
 * goes to *min. The list may end empty. */
static void compact(struct xlat_wheel *w, struct xlat_event_list *l, uint32_t from,
                    const struct keep_test *t, int far, struct span sp, uint64_t *min)
{
    struct xlat_event_block *out = l->head;
    uint32_t at = from;
    int kept = 0;
    *min = XLAT_NEVER;
    for (struct xlat_event_block *b = l->head; b; b = b->next, from = 0)
        for (uint32_t i = from; i < b->count; i++) {
            struct xlat_event_far e = {*entry_at(b, far, i), entry_cycle(sp, b, far, i)};
            if (!keep(w, &e.e, t))
                continue;
            if (at == out->cap) { /* the reader is past `out` */
                out->count = at;
                out = out->next;
                at = 0;
            }
            if (far)
                *xlat__far_at(out, at++) = e;
            else
                out->ev[at++] = e.e;
            kept = 1;
            if (e.cycle < *min)
                *min = e.cycle;
        }
    if (!kept) {
        free_list(w, l);
        l->head = NULL;
        return;
    }
    struct xlat_event_list rest = {out->next, l->tail};
    out->count = at;
    out->next = NULL;
    l->tail = out;
    free_list(w, &rest);
}

/* Drops every pending event that `match` selects, so that a unit being
 * destroyed leaves nothing that points into it; the rest keep their order.
 * It reads every entry: for the few units whose events others post. */
static void cancel_matching(struct xlat_wheel *w,
                            int (*match)(void *match_user, xlat_event_fn fn, void *user),
                            void *match_user)
{
    struct keep_test t = {match, match_user};
    uint64_t min; /* the ready queue's: all due now */
    compact(w, &w->ready, w->ready_pos, &t, 0, (struct span){0, 0}, &min);
    if (!w->ready.head)
        w->ready_pos = 0;
    for (unsigned s = next_occupied(w, 0); s < XLAT_WHEEL_SLOTS_ALL; s = next_occupied(w, s + 1)) {
        struct xlat_wheel_slot *slot = &w->slot[s];
        compact(w, &slot->list, 0, &t, s >= XLAT_WHEEL_FAR_INDEX, near_span(w, s),
                &slot->min_cycle);
        if (!slot->list.head)
            xlat__wheel_unmark(w, s);
    }
}

void xlat__cancel_events(xlat_ctx *ctx, int (*match)(void *match_user, xlat_event_fn fn, void *user),
                         void *match_user)
{
    cancel_matching(&ctx->wheel, match, match_user);
}

static int match_none(void *match_user, xlat_event_fn fn, void *user)
{
    (void)match_user;
    (void)fn;
    (void)user;
    return 0;
}

/* Every ghost leaves its list now. */
static void drop_ghosts(struct xlat_wheel *w) { cancel_matching(w, match_none, NULL); }

/* The unit's events become ghosts, found by their owner place when they
 * come up (those in the ready queue too, which xlat__wheel_ready_empty
 * passes): the cost does not depend on how many events are pending. */
void xlat__cancel_owner(xlat_ctx *ctx, uint32_t owner)
{
    struct xlat_wheel *w = &ctx->wheel;
    if (owner == 0)
        return;
    uint32_t *count = &w->owners[owner];
    if (*count == 0) {
        owner_forget(w, owner);
        return;
    }
    w->pending -= *count;
    w->ghosts += *count;
    *count |= XLAT_OWNER_DEAD;
}
