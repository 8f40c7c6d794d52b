/* The GMMU's private layout, shared by the request flow (gmmu.c) and the
 * bypass predictor (gmmu_bypass.c). */
#ifndef XLAT_GMMU_INTERNAL_H
#define XLAT_GMMU_INTERNAL_H

#include "internal.h"
#include "xlat/walker.h"
#include "xlat/experimental.h"
#include "xlat/gmmu.h"
#include "unit.h"

/* The two places a request can be sent. */
enum { SIDE_GMMU = 0, SIDE_IOMMU = 1 };

/* A side of one request: not sent (or its waiting copy cancelled), sent or
 * waiting in the side's queue, answered. */
enum { SIDE_IDLE = 0, SIDE_PENDING = 1, SIDE_DONE = 2 };

struct gmmu_side {
    uint8_t state;
    uint8_t valid; /* the answer found a mapping (OK or PERM) */
};

/* One accepted request, alive until it is answered and neither side nor
 * any of its events can still reach it. The records come from the unit's
 * fixed pool: their number is the GMMU's admission bound. */
struct gmmu_req {
    void *free_link; /* used by the pool while free */
    xlat_gmmu *g;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
    xlat_gmmu_routing route;
    struct gmmu_side side[2];
    /* The chosen answer: the unit below's own while its callback runs (a
     * valid answer delivered at once is never copied), else `held`. */
    const xlat_resp *answer;
    struct gmmu_req *wait_next[2]; /* links of the sides' wait queues */
    uint32_t events;   /* own events scheduled and not fired */
    uint8_t hold;      /* inside a call that still uses the record */
    uint8_t starting;  /* inside xlat_gmmu_translate: answers are deferred */
    uint8_t answered;  /* the answer is chosen (delivered or not yet) */
    uint8_t deferred;  /* chosen, not yet delivered (settle() delivers it) */
    uint8_t final_side; /* the side whose answer was chosen */
    /* Last, and not zeroed when the record is taken (only written before
     * it is read): an answer kept past the call that brought it, chosen
     * but not yet deliverable, or invalid and waiting for the other
     * side's (§4). */
    xlat_resp held;
};

/* The bypass predictor (§4): the epoch the counters belong to, the route in
 * force, and the counters. Plain data, so that a const query can evaluate
 * the ended epochs on a copy. */
struct gmmu_epoch {
    uint64_t index;
    xlat_gmmu_routing route;
    uint8_t predicted;  /* `route` came from a ratio, not the initial route */
    uint32_t cnt_local, cnt_remote; /* counter_bits wide */
    uint64_t seen_local, seen_remote; /* exact, for prediction accuracy */
};

/* How a mode routes: a fixed route, the predictor's, or the host's oracle. */
struct gmmu_mode_ops {
    const char *name;
    int dynamic;
    int needs_walker;
    int oracle;
    xlat_gmmu_routing fixed;
};

/* Requests a side refused, in arrival order; the head is retried when the
 * unit below has room (its wait hook) or else next cycle, by at most one
 * retry pending per side. */
struct gmmu_wait {
    struct gmmu_req *head, *tail;
    int scheduled;
};

struct xlat_gmmu {
    struct xlat__unit u; /* context, name, id, records, refused senders, events */
    xlat_gmmu_config cfg;
    const struct gmmu_mode_ops *mode;
    xlat_target iommu;
    uint32_t held_walker;  /* cfg.walker's unit id: it outlives the GMMU */
    struct gmmu_wait wait[2];
    struct gmmu_epoch epoch;
    xlat_gmmu_stats stats;
    size_t unanswered; /* accepted, not yet answered */
    uint64_t woke_at;  /* cycle of the last wake of refused senders (XLAT_NEVER: none) */
    int rewake;        /* a wake is posted for the next cycle */
    struct xlat__reg reg;
};

/* gmmu_bypass.c */
const struct gmmu_mode_ops *xlat__gmmu_mode_ops(xlat_gmmu_mode mode);
/* The route of a request accepted now. */
xlat_gmmu_routing xlat__gmmu_route_for(const xlat_gmmu *g, const xlat_req *req);
/* `now` and the epochs count the GMMU's own cycles (xlat__unit_cycle). */
void xlat__gmmu_epoch_init(struct gmmu_epoch *e, const xlat_gmmu_config *c, uint64_t now);
/* Evaluates every epoch that ended before cycle `now`, updating `st`;
 * `report` calls the epoch callback. */
void xlat__gmmu_epoch_roll(struct gmmu_epoch *e, const xlat_gmmu_config *c, uint64_t now,
                           xlat_gmmu_stats *st, int report);
/* Counts an answer of the current epoch as local (1) or remote (0). */
void xlat__gmmu_epoch_count(struct gmmu_epoch *e, const xlat_gmmu_config *c, int local);
/* The predictor as it will be once the epochs ended by now are evaluated;
 * `st` (may be NULL) receives their counts too. */
struct gmmu_epoch xlat__gmmu_epoch_now(const xlat_gmmu *g, xlat_gmmu_stats *st);
/* The locality of request `r` answered from `side` with `resp`: 1 local,
 * 0 remote, -1 not counted. */
int xlat__gmmu_locality(const xlat_gmmu *g, const struct gmmu_req *r, int side,
                        const xlat_resp *resp);

/* The GMMU as a unit of its context's registry (gmmu_stats.c). */
extern const struct xlat__reg_ops xlat__gmmu_reg_ops;

#endif
