/*
 * Coalescing-aware walk scheduling ("Barre Chord: Efficient Virtual Memory
 * Translation for Multi-Chip-Module GPUs" §V-C): "every cycle, the scheduler
 * checks if the request in the front of the queue is coalescible to any
 * walking translations. If so, ... putting it to the end of the queue", so
 * that the PEC logic of that walk serves it instead of another walker.
 *
 * It sits under every scheduler, in the queues and the eligibility rule they
 * all use (walk_queue.c, coalesce.c): a request an in-flight walk's group may
 * hold is not started, and the front of each queue rotates, one request per
 * queue per cycle. Nothing can deadlock: a request is held back only while a
 * walk runs, and the end of every walk kicks the walkers again.
 *
 * The rotations are done lazily: between two changes of the walks in flight
 * the "coalescible" test of a request does not change, so the rotations of
 * the cycles since a queue was last looked at are replayed when it is next
 * read or changed, and before a walk starts or ends.
 */
#include "walker_internal.h"

/* The in-flight walk's PTE is not known yet, so the test is the PEC
 * buffer's only (seed-001 note §A.10): same address space and data object,
 * another page, a gap that is a multiple of interlv_gran, within the
 * object's member positions. The leaf decides membership when it comes. */
static bool may_join(const struct coal_walk *c, uint64_t q)
{
    const xlat_pec_entry *d = &c->d;
    if (q == c->vpn || q < d->start_vpn || q > d->end_vpn)
        return false;
    uint64_t gap = q > c->vpn ? q - c->vpn : c->vpn - q;
    return gap % d->interlv_gran == 0 && gap / d->interlv_gran < d->positions;
}

/* Base pages: the size of the in-flight walk's page is not known before its leaf. */
static uint64_t base_vpn(const struct xlat_walker *p, uint64_t vaddr)
{
    return vaddr >> xlat_pagetable_level_shift(p->pt, 1);
}

bool xlat__coal_blocked(const struct xlat_walker *p, const struct walk_req *r)
{
    if (!p->coal_walks)
        return false;
    uint64_t q = base_vpn(p, r->req.vaddr);
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        const struct coal_walk *c = &p->coal[w];
        if (c->valid && c->d.pasid == r->req.pasid && may_join(c, q))
            return true;
    }
    return false;
}

/* `steps` cycles of rotation of queue qi, whose requests' test is fixed:
 * a front that is not coalescible ends them (nothing moves until something
 * changes); when every request is, the order repeats every `len` steps. */
static void rotate(struct xlat_walker *p, uint32_t qi, uint64_t steps)
{
    struct walk_queue *q = &p->queue[qi];
    uint64_t len = q->len, done = 0;
    while (done < steps && done < len) {
        if (!xlat__coal_blocked(p, q->head))
            break;
        xlat__queue_rotate(p, qi);
        done++;
    }
    if (done == len) { /* all of them: the replay is modulo len */
        for (uint64_t k = (steps - done) % len; k; k--)
            xlat__queue_rotate(p, qi);
        done = steps;
    }
    p->st.rotations += done;
}

void xlat__coal_catch_up(struct xlat_walker *p, uint32_t qi)
{
    struct walk_queue *q = &p->queue[qi];
    uint64_t now = xlat__unit_cycle(&p->unit);
    if (now <= q->rot_at)
        return;
    uint64_t steps = now - q->rot_at;
    q->rot_at = now;
    if (q->len >= 2 && p->coal_walks) /* a lone front moving behind itself changes nothing */
        rotate(p, qi, steps);
}

void xlat__coal_catch_up_all(struct xlat_walker *p)
{
    for (uint32_t qi = 0; qi < p->nqueues; qi++)
        xlat__coal_catch_up(p, qi);
}

/* One PEC buffer lookup per walk, when it starts: the scheduler's view of
 * the walk's data object (the PEC logic looks again at the leaf). */
void xlat__coal_walk_begin(struct xlat_walker *p, uint32_t w)
{
    struct coal_walk *c = &p->coal[w];
    const struct walk_req *r = p->walker[w].r;
    xlat__coal_catch_up_all(p);
    c->vpn = base_vpn(p, r->req.vaddr);
    c->valid = xlat_pec_buffer_lookup(p->cfg.pec, r->req.pasid, c->vpn, &c->d) == XLAT_OK;
    p->coal_walks += c->valid;
}

void xlat__coal_walk_end(struct xlat_walker *p, uint32_t w)
{
    struct coal_walk *c = &p->coal[w];
    xlat__coal_catch_up_all(p);
    p->coal_walks -= c->valid;
    c->valid = false;
}
