/*
 * The TLB as a timed unit: ports, MSHRs and the miss path to the next
 * target. A request is looked up when it is accepted; the answer (hit) or
 * the forwarded miss leaves `latency` cycles later. Misses on the same
 * (PASID, 4 KiB page) share one MSHR and are answered in the cycle the fill
 * arrives.
 *
 * Every hit of a TLB waits the same latency, so hits complete in the order
 * they were accepted: they wait in one FIFO, and the hits accepted for the
 * same cycle (a batch) share one timing-wheel event instead of one each. A
 * batch closes when the TLB schedules anything else for its cycle, so the
 * TLB's own events keep the order they had with one event per hit.
 */
#include "tlb_internal.h"
#include "waitq.h"

#define MSHR_PAGE_SHIFT 12 /* misses are merged per smallest page */
#define INVAL_RING 16      /* invalidations a fill can check against */

struct tlb_pending {
    struct tlb_pending *next; /* the hit FIFO, or the waiter list of an MSHR */
    xlat_tlb *tlb;
    uint64_t batch;           /* a hit's batch: the event that answers it */
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
    uint64_t epoch; /* the TLB's invalidation epoch at acceptance */
    xlat_resp resp; /* a hit's answer, prepared at acceptance */
};

struct tlb_mshr {
    xlat_tlb *tlb;
    int busy;
    uint64_t inval_seq; /* invalidations seen when it was allocated */
    uint32_t pasid;
    uint64_t page;
    xlat_req fwd;
    struct tlb_pending *head, *tail;
};

struct tlb_timed {
    struct tlb_mshr *mshr;
    uint32_t busy;
    struct xlat_pool pending;
    xlat_target next;
    uint64_t port_cycle;
    uint32_t port_used;
    uint32_t hits, hit_limit; /* hits in flight, and at most */
    struct tlb_pending *hit_head, *hit_tail; /* hits in flight, oldest first */
    uint64_t batch;           /* the latest batch of hits */
    uint64_t batch_cycle;     /* its cycle while it takes more hits, else XLAT_NEVER */
    bool hit_refused;         /* a hit was refused for hit_limit: wake on an answer */
    struct xlat_waitq waitq;  /* senders refused for want of an MSHR or a hit slot */
    /* The latest invalidations, so that a fill can tell whether one that
     * came while it was outstanding covers it. */
    struct tlb_shootdown recent[INVAL_RING];
    uint64_t inval_seq;
};

static void drain_hits(void *arg);
static void retry_hit(void *arg);
static void forward_miss(void *arg);

/* Hits in flight at most: the configured number, or every port over the
 * latency, up to XLAT_TLB_HITS_PER_PORT per port. */
static uint32_t hit_limit(const xlat_tlb_config *c)
{
    if (c->hits_in_flight)
        return c->hits_in_flight;
    uint64_t per_port = (uint64_t)c->latency + 1;
    if (per_port > XLAT_TLB_HITS_PER_PORT)
        per_port = XLAT_TLB_HITS_PER_PORT;
    uint64_t n = per_port * c->ports;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int xlat__tlb_timed_init(xlat_tlb *t)
{
    struct tlb_timed *tm = xlat__alloc(t->ctx, sizeof(*tm));
    if (!tm)
        return XLAT_ERR_NOMEM;
    t->timed = tm;
    tm->mshr = xlat__calloc(t->ctx, t->cfg.mshrs, sizeof(*tm->mshr));
    if (!tm->mshr)
        return XLAT_ERR_NOMEM;
    for (uint32_t i = 0; i < t->cfg.mshrs; i++)
        tm->mshr[i].tlb = t;
    /* Enough records for every hit in flight plus waiters on every MSHR: a
     * configured TLB never grows its pool in steady state, and its memory
     * does not grow with its latency. */
    tm->hit_limit = hit_limit(&t->cfg);
    size_t initial = (size_t)tm->hit_limit + 2u * t->cfg.mshrs;
    tm->port_cycle = XLAT_NEVER;
    tm->batch_cycle = XLAT_NEVER;
    if (xlat__waitq_init(&tm->waitq, t->ctx) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    return xlat__pool_init(&tm->pending, t->ctx, sizeof(struct tlb_pending), initial);
}

static int owned_event(void *tlb, xlat_event_fn fn, void *user)
{
    if (fn == drain_hits || fn == retry_hit)
        return ((struct tlb_pending *)user)->tlb == tlb;
    if (fn == forward_miss)
        return ((struct tlb_mshr *)user)->tlb == tlb;
    return 0;
}

void xlat__tlb_timed_release(xlat_tlb *t)
{
    struct tlb_timed *tm = t->timed;
    if (!tm)
        return;
    xlat__cancel_events(t->ctx, owned_event, t);
    xlat__pool_release(&tm->pending);
    xlat__waitq_release(&tm->waitq);
    xlat__free(t->ctx, tm->mshr, t->cfg.mshrs * sizeof(*tm->mshr));
    xlat__free(t->ctx, tm, sizeof(*tm));
    t->timed = NULL;
}

size_t xlat__tlb_timed_bytes(const xlat_tlb *t)
{
    const struct tlb_timed *tm = t->timed;
    return sizeof(*tm) + t->cfg.mshrs * sizeof(*tm->mshr) + xlat__pool_bytes(&tm->pending);
}

int xlat_tlb_set_next(xlat_tlb *t, const xlat_target *next)
{
    if (!t || (next && !next->translate))
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_set_next: %s",
                          t ? "target without a translate function" : "NULL tlb");
    if (next)
        t->timed->next = *next;
    else
        memset(&t->timed->next, 0, sizeof(t->timed->next));
    return XLAT_OK;
}

uint32_t xlat_tlb_mshrs_busy(const xlat_tlb *t) { return t ? t->timed->busy : 0; }

/* The answer to `req` from translation `e` (or a failure `status`). */
static void make_resp(xlat_resp *r, const struct tlb_pending *p, const xlat_tlb_entry *e,
                      int status, const char *resolver)
{
    memset(r, 0, sizeof(*r));
    r->id = p->req.id;
    r->vaddr = p->req.vaddr;
    r->pasid = p->req.pasid;
    r->issued = p->issued;
    r->resolver = resolver;
    r->status = status;
    if (status != XLAT_OK)
        return;
    xlat__resp_translate(r, e, p->req.vaddr, p->req.access);
}

/* Hands `p`'s answer to its requester and recycles the record first, so the
 * callback may send new requests. */
static void answer(xlat_tlb *t, struct tlb_pending *p, xlat_resp *r)
{
    xlat_done_fn done = p->done;
    void *user = p->user;
    r->completed = t->ctx->now;
    if (r->status != XLAT_OK)
        t->stats.faults++;
    xlat__pool_put(&t->timed->pending, p);
    done(user, r);
}

static int join_miss(xlat_tlb *t, struct tlb_pending *p, uint32_t delay);

/* A hit leaves the hits in flight: a sender refused for want of a slot may
 * try again. */
static void hit_leaves(struct tlb_timed *tm)
{
    tm->hits--;
    if (tm->hit_refused) {
        tm->hit_refused = false;
        xlat__waitq_wake(&tm->waitq);
    }
}

/* Schedules one of the TLB's own events. One at the cycle of the open
 * batch closes it: hits accepted after it get an event after it. */
static int own_schedule(xlat_tlb *t, uint64_t delay, xlat_event_fn fn, void *arg)
{
    if (t->ctx->now + delay == t->timed->batch_cycle)
        t->timed->batch_cycle = XLAT_NEVER;
    return xlat_schedule(t->ctx, delay, fn, arg);
}

/* Answers hit `p`, which has left the FIFO. */
static void deliver_hit(xlat_tlb *t, struct tlb_pending *p)
{
    if (p->epoch != t->epoch) {
        /* An invalidation ran after the lookup: answer from what the TLB
         * holds now, or go to the next level, never with a removed entry. */
        struct tlb_way *w = xlat__tlb_find(t, p->req.pasid, p->req.vaddr, 0);
        if (!w) {
            if (join_miss(t, p, 0) != XLAT_OK)
                own_schedule(t, 1, retry_hit, p); /* no MSHR free: retry */
            return;
        }
        xlat_tlb_entry e;
        xlat__tlb_way_to_entry(w, &e);
        make_resp(&p->resp, p, &e, XLAT_OK, t->name);
    }
    xlat_resp r = p->resp;
    answer(t, p, &r);
}

static void retry_hit(void *arg)
{
    struct tlb_pending *p = arg;
    deliver_hit(p->tlb, p);
}

/* The event of one batch: answers its hits, oldest first. Hits accepted
 * meanwhile (by the callbacks) form a new batch with an event of its own. */
static void drain_hits(void *arg)
{
    struct tlb_pending *first = arg;
    xlat_tlb *t = first->tlb;
    struct tlb_timed *tm = t->timed;
    uint64_t batch = first->batch;
    if (tm->batch == batch)
        tm->batch_cycle = XLAT_NEVER;
    struct tlb_pending *p;
    while ((p = tm->hit_head) != NULL && p->batch == batch) {
        tm->hit_head = p->next;
        if (!tm->hit_head)
            tm->hit_tail = NULL;
        hit_leaves(tm);
        deliver_hit(t, p);
    }
}

/* Frees the MSHR, then answers every waiter from `e` or with `status`. */
static void complete_mshr(struct tlb_mshr *m, const xlat_tlb_entry *e, int status,
                          const char *resolver)
{
    xlat_tlb *t = m->tlb;
    struct tlb_pending *p = m->head;
    m->head = m->tail = NULL;
    m->busy = 0;
    t->timed->busy--;
    xlat__waitq_wake(&t->timed->waitq); /* an MSHR is free again */
    while (p) {
        struct tlb_pending *next = p->next;
        xlat_resp r;
        make_resp(&r, p, e, status, resolver);
        answer(t, p, &r);
        p = next;
    }
}

/* Does an invalidation since the MSHR was allocated cover (pasid, vaddr)?
 * `page_shift` 0: the page size is unknown, so any address of the same
 * 1 GiB region counts. Too many invalidations since: assume it does. */
static bool invalidated_since(const struct tlb_timed *tm, uint64_t since, uint32_t pasid,
                              uint64_t vaddr, uint8_t page_shift)
{
    if (tm->inval_seq - since > INVAL_RING)
        return true;
    uint8_t shift = page_shift ? page_shift : 30;
    for (uint64_t seq = since + 1; seq <= tm->inval_seq; seq++) {
        const struct tlb_shootdown *sd = &tm->recent[seq % INVAL_RING];
        if (sd->all || (sd->pasid == pasid &&
                        (sd->whole_space || sd->vaddr >> shift == vaddr >> shift)))
            return true;
    }
    return false;
}

static void fill_done(void *arg, const xlat_resp *down)
{
    struct tlb_mshr *m = arg;
    xlat_tlb_entry e = {
        .pasid = m->pasid, .vpn = m->fwd.vaddr >> down->page_shift, .pfn = down->pfn,
        .page_shift = down->page_shift, .perm = down->perm, .flags = down->flags,
        .aux = down->aux,
    };
    /* A permission fault still carries a valid translation: fill it and let
     * each waiter's own access decide. */
    int status = down->status == XLAT_ERR_PERM ? XLAT_OK : down->status;
    bool stale = invalidated_since(m->tlb->timed, m->inval_seq, m->pasid, m->fwd.vaddr,
                                   down->page_shift);
    if (status == XLAT_OK && !stale && xlat_tlb_insert(m->tlb, &e, NULL) < 0)
        status = XLAT_ERR_INVAL; /* the next level answered an impossible page size */
    complete_mshr(m, &e, status, status == XLAT_ERR_INVAL ? m->tlb->name : down->resolver);
}

static void forward_miss(void *arg)
{
    struct tlb_mshr *m = arg;
    xlat_tlb *t = m->tlb;
    if (!t->timed->next.translate) {
        complete_mshr(m, NULL, XLAT_ERR_NOT_FOUND, t->name);
        return;
    }
    int rc = t->timed->next.translate(t->timed->next.unit, &m->fwd, fill_done, m);
    if (rc == XLAT_ERR_AGAIN) /* the next level is busy: retry when it has room */
        rc = xlat__target_retry(t->ctx, &t->timed->next, forward_miss, m);
    if (rc != XLAT_OK)
        complete_mshr(m, NULL, rc, t->name); /* never lose an accepted request */
}

void xlat__tlb_timed_invalidated(xlat_tlb *t, const struct tlb_shootdown *sd)
{
    struct tlb_timed *tm = t->timed;
    t->epoch++;
    tm->inval_seq++;
    tm->recent[tm->inval_seq % INVAL_RING] = *sd;
}

/* The MSHR a new miss on (pasid, page) joins, if any; a miss outstanding
 * across an invalidation is not joined, so that nothing accepted after the
 * invalidation is answered from a walk that began before it. */
static struct tlb_mshr *find_mshr(struct tlb_timed *tm, uint32_t n, uint32_t pasid,
                                  uint64_t page, struct tlb_mshr **free_one)
{
    *free_one = NULL;
    for (uint32_t i = 0; i < n; i++) {
        struct tlb_mshr *m = &tm->mshr[i];
        if (m->busy && m->pasid == pasid && m->page == page &&
            !invalidated_since(tm, m->inval_seq, pasid, page << MSHR_PAGE_SHIFT, 0))
            return m;
        if (!m->busy && !*free_one)
            *free_one = m;
    }
    return NULL;
}

static struct tlb_pending *new_pending(xlat_tlb *t, const xlat_req *req, xlat_done_fn done,
                                       void *user)
{
    struct tlb_pending *p = xlat__pool_get(&t->timed->pending);
    if (!p)
        return NULL;
    p->tlb = t;
    p->req = *req;
    p->done = done;
    p->user = user;
    p->issued = t->ctx->now;
    p->epoch = t->epoch;
    return p;
}

static int refuse(xlat_tlb *t, const char *why)
{
    t->stats.refusals++;
    return xlat__busy(t->ctx, "tlb", t->name, why);
}

static int out_of_memory(xlat_tlb *t, struct tlb_pending *p)
{
    if (p)
        xlat__pool_put(&t->timed->pending, p);
    return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for a request", t->name);
}

/* Puts hit `p` at the end of the FIFO, in the open batch of its cycle or
 * in a new one with its own event. */
static int queue_hit(xlat_tlb *t, struct tlb_pending *p)
{
    struct tlb_timed *tm = t->timed;
    uint64_t due = t->ctx->now + t->cfg.latency;
    if (due != tm->batch_cycle) {
        p->batch = tm->batch + 1;
        if (xlat_schedule(t->ctx, t->cfg.latency, drain_hits, p) != XLAT_OK)
            return XLAT_ERR_NOMEM;
        tm->batch = p->batch;
        tm->batch_cycle = due;
    }
    p->batch = tm->batch;
    p->next = NULL;
    if (tm->hit_tail)
        tm->hit_tail->next = p;
    else
        tm->hit_head = p;
    tm->hit_tail = p;
    tm->hits++;
    return XLAT_OK;
}

static int accept_hit(xlat_tlb *t, struct tlb_way *w, const xlat_req *req, xlat_done_fn done,
                      void *user)
{
    if (t->timed->hits >= t->timed->hit_limit) {
        t->timed->hit_refused = true;
        return refuse(t, "every hit slot is in flight");
    }
    struct tlb_pending *p = new_pending(t, req, done, user);
    if (!p || queue_hit(t, p) != XLAT_OK)
        return out_of_memory(t, p);
    xlat__tlb_touch(t, w); /* only once the hit is accepted */
    xlat_tlb_entry e;
    xlat__tlb_way_to_entry(w, &e);
    make_resp(&p->resp, p, &e, XLAT_OK, t->name);
    t->stats.hits++;
    return XLAT_OK;
}

/* Puts `p` behind the outstanding miss of its page, or in a free MSHR that
 * forwards it after `delay` cycles. XLAT_ERR_AGAIN: every MSHR is busy. */
static int join_miss(xlat_tlb *t, struct tlb_pending *p, uint32_t delay)
{
    struct tlb_timed *tm = t->timed;
    uint64_t page = p->req.vaddr >> MSHR_PAGE_SHIFT;
    struct tlb_mshr *free_one;
    struct tlb_mshr *m = find_mshr(tm, t->cfg.mshrs, p->req.pasid, page, &free_one);
    p->next = NULL;
    if (m) {
        m->tail->next = p;
        m->tail = p;
        t->stats.mshr_merges++;
        return XLAT_OK;
    }
    if (!free_one)
        return XLAT_ERR_AGAIN;
    m = free_one;
    int rc = own_schedule(t, delay, forward_miss, m);
    if (rc != XLAT_OK)
        return rc;
    m->busy = 1;
    m->inval_seq = tm->inval_seq;
    m->pasid = p->req.pasid;
    m->page = page;
    m->fwd = p->req;
    m->head = m->tail = p;
    tm->busy++;
    return XLAT_OK;
}

static int accept_miss(xlat_tlb *t, const xlat_req *req, xlat_done_fn done, void *user)
{
    struct tlb_pending *p = new_pending(t, req, done, user);
    if (!p)
        return out_of_memory(t, p);
    int rc = join_miss(t, p, t->cfg.latency); /* one scan of the MSHRs decides */
    if (rc == XLAT_ERR_AGAIN) {
        xlat__pool_put(&t->timed->pending, p);
        return refuse(t, "every MSHR is busy");
    }
    if (rc != XLAT_OK)
        return out_of_memory(t, p);
    t->stats.misses++;
    return XLAT_OK;
}

int xlat_tlb_translate(xlat_tlb *t, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!t || !req || !done)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_translate: NULL %s",
                          !t ? "tlb" : !req ? "req" : "done");
    struct tlb_timed *tm = t->timed;
    if (tm->port_cycle != t->ctx->now) {
        tm->port_cycle = t->ctx->now;
        tm->port_used = 0;
    }
    if (tm->port_used >= t->cfg.ports)
        return refuse(t, "every port is used this cycle");
    struct tlb_way *w = xlat__tlb_find(t, req->pasid, req->vaddr, 0);
    int rc = w ? accept_hit(t, w, req, done, user) : accept_miss(t, req, done, user);
    if (rc == XLAT_OK) {
        tm->port_used++;
        t->stats.accesses++;
    }
    return rc;
}

static int target_translate(void *unit, const xlat_req *req, xlat_done_fn done, void *user)
{
    return xlat_tlb_translate(unit, req, done, user);
}

/* A refused sender retries next cycle when the ports were the reason (they
 * free every cycle), and when an MSHR or a hit slot frees otherwise. */
static int target_wait(void *unit, xlat_event_fn fn, void *user)
{
    xlat_tlb *t = unit;
    struct tlb_timed *tm = t->timed;
    if (tm->port_cycle == t->ctx->now && tm->port_used >= t->cfg.ports)
        return own_schedule(t, 1, fn, user);
    return xlat__waitq_add(&tm->waitq, fn, user);
}

xlat_target xlat_tlb_target(xlat_tlb *t)
{
    xlat_target target = {target_translate, t, target_wait};
    return target;
}
