/* The context: allocator hooks, seed streams and the last-error text. */
#include <stdio.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "internal.h"
#include "registry.h"

void xlat__wheel_init(struct xlat_wheel *w);
int xlat__wheel_reserve(xlat_ctx *ctx, uint32_t capacity);
void xlat__wheel_release(xlat_ctx *ctx);

#define XLAT_ALIGN 64

static void *default_alloc(void *user, size_t size, size_t align)
{
    void *p = NULL;
    (void)user;
    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size) == 0 ? p : NULL;
}

static void default_free(void *user, void *ptr, size_t size)
{
    (void)user;
    (void)size;
    free(ptr);
}

static const xlat_allocator default_allocator = {default_alloc, default_free, NULL};

/* 1 + the offset of the first non-zero byte of `src` in [known, size), or 0
 * when there is none: a newer header's members this library does not know
 * are accepted while they hold their zero defaults. */
static size_t unknown_set(const void *src, size_t known, size_t size)
{
    const unsigned char *b = src;
    for (size_t i = known; i < size; i++)
        if (b[i])
            return i + 1;
    return 0;
}

void xlat_ctx_config_init_sized(xlat_ctx_config *out, size_t size)
{
    xlat_ctx_config full, *cfg = &full;
    memset(cfg, 0, sizeof(*cfg));
    cfg->struct_size = sizeof(*cfg);
    xlat__config_out(out, size, &full, sizeof(full));
}

int xlat_ctx_create(const xlat_ctx_config *cfg, xlat_ctx **out)
{
    xlat_ctx_config c;
    xlat_ctx_config_init(&c);
    if (!out)
        return XLAT_ERR_INVAL;
    if (cfg) {
        /* No context yet for a message: the codes say it (doc/abi.md). */
        if (cfg->struct_size < XLAT_CTX_CONFIG_SIZE_V0)
            return XLAT_ERR_INVAL;
        if (unknown_set(cfg, sizeof(c), cfg->struct_size))
            return XLAT_ERR_UNSUPPORTED; /* a newer libxlat's member, set */
        memcpy(&c, cfg, cfg->struct_size < sizeof(c) ? cfg->struct_size : sizeof(c));
    }
    const xlat_allocator *a = c.allocator ? c.allocator : &default_allocator;
    if (!a->alloc || !a->free)
        return XLAT_ERR_INVAL;
    xlat_ctx *ctx = a->alloc(a->user, sizeof(*ctx), XLAT_ALIGN);
    if (!ctx)
        return XLAT_ERR_NOMEM;
    memset(ctx, 0, sizeof(*ctx));
    ctx->alloc = *a;
    ctx->seed = c.seed;
    xlat__slab_init(&ctx->slab);
    xlat__wheel_init(&ctx->wheel);
    if (xlat__wheel_reserve(ctx, 64) != XLAT_OK) {
        a->free(a->user, ctx, sizeof(*ctx));
        return XLAT_ERR_NOMEM;
    }
    *out = ctx;
    return XLAT_OK;
}

void xlat_ctx_destroy(xlat_ctx *ctx)
{
    if (!ctx)
        return;
    xlat__reg_destroy_all(ctx); /* what the host left alive; events are not run */
    xlat__reg_release(ctx);
    xlat__wheel_release(ctx);
    xlat__slab_release(ctx); /* last: the units' and the wheel's small objects are back */
    xlat_allocator a = ctx->alloc;
    a.free(a.user, ctx, sizeof(*ctx));
}

static void busy_message(xlat_ctx *ctx);

const char *xlat_ctx_errmsg(const xlat_ctx *ctx)
{
    if (!ctx)
        return "invalid context";
    /* The last refusal's message is joined on demand (xlat__busy): the
     * context is the caller's own, allocated writable, so the const is the
     * promise that nothing the caller can see changes, which holds. */
    if (ctx->busy_pending)
        busy_message((xlat_ctx *)ctx);
    return ctx->errmsg;
}

uint64_t xlat_now(const xlat_ctx *ctx) { return ctx ? ctx->now : 0; }

uint64_t xlat_ctx_seed(const xlat_ctx *ctx) { return ctx ? ctx->seed : 0; }

void *xlat__alloc(xlat_ctx *ctx, size_t size)
{
    if (size == 0)
        size = 1;
    void *p = xlat__slab_alloc(ctx, size);
    if (!p) {
        p = ctx->alloc.alloc(ctx->alloc.user, size, XLAT_ALIGN);
        if (p)
            xlat__slab_host_took(&ctx->slab, size);
    }
    if (p)
        memset(p, 0, size);
    else /* every failing path has a message, even where its caller adds none */
        xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory (%zu bytes)", size);
    return p;
}

void *xlat__calloc(xlat_ctx *ctx, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        xlat__fail(ctx, XLAT_ERR_NOMEM, "out of memory (%zu x %zu bytes overflows)", n, size);
        return NULL;
    }
    return xlat__alloc(ctx, n * size);
}

void xlat__free(xlat_ctx *ctx, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (size == 0)
        size = 1;
    if (!xlat__slab_free(ctx, ptr, size))
        ctx->alloc.free(ctx->alloc.user, ptr, size);
}

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* Only the 2 MiB pages wholly inside the block, which are the block's own
 * memory whatever allocator gave it, and only in blocks of 4 MiB or more.
 * With 4 KiB pages, a pool of 10^8 events (3 GiB) missed the host's
 * translation caches at nearly every block it fired, and fired in 19-21
 * ns an event instead of 17; a system of 1024 GPUs missed them at nearly
 * every unit (doc/performance.md). */
void xlat__advise_huge_pages(void *block, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes < 2 * HUGE_PAGE)
        return;
    uintptr_t first = ((uintptr_t)block + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)block + bytes) & ~(HUGE_PAGE - 1);
    if (end > first)
        (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
#else
    (void)block;
    (void)bytes;
#endif
}

char *xlat__strdup(xlat_ctx *ctx, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = xlat__alloc(ctx, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void xlat__strfree(xlat_ctx *ctx, char *s)
{
    if (s)
        xlat__free(ctx, s, strlen(s) + 1);
}

int xlat__fail(xlat_ctx *ctx, int rc, const char *fmt, ...)
{
    if (!ctx)
        return rc;
    /* Formatted apart first: a caller may wrap the current message in a new
     * one (passing xlat_ctx_errmsg(ctx) as an argument). */
    char msg[XLAT_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    memcpy(ctx->errmsg, msg, sizeof(msg));
    ctx->busy_pending = false;
    return rc;
}

int xlat__config_copy(xlat_ctx *ctx, void *dst, size_t dst_size, const void *src,
                      size_t min_size, const char *what)
{
    uint32_t size;
    memcpy(&size, src, sizeof(size)); /* struct_size is every config's first field */
    if (size < min_size)
        return xlat__fail(ctx, XLAT_ERR_INVAL,
                          "%s: struct_size %u is smaller than any released version (%zu);"
                          " call the config_init function first",
                          what, size, min_size);
    size_t unknown = unknown_set(src, dst_size, size);
    if (unknown)
        return xlat__fail(ctx, XLAT_ERR_UNSUPPORTED,
                          "%s: struct_size %u is from a newer libxlat that sets byte %zu,"
                          " which this one (%zu bytes) does not know",
                          what, size, unknown - 1, dst_size);
    memcpy(dst, src, size < dst_size ? size : dst_size);
    return XLAT_OK;
}

void xlat__copy_out(void *dst, size_t dst_size, const void *src, size_t src_size)
{
    if (!dst || dst_size == 0)
        return;
    size_t n = dst_size < src_size ? dst_size : src_size;
    if (src)
        memcpy(dst, src, n);
    else
        memset(dst, 0, n);
    memset((char *)dst + n, 0, dst_size - n);
}

void xlat__config_out(void *dst, size_t dst_size, const void *full, size_t full_size)
{
    uint32_t size = dst_size > UINT32_MAX ? UINT32_MAX : (uint32_t)dst_size;
    if (!dst || dst_size < sizeof(size))
        return;
    xlat__copy_out(dst, dst_size, full, full_size);
    memcpy(dst, &size, sizeof(size));
}

void xlat__rng_seed(xlat_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed = xlat__mix64(seed);
        rng->s[i] = seed;
    }
}

void xlat__rng_stream(xlat_ctx *ctx, xlat_rng *rng)
{
    xlat__rng_seed(rng, ctx->seed ^ xlat__mix64(++ctx->streams));
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t xlat__rng_next(xlat_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t xlat__rng_below(xlat_rng *rng, uint64_t bound)
{
    /* Rejection keeps every value equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = xlat__rng_next(rng);
    while (x >= limit);
    return x % bound;
}

/* Appends `s` at `*at` within the errmsg buffer, truncating. */
static void append(xlat_ctx *ctx, size_t *at, const char *s)
{
    while (*s && *at + 1 < sizeof(ctx->errmsg))
        ctx->errmsg[(*at)++] = *s++;
    ctx->errmsg[*at] = 0;
}

/* Joins the pending refusal's parts into errmsg. */
static void busy_message(xlat_ctx *ctx)
{
    size_t at = 0;
    append(ctx, &at, ctx->busy_kind);
    append(ctx, &at, " ");
    append(ctx, &at, ctx->busy_name);
    append(ctx, &at, ": ");
    append(ctx, &at, ctx->busy_why);
    ctx->busy_pending = false;
}

void xlat__busy_forget(xlat_ctx *ctx, const char *name)
{
    /* The message keeps the name it was refused under. */
    if (ctx->busy_pending && ctx->busy_name == name)
        busy_message(ctx);
}
