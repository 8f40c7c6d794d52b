/*
 * A pool of fixed-size objects for the timed units' in-flight records.
 * Objects never move; when the pool runs dry it adds a chunk as large as
 * everything it holds (geometric growth), so a unit sized from its
 * configuration allocates nothing in steady state.
 */
#ifndef XLAT_CORE_POOL_H
#define XLAT_CORE_POOL_H

#include <stddef.h>

typedef struct xlat_ctx xlat_ctx;

struct xlat_pool_chunk;

struct xlat_pool {
    xlat_ctx *ctx;
    size_t obj_size;
    size_t total;  /* objects in all chunks */
    size_t in_use;
    void *free_list;
    struct xlat_pool_chunk *chunks;
    int fixed; /* never grows: get answers NULL when every object is in use */
};

/* Prepares a pool of `initial` (>= 1) objects of `obj_size` bytes. */
int xlat__pool_init(struct xlat_pool *p, xlat_ctx *ctx, size_t obj_size, size_t initial);
/* The same, but the pool never grows after init: its size is a bound the
 * unit enforces (admission), and get allocates nothing. */
int xlat__pool_init_fixed(struct xlat_pool *p, xlat_ctx *ctx, size_t obj_size, size_t count);
/* Adds a chunk as large as the pool (pool.c); XLAT_ERR_NOMEM on failure. */
int xlat__pool_grow(struct xlat_pool *p);
/* Grows the pool (doubling) until it holds at least `n` objects, so that a
 * unit never grows it inside tick; XLAT_ERR_NOMEM (keeping what it had). */
int xlat__pool_reserve(struct xlat_pool *p, size_t n);

/* An object whose bytes are left as they were (the caller sets every field
 * it reads), or NULL when the pool is fixed and full or could not grow.
 * Inline: every accepted request takes one. */
static inline void *xlat__pool_take(struct xlat_pool *p)
{
    if (!p->free_list && (p->fixed || xlat__pool_grow(p) != 0))
        return NULL;
    void **obj = p->free_list;
    p->free_list = *obj;
    p->in_use++;
    return obj;
}

/* A zeroed object, or NULL as xlat__pool_take(). */
void *xlat__pool_get(struct xlat_pool *p);

static inline void xlat__pool_put(struct xlat_pool *p, void *obj)
{
    void **slot = obj;
    *slot = p->free_list;
    p->free_list = slot;
    p->in_use--;
}

void xlat__pool_release(struct xlat_pool *p);
size_t xlat__pool_bytes(const struct xlat_pool *p);

#endif
