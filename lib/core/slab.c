/* The context's small objects in big chunks (slab.h says why). */
#include "internal.h"
#include "slab.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLAB_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_UNDER_ASAN 1
#endif
#endif

void xlat__slab_init(struct xlat__slab *s)
{
    memset(s, 0, sizeof(*s));
#ifdef SLAB_UNDER_ASAN
    s->after = SIZE_MAX;
#else
    s->after = XLAT_SLAB_AFTER;
#endif
}

static size_t class_of(size_t size) { return (size - 1) / XLAT_SLAB_GRAIN; }

static size_t class_bytes(size_t c) { return (c + 1) * XLAT_SLAB_GRAIN; }

/* Whether `p` lies in one of the chunks: the last chunk starting at or
 * before it, if any, must reach past it. */
static int in_chunks(const struct xlat__slab *s, uintptr_t p)
{
    size_t lo = 0, hi = s->chunks; /* the first chunk starting after p is in [lo, hi] */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->chunk[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && p - s->chunk[lo - 1].start < s->chunk[lo - 1].bytes;
}

/* The size classes' lists, all empty: the chunks may start. Bookkeeping
 * goes to the host's allocator directly, so that it never counts as the
 * host's small objects. */
static int start(xlat_ctx *ctx)
{
    size_t bytes = XLAT_SLAB_CLASSES * sizeof(void *);
    void **lists = ctx->alloc.alloc(ctx->alloc.user, bytes, XLAT_SLAB_GRAIN);
    if (!lists)
        return 0;
    memset(lists, 0, bytes);
    ctx->slab.free = lists;
    return 1;
}

/* Room in the list of chunks for one more. */
static int chunk_room(xlat_ctx *ctx)
{
    struct xlat__slab *s = &ctx->slab;
    if (s->chunks < s->chunk_cap)
        return 1;
    size_t cap = s->chunk_cap ? 2 * s->chunk_cap : 16;
    struct xlat__slab_chunk *list =
        ctx->alloc.alloc(ctx->alloc.user, cap * sizeof(*list), XLAT_SLAB_GRAIN);
    if (!list)
        return 0;
    if (s->chunks)
        memcpy(list, s->chunk, s->chunks * sizeof(*list));
    if (s->chunk)
        ctx->alloc.free(ctx->alloc.user, s->chunk, s->chunk_cap * sizeof(*s->chunk));
    s->chunk = list;
    s->chunk_cap = cap;
    return 1;
}

/* A new chunk to carve, in its place in the ascending list. What is left
 * of the one before (less than the object that did not fit) stays unused. */
static int add_chunk(xlat_ctx *ctx)
{
    struct xlat__slab *s = &ctx->slab;
    if (!chunk_room(ctx))
        return 0;
    size_t bytes = s->next_bytes ? s->next_bytes : XLAT_SLAB_FIRST_CHUNK;
    char *c = ctx->alloc.alloc(ctx->alloc.user, bytes, XLAT_SLAB_GRAIN);
    if (!c)
        return 0;
    xlat__advise_huge_pages(c, bytes);
    size_t i = s->chunks;
    for (; i > 0 && s->chunk[i - 1].start > (uintptr_t)c; i--)
        s->chunk[i] = s->chunk[i - 1];
    s->chunk[i] = (struct xlat__slab_chunk){(uintptr_t)c, bytes};
    s->chunks++;
    s->next_bytes = bytes < XLAT_SLAB_LAST_CHUNK ? 2 * bytes : XLAT_SLAB_LAST_CHUNK;
    s->at = c;
    s->end = c + bytes;
    return 1;
}

void *xlat__slab_alloc(xlat_ctx *ctx, size_t size)
{
    struct xlat__slab *s = &ctx->slab;
    if (size > XLAT_SLAB_MAX)
        return NULL;
    if (!s->free && (s->host_small + size < s->after || !start(ctx)))
        return NULL;
    size_t c = class_of(size);
    void **obj = s->free[c];
    if (obj) {
        s->free[c] = *obj;
        return obj;
    }
    size_t bytes = class_bytes(c);
    if ((size_t)(s->end - s->at) < bytes && !add_chunk(ctx))
        return NULL;
    obj = (void **)s->at;
    s->at += bytes;
    return obj;
}

int xlat__slab_free(xlat_ctx *ctx, void *ptr, size_t size)
{
    struct xlat__slab *s = &ctx->slab;
    if (size > XLAT_SLAB_MAX)
        return 0;
    if (!s->chunks || !in_chunks(s, (uintptr_t)ptr)) {
        s->host_small -= size;
        return 0;
    }
    void **obj = ptr;
    size_t c = class_of(size);
    *obj = s->free[c];
    s->free[c] = obj;
    return 1;
}

void xlat__slab_release(xlat_ctx *ctx)
{
    struct xlat__slab *s = &ctx->slab;
    for (size_t i = 0; i < s->chunks; i++)
        ctx->alloc.free(ctx->alloc.user, (void *)s->chunk[i].start, s->chunk[i].bytes);
    if (s->chunk)
        ctx->alloc.free(ctx->alloc.user, s->chunk, s->chunk_cap * sizeof(*s->chunk));
    if (s->free)
        ctx->alloc.free(ctx->alloc.user, s->free, XLAT_SLAB_CLASSES * sizeof(*s->free));
    xlat__slab_init(s);
}

size_t xlat__slab_bytes(const xlat_ctx *ctx)
{
    size_t bytes = 0;
    for (size_t i = 0; i < ctx->slab.chunks; i++)
        bytes += ctx->slab.chunk[i].bytes;
    return bytes;
}
