/*
 * Barre Chord's PEC logic in the walker pool ("Barre Chord: Efficient
 * Virtual Memory Translation for Multi-Chip-Module GPUs" §IV-E, §IV-F): when
 * a walk ends on a leaf whose coalescing group has more than one chiplet,
 * the walker's PEC logic finds the data object in the PEC buffer, scans the
 * buffered requests in queue order, and answers every other page of the
 * group with a computed frame instead of a walk ("each PTW has a dedicated
 * PEC logic").
 *
 * A walker's PEC logic computes one answer per pec_latency cycles, one
 * after another: its answers wait in a FIFO (its lane) whose due cycles only
 * grow, so one armed event per walker serves them (the budget of
 * walker_events()). The walker itself is free at once: the paper's frames
 * are "calculated behind the scenes".
 */
#include "walker_internal.h"
#include "../mem/pt_walk.h"

int xlat__pec_init(struct xlat_walker *p, xlat_ctx *ctx)
{
    if (!p->cfg.pec)
        return XLAT_OK;
    p->pec_base = xlat__calloc(ctx, p->cfg.pec_chiplets, sizeof(*p->pec_base));
    p->lanes = xlat__calloc(ctx, p->cfg.walkers, sizeof(*p->lanes));
    if (p->cfg.coal_aware)
        p->coal = xlat__calloc(ctx, p->cfg.walkers, sizeof(*p->coal));
    if (!p->pec_base || !p->lanes || (p->cfg.coal_aware && !p->coal))
        return XLAT_ERR_NOMEM;
    memcpy(p->pec_base, p->cfg.pec_base_pfn, p->cfg.pec_chiplets * sizeof(*p->pec_base));
    p->cfg.pec_base_pfn = p->pec_base; /* the caller's array may go */
    for (uint32_t w = 0; w < p->cfg.walkers; w++)
        p->lanes[w].pool = p;
    return XLAT_OK;
}

void xlat__pec_free(struct xlat_walker *p, xlat_ctx *ctx)
{
    xlat__free(ctx, p->pec_base, p->cfg.pec_chiplets * sizeof(*p->pec_base));
    xlat__free(ctx, p->lanes, p->cfg.walkers * sizeof(*p->lanes));
    xlat__free(ctx, p->coal, p->cfg.walkers * sizeof(*p->coal));
}

/* ---- a walker's lane of computed answers ------------------------------ */

static void lane_event(void *arg);

static void lane_arm(struct pec_lane *l)
{
    l->armed = l->head != NULL;
    if (l->armed)
        xlat__unit_post_at(&l->pool->unit, l->head->due, lane_event, l);
}

/* The answers due now leave in order. The lane stays armed while they are
 * delivered, so an answer's callback that ends another walk on this walker
 * (and queues more answers) posts no second event. */
static void lane_event(void *arg)
{
    struct pec_lane *l = arg;
    struct xlat_walker *p = l->pool;
    struct walk_req *r;
    while ((r = l->head) != NULL && r->due <= p->unit.ctx->now) {
        l->head = r->qnext;
        if (!l->head)
            l->tail = NULL;
        xlat__walk_answer(p, r, r->pa, r->pl, XLAT_OK);
    }
    lane_arm(l);
}

/* The PEC logic spends pec_latency cycles on one more member, after what
 * it is still computing; returns the context cycle it is done. */
static uint64_t lane_slot(struct xlat_walker *p, struct pec_lane *l)
{
    uint64_t now = xlat__unit_cycle(&p->unit);
    uint64_t from = l->free_at > now ? l->free_at : now;
    l->free_at = from + p->cfg.pec_latency;
    return xlat__unit_due(&p->unit, l->free_at - now);
}

/* ---- one walk's group ------------------------------------------------- */

/* What the PEC logic knows after a walk: the object, the walked page and
 * its leaf, and the lane its answers take. */
struct pec_walk {
    xlat_pec_entry d;
    xlat_coal_info ci;
    uint32_t pasid, level, shift;
    uint64_t vpn, pfn, pte;
    uint64_t first; /* the group's first page (§V-B's VPN_first) */
    uint32_t w;
};

/* Buffered request `r` (page q of the group, frame pfn_q) leaves the
 * buffer for w's lane, with the leaf its own PTE would hold: the walked
 * one's flags and permissions, its frame, its own group information. */
static void take(struct xlat_walker *p, const struct pec_walk *g, struct walk_req *r,
                 uint64_t q, uint64_t pfn_q)
{
    struct pec_lane *l = &p->lanes[g->w];
    uint64_t dq = q - g->first;
    xlat_coal_info ci = g->ci;
    ci.inter = (uint8_t)(dq / g->d.interlv_gran);
    ci.intra = (uint8_t)(dq % g->d.interlv_gran);
    uint64_t pte = xlat_pte_set_pfn(g->pte, pfn_q << (g->shift - 12));
    xlat__queue_remove(p, r);
    xlat__pending_remove(p, r);
    r->pa = xlat_coal_encode(pte, &ci, p->cfg.pec_expanded);
    r->pl = (uint8_t)g->level;
    r->start = p->unit.ctx->now;
    r->due = lane_slot(p, l);
    r->qnext = NULL;
    *(l->tail ? &l->tail->qnext : &l->head) = r;
    l->tail = r;
    p->st.pec_answers++;
    xlat__walk_trace(p, XLAT_WALK_PEC, r, (int32_t)g->w, 0, 0, XLAT_OK);
    if (!l->armed)
        lane_arm(l);
}

/* Page q's frame when it is another member of the group. Requests for the
 * walked page itself are left to the pool's own rule (walked again, or
 * served by `coalesce`), as without PEC: §A.6's fairness with the baseline. */
static bool member(const struct xlat_walker *p, const struct pec_walk *g, uint64_t q,
                   uint64_t *pfn_q)
{
    return q != g->vpn &&
           xlat_pec_calc(&g->d, p->pec_base, g->vpn, g->pfn, &g->ci, q, pfn_q) == XLAT_OK;
}

/* Takes every buffered request of page q (all of them when q < 0), in
 * queue order; returns how many. */
static uint32_t take_pending(struct xlat_walker *p, const struct pec_walk *g, int64_t only)
{
    uint32_t n = 0;
    for (uint32_t qi = 0; qi < p->nqueues; qi++) {
        for (struct walk_req *r = p->queue[qi].head, *next; r; r = next) {
            next = r->qnext;
            uint64_t q = r->req.vaddr >> g->shift, pfn_q;
            if (r->parked || r->req.pasid != g->pasid || (only >= 0 && q != (uint64_t)only) ||
                !member(p, g, q, &pfn_q))
                continue;
            take(p, g, r, q, pfn_q);
            n++;
        }
    }
    return n;
}

/* pec_multicast: every member in position order, the asked-for ones
 * answered, the others costing the PEC logic their slot all the same. */
static void multicast(struct xlat_walker *p, const struct pec_walk *g)
{
    uint64_t gran = g->d.interlv_gran, pfn_q;
    for (uint64_t k = 0; k < g->d.positions; k++) {
        for (uint64_t intra = 0; intra <= g->ci.merged; intra++) {
            uint64_t q = g->first + k * gran + intra;
            if (!member(p, g, q, &pfn_q) || take_pending(p, g, (int64_t)q))
                continue;
            (void)lane_slot(p, &p->lanes[g->w]);
            p->st.pec_multicast++;
        }
    }
}

static bool map_fits(const struct xlat_walker *p, const xlat_pec_entry *d)
{
    for (uint32_t k = 0; k < d->positions; k++)
        if (d->gpu_map[k] >= p->cfg.pec_chiplets)
            return false;
    return true;
}

void xlat__pec_walk_done(struct xlat_walker *p, uint32_t w, uint64_t pte, uint32_t level)
{
    const struct walk_req *walked = p->walker[w].r;
    struct pec_walk g = {.pasid = walked->req.pasid, .level = level, .pte = pte, .w = w};
    xlat_coal_decode(pte, p->cfg.pec_expanded, &g.ci);
    if (__builtin_popcount(g.ci.bitmap) < 2)
        return;
    g.shift = xlat_pagetable_level_shift(p->pt, level);
    g.vpn = walked->req.vaddr >> g.shift;
    if (xlat_pec_buffer_lookup(p->cfg.pec, g.pasid, g.vpn, &g.d) != XLAT_OK || !map_fits(p, &g.d))
        return;
    uint64_t before = g.ci.intra + (uint64_t)g.d.interlv_gran * g.ci.inter;
    if (g.vpn - g.d.start_vpn < before)
        return; /* group information that does not fit the object: xlat_pec_calc() refuses */
    g.first = g.vpn - before;
    g.pfn = xlat_pte_pfn(pte) >> (g.shift - 12);
    if (p->cfg.coal_aware)
        xlat__coal_catch_up_all(p); /* the queues' order as of this cycle */
    if (p->cfg.pec_multicast)
        multicast(p, &g);
    else
        take_pending(p, &g, -1);
}
