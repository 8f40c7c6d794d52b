/*
 * Private helpers shared by every part of libxlat: allocation through the
 * context's hooks, error reporting, configuration copying, a seeded RNG and
 * hashing. Nothing here is exported.
 */
#ifndef XLAT_CORE_INTERNAL_H
#define XLAT_CORE_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "xlat/common.h"
#include "xlat/ctx.h"
#include "xlat/target.h"
#include "slab.h"
#include "wheel.h"

#define XLAT_ERRMSG_LEN 256

struct xlat__reg; /* registry.h */

struct xlat_ctx {
    xlat_allocator alloc;
    uint64_t seed;
    uint64_t streams;        /* RNG streams handed out so far */
    uint64_t now;
    int in_advance;
    uint32_t units;          /* unit ids handed out so far (0 is the host) */
    struct xlat__reg *reg_head, *reg_tail; /* live units, in creation order */
    size_t reg_live;                       /* units on that list */
    /* The registry's index (registry.c): reg_slots places by id, then as
     * many by handle; NULL while the registry is small or it could not be
     * allocated. */
    struct xlat__reg **reg_index;
    size_t reg_slots;
    const struct xlat__reg *adopter; /* owner of the units created now (registry.h) */
    struct xlat_wheel wheel;
    char errmsg[XLAT_ERRMSG_LEN];
    /* The last refusal, kept as its parts until xlat_ctx_errmsg() asks for
     * it (see xlat__busy); errmsg holds it once busy_pending is clear. */
    const char *busy_kind, *busy_name, *busy_why;
    bool busy_pending;
    struct xlat__slab slab; /* small objects, once there are many (slab.h) */
};

/* Zeroed memory of `size` bytes, aligned to 64 bytes; NULL on failure. */
void *xlat__alloc(xlat_ctx *ctx, size_t size);
/* `n` zeroed elements of `size` bytes, with overflow checking. */
void *xlat__calloc(xlat_ctx *ctx, size_t n, size_t size);
void xlat__free(xlat_ctx *ctx, void *ptr, size_t size);
/* Asks the kernel for transparent huge pages over the 2 MiB pages inside
 * a block of 4 MiB or more (Linux, where they are on "always" or "madvise";
 * a hint, ignored elsewhere and on failure; the contents stay). */
void xlat__advise_huge_pages(void *block, size_t bytes);
/* A copy of `s` (NULL gives NULL); free with xlat__strfree. */
char *xlat__strdup(xlat_ctx *ctx, const char *s);
void xlat__strfree(xlat_ctx *ctx, char *s);

/* Records a formatted detail for xlat_ctx_errmsg() and returns `rc`. */
int xlat__fail(xlat_ctx *ctx, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Copies a caller's configuration into `dst` (already holding defaults),
 * honouring the caller's struct_size so that older binaries keep working.
 * `min_size` is the size of the first released version of the struct.
 */
int xlat__config_copy(xlat_ctx *ctx, void *dst, size_t dst_size, const void *src,
                      size_t min_size, const char *what);

/*
 * Copies the library's struct `src` (src_size bytes; NULL: zeros) out to a
 * caller's struct of dst_size bytes, the sizeof the caller was built with:
 * a shorter (older) struct receives its prefix and nothing beyond it; a
 * longer (newer) one receives zeros past src_size. NULL dst or dst_size 0
 * writes nothing.
 */
void xlat__copy_out(void *dst, size_t dst_size, const void *src, size_t src_size);
/* A config_init's defaults (`full`, the library's struct) into the host's
 * `dst` of `dst_size` bytes, as xlat__copy_out; `struct_size` (every
 * config's first member) then says the host's size. Nothing for NULL or a
 * `dst_size` that cannot hold struct_size. */
void xlat__config_out(void *dst, size_t dst_size, const void *full, size_t full_size);

/* splitmix64 step: the mixing function behind every hash and stream seed. */
static inline uint64_t xlat__mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* xoshiro256** generator; each object draws its own stream from the context. */
typedef struct xlat_rng {
    uint64_t s[4];
} xlat_rng;

/* Seeds `rng` with the next stream of the context's seed. */
void xlat__rng_stream(xlat_ctx *ctx, xlat_rng *rng);
void xlat__rng_seed(xlat_rng *rng, uint64_t seed);
uint64_t xlat__rng_next(xlat_rng *rng);
/* Uniform in [0, bound), bound > 0, without modulo bias. */
uint64_t xlat__rng_below(xlat_rng *rng, uint64_t bound);

static inline int xlat__is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* Event budgets. A unit reserves at create the most events it can have
 * pending at once (XLAT_ERR_NOMEM, with a message, if the pool cannot grow)
 * and gives them back at destroy; xlat__post then never fails: it is the
 * units' own schedule, tagged with the poster's owner place. */
int xlat__events_reserve(xlat_ctx *ctx, size_t n);
void xlat__events_unreserve(xlat_ctx *ctx, size_t n);
/* A unit's place in the owner table (never 0, the host's), taken at its
 * create and given back by xlat__cancel_owner: the `owner` its events
 * carry. XLAT_ERR_NOMEM with a message. */
int xlat__events_owner(xlat_ctx *ctx, uint32_t *place);
/* xlat__post's slow part: a list that needs a block, a slot above level 0. */
void xlat__post_slow(xlat_ctx *ctx, uint32_t owner, uint64_t delay, xlat_event_fn fn, void *user);

static inline void xlat__post(xlat_ctx *ctx, uint32_t owner, uint64_t delay, xlat_event_fn fn,
                              void *user)
{
    struct xlat_wheel *w = &ctx->wheel;
    uint64_t cycle = ctx->now + delay;
    struct xlat_event *e = xlat__wheel_quick_entry(w, ctx->now, cycle);
    if (__builtin_expect(!e, 0)) {
        xlat__post_slow(ctx, owner, delay, fn, user);
        return;
    }
    xlat__wheel_fill(w, e, cycle, owner, fn, user);
}
/* Nothing else is due in this cycle right now: an event posted with delay 0
 * from here would be the very next to run (so a unit may run it at once). */
static inline int xlat__ready_empty(const xlat_ctx *ctx)
{
    return xlat__wheel_ready_empty(&ctx->wheel);
}
/* Posts that found the pool empty: a unit exceeded its budget (tests assert 0). */
size_t xlat__events_overruns(const xlat_ctx *ctx);
/* Drops the pending events posted by owner place `owner` and frees the
 * place (0: nothing to do). */
void xlat__cancel_owner(xlat_ctx *ctx, uint32_t owner);

/* Drops the pending events that `match` selects (for a unit's destroy). */
void xlat__cancel_events(xlat_ctx *ctx,
                         int (*match)(void *match_user, xlat_event_fn fn, void *user),
                         void *match_user);


/* Back-pressure (XLAT_ERR_AGAIN) is routine flow control, refused and
 * retried many times a cycle in a busy system, and its message is rarely
 * read: a refusal keeps the three parts of "<kind> <name>: <why>", which
 * xlat_ctx_errmsg() joins when asked. `kind` and `why` are literals; a unit
 * calls xlat__busy_forget() before its name is freed. */
static inline int xlat__busy(xlat_ctx *ctx, const char *kind, const char *name, const char *why)
{
    ctx->busy_kind = kind;
    ctx->busy_name = name;
    ctx->busy_why = why;
    ctx->busy_pending = true;
    return XLAT_ERR_AGAIN;
}
/* A unit whose name is about to be freed: a later refusal must not take
 * another name at the same address for its own. */
void xlat__busy_forget(xlat_ctx *ctx, const char *name);

/* The message of a request xlat__req_check() refuses. */
int xlat__req_refuse(xlat_ctx *ctx, const xlat_req *req, const char *who);

/* XLAT_ERR_INVAL (with a message naming `who`) when `req` is not a valid
 * request: an access kind outside xlat_access. */
static inline int xlat__req_check(xlat_ctx *ctx, const xlat_req *req, const char *who)
{
    if ((unsigned)req->access > XLAT_ACCESS_ATOMIC)
        return xlat__req_refuse(ctx, req, who);
    return XLAT_OK;
}

/* The start of every answer to `req`: zeroed, with its id, address, PASID,
 * `status` and `resolver`, the unit id of the unit that answers (a
 * translation is added by xlat__resp_translate). */
static inline void xlat__resp_init(xlat_resp *r, const xlat_req *req, int status,
                                   uint32_t resolver)
{
    memset(r, 0, sizeof(*r));
    r->id = req->id;
    r->vaddr = req->vaddr;
    r->pasid = req->pasid;
    r->status = status;
    r->resolver = resolver;
}

/* xlat_access_perm(), inline for the answers below. */
static inline uint8_t xlat__access_perm(xlat_access access)
{
    switch (access) {
    case XLAT_ACCESS_READ: return XLAT_PERM_R;
    case XLAT_ACCESS_WRITE: return XLAT_PERM_W;
    case XLAT_ACCESS_EXEC: return XLAT_PERM_X;
    case XLAT_ACCESS_ATOMIC: return XLAT_PERM_R | XLAT_PERM_W;
    default: return 0;
    }
}

/* Puts the translation of `vaddr` to frame `pfn` of a 2^page_shift page
 * with `perm` into `r` (page, frame, physical address, permissions) and
 * sets r->status to XLAT_OK, or XLAT_ERR_PERM when `perm` does not allow
 * `access`. The metadata is the caller's. */
static inline void xlat__resp_frame(xlat_resp *r, uint64_t pfn, uint8_t page_shift, uint8_t perm,
                                    uint64_t vaddr, xlat_access access)
{
    uint8_t need = xlat__access_perm(access);
    r->page_shift = page_shift;
    r->pfn = pfn;
    r->paddr = (pfn << page_shift) | (vaddr & ((1ull << page_shift) - 1));
    r->perm = perm;
    r->status = (perm & need) == need ? XLAT_OK : XLAT_ERR_PERM;
}

/* Puts translation `e` of `vaddr` into `r`: xlat__resp_frame() and the
 * entry's metadata. */
static inline void xlat__resp_translate(xlat_resp *r, const xlat_translation *e, uint64_t vaddr,
                                        xlat_access access)
{
    xlat__resp_frame(r, e->pfn, e->page_shift, e->perm, vaddr, access);
    r->meta = e->meta;
}

#endif /* XLAT_CORE_INTERNAL_H */
