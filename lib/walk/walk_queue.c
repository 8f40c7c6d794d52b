/* The pool's queues of buffered requests, and the services table through
 * which schedulers use them (walk_sched.h). Nothing here knows which
 * scheduler runs or what it keeps. */
#include "walker_internal.h"

/* Coalescing-aware scheduling rotates queues every cycle; it is brought up
 * to date lazily, before a queue is read or changed (sched_coal.c). */
static inline void catch_up(struct xlat_walker *p, uint32_t qi)
{
    if (p->cfg.coal_aware)
        xlat__coal_catch_up(p, qi);
}

static void queue_push(struct xlat_walker *p, uint32_t qi, struct walk_req *r)
{
    struct walk_queue *q = &p->queue[qi];
    catch_up(p, qi);
    if (q->len == 0)
        q->home = r->tenant;
    q->others += r->tenant != q->home;
    r->queue = (int32_t)qi;
    r->qnext = NULL;
    r->qprev = q->tail;
    if (q->tail)
        q->tail->qnext = r;
    else
        q->head = r;
    q->tail = r;
    q->len++;
    p->tenant[r->tenant].queued++;
}

void xlat__queue_remove(struct xlat_walker *p, struct walk_req *r)
{
    if (r->queue < 0)
        return;
    catch_up(p, (uint32_t)r->queue);
    struct walk_queue *q = &p->queue[r->queue];
    if (q->held_last == r)
        q->held_last = r->qprev; /* the rest of the held-back prefix still is */
    if (r->qprev)
        r->qprev->qnext = r->qnext;
    else
        q->head = r->qnext;
    if (r->qnext)
        r->qnext->qprev = r->qprev;
    else
        q->tail = r->qprev;
    r->qnext = r->qprev = NULL;
    r->queue = -1;
    q->others -= r->tenant != q->home;
    q->len--;
    p->tenant[r->tenant].queued--;
}

void xlat__queue_rotate(struct xlat_walker *p, uint32_t qi)
{
    struct walk_queue *q = &p->queue[qi];
    struct walk_req *r = q->head;
    if (!r || r == q->tail)
        return;
    q->held_last = NULL; /* the prefix is no longer one */
    q->head = r->qnext;
    q->head->qprev = NULL;
    r->qprev = q->tail;
    r->qnext = NULL;
    q->tail->qnext = r;
    q->tail = r;
}

/* Whether a scan may remember the requests it found held back: with
 * coalescing alone, a request's eligibility moves only with the
 * eligibility epoch. The host's defer hook answers as it likes, and the
 * coalescing-aware rotations reorder the queues. */
static bool may_remember(const struct xlat_walker *p)
{
    return p->cfg.coalesce && !p->cfg.defer_fn && !p->cfg.coal_aware;
}

/* The first request of queue q to scan: past the prefix a scan of the same
 * epoch found held back, so that a buffer of requests held back by one
 * ongoing read costs each pick what arrived since, not the whole buffer. */
static struct walk_req *scan_from(struct xlat_walker *p, struct walk_queue *q)
{
    uint64_t epoch = xlat__walk_cl_epoch(p);
    if (q->held_last && q->held_epoch == epoch)
        return q->held_last->qnext;
    q->held_last = NULL;
    q->held_epoch = epoch;
    return q->head;
}

/* The first eligible request of q, remembering there the requests it
 * finds held back (out of line: the pools that do not coalesce keep the
 * plain scan). */
static __attribute__((noinline)) struct walk_req *first_remembered(struct xlat_walker *p,
                                                                   struct walk_queue *q)
{
    struct walk_req *r = scan_from(p, q);
    /* Eligible: neither parked nor held back by a read (CL), which the
     * views scan_from() brought up to date tell by neighbourhood. */
    for (bool remember = true; r; r = r->qnext) {
        if (!r->parked && !xlat__nbh_held(p, r))
            return r;
        /* A parked request's resumption moves no epoch: the prefix ends
         * before it. */
        remember = remember && !r->parked;
        if (remember)
            q->held_last = r;
    }
    return NULL;
}

static inline struct walk_req *first_eligible(struct xlat_walker *p, uint32_t qi)
{
    struct walk_queue *q = &p->queue[qi];
    catch_up(p, qi);
    if (may_remember(p))
        return first_remembered(p, q);
    for (struct walk_req *r = q->head; r; r = r->qnext)
        if (xlat__walk_eligible(p, r))
            return r;
    return NULL;
}

static struct walk_req *queue_take(struct xlat_walker *p, uint32_t qi)
{
    struct walk_req *r = first_eligible(p, qi);
    if (r)
        xlat__queue_remove(p, r);
    return r;
}

static bool queue_has_eligible(struct xlat_walker *p, uint32_t qi)
{
    return first_eligible(p, qi) != NULL;
}

static uint32_t queue_len(const struct xlat_walker *p, uint32_t qi) { return p->queue[qi].len; }

static uint32_t queue_foreign(const struct xlat_walker *p, uint32_t qi, uint32_t tenant)
{
    const struct walk_queue *q = &p->queue[qi];
    if (tenant == q->home)
        return q->others;
    if (q->others == 0)
        return q->len; /* all of them are the home tenant's */
    uint32_t n = 0;
    for (const struct walk_req *r = q->head; r; r = r->qnext)
        n += r->tenant != tenant;
    return n;
}

static void charge_interleave(struct xlat_walker *p, uint32_t qi, uint32_t tenant)
{
    const struct walk_queue *q = &p->queue[qi];
    if (tenant == q->home && q->others == 0)
        return; /* nobody in it waits behind a foreign walk */
    for (struct walk_req *r = q->head; r; r = r->qnext) {
        xlat_walker_tenant_stats *st = &p->tenant[r->tenant].st;
        if (r->tenant == tenant)
            continue;
        r->interleave++;
        st->interleave++;
        if (r->interleave > st->interleave_max)
            st->interleave_max = r->interleave;
    }
}

static int64_t walker_tenant(const struct xlat_walker *p, uint32_t w)
{
    const struct walk_req *r = p->walker[w].r;
    return r ? (int64_t)r->tenant : -1;
}

static int64_t first_idle(const struct xlat_walker *p)
{
    for (size_t word = 0; word < idle_words(p); word++)
        if (p->idle[word])
            return (int64_t)(word * 64 + (unsigned)__builtin_ctzll(p->idle[word]));
    return -1;
}

static uint64_t tenant_queued(const struct xlat_walker *p, uint32_t t)
{
    return p->tenant[t].queued;
}

static uint32_t req_tenant(const struct walk_req *r) { return r->tenant; }

static void set_interleave(struct walk_req *r, uint64_t n) { r->interleave = n; }

const struct walk_services xlat__walk_services = {
    .push = queue_push,
    .take = queue_take,
    .has_eligible = queue_has_eligible,
    .len = queue_len,
    .foreign = queue_foreign,
    .charge_interleave = charge_interleave,
    .first_idle = first_idle,
    .walker_tenant = walker_tenant,
    .tenant_queued = tenant_queued,
    .req_tenant = req_tenant,
    .set_interleave = set_interleave,
};
