/* The walker pool's private layout, shared by the walk engine, the
 * coalescing logic and the scheduling policies. */
#ifndef XLAT_WALKER_INTERNAL_H
#define XLAT_WALKER_INTERNAL_H

#include "unit.h"
#include "xlat/pagetable.h"
#include "xlat/barre.h"
#include "xlat/pwc.h"
#include "xlat/walker.h"
#include "walk_sched.h"
#include "nbh_index.h"

#define WALK_MAX_TENANTS 64
#define WALK_MAX_TENANT_MAP 256
/* Senders that can wait for room at once (see target_wait). A pool has one
 * sender in a system (the IOMMU, or a GPU's GMMU), and a host may add one;
 * a further sender is told to poll. Each costs an event of the budget. */
#define WALK_WAITERS 2

struct xlat_walker;

/* A waiting sender's wake-up (walker.c). */
struct walk_wait {
    void *link; /* the pool's free-list link while free */
    struct xlat_walker *pool;
    xlat_event_fn fn;
    void *user;
};

/* One accepted request. It sits on the pool's pending list (arrival order)
 * and in one scheduler queue until a walker takes it. */
struct walk_req {
    /* What a coalescing scan of the pending list reads, together first. */
    struct walk_req *pnext, *pprev; /* pending list, arrival order */
    xlat_req req;
    uint8_t pl;             /* deepest level coalesced so far, 0 = none */
    /* A neighbour's line showed its entry not present: its fault is with
     * the host (fault_token) and it keeps its buffer slot, ineligible,
     * until xlat_walker_fault_resume(). */
    bool parked;
    int32_t queue;          /* index of the queue it waits in, -1 when not queued */
    uint64_t pa;            /* node to read next after PL */
    struct walk_req *qnext, *qprev; /* its scheduler queue */
    xlat_done_fn done;
    void *user;
    uint32_t tenant;
    int status;             /* a failure answered from the drain event */
    uint64_t arrival;
    uint64_t start;         /* cycle a walker took it (or it was coalesced) */
    uint64_t interleave;    /* foreign walks it waited behind */
    uint64_t fault_token;
    struct walk_req *fnext; /* faults raised by one line, in buffer order */
    uint64_t due;           /* taken by a PEC logic: the context cycle of its answer */
    struct nbh_slot *nbh;   /* buffered with cfg.coalesce: its neighbourhoods (nbh_index.c) */
};

/* A fixed-latency read in flight: when it completes, and whose it is. */
struct walk_read {
    uint64_t due;
    uint32_t walker;
};

struct walk_queue {
    struct walk_req *head, *tail;
    uint32_t len, cap;
    uint64_t rot_at;        /* coal_aware: the pool cycle up to which its rotations are done */
    /* With cfg.coalesce alone: every request up to this one was found held
     * back by a scan of eligibility epoch held_epoch (walk_queue.c). */
    struct walk_req *held_last;
    uint64_t held_epoch;
    /* The tenant of the request that found it empty, and how many of its
     * requests are of another: a per-walker queue holds its owner's walks,
     * so counting a tenant's foreign walks seldom needs a scan. */
    uint32_t home, others;
};

/* A walker's PEC logic (pec.c): the answers it has computed, due one after
 * another, in a FIFO served by one armed event. */
struct pec_lane {
    struct xlat_walker *pool;
    struct walk_req *head, *tail; /* chained through qnext */
    uint64_t free_at;             /* the pool cycle its last answer is done */
    bool armed;                   /* its event is posted (or it is firing) */
};

/* coal_aware: the data object of walker w's walk, looked up when it began. */
struct coal_walk {
    xlat_pec_entry d;
    uint64_t vpn;
    bool valid;
};

/* A walker and its walk service table entry. */
struct walker {
    struct xlat_walker *pool;
    struct walk_req *r;     /* NULL: idle */
    uint32_t level;         /* level being read (or about to be read) */
    uint32_t index;         /* its place in pool->walker: a load, not a division by its size */
    uint64_t node_pfn;      /* node being read */
    uint64_t entry_paddr;   /* entry being read */
    uint32_t gen;           /* token generation: stale mem_done/resume calls are refused */
    uint8_t waiting;        /* a read is outstanding at the host's memory */
    uint8_t faulted;        /* waiting for xlat_walker_fault_resume() */
    uint8_t stolen;         /* serving another tenant's walk */
    int resume_status;      /* a resumption deferred out of xlat_walker_translate() */
};

struct walk_tenant {
    xlat_walker_tenant_stats st;
    uint64_t queued;        /* walks waiting in queues */
};

struct xlat_walker {
    /* Context, name, id; records: the accepted requests (a fixed pool of
     * queue_entries + walkers); the senders waiting for room; the event
     * budget of walker_events(). */
    struct xlat__unit unit;
    xlat_walker_config cfg;
    xlat_dwspp_config dwspp;        /* cfg.dwspp points here */
    const struct walk_sched_ops *ops;
    void *sched;                    /* the scheduler's state (ops->state_size bytes) */
    size_t sched_size;
    bool sched_ready;               /* its init succeeded: fini runs at destroy */
    xlat_pagetable *pt;
    uint32_t held_pt, held_pwc;     /* their unit ids: they outlive the pool (xlat__hold_handle) */
    uint32_t levels;
    uint32_t bits;                  /* index bits per level */
    uint32_t line_shift;
    uint32_t nbh_shift[XLAT_PT_MAX_LEVELS + 1]; /* vaddr >> this: neighborhood at a level */
    struct walker *walker;       /* cfg.walkers */
    struct walk_queue *queue;       /* nqueues */
    uint32_t nqueues;
    struct walk_req *pending_head, *pending_tail;
    size_t buffered;
    uint32_t busy;
    uint64_t *idle;              /* bit w set: walker w has no walk (ceil(walkers/64) words) */
    struct walk_tenant tenant[WALK_MAX_TENANTS];
    uint32_t tenant_map_pasid[WALK_MAX_TENANT_MAP];
    uint32_t tenant_map_tenant[WALK_MAX_TENANT_MAP];
    uint32_t tenant_map_len;
    uint64_t fault_serial;          /* tokens of parked neighbour faults */
    bool kicking;                   /* guards re-entrant dispatch */
    uint32_t translating;           /* depth of xlat_walker_translate() calls under way */
    uint32_t reading;               /* depth of calls to the host's mem_read under way */
    /* Fixed-latency reads complete in the order they were issued, so one
     * armed event serves them all: a ring (cfg.walkers slots, one read per
     * walker at most) of the walkers reading, oldest first. */
    struct walk_read *reads;
    uint32_t reads_head, reads_len;
    bool reads_armed;               /* the event of the oldest read is posted */
    uint32_t *due;                  /* walkers whose read completed this cycle, ascending */
    uint32_t ndue;
    struct walk_req *late, **late_tail; /* failures to answer from the drain event */
    bool drain_pending;             /* the event that processes `due` is scheduled */
    struct xlat_pool waits;         /* wait records: a sender's wake-up (WALK_WAITERS) */
    bool starved;                   /* a sender was refused for want of a record */
    xlat_walker_stats st;
    struct xlat__reg reg;
    uint32_t held_pec;              /* the PEC buffer's unit id (xlat__hold_handle) */
    uint64_t *pec_base;             /* cfg.pec_chiplets frames, the pool's copy */
    struct pec_lane *lanes;         /* cfg.walkers, with cfg.pec */
    struct coal_walk *coal;         /* cfg.walkers, with cfg.coal_aware */
    uint32_t coal_walks;            /* walks with a valid coal entry */
    struct nbh_index nbh;           /* cfg.coalesce: the buffer by neighbourhood */
};

/* Queues (walk_queue.c). */
void xlat__queue_remove(struct xlat_walker *p, struct walk_req *r);
/* Moves the head of queue q to its tail (coalescing-aware rotation). */
void xlat__queue_rotate(struct xlat_walker *p, uint32_t q);
/* The services a scheduler may use (walk_queue.c). */
extern const struct walk_services xlat__walk_services;

/* Coalescing (coalesce.c). */
/* A buffered request may start now: no ongoing walk could serve it (CL) and
 * the host's defer hook does not hold it back. */
bool xlat__walk_eligible(struct xlat_walker *p, struct walk_req *r);
/* The CL predicate: an ongoing read of the same line neighborhood could
 * serve `r` at a level deeper than its PL. */
bool xlat__walk_cl(const struct xlat_walker *p, const struct walk_req *r);
/* With cfg.coalesce: the eligibility epoch (nbh_index.h), moved first if
 * a walker's CL view changed since the last call. */
uint64_t xlat__walk_cl_epoch(struct xlat_walker *p);
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

/* The walk engine (walk_step.c): the waiting walks offered to the idle
 * walkers; xlat__walk_kick() below calls it. */
void xlat__walk_kick_idle(struct xlat_walker *p);
/* Starts `r` on free walker w; `thief` is the tenant owning w when it
 * takes another tenant's walk (a steal), -1 otherwise. */
void xlat__walk_start(struct xlat_walker *p, uint32_t w, struct walk_req *r, int32_t thief);
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

/* Barre Chord's PEC logic (pec.c). */
int xlat__pec_init(struct xlat_walker *p, xlat_ctx *ctx);
void xlat__pec_free(struct xlat_walker *p, xlat_ctx *ctx);
/* Walker w's walk ended on leaf `pte` of `level` (before the walker is
 * retired): buffered members of its group are taken by w's PEC logic. */
void xlat__pec_walk_done(struct xlat_walker *p, uint32_t w, uint64_t pte, uint32_t level);

/* Coalescing-aware scheduling (sched_coal.c). */
/* `r` may be held by an in-flight walk's group: it is not started. */
bool xlat__coal_blocked(const struct xlat_walker *p, const struct walk_req *r);
/* Queue q's rotations of the cycles since it was last looked at. */
void xlat__coal_catch_up(struct xlat_walker *p, uint32_t q);
/* Every queue's, before the set of in-flight walks changes. */
void xlat__coal_catch_up_all(struct xlat_walker *p);
/* Walker w starts (r set) or ends (r NULL) a walk: its coal entry follows. */
void xlat__coal_walk_begin(struct xlat_walker *p, uint32_t w);
void xlat__coal_walk_end(struct xlat_walker *p, uint32_t w);

/* Statistics (walker_stats.c). */
void xlat__walk_count_answer(struct xlat_walker *p, const struct walk_req *r);

/* Words of the idle-walker bitmap. */
static inline size_t idle_words(const struct xlat_walker *p) { return (p->cfg.walkers + 63) / 64; }

/* A kick after any change that may let a walk start. Inline, as most
 * kicks cannot start one: every read that moves a walk on kicks, and
 * while walks queue every walker is busy. With no walk waiting, or none
 * of at most 64 walkers idle, xlat__walk_kick_idle() would start nothing,
 * so the kick is this test; otherwise (and for more than 64 walkers,
 * whose idle bits take more words) it is that call. */
static inline void xlat__walk_kick(struct xlat_walker *p)
{
    if (p->kicking || !p->buffered || (p->cfg.walkers <= 64 && !p->idle[0]))
        return;
    xlat__walk_kick_idle(p);
}

/* The walker pool as a unit of its context's registry (walker_stats.c). */
extern const struct xlat__reg_ops xlat__walker_reg_ops;

#endif
