#include "pool.h"
#include "internal.h"

struct xlat_pool_chunk {
    struct xlat_pool_chunk *next;
    size_t count;
    size_t bytes;
    /* objects follow, 64-byte aligned */
};

#define CHUNK_HEADER 64 /* keeps the objects cache-line aligned */

static int add_chunk(struct xlat_pool *p, size_t count)
{
    if (count > (SIZE_MAX - CHUNK_HEADER) / p->obj_size)
        return XLAT_ERR_NOMEM;
    size_t bytes = CHUNK_HEADER + count * p->obj_size;
    struct xlat_pool_chunk *c = xlat__alloc(p->ctx, bytes);
    if (!c)
        return XLAT_ERR_NOMEM;
    c->count = count;
    c->bytes = bytes;
    c->next = p->chunks;
    p->chunks = c;
    char *obj = (char *)c + CHUNK_HEADER;
    for (size_t i = count; i-- > 0;) {
        void **slot = (void **)(obj + i * p->obj_size);
        *slot = p->free_list;
        p->free_list = slot;
    }
    p->total += count;
    return XLAT_OK;
}

int xlat__pool_init(struct xlat_pool *p, xlat_ctx *ctx, size_t obj_size, size_t initial)
{
    memset(p, 0, sizeof(*p));
    p->ctx = ctx;
    p->obj_size = (obj_size + 15) & ~(size_t)15;
    return add_chunk(p, initial ? initial : 1);
}

int xlat__pool_init_fixed(struct xlat_pool *p, xlat_ctx *ctx, size_t obj_size, size_t count)
{
    int rc = xlat__pool_init(p, ctx, obj_size, count);
    p->fixed = 1;
    return rc;
}

int xlat__pool_grow(struct xlat_pool *p) { return add_chunk(p, p->total); }

int xlat__pool_reserve(struct xlat_pool *p, size_t n)
{
    while (p->total < n)
        if (xlat__pool_grow(p) != XLAT_OK)
            return XLAT_ERR_NOMEM;
    return XLAT_OK;
}

void *xlat__pool_get(struct xlat_pool *p)
{
    void *obj = xlat__pool_take(p);
    if (obj)
        memset(obj, 0, p->obj_size);
    return obj;
}

void xlat__pool_release(struct xlat_pool *p)
{
    while (p->chunks) {
        struct xlat_pool_chunk *c = p->chunks;
        p->chunks = c->next;
        xlat__free(p->ctx, c, c->bytes);
    }
    p->free_list = NULL;
    p->total = p->in_use = 0;
}

size_t xlat__pool_bytes(const struct xlat_pool *p)
{
    size_t bytes = 0;
    for (const struct xlat_pool_chunk *c = p->chunks; c; c = c->next)
        bytes += c->bytes;
    return bytes;
}
