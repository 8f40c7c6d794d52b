/*
 * Neighborhood-aware walks ("Neighborhood-aware address translation for
 * irregular GPU applications" §IV-B): virtual pages whose entries at a level
 * share one line form a neighborhood. When a walker's read of a line
 * completes, every buffered request of the neighborhood is advanced: to done
 * when its entry there is a leaf, otherwise to the next node (PL/PA). A
 * request that an ongoing read could serve is not started (CL).
 */
#include "walker_internal.h"
#include "../mem/pt_walk.h"

uint64_t xlat__walk_nbh(const struct xlat_walker *p, uint64_t vaddr, uint32_t level)
{
    return vaddr >> p->nbh_shift[level];
}

/* `level` is deeper than what `r` has already reached through coalescing. */
static bool deeper(uint32_t level, const struct walk_req *r)
{
    return xlat__walk_deeper(level, r->pl);
}

bool xlat__walk_cl(const struct xlat_walker *p, const struct walk_req *r)
{
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        const struct walker *u = &p->walker[w];
        /* A walk without a table (node UINT64_MAX) reads nothing it could share. */
        if (!u->r || u->faulted || u->node_pfn == UINT64_MAX || u->r->req.pasid != r->req.pasid ||
            !deeper(u->level, r))
            continue;
        if (xlat__walk_nbh(p, r->req.vaddr, u->level) == xlat__walk_nbh(p, u->r->req.vaddr, u->level))
            return true;
    }
    return false;
}

/* What walker u's ongoing read holds back: the line of its level. */
static struct nbh_cl_view cl_view(const struct xlat_walker *p, const struct walker *u)
{
    struct nbh_cl_view v = {0, 0, 0};
    if (u->r && !u->faulted && u->node_pfn != UINT64_MAX) {
        v.pasid = u->r->req.pasid;
        v.level = u->level;
        v.key = xlat__walk_nbh(p, u->r->req.vaddr, u->level);
    }
    return v;
}

uint64_t xlat__walk_cl_epoch(struct xlat_walker *p)
{
    struct nbh_index *ix = &p->nbh;
    bool moved = false;
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        struct nbh_cl_view v = cl_view(p, &p->walker[w]);
        if (v.level != ix->cl[w].level || v.key != ix->cl[w].key || v.pasid != ix->cl[w].pasid) {
            xlat__nbh_view_moved(p, w, &v);
            ix->cl[w] = v;
            moved = true;
        }
    }
    ix->epoch += moved;
    return ix->epoch;
}

bool xlat__walk_eligible(struct xlat_walker *p, struct walk_req *r)
{
    if (r->parked)
        return false; /* its fault is with the host */
    if (p->cfg.coalesce && xlat__walk_cl(p, r))
        return false;
    if (p->cfg.coal_aware && xlat__coal_blocked(p, r))
        return false; /* an in-flight walk's PEC logic may serve it (sched_coal.c) */
    if (p->cfg.defer_fn) {
        xlat_walk_info info;
        xlat__walk_info(p, r, &info);
        return !p->cfg.defer_fn(p->cfg.defer_user, &info);
    }
    return true;
}

/* What a line does for a buffered request whose entry it holds. */
enum line_use { LINE_ADVANCED, LINE_SERVED, LINE_FAULT };

/* Advances buffered request `r` with its entry `pte` in the line just read
 * from `node` (the entry not present: LINE_FAULT; its leaf: LINE_SERVED). */
static enum line_use advance(struct xlat_walker *p, struct walk_req *r, uint32_t level,
                             uint64_t pte, uint64_t node, uint64_t line)
{
    xlat__walk_trace(p, XLAT_WALK_COALESCE, r, -1, level, line, XLAT_OK);
    if (!(pte & XLAT_PTE_PRESENT)) {
        /* Resumed with XLAT_OK, its walk re-reads this entry (PL/PA). */
        r->pl = (uint8_t)(level + 1);
        r->pa = node;
        return LINE_FAULT;
    }
    r->pl = (uint8_t)level;
    if (level == 1 || ((pte & XLAT_PTE_PS) && level <= 3)) {
        r->pa = pte;
        return LINE_SERVED;
    }
    r->pa = xlat_pte_pfn(pte);
    p->st.partial_coalesces++;
    return LINE_ADVANCED;
}

/* An upper-level entry a neighbour obtained from the line fills the PWC
 * (seed-002 note §A.3), unless it is the walker's own entry, which the
 * walker fills itself. */
static void fill_pwc(struct xlat_walker *p, const struct walker *u, const struct walk_req *r,
                     uint64_t entry_paddr)
{
    if (p->cfg.pwc && p->cfg.coalesce_fill_pwc && entry_paddr != u->entry_paddr)
        xlat_pwc_fill(p->cfg.pwc, r->req.pasid, r->req.vaddr, r->pl, r->pa);
}

/* Takes `r` out of the buffer. */
static void unbuffer(struct xlat_walker *p, struct walk_req *r)
{
    xlat__queue_remove(p, r);
    xlat__pending_remove(p, r);
    r->qnext = NULL;
}

/* A neighbour's entry is not present: with a fault callback it waits for
 * the host in its buffer slot; without one it is answered XLAT_ERR_FAULT
 * (r->pa keeps the non-present entry) with the line's leaves. */
static bool park(struct xlat_walker *p, struct walk_req *r, uint64_t pte)
{
    p->st.faults++;
    if (!p->cfg.fault_fn) {
        r->pa = pte;
        return false;
    }
    r->parked = true;
    r->fault_token = 1ull << 63 | ++p->fault_serial;
    return true;
}

struct walk_req *xlat__coalesce_line(struct xlat_walker *p, uint32_t w, struct walk_req **faults)
{
    const struct walker *u = &p->walker[w];
    uint32_t level = u->level;
    uint64_t key = xlat__walk_nbh(p, u->r->req.vaddr, level);
    uint64_t line = u->entry_paddr & ~(uint64_t)(p->cfg.line_bytes - 1);
    struct walk_req *done = NULL, **tail = &done, **ftail = faults;
    /* The line's neighbourhood holds, in buffer order, exactly the buffered
     * requests of this address space whose entry it holds at a level deeper
     * than their PL (nbh_index.h). */
    for (struct walk_req *r = xlat__nbh_first(p, u->r->req.pasid, level, key), *next; r;
         r = next) {
        next = xlat__nbh_next(r, level);
        if (r->parked)
            continue;
        uint64_t pte = 0, entry = xlat__walk_entry_paddr(p, u->node_pfn, r->req.vaddr, level);
        xlat__pt_read(p->pt, entry, &pte);
        enum line_use use = advance(p, r, level, pte, u->node_pfn, line);
        xlat__nbh_sync(p, r); /* its PL went down */
        p->nbh.epoch++;       /* and so may its eligibility */
        if (use == LINE_ADVANCED) {
            fill_pwc(p, u, r, entry);
            continue;
        }
        if (use == LINE_FAULT && park(p, r, pte)) {
            r->fnext = NULL;
            *ftail = r;
            ftail = &r->fnext;
            continue;
        }
        unbuffer(p, r);
        *tail = r;
        tail = &r->qnext;
    }
    return done;
}
