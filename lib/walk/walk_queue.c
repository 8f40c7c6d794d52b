/* Scheduler queues and the walker-ownership helpers shared by the
 * per-walker policies. */
#include "walker_internal.h"

void xlat__queue_push(struct xlat_walker *p, uint32_t qi, struct walk_req *r)
{
    struct walk_queue *q = &p->queue[qi];
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
    struct walk_queue *q = &p->queue[r->queue];
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
    q->len--;
    p->tenant[r->tenant].queued--;
}

struct walk_req *xlat__queue_first_eligible(struct xlat_walker *p, uint32_t qi)
{
    for (struct walk_req *r = p->queue[qi].head; r; r = r->qnext)
        if (xlat__walk_eligible(p, r))
            return r;
    return NULL;
}

uint32_t xlat__queue_foreign(const struct xlat_walker *p, uint32_t qi, uint32_t tenant)
{
    uint32_t n = 0;
    for (const struct walk_req *r = p->queue[qi].head; r; r = r->qnext)
        n += r->tenant != tenant;
    return n;
}

void xlat__assign_walkers(struct xlat_walker *p)
{
    uint32_t n = p->cfg.walkers, t = p->cfg.tenants;
    for (uint32_t w = 0; w < n; w++) {
        uint32_t owner = p->cfg.assign == XLAT_ASSIGN_INTERLEAVED ? w % t : w / (n / t);
        p->unit[w].owner = owner;
        p->tenant[owner].walkers++;
    }
}

int xlat__least_loaded(const struct xlat_walker *p, uint32_t tenant)
{
    int best = -1;
    uint32_t best_free = 0, cap = xlat__walk_queue_cap(p);
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        if (p->unit[w].owner != tenant)
            continue;
        uint32_t free_slots = cap - p->queue[w].len;
        if (free_slots > best_free) {
            best_free = free_slots;
            best = (int)w;
        }
    }
    return best;
}

int xlat__fullest_queue(struct xlat_walker *p, uint32_t tenant)
{
    int best = -1;
    uint32_t best_len = 0;
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        if (p->unit[w].owner != tenant || p->queue[w].len <= best_len)
            continue;
        if (!xlat__queue_first_eligible(p, w))
            continue;
        best_len = p->queue[w].len;
        best = (int)w;
    }
    return best;
}

int xlat__idle_walker(const struct xlat_walker *p, int32_t tenant)
{
    for (uint32_t w = 0; w < p->cfg.walkers; w++)
        if (!p->unit[w].r && (tenant < 0 || p->unit[w].owner == (uint32_t)tenant))
            return (int)w;
    return -1;
}
