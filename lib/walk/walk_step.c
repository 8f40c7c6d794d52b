/*
 * The walk engine: a walk consults the page walk cache, then reads one
 * entry per level through the memory model until it reaches a leaf or a
 * non-present entry. Every read is a real 64-byte line of the page table.
 */
#include "walker_internal.h"
#include "../mem/pt_walk.h"

#define TOKEN_WALKER_BITS 20

static void issue_read(struct walker *u);
static void fault_event(void *arg);

uint64_t xlat__walk_entry_paddr(const struct xlat_walker *p, uint64_t node_pfn, uint64_t vaddr,
                                uint32_t level)
{
    return (node_pfn << 12) + (uint64_t)xlat_pagetable_index(p->pt, vaddr, level) * 8;
}

static uint32_t walker_index(const struct walker *u) { return u->index; }

static uint64_t walker_token(const struct walker *u)
{
    return (uint64_t)u->gen << TOKEN_WALKER_BITS | walker_index(u);
}

/* The walker for `token`, or NULL when it names nothing outstanding. */
static struct walker *token_walker(struct xlat_walker *p, uint64_t token)
{
    uint64_t w = token & ((1u << TOKEN_WALKER_BITS) - 1);
    if (token >> 63 || w >= p->cfg.walkers || p->walker[w].gen != (uint32_t)(token >> TOKEN_WALKER_BITS))
        return NULL;
    return p->walker[w].r ? &p->walker[w] : NULL;
}

static void retire(struct walker *u)
{
    struct xlat_walker *p = u->pool;
    if (p->cfg.coal_aware)
        xlat__coal_walk_end(p, walker_index(u));
    p->tenant[u->r->tenant].st.in_service--;
    u->r = NULL;
    u->waiting = u->faulted = 0;
    u->gen++;
    p->busy--;
    uint32_t w = walker_index(u);
    p->idle[w / 64] |= 1ull << (w % 64);
}

/* The walker's walk ends with leaf `pte` (or `status`); the walker is free
 * before the requester hears of it. */
static void finish(struct walker *u, uint64_t pte, int status)
{
    struct walk_req *r = u->r;
    uint32_t level = u->level;
    retire(u);
    xlat__walk_answer(u->pool, r, pte, level, status);
}

static void fault(struct walker *u)
{
    struct xlat_walker *p = u->pool;
    p->st.faults++;
    if (!p->cfg.fault_fn) {
        finish(u, 0, XLAT_ERR_FAULT);
        return;
    }
    u->faulted = 1;
    xlat_walk_fault f = {
        .token = walker_token(u), .id = u->r->req.id, .pasid = u->r->req.pasid,
        .vaddr = u->r->req.vaddr, .access = u->r->req.access, .level = u->level,
        .entry_paddr = u->entry_paddr, .gpu = u->r->req.gpu,
    };
    p->cfg.fault_fn(p->cfg.fault_user, p, &f);
}

/* Answers the requests a line served through coalescing: with their leaf,
 * or with XLAT_ERR_FAULT when their entry there is not present and no
 * fault callback is set. */
static void answer_chain(struct xlat_walker *p, struct walk_req *chain)
{
    while (chain) {
        struct walk_req *next = chain->qnext;
        bool present = chain->pa & XLAT_PTE_PRESENT;
        chain->start = p->unit.ctx->now;
        p->st.coalesced += present;
        xlat__walk_answer(p, chain, chain->pa, chain->pl, present ? XLAT_OK : XLAT_ERR_FAULT);
        chain = next;
    }
}

/* Raises the faults of parked neighbours (their entry in the line just
 * read is not present), in buffer order. */
static void raise_parked(struct xlat_walker *p, struct walk_req *r)
{
    while (r) {
        struct walk_req *next = r->fnext;
        uint32_t level = r->pl - 1u;
        xlat_walk_fault f = {
            .token = r->fault_token, .id = r->req.id, .pasid = r->req.pasid,
            .vaddr = r->req.vaddr, .access = r->req.access, .level = level,
            .entry_paddr = xlat__walk_entry_paddr(p, r->pa, r->req.vaddr, level),
            .gpu = r->req.gpu,
        };
        p->cfg.fault_fn(p->cfg.fault_user, p, &f);
        r = next;
    }
}

static void read_done(struct walker *u)
{
    struct xlat_walker *p = u->pool;
    uint64_t pte = 0;
    u->waiting = 0;
    p->st.reads++;
    p->st.reads_level[u->level]++;
    xlat__pt_read(p->pt, u->entry_paddr, &pte);
    xlat__walk_trace(p, XLAT_WALK_READ, u->r, (int32_t)walker_index(u), u->level,
                     u->entry_paddr & ~(uint64_t)(p->cfg.line_bytes - 1), XLAT_OK);
    struct walk_req *faults = NULL;
    struct walk_req *served =
        p->cfg.coalesce ? xlat__coalesce_line(p, walker_index(u), &faults) : NULL;
    if (!(pte & XLAT_PTE_PRESENT)) {
        fault(u);
    } else if (u->level == 1 || ((pte & XLAT_PTE_PS) && u->level <= 3)) {
        if (p->cfg.pec) /* before the walker lets go of the walk */
            xlat__pec_walk_done(p, walker_index(u), pte, u->level);
        finish(u, pte, XLAT_OK);
    } else {
        if (p->cfg.pwc)
            xlat_pwc_fill(p->cfg.pwc, u->r->req.pasid, u->r->req.vaddr, u->level,
                          xlat_pte_pfn(pte));
        u->level--;
        u->node_pfn = xlat_pte_pfn(pte);
        issue_read(u);
    }
    answer_chain(p, served);
    raise_parked(p, faults);
    xlat__walk_kick(p);
}

/* Every read that completes in a cycle is processed after all of them
 * have arrived, in walker-id order ("Improving GPU Multi-tenancy with Page
 * Walk Stealing" convention, seed-004 note §A.6): the order decides which
 * walker picks (or steals) a waiting walk first, so it must not depend on
 * the order the walks happened to start in. */
static void drain_event(void *arg)
{
    struct xlat_walker *p = arg;
    /* Each read_done() ends with a kick, and a kick that finds nothing
     * changed since the last one starts nothing (selection has no side
     * effects when it finds nothing): the closing kick is for a drain
     * posted without reads (a parked request resumed during a kick) and
     * for the late answers. */
    bool kick = p->ndue == 0;
    p->drain_pending = false;
    for (uint32_t i = 0; i < p->ndue; i++)
        read_done(&p->walker[p->due[i]]);
    p->ndue = 0;
    kick = kick || p->late;
    /* Failures decided inside translate (a parked fault resumed there). */
    while (p->late) {
        struct walk_req *r = p->late;
        p->late = r->qnext;
        xlat__walk_answer(p, r, 0, 0, r->status);
    }
    if (kick)
        xlat__walk_kick(p); /* a parked request resumed during a kick may start */
}

static void schedule_drain(struct xlat_walker *p)
{
    if (p->drain_pending)
        return;
    p->drain_pending = true;
    xlat__unit_post(&p->unit, 0, drain_event, p);
}

/* Walker w's read completed this cycle: it joins `due`, in walker-id order. */
static void collect(struct xlat_walker *p, uint32_t w)
{
    uint32_t i = p->ndue++;
    for (; i > 0 && p->due[i - 1] > w; i--)
        p->due[i] = p->due[i - 1];
    p->due[i] = w;
}

/* Completions have arrived: the drain processes them after everything
 * else due this cycle. */
static void complete(struct xlat_walker *p)
{
    if (!p->drain_pending && xlat__ready_empty(p->unit.ctx)) {
        /* The drain would be the next event of this cycle: run it now and
         * save the event. */
        p->drain_pending = true;
        drain_event(p);
        return;
    }
    schedule_drain(p);
}

/* A host's mem_done deferred out of a call-out. */
static void read_done_event(void *arg)
{
    struct walker *u = arg;
    collect(u->pool, walker_index(u));
    complete(u->pool);
}

static void reads_event(void *arg);

/* Re-arms the ring's event for its oldest read, if any. */
static void rearm_reads(struct xlat_walker *p)
{
    p->reads_armed = p->reads_len > 0;
    if (p->reads_armed)
        xlat__unit_post_at(&p->unit, p->reads[p->reads_head].due, reads_event, p);
}

/* Several reads complete this cycle (or others already did): they join
 * `due`, and the drain processes them in walker-id order. */
static __attribute__((noinline)) void reads_batch(struct xlat_walker *p, uint64_t now)
{
    const struct walk_read *ring = p->reads;
    uint32_t n = p->cfg.walkers;
    do {
        collect(p, ring[p->reads_head].walker);
        p->reads_head = p->reads_head + 1 == n ? 0 : p->reads_head + 1;
    } while (--p->reads_len && ring[p->reads_head].due <= now);
    rearm_reads(p);
    complete(p);
}

/* The oldest fixed-latency reads are due (the event was posted for the
 * oldest one's cycle): every read of this cycle completes in one event,
 * instead of one event each. */
static void reads_event(void *arg)
{
    struct xlat_walker *p = arg;
    const struct walk_read *ring = p->reads;
    uint64_t now = p->unit.ctx->now;
    uint32_t head = p->reads_head, next = head + 1 == p->cfg.walkers ? 0 : head + 1;
    if (p->ndue || p->drain_pending || (p->reads_len > 1 && ring[next].due <= now)) {
        reads_batch(p, now);
        return;
    }
    /* The usual case: one read completes alone in its cycle. */
    uint32_t w = ring[head].walker;
    p->reads_head = next;
    p->reads_len--;
    rearm_reads(p);
    if (!xlat__ready_empty(p->unit.ctx)) {
        collect(p, w); /* other events are due this cycle: the drain runs after them */
        schedule_drain(p);
        return;
    }
    /* Nothing else is due: the drain would process just this read (no late
     * answers without a drain pending, and read_done() ends with the kick). */
    read_done(&p->walker[w]);
}

/* A read of the fixed-latency memory model: it completes mem_latency of
 * the pool's cycles from now, after every read issued before it (due
 * cycles only grow with now, whatever the clock, so the ring stays in
 * order). */
static void read_fixed(struct walker *u)
{
    struct xlat_walker *p = u->pool;
    uint32_t tail = p->reads_head + p->reads_len;
    if (tail >= p->cfg.walkers)
        tail -= p->cfg.walkers;
    p->reads[tail].due = xlat__unit_due(&p->unit, p->cfg.mem_latency);
    p->reads[tail].walker = walker_index(u);
    p->reads_len++;
    if (!p->reads_armed) {
        p->reads_armed = true;
        xlat__unit_post_at(&p->unit, p->reads[tail].due, reads_event, p);
    }
}

static void fault_event(void *arg)
{
    struct walker *u = arg;
    fault(u);
    xlat__walk_kick(u->pool); /* requests held back by its CL window may start */
}

static void issue_read_event(void *arg) { issue_read(arg); }

static void issue_read(struct walker *u)
{
    struct xlat_walker *p = u->pool;
    u->entry_paddr = xlat__walk_entry_paddr(p, u->node_pfn, u->r->req.vaddr, u->level);
    if (!p->cfg.mem_read) {
        read_fixed(u);
        return;
    }
    uint64_t line = u->entry_paddr & ~(uint64_t)(p->cfg.line_bytes - 1);
    /* Waiting before calling out: a zero-latency host answers inside the
     * call, and xlat_walker_mem_done() must find the read outstanding. */
    u->waiting = 1;
    p->reading++;
    int rc = p->cfg.mem_read(p->cfg.mem_user, line, p->cfg.line_bytes, walker_token(u));
    p->reading--;
    if (!u->waiting || rc == XLAT_OK)
        return; /* answered inside the call (its completion is scheduled), or accepted */
    u->waiting = 0;
    p->st.mem_retries++; /* the host's memory is busy: try again next cycle */
    xlat__unit_post(&p->unit, 1, issue_read_event, u);
}

/* Where a walk begins: the root, the node its coalescing reached (PA), or
 * the deepest page-walk-cache hit; returns the PWC latency to charge. */
static uint32_t start_point(struct walker *u)
{
    struct xlat_walker *p = u->pool;
    struct walk_req *r = u->r;
    u->level = p->levels;
    if (xlat__pt_root(p->pt, r->req.pasid, &u->node_pfn) != XLAT_OK)
        u->node_pfn = UINT64_MAX; /* no table for this address space */
    if (r->pl) {
        u->level = r->pl - 1u;
        u->node_pfn = r->pa;
    }
    xlat_pwc_hit hit;
    if (!p->cfg.pwc || (r->pl && !p->cfg.coalesce_pwc))
        return 0;
    p->st.pwc_lookups++;
    if (xlat_pwc_lookup(p->cfg.pwc, r->req.pasid, r->req.vaddr, &hit) == XLAT_OK) {
        p->st.pwc_hits[hit.level]++;
        if (hit.next_level < u->level) {
            u->level = hit.next_level;
            u->node_pfn = hit.node_pfn;
        }
    }
    return xlat_pwc_latency(p->cfg.pwc);
}

/* Begins (or, after a fault, re-begins) the walk's reads. */
static void begin(struct walker *u)
{
    uint32_t delay = start_point(u);
    if (u->node_pfn == UINT64_MAX) {
        /* No table: the fault is raised from tick, never from inside the
         * xlat_walker_translate() that started the walk. */
        u->entry_paddr = 0;
        xlat__unit_post(&u->pool->unit, 0, fault_event, u);
    } else if (delay) {
        xlat__unit_post(&u->pool->unit, delay, issue_read_event, u);
    } else {
        issue_read(u);
    }
}

void xlat__walk_start(struct xlat_walker *p, uint32_t w, struct walk_req *r, int32_t thief)
{
    struct walker *u = &p->walker[w];
    bool stolen = thief >= 0;
    u->r = r;
    u->stolen = stolen;
    if (p->cfg.coal_aware)
        xlat__coal_walk_begin(p, w);
    r->start = p->unit.ctx->now;
    r->queue = -1;
    p->busy++;
    p->idle[w / 64] &= ~(1ull << (w % 64));
    p->st.walks++;
    p->tenant[r->tenant].st.in_service++;
    if (stolen) {
        p->st.stolen++;
        p->tenant[r->tenant].st.stolen++;
        p->tenant[thief].st.steals++;
    }
    xlat__walk_trace(p, XLAT_WALK_START, r, (int32_t)w, 0, 0, XLAT_OK);
    begin(u);
}

/* Offers the waiting walks to the idle walkers, lowest id first, each once
 * a kick (as a scan of every walker did). Only idle walkers are visited
 * (the bitmap), so a kick costs what it offers, not the size of the pool.
 * Only xlat__walk_kick() calls it, once it found no kick under way. */
void xlat__walk_kick_idle(struct xlat_walker *p)
{
    p->kicking = true;
    for (size_t word = 0; word < idle_words(p) && p->buffered; word++) {
        uint64_t above = ~0ull; /* bits not visited yet in this word */
        uint64_t todo;
        /* Re-read each time: a start may end a walk at once and free a
         * walker further on, which is then offered too. */
        while ((todo = p->idle[word] & above) != 0 && p->buffered) {
            unsigned bit = (unsigned)__builtin_ctzll(todo);
            uint32_t w = (uint32_t)(word * 64 + bit);
            above = bit == 63 ? 0 : ~0ull << (bit + 1);
            int32_t thief = -1;
            struct walk_req *r = p->ops->select(p->sched, w, &thief);
            if (!r)
                continue;
            xlat__pending_remove(p, r);
            xlat__walk_start(p, w, r, thief);
        }
    }
    p->kicking = false;
}

/* Inside a call into the pool that must not take effect synchronously: a
 * call-out to the host's memory (an answer there would recurse through the
 * next level's read, or through other walkers' reads) or
 * xlat_walker_translate() (nothing is answered inside it). */
static bool must_defer(const struct walker *u)
{
    return u->pool->reading || u->pool->translating;
}

int xlat_walker_mem_done(xlat_walker *p, uint64_t token)
{
    if (!p)
        return XLAT_ERR_INVAL;
    struct walker *u = token_walker(p, token);
    if (!u || !u->waiting)
        return xlat__fail(p->unit.ctx, XLAT_ERR_NOT_FOUND,
                          "walker %s: no page-table read is outstanding for token 0x%llx",
                          p->unit.name, (unsigned long long)token);
    if (must_defer(u)) {
        u->waiting = 0; /* answered: a second mem_done is refused */
        xlat__unit_post(&p->unit, 0, read_done_event, u);
        return XLAT_OK;
    }
    read_done(u);
    return XLAT_OK;
}

/* A resumed walk goes on: it answers `status`, looks for its address
 * space's root again, or re-reads the entry that was not present. */
static void resume(struct walker *u, int status)
{
    if (status != XLAT_OK)
        finish(u, 0, status);
    else if (u->node_pfn != UINT64_MAX)
        issue_read(u);
    else if (xlat__pt_root(u->pool->pt, u->r->req.pasid, &u->node_pfn) == XLAT_OK)
        begin(u);
    else
        finish(u, 0, XLAT_ERR_FAULT); /* still no table: faulting again could loop forever */
}

static void resume_event(void *arg)
{
    struct walker *u = arg;
    resume(u, u->resume_status);
    xlat__walk_kick(u->pool);
}

/* The parked request whose fault has `token`, or NULL. */
static struct walk_req *parked_req(struct xlat_walker *p, uint64_t token)
{
    if (!(token >> 63))
        return NULL;
    for (struct walk_req *r = p->pending_head; r; r = r->pnext)
        if (r->parked && r->fault_token == token)
            return r;
    return NULL;
}

/* A parked neighbour's fault is resolved: an error answers it (from a
 * zero-delay event inside translate); XLAT_OK makes it eligible again, its
 * walk starting at the entry that was not present. */
static void unpark(struct xlat_walker *p, struct walk_req *r, int status)
{
    r->parked = false;
    if (status == XLAT_OK) {
        if (p->kicking)
            schedule_drain(p); /* the kick under way may have passed the idle walkers */
        else
            xlat__walk_kick(p);
        return;
    }
    xlat__queue_remove(p, r);
    xlat__pending_remove(p, r);
    r->start = p->unit.ctx->now;
    r->pa = 0;
    r->qnext = NULL;
    if (!p->translating) {
        xlat__walk_answer(p, r, 0, 0, status);
        return;
    }
    r->status = status;
    *(p->late ? p->late_tail : &p->late) = r;
    p->late_tail = &r->qnext;
    schedule_drain(p);
}

int xlat_walker_fault_resume(xlat_walker *p, uint64_t token, int status)
{
    if (!p)
        return XLAT_ERR_INVAL;
    struct walk_req *parked = parked_req(p, token);
    if (parked) {
        unpark(p, parked, status);
        return XLAT_OK;
    }
    struct walker *u = token_walker(p, token);
    if (!u || !u->faulted)
        return xlat__fail(p->unit.ctx, XLAT_ERR_NOT_FOUND,
                          "walker %s: no faulted walk has token 0x%llx", p->unit.name,
                          (unsigned long long)token);
    if (must_defer(u)) {
        u->resume_status = status;
        u->faulted = 0;
        xlat__unit_post(&p->unit, 0, resume_event, u);
        return XLAT_OK;
    }
    u->faulted = 0;
    resume(u, status);
    xlat__walk_kick(p);
    return XLAT_OK;
}
