/*
 * The TLB as a timed unit: ports, hits in flight, MSHRs and the miss path
 * to the next target, over the TLB array. A request is looked up when it is
 * accepted; the answer (hit) or the forwarded miss leaves `latency` cycles
 * later. Misses on the same (PASID, 4 KiB page) share one MSHR and are
 * answered in the cycle the fill arrives.
 *
 * The unit is allocated by the first call that needs it (set_next,
 * target), never by a lookup, so a TLB used only as a structure (a page
 * walk cache, an IOMMU TLB) carries none of it. It hears of invalidations
 * as an observer of the array.
 *
 * Every hit of a TLB waits the same latency, so hits complete in the order
 * they were accepted: they wait in a ring of `hit_limit` slots (the bound
 * on hits in flight), and the hits accepted for the same cycle (a batch)
 * share one timing-wheel event instead of one each. A batch closes when
 * the TLB schedules anything else for its cycle, so the TLB's own events
 * keep the order they had with one event per hit.
 */
#include "tlb_internal.h"
#include "waitq.h"

#define MSHR_PAGE_SHIFT 12 /* misses are merged per smallest page */
#define INVAL_RING 16      /* invalidations a fill can check against */

/* A hit in flight: its request and the entry it hit, as it was then. */
struct tlb_hit {
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
    uint64_t inval_seq; /* invalidations seen at acceptance */
    uint64_t batch;     /* the event that answers it */
    struct tlb_way way;
};

/* A request waiting on an MSHR (a miss, or a hit whose entry was removed
 * before its answer). */
struct tlb_pending {
    struct tlb_pending *next; /* waiter list of an MSHR */
    xlat_tlb *tlb;
    xlat_req req;
    xlat_done_fn done;
    void *user;
    uint64_t issued;
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
    xlat_tlb *tlb;
    struct tlb_mshr *mshr;
    uint32_t busy;
    struct xlat_pool pending;
    xlat_target next;
    uint64_t port_cycle;
    uint32_t port_used;
    struct tlb_hit *hit;      /* ring of hit_limit slots, oldest at hit_head */
    uint32_t hit_head, hits, hit_limit;
    uint64_t batch;           /* the latest batch of hits */
    uint64_t batch_cycle;     /* its cycle while it takes more hits, else XLAT_NEVER */
    bool hit_refused;         /* a hit was refused for want of a slot: wake on an answer */
    struct xlat_waitq waitq;  /* senders refused for want of an MSHR or a hit slot */
    /* The latest invalidations, so that a fill can tell whether one that
     * came while it was outstanding covers it. */
    struct tlb_shootdown recent[INVAL_RING];
    uint64_t inval_seq;
};

static void drain_hits(void *arg);
static void retry_stale(void *arg);
static void forward_miss(void *arg);
static int join_miss(xlat_tlb *t, struct tlb_pending *p, uint32_t delay);

/* ---- the unit's life ------------------------------------------------- */

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

static void invalidated(void *user, const struct tlb_shootdown *sd)
{
    struct tlb_timed *tm = user;
    tm->inval_seq++;
    tm->recent[tm->inval_seq % INVAL_RING] = *sd;
}

/* Allocates everything of `tm`; on failure the caller releases it. */
static int timed_init(xlat_tlb *t, struct tlb_timed *tm)
{
    tm->tlb = t;
    tm->port_cycle = XLAT_NEVER;
    tm->batch_cycle = XLAT_NEVER;
    tm->hit_limit = hit_limit(&t->cfg);
    tm->hit = xlat__calloc(t->ctx, tm->hit_limit, sizeof(*tm->hit));
    tm->mshr = xlat__calloc(t->ctx, t->cfg.mshrs, sizeof(*tm->mshr));
    if (!tm->hit || !tm->mshr)
        return XLAT_ERR_NOMEM;
    for (uint32_t i = 0; i < t->cfg.mshrs; i++)
        tm->mshr[i].tlb = t;
    /* Waiters on every MSHR, and a record for every hit in flight should
     * an invalidation send them all to the next level: a configured TLB
     * never grows its pool in steady state. */
    size_t records = (size_t)tm->hit_limit + 2u * t->cfg.mshrs;
    if (xlat__waitq_init(&tm->waitq, t->ctx) != XLAT_OK ||
        xlat__pool_init(&tm->pending, t->ctx, sizeof(struct tlb_pending), records) != XLAT_OK)
        return XLAT_ERR_NOMEM;
    return xlat__tlb_observe(t, invalidated, tm);
}

int xlat__tlb_timed_ensure(xlat_tlb *t)
{
    if (t->timed)
        return XLAT_OK;
    t->timed = xlat__alloc(t->ctx, sizeof(*t->timed));
    if (t->timed && timed_init(t, t->timed) == XLAT_OK)
        return XLAT_OK;
    xlat__tlb_timed_release(t);
    return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for the timed unit",
                      t->name);
}

static int owned_event(void *tlb, xlat_event_fn fn, void *user)
{
    if (fn == drain_hits)
        return ((struct tlb_timed *)user)->tlb == tlb;
    if (fn == retry_stale)
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
    xlat__tlb_unobserve(t, invalidated, tm);
    if (tm->pending.ctx)
        xlat__pool_release(&tm->pending);
    if (tm->waitq.ctx)
        xlat__waitq_release(&tm->waitq);
    xlat__free(t->ctx, tm->mshr, t->cfg.mshrs * sizeof(*tm->mshr));
    xlat__free(t->ctx, tm->hit, tm->hit_limit * sizeof(*tm->hit));
    xlat__free(t->ctx, tm, sizeof(*tm));
    t->timed = NULL;
}

size_t xlat__tlb_timed_bytes(const xlat_tlb *t)
{
    const struct tlb_timed *tm = t->timed;
    if (!tm)
        return 0;
    return sizeof(*tm) + t->cfg.mshrs * sizeof(*tm->mshr) +
           (size_t)tm->hit_limit * sizeof(*tm->hit) + xlat__pool_bytes(&tm->pending);
}

int xlat_tlb_set_next(xlat_tlb *t, const xlat_target *next)
{
    if (!t || (next && !next->translate))
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_set_next: %s",
                          t ? "target without a translate function" : "NULL tlb");
    int rc = xlat__tlb_timed_ensure(t);
    if (rc != XLAT_OK)
        return rc;
    if (next)
        t->timed->next = *next;
    else
        memset(&t->timed->next, 0, sizeof(t->timed->next));
    return XLAT_OK;
}

uint32_t xlat_tlb_mshrs_busy(const xlat_tlb *t) { return t && t->timed ? t->timed->busy : 0; }

/* ---- answers --------------------------------------------------------- */

/* The answer to `req`, accepted at `issued`, from translation `e` (or a
 * failure `status`). */
static void make_resp(xlat_resp *r, const xlat_req *req, uint64_t issued,
                      const xlat_tlb_entry *e, int status, const char *resolver)
{
    memset(r, 0, sizeof(*r));
    r->id = req->id;
    r->vaddr = req->vaddr;
    r->pasid = req->pasid;
    r->issued = issued;
    r->resolver = resolver;
    r->status = status;
    if (status == XLAT_OK)
        xlat__resp_translate(r, e, req->vaddr, req->access);
}

/* Counts and sends answer `r` (its record already released, so the
 * callback may send new requests). */
static void send_answer(xlat_tlb *t, xlat_done_fn done, void *user, xlat_resp *r)
{
    r->completed = t->ctx->now;
    if (r->status != XLAT_OK)
        t->stats.faults++;
    done(user, r);
}

/* Answers waiter `p` from `e` (or with `status`), recycling the record first. */
static void answer_pending(xlat_tlb *t, struct tlb_pending *p, const xlat_tlb_entry *e,
                           int status, const char *resolver)
{
    xlat_resp r;
    make_resp(&r, &p->req, p->issued, e, status, resolver);
    xlat_done_fn done = p->done;
    void *user = p->user;
    xlat__pool_put(&t->timed->pending, p);
    send_answer(t, done, user, &r);
}

/* Schedules one of the TLB's own events. One at the cycle of the open
 * batch closes it: hits accepted after it get an event after it. */
static int own_schedule(xlat_tlb *t, uint64_t delay, xlat_event_fn fn, void *arg)
{
    if (t->ctx->now + delay == t->timed->batch_cycle)
        t->timed->batch_cycle = XLAT_NEVER;
    return xlat_schedule(t->ctx, delay, fn, arg);
}

/* Room freed: the senders waiting retry, after the batch open now. */
static void wake_senders(xlat_tlb *t)
{
    if (t->timed->batch_cycle == t->ctx->now)
        t->timed->batch_cycle = XLAT_NEVER;
    xlat__waitq_wake(&t->timed->waitq);
}

/* ---- hits ------------------------------------------------------------ */

/* The entry the TLB holds now for `req`, if any. */
static bool entry_now(xlat_tlb *t, const xlat_req *req, xlat_tlb_entry *e)
{
    struct tlb_way *w = xlat__tlb_find(t, req->pasid, req->vaddr, 0);
    if (w)
        xlat__tlb_way_to_entry(w, e);
    return w != NULL;
}

/* A stale hit the TLB no longer holds goes on as a miss; with every MSHR
 * busy it looks again next cycle. */
static void wait_for_mshr(xlat_tlb *t, struct tlb_pending *p)
{
    if (join_miss(t, p, 0) != XLAT_OK && own_schedule(t, 1, retry_stale, p) != XLAT_OK)
        answer_pending(t, p, NULL, XLAT_ERR_NOMEM, t->name); /* never lose an accepted request */
}

static void retry_stale(void *arg)
{
    struct tlb_pending *p = arg;
    xlat_tlb_entry e;
    if (entry_now(p->tlb, &p->req, &e))
        answer_pending(p->tlb, p, &e, XLAT_OK, p->tlb->name);
    else
        wait_for_mshr(p->tlb, p);
}

/* Hit `h` (out of the ring) was accepted before an invalidation: it is
 * answered from what the TLB holds now, or sent on as a miss, never
 * answered with a removed entry. */
static void stale_hit(xlat_tlb *t, const struct tlb_hit *h)
{
    xlat_tlb_entry e;
    xlat_resp r;
    bool held = entry_now(t, &h->req, &e);
    struct tlb_pending *p = held ? NULL : xlat__pool_get(&t->timed->pending);
    if (!p) { /* answered now: from the entry, or (never lost) for want of memory */
        make_resp(&r, &h->req, h->issued, &e, held ? XLAT_OK : XLAT_ERR_NOMEM, t->name);
        send_answer(t, h->done, h->user, &r);
        return;
    }
    p->tlb = t;
    p->req = h->req;
    p->done = h->done;
    p->user = h->user;
    p->issued = h->issued;
    wait_for_mshr(t, p);
}

/* Takes the oldest hit out of the ring; a sender refused for want of a
 * slot may try again. */
static void pop_hit(xlat_tlb *t)
{
    struct tlb_timed *tm = t->timed;
    if (++tm->hit_head == tm->hit_limit)
        tm->hit_head = 0;
    tm->hits--;
    if (tm->hit_refused) {
        tm->hit_refused = false;
        wake_senders(t);
    }
}

/* Answers the oldest hit; its slot is free before the callback runs. */
static void answer_oldest_hit(xlat_tlb *t)
{
    struct tlb_timed *tm = t->timed;
    const struct tlb_hit *h = &tm->hit[tm->hit_head];
    if (h->inval_seq != tm->inval_seq) {
        struct tlb_hit stale = *h;
        pop_hit(t);
        stale_hit(t, &stale);
        return;
    }
    xlat_tlb_entry e;
    xlat_resp r;
    xlat__tlb_way_to_entry(&h->way, &e);
    make_resp(&r, &h->req, h->issued, &e, XLAT_OK, t->name);
    xlat_done_fn done = h->done;
    void *user = h->user;
    pop_hit(t);
    send_answer(t, done, user, &r);
}

/* The event of one batch: answers its hits, oldest first. Hits accepted
 * from now on (by the callbacks, at latency 0) form a new batch with an
 * event of its own, after every event already due this cycle. */
static void drain_hits(void *arg)
{
    struct tlb_timed *tm = arg;
    uint64_t batch = tm->hit[tm->hit_head].batch;
    if (tm->batch_cycle == tm->tlb->ctx->now)
        tm->batch_cycle = XLAT_NEVER;
    while (tm->hits && tm->hit[tm->hit_head].batch == batch)
        answer_oldest_hit(tm->tlb);
}

/* Puts a hit of `req` on way `w` at the end of the ring, in the open batch
 * of its cycle or in a new one with its own event. */
static int queue_hit(xlat_tlb *t, const struct tlb_way *w, const xlat_req *req,
                     xlat_done_fn done, void *user)
{
    struct tlb_timed *tm = t->timed;
    uint64_t due = t->ctx->now + t->cfg.latency;
    if (due != tm->batch_cycle) {
        if (xlat_schedule(t->ctx, t->cfg.latency, drain_hits, tm) != XLAT_OK)
            return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for a request",
                              t->name);
        tm->batch++;
        tm->batch_cycle = due;
    }
    uint64_t slot = (uint64_t)tm->hit_head + tm->hits;
    struct tlb_hit *h = &tm->hit[slot >= tm->hit_limit ? slot - tm->hit_limit : slot];
    h->req = *req;
    h->done = done;
    h->user = user;
    h->issued = t->ctx->now;
    h->inval_seq = tm->inval_seq;
    h->batch = tm->batch;
    h->way = *w;
    tm->hits++;
    return XLAT_OK;
}

static int refuse(xlat_tlb *t, const char *why)
{
    t->stats.refusals++;
    return xlat__busy(t->ctx, "tlb", t->name, why);
}

static int accept_hit(xlat_tlb *t, struct tlb_way *w, const xlat_req *req, xlat_done_fn done,
                      void *user)
{
    if (t->timed->hits == t->timed->hit_limit) {
        t->timed->hit_refused = true;
        return refuse(t, "every hit slot is in flight");
    }
    int rc = queue_hit(t, w, req, done, user);
    if (rc != XLAT_OK)
        return rc;
    xlat__tlb_touch(t, w); /* only once the hit is accepted */
    t->stats.hits++;
    return XLAT_OK;
}

/* ---- misses ---------------------------------------------------------- */

/* Frees the MSHR, then answers every waiter from `e` or with `status`. */
static void complete_mshr(struct tlb_mshr *m, const xlat_tlb_entry *e, int status,
                          const char *resolver)
{
    xlat_tlb *t = m->tlb;
    struct tlb_pending *p = m->head;
    m->head = m->tail = NULL;
    m->busy = 0;
    t->timed->busy--;
    wake_senders(t); /* an MSHR is free again */
    while (p) {
        struct tlb_pending *next = p->next;
        answer_pending(t, p, e, status, resolver);
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
        .page_shift = down->page_shift, .perm = down->perm, .meta = down->meta,
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

/* Takes free MSHR `m` for `p`, forwarded after `delay` cycles. */
static int open_mshr(xlat_tlb *t, struct tlb_mshr *m, struct tlb_pending *p, uint32_t delay)
{
    int rc = own_schedule(t, delay, forward_miss, m);
    if (rc != XLAT_OK)
        return rc;
    m->busy = 1;
    m->inval_seq = t->timed->inval_seq;
    m->pasid = p->req.pasid;
    m->page = p->req.vaddr >> MSHR_PAGE_SHIFT;
    m->fwd = p->req;
    m->head = m->tail = p;
    t->timed->busy++;
    return XLAT_OK;
}

/* Puts `p` behind the outstanding miss of its page, or in a free MSHR that
 * forwards it after `delay` cycles. XLAT_ERR_AGAIN: every MSHR is busy. */
static int join_miss(xlat_tlb *t, struct tlb_pending *p, uint32_t delay)
{
    struct tlb_mshr *free_one;
    struct tlb_mshr *m = find_mshr(t->timed, t->cfg.mshrs, p->req.pasid,
                                   p->req.vaddr >> MSHR_PAGE_SHIFT, &free_one);
    p->next = NULL;
    if (m) {
        m->tail->next = p;
        m->tail = p;
        t->stats.mshr_merges++;
        return XLAT_OK;
    }
    return free_one ? open_mshr(t, free_one, p, delay) : XLAT_ERR_AGAIN;
}

static int accept_miss(xlat_tlb *t, const xlat_req *req, xlat_done_fn done, void *user)
{
    struct tlb_pending *p = xlat__pool_get(&t->timed->pending);
    if (!p)
        return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for a request",
                          t->name);
    p->tlb = t;
    p->req = *req;
    p->done = done;
    p->user = user;
    p->issued = t->ctx->now;
    int rc = join_miss(t, p, t->cfg.latency); /* one scan of the MSHRs decides */
    if (rc != XLAT_OK)
        xlat__pool_put(&t->timed->pending, p);
    if (rc == XLAT_ERR_AGAIN)
        return refuse(t, "every MSHR is busy");
    if (rc != XLAT_OK)
        return xlat__fail(t->ctx, XLAT_ERR_NOMEM, "tlb %s: out of memory for a request",
                          t->name);
    t->stats.misses++;
    return XLAT_OK;
}

/* ---- the unit's calls ------------------------------------------------ */

int xlat_tlb_translate(xlat_tlb *t, const xlat_req *req, xlat_done_fn done, void *user)
{
    if (!t || !req || !done)
        return xlat__fail(t ? t->ctx : NULL, XLAT_ERR_INVAL, "xlat_tlb_translate: NULL %s",
                          !t ? "tlb" : !req ? "req" : "done");
    struct tlb_timed *tm = t->timed;
    if (!tm)
        return xlat__fail(t->ctx, XLAT_ERR_STATE,
                          "tlb %s: not a timed unit yet: call xlat_tlb_set_next() (NULL for no "
                          "next level) or xlat_tlb_target() first", t->name);
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
    if (!tm)
        return xlat__fail(t->ctx, XLAT_ERR_STATE, "tlb %s: not a timed unit", t->name);
    if (tm->port_cycle == t->ctx->now && tm->port_used >= t->cfg.ports)
        return own_schedule(t, 1, fn, user);
    return xlat__waitq_add(&tm->waitq, fn, user);
}

xlat_target xlat_tlb_target(xlat_tlb *t)
{
    xlat_target target = {target_translate, t, target_wait};
    if (!t || xlat__tlb_timed_ensure(t) != XLAT_OK)
        target.translate = NULL; /* refused by set_next and the other units */
    return target;
}
