/*
 * The neighbourhood index of a coalescing pool: the buffered requests of
 * each (pasid, level, line), in buffer order, so that a read's coalescing
 * and the CL test cost what they find, not the size of the buffer.
 *
 * A buffered request is a member of its neighbourhood at every level deeper
 * than its PL (all of them while PL is 0): exactly the lines whose read could
 * still advance it. Its PL only goes down while it is buffered, so it only
 * leaves neighbourhoods, and each list keeps the buffer's (arrival) order.
 */
#ifndef XLAT_WALK_NBH_INDEX_H
#define XLAT_WALK_NBH_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "pool.h"

struct xlat_walker;
struct walk_req;
typedef struct xlat_ctx xlat_ctx;

/* A neighbourhood with buffered members. */
struct nbh_group {
    struct nbh_group *hnext;        /* its hash bucket's chain */
    uint64_t key;                   /* vaddr >> nbh_shift[level] */
    uint32_t pasid, level;
    uint32_t readers;               /* walkers whose CL view (nbh_index::cl) it is */
    struct walk_req *head, *tail;   /* buffer order */
};

/* A buffered request's place in its neighbourhood of one level. */
struct nbh_slot {
    struct walk_req *next, *prev;
    struct nbh_group *group;        /* NULL: not a member at that level */
};

/* What a walker's ongoing read holds back (CL): level 0 for nothing. */
struct nbh_cl_view {
    uint64_t key;
    uint32_t pasid, level;
};

struct nbh_index {
    /* The CL views of the walkers as last seen, and the eligibility epoch:
     * it moves when they or a buffered request's PL or parking change, so
     * a queue scan may skip what a scan of the same epoch found held back
     * (walk_queue.c). */
    struct nbh_cl_view *cl;
    uint64_t epoch;
    struct nbh_group **bucket;
    uint64_t mask;                  /* buckets - 1 */
    struct xlat_pool groups;        /* levels per request record: each could be alone */
    struct xlat_pool slots;         /* one block of `levels` slots per buffered request */
    bool ready;
};

/* `level` is deeper than what `r` has reached through coalescing (PL). */
static inline bool xlat__walk_deeper(uint32_t level, uint8_t pl) { return pl == 0 || level < pl; }

/* Reserves the index for the pool's request records (cfg.coalesce only). */
int xlat__nbh_init(struct xlat_walker *p, xlat_ctx *ctx);
void xlat__nbh_free(struct xlat_walker *p, xlat_ctx *ctx);

/* `r` enters the buffer (at its tail) / leaves it (r->nbh set). */
void xlat__nbh_add(struct xlat_walker *p, struct walk_req *r);
void xlat__nbh_remove(struct xlat_walker *p, struct walk_req *r);
/* `r`'s PL went down: it leaves the neighbourhoods it no longer needs. */
void xlat__nbh_sync(struct xlat_walker *p, struct walk_req *r);

/* Walker w's CL view changes to `v` (nbh_index::cl[w] is still the old
 * one): the readers of both neighbourhoods follow. */
void xlat__nbh_view_moved(struct xlat_walker *p, uint32_t w, const struct nbh_cl_view *v);
/* The CL predicate of buffered request `r` by the views of nbh_index::cl:
 * one of its neighbourhoods is being read. */
bool xlat__nbh_held(const struct xlat_walker *p, const struct walk_req *r);

/* The first buffered request of neighbourhood `key` of `pasid` at `level`,
 * and the one after `r` there, in buffer order; NULL at the end. */
struct walk_req *xlat__nbh_first(const struct xlat_walker *p, uint32_t pasid, uint32_t level,
                                 uint64_t key);
struct walk_req *xlat__nbh_next(const struct walk_req *r, uint32_t level);

#endif
