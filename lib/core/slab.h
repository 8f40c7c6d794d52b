/*
 * The context's small objects, packed into big chunks once there are many
 * of them (lib/core/slab.c).
 *
 * A system of 16 GPUs or more holds thousands of units, each a
 * dozen small allocations (an L1 TLB: about 7 KiB in eleven). Taken from
 * the host's allocator one by one they spread over many 4 KiB pages, and
 * a request that touches a few units misses the host CPU's own TLB at
 * nearly every one. Once a context holds XLAT_SLAB_AFTER bytes of small
 * objects, the next ones are carved from chunks of 8 to 32 MiB,
 * back to back, and the kernel is asked to back the chunks with huge pages.
 * A context below that, every unit test's and most hosts', allocates as
 * before: one call of the host's allocator an object.
 *
 * A freed object of the chunks waits, on the list of its size class, for
 * the next object of that size; the chunks go back to the host's allocator
 * with the context.
 */
#ifndef XLAT_CORE_SLAB_H
#define XLAT_CORE_SLAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct xlat_ctx xlat_ctx;

/* Objects of up to this many bytes are small. */
#define XLAT_SLAB_MAX ((size_t)64 << 10)
/* Small objects the host's allocator holds before the chunks start. */
#define XLAT_SLAB_AFTER ((size_t)4 << 20)
/* Chunks: the first of 8 MiB, each next one twice the one before, up to
 * 32 MiB. At 64-byte alignment a chunk of 8 MiB holds at least three
 * whole 2 MiB pages, one of 32 MiB fifteen: the rest is in 4 KiB pages.
 * Chunks of 6 MiB (two whole huge pages) made systems of 1024 GPUs 1.11-1.19x
 * as fast; of 32 MiB, 1.24-1.60x (doc/performance.md). */
#define XLAT_SLAB_FIRST_CHUNK ((size_t)8 << 20)
#define XLAT_SLAB_LAST_CHUNK ((size_t)32 << 20)
/* Size classes: one a 64 bytes, objects rounded up to their class. */
#define XLAT_SLAB_GRAIN 64
#define XLAT_SLAB_CLASSES (XLAT_SLAB_MAX / XLAT_SLAB_GRAIN)

struct xlat__slab_chunk {
    uintptr_t start;
    size_t bytes;
};

struct xlat__slab {
    size_t after;       /* XLAT_SLAB_AFTER, or what a test sets (xlat__slab_init) */
    size_t host_small;  /* live bytes of small objects from the host, one by one */
    char *at, *end;     /* the newest chunk's part not carved yet */
    void **free;        /* XLAT_SLAB_CLASSES lists; NULL until the chunks start */
    struct xlat__slab_chunk *chunk; /* the chunks, by ascending address */
    size_t chunks, chunk_cap;
    size_t next_bytes;  /* the next chunk's */
};

/* No chunks, and XLAT_SLAB_AFTER; under AddressSanitizer, never, so that
 * every object keeps redzones of its own (a test may still lower `after`
 * to check the chunks themselves). */
void xlat__slab_init(struct xlat__slab *s);
/* A small object of `size` bytes (not zeroed) from the chunks, or NULL:
 * too big, too few small objects yet, or no chunk to be had (then the
 * caller asks the host's allocator, which says if memory is out). */
void *xlat__slab_alloc(xlat_ctx *ctx, size_t size);
/* Takes back `ptr` of `size` bytes when it is the chunks'; 0 when it is
 * the host's allocator's (counted off the small objects when small). */
int xlat__slab_free(xlat_ctx *ctx, void *ptr, size_t size);
/* Counts an object of `size` bytes the host's allocator gave. */
static inline void xlat__slab_host_took(struct xlat__slab *s, size_t size)
{
    if (size <= XLAT_SLAB_MAX)
        s->host_small += size;
}
/* Gives every chunk back to the host's allocator: at the context's end. */
void xlat__slab_release(xlat_ctx *ctx);
/* Bytes of chunks the context holds. */
size_t xlat__slab_bytes(const xlat_ctx *ctx);

#endif
