/*
 * Neighborhood-aware walks ("Neighborhood-aware address translation for
 * irregular GPU applications" §IV-B): virtual pages whose entries at a level
 * share one line form a neighborhood. When a walker's read of a line
 * completes, every buffered request of the neighborhood is advanced: to done
 * when its entry there is a leaf, otherwise to the next node (PL/PA). A
 * request that an ongoing read could serve is not started (CL).
 */
#include "walker_internal.h"
#include "../mem/pagetable_internal.h"

uint64_t xlat__walk_nbh(const struct xlat_walker *p, uint64_t vaddr, uint32_t level)
{
    return vaddr >> p->nbh_shift[level];
}

/* `level` is deeper than what `r` has already reached through coalescing. */
static bool deeper(uint32_t level, const struct walk_req *r)
{
    return r->pl == 0 || level < r->pl;
}

bool xlat__walk_cl(const struct xlat_walker *p, const struct walk_req *r)
{
    for (uint32_t w = 0; w < p->cfg.walkers; w++) {
        const struct walk_unit *u = &p->unit[w];
        /* A walk without a table (node UINT64_MAX) reads nothing it could share. */
        if (!u->r || u->faulted || u->node_pfn == UINT64_MAX || u->r->req.pasid != r->req.pasid ||
            !deeper(u->level, r))
            continue;
        if (xlat__walk_nbh(p, r->req.vaddr, u->level) == xlat__walk_nbh(p, u->r->req.vaddr, u->level))
            return true;
    }
    return false;
}

bool xlat__walk_eligible(struct xlat_walker *p, struct walk_req *r)
{
    if (p->cfg.coalesce && xlat__walk_cl(p, r))
        return false;
    if (p->cfg.defer_fn) {
        xlat_walk_info info;
        xlat__walk_info(p, r, &info);
        return !p->cfg.defer_fn(p->cfg.defer_user, &info);
    }
    return true;
}

/* Advances buffered request `r` with its entry `pte` in the line just read;
 * returns true when that entry is its leaf (the caller completes it). */
static bool advance(struct xlat_walker *p, struct walk_req *r, uint32_t level, uint64_t pte,
                    uint64_t line)
{
    if (!(pte & XLAT_PTE_PRESENT))
        return false; /* its own walk will find the fault */
    xlat__walk_trace(p, XLAT_WALK_COALESCE, r, -1, level, line, XLAT_OK);
    if (level == 1 || ((pte & XLAT_PTE_PS) && level <= 3)) {
        r->pl = (uint8_t)level;
        r->pa = pte;
        return true;
    }
    r->pl = (uint8_t)level;
    r->pa = xlat_pte_pfn(pte);
    p->st.partial_coalesces++;
    return false;
}

struct walk_req *xlat__coalesce_line(struct xlat_walker *p, uint32_t w)
{
    const struct walk_unit *u = &p->unit[w];
    uint32_t level = u->level;
    uint64_t key = xlat__walk_nbh(p, u->r->req.vaddr, level);
    uint64_t line = u->entry_paddr & ~(uint64_t)(p->cfg.line_bytes - 1);
    struct walk_req *done = NULL, **tail = &done;
    for (struct walk_req *r = p->pending_head, *next; r; r = next) {
        next = r->pnext;
        if (r->req.pasid != u->r->req.pasid || !deeper(level, r) ||
            xlat__walk_nbh(p, r->req.vaddr, level) != key)
            continue;
        uint64_t pte = 0;
        xlat__pt_read(p->pt, xlat__walk_entry_paddr(p, u->node_pfn, r->req.vaddr, level), &pte);
        if (!advance(p, r, level, pte, line))
            continue;
        xlat__queue_remove(p, r);
        xlat__pending_remove(p, r);
        r->qnext = NULL;
        *tail = r;
        tail = &r->qnext;
    }
    return done;
}
