/*
 * The issue loop. Timed mode: every CU has a queue of the source's requests
 * for it and issues its head when the head's cycle (a timed trace) or its
 * issue interval (an untimed source) has come. A CU whose L1 refuses
 * (XLAT_ERR_AGAIN) stalls and registers for the L1's wake-up
 * (xlat_target::wait): it is not offered again until woken, so the loop
 * costs nothing per stalled CU and cycle. Between issues the clock jumps to
 * the earlier of the library's next event and the next CU due, never cycle
 * by cycle. A refused request waits in its queue: nothing is dropped, and
 * the run ends when every request has completed.
 *
 * Functional mode: one request at a time in source order, each completing
 * before the next is sent: the order-exact mode of walk-throughs and
 * differential tests.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run.h"
#include "runner.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- records of requests in flight ---------------------------------------- */

sim_rec *sim_rec_get(runner *r)
{
    if (!r->free_recs) {
        sim_rec_block *b = malloc(sizeof(*b));
        if (!b)
            return NULL;
        b->next = r->blocks;
        r->blocks = b;
        for (size_t i = 0; i < SIM_REC_BLOCK; i++) {
            b->rec[i].next_free = r->free_recs;
            r->free_recs = &b->rec[i];
        }
    }
    sim_rec *rec = r->free_recs;
    r->free_recs = rec->next_free;
    return rec;
}

void sim_rec_put(runner *r, sim_rec *rec)
{
    rec->next_free = r->free_recs;
    r->free_recs = rec;
}

/* ---- answers ------------------------------------------------------------------ */

static void log_answer(runner *r, const sim_rec *rec, const xlat_resp *resp, const char *outcome,
                       uint64_t latency)
{
    const sim_request *q = &rec->r;
    if (resp->status == XLAT_OK)
        fprintf(r->opts->log, "%llu %u %u %u 0x%llx %s %llu 0x%llx\n",
                (unsigned long long)rec->seq, q->gpu, q->cu, q->pasid,
                (unsigned long long)q->vaddr, outcome, (unsigned long long)latency,
                (unsigned long long)resp->paddr);
    else
        fprintf(r->opts->log, "%llu %u %u %u 0x%llx %s %llu -\n", (unsigned long long)rec->seq,
                q->gpu, q->cu, q->pasid, (unsigned long long)q->vaddr, outcome,
                (unsigned long long)latency);
}

/* A bar when the run's length is known (--requests, a workload's count),
 * else the count; redrawn at most twice a second, so only a long run
 * shows one. */
static void progress(runner *r)
{
    double t = seconds_now();
    if (t - r->last_progress < 0.5)
        return;
    r->last_progress = t;
    uint64_t total = r->w->cfg.run.requests ? r->w->cfg.run.requests : r->src->expected;
    if (total) {
        char bar[41];
        uint64_t done = r->completed < total ? r->completed : total;
        size_t filled = (size_t)(done * 40 / total);
        memset(bar, '#', filled);
        memset(bar + filled, '.', 40 - filled);
        bar[40] = '\0';
        fprintf(stderr, "\rxlat-sim [%s] %3u%% %llu/%llu requests, cycle %llu ", bar,
                (unsigned)(done * 100 / total), (unsigned long long)done,
                (unsigned long long)total, (unsigned long long)xlat_now(r->w->ctx));
    } else {
        fprintf(stderr, "\rxlat-sim: %llu requests done, cycle %llu ",
                (unsigned long long)r->completed, (unsigned long long)xlat_now(r->w->ctx));
    }
}

void sim_runner_answered(runner *r, sim_rec *rec, const xlat_resp *resp)
{
    xlat_req req = {.id = rec->seq, .gpu = (uint16_t)rec->r.gpu};
    char buf[32];
    const char *outcome = sim_world_outcome(r->w, &req, resp, buf, sizeof(buf));
    uint64_t latency = resp->completed - rec->accepted;
    sim_result_count(r->res, rec->r.pasid, outcome, latency, resp->status != XLAT_OK);
    if (r->opts->log)
        log_answer(r, rec, resp, outcome, latency);
    r->completed++;
    r->inflight--;
    if (r->completed == r->w->cfg.run.warmup) {
        xlat_stats_reset(r->w->ctx, 0);
        sim_result_restart(r->res, xlat_now(r->w->ctx));
    }
    if (r->opts->progress && (r->completed & 4095) == 0)
        progress(r);
}

/* ---- reading the source ---------------------------------------------------- */

/* Takes the next request from the source (mapping its page on first
 * touch); false at the end, on the request limit or on an error. */
bool sim_runner_read(runner *r, sim_request *out)
{
    if (r->src_done)
        return false;
    uint64_t limit = r->w->cfg.run.requests;
    int got = limit && r->read >= limit ? 0 : sim_source_next(r->src, out, r->err);
    if (got == 1 && out->gpu < r->w->gpus && out->cu < r->w->cfg.system.cus &&
        sim_world_touch(r->w, out, r->err) == 0) {
        r->read++;
        return true;
    }
    if (got == 1 && !(out->gpu < r->w->gpus && out->cu < r->w->cfg.system.cus))
        sim_fail(r->err, "%s: request %llu comes from GPU %u CU %u; the system has %u GPUs of %u CUs",
                 r->src->name, (unsigned long long)r->read, out->gpu, out->cu, r->w->gpus,
                 r->w->cfg.system.cus);
    r->src_done = true;
    r->failed = got != 0;
    return false;
}

/* ---- functional mode ---------------------------------------------------------- */

static void functional_done(void *user, const xlat_resp *resp)
{
    sim_rec *rec = user;
    sim_runner_answered(rec->run, rec, resp);
    rec->answered = true;
}

/* Runs until `rec` is answered, then on until what the answer set off
 * (victims moving, filter messages, fills) has settled too, so that the
 * next request meets the state the order says; at most SETTLE_CYCLES more
 * (a GMMU's epochs never settle). */
#define SETTLE_CYCLES 100000

static int settle(runner *r, sim_rec *rec)
{
    xlat_ctx *ctx = r->w->ctx;
    uint64_t until = XLAT_NEVER;
    for (;;) {
        uint64_t next = xlat_next_event(ctx);
        if (rec->answered && until == XLAT_NEVER)
            until = xlat_now(ctx) + SETTLE_CYCLES;
        if (next == XLAT_NEVER || next > until)
            break;
        xlat_advance(ctx, next - xlat_now(ctx));
    }
    if (!rec->answered)
        return sim_fail(r->err, "request %llu was never answered", (unsigned long long)rec->seq);
    return 0;
}

static int run_functional(runner *r)
{
    sim_request q;
    sim_rec rec = {.run = r};
    while (sim_runner_read(r, &q)) {
        rec.r = q;
        rec.seq = r->seq++;
        rec.answered = false;
        xlat_req req = {.id = rec.seq, .vaddr = q.vaddr, .pasid = q.pasid, .access = q.access,
                        .gpu = (uint16_t)q.gpu, .cu = (uint16_t)q.cu};
        int rc;
        while ((rc = xlat_system_translate(r->w->sys, &req, functional_done, &rec)) == XLAT_ERR_AGAIN)
            xlat_tick(r->w->ctx); /* units still busy with an earlier request's aftermath */
        if (rc != XLAT_OK)
            return sim_fail(r->err, "request %llu: %s", (unsigned long long)rec.seq,
                            xlat_ctx_errmsg(r->w->ctx));
        rec.accepted = xlat_now(r->w->ctx);
        r->inflight++;
        r->res->issued++;
        if (settle(r, &rec) != 0)
            return -1;
    }
    return r->failed ? -1 : 0;
}

void sim_runner_free(runner *r)
{
    while (r->blocks) {
        sim_rec_block *b = r->blocks;
        r->blocks = b->next;
        free(b);
    }
    free(r->cus);
    free(r->ready);
    free(r->heap);
}

/* ---- the run --------------------------------------------------------------------- */

int sim_run(sim_world *w, sim_source *src, const sim_run_opts *opts, sim_result *res,
            sim_error *err)
{
    memset(res, 0, sizeof(*res));
    runner r = {.w = w, .src = src, .opts = opts, .res = res, .err = err};
    double t0 = seconds_now();
    res->start_cycle = xlat_now(w->ctx);
    int rc = w->cfg.run.mode == SIM_MODE_FUNCTIONAL ? run_functional(&r) : sim_run_timed(&r);
    res->end_cycle = xlat_now(w->ctx);
    res->host_seconds = seconds_now() - t0;
    res->pages_mapped = w->pages_mapped;
    if (opts->progress && r.last_progress > 0)
        fprintf(stderr, "\r%100s\r", "");
    sim_result_finish(res);
    sim_runner_free(&r);
    return rc;
}
