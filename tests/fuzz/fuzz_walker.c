/* A walker pool over a 4-level table on physical memory, driven by the
 * bytes. The first bytes choose the pool: scheduler (FCFS, partition, DWS,
 * DWS++), tenants and walkers, buffer room, coalescing, a PWC or none, the
 * memory (fixed latency, or a host answering its reads at once, a few
 * cycles later or refusing some) and the faults (answered by the pool, or
 * resolved by the host at once or later: mapped then resumed, or failed).
 * Then translate, bursts, tick, advance, map/unmap/protect, PWC
 * invalidations and fault resolutions over 4 PASIDs of 64 pages each.
 *
 * What is checked: every accepted request is answered exactly once, never
 * inside the xlat_walker_translate() that took it, only inside the host's
 * tick/advance, mem_done or fault_resume; a refusal is XLAT_ERR_AGAIN
 * with the buffer full; at quiescence every tenant is accepted again and an
 * FCFS pool takes exactly its room (buffer plus walkers) in one cycle; the
 * counters agree with the host's.
 *
 * The answer: the walker reads each entry when its read completes, so a
 * page remapped while its request is in flight is answered with one of
 * the states the page had from the request's acceptance to its answer
 * (frame and permissions of a mapping, or XLAT_ERR_FAULT for an unmapped
 * one, XLAT_ERR_PERM for a mapping that does not allow the access: R for
 * reads, W for writes, X for fetches, R and W for atomics), never an older
 * one. */
#include <string.h>

#include "fuzz.h"

#define PASIDS 4
#define PAGES 64
#define MAX_REQS 2048
#define MAX_LOG 4096
#define MAX_READS 512
#define MAX_FAULTS 512
#define DRAIN_CYCLES 200000

enum mem_model { MEM_FIXED, MEM_AT_ONCE, MEM_LATER };
enum fault_model { FAULT_NONE, FAULT_AT_ONCE, FAULT_LATER };

/* A page's state: mapped with a frame and permissions, or not. */
typedef struct page_state {
    uint64_t pfn;
    uint8_t perm, mapped;
} page_state;

/* A change of a page, in the order the host made them. */
typedef struct change {
    uint8_t pasid, page;
    page_state now;
} change;

typedef struct request {
    uint8_t pasid, page, answers;
    xlat_access access;
    int failed_with; /* the status the host failed its fault with, or 0 */
    size_t log_at;   /* changes before its acceptance */
    page_state at;   /* its page's state at acceptance */
} request;

typedef struct pending_read {
    struct harness *h;
    uint64_t token;
} pending_read;

typedef struct pending_fault {
    uint64_t token, id;
} pending_fault;

typedef struct harness {
    fuzz_input *in;
    xlat_ctx *ctx;
    xlat_physmem *mem;
    xlat_pagetable *pt;
    xlat_pwc *pwc;
    xlat_walker *pool;
    xlat_walker_config cfg;
    enum mem_model mem_model;
    enum fault_model fault_model;
    int in_translate, in_host_call; /* where answers may not / may come */
    page_state page[PASIDS][PAGES];
    size_t nlog, nreq, answered, refused;
    change log[MAX_LOG];
    request req[MAX_REQS];
    size_t nreads;
    pending_read reads[MAX_READS];
    size_t nfaults;
    pending_fault faults[MAX_FAULTS];
} harness;

/* Pages of a PASID: 16 in a row sharing leaf lines, 4 such runs 2 MiB
 * apart sharing upper nodes, so coalescing finds neighbours. */
static uint64_t page_va(uint32_t page)
{
    return UINT64_C(0x40000000) + (uint64_t)(page / 16) * (UINT64_C(2) << 20) +
           (uint64_t)(page % 16) * 4096;
}

static void set_page(harness *h, uint32_t pasid, uint32_t page, page_state now)
{
    h->page[pasid][page] = now;
    if (h->nlog < MAX_LOG)
        h->log[h->nlog++] = (change){(uint8_t)pasid, (uint8_t)page, now};
}

/* The host maps an unmapped page; mappings are not checked once the log is full. */
static void map_page(harness *h, uint32_t pasid, uint32_t page, uint64_t pfn, uint8_t perm)
{
    int rc = xlat_pagetable_map(h->pt, pasid, page_va(page), pfn, 12, perm);
    FUZZ_CHECK(rc == XLAT_OK, "map PASID %u page %u: %d %s", pasid, page, rc,
               xlat_ctx_errmsg(h->ctx));
    set_page(h, pasid, page, (page_state){pfn, (uint8_t)(perm | XLAT_PERM_R), 1});
}

/* The permissions each xlat_access needs. */
static uint8_t needed_perm(xlat_access access)
{
    static const uint8_t need[4] = {XLAT_PERM_R, XLAT_PERM_W, XLAT_PERM_X,
                                    XLAT_PERM_R | XLAT_PERM_W};
    return need[access & 3];
}

static int same_state(const page_state *s, xlat_access access, const xlat_resp *r)
{
    if (!s->mapped)
        return r->status == XLAT_ERR_FAULT;
    if ((s->perm & needed_perm(access)) != needed_perm(access))
        return r->status == XLAT_ERR_PERM;
    return r->status == XLAT_OK && r->pfn == s->pfn && r->perm == s->perm;
}

/* The answer is one of the states its page had since its acceptance. */
static int answer_allowed(const harness *h, const request *q, const xlat_resp *r)
{
    if (q->failed_with && r->status == q->failed_with)
        return 1;
    if (h->nlog >= MAX_LOG || same_state(&q->at, q->access, r))
        return 1;
    for (size_t i = q->log_at; i < h->nlog; i++)
        if (h->log[i].pasid == q->pasid && h->log[i].page == q->page &&
            same_state(&h->log[i].now, q->access, r))
            return 1;
    return 0;
}

static void on_done(void *user, const xlat_resp *r)
{
    harness *h = user;
    FUZZ_CHECK(!h->in_translate && h->in_host_call, "request %llu answered outside the clock",
               (unsigned long long)r->id);
    FUZZ_CHECK(r->id < h->nreq, "answer to an unknown id %llu", (unsigned long long)r->id);
    request *q = &h->req[r->id];
    FUZZ_CHECK(q->answers == 0, "request %llu answered twice", (unsigned long long)r->id);
    q->answers++;
    h->answered++;
    uint64_t va = page_va(q->page) + (r->id & 0xfff);
    FUZZ_CHECK(r->pasid == q->pasid && r->vaddr == va, "answer %llu for another request",
               (unsigned long long)r->id);
    FUZZ_CHECK(answer_allowed(h, q, r),
               "request %llu (PASID %u page %u): status %d pfn 0x%llx perm 0x%x, a state the "
               "page never had since its acceptance",
               (unsigned long long)r->id, q->pasid, q->page, r->status,
               (unsigned long long)r->pfn, r->perm);
    if (r->status == XLAT_OK)
        FUZZ_CHECK(r->page_shift == 12 && r->paddr == (r->pfn << 12 | (va & 0xfff)),
                   "request %llu: shift %u paddr 0x%llx", (unsigned long long)r->id,
                   r->page_shift, (unsigned long long)r->paddr);
}

/* ---- the host's memory ------------------------------------------------ */

static void host_mem_done(harness *h, uint64_t token)
{
    h->in_host_call++;
    int rc = xlat_walker_mem_done(h->pool, token);
    h->in_host_call--;
    FUZZ_CHECK(rc == XLAT_OK, "mem_done of an outstanding read: %d", rc);
}

static void on_read_due(void *user)
{
    pending_read *p = user;
    host_mem_done(p->h, p->token);
    p->h = NULL;
}

static pending_read *free_read_slot(harness *h)
{
    for (size_t i = 0; i < h->nreads; i++)
        if (!h->reads[i].h)
            return &h->reads[i];
    return h->nreads < MAX_READS ? &h->reads[h->nreads++] : NULL;
}

static int on_mem_read(void *user, uint64_t paddr, uint32_t bytes, uint64_t token)
{
    harness *h = user;
    (void)paddr;
    FUZZ_CHECK(bytes == h->cfg.line_bytes, "read of %u bytes", bytes);
    uint8_t how = fuzz_u8(h->in);
    if (h->mem_model == MEM_AT_ONCE) {
        host_mem_done(h, token);
        return XLAT_OK;
    }
    pending_read *slot = how >= 0xe0 ? NULL : free_read_slot(h);
    if (!slot) /* busy: the walker retries next cycle */
        return XLAT_ERR_AGAIN;
    *slot = (pending_read){h, token};
    FUZZ_CHECK(xlat_schedule(h->ctx, 1 + how % 4, on_read_due, slot) == XLAT_OK, "schedule: %s",
               xlat_ctx_errmsg(h->ctx));
    return XLAT_OK;
}

/* ---- faults ------------------------------------------------------------ */

/* Maps the faulting page (unless it was mapped since) and resumes the walk,
 * or fails it with XLAT_ERR_FAULT or XLAT_ERR_PERM. */
static void resolve_fault(harness *h, uint64_t token, uint64_t id, uint8_t how)
{
    request *q = &h->req[id];
    int status = XLAT_OK;
    if (how & 1) {
        if (!h->page[q->pasid][q->page].mapped)
            map_page(h, q->pasid, q->page, 0x80000 + how, how & XLAT_PERM_W);
    } else {
        status = how & 2 ? XLAT_ERR_PERM : XLAT_ERR_FAULT;
        q->failed_with = status;
    }
    h->in_host_call++;
    int rc = xlat_walker_fault_resume(h->pool, token, status);
    h->in_host_call--;
    FUZZ_CHECK(rc == XLAT_OK, "fault_resume of a pending fault: %d", rc);
}

static void on_fault(void *user, xlat_walker *pool, const xlat_walk_fault *f)
{
    harness *h = user;
    FUZZ_CHECK(pool == h->pool && !h->in_translate, "fault inside translate");
    FUZZ_CHECK(f->id < h->nreq && !h->req[f->id].answers, "fault of request %llu",
               (unsigned long long)f->id);
    uint8_t how = fuzz_u8(h->in);
    if (h->fault_model == FAULT_LATER && h->nfaults < MAX_FAULTS && how < 0xc0) {
        h->faults[h->nfaults++] = (pending_fault){f->token, f->id};
        return;
    }
    resolve_fault(h, f->token, f->id, how);
}

/* The most recent `n` pending faults; `how` 0 lets the bytes say how each
 * ends, 1 maps them all. */
static void resolve_pending(harness *h, size_t n, uint8_t how)
{
    while (n-- > 0 && h->nfaults > 0) {
        pending_fault f = h->faults[--h->nfaults];
        resolve_fault(h, f.token, f.id, (uint8_t)(fuzz_u8(h->in) | how));
    }
}

/* ---- the host's calls ------------------------------------------------- */

/* A refusal says the buffer is full: FCFS's one queue, or at least one of
 * the per-tenant or per-walker queues the request may use. */
static void check_refusal(harness *h, int rc)
{
    size_t buffered = xlat_walker_buffered(h->pool);
    size_t least = h->cfg.sched == XLAT_SCHED_FCFS ? h->cfg.queue_entries
                                                   : h->cfg.queue_entries / h->cfg.walkers;
    FUZZ_CHECK(rc == XLAT_ERR_AGAIN, "translate: %d", rc);
    FUZZ_CHECK(buffered >= least, "refused with %zu buffered (room %u, %u walkers)", buffered,
               h->cfg.queue_entries, h->cfg.walkers);
    h->refused++;
}

/* Returns 1 when the pool took the request. */
static int translate(harness *h, uint32_t pasid, uint32_t page, xlat_access access)
{
    if (h->nreq >= MAX_REQS)
        return 0;
    uint64_t id = h->nreq;
    xlat_req r = {.id = id, .pasid = pasid, .vaddr = page_va(page) + (id & 0xfff),
                  .access = access};
    h->req[id] = (request){(uint8_t)pasid, (uint8_t)page, 0, access, 0, h->nlog,
                           h->page[pasid][page]};
    h->in_translate = 1;
    int rc = xlat_walker_translate(h->pool, &r, on_done, h);
    h->in_translate = 0;
    if (rc == XLAT_OK) {
        h->nreq++;
        return 1;
    }
    check_refusal(h, rc);
    return 0;
}

static void run_clock(harness *h, uint64_t cycles)
{
    h->in_host_call++;
    int rc = cycles ? xlat_advance(h->ctx, cycles) : xlat_tick(h->ctx);
    h->in_host_call--;
    FUZZ_CHECK(rc == XLAT_OK, "clock: %d", rc);
}

/* Map an unmapped page; remap, unmap or protect a mapped one. */
static void change_page(harness *h, uint32_t pasid, uint32_t page, uint8_t how, uint16_t pfn)
{
    page_state *s = &h->page[pasid][page];
    uint8_t perm = how & (XLAT_PERM_W | XLAT_PERM_X | XLAT_PERM_U);
    if (!s->mapped) {
        map_page(h, pasid, page, pfn, perm);
        return;
    }
    if (how % 4 == 3) {
        FUZZ_CHECK(xlat_pagetable_protect(h->pt, pasid, page_va(page), perm) == XLAT_OK,
                   "protect: %s", xlat_ctx_errmsg(h->ctx));
        set_page(h, pasid, page, (page_state){s->pfn, (uint8_t)(perm | XLAT_PERM_R), 1});
        return;
    }
    FUZZ_CHECK(xlat_pagetable_unmap(h->pt, pasid, page_va(page)) == XLAT_OK, "unmap: %s",
               xlat_ctx_errmsg(h->ctx));
    set_page(h, pasid, page, (page_state){0, 0, 0});
    if (how % 4 == 2) /* remapped to another frame */
        map_page(h, pasid, page, pfn, perm);
}

static void invalidate_pwc(harness *h, uint32_t pasid, uint32_t page, uint8_t how)
{
    if (!h->pwc)
        return;
    int rc = how % 3 == 0   ? xlat_pwc_invalidate(h->pwc, pasid, page_va(page))
             : how % 3 == 1 ? xlat_pwc_invalidate_pasid(h->pwc, pasid)
                            : xlat_pwc_flush(h->pwc);
    FUZZ_CHECK(rc >= 0, "pwc invalidation: %d", rc);
}

static void run_ops(harness *h)
{
    fuzz_input *in = h->in;
    while (fuzz_more(in) && h->nreq < MAX_REQS) {
        uint8_t op = fuzz_u8(in), arg = fuzz_u8(in);
        uint32_t pasid = arg % PASIDS, page = (arg >> 2) % PAGES;
        switch (op % 12) {
        case 0: case 1: case 2: case 3:
            translate(h, pasid, page, (xlat_access)(op >> 4 & 3));
            break;
        case 4: { /* a burst of neighbours, what coalescing is for */
            uint32_t n = 1 + fuzz_u8(in) % 24;
            for (uint32_t i = 0; i < n; i++)
                translate(h, pasid, (page + i) % PAGES, XLAT_ACCESS_READ);
            break;
        }
        case 5: case 6:
            run_clock(h, 0);
            break;
        case 7:
            run_clock(h, 1 + op / 12 % 64);
            break;
        case 8: case 9:
            change_page(h, pasid, page, op / 12, fuzz_u16(in));
            break;
        case 10:
            invalidate_pwc(h, pasid, page, op / 12);
            break;
        default:
            resolve_pending(h, 1 + op / 12 % 4, 0);
            break;
        }
    }
}

/* Runs until every accepted request is answered, the host mapping what
 * faults from now on. */
static void drain(harness *h)
{
    for (uint32_t c = 0; c < DRAIN_CYCLES && (h->answered < h->nreq || h->nfaults); c++) {
        resolve_pending(h, h->nfaults, 1);
        run_clock(h, 0);
    }
    FUZZ_CHECK(h->answered == h->nreq, "%zu of %zu requests never answered",
               h->nreq - h->answered, h->nreq);
    FUZZ_CHECK(xlat_walker_buffered(h->pool) == 0 && xlat_walker_busy(h->pool) == 0,
               "quiet pool with %zu buffered, %u busy", xlat_walker_buffered(h->pool),
               xlat_walker_busy(h->pool));
}

/* An idle pool accepts every tenant; an FCFS pool takes a walk on each
 * walker and fills its buffer in one cycle (with coalescing a request that
 * a started walk could serve waits in the buffer instead of a walker). */
static void check_quiescent(harness *h)
{
    if (h->nreq + h->cfg.queue_entries + h->cfg.walkers + PASIDS > MAX_REQS)
        return;
    for (uint32_t t = 0; t < h->cfg.tenants && t < PASIDS; t++)
        FUZZ_CHECK(translate(h, t, t, XLAT_ACCESS_READ), "idle pool refused tenant %u", t);
    drain(h);
    if (h->cfg.sched != XLAT_SCHED_FCFS)
        return;
    size_t taken = 0;
    while (translate(h, (uint32_t)taken % PASIDS, (uint32_t)(taken / PASIDS * 5) % PAGES,
                     XLAT_ACCESS_READ))
        taken++;
    size_t room = h->cfg.queue_entries + h->cfg.walkers;
    FUZZ_CHECK(h->cfg.coalesce ? taken >= h->cfg.queue_entries && taken <= room : taken == room,
               "idle FCFS pool took %zu (room %u + %u walkers)", taken, h->cfg.queue_entries,
               h->cfg.walkers);
    drain(h);
}

static void check_stats(harness *h)
{
    xlat_walker_stats st;
    xlat_walker_stats_get(h->pool, &st, sizeof(st));
    FUZZ_CHECK(st.requests == h->nreq && st.completed == h->nreq && st.refusals == h->refused,
               "stats: %llu requests %llu completed %llu refusals, host %zu %zu %zu",
               (unsigned long long)st.requests, (unsigned long long)st.completed,
               (unsigned long long)st.refusals, h->nreq, h->answered, h->refused);
    uint64_t requests = 0, completed = 0;
    for (uint32_t t = 0; t < h->cfg.tenants; t++) {
        xlat_walker_tenant_stats ts;
        FUZZ_CHECK(xlat_walker_tenant_stats_get(h->pool, t, &ts, sizeof(ts)) == XLAT_OK,
                   "tenant %u stats", t);
        FUZZ_CHECK(ts.queued == 0 && ts.in_service == 0, "tenant %u: %llu queued %llu walking",
                   t, (unsigned long long)ts.queued, (unsigned long long)ts.in_service);
        requests += ts.requests;
        completed += ts.completed;
    }
    FUZZ_CHECK(requests == h->nreq && completed == h->nreq, "tenants: %llu requests %llu answered",
               (unsigned long long)requests, (unsigned long long)completed);
}

/* ---- the pool ---------------------------------------------------------- */

static void choose_pool(harness *h)
{
    fuzz_input *in = h->in;
    xlat_walker_config *c = &h->cfg;
    uint8_t a = fuzz_u8(in), b = fuzz_u8(in), m = fuzz_u8(in);
    static const uint32_t lines[4] = {64, 8, 4096, 64};
    xlat_walker_config_init(c);
    c->sched = (xlat_walk_sched)(a % 4);
    c->coalesce = a >> 2 & 1;
    c->coalesce_pwc = a >> 3 & 1;
    c->idle_steal = a >> 5 & 1;
    c->assign = (xlat_walker_assign)(a >> 6 & 1);
    c->coalesce_fill_pwc = a >> 7 & 1;
    c->tenants = 1 + b % 4;
    c->walkers = c->tenants * (1 + (b >> 2) % 3);
    c->queue_entries = c->walkers * (1 + (b >> 4) % 4);
    c->mem_latency = 1 + m % 16;
    c->line_bytes = lines[m >> 6];
    h->mem_model = (enum mem_model)((m >> 4) % 3);
    h->fault_model = (enum fault_model)(fuzz_u8(in) % 3);
    if (h->mem_model != MEM_FIXED) {
        c->mem_read = on_mem_read;
        c->mem_user = h;
    }
    if (h->fault_model != FAULT_NONE) {
        c->fault_fn = on_fault;
        c->fault_user = h;
    }
    c->pt = h->pt;
    c->pwc = a >> 4 & 1 ? h->pwc : NULL;
}

/* Table, PWC and pool; about three pages in four mapped to start with. */
static void build(harness *h)
{
    xlat_physmem_config pc;
    xlat_pagetable_config tc;
    xlat_pwc_config wc;
    FUZZ_CHECK(xlat_ctx_create(NULL, &h->ctx) == XLAT_OK, "ctx");
    xlat_physmem_config_init(&pc);
    FUZZ_CHECK(xlat_physmem_create(h->ctx, &pc, &h->mem) == XLAT_OK, "physmem");
    xlat_pagetable_config_init(&tc);
    tc.mem = h->mem;
    FUZZ_CHECK(xlat_pagetable_create(h->ctx, &tc, &h->pt) == XLAT_OK, "pagetable");
    xlat_pwc_config_init(&wc);
    for (uint32_t l = 2; l <= 4; l++)
        wc.entries[l] = 2;
    FUZZ_CHECK(xlat_pwc_create(h->ctx, &wc, &h->pwc) == XLAT_OK, "pwc");
    choose_pool(h);
    uint8_t spread = fuzz_u8(h->in);
    for (uint32_t pasid = 0; pasid < PASIDS; pasid++)
        for (uint32_t page = 0; page < PAGES; page++)
            if ((page * 7 + pasid * 3 + spread) % 4)
                map_page(h, pasid, page, 0x1000 + pasid * PAGES + page, spread & XLAT_PERM_W);
    h->nlog = 0; /* the starting states are every request's `at` */
    int rc = xlat_walker_create(h->ctx, &h->cfg, &h->pool);
    FUZZ_CHECK(rc == XLAT_OK, "walker create: %s", xlat_ctx_errmsg(h->ctx));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size, 0};
    harness *h = calloc(1, sizeof(*h));
    if (!h)
        return 0;
    h->in = &in;
    build(h);
    run_ops(h);
    drain(h);
    check_quiescent(h);
    check_stats(h);
    FUZZ_CHECK(xlat_walker_destroy(h->pool) == XLAT_OK, "walker destroy");
    xlat_pwc_destroy(h->pwc);
    xlat_pagetable_destroy(h->pt);
    xlat_physmem_destroy(h->mem);
    xlat_ctx_destroy(h->ctx);
    free(h);
    return 0;
}
