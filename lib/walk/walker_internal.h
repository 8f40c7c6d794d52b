/* The walker pool's private layout, shared by the walk engine, the
 * coalescing logic and the scheduling policies. */
#ifndef XLAT_WALKER_INTERNAL_H
#define XLAT_WALKER_INTERNAL_H

#include "internal.h"
#include "pool.h"
#include "waitq.h"

#define WALK_MAX_TENANTS 64
#define WALK_MAX_TENANT_MAP 256

/* One accepted request. It sits on the pool's pending list (arrival order)
 * and in one scheduler queue until a walker takes it. */
struct walk_req {
    struct walk_req *pnext, *pprev; /* pending list, arrival order */
    struct walk_req *qnext, *qprev; /* its scheduler queue */
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint32_t tenant;
    int32_t queue;          /* index of the queue it waits in, -1 when not queued */
    uint64_t arrival;
    uint64_t start;         /* cycle a walker took it (or it was coalesced) */
    uint64_t interleave;    /* foreign walks it waited behind */
    uint8_t pl;             /* deepest level coalesced so far, 0 = none */
    uint64_t pa;            /* node to read next after PL */
    /* A neighbour's line showed its entry not present: its fault is with
     * the host (fault_token) and it keeps its buffer slot, ineligible,
     * until xlat_walker_fault_resume(). */
    bool parked;
    int status;             /* a failure answered from the drain event */
    uint64_t fault_token;
    struct walk_req *fnext; /* faults raised by one line, in buffer order */
};

struct walk_queue {
    struct walk_req *head, *tail;
    uint32_t len, cap;
};

/* A walker and its walk service table entry. */
struct walk_unit {
    struct xlat_walker *pool;
    struct walk_req *r;     /* NULL: idle */
    uint32_t level;         /* level being read (or about to be read) */
    uint64_t node_pfn;      /* node being read */
    uint64_t entry_paddr;   /* entry being read */
    uint32_t owner;         /* owning tenant (partition, DWS) */
    uint32_t gen;           /* token generation: stale mem_done/resume calls are refused */
    uint8_t waiting;        /* a read is outstanding at the host's memory */
    uint8_t calling;        /* inside its own call to the host's mem_read */
    uint8_t faulted;        /* waiting for xlat_walker_fault_resume() */
    uint8_t stolen;         /* serving another tenant's walk */
    uint8_t is_stolen;      /* DWS++: the last walk it served was stolen */
    int resume_status;      /* a resumption deferred out of xlat_walker_translate() */
};

struct xlat_walker;

/* A scheduling policy: a small table chosen at create time. */
struct walk_sched_ops {
    const char *name;
    /* Sets up queues and ownership; may reject the configuration. */
    int (*init)(struct xlat_walker *p);
    /* Places an arriving request: returns the walker to start it on now,
     * -1 when it was queued, or XLAT_ERR_AGAIN (nothing taken) when there is
     * no room. With may_start false it must queue (or refuse). Sets
     * r->interleave for queued requests. */
    int (*arrive)(struct xlat_walker *p, struct walk_req *r, bool may_start, bool *stolen);
    /* The next request for free walker w (already taken off its queue), or
     * NULL. Skips requests for which xlat__walk_eligible() is false. Sets
     * *stolen when w serves another tenant. */
    struct walk_req *(*select)(struct xlat_walker *p, uint32_t w, bool *stolen);
};

extern const struct walk_sched_ops xlat__sched_fcfs;
extern const struct walk_sched_ops xlat__sched_partition;
extern const struct walk_sched_ops xlat__sched_dws;
extern const struct walk_sched_ops xlat__sched_dwspp;

struct walk_tenant {
    xlat_walker_tenant_stats st;
    uint64_t queued;        /* walks waiting in queues */
    uint64_t enq_epoch;     /* DWS++: arrivals this epoch */
    uint32_t walkers;       /* walkers owned */
    double diff_thres;      /* DWS++: current DIFF_THRES (1.0 before the first epoch) */
};

struct xlat_walker {
    xlat_ctx *ctx;
    char *name;
    xlat_walker_config cfg;
    const struct walk_sched_ops *ops;
    xlat_pagetable *pt;
    uint32_t levels;
    uint32_t bits;                  /* index bits per level */
    uint32_t line_shift;
    uint32_t nbh_shift[XLAT_PT_MAX_LEVELS + 1]; /* vaddr >> this: neighborhood at a level */
    struct walk_unit *unit;         /* cfg.walkers */
    struct walk_queue *queue;       /* nqueues */
    uint32_t nqueues;
    struct walk_req *pending_head, *pending_tail;
    size_t buffered;
    uint32_t busy;
    struct xlat_pool reqs;
    struct walk_tenant tenant[WALK_MAX_TENANTS];
    uint32_t tenant_map_pasid[WALK_MAX_TENANT_MAP];
    uint32_t tenant_map_tenant[WALK_MAX_TENANT_MAP];
    uint32_t tenant_map_len;
    uint64_t epoch;                 /* DWS++: arrivals in the current epoch */
    uint64_t fault_serial;          /* tokens of parked neighbour faults */
    bool kicking;                   /* guards re-entrant dispatch */
    uint32_t translating;           /* depth of xlat_walker_translate() calls under way */
    uint32_t *due;                  /* walkers whose read completed this cycle, ascending */
    uint32_t ndue;
    struct walk_req *late, **late_tail; /* failures to answer from the drain event */
    bool drain_pending;             /* the event that processes `due` is scheduled */
    struct xlat_waitq waitq;        /* senders refused with a full buffer */
    xlat_walker_stats st;
};

/* Queues (walk_queue.c). */
void xlat__queue_push(struct xlat_walker *p, uint32_t q, struct walk_req *r);
void xlat__queue_remove(struct xlat_walker *p, struct walk_req *r);
/* The first eligible request of queue q, or NULL (not removed). */
struct walk_req *xlat__queue_first_eligible(struct xlat_walker *p, uint32_t q);
/* Requests of other tenants than `tenant` waiting in queue q. */
uint32_t xlat__queue_foreign(const struct xlat_walker *p, uint32_t q, uint32_t tenant);

/* Ownership helpers for per-walker schedulers (walk_queue.c). */
void xlat__assign_walkers(struct xlat_walker *p);
/* Owned walker of `tenant` with the most free queue slots (lowest id on ties);
 * -1 if every owned queue is full. */
int xlat__least_loaded(const struct xlat_walker *p, uint32_t tenant);
/* Walker of `tenant` whose queue holds the most eligible requests, -1 if none. */
int xlat__fullest_queue(struct xlat_walker *p, uint32_t tenant);
/* Lowest idle walker owned by `tenant` (or any tenant if tenant < 0), -1 if none. */
int xlat__idle_walker(const struct xlat_walker *p, int32_t tenant);

/* Per-walker queues shared by partition, DWS and DWS++ (sched_common.c). */
/* Queue capacities and walker ownership. */
int xlat__pw_init(struct xlat_walker *p);
/* Arrival: an idle owned walker, else (idle_steal) any idle walker with
 * *stolen set, else the least-loaded owned queue; the arrive() contract. */
int xlat__pw_arrive(struct xlat_walker *p, struct walk_req *r, bool may_start, bool idle_steal,
                    bool *stolen);
/* The head of w's own queue, else of the fullest queue of its owner (taken
 * off its queue), or NULL. Never a steal. */
struct walk_req *xlat__pw_serve_owner(struct xlat_walker *p, uint32_t w);
/* The tenant other than `self` with the most queued walks among those with
 * a walk that may start now (lowest id on ties), -1 if none. */
int xlat__pw_victim(struct xlat_walker *p, uint32_t self);
/* Walker w steals the head of the fullest queue of `victim` (< 0: none):
 * sets *stolen and charges the owner's walks waiting in w's queue. */
struct walk_req *xlat__pw_steal(struct xlat_walker *p, uint32_t w, int victim, bool *stolen);

/* Coalescing (coalesce.c). */
/* A buffered request may start now: no ongoing walk could serve it (CL) and
 * the host's defer hook does not hold it back. */
bool xlat__walk_eligible(struct xlat_walker *p, struct walk_req *r);
/* The CL predicate: an ongoing read of the same line neighborhood could
 * serve `r` at a level deeper than its PL. */
bool xlat__walk_cl(const struct xlat_walker *p, const struct walk_req *r);
/* Walker w's read of its current level completed: advances every buffered
 * request whose entry lies in the same line. Requests whose entry there is
 * a leaf, or (without a fault callback) not present, are taken off the
 * queues and returned chained through qnext, with that entry in r->pa and
 * its level in r->pl. With a fault callback, requests whose entry is not
 * present are parked (seed-002 note §A.5 step 5) and chained through
 * fnext in *faults. */
struct walk_req *xlat__coalesce_line(struct xlat_walker *p, uint32_t w, struct walk_req **faults);
/* Neighborhood key of `vaddr` at `level` (same key: same line). */
uint64_t xlat__walk_nbh(const struct xlat_walker *p, uint64_t vaddr, uint32_t level);

/* The walk engine (walk_step.c). */
/* Events of this pool (destroy cancels them). */
int xlat__walk_owns_event(const struct xlat_walker *p, xlat_event_fn fn, void *user);
void xlat__walk_kick(struct xlat_walker *p);
void xlat__walk_start(struct xlat_walker *p, uint32_t w, struct walk_req *r, bool stolen);
void xlat__walk_info(const struct xlat_walker *p, const struct walk_req *r, xlat_walk_info *out);
void xlat__walk_trace(struct xlat_walker *p, xlat_walk_event_kind kind, const struct walk_req *r,
                      int32_t w, uint32_t level, uint64_t line, int status);
uint64_t xlat__walk_entry_paddr(const struct xlat_walker *p, uint64_t node_pfn,
                                uint64_t vaddr, uint32_t level);

/* Pending list (walker.c). */
void xlat__pending_add(struct xlat_walker *p, struct walk_req *r);
void xlat__pending_remove(struct xlat_walker *p, struct walk_req *r);
uint32_t xlat__walk_tenant_of(const struct xlat_walker *p, uint32_t pasid);

/* Answers `r` with the translation in leaf entry `pte` of `level`, or with
 * a failure `status` (walk_step.c). Recycles r before calling back. */
void xlat__walk_answer(struct xlat_walker *p, struct walk_req *r, uint64_t pte, uint32_t level,
                       int status);

/* Statistics (walker_stats.c). */
void xlat__walk_count_answer(struct xlat_walker *p, const struct walk_req *r);
uint32_t xlat__hist_bucket(uint64_t cycles);

static inline uint32_t xlat__walk_queue_cap(const struct xlat_walker *p)
{
    return p->cfg.queue_entries / p->cfg.walkers;
}

#endif
