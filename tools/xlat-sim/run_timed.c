/*
 * Timed mode's CUs. Each CU is in one place at a time: empty, in the ready
 * ring (issues now), in the heap of CUs due later, stalled on its L1's
 * wake-up, or full (cu_outstanding requests in flight). Only ready CUs are
 * offered a request, so the loop's cost follows the requests, not the
 * number of CUs times cycles.
 */
#include <stdlib.h>

#include "runner.h"

/* ---- the heap of CUs due later ------------------------------------------------ */

static void heap_swap(runner *r, uint32_t a, uint32_t b)
{
    sim_due t = r->heap[a];
    r->heap[a] = r->heap[b];
    r->heap[b] = t;
}

static void heap_push(runner *r, uint64_t at, uint32_t cu)
{
    uint32_t i = r->heap_len++;
    r->heap[i] = (sim_due){at, cu};
    while (i && r->heap[(i - 1) / 2].at > r->heap[i].at) {
        heap_swap(r, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static sim_due heap_pop(runner *r)
{
    sim_due top = r->heap[0];
    r->heap[0] = r->heap[--r->heap_len];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < r->heap_len && r->heap[l].at < r->heap[m].at)
            m = l;
        if (l + 1 < r->heap_len && r->heap[l + 1].at < r->heap[m].at)
            m = l + 1;
        if (m == i)
            break;
        heap_swap(r, i, m);
        i = m;
    }
    return top;
}

/* ---- scheduling a CU ---------------------------------------------------------- */

static void make_ready(runner *r, sim_cu *c)
{
    c->state = SIM_CU_READY;
    r->ready[(r->ready_head + r->ready_len++) % r->ncus] = (uint32_t)(c - r->cus);
}

/* A CU with something queued goes where its head can next issue. */
static void schedule(runner *r, sim_cu *c)
{
    uint32_t limit = r->w->cfg.run.cu_outstanding;
    if (!c->len) {
        c->state = SIM_CU_EMPTY;
        return;
    }
    if (limit && c->outstanding >= limit) {
        c->state = SIM_CU_FULL;
        return;
    }
    uint64_t at = r->src->timed ? c->q[c->head].cycle : c->next_issue;
    if (at <= xlat_now(r->w->ctx)) {
        make_ready(r, c);
        return;
    }
    c->state = SIM_CU_TIMED;
    c->due = at;
    heap_push(r, at, (uint32_t)(c - r->cus));
}

/* The L1 may accept again: called from inside xlat_advance(). */
static void on_wake(void *user)
{
    sim_cu *c = user;
    if (c->state != SIM_CU_STALLED)
        return;
    c->run->res->wakeups++;
    make_ready(c->run, c);
}

static void on_done(void *user, const xlat_resp *resp)
{
    sim_rec *rec = user;
    runner *r = rec->run;
    sim_cu *c = rec->cu;
    sim_runner_answered(r, rec, resp);
    sim_rec_put(r, rec);
    c->outstanding--;
    if (c->state == SIM_CU_FULL)
        schedule(r, c);
}

/* ---- reading ahead ------------------------------------------------------------------ */

/* Fills the CUs' queues from the source until one is full or it ends. */
static void fill(runner *r)
{
    uint32_t cus = r->w->cfg.system.cus;
    while (!r->failed) {
        if (!r->have_peek && !sim_runner_read(r, &r->peek))
            return;
        r->have_peek = true;
        sim_cu *c = &r->cus[r->peek.gpu * cus + r->peek.cu];
        if (c->len == SIM_CU_QUEUE)
            return;
        c->q[(c->head + c->len++) % SIM_CU_QUEUE] = r->peek;
        r->have_peek = false;
        if (c->state == SIM_CU_EMPTY)
            schedule(r, c);
    }
}

/* ---- issuing ----------------------------------------------------------------------------- */

/* Offers CU c's head request to its L1: accepted, stalled, or a failure
 * that ends the run (a request the system refuses for good). */
static void issue(runner *r, sim_cu *c)
{
    const sim_request *q = &c->q[c->head];
    sim_rec *rec = sim_rec_get(r);
    if (!rec) {
        r->failed = true;
        sim_fail(r->err, "out of memory for requests in flight");
        return;
    }
    *rec = (sim_rec){.run = r, .cu = c, .r = *q, .seq = r->seq};
    xlat_req req = {.id = rec->seq, .vaddr = q->vaddr, .pasid = q->pasid, .access = q->access,
                    .gpu = (uint16_t)q->gpu, .cu = (uint16_t)q->cu};
    int rc = xlat_system_translate(r->w->sys, &req, on_done, rec);
    uint64_t now = xlat_now(r->w->ctx);
    if (rc == XLAT_OK) {
        rec->accepted = now;
        r->seq++;
        r->inflight++;
        r->res->issued++;
        c->outstanding++;
        c->head = (c->head + 1) % SIM_CU_QUEUE;
        c->len--;
        c->next_issue = now + (r->w->cfg.run.issue_interval ? r->w->cfg.run.issue_interval : 1);
        schedule(r, c);
        return;
    }
    sim_rec_put(r, rec);
    if (rc != XLAT_ERR_AGAIN) {
        r->failed = true;
        sim_fail(r->err, "request %llu: %s", (unsigned long long)r->seq, xlat_ctx_errmsg(r->w->ctx));
        return;
    }
    r->res->refusals++;
    c->state = SIM_CU_STALLED;
    if (!c->l1.wait || c->l1.wait(c->l1.unit, on_wake, c) != XLAT_OK) {
        c->state = SIM_CU_TIMED; /* no wake-up to wait for: try the next cycle */
        c->due = now + 1;
        heap_push(r, now + 1, (uint32_t)(c - r->cus));
    }
}

/* Every CU ready now issues once (a timed trace's CU, as many of its
 * requests as are due and accepted). */
static void issue_ready(runner *r)
{
    while (r->ready_len && !r->failed) {
        sim_cu *c = &r->cus[r->ready[r->ready_head]];
        r->ready_head = (r->ready_head + 1) % r->ncus;
        r->ready_len--;
        issue(r, c);
        fill(r);
    }
}

static void due_now(runner *r)
{
    uint64_t now = xlat_now(r->w->ctx);
    while (r->heap_len && r->heap[0].at <= now) {
        sim_due d = heap_pop(r);
        make_ready(r, &r->cus[d.cu]);
    }
}

static int setup(runner *r)
{
    const sim_world *w = r->w;
    r->ncus = w->gpus * w->cfg.system.cus;
    r->cus = calloc(r->ncus, sizeof(*r->cus));
    r->ready = calloc(r->ncus, sizeof(*r->ready));
    r->heap = calloc(r->ncus, sizeof(*r->heap));
    if (!r->cus || !r->ready || !r->heap)
        return sim_fail(r->err, "out of memory for %u CUs", r->ncus);
    for (uint32_t i = 0; i < r->ncus; i++) {
        sim_cu *c = &r->cus[i];
        *c = (sim_cu){.run = r, .gpu = i / w->cfg.system.cus, .cu = i % w->cfg.system.cus,
                      .l1 = XLAT_TARGET_INIT};
        xlat_tlb_get_target(xlat_system_l1(w->sys, c->gpu, c->cu), &c->l1);
    }
    return 0;
}

int sim_run_timed(runner *r)
{
    if (setup(r) != 0)
        return -1;
    fill(r);
    while (!r->failed) {
        issue_ready(r);
        due_now(r);
        if (r->ready_len)
            continue;
        uint64_t next = xlat_next_event(r->w->ctx);
        if (r->heap_len && r->heap[0].at < next)
            next = r->heap[0].at;
        if (next == XLAT_NEVER) {
            if (r->inflight || !r->src_done || r->have_peek)
                return sim_fail(r->err, "the run stopped with %llu requests in flight: "
                                "nothing left to wake them", (unsigned long long)r->inflight);
            break;
        }
        xlat_advance(r->w->ctx, next - xlat_now(r->w->ctx));
        fill(r);
    }
    return r->failed ? -1 : 0;
}
